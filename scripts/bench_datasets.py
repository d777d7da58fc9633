"""The benchmark suite's tables: what each holds and how it is made.

Every table is built by DuckDB SQL over `range(rows)` with values derived from
`hash(row, salt)`, so a table is the same on every run and every machine without a
random-number library, then handed to the writers as an Arrow table (the driver keeps it
as an Arrow IPC file). TPC-H lineitem comes from `tpchgen-cli`.

Used by scripts/bench_suite.py; run that script, not this module.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

# Bump when a table's contents or a writer's settings change: the driver regenerates
# files whose manifest has another version.
GENERATOR_VERSION = 1

# The writers, each with its own default settings (see `write_with` in bench_suite.py).
ALL_WRITERS = ("arrow-rs", "pyarrow", "duckdb", "polars")

# tpchgen-cli beside the Python that runs the driver (the project's venv has both).
TPCHGEN = str(Path(sys.executable).with_name("tpchgen-cli"))


@dataclass
class Dataset:
    name: str
    description: str
    # rows for a full run and for --quick
    rows: int
    quick_rows: int
    writers: tuple = ALL_WRITERS
    # arrow-rs only: DELTA encodings and data page v2 (not a default: said in the table)
    delta: bool = False
    # Row groups to cut the file into (the one non-default setting of the wide file)
    row_groups: int | None = None
    notes: list = field(default_factory=list)

    def build(self, con, rows: int, scratch: Path):
        """The table as a pyarrow.Table (DuckDB connection `con`, `rows` rows)."""
        return BUILDERS[self.name](con, rows, scratch)


def u(salt: int) -> str:
    """A uniform double in [0, 1) from the row number and a salt."""
    return f"((hash(i, {salt}) % 1000000007)::DOUBLE / 1000000007.0)"


def h(salt: int, modulus: int) -> str:
    """A uniform integer in [0, modulus)."""
    return f"((hash(i, {salt}) % {modulus})::BIGINT)"


def skewed(salt: int, modulus: int, power: float = 3.0) -> str:
    """An integer in [0, modulus) heavily skewed towards 0 (zipf-like)."""
    return f"floor(pow({u(salt)}, {power}) * {modulus})"


def rand64(salt: int) -> str:
    """A uniform signed 64-bit integer (of 63 random bits)."""
    return f"((hash(i, {salt}) >> 1)::BIGINT - 4611686018427387904)"


def nullable(salt: int, expr: str, fraction: float = 0.5) -> str:
    return f"CASE WHEN {u(salt)} < {fraction} THEN NULL ELSE {expr} END"


def url(salt: int, distinct: int = 200_000) -> str:
    """URLs from a pool of `distinct`, skewed like web logs (a few pages very often)."""
    k = skewed(salt, distinct, 2.5)
    return (
        f"('https://www.site' || ({k}::BIGINT % 997) || '.example.com/catalog/'"
        f" || md5(({k}::BIGINT)::VARCHAR)[1:10] || '/item?id=' || ({k}::BIGINT))"
    )


def words(salt: int, count: int, vocabulary: int = 500) -> str:
    """`count` words out of a vocabulary, joined by spaces (titles, search phrases)."""
    parts = [f"'w' || ({skewed(salt + j, vocabulary, 2.0)}::BIGINT)" for j in range(count)]
    return " || ' ' || ".join(parts)


def mostly_empty(salt: int, expr: str, filled: float = 0.1) -> str:
    return f"CASE WHEN {u(salt)} < {filled} THEN {expr} ELSE '' END"


def select(con, rows: int, columns: list[tuple[str, str]]):
    body = ",\n  ".join(f"{expr} AS \"{name}\"" for name, expr in columns)
    return con.sql(f"SELECT\n  {body}\nFROM range({rows}) t(i)").to_arrow_table()


def build_lineitem(con, rows: int, scratch: Path):
    """TPC-H lineitem from tpchgen-cli at the scale factor that gives `rows` rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    scale = max(rows / 6_001_215, 0.001)
    with tempfile.TemporaryDirectory(dir=scratch) as out:
        subprocess.run(
            [
                TPCHGEN,
                "parquet",
                "-s",
                f"{scale:g}",
                "--tables",
                "lineitem",
                "-c",
                "UNCOMPRESSED",
                "--output-dir",
                out,
            ],
            check=True,
            capture_output=True,
        )
        table = pq.read_table(Path(out) / "lineitem.parquet")
    # Plain Arrow types for every writer: tpchgen's string views become strings.
    fields = [
        pa.field(f.name, pa.string(), f.nullable)
        if pa.types.is_string_view(f.type) or pa.types.is_large_string(f.type)
        else f
        for f in table.schema
    ]
    return table.cast(pa.schema(fields)).combine_chunks()


