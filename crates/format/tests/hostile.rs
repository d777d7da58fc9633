//! Hostile inputs: truncated, mutated and fabricated footers, huge container sizes,
//! deep nesting, bad offsets. Every case must return `Err` (or a value), never panic,
//! and must not allocate based on an unchecked count.

use bytes::Bytes;
use herringbone_format::ErrorKind;
use herringbone_format::footer::{
    FooterOptions, decode_file_metadata, footer_range, read_bloom_filter_header, read_column_index,
    read_metadata, read_offset_index,
};
use herringbone_format::metadata::*;
use herringbone_format::thrift::{CompactReader, CompactWriter, ThriftStruct, wire};
use herringbone_testkit::read_corpus_file;
use proptest::prelude::*;

fn corpus_footer(rel: &str) -> (Bytes, Bytes) {
    let file = Bytes::from(read_corpus_file(std::path::Path::new(rel)));
    let range = footer_range(&file).expect("corpus footer");
    let footer = file.slice(range);
    (file, footer)
}

const SAMPLES: &[&str] = &[
    "data/alltypes_tiny_pages_plain.parquet",
    "data/geospatial/geospatial.parquet",
    "data/nested_structs.rust.parquet",
    "data/delta_byte_array.parquet",
];

#[test]
fn every_truncated_prefix_is_an_error() {
    for rel in SAMPLES {
        let (_, footer) = corpus_footer(rel);
        decode_file_metadata(footer.clone(), &FooterOptions::new()).expect("full footer decodes");
        let selective = FooterOptions::new()
            .with_columns([0])
            .with_row_groups([0])
            .with_skip_statistics(true);
        for len in 0..footer.len() {
            let prefix = footer.slice(..len);
            for opts in [&FooterOptions::new(), &selective] {
                let e = decode_file_metadata(prefix.clone(), opts)
                    .expect_err("a strict prefix of a footer cannot decode");
                assert_eq!(e.kind(), ErrorKind::Truncated, "{rel} prefix {len}: {e}");
                assert!(
                    e.offset().is_some_and(|o| o <= len as u64),
                    "{rel} prefix {len}: {e}"
                );
            }
        }
        println!("{rel}: {} prefixes rejected", footer.len());
    }
}

#[test]
fn every_single_byte_mutation_decodes_or_fails_cleanly() {
    let mut outcomes = (0usize, 0usize);
    for rel in SAMPLES {
        let (_, footer) = corpus_footer(rel);
        let original = footer.to_vec();
        // every position of small footers, an even spread over large ones
        let stride = original.len().div_ceil(1500);
        for pos in (0..original.len()).step_by(stride) {
            for value in [0x00u8, 0x0c, 0x19, 0x7f, 0x80, 0xff] {
                let mut bytes = original.clone();
                bytes[pos] = value;
                let bytes = Bytes::from(bytes);
                assert_hand_tuned_agrees(&bytes);
                match decode_file_metadata(bytes.clone(), &FooterOptions::new()) {
                    Ok(meta) => {
                        outcomes.0 += 1;
                        // whatever decoded must re-encode and decode to the same value
                        // (compared through the encoding: a mutated double may be NaN)
                        let encoded = meta.encode();
                        let again = FileMetaData::decode_slice(&encoded).unwrap().0;
                        assert_eq!(again.encode(), encoded);
                    }
                    Err(e) => {
                        outcomes.1 += 1;
                        assert!(!e.to_string().is_empty());
                    }
                }
                let opts = FooterOptions::new()
                    .with_columns([0])
                    .with_skip_statistics(true);
                let _ = decode_file_metadata(bytes, &opts);
            }
        }
    }
    println!("mutations: {} decoded, {} rejected", outcomes.0, outcomes.1);
    assert!(outcomes.1 > 0 && outcomes.0 > 0);
}

