"""Regenerates sample.parquet, the file `hb demo` embeds (no input files needed).

Run with pyarrow installed: python3 make_sample.py
A small trip log: flat and nested columns, dictionary and plain pages, two row groups,
statistics, page index and a Bloom filter, so every part of the metadata is shown.
"""
import datetime as dt
import decimal
import random

import pyarrow as pa
import pyarrow.parquet as pq

random.seed(7)
n = 2000
cities = ["Amsterdam", "Berlin", "Lisbon", "Oslo", "Prague", "Vienna", "Zurich"]
start = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
table = pa.table(
    {
        "trip_id": pa.array(range(1, n + 1), pa.int64()),
        "city": pa.array([random.choice(cities) for _ in range(n)], pa.string()),
        "started_at": pa.array(
            [start + dt.timedelta(minutes=7 * i) for i in range(n)], pa.timestamp("us", tz="UTC")
        ),
        "distance_km": pa.array(
            [None if i % 17 == 0 else round(random.uniform(0.5, 40.0), 2) for i in range(n)],
            pa.float64(),
        ),
        "fare": pa.array(
            [decimal.Decimal(random.randint(300, 12000)) / 100 for _ in range(n)], pa.decimal128(9, 2)
        ),
        "tags": pa.array(
            [random.sample(["night", "airport", "shared", "electric"], random.randint(0, 2)) for _ in range(n)],
            pa.list_(pa.string()),
        ),
        "rider": pa.array(
            [{"id": random.randint(1, 500), "rating": random.randint(1, 5)} for _ in range(n)],
            pa.struct([("id", pa.int32()), ("rating", pa.int8())]),
        ),
    }
)
pq.write_table(
    table,
    "sample.parquet",
    row_group_size=1000,
    compression="zstd",
    write_page_index=True,
    bloom_filter_options={"city": {"ndv": 16, "fpp": 0.01}} if "bloom_filter_options" in pq.write_table.__code__.co_varnames else None,
)
