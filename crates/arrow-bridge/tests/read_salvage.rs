//! Salvage reading: files damaged in each way the specification's error recovery section
//! names, read with `with_salvage(true)`; the rows returned are the original rows minus
//! exactly the rows reported lost, and the loss is what the damage implies (the page's
//! rows from the offset index, the rest of a chunk, a whole chunk).

use std::ops::Range;
use std::sync::Arc;

use arrow_array::builder::{Int32Builder, ListBuilder};
use arrow_array::{ArrayRef, BooleanArray, Int64Array, RecordBatch, StringArray};
use arrow_select::concat::concat_batches;
use arrow_select::filter::filter_record_batch;
use bytes::Bytes;
use herringbone_arrow_bridge::read::{LossScope, ParquetRecordBatchReaderBuilder, SalvageReport};
use herringbone_arrow_bridge::schema::Projection;
use herringbone_arrow_bridge::write::{ArrowWriter, DataPageVersion, WriterProperties};
use herringbone_codec::compression::Codec;
use herringbone_codec::page::{PageReader, PageReaderOptions, column_chunk_range};
use herringbone_format::footer::{encode_footer, footer_range, read_metadata, read_offset_index};
use herringbone_format::metadata::{OffsetIndex, PageLocation, PageType};
use herringbone_format::thrift::{CompactWriter, ThriftStruct};

const ROWS: usize = 1000;
const GROUP_ROWS: usize = 500;
const PAGE_ROWS: usize = 100;
/// Leaf columns: `id`, `name`, `values.list.item`.
const ID: usize = 0;
const NAME: usize = 1;
const VALUES: usize = 2;

fn table() -> RecordBatch {
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(
        (0..ROWS as i64).map(|i| i * 3),
    ));
    let names: ArrayRef = Arc::new(StringArray::from_iter(
        (0..ROWS).map(|i| (i % 7 != 0).then(|| format!("name-{}", i % 10))),
    ));
    let mut lists = ListBuilder::new(Int32Builder::new());
    for i in 0..ROWS {
        for j in 0..i % 4 {
            lists.values().append_value((i + j) as i32);
        }
        lists.append(i % 11 != 0);
    }
    let lists: ArrayRef = Arc::new(lists.finish());
    RecordBatch::try_from_iter([("id", ids), ("name", names), ("values", lists)]).unwrap()
}

struct Options {
    version: DataPageVersion,
    codec: Codec,
    crc: bool,
}

fn write(options: &Options) -> Vec<u8> {
    let properties = WriterProperties::builder()
        .set_data_page_version(options.version)
        .set_compression(options.codec)
        .set_write_crc(options.crc)
        .set_data_page_row_limit(PAGE_ROWS)
        .set_max_row_group_rows(GROUP_ROWS)
        .set_column_dictionary_enabled("id", false)
        .set_column_dictionary_enabled("name", true)
        .build();
    let batch = table();
    let mut writer = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(properties)).unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();
    writer.into_inner()
}

/// A page of a chunk as it lies in the file.
#[derive(Debug, Clone)]
struct PageAt {
    /// Index in the chunk (counting the dictionary page).
    index: usize,
    page_type: PageType,
    header: Range<usize>,
    body: Range<usize>,
}

fn pages(file: &[u8], group: usize, column: usize) -> Vec<PageAt> {
    let bytes = Bytes::copy_from_slice(file);
    let metadata = read_metadata(&bytes).unwrap();
    let meta = metadata.row_groups[group].columns[column]
        .meta_data
        .as_ref()
        .unwrap();
    let range = column_chunk_range(meta, None, file.len() as u64).unwrap();
    let chunk = bytes.slice(range.start as usize..range.end as usize);
    let mut reader = PageReader::new(chunk, Codec::Uncompressed, PageReaderOptions::default())
        .with_base_offset(range.start);
    let mut out = Vec::new();
    loop {
        let start = reader.offset() as usize;
        let index = reader.page_index();
        let Some(header) = reader.skip_page().unwrap() else {
            break;
        };
        let end = reader.offset() as usize;
        let body = end - header.compressed_page_size as usize..end;
        out.push(PageAt {
            index,
            page_type: header.type_,
            header: start..body.start,
            body,
        });
    }
    out
}