/// The hand-tuned column chunk reader and the generated readers give the same value or
/// the same error (message, offset and field path) for `footer`.
fn assert_hand_tuned_agrees(footer: &Bytes) {
    for skip in [true, false] {
        let reader = || CompactReader::from_bytes(footer).with_skip_statistics(skip);
        let fast = FileMetaData::read(&mut reader());
        let generated = FileMetaData::read(&mut reader().with_hand_tuned(false));
        assert_eq!(format!("{fast:?}"), format!("{generated:?}"));
    }
}

/// A FileMetaData whose schema list claims `count` elements of `elem` type with only a
/// few bytes behind the header.
fn huge_list(elem: u8, count: u64) -> Vec<u8> {
    let mut w = CompactWriter::new();
    let mut last = 0;
    w.write_field_header(&mut last, wire::I32, 1);
    w.write_i32(1);
    w.write_field_header(&mut last, wire::LIST, 2);
    w.write_byte(0xf0 | elem);
    w.write_varint(count);
    w.write_raw(&[0; 16]);
    w.into_inner()
}

#[test]
fn huge_list_sizes_fail_before_allocating() {
    for (elem, count) in [
        (wire::STRUCT, i32::MAX as u64),
        (wire::STRUCT, 1 << 20),
        (wire::DOUBLE, 3),
        (wire::I64, 17),
        (wire::BINARY, 1 << 30),
    ] {
        let bytes = Bytes::from(huge_list(elem, count));
        let e = decode_file_metadata(bytes.clone(), &FooterOptions::new()).unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::Truncated | ErrorKind::Invalid),
            "{elem}/{count}: {e}"
        );
        assert_eq!(e.path(), "FileMetaData.schema", "{e}");
        // skipping the same list as an unknown field also checks the count
        let mut r = CompactReader::new(&bytes);
        let e = r.skip_struct().unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::Truncated | ErrorKind::Invalid),
            "{e}"
        );
    }
    // list sizes beyond i32 are invalid outright
    let e = decode_file_metadata(
        Bytes::from(huge_list(wire::STRUCT, 1 << 40)),
        &FooterOptions::new(),
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Invalid);
    // a binary longer than the buffer
    let mut w = CompactWriter::new();
    let mut last = 0;
    w.write_field_header(&mut last, wire::BINARY, 1);
    w.write_varint(1 << 30);
    let e = Statistics::decode_slice(&w.into_inner()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Truncated);
    assert_eq!(e.path(), "Statistics.max");
    // a map with a huge entry count
    let mut w = CompactWriter::new();
    let mut last = 0;
    w.write_field_header(&mut last, wire::MAP, 30);
    w.write_varint(1 << 28);
    w.write_byte(0x88);
    let e = Statistics::decode_slice(&w.into_inner()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Truncated);
}

#[test]
fn deep_nesting_is_rejected_without_overflowing_the_stack() {
    for depth in [65usize, 1000, 100_000] {
        // an unknown field 20 of FileMetaData holding struct { 1: struct { 1: ... } }
        let mut bytes = vec![0x0c, 40]; // long header: struct, zigzag id 20
        bytes.extend(std::iter::repeat_n(0x1c, depth));
        bytes.extend(std::iter::repeat_n(0x00, depth + 2));
        let e = FileMetaData::decode_slice(&bytes).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
        // lists of lists
        let mut bytes = vec![0x09, 40];
        bytes.extend(std::iter::repeat_n(0x19, depth));
        bytes.push(0);
        let e = FileMetaData::decode_slice(&bytes).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    }
    // nesting within the limit is fine
    let mut bytes = vec![0x0c, 40];
    bytes.extend(std::iter::repeat_n(0x1c, 10));
    bytes.extend(std::iter::repeat_n(0x00, 12));
    let e = FileMetaData::decode_slice(&bytes).unwrap_err();
    assert!(e.message().contains("required field `version`"), "{e}");
}

