//! The page iterator over arbitrary column chunk bytes, with every codec and CRC
//! verification on and off: it must return pages or errors, never panic, hang or
//! allocate without bound. Pages it returns must be internally consistent.
#![no_main]

use bytes::Bytes;
use herringbone_codec::compression::Codec;
use herringbone_codec::page::{Page, PageReader, PageReaderOptions};
use libfuzzer_sys::fuzz_target;

const CODECS: [Codec; 8] = [
    Codec::Uncompressed,
    Codec::Snappy,
    Codec::Gzip { level: 6 },
    Codec::Lzo,
    Codec::Brotli { quality: 1 },
    Codec::Lz4,
    Codec::Zstd { level: 3 },
    Codec::Lz4Raw,
];

/// Pages are bounded well below the default so a hostile header cannot exhaust memory
/// under the fuzzer's RSS limit, while still exercising the size checks.
const MAX_PAGE: usize = 16 << 20;

fuzz_target!(|data: &[u8]| {
    let Some((&control, chunk)) = data.split_first() else {
        return;
    };
    let codec = CODECS[usize::from(control & 7)];
    let verify_crc = control & 8 != 0;
    let skip_first = control & 16 != 0;
    let options = PageReaderOptions::default()
        .with_verify_crc(verify_crc)
        .with_max_page_size(MAX_PAGE);
    let mut reader = PageReader::new(Bytes::copy_from_slice(chunk), codec, options);
    if skip_first {
        let _ = reader.skip_page();
    }
    let mut pages = 0usize;
    for result in reader.by_ref() {
        match result {
            Ok(page) => {
                pages += 1;
                match &page {
                    Page::Dictionary { values, .. } => assert!(values.len() <= MAX_PAGE),
                    Page::DataV1 { buffer, .. } => assert!(buffer.len() <= MAX_PAGE),
                    Page::DataV2 {
                        rep_levels,
                        def_levels,
                        values,
                        ..
                    } => assert!(rep_levels.len() + def_levels.len() + values.len() <= MAX_PAGE),
                }
            }
            Err(_) => break,
        }
        // Every page consumes at least one header byte.
        assert!(pages <= chunk.len());
    }
    // After the end (or an error) the reader stays finished.
    assert!(reader.next().is_none());
});