/// The `n`th data page of a chunk.
fn data_page(file: &[u8], group: usize, column: usize, n: usize) -> PageAt {
    pages(file, group, column)
        .into_iter()
        .filter(|p| p.page_type != PageType::DICTIONARY_PAGE)
        .nth(n)
        .unwrap()
}

/// The rows (in the row group) of the `n`th data page of a chunk, from the offset index.
fn page_rows(file: &[u8], group: usize, column: usize, n: usize) -> Range<usize> {
    let bytes = Bytes::copy_from_slice(file);
    let metadata = read_metadata(&bytes).unwrap();
    let chunk = &metadata.row_groups[group].columns[column];
    let index = read_offset_index(&bytes, chunk).unwrap().unwrap();
    let first = |i: usize| index.page_locations[i].first_row_index as usize;
    let end = if n + 1 < index.page_locations.len() {
        first(n + 1)
    } else {
        metadata.row_groups[group].num_rows as usize
    };
    first(n)..end
}

/// The rows salvaged and the report; the same on 2 and 3 decode threads (checked).
fn salvage(file: Vec<u8>, projection: Projection) -> (RecordBatch, SalvageReport) {
    salvage_with(file, projection, true)
}

/// [`salvage`], the offset index used or not.
fn salvage_with(
    file: Vec<u8>,
    projection: Projection,
    offset_index: bool,
) -> (RecordBatch, SalvageReport) {
    let file = Bytes::from(file);
    let read = |threads: usize| {
        let mut reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
            .unwrap()
            .with_offset_index(offset_index)
            .with_projection(projection.clone())
            .with_batch_size(64)
            .with_salvage(true)
            .with_threads(threads)
            .build()
            .unwrap();
        let schema = arrow_array::RecordBatchReader::schema(&reader);
        let batches: Vec<RecordBatch> = reader.by_ref().map(|b| b.unwrap()).collect();
        let report = reader.salvage_report().unwrap().clone();
        (batches, schema, report)
    };
    let (batches, schema, report) = read(1);
    for threads in [2, 3] {
        let (many, _, many_report) = read(threads);
        assert_eq!(many, batches, "batches on {threads} threads");
        assert_eq!(many_report, report, "report on {threads} threads");
    }
    (concat_batches(&schema, &batches).unwrap(), report)
}

/// The table without the file rows `lost`, projected to `columns`.
fn expected(lost: &[Range<u64>], columns: &[usize]) -> RecordBatch {
    let keep = BooleanArray::from_iter(
        (0..ROWS as u64).map(|row| Some(!lost.iter().any(|r| r.contains(&row)))),
    );
    filter_record_batch(&table(), &keep)
        .unwrap()
        .project(columns)
        .unwrap()
}

/// Checks the salvaged rows against the table minus exactly the reported rows.
fn check(file: Vec<u8>) -> SalvageReport {
    check_with(file, true)
}

/// [`check`], the offset index used or not.
fn check_with(file: Vec<u8>, offset_index: bool) -> SalvageReport {
    let (batch, report) = salvage_with(file, Projection::All, offset_index);
    let lost: Vec<Range<u64>> = report
        .losses()
        .iter()
        .map(|l| l.file_rows.clone())
        .collect();
    assert_eq!(batch, expected(&lost, &[0, 1, 2]), "{report:?}");
    let mut dropped = vec![false; ROWS];
    for range in &lost {
        for row in range.clone() {
            dropped[row as usize] = true;
        }
    }
    assert_eq!(
        report.rows_dropped(),
        dropped.iter().filter(|d| **d).count()
    );
    assert_eq!(batch.num_rows(), ROWS - report.rows_dropped());
    report
}

fn flip(file: &mut [u8], range: Range<usize>) {
    for byte in &mut file[range] {
        *byte ^= 0x5a;
    }
}

fn v1_crc() -> Options {
    Options {
        version: DataPageVersion::V1,
        codec: Codec::Uncompressed,
        crc: true,
    }
}

fn v2_crc() -> Options {
    Options {
        version: DataPageVersion::V2,
        ..v1_crc()
    }
}

#[test]
fn a_clean_file_loses_nothing() {
    for options in [v1_crc(), v2_crc()] {
        let report = check(write(&options));
        assert!(report.is_clean());
        assert_eq!(report.rows_dropped(), 0);
    }
}

