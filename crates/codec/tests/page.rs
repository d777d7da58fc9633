//! Page writer -> page reader round trips, CRC handling and malformed-page errors.

use bytes::Bytes;
use herringbone_codec::ErrorKind;
use herringbone_codec::compression::Codec;
use herringbone_codec::page::{
    DataPageV1, DataPageV2, Page, PageReader, PageReaderOptions, PageWriter, WrittenPage,
};
use herringbone_format::metadata::{
    DataPageHeaderV2, Encoding, IndexPageHeader, PageHeader, PageType, Statistics,
};
use herringbone_format::thrift::ThriftStruct;
use proptest::prelude::*;

const CODECS: [Codec; 7] = [
    Codec::Uncompressed,
    Codec::Snappy,
    Codec::Gzip { level: 6 },
    Codec::Brotli { quality: 1 },
    Codec::Lz4,
    Codec::Lz4Raw,
    Codec::Zstd { level: 3 },
];

struct Written {
    chunk: Vec<u8>,
    pages: Vec<WrittenPage>,
}

fn stats() -> Statistics {
    Statistics {
        null_count: Some(1),
        min_value: Some([1, 0, 0, 0].into()),
        max_value: Some([9, 0, 0, 0].into()),
        ..Statistics::default()
    }
}

/// Dictionary + v1 + v2 pages of the same column.
fn write_chunk(codec: Codec, crc: bool, values: &[u8]) -> Written {
    let mut writer = PageWriter::new(codec).with_crc(crc);
    let mut chunk = vec![0xAB; 3]; // pages need not start at 0
    let dictionary = writer
        .write_dictionary_page(&mut chunk, values, values.len() / 4, true)
        .unwrap();
    let v1 = writer
        .write_data_page_v1(
            &mut chunk,
            &DataPageV1 {
                rep_levels: &[],
                def_levels: &[2, 0, 0, 0, 0x05, 0x01],
                values,
                num_values: 5,
                num_rows: 5,
                encoding: Encoding::PLAIN,
                def_level_encoding: Encoding::RLE,
                rep_level_encoding: Encoding::RLE,
                statistics: Some(stats()),
            },
        )
        .unwrap();
    let v2 = writer
        .write_data_page_v2(
            &mut chunk,
            &DataPageV2 {
                rep_levels: &[0x02, 0x00],
                def_levels: &[0x03, 0x01, 0x04],
                values,
                num_values: 7,
                num_nulls: 2,
                num_rows: 3,
                encoding: Encoding::DELTA_BINARY_PACKED,
                statistics: None,
            },
        )
        .unwrap();
    let pages = vec![dictionary, v1, v2];
    assert_eq!(writer.rows_written(), 8);
    Written { chunk, pages }
}

fn read_all(chunk: Bytes, codec: Codec, verify_crc: bool) -> herringbone_codec::Result<Vec<Page>> {
    PageReader::new(
        chunk,
        codec,
        PageReaderOptions::default().with_verify_crc(verify_crc),
    )
    .collect()
}

fn check_pages(pages: &[Page], values: &[u8]) {
    assert_eq!(pages.len(), 3);
    assert_eq!(
        pages[0],
        Page::Dictionary {
            values: Bytes::copy_from_slice(values),
            num_values: values.len() / 4,
            encoding: Encoding::PLAIN,
            is_sorted: true,
        }
    );
    let mut v1_buffer = vec![2, 0, 0, 0, 0x05, 0x01];
    v1_buffer.extend_from_slice(values);
    assert_eq!(
        pages[1],
        Page::DataV1 {
            buffer: Bytes::from(v1_buffer),
            num_values: 5,
            encoding: Encoding::PLAIN,
            def_level_encoding: Encoding::RLE,
            rep_level_encoding: Encoding::RLE,
            statistics: Some(stats()),
        }
    );
    assert_eq!(
        pages[2],
        Page::DataV2 {
            rep_levels: Bytes::from_static(&[0x02, 0x00]),
            def_levels: Bytes::from_static(&[0x03, 0x01, 0x04]),
            values: Bytes::copy_from_slice(values),
            num_values: 7,
            num_nulls: 2,
            num_rows: 3,
            encoding: Encoding::DELTA_BINARY_PACKED,
            statistics: None,
        }
    );
}

