#!/usr/bin/env python3
"""Geospatial statistics between pyarrow (26) and Herringbone (`hb`).

1. pyarrow writes random GEOMETRY columns (every type Point..GeometryCollection in XY,
   XYZ, XYM and XYZM, both byte orders, nulls, empty points) with its statistics.
   `hb meta --json` must read pyarrow's boxes and type lists exactly (Herringbone
   reading pyarrow's geo files), and `hb rewrite` must write the same rows with equal
   boxes and type lists, which pyarrow reads back through
   `ColumnChunkMetaData.geo_statistics`; the logical type (CRS) must be unchanged.
2. The corpus's data/geospatial files: `hb meta --json` shows what pyarrow reads.
3. GEOGRAPHY (pyarrow 26 writes no geospatial statistics for it): points across the
   antimeridian rewritten by `hb` carry a box pyarrow reads as wrapping (xmin > xmax)
   and containing every point.

Usage:
  geo_interop.py HB_BINARY [WORK_DIR]   run the checks; exits non-zero with one line
                                        per mismatch
  geo_interop.py oracle OUT.json        write the pyarrow statistics of the corpus
                                        geospatial files (the Rust tests' fixture)
"""

import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


class WkbType(pa.ExtensionType):
    """`geoarrow.wkb`, so pyarrow writes GEOMETRY / GEOGRAPHY."""

    def __init__(self, meta=b"{}", storage=pa.binary()):
        self._meta = meta
        super().__init__(storage, "geoarrow.wkb")

    def __arrow_ext_serialize__(self):
        return self._meta

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type, serialized):
        return WkbType(serialized, storage_type)


pa.register_extension_type(WkbType())

DIMS = {0: 2, 1000: 3, 2000: 3, 3000: 4}


def coord(rng, n, lo=-1000.0, hi=1000.0):
    return [rng.uniform(lo, hi) for _ in range(n)]


def geom(rng, base, dims, little, depth=0):
    """One random geometry of type `base` (1..7) as WKB."""
    bo = "<" if little else ">"
    out = bytearray([1 if little else 0]) + struct.pack(bo + "I", base + dims)
    n = DIMS[dims]
    if base == 1:
        if rng.random() < 0.05:
            out += struct.pack(bo + "d" * n, *([math.nan] * n))  # POINT EMPTY
        else:
            out += struct.pack(bo + "d" * n, *coord(rng, n))
    elif base == 2:
        k = rng.randint(0, 5)
        out += struct.pack(bo + "I", k)
        for _ in range(k):
            out += struct.pack(bo + "d" * n, *coord(rng, n))
    elif base == 3:
        rings = rng.randint(0, 2)
        out += struct.pack(bo + "I", rings)
        for _ in range(rings):
            first = coord(rng, n)
            mid = [coord(rng, n) for _ in range(rng.randint(2, 4))]
            ring = [first] + mid + [first]
            out += struct.pack(bo + "I", len(ring))
            for c in ring:
                out += struct.pack(bo + "d" * n, *c)
    else:
        part = {4: 1, 5: 2, 6: 3}.get(base)
        k = rng.randint(0, 3)
        out += struct.pack(bo + "I", k)
        for _ in range(k):
            b = part or rng.choice([1, 2, 3, 4] + ([7] if depth < 2 else []))
            # Each part has its own byte order.
            out += geom(rng, b, dims, rng.random() < 0.5, depth + 1)
    return bytes(out)


def geo_table(values, meta):
    ty = WkbType(json.dumps(meta).encode())
    storage = pa.array(values, pa.binary())
    return pa.table({"g": pa.ExtensionArray.from_storage(ty, storage)})


def pyarrow_stats(path):
    """[(row group, column path) -> to_dict()] of a file, plus its logical types."""
    md = pq.ParquetFile(path).metadata
    out = []
    for rg in range(md.num_row_groups):
        cols = {}
        for c in range(md.num_columns):
            cc = md.row_group(rg).column(c)
            if cc.geo_statistics is not None:
                cols[cc.path_in_schema] = cc.geo_statistics.to_dict()
        out.append(cols)
    types = [str(md.schema.column(c).logical_type) for c in range(md.num_columns)]
    return out, types


def hb_stats(hb, path):
    """The same from `hb meta --json`, in pyarrow's `to_dict()` shape."""
    meta = json.loads(subprocess.run([hb, "meta", "--json", str(path)], check=True,
                                     capture_output=True, text=True).stdout)
    out = []
    for rg in meta["row_groups"]:
        cols = {}
        for col in rg["columns"]:
            geo = col.get("geospatial_statistics")
            if geo is None:
                continue
            d = {"geospatial_types": geo["geospatial_types"]}
            bbox = geo["bbox"] or {}
            for k in ["xmin", "xmax", "ymin", "ymax", "zmin", "zmax", "mmin", "mmax"]:
                v = bbox.get(k)
                d[k] = float(v) if isinstance(v, str) else v
            cols[col["path"]] = d
        out.append(cols)
    return out


