"""Writes LZO1X test vectors with liblzo2 (through python-lzo), an implementation that
shares no code with Herringbone's: crates/codec/tests/data/lzo/NAME.raw and
NAME.lzo1x_1 / NAME.lzo1x_999 (bare LZO1X blocks, no header). The inputs are generated
deterministically so the test can also rebuild them.

    pip install python-lzo   # needs liblzo2-dev
    python scripts/lzo_vectors.py crates/codec/tests/data/lzo
"""
import pathlib
import sys

import lzo


def inputs():
    text = b"".join(b"herringbone %d parquet %d\n" % (i, i * i % 97) for i in range(3000))
    noise = bytes((i * 2654435761 >> 13) & 0xFF for i in range(20000))
    runs = b"a" * 5000 + b"b" * 300 + bytes(range(256)) * 20
    far = noise + bytes(30000) + noise[:4000]  # a match ~34,000 bytes back (M4)
    return {"text": text, "noise": noise, "runs": runs, "far": far, "tiny": b"xyz"}


def main(out):
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name, data in inputs().items():
        (out / f"{name}.raw").write_bytes(data)
        (out / f"{name}.lzo1x_1").write_bytes(lzo.compress(data, 1, False))
        (out / f"{name}.lzo1x_999").write_bytes(lzo.compress(data, 9, False))
        # And the other way: what Herringbone's encoder wrote must decode with liblzo2.
        ours = out / f"{name}.herringbone"
        if ours.exists():
            assert lzo.decompress(ours.read_bytes(), False, len(data)) == data, name


if __name__ == "__main__":
    main(sys.argv[1])