#[test]
fn errors_name_structure_field_and_offset() {
    let mut meta = FileMetaData {
        version: 1,
        schema: vec![SchemaElement {
            name: "schema".into(),
            ..Default::default()
        }],
        key_value_metadata: Some(vec![
            KeyValue {
                key: "a".into(),
                value: None,
            },
            KeyValue {
                key: "XY".into(),
                value: None,
            },
        ]),
        ..Default::default()
    };
    meta.num_rows = 3;
    let mut bytes = meta.encode();
    let pos = bytes.windows(2).position(|w| w == b"XY").unwrap();
    bytes[pos] = 0xff; // invalid UTF-8 in a string field
    let e = FileMetaData::decode_slice(&bytes).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Invalid);
    assert_eq!(e.path(), "FileMetaData.key_value_metadata[1].key");
    assert_eq!(e.offset(), Some(pos as u64 - 1));
    assert!(e.to_string().contains("UTF-8"), "{e}");

    // a missing required field
    let header = PageHeader {
        compressed_page_size: 5,
        ..Default::default()
    }
    .encode();
    let mut r = CompactReader::new(&header[1..]); // drop the type_ field
    let e = PageHeader::read(&mut r).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Invalid);
    assert!(e.to_string().contains("PageHeader"), "{e}");
}

#[test]
fn bad_page_index_and_bloom_filter_offsets() {
    let file = Bytes::from(vec![0u8; 100]);
    let mut chunk = ColumnChunk {
        column_index_offset: Some(90),
        column_index_length: Some(20),
        offset_index_offset: Some(-5),
        offset_index_length: Some(4),
        meta_data: Some(ColumnMetaData {
            bloom_filter_offset: Some(200),
            ..Default::default()
        }),
        ..Default::default()
    };
    assert_eq!(
        read_column_index(&file, &chunk).unwrap_err().kind(),
        ErrorKind::Invalid
    );
    assert_eq!(
        read_offset_index(&file, &chunk).unwrap_err().kind(),
        ErrorKind::Invalid
    );
    assert_eq!(
        read_bloom_filter_header(&file, &chunk).unwrap_err().kind(),
        ErrorKind::Invalid
    );
    // a Bloom filter header whose bitset runs past the end of the file
    let header = BloomFilterHeader {
        num_bytes: 1000,
        ..Default::default()
    }
    .encode();
    let mut bytes = vec![0u8; 10];
    bytes.extend_from_slice(&header);
    bytes.extend_from_slice(&[0; 32]);
    let file = Bytes::from(bytes);
    chunk.meta_data.as_mut().unwrap().bloom_filter_offset = Some(10);
    let e = read_bloom_filter_header(&file, &chunk).unwrap_err();
    assert!(e.message().contains("beyond the end"), "{e}");
    chunk.meta_data.as_mut().unwrap().bloom_filter_length = Some(20);
    assert!(read_bloom_filter_header(&file, &chunk).is_err());
    // a consistent one
    let header = BloomFilterHeader {
        num_bytes: 32,
        ..Default::default()
    }
    .encode();
    let mut bytes = vec![0u8; 10];
    bytes.extend_from_slice(&header);
    bytes.extend_from_slice(&[0; 32]);
    let file = Bytes::from(bytes);
    chunk.meta_data.as_mut().unwrap().bloom_filter_length = Some(header.len() as i32 + 32);
    let loc = read_bloom_filter_header(&file, &chunk).unwrap().unwrap();
    assert_eq!(loc.header.num_bytes, 32);
    assert_eq!(
        loc.bitset,
        (10 + header.len() as u64)..(10 + header.len() as u64 + 32)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..400)) {
        let bytes = Bytes::from(data);
        let _ = FileMetaData::decode_prefix(&bytes);
        let _ = PageHeader::decode_prefix(&bytes);
        let _ = ColumnIndex::decode_prefix(&bytes);
        let _ = OffsetIndex::decode_prefix(&bytes);
        let _ = BloomFilterHeader::decode_prefix(&bytes);
        let _ = FileCryptoMetaData::decode_prefix(&bytes);
        let _ = read_metadata(&bytes);
        let mut r = CompactReader::new(&bytes);
        let _ = r.skip_struct();
        let opts = FooterOptions::new().with_columns([1, 3]).with_row_groups([0]);
        let _ = decode_file_metadata(bytes, &opts);
    }
}