#[test]
fn a_page_failing_its_crc_loses_its_rows_flat_column() {
    for options in [v1_crc(), v2_crc()] {
        let mut file = write(&options);
        let page = data_page(&file, 0, ID, 2);
        assert_eq!(page_rows(&file, 0, ID, 2), 200..300);
        flip(&mut file, page.body.start + 3..page.body.start + 7);
        // Not a salvage read: the damage is an error.
        let plain = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file.clone()))
            .unwrap()
            .with_verify_crc(true)
            .build()
            .unwrap()
            .collect::<Result<Vec<_>, _>>();
        assert!(plain.is_err());
        let report = check(file);
        assert_eq!(report.losses().len(), 1, "{report:?}");
        let loss = &report.losses()[0];
        assert_eq!(loss.row_group, 0);
        assert_eq!(loss.column.as_deref(), Some("id"));
        assert_eq!(loss.page, Some(page.index));
        assert_eq!(loss.offset, Some(page.header.start as u64));
        assert_eq!(loss.rows, 200..300);
        assert_eq!(loss.scope, LossScope::Page);
        assert!(loss.reason.contains("CRC"), "{}", loss.reason);
        assert_eq!(report.rows_dropped(), 100);
    }
}

#[test]
fn an_undecompressible_page_without_crc_loses_its_rows() {
    for version in [DataPageVersion::V1, DataPageVersion::V2] {
        let options = Options {
            version,
            codec: Codec::Snappy,
            crc: false,
        };
        let mut file = write(&options);
        let page = data_page(&file, 1, ID, 3);
        let rows = page_rows(&file, 1, ID, 3);
        // The body's first bytes are snappy's varint of the uncompressed length (after
        // the uncompressed level sections in a v2 page, which a flat required column
        // does not have).
        file[page.body.start..page.body.start + 5].fill(0xff);
        let report = check(file);
        assert_eq!(report.losses().len(), 1, "{report:?}");
        let loss = &report.losses()[0];
        assert_eq!((loss.row_group, loss.scope), (1, LossScope::Page));
        assert_eq!(loss.rows, rows);
        assert_eq!(loss.file_rows, 800..900);
    }
}

#[test]
fn a_page_with_a_wrong_value_count_loses_its_chunk() {
    // More values declared than the page holds fails to decode; fewer decodes (the
    // rest of the page is not looked at). Either way the pages no longer add up to the
    // row group's rows, so no row of the chunk can be placed.
    for declared in [150, 80] {
        let mut file = write(&v1_crc());
        let page = data_page(&file, 0, ID, 2);
        set_num_values(&mut file, &page, declared);
        let report = check(file);
        assert_eq!(report.losses().len(), 1, "{report:?}");
        let loss = &report.losses()[0];
        assert_eq!(loss.column.as_deref(), Some("id"));
        assert_eq!(
            (loss.scope, loss.rows.clone()),
            (LossScope::Chunk, 0..GROUP_ROWS)
        );
        let total = GROUP_ROWS - 100 + declared as usize;
        assert!(
            loss.reason
                .contains(&format!("the pages hold {total} rows")),
            "{}",
            loss.reason
        );
    }
}

/// Rewrites the `num_values` of a v1 data page's header (same encoded size).
fn set_num_values(file: &mut [u8], page: &PageAt, num_values: i32) {
    use herringbone_format::metadata::PageHeader;
    use herringbone_format::thrift::{CompactReader, CompactWriter, ThriftStruct};
    let header_bytes = Bytes::copy_from_slice(&file[page.header.clone()]);
    let mut header = PageHeader::read(&mut CompactReader::from_bytes(&header_bytes)).unwrap();
    header.data_page_header.as_mut().unwrap().num_values = num_values;
    let mut writer = CompactWriter::new();
    header.write(&mut writer);
    let encoded = writer.into_inner();
    assert_eq!(encoded.len(), page.header.len(), "the count keeps its size");
    file[page.header.clone()].copy_from_slice(&encoded);
}

