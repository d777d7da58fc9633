//! Reads part of a file: a projection (two of its columns, one a field inside a
//! struct, named by their Parquet paths) and a row selection (rows 10..15 and
//! 990..1000 of 1,000), with the rows skipped between the ranges never decoded.
//!
//! ```sh
//! cargo run -p herringbone --example projection_and_selection
//! ```

use std::error::Error;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray, StructArray};
use arrow_schema::{DataType, Field};
use herringbone::read::{ParquetRecordBatchReaderBuilder, Projection, RowSelection};
use herringbone::write::ArrowWriter;

fn main() -> Result<(), Box<dyn Error>> {
    // A file in memory: `id`, `name`, and a struct `point { x, y }`, 1,000 rows.
    let rows = 1_000i64;
    let id: ArrayRef = Arc::new(Int64Array::from_iter_values(0..rows));
    let name: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..rows).map(|i| format!("row {i}")),
    ));
    let x: ArrayRef = Arc::new(Int64Array::from_iter_values((0..rows).map(|i| i * 2)));
    let y: ArrayRef = Arc::new(Int64Array::from_iter_values((0..rows).map(|i| i * 3)));
    let point: ArrayRef = Arc::new(StructArray::from(vec![
        (Arc::new(Field::new("x", DataType::Int64, false)), x),
        (Arc::new(Field::new("y", DataType::Int64, false)), y),
    ]));
    let batch = RecordBatch::try_from_iter([("id", id), ("name", name), ("point", point)])?;
    let mut file = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), None)?;
    writer.write(&batch)?;
    writer.close()?;

    let builder = ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(file))?;
    // Parquet paths: `id` and the `y` field of the struct `point` (`name` and `point.x`
    // are not read at all).
    let projection = Projection::from_paths(builder.parquet_schema(), &["id", "point.y"])?;
    let selection = RowSelection::from_consecutive_ranges([10..15, 990..1000], rows as usize);
    let reader = builder
        .with_projection(projection)
        .with_row_selection(selection)
        .build()?;
    println!("reading {}", reader.arrow_schema());

    for batch in reader {
        let batch = batch?;
        let ids = batch.column(0).as_primitive::<Int64Type>();
        let ys = batch
            .column(1)
            .as_struct()
            .column(0)
            .as_primitive::<Int64Type>();
        for (id, y) in ids.values().iter().zip(ys.values()) {
            println!("id {id}: point.y = {y}");
            assert_eq!(*y, id * 3);
        }
    }
    Ok(())
}
