//! Footer decode of one file, in paired rounds: Herringbone's `FileMetaData` plus its
//! `SchemaDescriptor` against arrow-rs's `ParquetMetaData` (which includes its schema
//! descriptor), both from the footer bytes in memory, each timed with the drop of what
//! it built, under the default (system) allocator.

use std::fs::File;
use std::hint::black_box;
use std::io::{Read, Seek, SeekFrom};
use std::time::Instant;

use bytes::Bytes;
use herringbone_format::footer::{FooterOptions, decode_file_metadata};
use herringbone_format::schema::SchemaDescriptor;
use parquet::file::metadata::ParquetMetaDataReader;

/// The footer's Thrift bytes (between the data and the 8-byte tail), read alone.
pub fn footer_bytes(path: &str) -> Result<Bytes, String> {
    let mut file = File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let n = file.metadata().map_err(|e| format!("{path}: {e}"))?.len();
    let mut tail = [0u8; 8];
    let too_short = || format!("{path}: not a Parquet file with a plain footer");
    if n < 12 {
        return Err(too_short());
    }
    file.seek(SeekFrom::Start(n - 8))
        .and_then(|_| file.read_exact(&mut tail))
        .map_err(|e| format!("{path}: {e}"))?;
    if &tail[4..] != b"PAR1" {
        return Err(too_short());
    }
    let len = u64::from(u32::from_le_bytes(tail[..4].try_into().expect("4 bytes")));
    if len > n - 12 {
        return Err(format!("{path}: footer of {len} bytes in a file of {n}"));
    }
    let mut footer = vec![0u8; len as usize];
    file.seek(SeekFrom::Start(n - 8 - len))
        .and_then(|_| file.read_exact(&mut footer))
        .map_err(|e| format!("{path}: {e}"))?;
    Ok(Bytes::from(footer))
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
