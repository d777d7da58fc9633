//! `herringbone::verify` on the conformance corpus and on files damaged on purpose: each
//! damage must be named (check, place, expected and found values).

use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray};
use bytes::Bytes;
use herringbone::layout::PageWalker;
use herringbone::metadata::{FileMetaData, OffsetIndex, PageHeader, SortingColumn};
use herringbone::verify::{Check, Finding, Report, VerifyOptions, verify};
use herringbone::{ArrowWriter, Codec, StatisticsLevel, WriterProperties};
use herringbone_format::footer::{encode_footer, footer_range, read_metadata};
use herringbone_format::thrift::{CompactReader, CompactWriter, ThriftStruct};

fn check(bytes: &[u8]) -> Report {
    verify(Bytes::copy_from_slice(bytes), &VerifyOptions::default())
}

fn problems(report: &Report) -> Vec<String> {
    report.problems.iter().map(Finding::to_string).collect()
}

fn find<'r>(report: &'r Report, check: Check, text: &str) -> &'r Finding {
    report
        .problems
        .iter()
        .find(|p| p.check == check && p.to_string().contains(text))
        .unwrap_or_else(|| {
            panic!(
                "no {check} problem containing {text:?} in {:#?}",
                problems(report)
            )
        })
}

/// One INT32 column `x` (values 0..n, PLAIN, uncompressed) and a string column `s`,
/// with page statistics, CRCs, a page index and a Bloom filter on `x`.
fn sample_file(n: i32, props: WriterProperties) -> Vec<u8> {
    let x: ArrayRef = Arc::new(Int32Array::from((0..n).collect::<Vec<_>>()));
    let s: ArrayRef = Arc::new(StringArray::from(
        (0..n)
            .map(|i| format!("value {}", i % 7))
            .collect::<Vec<_>>(),
    ));
    let batch = RecordBatch::try_from_iter([("x", x), ("s", s)]).unwrap();
    let mut file = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    file
}

fn checked_props() -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Codec::Uncompressed)
        .set_column_dictionary_enabled("x", false)
        .set_statistics(StatisticsLevel::Page)
        .set_write_page_header_statistics(true)
        .set_write_crc(true)
        .set_data_page_row_limit(100)
        .set_bloom_filter("x", 0.01, 1000)
        .build()
}

