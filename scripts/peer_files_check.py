#!/usr/bin/env python3
"""Files written by pyarrow, DuckDB and polars, read by Herringbone (`hb convert`) and
compared with what pyarrow reads from the same file.

The reverse of `interop_check.py`: there the peers read Herringbone's files, here
Herringbone reads theirs. Each writer writes a matrix of files over its own options
(codecs, data page v1 / v2, dictionary on / off and fallback, the DELTA_* and
BYTE_STREAM_SPLIT encodings, tiny pages and row groups, page index, page CRCs, Bloom
filters, content-defined chunking, with and without the ARROW:schema hint, legacy list
layout, INT96) and types (every width of integer,
floats with NaN and -0.0, decimals, dates, times, timestamps in every unit and zone,
strings, binaries, UUID, intervals, lists, structs, maps, nested to a few levels, nulls
everywhere).

For each file: `hb convert FILE OUT.arrow` (the whole file), and once more with a
projection of two top-level columns (`--columns`), then the Arrow IPC file is compared
column by column with `pq.read_table(FILE)` after the normalisations of
`interop_check.canon_array` (dictionaries decoded, large / view types as plain, instants
as UTC nanoseconds, decimals as text) plus one more: a Parquet INTERVAL, which pyarrow
reads as its 12 raw bytes, is compared as (months, days, nanoseconds) with Herringbone's
MonthDayNano. Type differences that keep the values (a time zone spelled `UTC` or
`+00:00`, a dictionary of large strings) are listed, not failed. Last, the file is
written again by Herringbone (`hb convert FILE OUT.parquet`, default properties) and
pyarrow's reading of that (page CRCs verified) must equal its reading of the original.

Last, a `_metadata` summary file pyarrow writes for a dataset of two files (its chunks
name their data files in `file_path`) is read through `hb convert` and compared with
the rows of the two files.

Usage: peer_files_check.py HB_BINARY [WORK_DIR]
Exits non-zero with one line per mismatch.
"""

import datetime
import decimal
import os
import random
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interop_check import Failures, column_values, first_difference  # noqa: E402

ROWS = 3000
LARGE_ROWS = 60_000


def maybe_null(rng, values, rate=0.15):
    return [None if rng.random() < rate else v for v in values]


