"""The benchmark table (make -f Makefile.workflow bench): the rows every benchmark program and
tests/bench_run.sh appended to out/bench.csv (columns program, workload, ms, floor_ms,
floor_basis, peer, peer_ms), as one Markdown table.
    bench_table.py CSV MARKDOWN DEVICE COMMIT"""
import csv
import datetime
import sys


def seconds_or_ms(ms):
    return f"{ms / 1e3:.2f} s" if ms >= 1e3 else f"{ms:.4g} ms"


def table_rows(rows):
    """The Markdown table (header and a line a row) of bench.csv's rows."""
    lines = [
        "| program | workload | time | floor | of floor | floor basis | peer | vs peer |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        ms = float(r["ms"])
        floor = float(r["floor_ms"]) if r["floor_ms"] else None
        peer = float(r["peer_ms"]) if r["peer_ms"] else None
        lines.append(
            "| {} | {} | {} | {} | {} | {} | {} | {} |".format(
                r["program"],
                r["workload"],
                seconds_or_ms(ms),
                seconds_or_ms(floor) if floor else "",
                f"{floor / ms:.2f}" if floor else "",
                r["floor_basis"],
                f"{r['peer']} {seconds_or_ms(peer)}" if peer else "",
                f"{peer / ms:.2f}x faster" if peer and peer >= ms else
                (f"{ms / peer:.2f}x slower" if peer else ""),
            )
        )
    return lines


def main(csv_path, md_path, device, commit):
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    lines = [
        f"Benchmarks on {device}, commit {commit}, {datetime.date.today().isoformat()} "
        "(the programs' rows: medians after warm-up; `end to end`: one run's wall time; "
        "`of floor` = floor / time, 1 is the floor itself).",
        "",
    ] + table_rows(rows)
    with open(md_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"bench: {len(rows)} rows in {md_path} and {csv_path}")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
