//! Skipping through the offset index: a row selection reads the same rows with the
//! chunks' offset indexes as without them, and as filtering the whole file does, on
//! generated multi-page files (random selections) and on the corpus files that carry an
//! offset index; an offset index that does not fit its chunk is an error naming the row
//! group, column and page (never a fallback, never a read outside the chunk).

use std::sync::Arc;

use arrow_array::builder::{Int32Builder, ListBuilder};
use arrow_array::{ArrayRef, BooleanArray, Int64Array, RecordBatch, StringArray};
use arrow_select::concat::concat_batches;
use arrow_select::filter::filter_record_batch;
use bytes::Bytes;
use herringbone_arrow_bridge::read::{ParquetRecordBatchReaderBuilder, RowSelection, RowSelector};
use herringbone_format::footer::{encode_footer, read_metadata, read_offset_index};
use herringbone_format::metadata::{OffsetIndex, PageLocation};
use herringbone_format::thrift::{CompactWriter, ThriftStruct};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::{WriterProperties, WriterVersion};
use proptest::prelude::*;

/// `rows` rows of a flat nullable number, a string and a list, in pages of about
/// `page_rows` rows, in row groups of `group_rows`.
fn file(rows: usize, page_rows: usize, group_rows: usize, version: WriterVersion) -> Bytes {
    let ids: ArrayRef = Arc::new(Int64Array::from_iter(
        (0..rows as i64).map(|i| (i % 5 != 0).then_some(i * 3)),
    ));
    let names: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..rows).map(|i| format!("name-{}", i % 37)),
    ));
    let mut lists = ListBuilder::new(Int32Builder::new());
    for i in 0..rows {
        for j in 0..i % 4 {
            lists.values().append_value((i + j) as i32);
        }
        lists.append(i % 11 != 0);
    }
    let lists: ArrayRef = Arc::new(lists.finish());
    let batch =
        RecordBatch::try_from_iter([("id", ids), ("name", names), ("values", lists)]).unwrap();
    let properties = WriterProperties::builder()
        .set_writer_version(version)
        .set_compression(Compression::SNAPPY)
        .set_data_page_row_count_limit(page_rows)
        .set_write_batch_size(page_rows)
        .set_max_row_group_row_count(Some(group_rows))
        .build();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(properties)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    Bytes::from(out)
}

fn read_all(file: &Bytes) -> Option<RecordBatch> {
    let reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .ok()?
        .build()
        .ok()?;
    let schema = reader.schema_ref();
    let batches = reader.collect::<Result<Vec<_>, _>>().ok()?;
    concat_batches(&schema, &batches).ok()
}

trait SchemaRefOf {
    fn schema_ref(&self) -> arrow_schema::SchemaRef;
}

impl SchemaRefOf for herringbone_arrow_bridge::read::ParquetRecordBatchReader {
    fn schema_ref(&self) -> arrow_schema::SchemaRef {
        arrow_array::RecordBatchReader::schema(self)
    }
}

/// The selected rows of `file`, read with or without the offset index, and the pages
/// skipped.
fn read_selected(
    file: &Bytes,
    selectors: &[RowSelector],
    offset_index: bool,
    batch_size: usize,
) -> (RecordBatch, usize) {
    let mut reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .with_offset_index(offset_index)
        .with_batch_size(batch_size)
        .with_row_selection(RowSelection::from(selectors.to_vec()))
        .build()
        .unwrap();
    let schema = reader.schema_ref();
    let batches = reader
        .by_ref()
        .collect::<Result<Vec<_>, _>>()
        .unwrap_or_else(|e| panic!("offset index {offset_index}: {e}"));
    let skipped = reader.metrics().pages_skipped;
    (concat_batches(&schema, &batches).unwrap(), skipped)
}

/// `whole` filtered by the selection: what a selective read must return.
fn brute_force(whole: &RecordBatch, selectors: &[RowSelector]) -> RecordBatch {
    let mut mask = Vec::with_capacity(whole.num_rows());
    for s in selectors {
        mask.extend(std::iter::repeat_n(!s.skip, s.row_count));
    }
    mask.resize(whole.num_rows(), false);
    filter_record_batch(whole, &BooleanArray::from(mask)).unwrap()
}

/// Runs alternating skip / select from `lengths`, covering `rows` at most.
fn selectors(lengths: &[(usize, usize)], rows: usize) -> Vec<RowSelector> {
    let mut out = Vec::new();
    let mut at = 0;
    for &(skip, select) in lengths {
        let skip = skip.min(rows - at);
        at += skip;
        let select = select.min(rows - at);
        at += select;
        out.push(RowSelector::skip(skip));
        out.push(RowSelector::select(select));
    }
    out
}

fn check_selection(file: &Bytes, whole: &RecordBatch, selection: &[RowSelector]) -> usize {
    let expected = brute_force(whole, selection);
    let mut skipped_with_index = 0;
    for offset_index in [true, false] {
        for batch_size in [7, 1024] {
            let (got, skipped) = read_selected(file, selection, offset_index, batch_size);
            assert_eq!(
                got, expected,
                "offset index {offset_index}, batch size {batch_size}"
            );
            if offset_index {
                skipped_with_index = skipped;
            }
        }
    }
    skipped_with_index
}