#[test]
fn round_trip_every_codec_with_and_without_crc() {
    let values: Vec<u8> = (0..400u32).flat_map(|v| (v % 37).to_le_bytes()).collect();
    for codec in CODECS {
        for crc in [false, true] {
            let written = write_chunk(codec, crc, &values);
            let chunk = Bytes::from(written.chunk).slice(3..);
            let pages = read_all(chunk.clone(), codec, true).unwrap();
            check_pages(&pages, &values);
            assert_eq!(written.pages.iter().all(|p| p.crc.is_some()), crc);
            // Offsets and sizes describe the sink exactly.
            let mut position = 3;
            for page in &written.pages {
                assert_eq!(page.offset, position);
                position += page.total_size();
            }
            assert_eq!(position, chunk.len() + 3);
        }
    }
}

#[test]
fn written_page_records_what_the_writer_needs() {
    let values = [7u8; 64];
    let written = write_chunk(Codec::Snappy, true, &values);
    let [dict, v1, v2] = &written.pages[..] else {
        panic!("three pages");
    };
    assert_eq!(dict.page_type, PageType::DICTIONARY_PAGE);
    assert_eq!((dict.first_row_index, dict.num_rows), (None, None));
    assert_eq!(dict.uncompressed_page_size, 64);
    assert_eq!(v1.page_type, PageType::DATA_PAGE);
    assert_eq!((v1.first_row_index, v1.num_rows), (Some(0), Some(5)));
    assert_eq!(v1.uncompressed_page_size, 6 + 64);
    assert_eq!(v2.page_type, PageType::DATA_PAGE_V2);
    assert_eq!((v2.first_row_index, v2.num_rows), (Some(5), Some(3)));
    assert_eq!(v2.uncompressed_page_size, 5 + 64);
    assert_eq!(v2.encoding, Encoding::DELTA_BINARY_PACKED);
    // The stored CRC is the CRC of the bytes after the header.
    let body = &written.chunk[v2.offset + v2.header_size..v2.offset + v2.total_size()];
    assert_eq!(v2.crc, Some(crc32fast::hash(body)));
    let (header, header_len) = PageHeader::decode_slice(&written.chunk[v2.offset..]).unwrap();
    assert_eq!(header_len, v2.header_size);
    assert_eq!(header.crc, Some(v2.crc.unwrap() as i32));
    assert_eq!(
        header.data_page_header_v2.unwrap().is_compressed,
        Some(true)
    );
}

#[test]
fn uncompressed_pages_are_zero_copy() {
    let values = [1u8, 2, 3, 4, 5, 6, 7, 8];
    let written = write_chunk(Codec::Uncompressed, false, &values);
    let chunk = Bytes::from(written.chunk).slice(3..);
    let range = chunk.as_ptr() as usize..chunk.as_ptr() as usize + chunk.len();
    for page in read_all(chunk.clone(), Codec::Uncompressed, false).unwrap() {
        let section = match &page {
            Page::Dictionary { values, .. } => values,
            Page::DataV1 { buffer, .. } => buffer,
            Page::DataV2 { values, .. } => values,
        };
        assert!(
            range.contains(&(section.as_ptr() as usize)),
            "{page:?} was copied"
        );
    }
}

#[test]
fn corrupt_crc_is_reported_with_page_index_and_offset() {
    let values = [3u8; 40];
    let written = write_chunk(Codec::Zstd { level: 1 }, true, &values);
    let v1 = &written.pages[1];
    // Drop write_chunk's 3-byte prefix: page offsets in the chunk are 3 less.
    let v1_offset = v1.offset - 3;
    let mut chunk = written.chunk[3..].to_vec();
    chunk[v1_offset + v1.header_size] ^= 0x40;
    // Without verification the corrupt (compressed) page may still fail to decompress,
    // but with verification it is a checksum error at page 1.
    let mut reader = PageReader::new(
        Bytes::from(chunk.clone()),
        Codec::Zstd { level: 1 },
        PageReaderOptions::default().with_verify_crc(true),
    )
    .with_base_offset(1000);
    assert!(reader.next_page().unwrap().unwrap().is_dictionary());
    assert_eq!(reader.offset(), 1000 + v1_offset as u64);
    let err = reader.next_page().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Checksum);
    let message = err.to_string();
    assert!(
        message.contains(&format!("page 1 at offset {}", 1000 + v1_offset)),
        "{message}"
    );
    // The reader stops after an error.
    assert!(reader.next_page().unwrap().is_none());

    // Uncompressed: without verification the page reads (with the flipped byte).
    let written = write_chunk(Codec::Uncompressed, true, &values);
    let v2 = &written.pages[2];
    let mut chunk = written.chunk[3..].to_vec();
    let last = v2.offset - 3 + v2.total_size() - 1;
    chunk[last] ^= 1;
    let pages = read_all(Bytes::from(chunk.clone()), Codec::Uncompressed, false).unwrap();
    assert_eq!(pages.len(), 3);
    let err = read_all(Bytes::from(chunk), Codec::Uncompressed, true).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Checksum);
    assert!(err.to_string().contains("page 2 at offset"), "{err}");
}

