//! Reads a Parquet file and prints what it holds: the Arrow schema, the leaf columns,
//! the row groups from the file metadata, and the number of rows per batch.
//!
//! ```sh
//! cargo run -p herringbone --example read_file -- data.parquet
//! ```
//!
//! Without an argument it reads `parquet-testing/data/alltypes_plain.parquet` (the
//! corpus submodule).

use std::error::Error;
use std::fs::File;

use herringbone::ParquetRecordBatchReaderBuilder;

fn main() -> Result<(), Box<dyn Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "parquet-testing/data/alltypes_plain.parquet".to_string());
    let file = File::open(&path).map_err(|e| format!("{path}: {e}"))?;

    let reader = ParquetRecordBatchReaderBuilder::try_new(file)?
        .with_batch_size(4096)
        .build()?;

    println!("{path}");
    println!("Arrow schema:\n{}", reader.arrow_schema());
    let parquet_schema = reader.parquet_schema();
    let leaves: Vec<String> = reader
        .leaf_columns()
        .iter()
        .filter_map(|&i| parquet_schema.column(i))
        .map(|c| format!("{} ({:?})", c.path(), c.physical_type()))
        .collect();
    println!("leaf columns: {}", leaves.join(", "));
    let metadata = reader.metadata().clone();
    for (i, group) in metadata.row_groups.iter().enumerate() {
        println!(
            "row group {i}: {} rows, {} bytes",
            group.num_rows, group.total_byte_size
        );
    }

    let mut rows = 0;
    for batch in reader {
        let batch = batch?;
        println!("batch of {} rows", batch.num_rows());
        rows += batch.num_rows();
    }
    println!("{rows} rows in all (the footer says {})", metadata.num_rows);
    Ok(())
}