#[test]
fn a_broken_page_header_loses_the_rest_of_its_chunk_or_with_the_offset_index_its_page() {
    for options in [v1_crc(), v2_crc()] {
        let mut file = write(&options);
        let page = data_page(&file, 0, NAME, 2);
        let rows = page_rows(&file, 0, NAME, 2);
        file[page.header.start..page.header.start + 3].fill(0xff);
        let report = check_with(file.clone(), false);
        assert_eq!(report.losses().len(), 1, "{report:?}");
        let loss = &report.losses()[0];
        assert_eq!(loss.column.as_deref(), Some("name"));
        assert_eq!(loss.scope, LossScope::RestOfChunk);
        assert_eq!(loss.rows, rows.start..GROUP_ROWS);
        assert!(loss.reason.contains("page header"), "{}", loss.reason);
        // The offset index says where the next page starts and what rows this one held.
        let report = check(file);
        assert_eq!(report.losses().len(), 1, "{report:?}");
        let loss = &report.losses()[0];
        assert_eq!(loss.column.as_deref(), Some("name"));
        assert_eq!((loss.scope, loss.rows.clone()), (LossScope::Page, rows));
        assert_eq!(loss.offset, Some(page.header.start as u64));
        assert!(
            loss.reason.contains("page header") && loss.reason.contains("offset index"),
            "{}",
            loss.reason
        );
    }
}

#[test]
fn an_offset_index_that_disagrees_with_the_pages_is_not_gone_by() {
    let mut file = write(&v1_crc());
    let page = data_page(&file, 0, NAME, 2);
    let rows = page_rows(&file, 0, NAME, 2);
    file[page.header.start..page.header.start + 3].fill(0xff);
    // Page 1 of `name` claims one row fewer than its levels hold: the index still fits
    // the chunk, but it is not trusted past the disagreement.
    let file = with_edited_index(file, 0, NAME, |pages| pages[1].first_row_index += 1);
    let report = check(file);
    assert_eq!(report.losses().len(), 1, "{report:?}");
    let loss = &report.losses()[0];
    assert_eq!(
        (loss.scope, loss.rows.clone()),
        (LossScope::RestOfChunk, rows.start..GROUP_ROWS)
    );
}

#[test]
fn an_offset_index_that_does_not_fit_its_chunk_does_not_lose_the_row_group() {
    let mut file = write(&v1_crc());
    let page = data_page(&file, 0, ID, 1);
    let rows = page_rows(&file, 0, ID, 1);
    flip(&mut file, page.body.start..page.body.start + 2);
    // `name`'s index puts a page before its chunk: left out, its pages walked by their
    // headers, while `id`'s damaged page is stepped over by its own index.
    let file = with_edited_index(file, 0, NAME, |pages| pages[0].offset = 0);
    let report = check(file);
    assert_eq!(report.losses().len(), 1, "{report:?}");
    let loss = &report.losses()[0];
    assert_eq!(loss.column.as_deref(), Some("id"));
    assert_eq!((loss.scope, loss.rows.clone()), (LossScope::Page, rows));
}

/// `file` with the offset index of leaf `column` in row group `group` replaced by `edit`
/// of it, written after the data and pointed to by a rewritten footer.
fn with_edited_index(
    file: Vec<u8>,
    group: usize,
    column: usize,
    edit: impl Fn(&mut Vec<PageLocation>),
) -> Vec<u8> {
    let bytes = Bytes::from(file);
    let mut metadata = read_metadata(&bytes).unwrap();
    let chunk = &metadata.row_groups[group].columns[column];
    let mut index: OffsetIndex = read_offset_index(&bytes, chunk).unwrap().unwrap();
    edit(&mut index.page_locations);
    let footer = footer_range(&bytes).unwrap();
    let mut writer = CompactWriter::from_vec(bytes[..footer.start].to_vec());
    let at = footer.start;
    index.write(&mut writer);
    let mut out = writer.into_inner();
    let chunk = &mut metadata.row_groups[group].columns[column];
    chunk.offset_index_offset = Some(at as i64);
    chunk.offset_index_length = Some((out.len() - at) as i32);
    encode_footer(&metadata, &mut out);
    out
}

