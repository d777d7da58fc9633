#!/usr/bin/env python3
"""Herringbone's benchmark suite: whole-file reads and writes of realistic tables, with
the peers timed in the same run.

    /work/venv/bin/python scripts/bench_suite.py            # everything (see below)
    /work/venv/bin/python scripts/bench_suite.py --quick    # small files, a smoke test

1. Builds `suite` (benches/src/bin/suite) in release mode.
2. Generates the tables (scripts/bench_datasets.py) into --data (default
   /work/benchdata/full or /work/benchdata/quick) and has each writer write each table
   with ITS default settings: arrow-rs (`ArrowWriter`, default `WriterProperties`),
   pyarrow (`pq.write_table`), DuckDB (`COPY ... (FORMAT parquet)`) and polars
   (`write_parquet`). Existing files of the same generator version are kept.
3. Checks that Herringbone reads every file to the same columns as arrow-rs.
4. Reads: paired rounds. Each round reads the file once with every reader, the order
   rotated each round; Herringbone and arrow-rs in-process in `suite serve`, pyarrow
   (`pq.read_table(use_threads=False)`), polars (`POLARS_MAX_THREADS=1`,
   `pl.read_parquet`) and DuckDB (`SET threads=1`, to an Arrow table) in a Python
   worker. Medians, and the median over rounds of peer time / Herringbone time.
5. Peak memory: each reader reads each file once in a process of its own; the figure is
   that process's maximum RSS (and the baseline of a process that reads nothing).
6. Writes: each table written by Herringbone and arrow-rs (defaults), pyarrow, polars
   and DuckDB, paired rounds, with the file sizes.
7. Footer decode of the wide files: Herringbone decode + schema descriptor against
   arrow-rs `ParquetMetaDataReader::decode_metadata`, paired rounds.

On the 2-core machine under load, generating the full files took about an hour (once:
they are kept) and a run about 45 minutes; `--quick` takes a few minutes.

`--threads 2` reads with Herringbone's `with_threads(2)` and the peers at their default
threading (arrow-rs stays single-threaded); it is skipped, with a message, while the
reader has no `with_threads`. Results are printed as Markdown and saved (with the raw
times as JSON) under DATA/results/.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

READERS = ("herringbone", "arrow-rs", "pyarrow", "polars", "duckdb")
RUST = ("herringbone", "arrow-rs")
WRITERS = ("herringbone", "arrow-rs", "pyarrow", "polars", "duckdb")
# --clock: wall time (the figures), or the reading process's CPU time (steadier on a
# shared machine; with one thread per reader it is close to the wall time of a quiet one).
CLOCK_KEY = {"wall": "ns", "cpu": "cpu_ns"}
LABEL = {
    "herringbone": "Herringbone",
    "arrow-rs": "arrow-rs",
    "pyarrow": "pyarrow",
    "polars": "polars",
    "duckdb": "DuckDB",
}


# --------------------------------------------------------------------------------------
# Peers in Python: the worker (timed reads and writes) and the one-read process (memory)
# --------------------------------------------------------------------------------------


class PythonPeers:
    """pyarrow, polars and DuckDB, imported once; `threads` 1 pins each to one thread."""

    def __init__(self, threads: int, libraries=("pyarrow", "polars", "duckdb")):
        self.threads = threads
        import pyarrow  # noqa: F401  (every peer hands Arrow around)
        import pyarrow.parquet as pq

        self.pq = pq
        if "polars" in libraries:
            import polars as pl

            self.pl = pl
        if "duckdb" in libraries:
            import duckdb

            self.duckdb = duckdb.connect()
            if threads == 1:
                self.duckdb.execute("SET threads = 1")
        self.table_path = None
        self.table = None
        self.frame = None

    def read(self, reader: str, path: str):
        if reader == "pyarrow":
            table = self.pq.read_table(path, use_threads=self.threads > 1)
            return table, table.num_rows
        if reader == "polars":
            frame = self.pl.read_parquet(path)
            return frame, frame.height
        if reader == "duckdb":
            table = self.duckdb.sql(f"SELECT * FROM read_parquet('{path}')").to_arrow_table()
            return table, table.num_rows
        raise ValueError(f"unknown Python reader {reader}")

    def load(self, path: str):
        if self.table_path != path:
            import pyarrow.ipc

            self.table = self.frame = None
            self.table = pyarrow.ipc.open_file(path).read_all()
            self.table_path = path
            if hasattr(self, "duckdb"):
                self.duckdb.register("source_table", self.table)

    def write(self, writer: str, source: str, output: str, row_groups: int | None = None):
        """Writes the table in the IPC file `source` to `output` with `writer`'s defaults
        (`row_groups`: cut into that many row groups, the wide file's one non-default)."""
        self.load(source)
        # A new file, untimed, as the Rust side does: overwriting the last round's output
        # would time the kernel truncating it.
        Path(output).unlink(missing_ok=True)
        rows_per_group = None
        if row_groups:
            rows_per_group = max(1, math.ceil(self.table.num_rows / row_groups))
        if writer == "pyarrow":
            start = time.perf_counter_ns()
            if rows_per_group:
                self.pq.write_table(self.table, output, row_group_size=rows_per_group)
            else:
                self.pq.write_table(self.table, output)
            return time.perf_counter_ns() - start
        if writer == "polars":
            if self.frame is None:
                self.frame = self.pl.from_arrow(self.table)
            start = time.perf_counter_ns()
            if rows_per_group:
                self.frame.write_parquet(output, row_group_size=rows_per_group)
            else:
                self.frame.write_parquet(output)
            return time.perf_counter_ns() - start
        if writer == "duckdb":
            options = "FORMAT parquet"
            if rows_per_group:
                options += f", ROW_GROUP_SIZE {rows_per_group}"
            start = time.perf_counter_ns()
            self.duckdb.execute(f"COPY source_table TO '{output}' ({options})")
            return time.perf_counter_ns() - start
        raise ValueError(f"unknown Python writer {writer}")


def worker_main(threads: int):
    """`--worker`: answers JSON requests on stdin like `suite serve`."""
    peers = PythonPeers(threads)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            if request["op"] == "read":
                start, cpu = time.perf_counter_ns(), time.process_time_ns()
                result, rows = peers.read(request["reader"], request["path"])
                ns, cpu = time.perf_counter_ns() - start, time.process_time_ns() - cpu
                del result
                answer = {"ns": ns, "cpu_ns": cpu, "rows": rows}
            elif request["op"] == "write":
                cpu = time.process_time_ns()
                ns = peers.write(request["writer"], request["input"], request["output"])
                cpu = time.process_time_ns() - cpu
                answer = {"ns": ns, "cpu_ns": cpu, "bytes": os.path.getsize(request["output"])}
            else:
                answer = {"error": f"unknown op {request['op']}"}
        except Exception as e:  # a peer's failure is a result, not the end of the run
            answer = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps(answer), flush=True)