def source_table(seed=7, n=ROWS):
    """A table of every type pyarrow can write, with nulls at every level."""
    rng = random.Random(seed)
    ints = [rng.randint(-(2**31), 2**31 - 1) for _ in range(n)]
    words = ["alpha", "beta", "gamma", "delta", "épsilon", "ζeta", "", "a" * 40]
    floats = [rng.uniform(-1e6, 1e6) for _ in range(n)]
    for i in range(0, n, 97):
        floats[i] = float("nan")
    for i in range(5, n, 101):
        floats[i] = -0.0
    base = datetime.datetime(2001, 2, 3, 4, 5, 6, 789012)
    cols = {
        "i8": pa.array(maybe_null(rng, [rng.randint(-128, 127) for _ in range(n)]), pa.int8()),
        "i16": pa.array(maybe_null(rng, [rng.randint(-(2**15), 2**15 - 1) for _ in range(n)]), pa.int16()),
        "i32": pa.array(maybe_null(rng, ints), pa.int32()),
        "i64": pa.array([rng.randint(-(2**63), 2**63 - 1) for _ in range(n)], pa.int64()),
        "i64_sorted": pa.array(list(range(10**12, 10**12 + 3 * n, 3)), pa.int64()),
        "u8": pa.array(maybe_null(rng, [rng.randint(0, 255) for _ in range(n)]), pa.uint8()),
        "u16": pa.array([rng.randint(0, 2**16 - 1) for _ in range(n)], pa.uint16()),
        "u32": pa.array(maybe_null(rng, [rng.randint(0, 2**32 - 1) for _ in range(n)]), pa.uint32()),
        "u64": pa.array([rng.randint(0, 2**64 - 1) for _ in range(n)], pa.uint64()),
        "f16": pa.array(maybe_null(rng, [rng.uniform(-100, 100) for _ in range(n)]), pa.float32()).cast(pa.float16()),
        "f32": pa.array(maybe_null(rng, floats), pa.float32()),
        "f64": pa.array(floats, pa.float64()),
        "b": pa.array(maybe_null(rng, [rng.random() < 0.5 for _ in range(n)]), pa.bool_()),
        "s": pa.array(maybe_null(rng, [rng.choice(words) + str(rng.randint(0, 50)) for _ in range(n)])),
        "s_unique": pa.array([f"row-{i:06d}-{rng.random():.6f}" for i in range(n)]),
        "ls": pa.array(maybe_null(rng, [rng.choice(words) for _ in range(n)]), pa.large_string()),
        "bin": pa.array(maybe_null(rng, [rng.randbytes(rng.randint(0, 12)) for _ in range(n)]), pa.binary()),
        "fsb": pa.array(maybe_null(rng, [rng.randbytes(6) for _ in range(n)]), pa.binary(6)),
        "d9": pa.array(maybe_null(rng, [decimal.Decimal(rng.randint(-10**8, 10**8)).scaleb(-2) for _ in range(n)]), pa.decimal128(9, 2)),
        "d18": pa.array(maybe_null(rng, [decimal.Decimal(rng.randint(-10**17, 10**17)).scaleb(-6) for _ in range(n)]), pa.decimal128(18, 6)),
        "d38": pa.array(maybe_null(rng, [decimal.Decimal(rng.randint(-10**37, 10**37)).scaleb(-10) for _ in range(n)]), pa.decimal128(38, 10)),
        "d60": pa.array(maybe_null(rng, [decimal.Decimal(rng.randint(-10**59, 10**59)).scaleb(-5) for _ in range(n)]), pa.decimal256(60, 5)),
        "date": pa.array(maybe_null(rng, [datetime.date(1970, 1, 1) + datetime.timedelta(days=rng.randint(-40000, 40000)) for _ in range(n)]), pa.date32()),
        "t32": pa.array(maybe_null(rng, [rng.randint(0, 86_399_999) for _ in range(n)]), pa.int32()).cast(pa.time32("ms")),
        "t64": pa.array(maybe_null(rng, [rng.randint(0, 86_399_999_999) for _ in range(n)]), pa.int64()).cast(pa.time64("us")),
        "ts_ms": pa.array(maybe_null(rng, [base + datetime.timedelta(seconds=rng.randint(-10**8, 10**8)) for _ in range(n)]), pa.timestamp("ms")),
        "ts_us_utc": pa.array(maybe_null(rng, [base + datetime.timedelta(microseconds=rng.randint(-10**14, 10**14)) for _ in range(n)]), pa.timestamp("us", tz="UTC")),
        "ts_ns_tz": pa.array(maybe_null(rng, [rng.randint(-(10**18), 10**18) for _ in range(n)]), pa.int64()).cast(pa.timestamp("ns", tz="Europe/Paris")),
        "dur": pa.array(maybe_null(rng, [rng.randint(-(10**12), 10**12) for _ in range(n)]), pa.int64()).cast(pa.duration("us")),
        "list_i32": pa.array(maybe_null(rng, [maybe_null(rng, [rng.randint(0, 9) for _ in range(rng.randint(0, 4))], 0.2) for _ in range(n)]), pa.list_(pa.int32())),
        "list_s": pa.array(maybe_null(rng, [[rng.choice(words) for _ in range(rng.randint(0, 3))] for _ in range(n)]), pa.large_list(pa.string())),
        "fsl": pa.array(maybe_null(rng, [[rng.random() for _ in range(3)] for _ in range(n)]), pa.list_(pa.float64(), 3)),
        "struct": pa.array(
            maybe_null(rng, [{"x": rng.randint(0, 99) if rng.random() > 0.1 else None, "y": rng.choice(words), "z": {"deep": [rng.randint(0, 3)] * rng.randint(0, 2)}} for _ in range(n)]),
            pa.struct([("x", pa.int64()), ("y", pa.string()), ("z", pa.struct([("deep", pa.list_(pa.int16()))]))]),
        ),
        "map": pa.array(
            maybe_null(rng, [[(rng.choice(words) + str(k), rng.randint(0, 9) if rng.random() > 0.2 else None) for k in range(rng.randint(0, 3))] for _ in range(n)]),
            pa.map_(pa.string(), pa.int64()),
        ),
        "list_struct": pa.array(
            maybe_null(rng, [[{"k": rng.randint(0, 5), "v": maybe_null(rng, [rng.random()])} for _ in range(rng.randint(0, 3))] for _ in range(n)]),
            pa.list_(pa.struct([("k", pa.int8()), ("v", pa.list_(pa.float32()))])),
        ),
        "list_list": pa.array(
            maybe_null(rng, [[maybe_null(rng, [rng.randint(0, 5)] * rng.randint(0, 3), 0.1) for _ in range(rng.randint(0, 3))] for _ in range(n)]),
            pa.list_(pa.list_(pa.int64())),
        ),
        "dict_s": pa.array(maybe_null(rng, [rng.choice(words) for _ in range(n)])).dictionary_encode(),
        "all_null": pa.nulls(n, pa.int32()),
        "null_type": pa.nulls(n),
    }
    return pa.table(cols)


