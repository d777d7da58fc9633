#!/usr/bin/env python3
"""Reads the Herringbone-written file matrix (from `interop-matrix DIR`) with pyarrow,
DuckDB and polars and checks that every engine sees the source data.

For every `NAME.parquet` (with `NAME.arrow`, the source batch as an Arrow IPC file, and
`NAME.json`, its manifest):

* pyarrow: `pq.read_table(f, page_checksum_verification=True)` has the source's types
  (or a documented mapping, pyarrow_type) and equal values;
* DuckDB and polars: values equal per column after normalising the types that engine
  maps differently (see `canon` and ENGINE_SKIPS below, each one explained);
* pyarrow metadata shows the column index / offset index where the manifest says they
  were written, and the Bloom filter offsets of the filtered columns; DuckDB's
  `parquet_metadata()` agrees on the Bloom filters;
* DuckDB's `parquet_bloom_probe` says every present value may be present and most absent
  ones are absent;
* a copy of one CRC file with one page byte flipped makes pyarrow's verified read fail.

Exits non-zero with one line per mismatch, and prints a summary (files x engines).
"""

import datetime
import decimal
import json
import math
import shutil
import sys
import tempfile
import uuid
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

# pyarrow reads these source types back as another type (value-preserving), because
# Parquet cannot store the difference and pyarrow does not restore it from the
# ARROW:schema hint (pyarrow-written files read back the same way):
# * Timestamp(Second) is stored as TIMESTAMP(MILLIS) and read as milliseconds;
# * Time32(Second) is stored as TIME(MILLIS) and read as time32[ms];
# * Date64 is stored as DATE (days) and read as date32;
# * dictionaries of non-binary values are read as their values (pyarrow only reads
#   BYTE_ARRAY columns as dictionaries).
def pyarrow_type(source):
    if pa.types.is_dictionary(source) and not (
        pa.types.is_string(source.value_type)
        or pa.types.is_large_string(source.value_type)
        or pa.types.is_binary(source.value_type)
        or pa.types.is_large_binary(source.value_type)
    ):
        return source.value_type
    if pa.types.is_timestamp(source) and source.unit == "s":
        return pa.timestamp("ms", tz=source.tz)
    if source == pa.time32("s"):
        return pa.time32("ms")
    if source == pa.date64():
        return pa.date32()
    return source


# Columns an engine cannot read with equal values, and why (checked: the engine reads
# the file, the column is left out of the value comparison).
ENGINE_SKIPS = {
    "duckdb": {
        # DuckDB has no DECIMAL beyond 38 digits: DECIMAL(50, 5) is read as DOUBLE.
        "dec256": "DuckDB reads DECIMAL(50,5) as DOUBLE (max precision 38)",
    },
    "polars": {
        # polars has no decimal beyond 38 digits either.
        "dec256": "polars has no decimal beyond precision 38 (refuses the column)",
    },
}


class Failures:
    def __init__(self):
        self.lines = []

    def add(self, name, engine, message):
        self.lines.append(f"{name} [{engine}]: {message}")

    def exit_status(self):
        """Prints one line per mismatch to stderr; the script's exit status."""
        for line in self.lines:
            print(f"MISMATCH {line}", file=sys.stderr)
        return 1 if self.lines else 0


