//! Writes: an Arrow table (an Arrow IPC file written by the driver) to a Parquet file on
//! disk, by Herringbone or by arrow-rs with their default properties, or by arrow-rs
//! with the options of the suite's DELTA file (not defaults: said so where it is used).

use std::fs::File;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, SchemaRef};
use parquet::basic::Encoding;
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::schema::types::ColumnPath;

/// The Rust writers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writer {
    Herringbone,
    ArrowRs,
}

impl Writer {
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "herringbone" => Ok(Self::Herringbone),
            "arrow-rs" => Ok(Self::ArrowRs),
            other => Err(format!(
                "unknown writer {other:?} (herringbone or arrow-rs)"
            )),
        }
    }
}

/// How the suite's generator sets arrow-rs up beyond its defaults.
#[derive(Debug, Clone, Copy, Default)]
pub struct Layout {
    /// DELTA_BINARY_PACKED for integer columns, DELTA_BYTE_ARRAY for string and binary
    /// columns, no dictionary, data page v2 (the suite's one non-default file).
    pub delta: bool,
    /// Rows per row group (the wide-footer file's 5 row groups); `None` keeps the default.
    pub row_group_rows: Option<usize>,
}

/// A table read from an Arrow IPC file.
#[derive(Debug)]
pub struct Table {
    pub schema: SchemaRef,
    pub batches: Vec<RecordBatch>,
}

impl Table {
    pub fn load(path: &str) -> Result<Self, String> {
        let file = File::open(path).map_err(|e| format!("{path}: {e}"))?;
        let reader = arrow_ipc::reader::FileReader::try_new(file, None)
            .map_err(|e| format!("{path}: {e}"))?;
        let schema = reader.schema();
        let batches = reader
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("{path}: {e}"))?;
        Ok(Self { schema, batches })
    }

    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }
}

/// Writes `table` to `path` and returns the file's size in bytes.
pub fn write(writer: Writer, table: &Table, path: &str, layout: Layout) -> Result<u64, String> {
    let file = File::create(path).map_err(|e| format!("{path}: {e}"))?;
    match writer {
        Writer::Herringbone => {
            if layout.delta || layout.row_group_rows.is_some() {
                return Err("Herringbone writes with its defaults only here".into());
            }
            let mut w = herringbone::ArrowWriter::try_new(file, table.schema.clone(), None)
                .map_err(|e| e.to_string())?;
            for batch in &table.batches {
                w.write(batch).map_err(|e| e.to_string())?;
            }
            w.close().map_err(|e| e.to_string())?;
        }
        Writer::ArrowRs => {
            let props = arrow_rs_properties(&table.schema, layout);
            let mut w = parquet::arrow::ArrowWriter::try_new(file, table.schema.clone(), props)
                .map_err(|e| e.to_string())?;
            for batch in &table.batches {
                w.write(batch).map_err(|e| e.to_string())?;
                if layout
                    .row_group_rows
                    .is_some_and(|rows| w.in_progress_rows() >= rows)
                {
                    w.flush().map_err(|e| e.to_string())?;
                }
            }
            w.close().map_err(|e| e.to_string())?;
        }
    }
    std::fs::metadata(path)
        .map(|m| m.len())
        .map_err(|e| format!("{path}: {e}"))
}

/// `None` (arrow-rs's defaults) unless the layout asks for more.
fn arrow_rs_properties(schema: &SchemaRef, layout: Layout) -> Option<WriterProperties> {
    if !layout.delta && layout.row_group_rows.is_none() {
        return None;
    }
    let mut props = WriterProperties::builder();
    if let Some(rows) = layout.row_group_rows {
        props = props.set_max_row_group_row_count(Some(rows));
    }
    if layout.delta {
        props = props
            .set_writer_version(WriterVersion::PARQUET_2_0)
            .set_dictionary_enabled(false);
        for field in schema.fields() {
            let encoding = match field.data_type() {
                DataType::Int8
                | DataType::Int16
                | DataType::Int32
                | DataType::Int64
                | DataType::UInt8
                | DataType::UInt16
                | DataType::UInt32
                | DataType::UInt64
                | DataType::Date32
                | DataType::Timestamp(..) => Encoding::DELTA_BINARY_PACKED,
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Binary | DataType::LargeBinary => {
                    Encoding::DELTA_BYTE_ARRAY
                }
                _ => continue,
            };
            props = props.set_column_encoding(ColumnPath::from(field.name().as_str()), encoding);
        }
    }
    Some(props.build())
}