#[test]
fn a_chunk_pointing_outside_the_file_loses_its_row_group() {
    let file = write(&v1_crc());
    let bytes = Bytes::from(file.clone());
    let mut metadata = read_metadata(&bytes).unwrap();
    let footer = footer_range(&file).unwrap();
    let len = file.len() as i64;
    let meta = metadata.row_groups[1].columns[NAME]
        .meta_data
        .as_mut()
        .unwrap();
    meta.data_page_offset = len + 1000;
    meta.dictionary_page_offset = None;
    let mut damaged = file[..footer.start].to_vec();
    encode_footer(&metadata, &mut damaged);
    let report = check(damaged);
    assert_eq!(report.losses().len(), 1, "{report:?}");
    let loss = &report.losses()[0];
    assert_eq!((loss.row_group, loss.scope), (1, LossScope::Chunk));
    assert_eq!(loss.file_rows, 500..1000);
    assert!(
        loss.reason.contains("beyond the end of the file"),
        "{}",
        loss.reason
    );
}

#[test]
fn a_corrupt_dictionary_page_loses_its_chunk() {
    for options in [v1_crc(), v2_crc()] {
        let mut file = write(&options);
        let dictionary = pages(&file, 0, NAME).remove(0);
        assert_eq!(dictionary.page_type, PageType::DICTIONARY_PAGE);
        flip(&mut file, dictionary.body.start..dictionary.body.start + 2);
        let report = check(file);
        assert_eq!(report.losses().len(), 1, "{report:?}");
        let loss = &report.losses()[0];
        assert_eq!((loss.row_group, loss.scope), (0, LossScope::Chunk));
        assert_eq!(loss.rows, 0..GROUP_ROWS);
        assert!(
            loss.reason.starts_with("dictionary page"),
            "{}",
            loss.reason
        );
    }
}

#[test]
fn a_damaged_v2_page_of_a_list_column_loses_its_rows() {
    let mut file = write(&v2_crc());
    let page = data_page(&file, 1, VALUES, 1);
    let rows = page_rows(&file, 1, VALUES, 1);
    flip(&mut file, page.body.end - 3..page.body.end - 1);
    let report = check(file);
    assert_eq!(report.losses().len(), 1, "{report:?}");
    let loss = &report.losses()[0];
    assert_eq!(loss.column.as_deref(), Some("values.list.item"));
    assert_eq!((loss.scope, loss.rows.clone()), (LossScope::Page, rows));
}

#[test]
fn a_damaged_v1_page_of_a_list_column_loses_its_rows_by_the_offset_index() {
    let mut file = write(&v1_crc());
    let page = data_page(&file, 1, VALUES, 2);
    let rows = page_rows(&file, 1, VALUES, 2);
    flip(&mut file, page.body.end - 3..page.body.end - 1);
    let report = check(file);
    assert_eq!(report.losses().len(), 1, "{report:?}");
    let loss = &report.losses()[0];
    assert_eq!(loss.column.as_deref(), Some("values.list.item"));
    assert_eq!((loss.scope, loss.rows.clone()), (LossScope::Page, rows));
}

#[test]
fn a_damaged_v1_page_of_a_list_column_without_offset_index_loses_the_rest_of_its_chunk() {
    let mut file = write(&v1_crc());
    let page = data_page(&file, 1, VALUES, 2);
    let first = page_rows(&file, 1, VALUES, 2).start;
    flip(&mut file, page.body.end - 3..page.body.end - 1);
    let report = check_with(file, false);
    assert_eq!(report.losses().len(), 1, "{report:?}");
    let loss = &report.losses()[0];
    assert_eq!(loss.scope, LossScope::RestOfChunk);
    // The record begun last in the page before may continue into the damaged one.
    assert_eq!(loss.rows, first - 1..GROUP_ROWS);
    assert!(
        loss.reason.contains("rows it held are not known"),
        "{}",
        loss.reason
    );
}

#[test]
fn losses_of_several_columns_drop_their_union_once() {
    let mut file = write(&v1_crc());
    let id_page = data_page(&file, 0, ID, 1);
    let name_page = data_page(&file, 0, NAME, 1);
    flip(&mut file, id_page.body.start..id_page.body.start + 2);
    flip(&mut file, name_page.body.end - 2..name_page.body.end);
    let report = check(file);
    assert_eq!(report.losses().len(), 2, "{report:?}");
    assert_eq!(report.losses()[0].rows, 100..200);
    assert_eq!(report.losses()[1].rows, 100..200);
    assert_eq!(report.rows_dropped(), 100);
}