def once_main(reader: str, path: str | None, threads: int):
    """`--once`: one read in a fresh process (or none: the baseline), for peak RSS."""
    peers = PythonPeers(threads, libraries=(reader,))
    if path:
        result, rows = peers.read(reader, path)
        print(json.dumps({"rows": rows, "peak_rss": peak_rss()}))
        del result
    else:
        print(json.dumps({"peak_rss": peak_rss()}))


# --------------------------------------------------------------------------------------
# The driver
# --------------------------------------------------------------------------------------


class Worker:
    """A process answering one JSON request a line."""

    def __init__(self, argv, env=None):
        self.process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )

    def ask(self, request: dict) -> dict:
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"worker {self.process.args} ended")
        return json.loads(line)

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def peer_env(threads: int) -> dict:
    env = dict(os.environ)
    if threads == 1:
        env["POLARS_MAX_THREADS"] = "1"
    else:
        env.pop("POLARS_MAX_THREADS", None)
    return env


def peak_rss() -> int | None:
    """This process's peak RSS in bytes (VmHWM: the high-water mark of its own memory
    since exec, which a child's rusage does not give: Linux carries the parent's RSS
    at fork into the child's ru_maxrss)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def run_for_peak_rss(argv, env=None) -> tuple[int | None, str]:
    """Runs `argv` (a `suite read` or `--once` process, which reports its own peak RSS
    as `peak_rss` in its JSON answer); the peak in bytes and the output."""
    result = subprocess.run(argv, capture_output=True, text=True, env=env)
    text = (result.stdout + result.stderr).strip()
    try:
        return json.loads(result.stdout.strip().splitlines()[-1])["peak_rss"], text
    except (json.JSONDecodeError, KeyError, IndexError):
        return None, text


def build_suite(threads: bool, portable: bool = False, no_avx512: bool = False) -> Path | None:
    argv = ["cargo", "build", "--release", "-p", "herringbone-benches", "--bin", "suite"]
    features = ((["threads"] if threads else []) + (["portable"] if portable else [])
                + (["no-avx512"] if no_avx512 else []))
    if features:
        argv += ["--features", ",".join(features)]
    result = subprocess.run(argv, cwd=REPO, capture_output=True, text=True)
    if result.returncode != 0:
        if threads:
            errors = [l for l in result.stderr.splitlines() if l.startswith("error")]
            print(
                "Herringbone's reader has no `with_threads` yet (the suite's `threads` "
                f"feature does not build: {errors[0] if errors else 'see cargo'}); "
                "skipping the --threads mode."
            )
            return None
        sys.stderr.write(result.stderr)
        raise SystemExit("cargo build of the suite failed")
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    return target / "release" / "suite"


# ---- generation ----------------------------------------------------------------------


def generate(args, suite: Path, datasets) -> list[dict]:
    """Writes every table with every writer; returns the files (dataset, writer, path)."""
    import bench_datasets as bd

    data = Path(args.data)
    (data / "src").mkdir(parents=True, exist_ok=True)
    manifest_path = data / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    if manifest.get("version") != bd.GENERATOR_VERSION or args.regenerate:
        manifest = {"version": bd.GENERATOR_VERSION, "files": {}}
    peers = None
    con = None
    files = []
    for ds in datasets:
        rows = ds.quick_rows if args.quick else ds.rows
        source = data / "src" / f"{ds.name}.arrow"
        key = f"src/{ds.name}"
        if manifest["files"].get(key) != rows or not source.exists():
            import duckdb
            import pyarrow as pa
            import pyarrow.ipc

            if con is None:
                con = duckdb.connect()
                con.execute("SET threads = 2")
                con.execute("SET enable_progress_bar = false")
            print(f"generating {ds.name} ({rows:,} rows)", flush=True)
            table = ds.build(con, rows, data)
            with pa.OSFile(str(source), "wb") as sink:
                with pyarrow.ipc.new_file(sink, table.schema) as ipc:
                    ipc.write_table(table)
            del table
            manifest["files"] = {
                k: v for k, v in manifest["files"].items() if not k.startswith(f"{ds.name}.")
            }
            manifest["files"][key] = rows
            manifest_path.write_text(json.dumps(manifest, indent=1))
        for writer in ds.writers:
            path = data / f"{ds.name}.{writer}.parquet"
            fkey = f"{ds.name}.{writer}"
            if manifest["files"].get(fkey) != rows or not path.exists():
                print(f"  writing {path.name}", flush=True)
                error = None
                if writer == "arrow-rs":
                    argv = [str(suite), "write", "arrow-rs", str(source), str(path)]
                    if ds.delta:
                        argv.append("--delta")
                    if ds.row_groups:
                        argv += ["--row-group-rows", str(math.ceil(rows / ds.row_groups))]
                    result = subprocess.run(argv, capture_output=True, text=True)
                    if result.returncode != 0:
                        error = result.stdout.strip() or result.stderr.strip()
                else:
                    if peers is None:
                        peers = PythonPeers(threads=2)
                    try:
                        peers.write(writer, str(source), str(path), ds.row_groups)
                    except Exception as e:
                        error = f"{type(e).__name__}: {e}"
                if error:
                    print(f"    {writer} could not write {ds.name}: {error}")
                    path.unlink(missing_ok=True)
                    continue
                manifest["files"][fkey] = rows
                manifest_path.write_text(json.dumps(manifest, indent=1))
            files.append(
                {"dataset": ds.name, "writer": writer, "path": str(path), "source": str(source)}
            )
    return files


# ---- measurement ---------------------------------------------------------------------


def median(values):
    return statistics.median(values) if values else None


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def paired_ratio(times: dict, peer: str, ours: str = "herringbone"):
    """Median over rounds of peer time / our time (rounds where both have a time)."""
    pairs = [p / o for p, o in zip(times.get(peer, []), times.get(ours, [])) if p and o]
    return median(pairs)


def fastest_peer_ratio(times: dict, peers):
    rounds = len(times.get("herringbone", []))
    ratios = []
    for r in range(rounds):
        ours = times["herringbone"][r]
        theirs = [times[p][r] for p in peers if p in times and len(times[p]) > r and times[p][r]]
        if ours and theirs:
            ratios.append(min(theirs) / ours)
    return median(ratios)


def time_reads(args, suite, files, readers, threads):
    """Paired rounds over every file; returns {path: {reader: [ns per round]}} and errors."""
    rust = Worker([str(suite), "serve"])
    python = Worker([sys.executable, __file__, "--worker", "--threads", str(threads)],
                    env=peer_env(threads))
    results, errors = {}, {}
    try:
        for f in files:
            path = f["path"]
            times = {r: [] for r in readers}
            errs = {}

            def one(reader):
                request = {"op": "read", "reader": reader, "path": path}
                if reader in RUST:
                    request.update(views=args.views, threads=threads if reader == "herringbone" else 1)
                    answer = rust.ask(request)
                else:
                    answer = python.ask(request)
                if "error" in answer:
                    errs[reader] = answer["error"]
                    return None
                return answer[CLOCK_KEY[args.clock]]

            # Warm-up: the page cache holds the file, each library's code is loaded.
            for reader in readers:
                one(reader)
            live = [r for r in readers if r not in errs]
            for round_ in range(args.rounds):
                k = round_ % len(live)
                for reader in live[k:] + live[:k]:
                    times[reader].append(one(reader))
            results[path] = times
            errors[path] = errs
            summary = "  ".join(
                f"{r} {median([t for t in times[r] if t]) / 1e6:.1f} ms"
                for r in live
                if any(times[r])
            )
            print(f"  {Path(path).name}: {summary}", flush=True)
    finally:
        rust.close()
        python.close()
    return results, errors


def measure_memory(suite, files, readers, threads, views):
    """{path: {reader: bytes}} and each reader's baseline (a process that reads nothing)."""
    env = peer_env(threads)

    def argv(reader, path):
        if reader in RUST:
            a = [str(suite), "read" if path else "noop"]
            if path:
                a += [reader, path, "--threads", str(threads if reader == "herringbone" else 1)]
                if views:
                    a.append("--views")
            return a
        # --once takes the reader and the file: it comes last.
        return [sys.executable, __file__, "--threads", str(threads), "--once", reader] + (
            [path] if path else []
        )

    baseline = {r: run_for_peak_rss(argv(r, None), env)[0] for r in readers}
    memory = {}
    for f in files:
        memory[f["path"]] = {}
        for reader in readers:
            rss, _ = run_for_peak_rss(argv(reader, f["path"]), env)
            memory[f["path"]][reader] = rss
    return memory, baseline


