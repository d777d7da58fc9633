//! Whole-file reads: a Parquet file on disk into Arrow `RecordBatch`es, by Herringbone or
//! by arrow-rs, each with its default options unless the suite asks for views, threads
//! or a batch size.

use std::fs::File;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use herringbone::schema::{BinaryRepresentation, StringRepresentation};
use herringbone::{ParquetRecordBatchReaderBuilder, SchemaOptions};
use parquet::arrow::arrow_reader::{
    ArrowReaderOptions, ParquetRecordBatchReaderBuilder as ArrowRsBuilder,
};

/// The Rust readers the suite times in-process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    Herringbone,
    ArrowRs,
}

impl Reader {
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "herringbone" => Ok(Self::Herringbone),
            "arrow-rs" => Ok(Self::ArrowRs),
            other => Err(format!(
                "unknown reader {other:?} (herringbone or arrow-rs)"
            )),
        }
    }
}

/// How a file is read. The defaults are each library's own: its batch size, strings as
/// `Utf8`, one thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOptions {
    /// Strings and binaries as `Utf8View` / `BinaryView`.
    pub views: bool,
    /// Rows per batch; `None` keeps the library's default (Herringbone 8192, arrow-rs 1024).
    pub batch_size: Option<usize>,
    /// Decode threads; above 1 only Herringbone (with the `threads` feature) uses them.
    pub threads: usize,
    /// Herringbone reads the file memory-mapped (`read::map_file`) instead of by `read`
    /// calls; arrow-rs has no such option and ignores it.
    pub mmap: bool,
}

/// Reads the whole file at `path` and keeps every batch, as `pq.read_table` keeps its
/// table.
pub fn read(reader: Reader, path: &str, options: ReadOptions) -> Result<Vec<RecordBatch>, String> {
    let file = File::open(path).map_err(|e| format!("{path}: {e}"))?;
    match reader {
        Reader::Herringbone => read_herringbone(file, options),
        Reader::ArrowRs => read_arrow_rs(file, options),
    }
    .map_err(|e| format!("{path}: {e}"))
}

fn read_herringbone(file: File, options: ReadOptions) -> Result<Vec<RecordBatch>, String> {
    if options.mmap {
        // SAFETY: the bench's input files are not changed while it runs.
        let mapped = unsafe { herringbone::read::map_file(&file) }.map_err(|e| e.to_string())?;
        return read_herringbone_from(mapped, options);
    }
    read_herringbone_from(file, options)
}

fn read_herringbone_from<T: herringbone::ChunkReader + 'static>(
    input: T,
    options: ReadOptions,
) -> Result<Vec<RecordBatch>, String> {
    let mut builder = ParquetRecordBatchReaderBuilder::try_new(input).map_err(|e| e.to_string())?;
    if options.views {
        builder = builder.with_schema_options(
            SchemaOptions::new()
                .with_strings(StringRepresentation::Utf8View)
                .with_binaries(BinaryRepresentation::BinaryView),
        );
    }
    if let Some(rows) = options.batch_size {
        builder = builder.with_batch_size(rows);
    }
    builder = with_threads(builder, options.threads)?;
    let reader = builder.build().map_err(|e| e.to_string())?;
    reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())
}

#[cfg(feature = "threads")]
fn with_threads<T: herringbone::ChunkReader + 'static>(
    builder: ParquetRecordBatchReaderBuilder<T>,
    threads: usize,
) -> Result<ParquetRecordBatchReaderBuilder<T>, String> {
    Ok(if threads > 1 {
        builder.with_threads(threads)
    } else {
        builder
    })
}

#[cfg(not(feature = "threads"))]
fn with_threads<T>(builder: T, threads: usize) -> Result<T, String> {
    if threads > 1 {
        return Err(format!(
            "{threads} threads asked for, but this binary was built without the `threads` \
             feature (the reader's with_threads)"
        ));
    }
    Ok(builder)
}