# --- pyarrow ---------------------------------------------------------------------------

DELTA_COLS = {
    "i32": "DELTA_BINARY_PACKED",
    "i64": "DELTA_BINARY_PACKED",
    "i64_sorted": "DELTA_BINARY_PACKED",
    "u64": "DELTA_BINARY_PACKED",
    "s": "DELTA_BYTE_ARRAY",
    "s_unique": "DELTA_BYTE_ARRAY",
    "ls": "DELTA_LENGTH_BYTE_ARRAY",
    "bin": "DELTA_LENGTH_BYTE_ARRAY",
    "fsb": "DELTA_BYTE_ARRAY",
    "f32": "BYTE_STREAM_SPLIT",
    "f64": "BYTE_STREAM_SPLIT",
}

BSS_COLS = {"i32": "BYTE_STREAM_SPLIT", "i64": "BYTE_STREAM_SPLIT", "fsb": "BYTE_STREAM_SPLIT", "f16": "BYTE_STREAM_SPLIT", "d38": "BYTE_STREAM_SPLIT"}

PYARROW_CASES = {
    "pa_default": {},
    "pa_none_v1": {"compression": "none", "data_page_version": "1.0"},
    "pa_snappy_v2": {"compression": "snappy", "data_page_version": "2.0"},
    "pa_gzip": {"compression": "gzip", "compression_level": 9},
    "pa_brotli_v2": {"compression": "brotli", "data_page_version": "2.0"},
    "pa_lz4_raw": {"compression": "lz4"},
    "pa_zstd_v2": {"compression": "zstd", "compression_level": 7, "data_page_version": "2.0"},
    "pa_plain": {"use_dictionary": False},
    "pa_delta_v1": {"use_dictionary": False, "column_encoding": DELTA_COLS},
    "pa_delta_v2_zstd": {"use_dictionary": False, "column_encoding": DELTA_COLS, "data_page_version": "2.0", "compression": "zstd"},
    "pa_bss": {"use_dictionary": False, "column_encoding": BSS_COLS, "use_byte_stream_split": ["f32", "f64"]},
    "pa_tiny_pages": {"data_page_size": 256, "row_group_size": 700, "write_batch_size": 64},
    "pa_tiny_pages_v2": {"data_page_size": 256, "row_group_size": 1000, "write_batch_size": 100, "data_page_version": "2.0", "compression": "snappy"},
    "pa_dict_fallback": {"dictionary_pagesize_limit": 512, "data_page_size": 2048},
    "pa_page_index_crc": {"write_page_index": True, "write_page_checksum": True, "row_group_size": 1000},
    "pa_no_stats": {"write_statistics": False},
    "pa_no_hint": {"store_schema": False},
    "pa_no_hint_v1_format": {"store_schema": False, "version": "1.0"},
    "pa_legacy_lists": {"use_compliant_nested_type": False, "store_schema": False},
    "pa_coerce_ms": {"coerce_timestamps": "ms", "allow_truncated_timestamps": True, "store_schema": False},
    "pa_int96": {"use_deprecated_int96_timestamps": True, "store_schema": False},
    "pa_decimal_as_int": {"store_decimal_as_integer": True, "use_dictionary": False, "column_encoding": {"d9": "DELTA_BINARY_PACKED", "d18": "DELTA_BINARY_PACKED"}},
    "pa_bloom": {"bloom_filter_options": {"s": True, "s_unique": {"ndv": 3000, "fpp": 0.01}, "i64": {"ndv": 500, "fpp": 0.1}, "d38": True}},
    "pa_cdc": {"use_content_defined_chunking": {"min_chunk_size": 4096, "max_chunk_size": 16384}},
    "pa_rows_per_page": {"max_rows_per_page": 97, "data_page_version": "2.0"},
    "pa_time_utc": {"write_time_adjusted_to_utc": True, "store_schema": False},
    "pa_sorted": {"sorting_columns": [pq.SortingColumn(4)], "row_group_size": 1500},
}