def time_writes(args, suite, datasets, writers):
    data = Path(args.data)
    out = data / "written"
    out.mkdir(exist_ok=True)
    rust = Worker([str(suite), "serve"])
    python = Worker([sys.executable, __file__, "--worker", "--threads", "1"], env=peer_env(1))
    results = {}
    try:
        for ds in datasets:
            if ds.delta or ds.row_groups:
                continue  # written with non-default settings: not a defaults comparison
            source = str(data / "src" / f"{ds.name}.arrow")
            times = {w: [] for w in writers}
            sizes, errs = {}, {}

            def one(writer):
                output = str(out / f"{ds.name}.{writer}.parquet")
                request = {"op": "write", "writer": writer, "input": source, "output": output}
                answer = (rust if writer in RUST else python).ask(request)
                if "error" in answer:
                    errs[writer] = answer["error"]
                    return None
                sizes[writer] = answer["bytes"]
                return answer[CLOCK_KEY[args.clock]]

            for writer in writers:
                one(writer)
            live = [w for w in writers if w not in errs]
            for round_ in range(args.rounds):
                k = round_ % len(live)
                for writer in live[k:] + live[:k]:
                    times[writer].append(one(writer))
            results[ds.name] = {"times": times, "sizes": sizes, "errors": errs}
            print(f"  write {ds.name}: " + "  ".join(
                f"{w} {median(times[w]) / 1e6:.1f} ms" for w in live), flush=True)
    finally:
        rust.close()
        python.close()
    return results


