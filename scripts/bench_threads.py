#!/usr/bin/env python3
"""Parallel decode: Herringbone reading whole suite files with `with_threads(1)` and
`with_threads(N)`, paired rounds in one `suite serve` process, wall and CPU time.

    nice -n 10 cargo build --release -p herringbone-benches --features threads --bin suite
    /work/venv/bin/python scripts/bench_threads.py                 # every large file, N = 2
    /work/venv/bin/python scripts/bench_threads.py --threads 2 4 --rounds 5 --only lineitem

Each round reads each file once per thread count (`--fresh`: each read in a process of
its own, as a one-shot tool reads; else all in one process, as a service does), the order alternating between rounds
(after one warm-up read each: the page cache holds the file). The table gives the
median wall and CPU time (the process's, all threads) of each thread count, and the
median over rounds of N threads' wall time / one thread's. On a loaded machine the wall
ratio says how much of a second core the read got; the CPU ratio says what the threads
cost (at 1.0 they add no work).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="/work/benchdata/full")
    parser.add_argument("--threads", type=int, nargs="+", default=[2])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default=None, help="regex on the file name")
    parser.add_argument("--suite", default=None, help="the suite binary (default target/release/suite)")
    parser.add_argument("--fresh", action="store_true",
                        help="each read in a process of its own (`suite read`), not one `suite serve`")
    args = parser.parse_args()

    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    suite = args.suite or str(target / "release" / "suite")
    files = sorted(Path(args.data).glob("*.parquet"))
    if args.only:
        files = [f for f in files if re.search(args.only, f.name)]
    counts = [1] + [n for n in args.threads if n != 1]
    worker = subprocess.Popen([suite, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def read(path: Path, threads: int) -> dict:
        if args.fresh:
            out = subprocess.run([suite, "read", "herringbone", str(path), "--threads", str(threads)],
                                 capture_output=True, text=True).stdout
            answer = json.loads(out.strip().splitlines()[-1])
        else:
            request = {"op": "read", "reader": "herringbone", "path": str(path), "threads": threads}
            worker.stdin.write(json.dumps(request) + "\n")
            worker.stdin.flush()
            answer = json.loads(worker.stdout.readline())
        if "error" in answer:
            raise SystemExit(f"{path.name}, {threads} threads: {answer['error']}")
        return answer

    header = ["file"] + [f"{n} thr wall ms (cpu ms)" for n in counts]
    header += [f"{n} ÷ 1 wall (cpu)" for n in counts[1:]]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    try:
        for path in files:
            times = {n: [] for n in counts}
            for n in counts:
                read(path, n)
            for round_ in range(args.rounds):
                order = counts if round_ % 2 == 0 else counts[::-1]
                for n in order:
                    answer = read(path, n)
                    times[n].append((answer["ns"], answer["cpu_ns"]))
            med = lambda xs: statistics.median(xs)
            cells = [path.name]
            for n in counts:
                wall = med([t[0] for t in times[n]]) / 1e6
                cpu = med([t[1] for t in times[n]]) / 1e6
                cells.append(f"{wall:.0f} ({cpu:.0f})")
            for n in counts[1:]:
                wall = med([a[0] / b[0] for a, b in zip(times[n], times[1])])
                cpu = med([a[1] / b[1] for a, b in zip(times[n], times[1])])
                cells.append(f"{wall:.2f} ({cpu:.2f})")
            print("| " + " | ".join(cells) + " |", flush=True)
    finally:
        worker.stdin.close()
        worker.wait()


if __name__ == "__main__":
    main()