def write_pyarrow(table, out_dir):
    files = []
    for name, options in PYARROW_CASES.items():
        path = out_dir / f"{name}.parquet"
        t = table
        if options.get("version") == "1.0":
            # The 1.0 format has no unsigned 64-bit or nanosecond types pyarrow can store.
            t = t.drop_columns(["u64", "ts_ns_tz", "f16", "null_type"])
        if "use_deprecated_int96_timestamps" in options:
            t = t.drop_columns(["ts_ns_tz"])
        pq.write_table(t, path, **options)
        files.append(path)
    # Defaults at a size where pages and row groups split on their own (1 MiB pages,
    # 20,000-row pages, two row groups).
    path = out_dir / "pa_large.parquet"
    pq.write_table(source_table(seed=8, n=LARGE_ROWS), path, row_group_size=LARGE_ROWS // 2 + 1)
    files.append(path)
    return files


# --- DuckDB ----------------------------------------------------------------------------

DUCKDB_SELECT = """
SELECT
  i::INTEGER AS i32,
  (i * 7919)::BIGINT * (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END) AS i64,
  (i % 120)::TINYINT AS i8,
  (i % 30000)::SMALLINT AS i16,
  ((i * 3) % 256)::UTINYINT AS u8,
  ((i * 65521) % 4294967296)::UINTEGER AS u32,
  (i::UBIGINT * 1000000007) AS u64,
  CASE WHEN i % 7 = 0 THEN NULL ELSE i * 1.5 END::DOUBLE AS f64,
  CASE WHEN i % 11 = 0 THEN 'nan'::FLOAT ELSE i / 3.0 END::FLOAT AS f32,
  i % 3 = 0 AS b,
  CASE WHEN i % 5 = 0 THEN NULL ELSE 'word_' || (i % 37)::VARCHAR END AS s,
  'unique_' || i::VARCHAR || '_' || md5(i::VARCHAR) AS s_unique,
  ('\\x' || lpad(hex(i), 8, '0'))::BLOB AS blob,
  (i / 7.0)::DECIMAL(9, 3) AS d9,
  (i * 12345.678901)::DECIMAL(18, 6) AS d18,
  (i::HUGEINT * 1000000000000000000 + 12345)::DECIMAL(38, 2) AS d38,
  DATE '2000-01-01' + (i % 20000)::INTEGER AS date,
  TIME '00:00:00' + to_microseconds(i * 1000003) AS t,
  TIMESTAMP '2020-01-01' + to_microseconds(i::BIGINT * 1000000007) AS ts,
  TIMESTAMPTZ '2020-01-01 00:00:00+00' + to_milliseconds(i * 977) AS tstz,
  TIMESTAMP_NS '2020-01-01' + to_microseconds(i) AS ts_ns,
  TIMESTAMP_MS '2020-01-01' + to_seconds(i) AS ts_ms,
  ('00000000-0000-4000-8000-' || lpad(i::VARCHAR, 12, '0'))::UUID AS uuid,
  to_months(i % 13) + to_days(i % 29) + to_milliseconds(i * 31) AS iv,
  CASE WHEN i % 4 = 0 THEN NULL ELSE [i, i + 1, NULL][1:(i % 4)] END AS list_i,
  [['a' || i::VARCHAR], [], NULL] AS list_list_s,
  {'x': i, 'y': CASE WHEN i % 3 = 0 THEN NULL ELSE 'y' || i::VARCHAR END, 'z': {'deep': [i % 5]}} AS struct,
  CASE WHEN i % 6 = 0 THEN NULL ELSE MAP {'k' || (i % 4)::VARCHAR: i, 'other': NULL} END AS map,
  [{'k': i % 3, 'v': [i * 0.5]}] AS list_struct,
  (['red', 'green', 'blue'])[1 + i % 3]::ENUM('red', 'green', 'blue') AS enum,
  NULL::INTEGER AS all_null
FROM range(0, {rows}) t(i)
"""

DUCKDB_CASES = {
    "duck_default": "",
    "duck_uncompressed": "COMPRESSION uncompressed",
    "duck_gzip": "COMPRESSION gzip",
    "duck_zstd": "COMPRESSION zstd, COMPRESSION_LEVEL 9",
    "duck_brotli": "COMPRESSION brotli",
    "duck_lz4": "COMPRESSION lz4_raw",
    "duck_v2": "PARQUET_VERSION v2",
    "duck_v2_zstd_small_groups": "PARQUET_VERSION v2, COMPRESSION zstd, ROW_GROUP_SIZE 700",
    "duck_small_groups": "ROW_GROUP_SIZE 500",
    "duck_no_dict": "DICTIONARY_SIZE_LIMIT 1",
}


def write_duckdb(out_dir, failures):
    con = duckdb.connect()
    files = []
    cases = [(name, options, ROWS) for name, options in DUCKDB_CASES.items()]
    # DuckDB's own page and row group sizes at work (122,880-row groups).
    cases.append(("duck_large", "", 300_000))
    for name, options, rows in cases:
        select = DUCKDB_SELECT.replace("{rows}", str(rows))
        path = out_dir / f"{name}.parquet"
        extra = f", {options}" if options else ""
        try:
            con.execute(f"COPY ({select}) TO '{path}' (FORMAT parquet{extra})")
        except duckdb.Error as e:
            failures.add(name, "duckdb", f"write failed: {str(e).splitlines()[0]}")
            continue
        files.append(path)
    return files


# --- polars ----------------------------------------------------------------------------


def polars_frame(seed=11):
    rng = random.Random(seed)
    n = ROWS
    words = ["north", "south", "east", "west", "ünïcode", ""]
    return pl.DataFrame(
        {
            "i8": pl.Series([rng.randint(-128, 127) for _ in range(n)], dtype=pl.Int8),
            "i32": pl.Series(maybe_null(rng, [rng.randint(-(2**31), 2**31 - 1) for _ in range(n)]), dtype=pl.Int32),
            "i64": pl.Series([rng.randint(-(2**63), 2**63 - 1) for _ in range(n)], dtype=pl.Int64),
            "u16": pl.Series([rng.randint(0, 2**16 - 1) for _ in range(n)], dtype=pl.UInt16),
            "u64": pl.Series(maybe_null(rng, [rng.randint(0, 2**64 - 1) for _ in range(n)]), dtype=pl.UInt64),
            "f32": pl.Series(maybe_null(rng, [rng.uniform(-1, 1) for _ in range(n)]), dtype=pl.Float32),
            "f64": pl.Series([float("nan") if i % 50 == 0 else rng.gauss(0, 1e9) for i in range(n)], dtype=pl.Float64),
            "b": pl.Series(maybe_null(rng, [rng.random() < 0.3 for _ in range(n)]), dtype=pl.Boolean),
            "s": pl.Series(maybe_null(rng, [rng.choice(words) * rng.randint(1, 3) for _ in range(n)]), dtype=pl.String),
            "bin": pl.Series(maybe_null(rng, [rng.randbytes(rng.randint(0, 9)) for _ in range(n)]), dtype=pl.Binary),
            "cat": pl.Series(maybe_null(rng, [rng.choice(words) for _ in range(n)]), dtype=pl.Categorical),
            "enum": pl.Series([rng.choice(["lo", "mid", "hi"]) for _ in range(n)], dtype=pl.Enum(["lo", "mid", "hi"])),
            "date": pl.Series(maybe_null(rng, [datetime.date(2000, 1, 1) + datetime.timedelta(days=rng.randint(0, 9000)) for _ in range(n)]), dtype=pl.Date),
            "dt_ms": pl.Series([datetime.datetime(2010, 1, 1) + datetime.timedelta(milliseconds=rng.randint(0, 10**11)) for _ in range(n)], dtype=pl.Datetime("ms")),
            "dt_us_tz": pl.Series(maybe_null(rng, [datetime.datetime(2010, 1, 1) + datetime.timedelta(microseconds=rng.randint(0, 10**14)) for _ in range(n)]), dtype=pl.Datetime("us")).dt.replace_time_zone("Asia/Tokyo"),
            "dt_ns": pl.Series([datetime.datetime(2010, 1, 1) + datetime.timedelta(microseconds=rng.randint(0, 10**14)) for _ in range(n)], dtype=pl.Datetime("ns")),
            "dur": pl.Series(maybe_null(rng, [datetime.timedelta(milliseconds=rng.randint(-10**9, 10**9)) for _ in range(n)]), dtype=pl.Duration("ms")),
            "time": pl.Series(maybe_null(rng, [datetime.time(rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59), rng.randint(0, 999999)) for _ in range(n)]), dtype=pl.Time),
            "dec": pl.Series(maybe_null(rng, [decimal.Decimal(rng.randint(-10**12, 10**12)).scaleb(-4) for _ in range(n)]), dtype=pl.Decimal(20, 4)),
            "list": pl.Series(maybe_null(rng, [maybe_null(rng, [rng.randint(0, 100) for _ in range(rng.randint(0, 4))], 0.1) for _ in range(n)]), dtype=pl.List(pl.Int64)),
            "array": pl.Series(maybe_null(rng, [[rng.random(), rng.random()] for _ in range(n)]), dtype=pl.Array(pl.Float64, 2)),
            "struct": pl.Series(maybe_null(rng, [{"a": rng.randint(0, 9), "b": rng.choice(words), "c": [rng.randint(0, 3)] * rng.randint(0, 2)} for _ in range(n)]), dtype=pl.Struct({"a": pl.Int16, "b": pl.String, "c": pl.List(pl.UInt8)})),
            "list_struct": pl.Series([[{"k": rng.choice(words), "v": rng.random()} for _ in range(rng.randint(0, 3))] for _ in range(n)], dtype=pl.List(pl.Struct({"k": pl.String, "v": pl.Float64}))),
            "nulls": pl.Series([None] * n, dtype=pl.Int64),
        }
    )