#[test]
fn index_and_unknown_pages_are_skipped() {
    let mut chunk = Vec::new();
    let index = PageHeader {
        type_: PageType::INDEX_PAGE,
        uncompressed_page_size: 4,
        compressed_page_size: 4,
        index_page_header: Some(IndexPageHeader {}),
        ..PageHeader::default()
    };
    chunk.extend_from_slice(&index.encode());
    chunk.extend_from_slice(&[9, 9, 9, 9]);
    let unknown = PageHeader {
        type_: PageType(42),
        uncompressed_page_size: 2,
        compressed_page_size: 2,
        ..PageHeader::default()
    };
    chunk.extend_from_slice(&unknown.encode());
    chunk.extend_from_slice(&[8, 8]);
    let mut writer = PageWriter::new(Codec::Snappy);
    writer
        .write_dictionary_page(&mut chunk, b"abcd", 1, false)
        .unwrap();
    let mut reader = PageReader::new(
        Bytes::from(chunk),
        Codec::Snappy,
        PageReaderOptions::default(),
    );
    let page = reader.next_page().unwrap().unwrap();
    assert_eq!(reader.page_index(), 3, "skipped pages count in the index");
    assert!(matches!(page, Page::Dictionary { ref values, .. } if &values[..] == b"abcd"));
    assert!(reader.next_page().unwrap().is_none());
}

#[test]
fn v2_is_compressed_false_is_honoured() {
    let values = b"plain values stored as is".as_slice();
    let header = PageHeader {
        type_: PageType::DATA_PAGE_V2,
        uncompressed_page_size: (2 + values.len()) as i32,
        compressed_page_size: (2 + values.len()) as i32,
        data_page_header_v2: Some(DataPageHeaderV2 {
            num_values: 3,
            num_nulls: 0,
            num_rows: 3,
            encoding: Encoding::PLAIN,
            definition_levels_byte_length: 2,
            repetition_levels_byte_length: 0,
            is_compressed: Some(false),
            statistics: None,
        }),
        ..PageHeader::default()
    };
    let mut chunk = header.encode();
    chunk.extend_from_slice(&[0x06, 0x01]);
    chunk.extend_from_slice(values);
    // A ZSTD chunk whose page says its values are not compressed.
    let pages = read_all(Bytes::from(chunk), Codec::Zstd { level: 3 }, false).unwrap();
    let Page::DataV2 {
        def_levels,
        values: read,
        ..
    } = &pages[0]
    else {
        panic!("{:?}", pages[0]);
    };
    assert_eq!(&def_levels[..], &[0x06, 0x01]);
    assert_eq!(&read[..], values);
}

fn data_v2_header(compressed: i32, uncompressed: i32, rep: i32, def: i32) -> PageHeader {
    PageHeader {
        type_: PageType::DATA_PAGE_V2,
        uncompressed_page_size: uncompressed,
        compressed_page_size: compressed,
        data_page_header_v2: Some(DataPageHeaderV2 {
            num_values: 1,
            num_nulls: 0,
            num_rows: 1,
            encoding: Encoding::PLAIN,
            definition_levels_byte_length: def,
            repetition_levels_byte_length: rep,
            is_compressed: None,
            statistics: None,
        }),
        ..PageHeader::default()
    }
}