def time_footers(suite, files, rounds):
    results = {}
    for f in files:
        result = subprocess.run(
            [str(suite), "footer", f["path"], "--rounds", str(rounds)],
            capture_output=True, text=True,
        )
        results[f["path"]] = json.loads(result.stdout)
    return results


# ---- report --------------------------------------------------------------------------


def ms(ns):
    if ns is None:
        return "—"
    return f"{ns / 1e6:.2f} ms" if ns < 1e8 else f"{ns / 1e6:.0f} ms"


def mib(b):
    if b is None:
        return "—"
    return f"{b / 2**20:.1f} MiB" if b < 10 * 2**20 else f"{b / 2**20:.0f} MiB"


def ratio(x):
    return "—" if x is None else f"{x:.2f}×"


def report_reads(files, reads, read_errors, memory, baseline, checks, readers):
    peers = [r for r in readers if r != "herringbone"]
    lines = []
    head = ["file", "writer", "size"]
    head += [LABEL[r] for r in readers]
    head += [f"{LABEL[p]} ÷ HB" for p in peers] + ["fastest ÷ HB"]
    if memory:
        head += ["arrow-rs RSS ÷ HB"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * 3 + "--:|" * (len(head) - 3))
    ratios = {p: [] for p in peers}
    fastest = []
    mem_ratios = []
    for f in files:
        path = f["path"]
        times = reads.get(path, {})
        row = [f["dataset"], f["writer"], mib(os.path.getsize(path))]
        for r in readers:
            t = median([x for x in times.get(r, []) if x])
            cell = ms(t) if t else "failed"
            if memory and memory[path].get(r):
                cell += f" · {mib(memory[path][r])}"
            row.append(cell)
        for p in peers:
            x = paired_ratio(times, p)
            row.append(ratio(x))
            if x:
                ratios[p].append(x)
        x = fastest_peer_ratio(times, peers)
        row.append(ratio(x))
        if x:
            fastest.append(x)
        if memory:
            a, h = memory[path].get("arrow-rs"), memory[path].get("herringbone")
            m = a / h if a and h else None
            row.append(ratio(m))
            if m:
                mem_ratios.append(m)
        lines.append("| " + " | ".join(row) + " |")
    geo = ["**geometric mean**", "", ""] + [""] * len(readers)
    geo += [f"**{ratio(geomean(ratios[p]))}**" for p in peers]
    geo.append(f"**{ratio(geomean(fastest))}**")
    if memory:
        geo.append(f"**{ratio(geomean(mem_ratios))}**")
    lines.append("| " + " | ".join(geo) + " |")
    notes = []
    for f in files:
        path = f["path"]
        name = f"{f['dataset']}.{f['writer']}"
        if checks.get(path) and "error" in checks[path]:
            notes.append(f"- {name}: Herringbone vs arrow-rs check: {checks[path]['error']}")
        for reader, error in read_errors.get(path, {}).items():
            notes.append(f"- {name}: {LABEL[reader]} failed: {error[:300]}")
    if memory:
        notes.append(
            "- Peak RSS of a process that only starts (baseline): "
            + ", ".join(f"{LABEL[r]} {mib(b)}" for r, b in baseline.items())
        )
    return lines, notes


