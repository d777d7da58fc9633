//! What the reader's and the engine tests share: files built page by page ([`built`]),
//! for shapes no writer produces on request (hostile sizes, one page of millions of
//! values, quirks of a given writer); writing batches to an in-memory file and reading
//! files back whole.
#![allow(dead_code)]

pub mod built;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use bytes::Bytes;
use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder;
use herringbone_arrow_bridge::schema::{ArrowSchemaMapping, SchemaOptions, parquet_to_arrow};
use herringbone_arrow_bridge::write::{ArrowWriter, WriterProperties};
use herringbone_format::metadata::FileMetaData;
use herringbone_format::schema::SchemaDescriptor;

/// `batches` written with Herringbone's writer.
pub fn write(batches: &[RecordBatch], props: WriterProperties) -> Bytes {
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batches[0].schema(), Some(props)).unwrap();
    for b in batches {
        writer.write(b).unwrap();
    }
    writer.close().unwrap();
    Bytes::from(out)
}

/// `batches` written with arrow-rs `parquet` (the peer), with `props`.
pub fn write_arrow_rs(
    batches: &[RecordBatch],
    props: parquet::file::properties::WriterProperties,
) -> Bytes {
    let mut out = Vec::new();
    let mut writer =
        parquet::arrow::ArrowWriter::try_new(&mut out, batches[0].schema(), Some(props)).unwrap();
    for b in batches {
        writer.write(b).unwrap();
    }
    writer.close().unwrap();
    Bytes::from(out)
}

/// The file's metadata, Parquet schema and Arrow mapping.
pub fn open(file: &Bytes) -> (FileMetaData, SchemaDescriptor, ArrowSchemaMapping) {
    let builder = ParquetRecordBatchReaderBuilder::try_new(file.clone()).unwrap();
    let metadata = builder.metadata().as_ref().clone();
    let descriptor = builder.parquet_schema().as_ref().clone();
    let mapping = parquet_to_arrow(
        &descriptor,
        metadata.key_value_metadata.as_deref(),
        &SchemaOptions::default(),
    )
    .unwrap();
    (metadata, descriptor, mapping)
}

/// Every row of the file as one batch.
pub fn read_all(file: &Bytes) -> RecordBatch {
    let reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .build()
        .unwrap();
    let schema: SchemaRef = arrow_array::RecordBatchReader::schema(&reader);
    let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
    arrow_select::concat::concat_batches(&schema, &batches).unwrap()
}
