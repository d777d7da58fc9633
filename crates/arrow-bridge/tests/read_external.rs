//! Column chunks stored in other files (`ColumnChunk.file_path`), as a `_metadata`
//! summary file keeps them: read through `with_external_files`, refused without it, and
//! paths that would leave the folder refused.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::{Int32Builder, ListBuilder};
use arrow_array::{ArrayRef, Int64Array, RecordBatch, RecordBatchReader, StringArray};
use arrow_select::concat::concat_batches;
use bytes::Bytes;

use herringbone_arrow_bridge::predicate::Predicate;
use herringbone_arrow_bridge::read::{
    DirectoryFiles, ParquetRecordBatchReaderBuilder, RowSelection, read_metadata,
};
use herringbone_arrow_bridge::scan::ScanBuilder;
use herringbone_arrow_bridge::schema::Projection;
use herringbone_arrow_bridge::write::{ArrowWriter, WriterProperties};
use herringbone_format::footer::encode_footer;
use herringbone_format::metadata::FileMetaData;

/// A folder of its own under the system's temporary folder, removed on drop.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("hb-external-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Rows `first..first + rows`: an id, a name (every 7th null), a list of ints.
fn batch(first: i64, rows: i64) -> RecordBatch {
    let ids = Int64Array::from_iter_values(first..first + rows);
    let names: StringArray = (first..first + rows)
        .map(|i| (i % 7 != 0).then(|| format!("name-{i}")))
        .collect();
    let mut tags = ListBuilder::new(Int32Builder::new());
    for i in first..first + rows {
        for k in 0..(i % 3) {
            tags.values().append_value((i * 10 + k) as i32);
        }
        tags.append(true);
    }
    RecordBatch::try_from_iter([
        ("id", Arc::new(ids) as ArrayRef),
        ("name", Arc::new(names) as ArrayRef),
        ("tags", Arc::new(tags.finish()) as ArrayRef),
    ])
    .unwrap()
}

/// A Parquet file of `batch` in row groups of 300 rows.
fn parquet_file(batch: &RecordBatch) -> Vec<u8> {
    let props = WriterProperties::builder()
        .set_max_row_group_rows(300)
        .build();
    let mut writer = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props)).unwrap();
    writer.write(batch).unwrap();
    writer.finish().unwrap();
    writer.into_inner()
}

/// A metadata-only file (`PAR1`, footer) whose row groups are those of `parts`, each
/// chunk pointing at its part by `file_path`.
fn summary_file(parts: &[(&str, &[u8])]) -> Vec<u8> {
    let mut summary: Option<FileMetaData> = None;
    for (name, bytes) in parts {
        let mut meta = read_metadata(&Bytes::copy_from_slice(bytes)).unwrap();
        for group in &mut meta.row_groups {
            for chunk in &mut group.columns {
                chunk.file_path = Some(Box::new((*name).into()));
            }
        }
        match &mut summary {
            None => summary = Some(meta),
            Some(s) => {
                s.num_rows += meta.num_rows;
                s.row_groups.extend(meta.row_groups);
            }
        }
    }
    let mut out = b"PAR1".to_vec();
    encode_footer(&summary.unwrap(), &mut out);
    out
}

/// `part-0.parquet` (rows 0..700), `nested/part-1.parquet` (700..1000) and `_metadata`
/// pointing at both, in `folder`; the rows they hold.
fn dataset(folder: &Path) -> RecordBatch {
    let (first, second) = (batch(0, 700), batch(700, 300));
    let part0 = parquet_file(&first);
    let part1 = parquet_file(&second);
    std::fs::write(folder.join("part-0.parquet"), &part0).unwrap();
    std::fs::create_dir_all(folder.join("nested")).unwrap();
    std::fs::write(folder.join("nested/part-1.parquet"), &part1).unwrap();
    let summary = summary_file(&[
        ("part-0.parquet", &part0),
        ("nested/part-1.parquet", &part1),
    ]);
    std::fs::write(folder.join("_metadata"), summary).unwrap();
    concat_batches(&first.schema(), &[first, second]).unwrap()
}

fn open(path: &Path) -> ParquetRecordBatchReaderBuilder<std::fs::File> {
    ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(path).unwrap()).unwrap()
}

fn read_all(builder: ParquetRecordBatchReaderBuilder<std::fs::File>) -> RecordBatch {
    let reader = builder.build().unwrap();
    let schema = reader.schema();
    let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
    concat_batches(&schema, &batches).unwrap()
}