/// Positions of the pages of row group 0, column `c`.
fn pages(file: &[u8], c: usize) -> Vec<herringbone::layout::PageSpan> {
    let bytes = Bytes::copy_from_slice(file);
    let metadata = read_metadata(&bytes).unwrap();
    let meta = metadata.row_groups[0].columns[c]
        .meta_data
        .as_ref()
        .unwrap();
    let start = meta
        .dictionary_page_offset
        .filter(|&d| d > 0)
        .unwrap_or(meta.data_page_offset) as usize;
    let end = start + meta.total_compressed_size as usize;
    PageWalker::new(bytes.slice(start..end), start as u64)
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn a_file_written_with_every_check_is_clean() {
    let file = sample_file(1000, checked_props());
    let report = check(&file);
    assert!(report.is_clean(), "{:#?}", problems(&report));
    assert_eq!(report.exit_code(), 0);
    let s = &report.summary;
    assert_eq!((s.row_groups, s.column_chunks), (1, 2));
    assert_eq!(s.crcs, s.pages, "every page has a CRC");
    assert_eq!(s.bloom_filters, 1);
    assert_eq!((s.column_indexes, s.offset_indexes), (2, 2));
    assert_eq!(s.levels, 2000);
    assert_eq!(s.arrow_row_groups, 1);
}

#[test]
fn a_value_changed_after_the_statistics_were_written() {
    let mut file = sample_file(1000, checked_props());
    // The last value of `x` (999) in the last page becomes 5000: above every max.
    let last = pages(&file, 0).pop().unwrap();
    let at = last.end() as usize - 4;
    assert_eq!(&file[at..at + 4], &999i32.to_le_bytes());
    file[at..at + 4].copy_from_slice(&5000i32.to_le_bytes());
    let report = check(&file);
    assert_eq!(report.exit_code(), 1);
    let chunk = find(
        &report,
        Check::Statistics,
        "max_value 999 is below the largest value 5000",
    );
    assert_eq!(chunk.location.column.as_deref(), Some("x"));
    assert_eq!(
        (chunk.expected.as_deref(), chunk.found.as_deref()),
        (Some("5000"), Some("999"))
    );
    let page = find(
        &report,
        Check::PageStatistics,
        "max_value 999 is below the largest value 5000",
    );
    assert_eq!(page.location.page, Some(9));
    find(
        &report,
        Check::ColumnIndex,
        "max_values[9] 999 is below the largest value 5000",
    );
    find(
        &report,
        Check::BloomFilter,
        "1 values are missing from the Bloom filter (the first: 5000)",
    );
    // The page's CRC covers the changed bytes too.
    let crc = find(&report, Check::Crc, "does not match its header");
    assert_eq!(crc.location.offset, Some(last.offset));
}

#[test]
fn a_broken_crc() {
    let mut file = sample_file(1000, checked_props());
    let page = pages(&file, 1)[0].clone();
    // Flip a bit of the stored CRC in the header itself: the page's bytes are intact.
    let stored = page.header.crc.unwrap();
    let mut header = page.header.clone();
    header.crc = Some(stored ^ 1);
    let mut writer = CompactWriter::new();
    header.write(&mut writer);
    let encoded = writer.into_inner();
    assert_eq!(encoded.len(), page.header_len, "same header size");
    let at = page.offset as usize;
    file[at..at + page.header_len].copy_from_slice(&encoded);
    let report = check(&file);
    assert_eq!(report.exit_code(), 1);
    assert_eq!(report.problems.len(), 1, "{:#?}", problems(&report));
    let crc = &report.problems[0];
    assert_eq!(crc.check, Check::Crc);
    assert_eq!(crc.location.column.as_deref(), Some("s"));
    assert_eq!(crc.location.page, Some(0));
    let stored_now = u32::from_ne_bytes((stored ^ 1).to_ne_bytes());
    assert_eq!(
        crc.found.as_deref(),
        Some(format!("{stored_now:#010x}").as_str())
    );
}

#[test]
fn a_page_location_moved_in_the_offset_index() {
    let mut file = sample_file(1000, checked_props());
    let bytes = Bytes::copy_from_slice(&file);
    let metadata = read_metadata(&bytes).unwrap();
    let chunk = &metadata.row_groups[0].columns[0];
    let start = chunk.offset_index_offset.unwrap() as usize;
    let len = chunk.offset_index_length.unwrap() as usize;
    let mut index = OffsetIndex::read(&mut CompactReader::new(&file[start..start + len])).unwrap();
    let moved = index.page_locations[3].offset;
    index.page_locations[3].offset += 2;
    let mut writer = CompactWriter::new();
    index.write(&mut writer);
    let encoded = writer.into_inner();
    assert_eq!(encoded.len(), len, "same index size");
    file[start..start + len].copy_from_slice(&encoded);
    let report = check(&file);
    assert_eq!(report.exit_code(), 1);
    assert_eq!(report.problems.len(), 1, "{:#?}", problems(&report));
    let finding = find(
        &report,
        Check::OffsetIndex,
        "page_locations[3].offset does not match the page",
    );
    assert_eq!(finding.expected, Some(moved.to_string()));
    assert_eq!(finding.found, Some((moved + 2).to_string()));
    assert_eq!(finding.location.page, Some(3));
}

/// Re-assembles a file from its data bytes and a changed footer (no page index, no
/// Bloom filter: nothing else points into the file).
fn with_footer(data: &[u8], metadata: &FileMetaData) -> Vec<u8> {
    let mut file = data.to_vec();
    let mut footer = Vec::new();
    encode_footer(metadata, &mut footer);
    file.extend_from_slice(&footer);
    file
}

#[test]
fn a_dictionary_entry_dropped() {
    // One column of 10 distinct values, dictionary-encoded, uncompressed.
    let x: ArrayRef = Arc::new(Int64Array::from(
        (0..200).map(|i| i % 10).collect::<Vec<i64>>(),
    ));
    let batch = RecordBatch::try_from_iter([("x", x)]).unwrap();
    let props = WriterProperties::builder()
        .set_compression(Codec::Uncompressed)
        .set_statistics(StatisticsLevel::None)
        .build();
    let mut file = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let bytes = Bytes::copy_from_slice(&file);
    let mut metadata = read_metadata(&bytes).unwrap();
    let dictionary = pages(&file, 0)[0].clone();
    assert_eq!(dictionary.num_values(), Some(10));
    // Drop the last entry (8 bytes) and say so in the header.
    let mut header: PageHeader = dictionary.header.clone();
    header.uncompressed_page_size -= 8;
    header.compressed_page_size -= 8;
    header.dictionary_page_header.as_mut().unwrap().num_values = 9;
    let mut writer = CompactWriter::new();
    header.write(&mut writer);
    let encoded = writer.into_inner();
    assert_eq!(encoded.len(), dictionary.header_len);
    let start = dictionary.offset as usize;
    let body_end = dictionary.end() as usize;
    let footer_start = file.len()
        - 8
        - u32::from_le_bytes(file[file.len() - 8..file.len() - 4].try_into().unwrap()) as usize;
    let mut data = file[..start].to_vec();
    data.extend_from_slice(&encoded);
    data.extend_from_slice(&file[start + dictionary.header_len..body_end - 8]);
    data.extend_from_slice(&file[body_end..footer_start]);
    let meta = metadata.row_groups[0].columns[0]
        .meta_data
        .as_mut()
        .unwrap();
    meta.data_page_offset -= 8;
    meta.total_compressed_size -= 8;
    meta.total_uncompressed_size -= 8;
    metadata.row_groups[0].total_byte_size -= 8;
    if let Some(total) = metadata.row_groups[0].total_compressed_size.as_mut() {
        *total -= 8;
    }
    let report = check(&with_footer(&data, &metadata));
    assert_eq!(report.exit_code(), 1);
    let finding = find(
        &report,
        Check::Dictionary,
        "dictionary index 9 (value 9 of this step) is out of range: the dictionary has 9 entries",
    );
    assert_eq!(finding.location.page, Some(1));
    assert_eq!(finding.location.column.as_deref(), Some("x"));
}

#[test]
fn rows_out_of_the_declared_sort_order() {
    let sorted = vec![SortingColumn {
        column_idx: 0,
        descending: false,
        nulls_first: true,
    }];
    let props = WriterProperties::builder()
        .set_sorting_columns(Some(sorted.clone()))
        .build();
    let file = sample_file(300, props);
    assert!(check(&file).is_clean(), "0..300 ascending is sorted");
    // The string column `s` ("value 0", "value 1", ...) is not sorted.
    let report = check(&declared_sorted(SortingColumn {
        column_idx: 1,
        descending: false,
        nulls_first: true,
    }));
    let finding = find(
        &report,
        Check::SortingColumns,
        "row 7 (\"value 0\") comes after row 6 (\"value 6\") in a ascending order with nulls first",
    );
    assert_eq!(finding.location.column.as_deref(), Some("s"));
    // Descending on x, then: row 1 is larger than row 0.
    let report = check(&declared_sorted(SortingColumn {
        column_idx: 0,
        descending: true,
        nulls_first: false,
    }));
    find(
        &report,
        Check::SortingColumns,
        "row 1 (1) comes after row 0 (0) in a descending order",
    );
}

/// A 300-row sample file whose footer declares every row group sorted by `order`,
/// whatever its rows are: the writer refuses to declare an order the rows do not have,
/// so the claim is put into the footer afterwards.
fn declared_sorted(order: SortingColumn) -> Vec<u8> {
    let file = sample_file(300, WriterProperties::builder().build());
    let mut metadata = read_metadata(&Bytes::copy_from_slice(&file)).unwrap();
    for group in &mut metadata.row_groups {
        group.sorting_columns = Some(vec![order.clone()]);
    }
    let footer = footer_range(&file).unwrap();
    with_footer(&file[..footer.start], &metadata)
}

#[test]
fn truncated_and_unreadable_files_exit_2() {
    let file = sample_file(100, checked_props());
    let report = check(&file[..file.len() - 3]);
    assert_eq!(report.exit_code(), 2);
    assert!(!report.readable);
    assert_eq!(report.problems[0].check, Check::Magic);
    let report = check(b"PAR1");
    assert_eq!(report.exit_code(), 2);
    assert!(
        report.problems[0].message.contains("too short"),
        "{:?}",
        problems(&report)
    );
    let mut broken = file.clone();
    let len = broken.len();
    broken[len - 8..len - 4].copy_from_slice(&(len as u32).to_le_bytes());
    let report = check(&broken);
    assert_eq!(report.exit_code(), 2);
    assert!(
        report.problems[0].message.contains("does not fit a file"),
        "{:?}",
        problems(&report)
    );
}

/// The files of `data/` with the problems they really have; every other file must be
/// clean. Encrypted files (keys required) and the 2 GiB map are checked elsewhere.
const DATA_PROBLEMS: &[(&str, Check, &str)] = &[
    (
        "datapage_v1-corrupt-checksum.parquet",
        Check::Crc,
        "column a, page 0",
    ),
    (
        "datapage_v1-corrupt-checksum.parquet",
        Check::Crc,
        "column b, page 1",
    ),
    // parquet-mr 1.13-SNAPSHOT wrote a column index that calls every page all-null.
    (
        "datapage_v1-corrupt-checksum.parquet",
        Check::ColumnIndex,
        "null_pages[0] is wrong",
    ),
    (
        "datapage_v1-snappy-compressed-checksum.parquet",
        Check::ColumnIndex,
        "null_pages[1] is wrong",
    ),
    (
        "datapage_v1-uncompressed-checksum.parquet",
        Check::ColumnIndex,
        "null_pages[0] is wrong",
    ),
    (
        "rle-dict-uncompressed-corrupt-checksum.parquet",
        Check::Crc,
        "column long_field, page 0",
    ),
    (
        "rle-dict-uncompressed-corrupt-checksum.parquet",
        Check::Crc,
        "column binary_field, page 0",
    ),
    (
        "repeated_no_annotation.parquet",
        Check::RowGroup,
        "the file's num_rows is not the sum",
    ),
];

#[test]
fn every_corpus_data_file_is_clean_or_has_its_known_problems() {
    let files = herringbone_testkit::corpus_files(&["data"]);
    assert!(files.len() > 60, "corpus found: {}", files.len());
    let mut checked = 0;
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".encrypted") || name.starts_with("large_string_map") {
            continue;
        }
        let full = herringbone_testkit::corpus_root().join(&path);
        let report = verify(
            std::fs::File::open(&full).unwrap(),
            &VerifyOptions::default(),
        );
        let known: Vec<_> = DATA_PROBLEMS.iter().filter(|(f, ..)| *f == name).collect();
        if known.is_empty() {
            assert!(report.is_clean(), "{name}: {:#?}", problems(&report));
        } else {
            assert_eq!(report.exit_code(), 1, "{name}");
            for (_, check, text) in &known {
                find(&report, *check, text);
            }
            for problem in &report.problems {
                assert!(
                    known.iter().any(|(_, c, _)| *c == problem.check),
                    "{name}: unexpected {problem}"
                );
            }
        }
        checked += 1;
    }
    assert!(checked > 60);
}