POLARS_CASES = {
    "pl_default": {},
    "pl_uncompressed": {"compression": "uncompressed"},
    "pl_snappy": {"compression": "snappy"},
    "pl_gzip": {"compression": "gzip", "compression_level": 6},
    "pl_lz4": {"compression": "lz4"},
    "pl_brotli": {"compression": "brotli"},
    "pl_zstd_small": {"compression": "zstd", "row_group_size": 500, "data_page_size": 1024},
    "pl_no_stats": {"statistics": False},
    "pl_full_stats": {"statistics": "full"},
}


def write_polars(out_dir):
    frame = polars_frame()
    files = []
    for name, options in POLARS_CASES.items():
        path = out_dir / f"{name}.parquet"
        frame.write_parquet(path, **options)
        files.append(path)
    return files


# --- reading and comparing -------------------------------------------------------------


def interval_triples(values):
    """Parquet INTERVAL bytes (months, days, millis; little-endian u32s) as pyarrow's
    MonthDayNano reads compare: (months, days, nanoseconds)."""
    out = []
    for v in values:
        if v is None:
            out.append(None)
        else:
            months, days, millis = struct.unpack("<III", v)
            out.append((months, days, millis * 1_000_000))
    return out


def equivalent_types(got, want):
    """Types that differ in spelling or width, not in the values they hold."""
    if got == want:
        return True
    if pa.types.is_timestamp(got) and pa.types.is_timestamp(want) and got.unit == want.unit:
        utc = {"UTC", "+00:00", "Z", "Etc/UTC"}
        return got.tz == want.tz or (got.tz in utc and want.tz in utc)
    if pa.types.is_dictionary(got) and pa.types.is_dictionary(want):
        return got.index_type == want.index_type and equivalent_types(got.value_type, want.value_type)
    strings = (pa.types.is_string, pa.types.is_large_string, pa.types.is_string_view)
    binaries = (pa.types.is_binary, pa.types.is_large_binary, pa.types.is_binary_view)
    for family in (strings, binaries):
        if any(f(got) for f in family) and any(f(want) for f in family):
            return True
    if pa.types.is_map(got) and pa.types.is_map(want):
        return equivalent_types(got.key_type, want.key_type) and equivalent_types(got.item_type, want.item_type)
    nested = (pa.types.is_list, pa.types.is_large_list)
    if any(f(got) for f in nested) and any(f(want) for f in nested):
        return got.value_type == want.value_type or equivalent_types(got.value_type, want.value_type)
    if pa.types.is_struct(got) and pa.types.is_struct(want) and got.num_fields == want.num_fields:
        return all(
            got.field(i).name == want.field(i).name and equivalent_types(got.field(i).type, want.field(i).type)
            for i in range(got.num_fields)
        )
    return False