#[test]
fn damage_outside_the_projection_loses_nothing() {
    let mut file = write(&v1_crc());
    let page = data_page(&file, 0, NAME, 1);
    flip(&mut file, page.body.start..page.body.start + 4);
    let (batch, report) = salvage(file, Projection::Roots(vec![0, 2]));
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(batch, expected(&[], &[0, 2]));
}

#[test]
fn offset_and_limit_count_the_files_rows() {
    let mut file = write(&v1_crc());
    let page = data_page(&file, 0, ID, 1);
    flip(&mut file, page.body.start..page.body.start + 4);
    let mut reader = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file))
        .unwrap()
        .with_salvage(true)
        .with_offset(50)
        .with_limit(200)
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = reader.by_ref().map(|b| b.unwrap()).collect();
    let ids: Vec<i64> = batches
        .iter()
        .flat_map(|b| {
            let ids = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
            ids.values().to_vec()
        })
        .collect();
    let want: Vec<i64> = (50..250)
        .filter(|r| !(100..200).contains(r))
        .map(|r| r * 3)
        .collect();
    assert_eq!(ids, want);
    assert_eq!(reader.salvage_report().unwrap().rows_dropped(), 100);
}

/// Every corpus file (`data/`, `bad_data/`): a salvage read never panics; when it reads
/// to the end, the rows it returned plus the rows it reports dropped are the file's
/// rows; and a file the plain reader reads whole (CRCs checked) salvages to the same
/// rows with nothing lost (no false alarm).
#[test]
fn every_corpus_file_salvages_to_returned_plus_dropped_rows() {
    let mut salvaged_with_losses = Vec::new();
    for relative in herringbone_testkit::corpus_files(&["data", "bad_data"]) {
        let name = relative.display().to_string();
        if name.ends_with(".encrypted") || name.contains("large_string_map") {
            continue;
        }
        let file = Bytes::from(herringbone_testkit::read_corpus_file(&relative));
        let plain = ParquetRecordBatchReaderBuilder::try_new(file.clone())
            .and_then(|b| b.with_verify_crc(true).build())
            .ok()
            .and_then(|reader| reader.collect::<Result<Vec<_>, _>>().ok());
        let Ok(builder) = ParquetRecordBatchReaderBuilder::try_new(file) else {
            continue;
        };
        let total: usize = builder
            .metadata()
            .row_groups
            .iter()
            .map(|g| usize::try_from(g.num_rows).unwrap_or(0))
            .sum();
        let Ok(mut reader) = builder.with_salvage(true).build() else {
            continue;
        };
        let batches: Result<Vec<RecordBatch>, _> = reader.by_ref().collect();
        let Ok(batches) = batches else {
            continue;
        };
        let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        let report = reader.salvage_report().unwrap();
        assert_eq!(rows + report.rows_dropped(), total, "{name}: {report:?}");
        if let Some(plain) = plain {
            assert!(report.is_clean(), "{name}: a false alarm: {report:?}");
            assert_eq!(batches, plain, "{name}");
        }
        if !report.is_clean() {
            salvaged_with_losses.push(name);
        }
    }
    // The corpus' damaged files that salvage reads past (rather than failing on).
    assert!(
        salvaged_with_losses
            .iter()
            .any(|n| n.ends_with("datapage_v1-corrupt-checksum.parquet")),
        "{salvaged_with_losses:?}"
    );
}

/// Damage anywhere in any page body (every column, dictionary and data pages, v1 and
/// v2, alone or three at a time): with CRCs the damage is always found, and the rows
/// returned are the original rows minus exactly the rows reported lost.
#[test]
fn damage_in_any_page_body_loses_exactly_what_is_reported() {
    for options in [v1_crc(), v2_crc()] {
        let file = write(&options);
        let mut bodies = Vec::new();
        for group in 0..2 {
            for column in [ID, NAME, VALUES] {
                bodies.extend(pages(&file, group, column).into_iter().map(|p| p.body));
            }
        }
        // A small deterministic generator (xorshift) picks pages and bytes.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for round in 0..60 {
            let mut damaged = file.clone();
            let hits = if round % 3 == 0 { 3 } else { 1 };
            for _ in 0..hits {
                let body = &bodies[next(bodies.len())];
                let at = body.start + next(body.len());
                damaged[at] ^= 1 << next(8);
            }
            let report = check(damaged);
            assert!(!report.is_clean(), "round {round}: damage not found");
        }
    }
}