# ClickBench `hits`: its 105 columns and their types, with distributions like the real
# table's (mostly-zero flags, skewed ids, URLs and titles from pools, many mostly-empty
# strings, event times in order).
HITS_COLUMNS = [
    ("WatchID", "BIGINT", "rand64"), ("JavaEnable", "SMALLINT", "flag"),
    ("Title", "VARCHAR", "title"), ("GoodEvent", "SMALLINT", "flag1"),
    ("EventTime", "TIMESTAMP", "time"), ("EventDate", "DATE", "date"),
    ("CounterID", "INTEGER", "skew:20000"), ("ClientIP", "INTEGER", "rand32"),
    ("RegionID", "INTEGER", "skew:10000"), ("UserID", "BIGINT", "skew64:2000000"),
    ("CounterClass", "SMALLINT", "small:3"), ("OS", "SMALLINT", "skew:100"),
    ("UserAgent", "SMALLINT", "skew:100"), ("URL", "VARCHAR", "url"),
    ("Referer", "VARCHAR", "referer"), ("IsRefresh", "SMALLINT", "flag"),
    ("RefererCategoryID", "SMALLINT", "skew:20"), ("RefererRegionID", "INTEGER", "skew:10000"),
    ("URLCategoryID", "SMALLINT", "skew:20"), ("URLRegionID", "INTEGER", "skew:10000"),
    ("ResolutionWidth", "SMALLINT", "skew:3000"), ("ResolutionHeight", "SMALLINT", "skew:2000"),
    ("ResolutionDepth", "SMALLINT", "small:40"), ("FlashMajor", "SMALLINT", "small:20"),
    ("FlashMinor", "SMALLINT", "small:20"), ("FlashMinor2", "VARCHAR", "code"),
    ("NetMajor", "SMALLINT", "small:10"), ("NetMinor", "SMALLINT", "small:10"),
    ("UserAgentMajor", "SMALLINT", "skew:100"), ("UserAgentMinor", "VARCHAR", "code"),
    ("CookieEnable", "SMALLINT", "flag1"), ("JavascriptEnable", "SMALLINT", "flag1"),
    ("IsMobile", "SMALLINT", "flag"), ("MobilePhone", "SMALLINT", "skew:50"),
    ("MobilePhoneModel", "VARCHAR", "empty:code"), ("Params", "VARCHAR", "empty:params"),
    ("IPNetworkID", "INTEGER", "skew:500000"), ("TraficSourceID", "SMALLINT", "small:10"),
    ("SearchEngineID", "SMALLINT", "skew:50"), ("SearchPhrase", "VARCHAR", "empty:phrase"),
    ("AdvEngineID", "SMALLINT", "skew:30"), ("IsArtifical", "SMALLINT", "flag"),
    ("WindowClientWidth", "SMALLINT", "skew:3000"), ("WindowClientHeight", "SMALLINT", "skew:2000"),
    ("ClientTimeZone", "SMALLINT", "small:24"), ("ClientEventTime", "TIMESTAMP", "time"),
    ("SilverlightVersion1", "SMALLINT", "small:6"), ("SilverlightVersion2", "SMALLINT", "small:10"),
    ("SilverlightVersion3", "INTEGER", "skew:100000"), ("SilverlightVersion4", "SMALLINT", "small:100"),
    ("PageCharset", "VARCHAR", "charset"), ("CodeVersion", "INTEGER", "skew:1000"),
    ("IsLink", "SMALLINT", "flag"), ("IsDownload", "SMALLINT", "flag"),
    ("IsNotBounce", "SMALLINT", "flag"), ("FUniqID", "BIGINT", "rand64"),
    ("OriginalURL", "VARCHAR", "empty:url"), ("HID", "INTEGER", "rand32"),
    ("IsOldCounter", "SMALLINT", "flag"), ("IsEvent", "SMALLINT", "flag"),
    ("IsParameter", "SMALLINT", "flag"), ("DontCountHits", "SMALLINT", "flag"),
    ("WithHash", "SMALLINT", "flag"), ("HitColor", "VARCHAR", "color"),
    ("LocalEventTime", "TIMESTAMP", "time"), ("Age", "SMALLINT", "small:80"),
    ("Sex", "SMALLINT", "small:3"), ("Income", "SMALLINT", "small:5"),
    ("Interests", "SMALLINT", "skew:30000"), ("Robotness", "SMALLINT", "flag"),
    ("RemoteIP", "INTEGER", "rand32"), ("WindowName", "INTEGER", "skew:100000"),
    ("OpenerName", "INTEGER", "skew:100000"), ("HistoryLength", "SMALLINT", "skew:100"),
    ("BrowserLanguage", "VARCHAR", "lang"), ("BrowserCountry", "VARCHAR", "lang"),
    ("SocialNetwork", "VARCHAR", "empty:code"), ("SocialAction", "VARCHAR", "empty:code"),
    ("HTTPError", "SMALLINT", "flag"), ("SendTiming", "INTEGER", "skew:10000"),
    ("DNSTiming", "INTEGER", "skew:1000"), ("ConnectTiming", "INTEGER", "skew:1000"),
    ("ResponseStartTiming", "INTEGER", "skew:10000"), ("ResponseEndTiming", "INTEGER", "skew:10000"),
    ("FetchTiming", "INTEGER", "skew:10000"), ("SocialSourceNetworkID", "SMALLINT", "small:10"),
    ("SocialSourcePage", "VARCHAR", "empty:url"), ("ParamPrice", "BIGINT", "skew64:100000"),
    ("ParamOrderID", "VARCHAR", "empty:code"), ("ParamCurrency", "VARCHAR", "currency"),
    ("ParamCurrencyID", "SMALLINT", "small:5"), ("OpenstatServiceName", "VARCHAR", "empty:code"),
    ("OpenstatCampaignID", "VARCHAR", "empty:code"), ("OpenstatAdID", "VARCHAR", "empty:code"),
    ("OpenstatSourceID", "VARCHAR", "empty:code"), ("UTMSource", "VARCHAR", "empty:code"),
    ("UTMMedium", "VARCHAR", "empty:code"), ("UTMCampaign", "VARCHAR", "empty:code"),
    ("UTMContent", "VARCHAR", "empty:code"), ("UTMTerm", "VARCHAR", "empty:phrase"),
    ("FromTag", "VARCHAR", "empty:code"), ("HasGCLID", "SMALLINT", "flag"),
    ("RefererHash", "BIGINT", "rand64"), ("URLHash", "BIGINT", "rand64"),
    ("CLID", "INTEGER", "skew:1000"),
]