#[test]
fn selections_read_like_a_filter_with_and_without_the_offset_index() {
    let rows = 20_000;
    for version in [WriterVersion::PARQUET_1_0, WriterVersion::PARQUET_2_0] {
        let file = file(rows, 500, 7_000, version);
        let whole = read_all(&file).unwrap();
        // Ten runs of 50 rows, one in each tenth of the file, crossing row groups.
        let lengths: Vec<(usize, usize)> = (0..10).map(|_| (1_950, 50)).collect();
        let skipped = check_selection(&file, &whole, &selectors(&lengths, rows));
        assert!(skipped > 50, "{version:?}: {skipped} pages skipped");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn random_selections_read_like_a_filter(
        v2 in any::<bool>(),
        page_rows in 20usize..300,
        lengths in proptest::collection::vec((0usize..1_500, 0usize..400), 1..12),
    ) {
        let rows = 4_000;
        let version = if v2 { WriterVersion::PARQUET_2_0 } else { WriterVersion::PARQUET_1_0 };
        let file = file(rows, page_rows, 1_700, version);
        let whole = read_all(&file).unwrap();
        check_selection(&file, &whole, &selectors(&lengths, rows));
    }
}

#[test]
fn corpus_files_with_an_offset_index_read_selections_like_a_filter() {
    let mut checked = Vec::new();
    for path in herringbone_testkit::corpus_files(&["data"]) {
        let file = Bytes::from(herringbone_testkit::read_corpus_file(&path));
        let Ok(metadata) = read_metadata(&file) else {
            continue;
        };
        let indexed = metadata.row_groups.iter().any(|g| {
            g.columns
                .iter()
                .any(|c| c.offset_index_offset.is_some() && c.crypto_metadata.is_none())
        });
        // Files the reader cannot read whole (encrypted, unsupported) are not the
        // subject here.
        let Some(whole) = indexed.then(|| read_all(&file)).flatten() else {
            continue;
        };
        let rows = whole.num_rows();
        if rows < 2 {
            continue;
        }
        // Every third row of the first half, then a run in the second half.
        let mut selection: Vec<RowSelector> = (0..rows / 6)
            .flat_map(|_| [RowSelector::skip(2), RowSelector::select(1)])
            .collect();
        selection.push(RowSelector::skip(rows / 4));
        selection.push(RowSelector::select(rows / 8 + 1));
        check_selection(&file, &whole, &selection);
        checked.push(path.file_name().unwrap().to_string_lossy().into_owned());
    }
    eprintln!("checked: {checked:?}");
    assert!(
        checked.len() >= 3,
        "corpus files with an offset index: {checked:?}"
    );
}

/// `file` (one row group) with the offset index of leaf column `column` replaced by
/// `edit` of it, written after the data and pointed to by a rewritten footer.
fn with_edited_index(file: &Bytes, column: usize, edit: impl Fn(&mut Vec<PageLocation>)) -> Bytes {
    let mut metadata = read_metadata(file).unwrap();
    let chunk = &metadata.row_groups[0].columns[column];
    let mut index: OffsetIndex = read_offset_index(file, chunk).unwrap().unwrap();
    edit(&mut index.page_locations);
    let footer_len = u32::from_le_bytes(file[file.len() - 8..file.len() - 4].try_into().unwrap());
    let mut out = file[..file.len() - 8 - footer_len as usize].to_vec();
    let at = out.len();
    let mut writer = CompactWriter::from_vec(out);
    index.write(&mut writer);
    out = writer.into_inner();
    let chunk = &mut metadata.row_groups[0].columns[column];
    chunk.offset_index_offset = Some(at as i64);
    chunk.offset_index_length = Some((out.len() - at) as i32);
    encode_footer(&metadata, &mut out);
    Bytes::from(out)
}

fn selective_error(file: &Bytes) -> String {
    let reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .with_row_selection(RowSelection::from(vec![
            RowSelector::skip(1_500),
            RowSelector::select(10),
        ]))
        .build()
        .unwrap();
    let error = reader.into_iter().find_map(|b| b.err()).expect("an error");
    error.to_string()
}

#[test]
fn offset_indexes_that_do_not_fit_their_chunk_are_errors_naming_the_page() {
    let file = file(3_000, 200, 3_000, WriterVersion::PARQUET_1_0);
    // Column 0 is `id`: pages of 200 rows.
    type Edit = fn(&mut Vec<PageLocation>);
    let cases: [(Edit, &str); 6] = [
        (|p| p[3].offset = p[2].offset + 1, "page 3: offset"),
        (|p| p[4].compressed_page_size = 1 << 30, "page 4: bytes"),
        (
            |p| p[0].offset = 0,
            "page 0: offset 0 is before the column chunk",
        ),
        (
            |p| p[5].first_row_index = p[4].first_row_index,
            "page 5: first_row_index",
        ),
        (
            |p| p[6].first_row_index = 3_000,
            "page 6: first_row_index 3000 is outside",
        ),
        (|p| p[2].first_row_index = -7, "page 2: first_row_index -7"),
    ];
    for (edit, expected) in cases {
        let bad = with_edited_index(&file, 0, edit);
        let message = selective_error(&bad);
        assert!(
            message.contains("row group 0")
                && message.contains("column id")
                && message.contains(expected),
            "{expected}: {message}"
        );
        // A read of every row does not use the index: it reads as before.
        assert_eq!(read_all(&bad).unwrap(), read_all(&file).unwrap());
    }
}

#[test]
fn a_page_whose_header_disagrees_with_the_offset_index_is_an_error() {
    let file = file(3_000, 200, 3_000, WriterVersion::PARQUET_1_0);
    // Consistent in itself, but data page 7 (read after the skip; page 8 of the chunk,
    // after the dictionary page) does not end where the index says: the page decoded
    // holds 200 rows where the index gives it 150.
    let bad = with_edited_index(&file, 0, |p| p[8].first_row_index -= 50);
    let message = selective_error(&bad);
    assert!(
        message.contains("column id")
            && message.contains("page 8")
            && message.contains("offset index gives the page 150 rows, its header 200"),
        "{message}"
    );
}