#[test]
fn malformed_pages_are_errors_before_allocation() {
    let cases: Vec<(&str, PageHeader, usize, ErrorKind)> = vec![
        (
            "compressed_page_size 100 exceeds",
            data_v2_header(100, 100, 0, 0),
            10,
            ErrorKind::Corrupt,
        ),
        (
            "compressed_page_size -1 is negative",
            data_v2_header(-1, 4, 0, 0),
            10,
            ErrorKind::Corrupt,
        ),
        (
            "level sections of 6 + 6 bytes exceed",
            data_v2_header(10, 10, 6, 6),
            10,
            ErrorKind::Corrupt,
        ),
        (
            "repetition_levels_byte_length -3 is negative",
            data_v2_header(10, 10, -3, 0),
            10,
            ErrorKind::Corrupt,
        ),
        (
            "exceeds the configured page size limit",
            data_v2_header(4, 1 << 30, 0, 0),
            4,
            ErrorKind::Unsupported,
        ),
    ];
    for (expected, header, body_len, kind) in cases {
        let mut chunk = header.encode();
        chunk.extend(std::iter::repeat_n(0u8, body_len));
        let options = PageReaderOptions::default().with_max_page_size(1 << 20);
        let err = PageReader::new(Bytes::from(chunk), Codec::Snappy, options)
            .next_page()
            .unwrap_err();
        assert_eq!(err.kind(), kind, "{err}");
        assert!(err.to_string().contains(expected), "{err}");
        assert!(err.to_string().contains("page 0 at offset 0"), "{err}");
    }
    // A header cut short is a metadata error.
    let header = data_v2_header(4, 4, 0, 0).encode();
    let err = PageReader::new(
        Bytes::copy_from_slice(&header[..header.len() - 3]),
        Codec::Snappy,
        PageReaderOptions::default(),
    )
    .next_page()
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Metadata, "{err}");
    // A data page without its data page header.
    let mut missing = PageHeader {
        type_: PageType::DATA_PAGE,
        uncompressed_page_size: 1,
        compressed_page_size: 1,
        ..PageHeader::default()
    }
    .encode();
    missing.push(0);
    let err = read_all(Bytes::from(missing), Codec::Uncompressed, false).unwrap_err();
    assert!(
        err.to_string().contains("without a data_page_header"),
        "{err}"
    );
}

#[test]
fn num_values_bound_stops_before_trailing_bytes() {
    let values = [5u8; 16];
    let written = write_chunk(Codec::Snappy, false, &values);
    let mut chunk = written.chunk[3..].to_vec();
    chunk.extend_from_slice(b"garbage after the last page");
    let reader = PageReader::new(
        Bytes::from(chunk),
        Codec::Snappy,
        PageReaderOptions::default(),
    )
    .with_num_values(12);
    let pages: Vec<Page> = reader.collect::<Result<_, _>>().unwrap();
    check_pages(&pages, &values);
}

#[test]
fn skip_page_returns_headers_without_decoding() {
    let values = [1u8; 32];
    let written = write_chunk(Codec::Gzip { level: 1 }, true, &values);
    let mut chunk = written.chunk[3..].to_vec();
    // Corrupt the dictionary page body: skipping it must not notice.
    let dict_body = written.pages[0].header_size;
    chunk[dict_body] ^= 0xff;
    let mut reader = PageReader::new(
        Bytes::from(chunk),
        Codec::Gzip { level: 1 },
        PageReaderOptions::default().with_verify_crc(true),
    );
    let skipped = reader.skip_page().unwrap().unwrap();
    assert_eq!(skipped.type_, PageType::DICTIONARY_PAGE);
    assert_eq!(
        reader.peek_header().unwrap().unwrap().type_,
        PageType::DATA_PAGE
    );
    assert!(matches!(
        reader.next_page().unwrap(),
        Some(Page::DataV1 { num_values: 5, .. })
    ));
    assert!(matches!(
        reader.next_page().unwrap(),
        Some(Page::DataV2 { num_rows: 3, .. })
    ));
    assert!(reader.skip_page().unwrap().is_none());
}

#[test]
fn release_frees_the_chunk_and_keeps_the_counts() {
    let written = write_chunk(Codec::Gzip { level: 1 }, false, &[7u8; 32]);
    let chunk = Bytes::from(written.chunk[3..].to_vec());
    let mut reader = PageReader::new(
        chunk.clone(),
        Codec::Gzip { level: 1 },
        PageReaderOptions::default(),
    );
    assert_eq!(
        reader.skip_page().unwrap().unwrap().type_,
        PageType::DICTIONARY_PAGE
    );
    let page = reader.next_page().unwrap();
    assert!(matches!(page, Some(Page::DataV1 { num_values: 5, .. })));
    drop(page);
    assert!(!chunk.is_unique(), "the reader shares the chunk");
    reader.release();
    assert!(
        chunk.is_unique(),
        "released, the reader holds none of the chunk"
    );
    assert!(reader.peek_header().unwrap().is_none());
    assert!(reader.next_page().unwrap().is_none());
    assert_eq!((reader.pages_decoded(), reader.pages_skipped()), (1, 1));
}

