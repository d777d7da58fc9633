#!/usr/bin/env python3
"""Parquet modular encryption across implementations, through `hb`.

Peers write, Herringbone reads (`hb convert FILE OUT.arrow` with the keys), and the
values must equal what the writer itself reads back with the same keys:

* pyarrow (direct keys: `pyarrow.parquet.encryption.create_encryption_properties`):
  AES_GCM_V1 and AES_GCM_CTR_V1, encrypted and plaintext (signed) footers, AAD prefix
  stored and supplied, 128-, 192- and 256-bit keys, v2 pages with page index and page
  CRCs (pyarrow 26 writes no Bloom filters into encrypted files); and filtered reads of
  that file (`--filter`) equal to pyarrow's, pruned through its decrypted page index;
* polars (per-column keys: `pl.ParquetEncryptionProperties(column_keys=...)`), with an
  encrypted and a plaintext footer (the plaintext columns of the latter also read
  without keys);
* DuckDB 2.0 (`COPY ... (ENCRYPTION_CONFIG {footer_key: ...})`): its files have no
  `aad_file_unique` and use empty AADs, which Herringbone reads by its DuckDB rule.

Herringbone writes, peers read: `hb convert PLAIN.parquet OUT.parquet` with keys and
each algorithm / footer / AAD option, read back by pyarrow (uniform keys) or polars
(per-column keys) with the same keys, equal to pyarrow's reading of the plain file;
and filtered reads of Herringbone's encrypted file with Bloom filters equal to
pyarrow's filtered reading, pruned through the decrypted Bloom filters.

And the failures: no key, a wrong key, a missing AAD prefix, a key for a column the
file does not have, a flipped byte: `hb` exits 1 with a message, never data.

Usage: encryption_interop.py HB_BINARY [WORK_DIR]
Exits non-zero with one line per mismatch.
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pyarrow.parquet.encryption as pe

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interop_check import Failures  # noqa: E402
from peer_files_check import compare, source_table  # noqa: E402

ROWS = 2000
FOOTER = b"0123456789012345"
KEY192 = b"012345678901234567890123"
KEY256 = b"01234567890123456789012345678901"
COL1 = b"1234567890123450"
COL2 = b"1234567890123451"


def hexkey(key):
    return key.hex()


def key_args(footer=None, columns=None, aad=None):
    args = []
    if footer is not None:
        args += ["--footer-key", hexkey(footer)]
    for path, key in (columns or {}).items():
        args += ["--column-key", f"{path}={hexkey(key)}"]
    if aad is not None:
        args += ["--aad-prefix", aad.decode()]
    return args


def hb(binary, *args):
    return subprocess.run([binary, *map(str, args)], capture_output=True, text=True, timeout=300)


def hb_read(binary, path, out, args):
    result = hb(binary, "convert", path, out, *args)
    if result.returncode != 0:
        return None, (result.stderr.strip() or f"exit status {result.returncode}")
    with ipc.open_file(out) as reader:
        return reader.read_all(), None


def expect_failure(binary, name, failures, path, out, args, words):
    """`hb convert` must fail, with a message holding each of `words`."""
    result = hb(binary, "convert", path, out, *args)
    if result.returncode == 0:
        failures.add(name, "hb", f"read succeeded with {args}; expected an error mentioning {words}")
        return
    message = result.stderr.strip()
    missing = [w for w in words if w.lower() not in message.lower()]
    if missing:
        failures.add(name, "hb", f"error {message!r} does not mention {missing}")


# --- pyarrow ---------------------------------------------------------------------------

PYARROW_CASES = {
    # name: (footer key, algorithm, plaintext footer, aad prefix, store prefix, write options)
    "pa_gcm": (FOOTER, "AES_GCM_V1", False, None, True, {}),
    "pa_ctr": (FOOTER, "AES_GCM_CTR_V1", False, None, True, {}),
    "pa_gcm_plaintext_footer": (FOOTER, "AES_GCM_V1", True, None, True, {}),
    "pa_ctr_plaintext_footer": (FOOTER, "AES_GCM_CTR_V1", True, None, True, {}),
    "pa_gcm_aad_stored": (FOOTER, "AES_GCM_V1", False, b"table.part0", True, {}),
    "pa_gcm_aad_supplied": (FOOTER, "AES_GCM_V1", False, b"table.part1", False, {}),
    "pa_ctr_aad_supplied_plaintext_footer": (FOOTER, "AES_GCM_CTR_V1", True, b"t2", False, {}),
    "pa_aes192": (KEY192, "AES_GCM_V1", False, None, True, {}),
    "pa_aes256_ctr": (KEY256, "AES_GCM_CTR_V1", False, None, True, {}),
    # pyarrow 26 refuses Bloom filters in encrypted files ("not currently supported").
    "pa_gcm_v2_index_crc": (
        FOOTER,
        "AES_GCM_V1",
        False,
        None,
        True,
        {
            "data_page_version": "2.0",
            "write_page_index": True,
            "write_page_checksum": True,
            "data_page_size": 1024,
            "row_group_size": 700,
            "compression": "zstd",
        },
    ),
}


def pyarrow_files(table, work, binary, failures):
    count = 0
    for name, (key, algorithm, plaintext, aad, store, options) in PYARROW_CASES.items():
        path = work / f"{name}.parquet"
        props = pe.create_encryption_properties(
            key,
            aad_prefix=aad,
            store_aad_prefix=store,
            encryption_algorithm=algorithm,
            plaintext_footer=plaintext,
        )
        pq.write_table(table, path, encryption_properties=props, **options)
        read_props = pe.create_decryption_properties(key, aad_prefix=None if store else aad)
        expected = pq.read_table(path, decryption_properties=read_props)
        supplied = aad if not store else None
        got, error = hb_read(binary, path, work / f"{name}.arrow", key_args(key, aad=supplied))
        count += 1
        if error:
            failures.add(name, "hb", f"read failed: {error}")
        else:
            compare(name, got, expected, failures, set())
        out = work / f"{name}.fail.arrow"
        if plaintext:
            # Every column is under the footer key: without keys only the footer reads.
            expect_failure(binary, name, failures, path, out, [], ["encrypted", "key"])
        else:
            expect_failure(binary, name, failures, path, out, [], ["footer is encrypted", "keys required"])
        wrong = bytes(reversed(key))
        expect_failure(binary, name, failures, path, out, key_args(wrong, aad=supplied), ["footer"])
        if supplied is not None:
            expect_failure(binary, name, failures, path, out, key_args(key), ["AAD prefix"])
        print(f"{name:<40} {os.path.getsize(path):>9} bytes")
    return count


def scan_counts(output):
    """The pruning lines of `hb scan --filter`: {"row groups": (read, total, skipped by
    statistics, by Bloom filters, by the page index), "pages": (read, total)}."""
    counts = {}
    for line in output.splitlines():
        words = line.replace(",", " ").replace("(", " ").replace(")", " ").split()
        numbers = [int(w) for w in words if w.isdigit()]
        if line.startswith("row groups:"):
            counts["row groups"] = tuple(numbers[:5])
        elif line.startswith("pages:"):
            counts["pages"] = tuple(numbers[:2])
    return counts


def filtered_reads(work, binary, failures, name, cases):
    """Filtered reads of the encrypted file `name` (footer key FOOTER): the rows equal
    pyarrow's filtered reading, and `hb scan --filter` shows the pruning went through
    the decrypted offset indexes (pages counted) and, per case, the page index or the
    Bloom filters. `cases`: (hb filter, pyarrow filter, "page index" | "bloom-all" | None)."""
    path = work / f"{name}.parquet"
    read_props = pe.create_decryption_properties(FOOTER)
    count = 0
    for text, pa_filter, check in cases:
        label = f"{name} --filter {text!r}"
        expected = pq.read_table(path, decryption_properties=read_props, filters=pa_filter)
        got, error = hb_read(binary, path, work / f"{name}.filtered.arrow", key_args(FOOTER) + ["--filter", text])
        count += 1
        if error:
            failures.add(label, "hb", f"filtered read failed: {error}")
            continue
        compare(label, got, expected, failures, set())
        result = hb(binary, "scan", path, "--filter", text, *key_args(FOOTER))
        if result.returncode != 0:
            failures.add(label, "hb scan", result.stderr.strip())
            continue
        counts = scan_counts(result.stdout)
        groups, pages = counts.get("row groups"), counts.get("pages")
        if not groups or not pages or len(groups) < 5 or len(pages) < 2:
            failures.add(label, "hb scan", f"no pruning counts in {result.stdout!r}")
            continue
        read, total, by_stats, by_bloom, _by_index = groups
        if pages[1] == 0:
            failures.add(label, "hb scan", "no page counted: the encrypted offset indexes were not read")
        if check == "page index" and not (by_stats > 0 and pages[0] < pages[1]):
            failures.add(label, "hb scan", f"expected row groups skipped by statistics and pages by the page index: {counts}")
        if check == "bloom-all" and not (read == 0 and by_bloom == total):
            failures.add(label, "hb scan", f"expected every row group skipped by the Bloom filters: {counts}")
        print(f"{label:<70} {expected.num_rows:>5} rows; row groups {groups}, pages {pages}")
    return count


def pyarrow_filtered_reads(work, binary, failures):
    full = pq.read_table(work / "pa_gcm_v2_index_crc.parquet", decryption_properties=pe.create_decryption_properties(FOOTER))
    sorted_values = full.column("i64_sorted").to_pylist()
    lo, hi = sorted_values[1210], sorted_values[1290]
    i64 = full.column("i64").to_pylist()[1500]
    return filtered_reads(work, binary, failures, "pa_gcm_v2_index_crc", [
        (f"i64_sorted >= {lo} AND i64_sorted < {hi}", [("i64_sorted", ">=", lo), ("i64_sorted", "<", hi)], "page index"),
        (f"i64 = {i64}", [("i64", "=", i64)], None),
    ])


def herringbone_filtered_reads(work, binary, failures):
    # hb_v2_crc_bloom: a Bloom filter on `s` (words and numbers, so 'absent-word' lies
    # between every row group's bounds and only the filter rules it out).
    return filtered_reads(work, binary, failures, "hb_v2_crc_bloom", [
        ("s = 'absent-word'", [("s", "=", "absent-word")], "bloom-all"),
        ("s = 'alpha7'", [("s", "=", "alpha7")], None),
    ])


# --- polars ----------------------------------------------------------------------------

POLARS_COLUMN_KEYS = {"i64": COL1, "s": COL2, "struct.b": COL1}


def polars_frame():
    table = source_table(seed=21, n=ROWS).select(["i32", "i64", "s", "f64", "date", "list_i32", "struct"])
    # polars names struct fields as written: a struct with a leaf `b`.
    frame = pl.from_arrow(table.drop_columns(["struct"]))
    return frame.with_columns(
        pl.struct(a=pl.col("i32") % 7, b=pl.col("s").str.to_uppercase()).alias("struct")
    )


def polars_files(work, binary, failures):
    count = 0
    frame = polars_frame()
    for plaintext in (False, True):
        name = "pl_column_keys" + ("_plaintext_footer" if plaintext else "")
        path = work / f"{name}.parquet"
        props = pl.ParquetEncryptionProperties(
            footer_key=FOOTER, column_keys=POLARS_COLUMN_KEYS, plaintext_footer=plaintext
        )
        frame.write_parquet(path, encryption=props)
        decryption = pl.ParquetDecryptionProperties(footer_key=FOOTER, column_keys=POLARS_COLUMN_KEYS)
        expected = pl.read_parquet(path, decryption=decryption).to_arrow()
        got, error = hb_read(binary, path, work / f"{name}.arrow", key_args(FOOTER, POLARS_COLUMN_KEYS))
        count += 1
        if error:
            failures.add(name, "hb", f"read failed: {error}")
        else:
            compare(name, got, expected, failures, set())
        out = work / f"{name}.fail.arrow"
        # Without the column keys, the columns under them cannot be read ...
        expect_failure(binary, name, failures, path, out, key_args(FOOTER), ["column", "key"])
        # ... a key for a column the file does not have is refused ...
        expect_failure(
            binary, name, failures, path, out, key_args(FOOTER, {**POLARS_COLUMN_KEYS, "nope": COL2}), ["nope"]
        )
        if plaintext:
            # ... and a plaintext footer lets readers without keys read the plaintext columns.
            columns = ["i32", "f64"]
            got, error = hb_read(binary, path, work / f"{name}.plain.arrow", ["--columns", ",".join(columns)])
            count += 1
            if error:
                failures.add(name, "hb", f"plaintext columns without keys: {error}")
            else:
                compare(f"{name} (no keys, {columns})", got, expected.select(columns), failures, set())
        print(f"{name:<40} {os.path.getsize(path):>9} bytes")
    return count


# --- DuckDB ----------------------------------------------------------------------------


def duckdb_files(work, binary, failures):
    con = duckdb.connect()
    # Writing needs a crypto module DuckDB only loads with httpfs (not downloadable here);
    # the built-in one writes the same format.
    con.execute("SET force_mbedtls_unsafe = 'true'")
    count = 0
    for name, key in (("duck_aes128", FOOTER), ("duck_aes256", KEY256)):
        path = work / f"{name}.parquet"
        con.execute(f"PRAGMA add_parquet_key('{name}', '{key.decode()}')")
        con.execute(
            f"""COPY (SELECT range::INTEGER AS i, 'v' || range::VARCHAR AS s,
                       CASE WHEN range % 3 = 0 THEN NULL ELSE range * 0.5 END AS d,
                       [range, range + 1] AS l
                     FROM range({ROWS}))
                TO '{path}' (FORMAT parquet, ENCRYPTION_CONFIG {{footer_key: '{name}'}})"""
        )
        expected = con.execute(
            f"SELECT * FROM read_parquet('{path}', encryption_config = {{footer_key: '{name}'}})"
        ).to_arrow_table()
        got, error = hb_read(binary, path, work / f"{name}.arrow", key_args(key))
        count += 1
        if error:
            failures.add(name, "hb", f"read failed: {error}")
        else:
            compare(name, got, expected, failures, set())
        print(f"{name:<40} {os.path.getsize(path):>9} bytes")
    return count


# --- Herringbone writes ----------------------------------------------------------------

HB_CASES = {
    # name: (extra hb arguments, pyarrow reads it (uniform keys), aad prefix to supply)
    "hb_gcm": (["--footer-key", hexkey(FOOTER)], True, None),
    "hb_ctr": (["--footer-key", hexkey(FOOTER), "--encryption-algorithm", "gcm-ctr"], True, None),
    "hb_gcm_plaintext_footer": (["--footer-key", hexkey(FOOTER), "--plaintext-footer"], True, None),
    "hb_ctr_plaintext_footer_aes256": (
        ["--footer-key", hexkey(KEY256), "--encryption-algorithm", "gcm-ctr", "--plaintext-footer"],
        True,
        None,
    ),
    "hb_aad_stored": (["--footer-key", hexkey(FOOTER), "--aad-prefix", "part-7", "--store-aad-prefix"], True, None),
    "hb_aad_supplied": (["--footer-key", hexkey(FOOTER), "--aad-prefix", "part-8"], True, b"part-8"),
    "hb_v2_crc_bloom": (
        ["--footer-key", hexkey(FOOTER), "--page-version", "2", "--crc", "--bloom-filter", "s", "--page-size", "2048",
         "--row-group-size", "700", "--compression", "zstd"],
        True,
        None,
    ),
    "hb_column_keys": (key_args(FOOTER, {"i64": COL1, "s": COL2}), False, None),
    "hb_column_keys_plaintext_footer_ctr": (
        key_args(FOOTER, {"i64": COL1, "s": COL2}) + ["--plaintext-footer", "--encryption-algorithm", "gcm-ctr"],
        False,
        None,
    ),
}


def herringbone_files(table, work, binary, failures):
    plain = work / "hb_source.parquet"
    pq.write_table(table, plain)
    expected = pq.read_table(plain)
    count = 0
    for name, (args, uniform, supply) in HB_CASES.items():
        path = work / f"{name}.parquet"
        result = hb(binary, "convert", plain, path, *args)
        if result.returncode != 0:
            failures.add(name, "hb", f"write failed: {result.stderr.strip()}")
            continue
        count += 1
        if uniform:
            key = KEY256 if "aes256" in name else FOOTER
            props = pe.create_decryption_properties(key, aad_prefix=supply)
            try:
                again = pq.read_table(path, decryption_properties=props, page_checksum_verification=True)
            except Exception as e:  # noqa: BLE001 - any failure is a finding
                failures.add(name, "pyarrow", f"cannot read Herringbone's file: {e}")
            else:
                compare(f"{name} (pyarrow)", again, expected, failures, set())
        elif "ctr" not in name:
            # polars 2.1 reads AES_GCM_V1 only ("AES_GCM_CTR_V1 ... not yet supported"), and
            # not every column type of the table (decimal256): the columns it maps.
            columns = ["i32", "i64", "s", "f64", "date"]
            decryption = pl.ParquetDecryptionProperties(footer_key=FOOTER, column_keys={"i64": COL1, "s": COL2})
            try:
                again = pl.read_parquet(path, columns=columns, decryption=decryption).to_arrow()
            except Exception as e:  # noqa: BLE001
                failures.add(name, "polars", f"cannot read Herringbone's file: {e}")
            else:
                compare(f"{name} (polars)", again.select(columns), expected.select(columns), failures, set())
        # Herringbone reads its own file back.
        got, error = hb_read(binary, path, work / f"{name}.arrow", args_for_reading(args, supply))
        if error:
            failures.add(name, "hb", f"reading its own file: {error}")
        else:
            compare(f"{name} (hb)", got, expected, failures, set())
        # A flipped byte in the middle of the data: an error, never data. (AES_GCM_CTR_V1
        # does not authenticate page data, by design, and the per-column-key files keep
        # other columns plaintext: only the uniform GCM files are checked.)
        if uniform and "ctr" not in name:
            damaged = work / f"{name}.damaged.parquet"
            data = bytearray(path.read_bytes())
            data[len(data) // 3] ^= 0x01
            damaged.write_bytes(bytes(data))
            expect_failure(
                binary, name, failures, damaged, work / f"{name}.damaged.arrow", args_for_reading(args, supply), [""]
            )
        print(f"{name:<40} {os.path.getsize(path):>9} bytes")
    return count


def args_for_reading(write_args, supply):
    """The key arguments of a write, for reading the file back."""
    out = []
    i = 0
    while i < len(write_args):
        if write_args[i] in ("--footer-key", "--column-key", "--aad-prefix"):
            out += write_args[i : i + 2]
            i += 2
        else:
            i += 1
    return out


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = sys.argv[1]
    work = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tempfile.mkdtemp(prefix="encryption-"))
    work.mkdir(parents=True, exist_ok=True)
    if not hasattr(pe, "create_encryption_properties"):
        print(f"pyarrow {pa.__version__} has no direct-key encryption API (needs 26 or later)", file=sys.stderr)
        return 2
    failures = Failures()
    table = source_table(seed=5, n=ROWS)
    reads = pyarrow_files(table, work, binary, failures)
    reads += pyarrow_filtered_reads(work, binary, failures)
    reads += polars_files(work, binary, failures)
    reads += duckdb_files(work, binary, failures)
    writes = herringbone_files(table, work, binary, failures)
    reads += herringbone_filtered_reads(work, binary, failures)
    print(
        f"encryption interop: {reads} peer files read by Herringbone, {writes} Herringbone files "
        f"read by pyarrow / polars, {len(failures.lines)} failures"
    )
    return failures.exit_status()


if __name__ == "__main__":
    sys.exit(main())
