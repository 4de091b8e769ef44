"""docs/performance.md's table of the H100 is generated from the CSV `make bench` wrote there
(docs/figures/bench-h100.csv): this rewrites the lines between its two markers, or with --check
says whether they are what the CSV gives (exit 1 where not).
    performance_doc.py [--check] CSV DOC"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_table import table_rows  # noqa: E402

BEGIN = "<!-- the table below is generated: make -f Makefile.workflow performance-doc -->"
END = "<!-- end of the generated table -->"


def main(args):
    check = args[:1] == ["--check"]
    if check:
        args = args[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    csv_path, doc_path = args
    with open(csv_path, newline="") as f:
        table = table_rows(list(csv.DictReader(f)))
    with open(doc_path) as f:
        doc = f.read().split("\n")
    if BEGIN not in doc or END not in doc:
        sys.exit(f"{doc_path}: no markers {BEGIN!r} ... {END!r}")
    a, b = doc.index(BEGIN), doc.index(END)
    if check:
        same = doc[a + 1:b] == table
        print(f"{doc_path}: the table {'is' if same else 'is not'} what {csv_path} gives")
        sys.exit(0 if same else 1)
    with open(doc_path, "w") as f:
        f.write("\n".join(doc[:a + 1] + table + doc[b:]))
    print(f"{doc_path}: {len(table) - 2} rows from {csv_path}")


if __name__ == "__main__":
    main(sys.argv[1:])
