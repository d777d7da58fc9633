"""Writes testdata/peers/polars-2.1.0-int128.parquet: a polars file whose ARROW:schema
hint holds one field Arrow cannot describe (Int128) beside fields whose hinted types
matter (Duration, a zoned Datetime, Categorical, Array). The reader test
crates/arrow-bridge/tests/schema_hint_fields.rs checks Herringbone keeps the others.

Run with the pinned peers (scripts/requirements.txt): python scripts/make_polars_int128.py
"""

import datetime as dt
import pathlib

import polars as pl

assert pl.__version__ == "2.1.0", pl.__version__

out = pathlib.Path(__file__).resolve().parent.parent / "testdata/peers/polars-2.1.0-int128.parquet"
out.parent.mkdir(parents=True, exist_ok=True)
pl.DataFrame(
    {
        "big": pl.Series([1, -(1 << 100), None], dtype=pl.Int128),
        "dur_us": pl.Series(
            [dt.timedelta(seconds=1), dt.timedelta(microseconds=-5), None],
            dtype=pl.Duration("us"),
        ),
        "ts": pl.Series(
            [dt.datetime(2024, 1, 1), None, dt.datetime(1970, 1, 1)],
            dtype=pl.Datetime("ms", "Asia/Tokyo"),
        ),
        "cat": pl.Series(["a", "b", "a"], dtype=pl.Categorical),
        "arr": pl.Series([[1, 2], [3, 4], None], dtype=pl.Array(pl.Int32, 2)),
    }
).write_parquet(out)
print(out)
