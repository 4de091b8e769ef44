"""The benchmark table (make -f Makefile.workflow bench): the rows every benchmark program and
tests/bench_run.sh appended to out/bench.csv (columns program, workload, ms, floor_ms,
floor_basis, peer, peer_ms), as one Markdown table. Given a BASELINE (an earlier bench.csv of the
same machine), a row whose program and workload it holds at another time carries that time as
`before`, and before / time.
    bench_table.py CSV MARKDOWN DEVICE COMMIT [BASELINE]"""
import csv
import datetime
import sys


def seconds_or_ms(ms):
    return f"{ms / 1e3:.2f} s" if ms >= 1e3 else f"{ms:.4g} ms"


def read_rows(path):
    """A bench.csv's rows; a file that cannot be read, or of other columns, ends the program with
    exit 2, naming it."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        print(f"bench_table: cannot read {path}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    if rows and not {"program", "workload", "ms"} <= set(rows[0]):
        print(f"bench_table: {path} is not a bench.csv (its columns: {', '.join(rows[0])})",
              file=sys.stderr)
        sys.exit(2)
    return rows


def before_times(rows):
    """{(program, workload): ms} of a baseline's rows."""
    return {(r["program"], r["workload"]): float(r["ms"]) for r in rows}


def before_cells(r, before):
    """The before and before / time cells of row r: empty where the baseline has no such row or
    the same time."""
    then = before.get((r["program"], r["workload"]))
    now = float(r["ms"])
    if then is None or then == now:
        return ["", ""]
    return [seconds_or_ms(then), f"{then / now:.2f}x"]


def table_rows(rows, before=None):
    """The Markdown table (header and a line a row) of bench.csv's rows; with before (a
    baseline's before_times), two more columns."""
    head = ["program", "workload", "time", "floor", "of floor", "floor basis", "peer", "vs peer"]
    if before is not None:
        head += ["before", "before / time"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r in rows:
        ms = float(r["ms"])
        floor = float(r["floor_ms"]) if r["floor_ms"] else None
        peer = float(r["peer_ms"]) if r["peer_ms"] else None
        cells = [
            r["program"],
            r["workload"],
            seconds_or_ms(ms),
            seconds_or_ms(floor) if floor else "",
            f"{floor / ms:.2f}" if floor else "",
            r["floor_basis"],
            f"{r['peer']} {seconds_or_ms(peer)}" if peer else "",
            f"{peer / ms:.2f}x faster" if peer and peer >= ms else
            (f"{ms / peer:.2f}x slower" if peer else ""),
        ]
        if before is not None:
            cells += before_cells(r, before)
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def main(csv_path, md_path, device, commit, baseline=None):
    rows = read_rows(csv_path)
    before = before_times(read_rows(baseline)) if baseline else None
    lines = [
        f"Benchmarks on {device}, commit {commit}, {datetime.date.today().isoformat()} "
        "(the programs' rows: medians after warm-up; `end to end`: one run's wall time; "
        "`of floor` = floor / time, 1 is the floor itself)"
        + (f"; `before`: {baseline}'s time of the row." if baseline else "."),
        "",
    ] + table_rows(rows, before)
    with open(md_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"bench: {len(rows)} rows in {md_path} and {csv_path}")


if __name__ == "__main__":
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    main(*sys.argv[1:])