def canon_array(arr, engine):
    """An Arrow array in a canonical form whose Python values compare across engines.

    Normalisations (each engine maps some types differently):
    * dictionaries are decoded (DuckDB and polars return plain values);
    * extension types (uuid) compare by their storage bytes (DuckDB returns UUID as a
      16-byte value or string, see canon_value);
    * large / view strings and binaries are plain strings / binaries;
    * timestamps are int64 nanoseconds since the epoch in UTC (the stored instant: DuckDB
      returns TIMESTAMPTZ in its session zone, polars keeps the zone name); DuckDB reads
      TIMESTAMP(NANOS, adjusted to UTC) as TIMESTAMPTZ with microseconds, so for DuckDB
      tz-aware nanosecond values are compared truncated to microseconds;
    * times are int64 nanoseconds since midnight, dates int32 days (polars reads a
      Date64 column as Datetime(ms): compared as whole days, see polars_adjust);
    * decimals compare as their exact text (DuckDB / polars pick their own widths);
    * Float16 is widened to float32 (exact);
    * maps are lists of (key, value) pairs (polars returns list<struct<key, value>>);
    * fixed-size lists are lists (DuckDB returns lists).
    """
    t = arr.type
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
        t = arr.type
    if pa.types.is_dictionary(t):
        return canon_array(arr.dictionary_decode(), engine)
    if isinstance(t, pa.BaseExtensionType):
        return canon_array(arr.storage, engine)
    if pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return arr.cast(pa.string())
    if pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
        return arr.cast(pa.binary())
    if pa.types.is_timestamp(t):
        ns = arr.cast(pa.timestamp("ns", tz=t.tz)).cast(pa.int64())
        return ns
    if pa.types.is_time(t):
        return arr.cast(pa.time64("ns")).cast(pa.int64())
    if pa.types.is_date(t):
        return arr.cast(pa.date32()).cast(pa.int32())
    if pa.types.is_decimal(t):
        return arr.cast(pa.string())
    if pa.types.is_float16(t):
        return arr.cast(pa.float32())
    if pa.types.is_map(t):
        keys = canon_array(arr.keys, engine)
        items = canon_array(arr.items, engine)
        entries = pa.StructArray.from_arrays([keys, items], names=["key", "value"])
        offsets = arr.offsets
        return pa.ListArray.from_arrays(offsets, entries, mask=arr.is_null())
    if pa.types.is_fixed_size_list(t):
        values = canon_array(arr.flatten(), engine)
        size = t.list_size
        offsets = pa.array([i * size for i in range(len(arr) + 1)], pa.int32())
        # flatten() drops the slots of null lists: rebuild them from the non-null ones.
        valid = arr.is_valid().to_pylist()
        offs, pos = [0], 0
        for ok in valid:
            pos += size if ok else 0
            offs.append(pos)
        return pa.ListArray.from_arrays(
            pa.array(offs, pa.int32()), values, mask=arr.is_null()
        )
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_list_view(t):
        if pa.types.is_list_view(t):
            arr = arr.cast(pa.list_(t.value_type))
        values = canon_array(arr.values, engine)
        offsets = arr.offsets.cast(pa.int32()) if pa.types.is_large_list(t) else arr.offsets
        # offsets into arr.values (not flattened): null lists may point anywhere valid.
        return pa.ListArray.from_arrays(offsets, values, mask=arr.is_null())
    if pa.types.is_struct(t):
        children = [canon_array(arr.field(i), engine) for i in range(t.num_fields)]
        names = [t.field(i).name for i in range(t.num_fields)]
        return pa.StructArray.from_arrays(children, names=names, mask=arr.is_null())
    return arr


def canon_value(v):
    """Python values that compare equal across engines (NaN equals NaN)."""
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, list):
        return [canon_value(x) for x in v]
    if isinstance(v, tuple):
        return tuple(canon_value(x) for x in v)
    if isinstance(v, dict):
        return {k: canon_value(x) for k, x in v.items()}
    if isinstance(v, uuid.UUID):
        return v.bytes
    if isinstance(v, decimal.Decimal):
        return str(v)
    return v


def column_values(arr, engine):
    return [canon_value(v) for v in canon_array(arr, engine).to_pylist()]


def first_difference(a, b):
    if len(a) != len(b):
        return f"{len(a)} values, expected {len(b)}"
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"row {i}: {x!r} != expected {y!r}"
    return None


def compare_tables(name, engine, got, expected, failures, adjust=None):
    """Column by column; `adjust(col, expected_values, got_values)` normalises further."""
    skips = ENGINE_SKIPS.get(engine, {})
    got_names = got.column_names
    for field in expected.schema:
        col = field.name
        if col in skips:
            continue
        if col not in got_names:
            failures.add(name, engine, f"column {col} missing (has {got_names})")
            continue
        exp_values = column_values(expected.column(col), engine)
        got_values = column_values(got.column(col), engine)
        if adjust is not None:
            exp_values, got_values = adjust(col, field, exp_values, got_values)
        diff = first_difference(got_values, exp_values)
        if diff:
            failures.add(
                name, engine, f"column {col} ({field.type} read as {got.schema.field(col).type}): {diff}"
            )