/// A chunk handed out in windows that count themselves alive while anything holds them.
#[derive(Debug)]
struct CountedWindows {
    chunk: Bytes,
    alive: std::sync::Arc<()>,
}

struct Window(Vec<u8>, #[allow(dead_code)] std::sync::Arc<()>);

impl AsRef<[u8]> for Window {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl herringbone_codec::page::ChunkSource for CountedWindows {
    fn len(&self) -> usize {
        self.chunk.len()
    }
    fn fetch(&self, range: std::ops::Range<usize>) -> herringbone_codec::Result<Bytes> {
        let bytes = self.chunk[range].to_vec();
        Ok(Bytes::from_owner(Window(bytes, self.alive.clone())))
    }
}

#[test]
fn a_decompressed_last_page_lets_its_fetched_bytes_go() {
    // Two pages of 1 MiB that do not compress: each is its own fetch.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let values: Vec<u8> = (0..1 << 20)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            (state >> 56) as u8
        })
        .collect();
    for (codec, kept) in [(Codec::Snappy, 0), (Codec::Uncompressed, 1)] {
        let mut writer = PageWriter::new(codec);
        let mut chunk = Vec::new();
        for _ in 0..2 {
            let page = DataPageV1 {
                rep_levels: &[],
                def_levels: &[],
                values: &values,
                num_values: values.len(),
                num_rows: values.len(),
                encoding: Encoding::PLAIN,
                def_level_encoding: Encoding::RLE,
                rep_level_encoding: Encoding::RLE,
                statistics: None,
            };
            writer.write_data_page_v1(&mut chunk, &page).unwrap();
        }
        let source = std::sync::Arc::new(CountedWindows {
            chunk: Bytes::from(chunk),
            alive: std::sync::Arc::new(()),
        });
        let mut reader =
            PageReader::from_source(source.clone(), codec, PageReaderOptions::default());
        for (page, alive) in [(0, 1), (1, kept)] {
            let Some(Page::DataV1 { buffer, .. }) = reader.next_page().unwrap() else {
                panic!("{codec:?}: a v1 data page expected");
            };
            assert_eq!(buffer[..], values[..], "{codec:?}");
            // The first page's window also holds the next header, and stays until the
            // next fetch. The last page's goes once the page is decompressed; a
            // zero-copy page holds its own.
            assert_eq!(
                std::sync::Arc::strong_count(&source.alive) - 1,
                alive,
                "{codec:?}: windows alive after page {page}"
            );
        }
        assert!(reader.next_page().unwrap().is_none());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn arbitrary_chunks_never_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..512),
        codec in 0usize..7,
        verify in any::<bool>(),
    ) {
        let options = PageReaderOptions::default()
            .with_verify_crc(verify)
            .with_max_page_size(1 << 20);
        let reader = PageReader::new(Bytes::from(bytes), CODECS[codec], options);
        let mut count = 0;
        for page in reader {
            count += 1;
            if page.is_err() {
                break;
            }
            prop_assert!(count < 600);
        }
    }

    #[test]
    fn mutated_valid_chunks_never_panic(
        position in any::<prop::sample::Index>(),
        flip in 1u8..=255,
        codec in 0usize..7,
    ) {
        let written = write_chunk(CODECS[codec], true, &[4u8; 48]);
        let mut chunk = written.chunk[3..].to_vec();
        let at = position.index(chunk.len());
        chunk[at] ^= flip;
        for verify in [false, true] {
            let options = PageReaderOptions::default()
                .with_verify_crc(verify)
                .with_max_page_size(1 << 20);
            let results: Vec<_> =
                PageReader::new(Bytes::from(chunk.clone()), CODECS[codec], options).collect();
            prop_assert!(results.len() <= 3);
        }
    }

    #[test]
    fn written_pages_read_back(
        values in prop::collection::vec(any::<u8>(), 0..2000),
        codec in 0usize..7,
        crc in any::<bool>(),
    ) {
        let written = write_chunk(CODECS[codec], crc, &values);
        let pages = read_all(Bytes::from(written.chunk).slice(3..), CODECS[codec], true).unwrap();
        check_pages(&pages, &values);
    }
}