def report_writes(writes, writers):
    peers = [w for w in writers if w != "herringbone"]
    head = ["table"] + [LABEL[w] for w in writers] + [f"{LABEL[p]} ÷ HB" for p in peers]
    head += ["HB size ÷ arrow-rs"]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "--:|" * (len(head) - 1)]
    ratios = {p: [] for p in peers}
    sizes = []
    notes = []
    for name, w in writes.items():
        row = [name]
        for writer in writers:
            t = median([x for x in w["times"][writer] if x])
            row.append(f"{ms(t)} · {mib(w['sizes'].get(writer))}" if t else "failed")
        for p in peers:
            x = paired_ratio(w["times"], p)
            row.append(ratio(x))
            if x:
                ratios[p].append(x)
        a, h = w["sizes"].get("arrow-rs"), w["sizes"].get("herringbone")
        s = h / a if a and h else None
        row.append(ratio(s))
        if s:
            sizes.append(s)
        lines.append("| " + " | ".join(row) + " |")
        for writer, error in w["errors"].items():
            notes.append(f"- {name}: {LABEL[writer]} failed: {error[:300]}")
    geo = ["**geometric mean**"] + [""] * len(writers)
    geo += [f"**{ratio(geomean(ratios[p]))}**" for p in peers] + [f"**{ratio(geomean(sizes))}**"]
    lines.append("| " + " | ".join(geo) + " |")
    return lines, notes


