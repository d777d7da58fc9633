#!/usr/bin/env python3
"""A/B of two builds of the suite binary, timed as `bench_suite.py` times reads.

    scripts/bench_ab.py OLD_SUITE NEW_SUITE ROUNDS FILE...

Each build runs as one `suite serve` process that reads every file with Herringbone
and with arrow-rs, interleaved (the order alternating by round), as the suite's
process does: the allocator's state between reads is part of what is measured. Prints
per file the median CPU time of Herringbone's reads with each build, the median of the
paired ratios old / new (above 1: the new build is faster), and arrow-rs / Herringbone
for each build. Build the binaries with
`cargo build --release -p herringbone-benches --bin suite` and copy them aside.
"""

import argparse
import json
import statistics
import subprocess
from pathlib import Path


class Serve:
    """One `suite serve` process."""

    def __init__(self, binary):
        self.process = subprocess.Popen(
            [binary, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def read(self, reader, path):
        request = {"op": "read", "reader": reader, "path": path, "views": False, "threads": 1}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        if "error" in answer:
            raise SystemExit(f"{reader} on {path}: {answer['error']}")
        return answer["cpu_ns"]

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("rounds", type=int)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    builds = {"old": Serve(args.old), "new": Serve(args.new)}
    try:
        for file in args.files:
            path = str(Path(file).resolve())
            for serve in builds.values():  # untimed: page cache, code, heap
                serve.read("herringbone", path)
                serve.read("arrow-rs", path)
            ours = {"old": [], "new": []}
            theirs = {"old": [], "new": []}
            for round_ in range(args.rounds):
                order = ["old", "new"] if round_ % 2 == 0 else ["new", "old"]
                for build in order:
                    serve = builds[build]
                    if round_ % 2 == 0:
                        ours[build].append(serve.read("herringbone", path))
                        theirs[build].append(serve.read("arrow-rs", path))
                    else:
                        theirs[build].append(serve.read("arrow-rs", path))
                        ours[build].append(serve.read("herringbone", path))
            median = statistics.median
            paired = median(o / n for o, n in zip(ours["old"], ours["new"]))
            peer = {
                b: median(t / o for t, o in zip(theirs[b], ours[b])) for b in builds
            }
            print(
                f"{Path(path).name:32s} old {median(ours['old']) / 1e6:8.1f} ms  "
                f"new {median(ours['new']) / 1e6:8.1f} ms  old/new {paired:.3f}  "
                f"arrow-rs/HB old {peer['old']:.2f} new {peer['new']:.2f}",
                flush=True,
            )
    finally:
        for serve in builds.values():
            serve.close()


if __name__ == "__main__":
    main()