def hits_expr(salt: int, sql_type: str, kind: str) -> str:
    base, _, arg = kind.partition(":")
    strings = {
        "title": words(salt, 6, 2000),
        "url": url(salt),
        "phrase": words(salt, 3, 5000),
        "code": f"'c' || ({skewed(salt, 300)}::BIGINT)",
        "params": f"'p=' || ({skewed(salt, 5000)}::BIGINT)",
    }
    if base == "rand64":
        expr = rand64(salt)
    elif base == "rand32":
        expr = f"(hash(i, {salt}) % 4294967296)::BIGINT - 2147483648"
    elif base == "flag":
        expr = f"CASE WHEN {u(salt)} < 0.05 THEN 1 ELSE 0 END"
    elif base == "flag1":
        expr = f"CASE WHEN {u(salt)} < 0.95 THEN 1 ELSE 0 END"
    elif base in ("skew", "skew64"):
        expr = skewed(salt, int(arg))
    elif base == "small":
        expr = h(salt, int(arg))
    elif base == "time":
        expr = f"TIMESTAMP '2013-07-01 00:00:00' + to_seconds((i // 4)::BIGINT + {h(salt, 3)}::BIGINT)"
    elif base == "date":
        expr = "DATE '2013-07-01' + (i * 31 // 1000000)::INTEGER"
    elif base in strings:
        expr = strings[base]
    elif base == "referer":
        expr = mostly_empty(salt, url(salt + 1, 100_000), 0.6)
    elif base == "empty":
        expr = mostly_empty(salt, strings[arg], 0.1)
    elif base == "charset":
        expr = f"['utf-8', 'windows-1251', 'koi8-r', ''][{h(salt, 4)} + 1]"
    elif base == "color":
        expr = f"['F', 'D', 'E', 'T'][{h(salt, 4)} + 1]"
    elif base == "lang":
        expr = f"['ru', 'en', 'uk', 'be', 'kk', 'de', 'tr', ''][{skewed(salt, 8, 2.0)}::BIGINT + 1]"
    elif base == "currency":
        expr = f"['RUB', 'USD', 'EUR', ''][{skewed(salt, 4, 2.0)}::BIGINT + 1]"
    else:
        raise ValueError(f"unknown hits column kind {kind}")
    return f"({expr})::{sql_type}"


