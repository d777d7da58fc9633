//! Compression round trips for every codec, and cross-checks against arrow-rs.

use herringbone_codec::ErrorKind;
use herringbone_codec::compression::Codec;
use proptest::prelude::*;

fn codecs() -> Vec<Codec> {
    vec![
        Codec::Uncompressed,
        Codec::Snappy,
        Codec::Gzip { level: 1 },
        Codec::Gzip { level: 9 },
        Codec::Brotli { quality: 1 },
        Codec::Brotli { quality: 5 },
        Codec::Lz4,
        Codec::Lz4Raw,
        Codec::Zstd { level: 1 },
        Codec::Zstd { level: 9 },
    ]
}

/// Bytes that compress: runs and repeats mixed with noise, like real pages.
fn page_like() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            prop::collection::vec(any::<u8>(), 0..64),
            (any::<u8>(), 1usize..500).prop_map(|(b, n)| vec![b; n]),
            (0u32..1000).prop_map(|v| v.to_le_bytes().to_vec()),
        ],
        0..200,
    )
    .prop_map(|chunks| chunks.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn round_trip_every_codec(data in page_like()) {
        for codec in codecs() {
            let mut compressed = vec![0xAA];
            codec.compress(&data, &mut compressed).unwrap();
            prop_assert_eq!(compressed[0], 0xAA, "compress appends");
            let mut out = vec![0x55];
            codec.decompress(&compressed[1..], data.len(), &mut out).unwrap();
            prop_assert_eq!(out[0], 0x55, "decompress appends");
            prop_assert_eq!(&out[1..], &data[..], "{:?}", codec);
        }
    }

    #[test]
    fn a_reused_buffer_holds_exactly_each_page(pages in prop::collection::vec(page_like(), 1..5)) {
        for codec in codecs() {
            // Pages of assorted sizes through one buffer, as a page reader reuses it:
            // what a larger page left behind never shows through a smaller one.
            let mut buffer = vec![0xAA; 3000];
            for page in &pages {
                let mut compressed = Vec::new();
                codec.compress(page, &mut compressed).unwrap();
                codec
                    .decompress_replacing(&compressed, page.len(), usize::MAX, &mut buffer)
                    .unwrap();
                prop_assert_eq!(&buffer, page, "{}", codec.name());
            }
            // A page that fails leaves the buffer empty, not half filled.
            let mut compressed = Vec::new();
            codec.compress(&pages[0], &mut compressed).unwrap();
            let err = codec.decompress_replacing(&compressed, pages[0].len() + 1, usize::MAX, &mut buffer);
            prop_assert!(err.is_err(), "{}", codec.name());
            prop_assert!(buffer.is_empty(), "{}", codec.name());
        }
    }

    #[test]
    fn arbitrary_input_never_panics(input in prop::collection::vec(any::<u8>(), 0..256), expected in 0usize..4096) {
        for codec in codecs() {
            let mut out = Vec::new();
            if codec.decompress(&input, expected, &mut out).is_ok() {
                prop_assert_eq!(out.len(), expected);
            } else {
                prop_assert!(out.is_empty());
            }
        }
    }

    /// What arrow-rs compresses, Herringbone decompresses (and the other way round).
    #[test]
    fn interoperates_with_arrow_rs(data in page_like()) {
        use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
        use parquet::compression::{CodecOptionsBuilder, create_codec};
        let pairs = [
            (Compression::SNAPPY, Codec::Snappy),
            (Compression::GZIP(GzipLevel::default()), Codec::Gzip { level: 6 }),
            (Compression::BROTLI(BrotliLevel::default()), Codec::Brotli { quality: 1 }),
            (Compression::LZ4, Codec::Lz4),
            (Compression::LZ4_RAW, Codec::Lz4Raw),
            (Compression::ZSTD(ZstdLevel::default()), Codec::Zstd { level: 3 }),
        ];
        let options = CodecOptionsBuilder::default().build();
        for (theirs, ours) in pairs {
            let mut arrow_codec = create_codec(theirs, &options).unwrap().unwrap();
            let mut compressed = Vec::new();
            arrow_codec.compress(&data, &mut compressed).unwrap();
            let mut out = Vec::new();
            ours.decompress(&compressed, data.len(), &mut out).unwrap();
            prop_assert_eq!(&out, &data, "arrow-rs -> herringbone {:?}", ours);

            let mut compressed = Vec::new();
            ours.compress(&data, &mut compressed).unwrap();
            let mut out = Vec::new();
            arrow_codec.decompress(&compressed, &mut out, Some(data.len())).unwrap();
            prop_assert_eq!(&out, &data, "herringbone -> arrow-rs {:?}", ours);
        }
    }
}

#[test]
fn large_page_round_trips() {
    // Several MiB, past every codec's internal block size.
    let data: Vec<u8> = (0..3_000_000u32)
        .flat_map(|i| (i % 7919).to_le_bytes())
        .collect();
    for codec in codecs() {
        let mut compressed = Vec::new();
        codec.compress(&data, &mut compressed).unwrap();
        let mut out = Vec::new();
        codec.decompress(&compressed, data.len(), &mut out).unwrap();
        assert!(out == data, "{codec:?}");
    }
}

#[test]
fn zstd_frame_of_zero_bytes() {
    let mut compressed = Vec::new();
    Codec::Zstd { level: 3 }
        .compress(&[], &mut compressed)
        .unwrap();
    assert!(!compressed.is_empty());
    let mut out = Vec::new();
    Codec::Zstd { level: 3 }
        .decompress(&compressed, 0, &mut out)
        .unwrap();
    assert!(out.is_empty());
    let err = Codec::Zstd { level: 3 }
        .decompress(&compressed, 5, &mut out)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Corrupt);
}

#[test]
fn truncated_streams_are_errors() {
    let data = b"a fairly compressible string, a fairly compressible string".repeat(20);
    for codec in codecs() {
        if codec == Codec::Uncompressed {
            continue;
        }
        let mut compressed = Vec::new();
        codec.compress(&data, &mut compressed).unwrap();
        let truncated = &compressed[..compressed.len() / 2];
        let err = codec
            .decompress(truncated, data.len(), &mut Vec::new())
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Corrupt, "{codec:?}: {err}");
    }
}