def check_pyarrow(path, manifest, expected, failures):
    name = manifest["name"]
    try:
        table = pq.read_table(path, page_checksum_verification=True)
    except Exception as e:  # noqa: BLE001 - any failure is a finding
        failures.add(name, "pyarrow", f"read failed: {e}")
        return
    if table.num_rows != expected.num_rows:
        failures.add(name, "pyarrow", f"{table.num_rows} rows, expected {expected.num_rows}")
        return
    for field in expected.schema:
        got = table.schema.field(field.name).type if field.name in table.column_names else None
        want = pyarrow_type(field.type)
        if got is None:
            failures.add(name, "pyarrow", f"column {field.name} missing")
        elif got != want:
            failures.add(name, "pyarrow", f"column {field.name}: type {got}, expected {want}")
    compare_tables(name, "pyarrow", table, expected, failures)

    # Page indexes, Bloom filters and sorting columns as pyarrow's metadata shows them.
    md = pq.ParquetFile(path).metadata
    blooms = set(manifest["bloom_filters"])
    declared = [
        (c["column_idx"], c["descending"], c["nulls_first"])
        for c in manifest.get("sorting_columns", [])
    ]
    for g in range(md.num_row_groups):
        rg = md.row_group(g)
        read = [(c.column_index, c.descending, c.nulls_first) for c in rg.sorting_columns or ()]
        if read != declared:
            failures.add(name, "pyarrow", f"row group {g}: sorting columns {read}, expected {declared}")
        for c in range(rg.num_columns):
            col = rg.column(c)
            where = f"row group {g} column {col.path_in_schema}"
            if manifest["offset_index"] and not col.has_offset_index:
                failures.add(name, "pyarrow", f"{where}: no offset index")
            if manifest["column_index"] and not col.has_column_index:
                # Columns without min/max (all null) still get a column index here.
                failures.add(name, "pyarrow", f"{where}: no column index")
            if not manifest["column_index"] and col.has_column_index:
                failures.add(name, "pyarrow", f"{where}: unexpected column index")
            has_bloom = col.bloom_filter_offset is not None and col.bloom_filter_offset > 0
            if (col.path_in_schema in blooms) != has_bloom:
                failures.add(
                    name, "pyarrow", f"{where}: Bloom filter offset {col.bloom_filter_offset}"
                )


def check_crc_corruption(path, manifest, failures, tmp):
    """Flip one byte inside a data page of a CRC file: the verified read must fail."""
    name = manifest["name"]
    md = pq.ParquetFile(path).metadata
    # The last byte of the first column chunk of the first row group lies in the payload
    # of that chunk's last data page.
    col = md.row_group(0).column(0)
    start = col.dictionary_page_offset or col.data_page_offset
    if col.dictionary_page_offset is not None:
        start = min(col.dictionary_page_offset, col.data_page_offset)
    target = start + col.total_compressed_size - 1
    copy = Path(tmp) / f"{name}-corrupt.parquet"
    shutil.copyfile(path, copy)
    data = bytearray(copy.read_bytes())
    data[target] ^= 0x5A
    copy.write_bytes(bytes(data))
    try:
        pq.read_table(copy, page_checksum_verification=True)
    except Exception as e:  # noqa: BLE001
        if "CRC" not in str(e) and "checksum" not in str(e).lower():
            failures.add(name, "pyarrow-crc", f"corrupt copy failed, but not on the CRC: {e}")
        return True
    failures.add(name, "pyarrow-crc", f"corrupt copy (byte {target} flipped) read without error")
    return True