/// A dictionary page of `dictionary` and a v2 data page of `values`, compressed.
fn dictionary_then_v2(codec: Codec, dictionary: &[u8], values: &[u8]) -> Bytes {
    let mut writer = PageWriter::new(codec);
    let mut chunk = Vec::new();
    writer
        .write_dictionary_page(&mut chunk, dictionary, dictionary.len() / 4, false)
        .unwrap();
    writer
        .write_data_page_v2(
            &mut chunk,
            &DataPageV2 {
                rep_levels: &[],
                def_levels: &[],
                values,
                num_values: values.len() / 4,
                num_nulls: 0,
                num_rows: values.len() / 4,
                encoding: Encoding::PLAIN,
                statistics: None,
            },
        )
        .unwrap();
    Bytes::from(chunk)
}

#[test]
fn a_recycled_page_buffer_takes_the_next_page() {
    // The dictionary twice the data page's size: a buffer that held it is told from a
    // new one (even one the allocator placed where the old one was) by its capacity.
    let dictionary: Vec<u8> = (0..8192u32)
        .flat_map(|i| (i * 7919).to_le_bytes())
        .collect();
    let values = dictionary[..dictionary.len() / 2].to_vec();
    let chunk = dictionary_then_v2(Codec::Snappy, &dictionary, &values);
    let dictionary_values = |page: Page| match page {
        Page::Dictionary { values, .. } => values,
        other => panic!("expected the dictionary page, got {other:?}"),
    };
    let v2_capacity = |page: Page| match page {
        Page::DataV2 { values: got, .. } => {
            assert_eq!(got, values);
            got.try_into_mut()
                .expect("the page owns its buffer")
                .capacity()
        }
        other => panic!("expected a v2 data page, got {other:?}"),
    };

    // Handed back, the dictionary page's buffer takes the next page's values.
    let mut reader = PageReader::new(chunk.clone(), Codec::Snappy, PageReaderOptions::default());
    let page = dictionary_values(reader.next().unwrap().unwrap());
    assert_eq!(page, dictionary);
    reader.recycle(page);
    assert!(v2_capacity(reader.next().unwrap().unwrap()) >= dictionary.len());

    // Still shared (a copy of the handle alive), it is not: the data page gets a buffer
    // of its own size, and the dictionary's bytes stay intact.
    let mut reader = PageReader::new(chunk, Codec::Snappy, PageReaderOptions::default());
    let page = dictionary_values(reader.next().unwrap().unwrap());
    let kept = page.clone();
    reader.recycle(page);
    assert!(v2_capacity(reader.next().unwrap().unwrap()) < dictionary.len());
    assert_eq!(kept, dictionary);
}

#[test]
fn a_recycled_buffer_far_larger_than_the_page_is_let_go() {
    // A 256 KiB dictionary page, then a data page of an eighth (let go: the reader would
    // hold 256 KiB for 32 KiB pages) or of a half (kept) of its size.
    let dictionary: Vec<u8> = (0..65536u32)
        .flat_map(|i| (i * 7919).to_le_bytes())
        .collect();
    for (fraction, kept) in [(8, false), (2, true)] {
        let values = dictionary[..dictionary.len() / fraction].to_vec();
        let chunk = dictionary_then_v2(Codec::Snappy, &dictionary, &values);
        let mut reader = PageReader::new(chunk, Codec::Snappy, PageReaderOptions::default());
        let Page::Dictionary { values: page, .. } = reader.next().unwrap().unwrap() else {
            panic!("expected the dictionary page");
        };
        reader.recycle(page);
        let Page::DataV2 { values: got, .. } = reader.next().unwrap().unwrap() else {
            panic!("expected a v2 data page");
        };
        assert_eq!(got, values);
        let capacity = got
            .try_into_mut()
            .expect("the page owns its buffer")
            .capacity();
        assert_eq!(
            capacity >= dictionary.len(),
            kept,
            "a page of 1/{fraction} of the dictionary: capacity {capacity}"
        );
    }
}