def build_hits(con, rows: int, scratch: Path):
    return select(
        con,
        rows,
        [(name, hits_expr(100 + 7 * n, t, kind)) for n, (name, t, kind) in enumerate(HITS_COLUMNS)],
    )


def build_nested(con, rows: int, scratch: Path):
    return select(
        con,
        rows,
        [
            ("id", "i::BIGINT"),
            # list<int64>: 0 to 7 items, some lists null
            ("tags", nullable(1, f"list_transform(range({h(2, 8)}), lambda x: (i * 8 + x)::BIGINT)", 0.1)),
            # struct<a: int32, b: string, c: double>
            (
                "point",
                nullable(
                    3,
                    f"{{'a': ({h(4, 100000)})::INTEGER, 'b': 'name' || ({skewed(5, 5000)}::BIGINT),"
                    f" 'c': {u(6)} * 100}}",
                    0.1,
                ),
            ),
            # map<string, int64>: 0 to 4 entries
            (
                "attributes",
                f"MAP(list_transform(range({h(7, 5)}), lambda x: 'k' || x::VARCHAR),"
                f" list_transform(range({h(7, 5)}), lambda x: (i + x)::BIGINT))",
            ),
            # list<list<int32>>: 0 to 3 lists of 0 to 3 items
            (
                "matrix",
                f"list_transform(range({h(8, 4)}), lambda x: list_transform(range((x + i) % 4),"
                " lambda y: (x * 10 + y)::INTEGER))",
            ),
            # list<string>
            ("names", f"list_transform(range({h(9, 4)}), lambda x: 'n' || ((i + x) % 1000)::VARCHAR)"),
        ],
    )


def build_nullable(con, rows: int, scratch: Path):
    return select(
        con,
        rows,
        [
            ("value", nullable(1, rand64(2))),
            ("label", nullable(3, f"'label-' || ({h(4, 100000)})::VARCHAR || '-' || md5(i::VARCHAR)[1:{h(5, 12)} + 1]")),
        ],
    )


def build_strings(con, rows: int, scratch: Path):
    return select(
        con,
        rows,
        [
            # dictionary-friendly: 100 distinct values
            ("category", f"'category-' || ({skewed(1, 100, 1.5)}::BIGINT)::VARCHAR"),
            # high cardinality: nearly every value distinct, 8-40 bytes
            ("token", f"md5(i::VARCHAR)[1:{h(2, 32)} + 8]"),
            # URLs from a 200,000-page pool
            ("url", url(3)),
        ],
    )