#[test]
fn chunks_are_read_from_the_files_they_name() {
    let folder = Folder::new("read");
    let expected = dataset(&folder.0);
    let metadata = folder.0.join("_metadata");
    let builder = open(&metadata);
    assert_eq!(builder.metadata().row_groups.len(), 4);
    let files = Arc::new(DirectoryFiles::beside(&metadata));
    let all = read_all(
        builder
            .with_external_files(files.clone())
            .with_batch_size(128),
    );
    assert_eq!(all, expected);

    // A projection and a selection that crosses from one file into the other.
    let builder = open(&metadata);
    let projection = Projection::from_paths(builder.parquet_schema(), &["tags", "id"]).unwrap();
    let selected = read_all(
        builder
            .with_external_files(files)
            .with_projection(projection)
            .with_row_selection(RowSelection::from_consecutive_ranges(
                [5..10, 650..760, 990..1000],
                1000,
            )),
    );
    let ids: Vec<i64> = (5..10).chain(650..760).chain(990..1000).collect();
    let indices = arrow_array::UInt64Array::from_iter_values(ids.iter().map(|&i| i as u64));
    let want = arrow_select::take::take_record_batch(&expected, &indices).unwrap();
    assert_eq!(selected.num_rows(), ids.len());
    assert_eq!(selected.column_by_name("id"), want.column_by_name("id"));
    assert_eq!(selected.column_by_name("tags"), want.column_by_name("tags"));
}

#[test]
fn without_external_files_the_chunk_is_refused_by_name() {
    let folder = Folder::new("refused");
    dataset(&folder.0);
    let reader = open(&folder.0.join("_metadata")).build().unwrap();
    let error = reader.into_iter().next().unwrap().unwrap_err().to_string();
    assert!(
        error.contains("\"part-0.parquet\"") && error.contains("with_external_files"),
        "{error}"
    );
}

#[test]
fn paths_that_leave_the_folder_are_refused() {
    let outer = Folder::new("escape");
    let inner = outer.0.join("dataset");
    std::fs::create_dir_all(&inner).unwrap();
    let rows = batch(0, 50);
    let part = parquet_file(&rows);
    // The data lies outside the dataset's folder.
    std::fs::write(outer.0.join("secret.parquet"), &part).unwrap();
    let cases = [
        ("../secret.parquet", "has a `..` part"),
        ("link.parquet", "leads outside"),
    ];
    #[cfg(unix)]
    std::os::unix::fs::symlink(outer.0.join("secret.parquet"), inner.join("link.parquet")).unwrap();
    for (path, why) in cases {
        if cfg!(not(unix)) && path == "link.parquet" {
            continue;
        }
        let absolute = outer.0.join("secret.parquet");
        for named in [path, absolute.to_str().unwrap()] {
            std::fs::write(inner.join("_metadata"), summary_file(&[(named, &part)])).unwrap();
            let metadata = inner.join("_metadata");
            let reader = open(&metadata)
                .with_external_files(Arc::new(DirectoryFiles::beside(&metadata)))
                .build()
                .unwrap();
            let error = reader.into_iter().next().unwrap().unwrap_err().to_string();
            let why = if named == path { why } else { "is absolute" };
            assert!(error.contains(why), "{named}: {error}");
            assert!(
                error.contains("row group 0, leaf column 0"),
                "{named}: {error}"
            );
        }
    }
}

#[test]
fn a_missing_file_is_an_error_naming_it() {
    let folder = Folder::new("missing");
    dataset(&folder.0);
    std::fs::remove_file(folder.0.join("nested/part-1.parquet")).unwrap();
    let metadata = folder.0.join("_metadata");
    let reader = open(&metadata)
        .with_external_files(Arc::new(DirectoryFiles::beside(&metadata)))
        .build()
        .unwrap();
    let results: Vec<_> = reader.collect();
    let error = results.last().unwrap().as_ref().unwrap_err().to_string();
    assert!(error.contains("nested/part-1.parquet"), "{error}");
    // The first file's rows came before it.
    let rows: usize = results.iter().flatten().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 700);
}

#[test]
fn a_scan_prunes_by_the_summary_statistics_and_reads_the_rest() {
    let folder = Folder::new("scan");
    let expected = dataset(&folder.0);
    let metadata = folder.0.join("_metadata");
    let scan = ScanBuilder::try_new(std::fs::File::open(&metadata).unwrap())
        .unwrap()
        .with_external_files(Arc::new(DirectoryFiles::beside(&metadata)))
        .with_predicate(Predicate::parse("id >= 620 AND id < 710").unwrap())
        .build()
        .unwrap();
    let metrics = scan.metrics().clone();
    let batches: Vec<RecordBatch> = scan.collect::<Result<_, _>>().unwrap();
    let got = concat_batches(&expected.schema(), &batches).unwrap();
    let want = expected.slice(620, 90);
    assert_eq!(got, want);
    // Rows 0..300 and 300..600 (part 0) pruned by the summary's statistics.
    assert_eq!(metrics.row_groups_pruned_by_statistics, 2);
    assert_eq!(metrics.row_groups_read, 2);
}
