//! Writes a Parquet file with chosen options: ZSTD, version 2 data pages, page
//! statistics and a page index, a dictionary turned off for one column and
//! BYTE_STREAM_SPLIT for it instead, a Bloom filter on another, small row groups and
//! page CRCs. Then reads the footer back and prints what was written.
//!
//! ```sh
//! cargo run -p herringbone --example write_with_options -- out.parquet
//! ```
//!
//! It never overwrites: an existing OUT is an error (without an argument it writes
//! `herringbone-example.parquet` in the temporary folder, replacing an earlier run's).

use std::error::Error;
use std::fs::File;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use herringbone::metadata::Type;
use herringbone::read::read_metadata;
use herringbone::write::{
    ArrowWriter, Codec, DataPageVersion, Encoding, StatisticsLevel, WriterProperties,
};

fn main() -> Result<(), Box<dyn Error>> {
    let (path, replace) = match std::env::args().nth(1) {
        Some(path) => (path, false),
        None => {
            let path = std::env::temp_dir().join("herringbone-example.parquet");
            (path.display().to_string(), true)
        }
    };

    let rows = 10_000i64;
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..rows));
    let cities = ["Oslo", "Lima", "Pune", "Quito"];
    let city: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..rows).map(|i| cities[i as usize % cities.len()]),
    ));
    let temps: ArrayRef = Arc::new(Float64Array::from_iter_values(
        (0..rows).map(|i| (i % 400) as f64 / 10.0 - 5.0),
    ));
    let batch = RecordBatch::try_from_iter([("id", ids), ("city", city), ("temp", temps)])?;

    let props = WriterProperties::builder()
        .set_compression(Codec::Zstd { level: 3 })
        .set_data_page_version(DataPageVersion::V2)
        .set_statistics(StatisticsLevel::Page)
        .set_column_dictionary_enabled("temp", false)
        .set_column_encoding("temp", Encoding::BYTE_STREAM_SPLIT)
        .set_bloom_filter("city", 0.01, 100)
        .set_max_row_group_rows(4096)
        .set_write_crc(true)
        .build();
    let file = if replace {
        File::create(&path)
    } else {
        File::create_new(&path)
    }
    .map_err(|e| format!("{path}: {e}"))?;
    let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(props))?;
    writer.write(&batch)?;
    let written = writer.close()?;
    println!(
        "wrote {path}: {} rows in {} row groups",
        written.num_rows,
        written.row_groups.len()
    );

    // Read the footer back and show each column chunk of the first row group.
    let metadata = read_metadata(&File::open(&path)?)?;
    for chunk in &metadata.row_groups[0].columns {
        let Some(meta) = &chunk.meta_data else {
            continue;
        };
        let kind = if meta.type_ == Type::BYTE_ARRAY {
            "strings"
        } else {
            "numbers"
        };
        println!(
            "{:>5} ({kind}): {:?}, encodings {:?}, {} -> {} bytes, Bloom filter: {}, column index: {}",
            meta.path_in_schema.join("."),
            meta.codec,
            &meta.encodings[..],
            meta.total_uncompressed_size,
            meta.total_compressed_size,
            meta.bloom_filter_offset.is_some(),
            chunk.column_index_offset.is_some(),
        );
    }
    Ok(())
}