#[test]
fn every_bad_data_file_is_flagged_with_its_damage() {
    let cases: &[(&str, u8, Check, &str)] = &[
        (
            "ARROW-GH-41317.parquet",
            1,
            Check::ChunkMetadata,
            "column timestamp_us_no_tz: chunk_metadata: num_values is not the sum of the data pages' num_values (expected 0, found 3)",
        ),
        (
            "ARROW-GH-41321.parquet",
            1,
            Check::Decoding,
            "dictionary indices: bit width 254 exceeds 32",
        ),
        (
            "ARROW-GH-45185.parquet",
            1,
            Check::Levels,
            "the page starts with repetition level 1 inside a record",
        ),
        (
            "ARROW-GH-47662.parquet",
            1,
            Check::Decoding,
            "the values section ends early: 91 of 100 values",
        ),
        (
            "ARROW-RS-GH-6229-DICTHEADER.parquet",
            1,
            Check::PageHeader,
            "required field `num_values`",
        ),
        (
            "ARROW-RS-GH-6229-LEVELS.parquet",
            1,
            Check::Levels,
            "repetition levels end early: 1 of 21",
        ),
        (
            "PARQUET-1481.parquet",
            2,
            Check::Schema,
            "unknown physical type Type(-7)",
        ),
    ];
    let dir = herringbone_testkit::corpus_root().join("bad_data");
    for (name, code, check_kind, text) in cases {
        let report = verify(
            std::fs::File::open(dir.join(name)).unwrap(),
            &VerifyOptions::default(),
        );
        assert_eq!(
            report.exit_code(),
            *code,
            "{name}: {:#?}",
            problems(&report)
        );
        find(&report, *check_kind, text);
    }
    // Upstream lists it as bad because a reader crashed on it, but a one-entry
    // dictionary with index bit width 0 is valid: every index is 0.
    let report = verify(
        std::fs::File::open(dir.join("ARROW-GH-43605.parquet")).unwrap(),
        &VerifyOptions::default(),
    );
    assert!(report.is_clean(), "{:#?}", problems(&report));
}