def hb_read(hb, path, out, columns=None):
    command = [hb, "convert", str(path), str(out)]
    if columns:
        command += ["--columns", ",".join(columns)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        return None, (result.stderr.strip() or f"exit status {result.returncode}")
    with ipc.open_file(out) as reader:
        table = reader.read_all()
    # The table is in memory now; the file is only disk the run no longer needs.
    out.unlink()
    return table, None


def compare(name, got, expected, failures, notes):
    if got.num_rows != expected.num_rows:
        failures.add(name, "hb", f"{got.num_rows} rows, pyarrow reads {expected.num_rows}")
        return
    if got.column_names != expected.column_names:
        failures.add(name, "hb", f"columns {got.column_names}, pyarrow reads {expected.column_names}")
        return
    for field in expected.schema:
        col = field.name
        got_type = got.schema.field(col).type
        exp_values = column_values(expected.column(col), "hb")
        got_values = column_values(got.column(col), "hb")
        if pa.types.is_fixed_size_binary(field.type) and field.type.byte_width == 12 and got_type == pa.month_day_nano_interval():
            exp_values = interval_triples(exp_values)
            got_values = [None if v is None else tuple(v) for v in got_values]
        elif not equivalent_types(got_type, field.type):
            notes.add(f"{col}: pyarrow {field.type}, Herringbone {got_type}")
        diff = first_difference(got_values, exp_values)
        if diff:
            failures.add(name, "hb", f"column {col} ({field.type} read as {got_type}): {diff}")


def check_summary_file(hb, work, failures, notes):
    """A dataset of two files and the `_metadata` summary pyarrow writes for it (each
    column chunk naming its data file in `file_path`, one of them in a sub-folder):
    `hb convert _metadata` reads the rows from the data files, in order."""
    root = work / "summary-dataset"
    (root / "sub").mkdir(parents=True, exist_ok=True)
    table = source_table(seed=23, n=2000)
    collector = []
    for i, (rel, part) in enumerate([("part-0.parquet", table.slice(0, 1200)), ("sub/part-1.parquet", table.slice(1200))]):
        pq.write_table(part, root / rel, row_group_size=500, metadata_collector=collector)
        collector[-1].set_file_path(rel)
    pq.write_metadata(table.schema, root / "_metadata", metadata_collector=collector)
    got, error = hb_read(hb, root / "_metadata", work / "summary-dataset.arrow")
    if error:
        failures.add("pa_summary_metadata", "hb", f"read failed: {error}")
    else:
        compare("pa_summary_metadata", got, table, failures, notes)
    return 1


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    hb = sys.argv[1]
    work = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tempfile.mkdtemp(prefix="peer-files-"))
    work.mkdir(parents=True, exist_ok=True)
    failures = Failures()
    files = write_pyarrow(source_table(), work) + write_duckdb(work, failures) + write_polars(work)
    notes = set()
    reads = 0
    for path in files:
        name = path.stem
        before = len(failures.lines)
        expected = pq.read_table(path)
        got, error = hb_read(hb, path, work / f"{name}.arrow")
        reads += 1
        if error:
            failures.add(name, "hb", f"read failed: {error}")
        else:
            compare(name, got, expected, failures, notes)
            # A projection: the last and the first top-level column, in that order.
            columns = [expected.column_names[-1], expected.column_names[0]]
            got, error = hb_read(hb, path, work / f"{name}.projected.arrow", columns)
            reads += 1
            if error:
                failures.add(name, "hb", f"projected read failed: {error}")
            else:
                compare(f"{name} (columns {columns})", got, expected.select(columns), failures, notes)
            # Written again by Herringbone (default properties), read by pyarrow.
            rewritten = work / f"{name}.herringbone.parquet"
            result = subprocess.run([hb, "convert", str(path), str(rewritten)], capture_output=True, text=True, timeout=300)
            if result.returncode != 0:
                failures.add(name, "hb", f"rewrite failed: {result.stderr.strip()}")
            else:
                try:
                    again = pq.read_table(rewritten, page_checksum_verification=True)
                except Exception as e:  # noqa: BLE001 - any failure is a finding
                    failures.add(name, "pyarrow", f"cannot read Herringbone's rewrite: {e}")
                else:
                    compare(f"{name} (rewritten)", again, expected, failures, notes)
                rewritten.unlink(missing_ok=True)
        status = "ok" if len(failures.lines) == before else "FAIL"
        print(f"{name:<32} {os.path.getsize(path):>9} bytes  {status}")
    before = len(failures.lines)
    reads += check_summary_file(hb, work, failures, notes)
    status = "ok" if len(failures.lines) == before else "FAIL"
    print(f"{'pa_summary_metadata (_metadata)':<32} {'':>9}        {status}")
    for note in sorted(notes):
        print(f"type note: {note}")
    writers = {prefix: sum(p.stem.startswith(prefix + "_") for p in files) for prefix in ("pa", "duck", "pl")}
    print(
        f"peer files: {len(files)} files (pyarrow {writers['pa']}, DuckDB {writers['duck']}, "
        f"polars {writers['pl']}), {reads} Herringbone reads, {len(files)} rewrites, "
        f"{len(failures.lines)} failures"
    )
    return failures.exit_status()


if __name__ == "__main__":
    sys.exit(main())