#[test]
fn a_limit_ending_inside_a_loss_stops_before_it() {
    let mut file = write(&v1_crc());
    let page = data_page(&file, 0, ID, 1);
    flip(&mut file, page.body.start..page.body.start + 4);
    let mut reader = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file))
        .unwrap()
        .with_salvage(true)
        .with_limit(150)
        .build()
        .unwrap();
    let rows: usize = reader.by_ref().map(|b| b.unwrap().num_rows()).sum();
    assert_eq!(rows, 100);
    let report = reader.salvage_report().unwrap();
    // The page's loss only: the reader never stepped into it.
    assert_eq!(report.losses().len(), 1, "{report:?}");
    assert_eq!(report.losses()[0].scope, LossScope::Page);
    assert_eq!(report.rows_dropped(), 50);
}

/// A filtered scan reads on past damage as the reader does: the predicate's columns are
/// decoded first and the others for the rows it keeps (late materialisation), and the
/// rows returned are the salvaged rows where the predicate holds.
#[test]
fn a_filtered_salvage_scan_returns_the_salvaged_rows_that_match() {
    use herringbone_arrow_bridge::predicate::Predicate;
    use herringbone_arrow_bridge::scan::{PruningOptions, ScanBuilder};
    let mut file = write(&v1_crc());
    // A page of `name` (rows 100..200) and one of `id` (rows 700..800).
    let name_page = data_page(&file, 0, NAME, 1);
    flip(&mut file, name_page.body.start..name_page.body.start + 4);
    let id_page = data_page(&file, 1, ID, 2);
    flip(&mut file, id_page.body.start..id_page.body.start + 4);
    let (_, report) = salvage(file.clone(), Projection::All);
    assert_eq!(report.rows_dropped(), 200, "{report:?}");
    for (text, predicate_roots) in [
        ("id >= 150 AND id < 2400", vec![0]),
        ("name = 'name-3' OR id > 2900", vec![0, 1]),
        ("id < 30", vec![0]),
    ] {
        let predicate = Predicate::parse(text).unwrap();
        for roots in [vec![0, 1, 2], vec![1, 2], vec![2]] {
            // What the scan reads: its projection and the predicate's columns; damage
            // outside them loses nothing.
            let mut read: Vec<usize> = roots.iter().chain(&predicate_roots).copied().collect();
            read.sort_unstable();
            read.dedup();
            let (salvaged, lost) = salvage(file.clone(), Projection::Roots(read.clone()));
            let positions: Vec<usize> = roots
                .iter()
                .map(|r| read.iter().position(|c| c == r).unwrap())
                .collect();
            let expected = predicate
                .bind(&salvaged.schema())
                .unwrap()
                .filter(&salvaged)
                .unwrap()
                .project(&positions)
                .unwrap();
            // With pruning the rows pruned are never checked, so a loss among them is
            // not reported; without, every loss is.
            for pruning in [true, false] {
                let options = PruningOptions {
                    statistics: pruning,
                    bloom_filters: pruning,
                    page_index: pruning,
                };
                let mut scan = ScanBuilder::try_new(Bytes::from(file.clone()))
                    .unwrap()
                    .with_predicate(predicate.clone())
                    .with_projection(Projection::Roots(roots.clone()))
                    .with_batch_size(64)
                    .with_pruning(options)
                    .with_salvage(true)
                    .build()
                    .unwrap();
                let schema = arrow_array::RecordBatchReader::schema(&scan);
                let batches: Vec<RecordBatch> = scan.by_ref().map(|b| b.unwrap()).collect();
                let got = concat_batches(&schema, &batches).unwrap();
                assert_eq!(got, expected, "{text}, roots {roots:?}, pruning {pruning}");
                if !pruning {
                    assert_eq!(
                        scan.salvage_report().unwrap().rows_dropped(),
                        lost.rows_dropped(),
                        "{text}, roots {roots:?}"
                    );
                }
            }
        }
    }
}
