#!/usr/bin/env python3
"""Regenerates the pyarrow oracles of the parquet-testing corpus.

    python scripts/make_oracles.py CORPUS_ROOT OUT_DIR [RELATIVE_PATH ...]

For every `*.parquet` and `*.parquet.encrypted` file under CORPUS_ROOT (the folder
holding `data/`, `bad_data/`, `shredded_variant/`, ...) it writes
`OUT_DIR/<relative path>.json`: what pyarrow reads from the file, every value in the
canonical JSON form of `testdata/parquet-testing-expected/FORMAT.md`, per-column
SHA-256 checksums over every row, and DuckDB's reading as a second opinion when pyarrow
cannot read a plain file. With RELATIVE_PATH arguments only those files are done.

The peers are pinned in scripts/requirements.txt (pyarrow 26.0.1, duckdb 2.0.0); the
script refuses to run with other versions, since the oracles record one reader's view.
Each file is read in a child process (`--one`): pyarrow aborts the interpreter on some
malformed inputs, and a crash is recorded in `child_crash` instead of ending the run.
"""

import base64
import decimal
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

PYARROW_VERSION = "26.0.1"
DUCKDB_VERSION = "2.0.0"
ORACLE_FORMAT_VERSION = 1
# Every row is stored up to this many decoded rows, else the first STORED_PREFIX rows.
STORE_ALL_UP_TO = 2000
STORED_PREFIX = 1000
# Stored rows stop before their compact JSON would pass this many bytes.
ROW_BYTES_BUDGET = 1_500_000
# pyarrow's `read_table` cannot return a nested column over 2 GiB as one chunk; such
# files are read again as a stream of one-row batches.
NESTED_CHUNKED = "Nested data conversions not implemented for chunked array outputs"

# The encryption keys of the corpus (upstream data/README.md documents them; the key
# bytes are the ASCII characters). pyarrow's Python API takes a footer key only.
FOOTER_KEY_AES128 = "0123456789012345"
FOOTER_KEY_AES256 = "01234567890123456789012345678901"
# The AAD prefix of the files that do not store it.
AAD_PREFIX = "tester"
# The in-memory KMS master keys of external_key_material_java (parquet-mr's InMemoryKMS).
KMS_MASTER_KEYS = {"kf": "0123456789012345", "kc1": "1234567890123450", "kc2": "1234567890123451"}
FOOTER_KEY_METHOD = (
    "pyarrow create_decryption_properties (footer key only; "
    "pyarrow's Python API cannot supply per-column keys)"
)
KMS_METHOD = "CryptoFactory + in-memory KMS (external key material file)"


def error_text(e):
    return f"{type(e).__name__}: {e}"


# ---------------------------------------------------------------------------------------
# Canonical values (FORMAT.md, "Canonical value encoding").


def canon_int(v):
    if v is None:  # a null slot of a temporal array viewed as integers
        return None
    return v if -(2**53) <= v <= 2**53 else str(v)


def canon_float(x):
    x = float(x)
    if x != x:
        return "NaN"
    return repr(x)  # "inf", "-inf", "1.5", "1e+16": Python's shortest round-trip text


def canon_decimal(d, scale):
    with decimal.localcontext() as ctx:
        ctx.prec = 200
        unscaled = int(d.scaleb(scale))
    if scale <= 0:
        return str(unscaled * 10 ** (-scale))
    sign = "-" if unscaled < 0 else ""
    digits = str(abs(unscaled)).rjust(scale + 1, "0")
    return f"{sign}{digits[:-scale]}.{digits[-scale:]}"


UNITS = {"s": "s", "ms": "ms", "us": "us", "ns": "ns"}


