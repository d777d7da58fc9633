//! The interop matrix read back by arrow-rs `parquet`: every file `interop-matrix` writes
//! reads to its source batch (the `NAME.arrow` beside it), so the Python checks in
//! `.ci/run` start from files a second Rust reader already agrees with. Running it here
//! also builds the binary those checks use (`target/debug/interop-matrix`).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_cast::cast;
use arrow_schema::SchemaRef;
use arrow_select::concat::concat_batches;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::Value;

fn scratch_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hb-interop-matrix-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// `batches` (a reader's, of `schema`) as one batch; `path` names the file in a failure.
fn whole<E: std::fmt::Display>(
    schema: SchemaRef,
    batches: impl Iterator<Item = Result<RecordBatch, E>>,
    path: &Path,
) -> RecordBatch {
    let batches: Vec<RecordBatch> = batches
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    concat_batches(&schema, &batches).unwrap()
}

/// The Parquet file at `path` as arrow-rs reads it.
fn read_parquet(path: &Path) -> RecordBatch {
    let reader = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .build()
        .unwrap();
    whole(reader.schema(), reader, path)
}

/// The Arrow IPC file at `path`.
fn read_ipc(path: &Path) -> RecordBatch {
    let reader = arrow_ipc::reader::FileReader::try_new(File::open(path).unwrap(), None).unwrap();
    whole(reader.schema(), reader, path)
}

#[test]
fn every_matrix_file_reads_back_as_its_source_batch_with_arrow_rs() {
    let dir = scratch_dir();
    let status = Command::new(env!("CARGO_BIN_EXE_interop-matrix"))
        .arg(&dir)
        .status()
        .unwrap();
    assert!(status.success(), "interop-matrix exited with {status}");
    let matrix: Value =
        serde_json::from_reader(File::open(dir.join("matrix.json")).unwrap()).unwrap();
    let files = matrix["files"].as_array().expect("matrix.json lists files");
    // Two tables under each property set.
    assert!(files.len() >= 12, "{} files", files.len());
    for entry in files {
        let name = entry["name"].as_str().unwrap();
        let parquet = read_parquet(&dir.join(format!("{name}.parquet")));
        let source = read_ipc(&dir.join(format!("{name}.arrow")));
        assert_eq!(parquet.num_rows(), source.num_rows(), "{name}");
        assert_eq!(parquet.num_columns(), source.num_columns(), "{name}");
        for (i, field) in source.schema().fields().iter().enumerate() {
            // arrow-rs keeps a column's Parquet type where it does not take the stored
            // Arrow type (Time32(s), stored as TIME(MILLIS), reads as Time32(ms)): its
            // values are compared in the source's type.
            let read = parquet.column(i);
            let read = if read.data_type() == field.data_type() {
                read.clone()
            } else {
                cast(read, field.data_type())
                    .unwrap_or_else(|e| panic!("{name}: column {}: {e}", field.name()))
            };
            assert_eq!(
                read.as_ref(),
                source.column(i).as_ref(),
                "{name}: column {}",
                field.name()
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
