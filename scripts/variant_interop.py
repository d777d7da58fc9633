#!/usr/bin/env python3
"""Variant columns between DuckDB (>= 2.0, which reads and writes Parquet VARIANT) and
Herringbone (`hb`).

1. DuckDB writes tables with VARIANT columns three ways: unshredded
   (`SHREDDING {'v': 'VARIANT'}`), shredded as it infers by default, and shredded to a
   forced shape (`SHREDDING {'v': 'STRUCT(...)'}`). `hb cat --format jsonl` must print,
   row by row, the JSON DuckDB gives for `v::JSON` (and a null where DuckDB has one).
2. Herringbone writes JSON lines as Variant columns three ways (`hb convert IN.jsonl
   OUT.parquet --variant v`, plus `--shred v=auto` or `--shred v=SHAPE`). DuckDB must
   read each row back (`v::JSON`) as the JSON value of the input line.

JSON is compared by meaning: numbers as exact decimals (a double as the float it
denotes), objects as dicts, date and timestamp strings after normalising the
punctuation DuckDB and Herringbone spell differently (`2024-01-01 12:00:00+00` and
`2024-01-01T12:00:00.000000+00:00` are the same instant).

Usage: variant_interop.py HB_BINARY [WORK_DIR]
Exits non-zero with one line per mismatch.
"""

import decimal
import json
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb

ROWS = 2000

# A mix of row kinds, so that each shape sees objects, misfits, arrays, nulls and every
# scalar DuckDB turns into a Variant primitive.
DUCKDB_SOURCE = f"""
SELECT i AS id, CASE i % 11
  WHEN 0 THEN {{'a': i, 'b': 'x' || i, 'n': {{'d': DATE '2024-01-01' + (i % 400)::INT, 'f': 1.5::DOUBLE * i}}, 'l': [i, i + 1]}}::VARIANT
  WHEN 1 THEN {{'a': i * 1000000000, 'b': 'y', 'c': true}}::VARIANT
  WHEN 2 THEN {{'a': 'not a number', 'b': NULL}}::VARIANT
  WHEN 3 THEN (i * 1.25)::DECIMAL(12, 2)::VARIANT
  WHEN 4 THEN ('s' || i)::VARIANT
  WHEN 5 THEN NULL
  WHEN 6 THEN [1.5, 2.5, NULL]::VARIANT
  WHEN 7 THEN (TIMESTAMP '2024-01-01 12:00:00.123456' + INTERVAL (i) SECOND)::VARIANT
  WHEN 8 THEN TIMESTAMPTZ '2024-01-01 12:00:00+00'::VARIANT
  WHEN 9 THEN {{'a': i, 'l': []::INT[]}}::VARIANT
  ELSE (i::DOUBLE / 7)::VARIANT END AS v
FROM range({ROWS}) t(i)
"""

FORCED_SHAPE = "{'v': 'STRUCT(a BIGINT, b VARCHAR, l BIGINT[])'}"


def json_lines(rng):
    """JSON lines whose `v` member holds every kind of JSON value."""
    lines = []
    for i in range(ROWS):
        kind = i % 9
        if kind == 0:
            v = {"a": i, "b": f"x{i}", "tags": [f"t{i % 3}", f"t{i % 5}"], "n": {"x": i * 0.5, "y": None}}
        elif kind == 1:
            v = {"a": rng.randint(-(2**62), 2**62), "b": "y", "extra": {"deep": [1, [2, {"z": True}]]}}
        elif kind == 2:
            v = {"a": "not a number", "b": 12}
        elif kind == 3:
            v = [1, "two", 3.25, None, {"k": False}]
        elif kind == 4:
            v = f"plain string {i} é ✓"
        elif kind == 5:
            v = None
        elif kind == 6:
            v = rng.uniform(-1e6, 1e6)
        elif kind == 7:
            v = {}
        else:
            v = {"a": i, "b": "z", "tags": []}
        row = {"id": i, "v": v}
        if i % 13 == 0:
            del row["v"]  # no member: a null row
        lines.append(json.dumps(row, ensure_ascii=False))
    return lines


TS = re.compile(r"^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}(:?\d{2})?)?$")


def norm_string(text):
    m = TS.match(text)
    if not m:
        return ("str", text)
    date, clock, fraction, zone, _ = m.groups()
    micros = int(((fraction or ".")[1:] + "000000000")[:9])
    if zone in (None, ""):
        offset = None
    elif zone == "Z":
        offset = 0
    else:
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        offset = sign * (int(digits[:2]) * 60 + int(digits[2:4] or 0))
    return ("ts", date, clock, micros, offset)


def load(text):
    """JSON text with numbers as Decimals (exact)."""
    return json.loads(text, parse_float=decimal.Decimal, parse_int=decimal.Decimal)


