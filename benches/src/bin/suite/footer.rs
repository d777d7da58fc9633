//! Footer decode of one file, in paired rounds: Herringbone's `FileMetaData` plus its
//! `SchemaDescriptor` against arrow-rs's `ParquetMetaData` (which includes its schema
//! descriptor), both from the footer bytes in memory, each timed with the drop of what
//! it built, under the default (system) allocator.

use std::hint::black_box;
use std::time::Instant;

use bytes::Bytes;
use herringbone_format::footer::{FooterOptions, decode_file_metadata};
use herringbone_format::schema::SchemaDescriptor;
use parquet::file::metadata::ParquetMetaDataReader;

/// The footer's Thrift bytes (between the data and the 8-byte tail).
pub fn footer_bytes(path: &str) -> Result<Bytes, String> {
    let file = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let n = file.len();
    if n < 12 || &file[n - 4..] != b"PAR1" {
        return Err(format!("{path}: not a Parquet file with a plain footer"));
    }
    let len = u32::from_le_bytes(file[n - 8..n - 4].try_into().expect("4 bytes")) as usize;
    if len > n - 12 {
        return Err(format!("{path}: footer of {len} bytes in a file of {n}"));
    }
    Ok(Bytes::from(file).slice(n - 8 - len..n - 8))
}

fn herringbone_once(footer: &Bytes) -> Result<u64, String> {
    let start = Instant::now();
    let metadata =
        decode_file_metadata(footer.clone(), &FooterOptions::new()).map_err(|e| e.to_string())?;
    let schema = SchemaDescriptor::new(&metadata.schema).map_err(|e| e.to_string())?;
    black_box((&metadata, &schema));
    drop(schema);
    drop(metadata);
    Ok(start.elapsed().as_nanos() as u64)
}

fn arrow_rs_once(footer: &Bytes) -> Result<u64, String> {
    let start = Instant::now();
    let metadata = ParquetMetaDataReader::decode_metadata(footer).map_err(|e| e.to_string())?;
    black_box(&metadata);
    drop(metadata);
    Ok(start.elapsed().as_nanos() as u64)
}

/// Times `rounds` paired decodes (the order alternates each round) and returns the times
/// in nanoseconds, Herringbone's first, and the footer's size.
pub fn rounds(path: &str, rounds: usize) -> Result<(Vec<u64>, Vec<u64>, usize), String> {
    let footer = footer_bytes(path)?;
    // One untimed decode each: first-touch of the footer and warm code.
    herringbone_once(&footer)?;
    arrow_rs_once(&footer)?;
    let (mut ours, mut theirs) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    for round in 0..rounds {
        if round % 2 == 0 {
            ours.push(herringbone_once(&footer)?);
            theirs.push(arrow_rs_once(&footer)?);
        } else {
            theirs.push(arrow_rs_once(&footer)?);
            ours.push(herringbone_once(&footer)?);
        }
    }
    Ok((ours, theirs, footer.len()))
}