def normalise(stats):
    """pyarrow reports a list it did not find as None and a box without X/Y as Nones."""
    out = []
    for cols in stats:
        n = {}
        for path, d in cols.items():
            d = dict(d)
            d["geospatial_types"] = sorted(d["geospatial_types"] or [])
            n[path] = d
        out.append(n)
    return out


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "oracle":
        return write_oracle(Path(sys.argv[2]))
    hb = sys.argv[1]
    work = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tempfile.mkdtemp())
    work.mkdir(parents=True, exist_ok=True)
    errors = []
    rng = random.Random(20)

    # 1. Random GEOMETRY columns, one file per CRS form.
    for name, meta in [
        ("default", {}),
        ("srid", {"crs": "5070", "crs_type": "srid"}),
        ("authority", {"crs": "EPSG:32632"}),
    ]:
        values = []
        for _ in range(3000):
            if rng.random() < 0.05:
                values.append(None)
                continue
            base = rng.randint(1, 7)
            dims = rng.choice([0, 1000, 2000, 3000]) if rng.random() < 0.3 else 0
            values.append(geom(rng, base, dims, rng.random() < 0.7))
        src, out = work / f"pyarrow-{name}.parquet", work / f"hb-{name}.parquet"
        pq.write_table(geo_table(values, meta), src, row_group_size=500)
        theirs, types = pyarrow_stats(src)
        if not any(theirs):
            errors.append(f"{name}: pyarrow wrote no geospatial statistics")
        read = hb_stats(hb, src)
        if normalise(read) != normalise(theirs):
            errors.append(f"{name}: hb meta reads {read[:1]}, pyarrow {theirs[:1]}")
        subprocess.run([hb, "rewrite", str(src), str(out), "--row-group-size", "500"],
                       check=True, capture_output=True)
        ours, our_types = pyarrow_stats(out)
        if normalise(ours) != normalise(theirs):
            for g, (a, b) in enumerate(zip(ours, theirs)):
                if normalise([a]) != normalise([b]):
                    errors.append(f"{name} rg {g}: hb wrote {a}, pyarrow {b}")
        if our_types != types:
            errors.append(f"{name}: logical types {our_types} after hb rewrite, were {types}")
        print(f"{name}: {len(theirs)} row groups, boxes and type lists equal"
              if not errors else f"{name}: checked")

    # 2. The corpus geospatial files.
    corpus = Path(os.environ.get("PARQUET_TEST_DATA", "../shared/parquet-testing/data"))
    files = sorted((corpus / "geospatial").glob("*.parquet"))
    if not files:
        errors.append(f"no geospatial files under {corpus}")
    for f in files:
        theirs, _ = pyarrow_stats(f)
        read = hb_stats(hb, f)
        if normalise(read) != normalise(theirs):
            errors.append(f"{f.name}: hb meta differs from pyarrow")
    print(f"corpus: {len(files)} geospatial files read with pyarrow's statistics")

    # 3. GEOGRAPHY across the antimeridian.
    pts = [(rng.uniform(170, 180), rng.uniform(-10, 10)) for _ in range(50)]
    pts += [(rng.uniform(-180, -165), rng.uniform(-10, 10)) for _ in range(50)]
    values = [struct.pack("<BIdd", 1, 1, x, y) for x, y in pts]
    src, out = work / "pyarrow-geography.parquet", work / "hb-geography.parquet"
    pq.write_table(geo_table(values, {"edges": "spherical"}), src)
    subprocess.run([hb, "rewrite", str(src), str(out)], check=True, capture_output=True)
    ours, types = pyarrow_stats(out)
    if "Geography" not in types[0]:
        errors.append(f"geography: logical type {types[0]} after hb rewrite")
    g = ours[0].get("g") if ours else None
    if g is None:
        errors.append("geography: hb wrote no geospatial statistics")
    else:
        xmin, xmax = g["xmin"], g["xmax"]
        if not xmin > xmax:
            errors.append(f"geography: box x [{xmin}, {xmax}] does not wrap")
        for x, y in pts:
            if not ((x >= xmin or x <= xmax) and g["ymin"] <= y <= g["ymax"]):
                errors.append(f"geography: ({x}, {y}) outside {g}")
                break
        if g["geospatial_types"] != [1]:
            errors.append(f"geography: types {g['geospatial_types']}")
        print(f"geography: box x [{xmin:.3f}, {xmax:.3f}] wraps the antimeridian")

    for e in errors:
        print("MISMATCH", e)
    return 1 if errors else 0


def write_oracle(out):
    corpus = Path(os.environ.get("PARQUET_TEST_DATA", "../shared/parquet-testing/data"))
    oracle = {}
    for f in sorted((corpus / "geospatial").glob("*.parquet")):
        stats, _ = pyarrow_stats(f)
        # Numbers as Python's repr, which Rust's `str::parse::<f64>` reads exactly.
        oracle[f"geospatial/{f.name}"] = {"row_groups": [
            {p: {k: (repr(v) if isinstance(v, float) else v) for k, v in d.items()}
             for p, d in cols.items()}
            for cols in stats
        ]}
    out.write_text(json.dumps(oracle, indent=1, allow_nan=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