def same(a, b):
    """Equal by meaning: numbers compare as decimals, or as doubles when one side was
    written as a double (DuckDB and Herringbone may print a double's digits differently)."""
    if isinstance(a, decimal.Decimal) and isinstance(b, decimal.Decimal):
        return a == b or float(a) == float(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, str) and isinstance(b, str):
        return norm_string(a) == norm_string(b)
    return a == b


class Failures:
    def __init__(self):
        self.lines = []

    def add(self, name, message):
        self.lines.append(f"{name}: {message}")

    def exit_status(self):
        for line in self.lines[:50]:
            print(f"MISMATCH {line}", file=sys.stderr)
        if len(self.lines) > 50:
            print(f"... and {len(self.lines) - 50} more", file=sys.stderr)
        return 1 if self.lines else 0


def hb(binary, *args):
    result = subprocess.run([binary, *args], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"hb {' '.join(args)}: {result.stderr.strip()}")
    return result.stdout


def compare_rows(name, failures, got, want):
    """`got` and `want`: dicts id -> parsed JSON value or None (a null row / Variant null)."""
    if got.keys() != want.keys():
        failures.add(name, f"ids differ: {sorted(got.keys() ^ want.keys())[:10]}")
        return 0
    bad = 0
    for key in sorted(want):
        if not same(got[key], want[key]):
            bad += 1
            if bad <= 5:
                failures.add(name, f"id {key}: herringbone {got[key]!r}, expected {want[key]!r}")
    return len(want) - bad


def duckdb_written(binary, work, failures):
    con = duckdb.connect()
    con.sql(f"CREATE TABLE source AS {DUCKDB_SOURCE}")
    # A VARIANT shape means "not shredded" (DuckDB 2.0 shreds small tables too unless
    # told so).
    con.sql(
        f"COPY source TO '{work / 'duckdb_unshredded.parquet'}' (FORMAT parquet, SHREDDING {{'v': 'VARIANT'}})"
    )
    con.sql("SET variant_minimum_shredding_size = 0")
    con.sql(f"COPY source TO '{work / 'duckdb_shredded.parquet'}' (FORMAT parquet)")
    con.sql(
        f"COPY source TO '{work / 'duckdb_forced.parquet'}' (FORMAT parquet, SHREDDING {FORCED_SHAPE})"
    )
    for name in ["duckdb_unshredded", "duckdb_shredded", "duckdb_forced"]:
        path = work / f"{name}.parquet"
        schema = hb(binary, "schema", str(path))
        shredded = "typed_value" in schema
        if shredded != (name != "duckdb_unshredded"):
            failures.add(name, f"expected {'a shredded' if name != 'duckdb_unshredded' else 'an unshredded'} file:\n{schema}")
        want = {
            int(i): (None if text is None else load(text))
            for i, text in duckdb.sql(f"SELECT id, v::JSON FROM '{path}'").fetchall()
        }
        got = {}
        for line in hb(binary, "cat", str(path), "--format", "jsonl").splitlines():
            row = json.loads(line, parse_float=decimal.Decimal, parse_int=decimal.Decimal)
            got[int(row["id"])] = row["v"]
        ok = compare_rows(name, failures, got, want)
        print(f"{name}: {ok}/{len(want)} rows as DuckDB reads them ({'shredded' if shredded else 'unshredded'})")


def herringbone_written(binary, work, failures):
    rng = random.Random(18)
    lines = json_lines(rng)
    source = work / "source.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    want = {}
    for line in lines:
        row = load(line)
        want[int(row["id"])] = row.get("v")
    runs = {
        "hb_unshredded": [],
        "hb_auto": ["--shred", "v=auto"],
        "hb_shape": ["--shred", "v=a:int64,b:string,tags:[string],n:{x:decimal(9,1)}"],
    }
    for name, options in runs.items():
        path = work / f"{name}.parquet"
        hb(binary, "convert", str(source), str(path), "--variant", "v", *options)
        schema = hb(binary, "schema", str(path))
        if "VARIANT" not in schema or (("typed_value" in schema) != (name != "hb_unshredded")):
            failures.add(name, f"unexpected schema:\n{schema}")
        got = {
            int(i): (None if text is None else load(text))
            for i, text in duckdb.sql(f"SELECT id, v::JSON FROM '{path}'").fetchall()
        }
        ok = compare_rows(name, failures, got, want)
        print(f"{name}: {ok}/{len(want)} rows read back by DuckDB as the source JSON")


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    major = int(duckdb.__version__.split(".")[0])
    if major < 2:
        print(f"duckdb {duckdb.__version__}: Parquet VARIANT needs DuckDB 2.0 or later", file=sys.stderr)
        return 1
    binary = sys.argv[1]
    work = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tempfile.mkdtemp(prefix="variant-interop-"))
    work.mkdir(parents=True, exist_ok=True)
    failures = Failures()
    duckdb_written(binary, work, failures)
    herringbone_written(binary, work, failures)
    return failures.exit_status()


if __name__ == "__main__":
    sys.exit(main())