def canon_array(arr):
    """The canonical JSON value of every slot of a pyarrow Array, as a list."""
    import pyarrow as pa
    import pyarrow.types as t

    typ = arr.type
    n = len(arr)
    valid = arr.is_valid().to_pylist() if n else []

    def masked(values):
        return [v if ok else None for v, ok in zip(values, valid)]

    if isinstance(typ, pa.ExtensionType):
        return canon_array(arr.storage)
    if t.is_dictionary(typ):
        return canon_array(arr.dictionary_decode())
    if t.is_null(typ):
        return [None] * n
    if t.is_boolean(typ):
        return arr.to_pylist()
    if t.is_integer(typ):
        return [None if v is None else canon_int(v) for v in arr.to_pylist()]
    if t.is_floating(typ):
        return [None if v is None else canon_float(v) for v in arr.to_pylist()]
    if t.is_decimal(typ):
        return [None if v is None else canon_decimal(v, typ.scale) for v in arr.to_pylist()]
    if t.is_string(typ) or t.is_large_string(typ) or t.is_string_view(typ):
        return arr.to_pylist()
    if (
        t.is_binary(typ)
        or t.is_large_binary(typ)
        or t.is_binary_view(typ)
        or t.is_fixed_size_binary(typ)
    ):
        return [None if v is None else {"hex": v.hex()} for v in arr.to_pylist()]
    if t.is_date32(typ):
        raw = arr.view(pa.int32()).to_pylist()
        return masked([{"v": canon_int(v), "unit": "day"} for v in raw])
    if t.is_date64(typ):
        raw = arr.view(pa.int64()).to_pylist()
        return masked([{"v": canon_int(v), "unit": "ms"} for v in raw])
    if t.is_time32(typ):
        raw = arr.view(pa.int32()).to_pylist()
        return masked([{"v": canon_int(v), "unit": UNITS[typ.unit]} for v in raw])
    if t.is_time64(typ) or t.is_timestamp(typ) or t.is_duration(typ):
        raw = arr.view(pa.int64()).to_pylist()
        return masked([{"v": canon_int(v), "unit": UNITS[typ.unit]} for v in raw])
    if t.is_interval(typ):
        return [
            None if v is None else {"months": v.months, "days": v.days, "nanos": v.nanoseconds}
            for v in arr.to_pylist()
        ]
    if t.is_map(typ):
        offsets = arr.offsets.to_pylist()
        entries = arr.values
        keys = canon_array(entries.field(0))
        items = canon_array(entries.field(1))
        return masked(
            [
                [[keys[j], items[j]] for j in range(offsets[i], offsets[i + 1])]
                for i in range(n)
            ]
        )
    if t.is_list(typ) or t.is_large_list(typ):
        offsets = arr.offsets.to_pylist()
        values = canon_array(arr.values)
        return masked([values[offsets[i] : offsets[i + 1]] for i in range(n)])
    if t.is_list_view(typ) or t.is_large_list_view(typ):
        offsets = arr.offsets.to_pylist()
        sizes = arr.sizes.to_pylist()
        values = canon_array(arr.values)
        return masked([values[offsets[i] : offsets[i] + sizes[i]] for i in range(n)])
    if t.is_fixed_size_list(typ):
        size = typ.list_size
        values = canon_array(arr.values)
        start = arr.offset
        return masked(
            [values[(start + i) * size : (start + i + 1) * size] for i in range(n)]
        )
    if t.is_struct(typ):
        names = [typ.field(i).name for i in range(typ.num_fields)]
        children = [canon_array(child) for child in arr.flatten()]
        return masked([{name: col[i] for name, col in zip(names, children)} for i in range(n)])
    raise TypeError(f"no canonical form for Arrow type {typ}")


