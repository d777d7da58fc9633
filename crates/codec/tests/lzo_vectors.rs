//! LZO against an independent implementation: blocks written by liblzo2 (lzo1x_1 and
//! lzo1x_999, through python-lzo: `scripts/lzo_vectors.py`) decode to their inputs,
//! bare and in the Hadoop framing parquet-java writes; what our encoder writes decodes
//! back through the framing.

use std::path::PathBuf;

use herringbone_codec::compression::Codec;

fn vectors() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/lzo")
}

const NAMES: [&str; 5] = ["text", "noise", "runs", "far", "tiny"];

fn hadoop_frame(raw_len: usize, block: &[u8]) -> Vec<u8> {
    let mut framed = (raw_len as u32).to_be_bytes().to_vec();
    framed.extend_from_slice(&(block.len() as u32).to_be_bytes());
    framed.extend_from_slice(block);
    framed
}

#[test]
fn liblzo2_blocks_decode_bare_and_framed() {
    for name in NAMES {
        let raw = std::fs::read(vectors().join(format!("{name}.raw"))).unwrap();
        for level in ["lzo1x_1", "lzo1x_999"] {
            let block = std::fs::read(vectors().join(format!("{name}.{level}"))).unwrap();
            let mut out = Vec::new();
            Codec::Lzo.decompress(&block, raw.len(), &mut out).unwrap();
            assert_eq!(out, raw, "{name}.{level} bare");
            out.clear();
            Codec::Lzo
                .decompress(&hadoop_frame(raw.len(), &block), raw.len(), &mut out)
                .unwrap();
            assert_eq!(out, raw, "{name}.{level} framed");
            // One byte short of its size is an error, not a shorter output.
            assert!(
                Codec::Lzo
                    .decompress(&block, raw.len() - 1, &mut Vec::new())
                    .is_err()
            );
        }
    }
}

#[test]
fn our_blocks_round_trip_and_compress() {
    for name in NAMES {
        let raw = std::fs::read(vectors().join(format!("{name}.raw"))).unwrap();
        let mut compressed = Vec::new();
        Codec::Lzo.compress(&raw, &mut compressed).unwrap();
        let mut out = Vec::new();
        Codec::Lzo
            .decompress(&compressed, raw.len(), &mut out)
            .unwrap();
        assert_eq!(out, raw, "{name}");
        if raw.len() > 1000 {
            let theirs = std::fs::read(vectors().join(format!("{name}.lzo1x_1"))).unwrap();
            // Within a third of liblzo2's fast level (8 bytes of framing aside).
            assert!(
                compressed.len() - 8 <= theirs.len() + theirs.len() / 3,
                "{name}: {} bytes, liblzo2 {}",
                compressed.len(),
                theirs.len()
            );
        }
        if let Some(dir) = std::env::var_os("HB_WRITE_LZO_VECTORS") {
            // For scripts/lzo_vectors.py to decode with liblzo2: the bare block.
            std::fs::write(
                PathBuf::from(dir).join(format!("{name}.herringbone")),
                &compressed[8..],
            )
            .unwrap();
        }
    }
}