def report_footers(files, footers):
    lines = [
        "| file | footer | Herringbone | arrow-rs | arrow-rs ÷ HB |",
        "|---|--:|--:|--:|--:|",
    ]
    for f in files:
        r = footers[f["path"]]
        if "error" in r:
            lines.append(f"| {f['dataset']}.{f['writer']} | — | failed: {r['error']} | | |")
            continue
        ours, theirs = r["herringbone_ns"], r["arrow_rs_ns"]
        pairs = [t / o for o, t in zip(ours, theirs)]
        lines.append(
            f"| {f['dataset']}.{f['writer']} | {r['footer_bytes'] / 2**20:.1f} MiB | "
            f"{ms(median(ours))} | {ms(median(theirs))} | {ratio(median(pairs))} |"
        )
    return lines


def machine_note():
    load = os.getloadavg()
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO,
        capture_output=True, text=True,
    ).stdout.strip()
    return (
        f"commit {commit}{' (with local changes)' if dirty else ''}, "
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} CPUs, "
        f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small files: a smoke test")
    parser.add_argument("--data", help="where the files go (default /work/benchdata/full or quick)")
    parser.add_argument("--rounds", type=int, help="paired rounds (default 5, --quick 3)")
    parser.add_argument("--threads", type=int, default=1,
                        help="read threads: 1 (every reader pinned to one) or N "
                        "(Herringbone with_threads(N), the peers at their defaults)")
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                        help="time reads and writes by wall clock (default) or by the "
                        "process's CPU time (steadier on a busy machine; single-thread only)")
    parser.add_argument("--views", action="store_true",
                        help="Herringbone and arrow-rs read strings as Utf8View/BinaryView")
    parser.add_argument("--portable", action="store_true",
                        help="Herringbone without its AVX2 / AVX-512 kernels (the portable "
                        "paths, as on a CPU without those extensions)")
    parser.add_argument("--no-avx512", action="store_true",
                        help="Herringbone without its AVX-512 kernel (AVX2 kept)")
    parser.add_argument("--only", help="regular expression on 'dataset.writer' of the files")
    parser.add_argument("--regenerate", action="store_true", help="write every file again")
    parser.add_argument("--skip", default="",
                        help="comma-separated parts to leave out: check,reads,memory,writes,footer")
    parser.add_argument("--out", help="Markdown output file (default DATA/results/DATE.md)")
    # internal modes
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--once", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.worker:
        return worker_main(args.threads)
    if args.once:
        return once_main(args.once[0], args.once[1] if len(args.once) > 1 else None, args.threads)

    import bench_datasets as bd

    args.data = args.data or f"/work/benchdata/{'quick' if args.quick else 'full'}"
    args.rounds = args.rounds or (3 if args.quick else 5)
    skip = set(filter(None, args.skip.split(",")))
    threaded = args.threads > 1
    if threaded and args.clock == "cpu":
        raise SystemExit("--clock cpu measures work, not elapsed time: use it with --threads 1")

    suite = build_suite(threads=False, portable=args.portable, no_avx512=args.no_avx512)
    if threaded:
        suite = build_suite(threads=True, portable=args.portable, no_avx512=args.no_avx512)
        if suite is None:
            return 0
    datasets = bd.DATASETS
    if args.only:
        # Only the tables a selected file comes from are generated: a full generation takes
        # about an hour, one table a few minutes.
        pattern = re.compile(args.only)
        datasets = [
            d for d in datasets if any(pattern.search(f"{d.name}.{w}") for w in d.writers)
        ]
    files = generate(args, suite, datasets)
    if args.only:
        files = [f for f in files if pattern.search(f"{f['dataset']}.{f['writer']}")]
        datasets = [d for d in datasets if any(f["dataset"] == d.name for f in files)]

    out = []
    mode = (f"{args.threads} thread{'s' if threaded else ''}"
            + (", view types" if args.views else "")
            + (", portable kernels (no AVX2 / AVX-512)" if args.portable else "")
            + (", no AVX-512 kernel" if args.no_avx512 else ""))
    out.append(f"# Herringbone benchmark suite ({'quick' if args.quick else 'full'}, {mode})")
    out.append("")
    clock = "wall-clock time" if args.clock == "wall" else "CPU time of the reading process"
    out.append(f"{machine_note()}; {args.rounds} paired rounds, {clock}; data in {args.data}.")
    out.append("")
    raw = {"args": vars(args), "machine": machine_note()}

    checks = {}
    if "check" not in skip:
        print("checking Herringbone against arrow-rs", flush=True)
        for f in files:
            argv = [str(suite), "check", f["path"]] + (["--views"] if args.views else [])
            result = subprocess.run(argv, capture_output=True, text=True)
            try:
                checks[f["path"]] = json.loads(result.stdout)
            except json.JSONDecodeError:
                checks[f["path"]] = {"error": (result.stdout + result.stderr).strip()[:300]}
            if "error" in checks[f["path"]]:
                print(f"  {Path(f['path']).name}: {checks[f['path']]['error']}", flush=True)
    raw["checks"] = checks

    readers = list(READERS)
    if "reads" not in skip:
        print("reading", flush=True)
        reads, read_errors = time_reads(args, suite, files, readers, args.threads)
        memory, baseline = ({}, {})
        if "memory" not in skip:
            print("peak memory", flush=True)
            memory, baseline = measure_memory(suite, files, readers, args.threads, args.views)
        raw.update(reads=reads, read_errors=read_errors, memory=memory, baseline=baseline)
        lines, notes = report_reads(files, reads, read_errors, memory, baseline, checks, readers)
        out.append("## Reads: whole file into Arrow")
        out.append("")
        out.append(
            "Median time over the rounds · peak RSS of a process reading the file once; "
            "ratios: the median over rounds of peer time ÷ Herringbone time (above 1: "
            "Herringbone faster); 'fastest' is the fastest peer of each round."
        )
        out.append("")
        out += lines
        if notes:
            out += [""] + notes
        out.append("")

    if "writes" not in skip and not threaded:
        print("writing", flush=True)
        writes = time_writes(args, suite, datasets, list(WRITERS))
        raw["writes"] = writes
        lines, notes = report_writes(writes, list(WRITERS))
        out.append("## Writes: the same Arrow table, each writer's defaults")
        out.append("")
        out.append("Median time · file size; ratios as above (peer time ÷ Herringbone time).")
        out.append("")
        out += lines
        if notes:
            out += [""] + notes
        out.append("")

    if "footer" not in skip and not threaded:
        wide = [f for f in files if f["dataset"] == "wide"]
        if wide:
            print("footer decode", flush=True)
            footers = time_footers(suite, wide, 50 if args.quick else 200)
            raw["footers"] = footers
            out.append("## Footer decode of the 5,000-column file")
            out.append("")
            out.append(
                "Herringbone `decode_file_metadata` + `SchemaDescriptor::new` against arrow-rs "
                "`ParquetMetaDataReader::decode_metadata`, each with its drop, default "
                "allocator; medians and the median paired ratio."
            )
            out.append("")
            out += report_footers(wide, footers)
            out.append("")

    text = "\n".join(out)
    print()
    print(text)
    results = Path(args.data) / "results"
    results.mkdir(exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    target = Path(args.out) if args.out else results / f"{stamp}.md"
    target.write_text(text + "\n")
    target.with_suffix(".json").write_text(json.dumps(raw, indent=1))
    print(f"\nsaved {target} and {target.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
