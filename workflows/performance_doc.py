"""docs/performance.md's table of the H100 is generated from the CSV `make bench` wrote there
(docs/figures/bench-h100.csv): this rewrites the lines between its two markers, or with --check
says whether they are what the CSV gives (exit 1 where not). With BASELINE (an earlier CSV of
the same machine), the rows measured again at another time carry the time before.
    performance_doc.py [--check] CSV DOC [BASELINE]"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_table import before_times, read_rows, table_rows  # noqa: E402

BEGIN = "<!-- the table below is generated: make -f Makefile.workflow performance-doc -->"
END = "<!-- end of the generated table -->"


def main(args):
    check = args[:1] == ["--check"]
    if check:
        args = args[1:]
    if len(args) not in (2, 3):
        sys.exit(__doc__)
    csv_path, doc_path = args[:2]
    before = before_times(read_rows(args[2])) if len(args) == 3 else None
    table = table_rows(read_rows(csv_path), before)
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