def compact(value):
    """Compact canonical JSON (FORMAT.md, "Column checksum")."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def compact_pieces(value, piece=1 << 24):
    """`compact(value)` as a sequence of strings, long strings in pieces of `piece`
    characters (JSON escapes each character alone, so the pieces join up exactly)."""
    if isinstance(value, str):
        if len(value) <= piece:
            yield compact(value)
            return
        yield '"'
        for start in range(0, len(value), piece):
            yield compact(value[start : start + piece])[1:-1]
        yield '"'
    elif isinstance(value, list):
        yield "["
        for i, item in enumerate(value):
            if i:
                yield ","
            yield from compact_pieces(item, piece)
        yield "]"
    elif isinstance(value, dict):
        yield "{"
        for i, (k, item) in enumerate(value.items()):
            yield ("," if i else "") + compact(k) + ":"
            yield from compact_pieces(item, piece)
        yield "}"
    else:
        yield compact(value)


def schema_text(schema):
    return schema.to_string(show_schema_metadata=False, show_field_metadata=True)


def metadata_keys(schema):
    return sorted(k.decode("utf-8", "replace") for k in (schema.metadata or {}))


def describe(schema, batches):
    """Columns (name, type, top-level nulls, checksum over every row) and the stored rows
    of a stream of record batches, one batch in memory at a time: a corpus file holds
    rows of over 1 GiB, which only their checksum covers."""
    names = schema.names
    hashers = [hashlib.sha256() for _ in names]
    nulls = [0 for _ in names]
    # Row prefixes in JSON need `"name":` and the separators around the values.
    overhead = 2 + sum(len(compact(n).encode("utf-8")) + 1 for n in names) + max(len(names) - 1, 0)
    rows, used, by_size, total = [], 0, False, 0
    for batch in batches:
        values = [canon_array(col) for col in batch.columns]
        for i, col in enumerate(batch.columns):
            nulls[i] += col.null_count
        for r in range(batch.num_rows):
            size = overhead
            for i, column in enumerate(values):
                for text in compact_pieces(column[r]):
                    text = text.encode("utf-8")
                    hashers[i].update(text)
                    size += len(text)
                hashers[i].update(b"\n")
            if total < STORE_ALL_UP_TO and not by_size:
                if used + size > ROW_BYTES_BUDGET:
                    by_size = True
                else:
                    used += size
                    rows.append({name: column[r] for name, column in zip(names, values)})
            total += 1
        del values
    if total > STORE_ALL_UP_TO:
        by_size = by_size and len(rows) < STORED_PREFIX
        rows = rows[:STORED_PREFIX]
    columns = [
        {"name": name, "arrow_type": str(field.type), "null_count": n, "checksum": h.hexdigest()}
        for name, field, n, h in zip(names, schema, nulls, hashers)
    ]
    stored = {
        "rows_stored": len(rows),
        "rows_truncated": len(rows) < total,
        "rows_truncated_by_size": by_size,
    }
    return columns, stored, rows, total


# ---------------------------------------------------------------------------------------
# Decryption.


def _aes_sbox():
    """The AES S-box, computed from its definition (inverse in GF(2^8), then the affine map)."""
    sbox = [0] * 256
    p = q = 1
    while True:
        # p runs over the multiplicative group by powers of 3, q over its inverses.
        p = p ^ ((p << 1) & 0xFF) ^ (0x1B if p & 0x80 else 0)
        q ^= q << 1
        q ^= q << 2
        q ^= q << 4
        q &= 0xFF
        if q & 0x80:
            q ^= 0x09
        rot = lambda x, k: ((x << k) | (x >> (8 - k))) & 0xFF  # noqa: E731
        sbox[p] = q ^ rot(q, 1) ^ rot(q, 2) ^ rot(q, 3) ^ rot(q, 4) ^ 0x63
        if p == 1:
            break
    sbox[0] = 0x63
    return sbox


class Aes:
    """AES block encryption (FIPS-197), 128-, 192- or 256-bit keys; encryption only."""

    SBOX = _aes_sbox()

    def __init__(self, key):
        if len(key) not in (16, 24, 32):
            raise ValueError(f"AES key of {len(key)} bytes")
        nk = len(key) // 4
        self.rounds = nk + 6
        words = [list(key[4 * i : 4 * i + 4]) for i in range(nk)]
        rcon = 1
        for i in range(nk, 4 * (self.rounds + 1)):
            w = list(words[i - 1])
            if i % nk == 0:
                w = [self.SBOX[b] for b in w[1:] + w[:1]]
                w[0] ^= rcon
                rcon = ((rcon << 1) ^ (0x1B if rcon & 0x80 else 0)) & 0xFF
            elif nk > 6 and i % nk == 4:
                w = [self.SBOX[b] for b in w]
            words.append([a ^ b for a, b in zip(words[i - nk], w)])
        self.round_keys = [sum(words[4 * r : 4 * r + 4], []) for r in range(self.rounds + 1)]

    @staticmethod
    def _xtime(b):
        return ((b << 1) ^ (0x1B if b & 0x80 else 0)) & 0xFF

    def encrypt_block(self, block):
        s = [a ^ b for a, b in zip(block, self.round_keys[0])]
        for r in range(1, self.rounds + 1):
            s = [self.SBOX[b] for b in s]
            # ShiftRows: the state is column-major, byte (row, col) at 4 * col + row.
            s = [s[4 * ((col + row) % 4) + row] for col in range(4) for row in range(4)]
            if r != self.rounds:
                mixed = []
                for col in range(4):
                    a = s[4 * col : 4 * col + 4]
                    total = a[0] ^ a[1] ^ a[2] ^ a[3]
                    mixed += [a[i] ^ total ^ self._xtime(a[i] ^ a[(i + 1) % 4]) for i in range(4)]
                s = mixed
            s = [a ^ b for a, b in zip(s, self.round_keys[r])]
        return bytes(s)


def aes_gcm_decrypt(key, nonce, ciphertext, tag, aad):
    """AES-GCM decryption with its tag checked (NIST SP 800-38D), to unwrap KMS keys.

    Python's standard library has no AES and the pinned peers expose none; the keys
    unwrapped here are 16 or 32 bytes, so a plain implementation is fast enough."""
    cipher = Aes(key)
    h = int.from_bytes(cipher.encrypt_block(bytes(16)), "big")

    def gmul(x, y):
        z, v = 0, y
        for bit in range(127, -1, -1):
            if (x >> bit) & 1:
                z ^= v
            v = (v >> 1) ^ (0xE1 << 120) if v & 1 else v >> 1
        return z

    def ghash(data):
        y = 0
        for i in range(0, len(data), 16):
            y = gmul(y ^ int.from_bytes(data[i : i + 16], "big"), h)
        return y

    if len(nonce) != 12:
        raise ValueError("Parquet key wrapping uses 96-bit nonces")
    plain = bytearray()
    for k, i in enumerate(range(0, len(ciphertext), 16)):
        # Counter block k of the data is J0 + 1 + k, with J0 = nonce || 1.
        stream = cipher.encrypt_block(nonce + (2 + k).to_bytes(4, "big"))
        plain += bytes(a ^ b for a, b in zip(ciphertext[i : i + 16], stream))

    def pad(b):
        return b + bytes(-len(b) % 16)

    lengths = (len(aad) * 8).to_bytes(8, "big") + (len(ciphertext) * 8).to_bytes(8, "big")
    s = ghash(pad(aad) + pad(ciphertext) + lengths)
    j0 = cipher.encrypt_block(nonce + (1).to_bytes(4, "big"))
    if (s ^ int.from_bytes(j0, "big")).to_bytes(16, "big") != tag:
        raise ValueError("AES-GCM tag mismatch: wrong master key")
    return bytes(plain)


def kms_decryption_properties(path):
    import pyarrow.parquet.encryption as pe

    class InMemoryKms(pe.KmsClient):
        def __init__(self, config):
            super().__init__()

        def wrap_key(self, key_bytes, master_key_identifier):
            raise NotImplementedError("reading only")

        def unwrap_key(self, wrapped_key, master_key_identifier):
            blob = base64.b64decode(wrapped_key)
            master = KMS_MASTER_KEYS[master_key_identifier].encode("ascii")
            return aes_gcm_decrypt(
                master, blob[:12], blob[12:-16], blob[-16:], master_key_identifier.encode("ascii")
            )

    factory = pe.CryptoFactory(lambda config: InMemoryKms(config))
    properties = factory.file_decryption_properties(
        pe.KmsConnectionConfig(), pe.DecryptionConfiguration(), parquet_file_path=str(path)
    )
    return properties, {"method": KMS_METHOD, "master_keys_ascii": dict(KMS_MASTER_KEYS)}


def decryption_for(relative, path):
    """pyarrow decryption properties for an encrypted corpus file, and how they were made."""
    import pyarrow.parquet.encryption as pe

    if not relative.endswith(".encrypted"):
        return None, None
    if "external_key_material" in relative:
        return kms_decryption_properties(path)
    footer_key = FOOTER_KEY_AES256 if "/aes256/" in relative else FOOTER_KEY_AES128
    # Given to every file written with one (stored in the file or not).
    aad_prefix = AAD_PREFIX if "_aad" in relative else None
    properties = pe.create_decryption_properties(
        footer_key.encode("ascii"),
        aad_prefix=None if aad_prefix is None else aad_prefix.encode("ascii"),
    )
    return properties, {
        "method": FOOTER_KEY_METHOD,
        "footer_key_ascii": footer_key,
        "aad_prefix": aad_prefix,
    }


# ---------------------------------------------------------------------------------------
# One file.


def read_batches(path, decryption, checksums=False):
    """The file's schema, its batches and how it is read: `pq.read_table`, or one-row
    batches where that cannot return a nested column over 2 GiB (then also the error)."""
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(
            path, decryption_properties=decryption, page_checksum_verification=checksums
        )
        return table.schema, table.to_batches(), "pq.read_table", None
    except Exception as e:  # noqa: BLE001 - every reader error is recorded
        if NESTED_CHUNKED not in str(e):
            raise
        first_error = e
    pf = pq.ParquetFile(path, decryption_properties=decryption, page_checksum_verification=checksums)
    return (
        pf.schema_arrow,
        pf.iter_batches(batch_size=1),
        "ParquetFile.iter_batches(batch_size=1)",
        first_error,
    )


def duckdb_opinion(path):
    import duckdb

    out = {"duckdb_version": duckdb.__version__}
    try:
        con = duckdb.connect()
        table = con.execute("SELECT * FROM read_parquet(?)", [str(path)]).to_arrow_table()
    except Exception as e:  # noqa: BLE001
        out.update(readable_by_duckdb=False, error=error_text(e))
        return out
    columns, stored, rows, _ = describe(table.schema, table.to_batches())
    out.update(readable_by_duckdb=True, error=None)
    out.update(stored)
    out.update(num_rows=table.num_rows, arrow_schema=schema_text(table.schema), columns=columns)
    out["rows"] = rows
    return out


def oracle(relative, path):
    import pyarrow
    import pyarrow.parquet as pq

    decryption, decryption_note = decryption_for(relative, path)
    out = {
        "file": relative,
        "oracle_format_version": ORACLE_FORMAT_VERSION,
        "pyarrow_version": pyarrow.__version__,
        "readable_by_pyarrow": False,
        "error": None,
        "read_method": None,
        "read_table_error": None,
        "metadata_error": None,
        "num_rows": None,
        "num_row_groups": None,
        "row_group_num_rows": None,
        "created_by": None,
        "arrow_schema": None,
        "arrow_schema_metadata_keys": None,
        "parquet_schema": None,
        "decryption": decryption_note,
        "page_checksum_verification": None,
        "columns": [],
    }
    pf = None
    try:
        pf = pq.ParquetFile(path, decryption_properties=decryption)
        meta = pf.metadata
        schema = pf.schema_arrow
        out.update(
            num_rows=meta.num_rows,
            num_row_groups=meta.num_row_groups,
            row_group_num_rows=[meta.row_group(i).num_rows for i in range(meta.num_row_groups)],
            created_by=meta.created_by,
            arrow_schema=schema_text(schema),
            arrow_schema_metadata_keys=metadata_keys(schema),
            parquet_schema=str(pf.schema).split("\n", 1)[1],
        )
    except Exception as e:  # noqa: BLE001
        out["metadata_error"] = error_text(e)
        pf = None

    described = None
    try:
        schema, batches, method, read_table_error = read_batches(path, decryption)
        if read_table_error is not None:
            out["read_table_error"] = error_text(read_table_error)
        try:
            described = describe(schema, batches)
        except Exception as e:  # noqa: BLE001
            if read_table_error is None:
                raise
            out["error"] = out["iter_batches_error"] = error_text(e)
    except Exception as e:  # noqa: BLE001
        out["error"] = out["read_table_error"] = error_text(e)

    if described is not None:
        columns, stored, rows, total = described
        out["readable_by_pyarrow"] = True
        out["read_method"] = method
        out["arrow_schema"] = schema_text(schema)
        out["arrow_schema_metadata_keys"] = metadata_keys(schema)
        try:
            for _ in read_batches(path, decryption, checksums=True)[1]:
                pass
            out["page_checksum_verification"] = {"ok": True, "error": None}
        except Exception as e:  # noqa: BLE001
            out["page_checksum_verification"] = {"ok": False, "error": error_text(e)}
        out["columns"] = columns
        out.update(stored)
        out["rows_total_decoded"] = total
        out["rows"] = rows
        return out

    # Unreadable: what each top-level column gives alone.
    if pf is not None:
        try:
            for field in pf.schema_arrow:
                entry = {"name": field.name, "arrow_type": str(field.type)}
                try:
                    table = pq.read_table(
                        path, columns=[field.name], decryption_properties=decryption
                    )
                    (column,), _, _, _ = describe(table.schema, table.to_batches())
                    column["read_error"] = None
                    entry = column
                except Exception as e:  # noqa: BLE001
                    entry.update(null_count=None, checksum=None, read_error=error_text(e))
                out["columns"].append(entry)
        except Exception as e:  # noqa: BLE001
            out["per_column_error"] = error_text(e)
    out.update(rows_stored=0, rows_truncated=False, rows_truncated_by_size=False)
    if decryption_note is None:
        out["duckdb_fallback"] = duckdb_opinion(path)
    out["rows"] = []
    return out


# ---------------------------------------------------------------------------------------
# Driver.


def corpus_files(root):
    files = []
    for dirpath, _, names in os.walk(root):
        for name in names:
            if name.endswith(".parquet") or name.endswith(".parquet.encrypted"):
                files.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(f.replace(os.sep, "/") for f in files)


def check_versions():
    import duckdb
    import pyarrow

    found = {"pyarrow": pyarrow.__version__, "duckdb": duckdb.__version__}
    wanted = {"pyarrow": PYARROW_VERSION, "duckdb": DUCKDB_VERSION}
    if found != wanted:
        sys.exit(
            f"make_oracles.py: needs {wanted} (scripts/requirements.txt), found {found}; "
            "install the pinned versions: pip install -r scripts/requirements.txt"
        )


def pretty(value, level=0, key=None):
    """JSON indented by two spaces, except that each stored row is one compact line."""
    pad = "  " * (level + 1)
    if isinstance(value, dict) and value:
        items = [
            f"{pad}{json.dumps(k, ensure_ascii=False)}: {pretty(v, level + 1, k)}"
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + "  " * level + "}"
    if isinstance(value, list) and value:
        if key == "rows":
            items = [pad + compact(v) for v in value]
        else:
            items = [pad + pretty(v, level + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + "  " * level + "]"
    return json.dumps(value, ensure_ascii=False)


def run_one(root, relative):
    # Paths as the reader sees them: `<corpus folder name>/<relative>` from the corpus's
    # parent, so error messages that quote the path do not depend on where it lives.
    root = Path(root).resolve()
    os.chdir(root.parent)
    path = Path(root.name) / relative
    sys.stdout.write(pretty(oracle(relative, path)))


def main(argv):
    if len(argv) >= 3 and argv[0] == "--one":
        run_one(argv[1], argv[2])
        return
    if len(argv) < 2:
        sys.exit(__doc__)
    check_versions()
    root, out_dir = Path(argv[0]).resolve(), Path(argv[1]).resolve()
    files = argv[2:] or corpus_files(root)
    for relative in files:
        result = subprocess.run(
            [sys.executable, __file__, "--one", str(root), relative],
            capture_output=True,
            text=True,
            cwd=Path(__file__).parent,
        )
        if result.returncode == 0:
            text = result.stdout
        else:
            crash = {
                "file": relative,
                "oracle_format_version": ORACLE_FORMAT_VERSION,
                "pyarrow_version": PYARROW_VERSION,
                "readable_by_pyarrow": False,
                "error": f"child process exited with status {result.returncode}",
                "child_crash": result.stderr[-2000:],
            }
            text = pretty(crash)
        target = out_dir / f"{relative}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text + "\n", encoding="utf-8")
        print(relative, file=sys.stderr)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main(sys.argv[1:])