fn read_arrow_rs(file: File, options: ReadOptions) -> Result<Vec<RecordBatch>, String> {
    let mut builder = ArrowRsBuilder::try_new(file.try_clone().map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    if options.views {
        let schema = as_views(builder.schema());
        let with_views = ArrowReaderOptions::new().with_schema(schema);
        builder =
            ArrowRsBuilder::try_new_with_options(file, with_views).map_err(|e| e.to_string())?;
    }
    if let Some(rows) = options.batch_size {
        builder = builder.with_batch_size(rows);
    }
    builder
        .build()
        .map_err(|e| e.to_string())?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())
}

/// `schema` with every string and binary type, at any depth, as its view type.
fn as_views(schema: &Schema) -> SchemaRef {
    fn data_type(t: &DataType) -> DataType {
        match t {
            DataType::Utf8 | DataType::LargeUtf8 => DataType::Utf8View,
            DataType::Binary | DataType::LargeBinary => DataType::BinaryView,
            DataType::List(f) => DataType::List(Arc::new(field(f))),
            DataType::LargeList(f) => DataType::LargeList(Arc::new(field(f))),
            DataType::FixedSizeList(f, n) => DataType::FixedSizeList(Arc::new(field(f)), *n),
            DataType::Map(f, sorted) => DataType::Map(Arc::new(field(f)), *sorted),
            DataType::Struct(children) => {
                DataType::Struct(children.iter().map(|c| field(c)).collect::<Fields>())
            }
            other => other.clone(),
        }
    }
    fn field(f: &Field) -> Field {
        f.clone().with_data_type(data_type(f.data_type()))
    }
    Arc::new(Schema::new_with_metadata(
        schema.fields().iter().map(|f| field(f)).collect::<Vec<_>>(),
        schema.metadata().clone(),
    ))
}

/// Reads `path` with both libraries (same options) and says how their results differ,
/// or `Ok` with the row count when they hold the same columns and values.
pub fn check(path: &str, options: ReadOptions) -> Result<usize, String> {
    let ours = read(Reader::Herringbone, path, options).map_err(|e| format!("Herringbone: {e}"))?;
    let theirs = read(Reader::ArrowRs, path, options).map_err(|e| format!("arrow-rs: {e}"))?;
    let (Some(first_ours), Some(first_theirs)) = (ours.first(), theirs.first()) else {
        let rows = |b: &[RecordBatch]| b.iter().map(RecordBatch::num_rows).sum::<usize>();
        return if rows(&ours) == rows(&theirs) {
            Ok(rows(&ours))
        } else {
            Err(format!(
                "rows differ: Herringbone {} vs arrow-rs {}",
                rows(&ours),
                rows(&theirs)
            ))
        };
    };
    let ours_all = arrow_select::concat::concat_batches(&first_ours.schema(), &ours)
        .map_err(|e| format!("concat: {e}"))?;
    let theirs_all = arrow_select::concat::concat_batches(&first_theirs.schema(), &theirs)
        .map_err(|e| format!("concat: {e}"))?;
    if ours_all.num_rows() != theirs_all.num_rows() {
        return Err(format!(
            "rows differ: Herringbone {} vs arrow-rs {}",
            ours_all.num_rows(),
            theirs_all.num_rows()
        ));
    }
    if ours_all.num_columns() != theirs_all.num_columns() {
        return Err(format!(
            "columns differ: Herringbone {} vs arrow-rs {}",
            ours_all.num_columns(),
            theirs_all.num_columns()
        ));
    }
    let mut problems = Vec::new();
    let schema = theirs_all.schema();
    for (i, field) in schema.fields().iter().enumerate() {
        let (a, b) = (ours_all.column(i), theirs_all.column(i));
        if a.data_type() != b.data_type() {
            problems.push(format!(
                "{}: type {} vs arrow-rs {}",
                field.name(),
                a.data_type(),
                b.data_type()
            ));
        } else if a.to_data() != b.to_data() {
            problems.push(format!("{}: values differ", field.name()));
        }
    }
    if problems.is_empty() {
        Ok(ours_all.num_rows())
    } else {
        let shown = problems.len().min(5);
        Err(format!(
            "{} of {} columns differ from arrow-rs: {}{}",
            problems.len(),
            schema.fields().len(),
            problems[..shown].join("; "),
            if problems.len() > shown { "; ..." } else { "" }
        ))
    }
}
