//! The modules of an encrypted column chunk outside its pages: the column index, the
//! offset index and the Bloom filter (a header module, then a bitset module).
//!
//! Each function takes the bytes at the offset the chunk metadata gives and the chunk's
//! [`ColumnDecryptor`], and returns what the plaintext functions of
//! `herringbone_format::footer` and [`crate::bloom`] return for a plaintext chunk.

use bytes::Bytes;
use herringbone_format::metadata::{BloomFilterHeader, ColumnIndex, OffsetIndex};
use herringbone_format::thrift::{CompactReader, ThriftStruct};

use crate::bloom::SplitBlockBloomFilter;
use crate::crypto::aad::ModuleType;
use crate::crypto::decryptor::ColumnDecryptor;
use crate::error::{Error, ErrorKind, Result};

fn decode<T: ThriftStruct>(
    plain: Vec<u8>,
    what: ModuleType,
    column: &ColumnDecryptor,
) -> Result<T> {
    let plain = Bytes::from(plain);
    let mut r = CompactReader::from_bytes(&plain);
    T::read(&mut r).map_err(|e| {
        Error::new(
            ErrorKind::Metadata,
            format!(
                "column {}, row group {}: invalid decrypted {what}",
                column.path(),
                column.row_group()
            ),
        )
        .with_source(e)
    })
}

/// Decrypts and decodes a chunk's `ColumnIndex` from exactly its bytes
/// (`column_index_offset`, `column_index_length`).
pub fn decrypt_column_index(bytes: &[u8], column: &ColumnDecryptor) -> Result<ColumnIndex> {
    let plain = column.decrypt(ModuleType::ColumnIndex, None, bytes)?;
    decode(plain, ModuleType::ColumnIndex, column)
}

/// Decrypts and decodes a chunk's `OffsetIndex` from exactly its bytes
/// (`offset_index_offset`, `offset_index_length`).
pub fn decrypt_offset_index(bytes: &[u8], column: &ColumnDecryptor) -> Result<OffsetIndex> {
    let plain = column.decrypt(ModuleType::OffsetIndex, None, bytes)?;
    decode(plain, ModuleType::OffsetIndex, column)
}

/// Decrypts a chunk's Bloom filter from the bytes at `bloom_filter_offset` (up to
/// `bloom_filter_length` when known, else to the end of what the caller has): the header
/// module, then the bitset module. Returns the filter and the bytes both modules took.
/// The bitset is checked against `max_bytes` as [`SplitBlockBloomFilter::read`] does.
pub fn decrypt_bloom_filter(
    bytes: &[u8],
    column: &ColumnDecryptor,
    max_bytes: usize,
) -> Result<(SplitBlockBloomFilter, usize)> {
    let (header, header_len) = column.decrypt_prefix(ModuleType::BloomFilterHeader, None, bytes)?;
    let (bitset, bitset_len) =
        column.decrypt_prefix(ModuleType::BloomFilterBitset, None, &bytes[header_len..])?;
    let location = || format!("column {}, row group {}", column.path(), column.row_group());
    // parquet-java pads the header module's plaintext past the Thrift structure: only
    // the structure is the header.
    let (_, thrift_len) = BloomFilterHeader::decode_slice(&header).map_err(|e| {
        Error::new(
            ErrorKind::Metadata,
            format!("{}: invalid decrypted Bloom filter header", location()),
        )
        .with_source(e)
    })?;
    let mut plain = header;
    plain.truncate(thrift_len);
    plain.extend_from_slice(&bitset);
    let (filter, used) = SplitBlockBloomFilter::read(&plain, max_bytes)
        .map_err(|e| e.context(format!("{}: decrypted Bloom filter", location())))?;
    if used != plain.len() {
        return Err(Error::corrupt(format!(
            "{}: the Bloom filter header says {} bytes of bitset but its module holds {}",
            location(),
            used - thrift_len,
            bitset.len()
        )));
    }
    Ok((filter, header_len + bitset_len))
}