def build_floats(con, rows: int, scratch: Path):
    return select(
        con,
        rows,
        [
            # normal(0, 1)
            ("normal", f"sqrt(-2 * ln(1 - {u(1)})) * cos(2 * pi() * {u(2)})"),
            # prices with two decimals, 1,000,000 distinct
            ("price", f"round({h(3, 100000000)} / 100.0, 2)::DOUBLE"),
            # a slowly moving sensor reading
            ("sensor", f"sin(i / 1000.0) * 50 + {u(4)}"),
            ("ratio", f"({u(5)})::FLOAT"),
        ],
    )


def build_ints(con, rows: int, scratch: Path):
    return select(
        con,
        rows,
        [
            ("id", "i::BIGINT"),
            ("small", f"({h(1, 1000)})::INTEGER"),
            ("random", rand64(2)),
            ("category", f"({skewed(3, 50)})::SMALLINT"),
            ("millis", f"(1700000000000 + i * 10 + {h(4, 10)})::BIGINT"),
            ("amount", f"({skewed(5, 1000000, 2.0)})::INTEGER"),
        ],
    )


def build_delta(con, rows: int, scratch: Path):
    return select(
        con,
        rows,
        [
            ("id", "i::BIGINT"),
            ("millis", f"(1700000000000 + i * 10 + {h(1, 10)})::BIGINT"),
            ("small", f"({h(2, 1000)})::INTEGER"),
            ("random", rand64(3)),
            # sorted URLs share long prefixes (what DELTA_BYTE_ARRAY is for)
            ("url", f"'https://www.example.com/catalog/' || lpad((i // 7)::VARCHAR, 9, '0') || '/item'"),
            ("token", f"md5(i::VARCHAR)[1:{h(4, 24)} + 8]"),
        ],
    )


WIDE_COLUMNS = 5000


def build_wide(con, rows: int, scratch: Path):
    columns = []
    for c in range(WIDE_COLUMNS):
        kind = c % 3
        if kind == 0:
            expr = f"(hash(i, {c}) % 100000)::BIGINT"
        elif kind == 1:
            expr = f"{u(c)}"
        else:
            expr = f"'v' || ({h(c, 1000)})::VARCHAR"
        columns.append((f"c{c:04}", expr))
    return select(con, rows, columns)


BUILDERS = {
    "lineitem": build_lineitem,
    "hits": build_hits,
    "nested": build_nested,
    "nullable": build_nullable,
    "strings": build_strings,
    "floats": build_floats,
    "ints": build_ints,
    "delta": build_delta,
    "wide": build_wide,
}

DATASETS = [
    Dataset("lineitem", "TPC-H lineitem (tpchgen-cli SF 1)", 6_001_215, 60_000),
    Dataset("hits", "ClickBench-like hits: 105 columns", 1_000_000, 20_000),
    Dataset("nested", "list, struct, map, list<list>, list<string>", 1_000_000, 20_000),
    Dataset("nullable", "50% nulls: int64 + string", 4_000_000, 40_000),
    Dataset("strings", "strings: 100 distinct, high-cardinality, URLs", 2_000_000, 40_000),
    Dataset("floats", "float64 x 3 + float32", 4_000_000, 40_000),
    Dataset("ints", "int64, int32, int16: ids, small ranges, random", 4_000_000, 40_000),
    Dataset(
        "delta",
        "DELTA_BINARY_PACKED + DELTA_BYTE_ARRAY, v2 pages (arrow-rs, not its defaults)",
        2_000_000,
        40_000,
        writers=("arrow-rs",),
        delta=True,
    ),
    Dataset(
        "wide",
        "5,000 columns x 5 row groups (row group size is the one non-default setting)",
        5_000,
        500,
        row_groups=5,
    ),
]