def duckdb_adjust(col, field, exp, got):
    t = field.type
    if isinstance(t, pa.BaseExtensionType) and t.extension_name == "arrow.uuid":
        # DuckDB returns UUID columns as their text form.
        got = [v if not isinstance(v, str) else uuid.UUID(v).bytes for v in got]
    if pa.types.is_time(t) and t.unit == "ns":
        # DuckDB's TIME has microseconds: TIME(NANOS) is read truncated to them.
        exp = [None if v is None else (v // 1000) * 1000 for v in exp]
        got = [None if v is None else (v // 1000) * 1000 for v in got]
    if pa.types.is_timestamp(t) and t.unit == "ns" and t.tz is not None:
        # DuckDB: TIMESTAMP(NANOS, UTC) -> TIMESTAMPTZ (microseconds).
        exp = [None if v is None else (v // 1000) * 1000 for v in exp]
        got = [None if v is None else (v // 1000) * 1000 for v in got]
    return exp, got


def check_duckdb(path, manifest, expected, failures):
    name = manifest["name"]
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    try:
        quoted = str(path).replace("'", "''")
        relation = con.sql(f"SELECT * FROM read_parquet('{quoted}')")
        # duckdb >= 1.4 names it to_arrow_table; older releases arrow().
        fetch = getattr(relation, "to_arrow_table", None) or relation.arrow
        table = fetch()
    except Exception as e:  # noqa: BLE001
        failures.add(name, "duckdb", f"read failed: {e}")
        return
    if table.num_rows != expected.num_rows:
        failures.add(name, "duckdb", f"{table.num_rows} rows, expected {expected.num_rows}")
        return
    compare_tables(name, "duckdb", table, expected, failures, duckdb_adjust)

    # Bloom filters: parquet_metadata() has their offsets, parquet_bloom_probe answers.
    rows = con.execute(
        "SELECT path_in_schema, bloom_filter_offset, bloom_filter_length "
        "FROM parquet_metadata(?)",
        [str(path)],
    ).fetchall()
    for column, probe in manifest["bloom_filters"].items():
        offsets = [r for r in rows if r[0] == column]
        if not offsets or any(r[1] is None or r[1] <= 0 or not r[2] for r in offsets):
            failures.add(name, "duckdb", f"parquet_metadata: no Bloom filter for {column}: {offsets}")
            continue
        sql_type = probe["type"]

        def excluded(value):
            result = con.execute(
                f"SELECT bool_and(bloom_filter_excludes) FROM "
                f"parquet_bloom_probe(?, ?, ?::{sql_type})",
                [str(path), column, value],
            ).fetchone()
            return result[0]

        for value in probe["present"]:
            if excluded(value):
                failures.add(name, "duckdb", f"Bloom filter of {column} excludes present {value!r}")
        absent_hits = sum(1 for value in probe["absent"] if not excluded(value))
        # FPP 0.01: a few false positives at most among 20 absent values.
        if absent_hits > 3:
            failures.add(
                name, "duckdb",
                f"Bloom filter of {column}: {absent_hits}/{len(probe['absent'])} absent values not excluded",
            )
    con.close()


def polars_adjust(col, field, exp, got):
    if field.type == pa.date64():
        # polars maps Date64 (ARROW:schema) to Datetime(ms): nanoseconds -> days.
        got = [None if v is None else v // 86_400_000_000_000 for v in got]
    return exp, got


def check_polars(path, manifest, expected, failures):
    name = manifest["name"]
    try:
        # Skipped columns are not read at all: polars refuses the whole file otherwise.
        skips = ENGINE_SKIPS["polars"]
        columns = [f.name for f in expected.schema if f.name not in skips]
        frame = pl.read_parquet(path, columns=columns)
    except Exception as e:  # noqa: BLE001
        failures.add(name, "polars", f"read failed: {e}")
        return
    table = frame.to_arrow()
    if table.num_rows != expected.num_rows:
        failures.add(name, "polars", f"{table.num_rows} rows, expected {expected.num_rows}")
        return
    compare_tables(name, "polars", table, expected, failures, polars_adjust)


def main():
    if len(sys.argv) != 2:
        print("usage: interop_check.py DIR (written by interop-matrix)", file=sys.stderr)
        return 2
    root = Path(sys.argv[1])
    matrix = json.loads((root / "matrix.json").read_text())
    failures = Failures()
    checks = 0
    corrupted = 0
    engines = [("pyarrow", check_pyarrow), ("duckdb", check_duckdb), ("polars", check_polars)]
    with tempfile.TemporaryDirectory() as tmp:
        for entry in matrix["files"]:
            manifest = json.loads((root / f"{entry['name']}.json").read_text())
            path = root / manifest["parquet"]
            with ipc.open_file(root / manifest["ipc"]) as reader:
                expected = reader.read_all()
            for engine, check in engines:
                before = len(failures.lines)
                try:
                    check(path, manifest, expected, failures)
                except Exception as e:  # noqa: BLE001 - report, keep checking the rest
                    failures.add(manifest["name"], engine, f"check raised {type(e).__name__}: {e}")
                checks += 1
                status = "ok" if len(failures.lines) == before else "FAIL"
                print(f"{manifest['name']:<40} {engine:<8} {status}")
            if manifest["crc"] and corrupted < 2:
                check_crc_corruption(path, manifest, failures, tmp)
                corrupted += 1
    files = len(matrix["files"])
    print(
        f"interop: {files} files x {len(engines)} engines = {checks} checks, "
        f"{corrupted} corrupted CRC copies, {len(failures.lines)} failures"
    )
    return failures.exit_status()


if __name__ == "__main__":
    sys.exit(main())
