#!/usr/bin/env python3
"""Where a whole-file read spends its time: Herringbone and arrow-rs side by side.

    /work/venv/bin/python scripts/bench_profile.py FILE... [--repeat N] [--views]

For each file and each of the two Rust readers, runs `suite read READER FILE --repeat N`
(the suite's binary, built by scripts/bench_suite.py) three ways and prints a summary:

- `perf record -g` (cpu-clock samples): the top functions by self time, and the share
  of samples in the kernel split into page faults / zeroing fresh pages, unmapping
  (`munmap`, freeing pages) and the rest;
- `perf stat`: task-clock and page faults per read;
- `strace -c -f`: system calls per read, by name.

It works on a noisy machine: the shares and counts, not the times, are what to compare.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SUITE = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "release" / "suite"

# Kernel symbols by what they are spent on.
FAULT = re.compile(
    r"clear_page|page_fault|do_anonymous_page|alloc_pages|rmqueue|folio|lru|"
    r"handle_mm_fault|__handle_mm_fault|_raw_spin_unlock_irqrestore|get_page_from_freelist|"
    r"memcg|charge|mod_lruvec|pte_alloc|set_pte"
)
UNMAP = re.compile(r"unmap|free_pages|free_unref|tlb|zap_|release_pages|vms_|munmap|madvise")
READ = re.compile(r"copy_user|filemap|rep_movs|copy_page_to_iter|vfs_read|pread|ext4|xfs")


def perf_record(argv, repeat):
    with tempfile.NamedTemporaryFile(suffix=".data") as data:
        subprocess.run(
            ["perf", "record", "-F", "4000", "-g", "-o", data.name] + argv,
            capture_output=True, check=True,
        )
        report = subprocess.run(
            ["perf", "report", "-i", data.name, "--no-children", "--sort", "dso,symbol",
             "--stdio", "-g", "none", "--percent-limit", "0.3"],
            capture_output=True, text=True, check=True,
        ).stdout
    rows = []
    for line in report.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[([.k])\]\s+(.*)", line)
        if m:
            symbol = re.split(r"\s{2,}", m.group(4).strip())[0]
            rows.append((float(m.group(1)), m.group(2), m.group(3), symbol))
    return rows


def perf_stat(argv, repeat):
    out = subprocess.run(
        ["perf", "stat", "-x", ",", "-e", "task-clock,page-faults"] + argv,
        capture_output=True, text=True,
    ).stderr
    stats = {}
    for line in out.splitlines():
        parts = line.split(",")
        if len(parts) > 3 and parts[0].replace(".", "").isdigit():
            stats[parts[2]] = float(parts[0]) / repeat
    return stats


def strace_counts(argv, repeat):
    with tempfile.NamedTemporaryFile(suffix=".txt") as out:
        subprocess.run(["strace", "-c", "-f", "-o", out.name] + argv, capture_output=True)
        text = Path(out.name).read_text()
    calls = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 5 and parts[0].replace(".", "").isdigit() and parts[-1] != "total":
            calls[parts[-1]] = int(parts[3]) / repeat
    return calls


def summarize(reader, path, repeat, views):
    argv = [str(SUITE), "read", reader, path, "--repeat", str(repeat)]
    if views:
        argv.append("--views")
    rows = perf_record(argv, repeat)
    stats = perf_stat(argv, repeat)
    calls = strace_counts(argv, repeat)
    kernel = collections.Counter()
    for pct, _dso, kind, symbol in rows:
        if kind == "k":
            group = (
                "page faults + zeroing" if FAULT.search(symbol)
                else "unmap / free" if UNMAP.search(symbol)
                else "file reads" if READ.search(symbol)
                else "other kernel"
            )
            kernel[group] += pct
    user = [(pct, dso, symbol) for pct, dso, kind, symbol in rows if kind == "."]
    print(f"### {reader}: {Path(path).name}")
    print(
        f"- per read: {stats.get('task-clock', 0):.1f} ms task-clock, "
        f"{stats.get('page-faults', 0):,.0f} page faults"
    )
    print(
        "- kernel share of samples: "
        + (", ".join(f"{k} {v:.1f}%" for k, v in kernel.most_common()) or "none")
    )
    top_kernel = [(pct, symbol) for pct, _dso, kind, symbol in rows if kind == "k"][:4]
    print("- top kernel functions: " + ", ".join(f"{s} {p:.1f}%" for p, s in top_kernel))
    top_calls = sorted(calls.items(), key=lambda kv: -kv[1])[:6]
    print("- system calls per read: " + ", ".join(f"{n} {c:,.0f}" for n, c in top_calls))
    print("- top functions (self):")
    for pct, dso, symbol in user[:12]:
        print(f"  - {pct:5.1f}%  {symbol[:110]}  ({dso})")
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--repeat", type=int, default=5, help="reads per measurement")
    parser.add_argument("--views", action="store_true")
    parser.add_argument("--readers", default="herringbone,arrow-rs")
    parser.add_argument("--suite", help="the suite binary (default target/release/suite)")
    args = parser.parse_args()
    global SUITE
    if args.suite:
        SUITE = Path(args.suite)
    if not SUITE.exists():
        sys.exit(f"{SUITE} is missing: run scripts/bench_suite.py (or cargo build --release "
                 "-p herringbone-benches --bin suite) first")
    for path in args.files:
        for reader in args.readers.split(","):
            summarize(reader, path, args.repeat, args.views)


if __name__ == "__main__":
    main()
