//! The footer: the trailing metadata length and magic, the [`FileMetaData`] (in full or
//! selectively), and the page index and Bloom filter headers it points to.
//!
//! ```
//! use bytes::Bytes;
//! use herringbone_format::footer::{encode_footer, read_metadata};
//! use herringbone_format::metadata::{FileMetaData, SchemaElement};
//!
//! let meta = FileMetaData {
//!     version: 1,
//!     schema: vec![SchemaElement { name: "schema".into(), num_children: Some(0), ..Default::default() }],
//!     ..Default::default()
//! };
//! let mut file = b"PAR1".to_vec();
//! encode_footer(&meta, &mut file);
//! assert_eq!(read_metadata(&Bytes::from(file)).unwrap(), meta);
//! ```

mod reader;

use std::ops::Range;

use bytes::Bytes;

pub use reader::{Footer, FooterReader, PageIndex, UndecodedFooter};

use crate::error::{Error, ErrorKind, Result};
use crate::metadata::{
    BloomFilterHeader, ColumnChunk, ColumnIndex, ColumnOrder, EncryptionAlgorithm, FileMetaData,
    KeyValue, OffsetIndex, RowGroup, SchemaElement, SortingColumn,
};
use crate::thrift::{
    CompactReader, CompactWriter, Text, ThriftStruct, initial_capacity, read_field_into, wire,
};

/// Magic bytes at the start and end of a Parquet file with a plaintext footer.
pub const MAGIC: [u8; 4] = *b"PAR1";
/// Magic bytes of a file whose footer is encrypted.
pub const MAGIC_ENCRYPTED_FOOTER: [u8; 4] = *b"PARE";
/// Size of the footer tail: 4-byte little-endian metadata length and the magic.
pub const FOOTER_TAIL_LEN: usize = 8;

/// The decoded last 8 bytes of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FooterTail {
    /// Length of the (possibly encrypted) footer that precedes the tail.
    pub metadata_len: usize,
    /// Whether the magic was `PARE` (encrypted footer).
    pub encrypted_footer: bool,
}

impl FooterTail {
    /// Parses the tail, accepting both `PAR1` and `PARE`.
    pub fn parse(tail: &[u8; FOOTER_TAIL_LEN]) -> Result<FooterTail> {
        let len = u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]) as usize;
        let magic = [tail[4], tail[5], tail[6], tail[7]];
        let encrypted_footer = match magic {
            MAGIC => false,
            MAGIC_ENCRYPTED_FOOTER => true,
            other => {
                return Err(Error::invalid(format!(
                    "not a Parquet file: trailing magic is {other:02x?}, expected \"PAR1\""
                ))
                .with_offset(4));
            }
        };
        Ok(FooterTail {
            metadata_len: len,
            encrypted_footer,
        })
    }
}

/// Parses the last 8 bytes of a file and returns the length of the footer metadata.
///
/// A `PARE` tail (encrypted footer) is an [`ErrorKind::Encrypted`] error; any other
/// magic than `PAR1` is [`ErrorKind::Invalid`].
///
/// ```
/// use herringbone_format::{ErrorKind, footer::parse_footer_tail};
/// assert_eq!(parse_footer_tail(&[10, 0, 0, 0, b'P', b'A', b'R', b'1']).unwrap(), 10);
/// let e = parse_footer_tail(&[10, 0, 0, 0, b'P', b'A', b'R', b'E']).unwrap_err();
/// assert_eq!(e.kind(), ErrorKind::Encrypted);
/// ```
pub fn parse_footer_tail(tail: &[u8; FOOTER_TAIL_LEN]) -> Result<usize> {
    let t = FooterTail::parse(tail)?;
    if t.encrypted_footer {
        return Err(Error::encrypted("encrypted footer: keys required"));
    }
    Ok(t.metadata_len)
}

/// What to decode from a footer. The default decodes everything.
///
/// Selections keep the file's order: with [`with_row_groups`](Self::with_row_groups),
/// `FileMetaData::row_groups` holds only the selected row groups, in ascending index
/// order (duplicates ignored); with [`with_columns`](Self::with_columns), each
/// `RowGroup::columns` holds only the selected leaf columns, in ascending leaf index
/// order. `schema`, `column_orders` (one per leaf), `num_rows` and the other fields stay
/// complete, so `selected_columns()[k]` is the leaf index of `columns[k]`. Skipped row
/// groups and columns are stepped over at the wire level, never decoded.
///
/// ```
/// use herringbone_format::footer::FooterOptions;
/// let opts = FooterOptions::new().with_columns([7, 3, 3]).with_skip_statistics(true);
/// assert_eq!(opts.selected_columns(), Some(&[3usize, 7][..]));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FooterOptions {
    skip_statistics: bool,
    row_groups: Option<Vec<usize>>,
    columns: Option<Vec<usize>>,
    base_offset: u64,
}

impl FooterOptions {
    /// Decode everything.
    pub fn new() -> Self {
        Self::default()
    }

    /// Skip `ColumnMetaData` statistics, encoding stats, size and geospatial statistics
    /// (left `None`).
    pub fn with_skip_statistics(mut self, skip: bool) -> Self {
        self.skip_statistics = skip;
        self
    }

    /// Decode only these row groups (indices into the file's row groups).
    pub fn with_row_groups(mut self, indices: impl IntoIterator<Item = usize>) -> Self {
        self.row_groups = Some(sorted_unique(indices));
        self
    }

    /// Decode only these leaf columns (indices into the file's leaf columns).
    pub fn with_columns(mut self, indices: impl IntoIterator<Item = usize>) -> Self {
        self.columns = Some(sorted_unique(indices));
        self
    }

    /// File offset of the footer buffer, so errors report file offsets.
    pub fn with_base_offset(mut self, offset: u64) -> Self {
        self.base_offset = offset;
        self
    }

    /// The file offset of the footer buffer.
    pub fn base_offset(&self) -> u64 {
        self.base_offset
    }

    /// Whether statistics are skipped.
    pub fn skip_statistics(&self) -> bool {
        self.skip_statistics
    }

    /// The selected row groups, sorted and without duplicates.
    pub fn selected_row_groups(&self) -> Option<&[usize]> {
        self.row_groups.as_deref()
    }

    /// The selected leaf columns, sorted and without duplicates.
    pub fn selected_columns(&self) -> Option<&[usize]> {
        self.columns.as_deref()
    }
}

fn sorted_unique(indices: impl IntoIterator<Item = usize>) -> Vec<usize> {
    let mut v: Vec<usize> = indices.into_iter().collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Decodes the footer metadata (the bytes between the data and the 8-byte tail).
///
/// `string` and `binary` fields share `bytes`. Errors report offsets relative to the
/// buffer plus the options' base offset.
pub fn decode_file_metadata(bytes: Bytes, options: &FooterOptions) -> Result<FileMetaData> {
    let mut r = CompactReader::from_bytes(&bytes)
        .with_base_offset(options.base_offset)
        .with_skip_statistics(options.skip_statistics);
    if options.row_groups.is_none() && options.columns.is_none() {
        return FileMetaData::read(&mut r);
    }
    read_file_metadata_selected(&mut r, options)
}

/// Reads the footer of a whole file held in memory.
///
/// Checks the leading and trailing magic and that the footer length fits the file.
pub fn read_metadata(bytes: &Bytes) -> Result<FileMetaData> {
    read_metadata_with_options(bytes, &FooterOptions::default())
}

/// Reads the footer of a whole file held in memory, decoding what `options` asks for
/// (the [`FooterReader`] over the whole file at once).
pub fn read_metadata_with_options(bytes: &Bytes, options: &FooterOptions) -> Result<FileMetaData> {
    let len = bytes.len() as u64;
    let footer = FooterReader::new(len)?
        .with_options(options.clone())
        .with_prefetch(len)
        .read_with(|range| Ok(bytes.slice(range.start as usize..range.end as usize)))?;
    Ok(footer.metadata)
}

/// Where the footer metadata lies in a whole file: checks the size, the magic at both
/// ends and the length in the tail (the checks of [`FooterReader`]).
pub fn footer_range(file: &[u8]) -> Result<Range<usize>> {
    let len = file.len();
    if len < MAGIC.len() + FOOTER_TAIL_LEN {
        return Err(Error::truncated(format!(
            "file of {len} bytes is too small for a Parquet file (at least 12 bytes)"
        )));
    }
    let mut tail = [0u8; FOOTER_TAIL_LEN];
    tail.copy_from_slice(&file[len - FOOTER_TAIL_LEN..]);
    let (range, _) = reader::locate_metadata(Some(&file[..MAGIC.len()]), &tail, len as u64, false)?;
    Ok(range.start as usize..range.end as usize)
}

/// Appends the encoded footer metadata, its length and `PAR1` to `out`.
pub fn encode_footer(metadata: &FileMetaData, out: &mut Vec<u8>) {
    let start = out.len();
    let mut w = CompactWriter::from_vec(std::mem::take(out));
    metadata.write(&mut w);
    *out = w.into_inner();
    let len = (out.len() - start) as u32;
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&MAGIC);
}

// ---------------------------------------------------------------------------------------
// Selective decode

pub(crate) fn read_file_metadata_selected(
    r: &mut CompactReader<'_>,
    options: &FooterOptions,
) -> Result<FileMetaData> {
    const S: &str = "FileMetaData";
    r.enter()?;
    let mut version = None;
    let mut schema: Option<Vec<SchemaElement>> = None;
    let mut num_rows = None;
    let mut row_groups = None;
    let mut key_value_metadata: Option<Vec<KeyValue>> = None;
    let mut created_by: Option<Text> = None;
    let mut column_orders: Option<Vec<ColumnOrder>> = None;
    let mut encryption_algorithm: Option<EncryptionAlgorithm> = None;
    let mut footer_signing_key_metadata: Option<Bytes> = None;
    let mut last = 0i16;
    while let Some((ty, id)) = r.read_field_header(&mut last)? {
        match id {
            1 => read_field_into(r, ty, &mut version).map_err(|e| e.in_field(S, "version"))?,
            2 => read_field_into(r, ty, &mut schema).map_err(|e| e.in_field(S, "schema"))?,
            3 => read_field_into(r, ty, &mut num_rows).map_err(|e| e.in_field(S, "num_rows"))?,
            4 => {
                row_groups = Some(
                    read_row_groups_selected(r, ty, options)
                        .map_err(|e| e.in_field(S, "row_groups"))?,
                )
            }
            5 => read_field_into(r, ty, &mut key_value_metadata)
                .map_err(|e| e.in_field(S, "key_value_metadata"))?,
            6 => {
                read_field_into(r, ty, &mut created_by).map_err(|e| e.in_field(S, "created_by"))?
            }
            7 => read_field_into(r, ty, &mut column_orders)
                .map_err(|e| e.in_field(S, "column_orders"))?,
            8 => read_field_into(r, ty, &mut encryption_algorithm)
                .map_err(|e| e.in_field(S, "encryption_algorithm"))?,
            9 => read_field_into(r, ty, &mut footer_signing_key_metadata)
                .map_err(|e| e.in_field(S, "footer_signing_key_metadata"))?,
            _ => r.skip_field(ty)?,
        }
    }
    r.leave();
    let missing = |r: &CompactReader<'_>, field: &'static str| {
        r.error(
            ErrorKind::Invalid,
            format!("required field `{field}` is missing"),
        )
        .in_field(S, field)
    };
    Ok(FileMetaData {
        version: version.ok_or_else(|| missing(r, "version"))?,
        schema: schema.ok_or_else(|| missing(r, "schema"))?,
        num_rows: num_rows.ok_or_else(|| missing(r, "num_rows"))?,
        row_groups: row_groups.ok_or_else(|| missing(r, "row_groups"))?,
        key_value_metadata,
        created_by,
        column_orders,
        encryption_algorithm,
        footer_signing_key_metadata,
    })
}

/// Reads the `row_groups` list keeping only the selected row groups (all when there
/// is no row group selection) and, inside them, only the selected columns.
fn read_row_groups_selected(
    r: &mut CompactReader<'_>,
    ty: u8,
    options: &FooterOptions,
) -> Result<Vec<RowGroup>> {
    r.expect_type(ty, wire::LIST)?;
    let (elem, count) = r.read_list_header()?;
    if count > 0 {
        r.expect_type(elem, wire::STRUCT)?;
    }
    let selected = options.row_groups.as_deref();
    if let Some(sel) = selected
        && let Some(&bad) = sel.iter().find(|&&i| i >= count)
    {
        return Err(r.error(
            ErrorKind::Invalid,
            format!("row group {bad} was selected but the file has {count} row groups"),
        ));
    }
    let keep = selected.map_or(count, <[usize]>::len).min(count);
    let mut out = Vec::with_capacity(keep.min(initial_capacity::<RowGroup>(r.remaining())));
    let mut next = 0usize; // position in `selected`
    for i in 0..count {
        let wanted = match selected {
            None => true,
            Some(sel) => {
                if sel.get(next) == Some(&i) {
                    next += 1;
                    true
                } else {
                    false
                }
            }
        };
        if wanted {
            out.push(
                read_row_group_selected(r, options.columns.as_deref())
                    .map_err(|e| e.at_index(i))?,
            );
        } else {
            r.skip_struct().map_err(|e| e.at_index(i))?;
        }
    }
    Ok(out)
}

fn read_row_group_selected(
    r: &mut CompactReader<'_>,
    columns: Option<&[usize]>,
) -> Result<RowGroup> {
    const S: &str = "RowGroup";
    let Some(columns) = columns else {
        return RowGroup::read(r);
    };
    r.enter()?;
    // As `RowGroup::read` does: the selected chunks' paths are shared by position.
    r.begin_row_group();
    let mut chunks = None;
    let mut total_byte_size = None;
    let mut num_rows = None;
    let mut sorting_columns: Option<Vec<SortingColumn>> = None;
    let mut file_offset = None;
    let mut total_compressed_size = None;
    let mut ordinal = None;
    let mut last = 0i16;
    while let Some((ty, id)) = r.read_field_header(&mut last)? {
        match id {
            1 => {
                chunks = Some(
                    read_columns_selected(r, ty, columns).map_err(|e| e.in_field(S, "columns"))?,
                )
            }
            2 => read_field_into(r, ty, &mut total_byte_size)
                .map_err(|e| e.in_field(S, "total_byte_size"))?,
            3 => read_field_into(r, ty, &mut num_rows).map_err(|e| e.in_field(S, "num_rows"))?,
            4 => read_field_into(r, ty, &mut sorting_columns)
                .map_err(|e| e.in_field(S, "sorting_columns"))?,
            5 => read_field_into(r, ty, &mut file_offset)
                .map_err(|e| e.in_field(S, "file_offset"))?,
            6 => read_field_into(r, ty, &mut total_compressed_size)
                .map_err(|e| e.in_field(S, "total_compressed_size"))?,
            7 => read_field_into(r, ty, &mut ordinal).map_err(|e| e.in_field(S, "ordinal"))?,
            _ => r.skip_field(ty)?,
        }
    }
    r.leave();
    let missing = |r: &CompactReader<'_>, field: &'static str| {
        r.error(
            ErrorKind::Invalid,
            format!("required field `{field}` is missing"),
        )
        .in_field(S, field)
    };
    Ok(RowGroup {
        columns: chunks.ok_or_else(|| missing(r, "columns"))?,
        total_byte_size: total_byte_size.ok_or_else(|| missing(r, "total_byte_size"))?,
        num_rows: num_rows.ok_or_else(|| missing(r, "num_rows"))?,
        sorting_columns,
        file_offset,
        total_compressed_size,
        ordinal,
    })
}

fn read_columns_selected(
    r: &mut CompactReader<'_>,
    ty: u8,
    selected: &[usize],
) -> Result<Vec<ColumnChunk>> {
    r.expect_type(ty, wire::LIST)?;
    let (elem, count) = r.read_list_header()?;
    if count > 0 {
        r.expect_type(elem, wire::STRUCT)?;
    }
    if let Some(&bad) = selected.iter().find(|&&i| i >= count) {
        return Err(r.error(
            ErrorKind::Invalid,
            format!("column {bad} was selected but the row group has {count} columns"),
        ));
    }
    let mut out = Vec::with_capacity(selected.len().min(count));
    let mut next = 0usize;
    for i in 0..count {
        if selected.get(next) == Some(&i) {
            next += 1;
            let mut chunk = ColumnChunk::default();
            chunk.read_in_place(r).map_err(|e| e.at_index(i))?;
            out.push(chunk);
        } else if !crate::chunk::skip_column_chunk(r) {
            r.skip_struct().map_err(|e| e.at_index(i))?;
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// Page index and Bloom filters

fn checked_range(
    what: &'static str,
    offset: i64,
    length: i64,
    file_len: usize,
) -> Result<Range<usize>> {
    if offset < 0 || length < 0 {
        return Err(Error::invalid(format!(
            "{what} has negative offset {offset} or length {length}"
        )));
    }
    let (start, len) = (offset as u64, length as u64);
    let end = start.saturating_add(len);
    if end > file_len as u64 {
        return Err(Error::invalid(format!(
            "{what} at {start}..{end} lies beyond the end of the file ({file_len} bytes)"
        ))
        .with_offset(start));
    }
    Ok(start as usize..end as usize)
}

/// The byte range of a column chunk's [`ColumnIndex`] in the file, if it has one.
/// Checked against `file_len`.
pub fn column_index_range(chunk: &ColumnChunk, file_len: usize) -> Result<Option<Range<usize>>> {
    match (chunk.column_index_offset, chunk.column_index_length) {
        (Some(offset), Some(len)) => {
            checked_range("column index", offset, i64::from(len), file_len).map(Some)
        }
        _ => Ok(None),
    }
}

/// The byte range of a column chunk's [`OffsetIndex`] in the file, if it has one.
/// Checked against `file_len`.
pub fn offset_index_range(chunk: &ColumnChunk, file_len: usize) -> Result<Option<Range<usize>>> {
    match (chunk.offset_index_offset, chunk.offset_index_length) {
        (Some(offset), Some(len)) => {
            checked_range("offset index", offset, i64::from(len), file_len).map(Some)
        }
        _ => Ok(None),
    }
}

/// Decodes a [`ColumnIndex`] from exactly its bytes; `file_offset` is where they start
/// in the file (for error offsets).
pub fn decode_column_index(bytes: &Bytes, file_offset: u64) -> Result<ColumnIndex> {
    let mut r = CompactReader::from_bytes(bytes).with_base_offset(file_offset);
    ColumnIndex::read(&mut r).map_err(|e| e.context("column index"))
}

/// Decodes an [`OffsetIndex`] from exactly its bytes; `file_offset` is where they start
/// in the file (for error offsets).
pub fn decode_offset_index(bytes: &Bytes, file_offset: u64) -> Result<OffsetIndex> {
    let mut r = CompactReader::from_bytes(bytes).with_base_offset(file_offset);
    OffsetIndex::read(&mut r).map_err(|e| e.context("offset index"))
}

/// Reads the [`ColumnIndex`] of a column chunk from a whole file in memory;
/// `Ok(None)` when the chunk has none.
pub fn read_column_index(file: &Bytes, chunk: &ColumnChunk) -> Result<Option<ColumnIndex>> {
    let Some(range) = column_index_range(chunk, file.len())? else {
        return Ok(None);
    };
    let start = range.start as u64;
    decode_column_index(&file.slice(range), start).map(Some)
}

/// Reads the [`OffsetIndex`] of a column chunk from a whole file in memory;
/// `Ok(None)` when the chunk has none.
pub fn read_offset_index(file: &Bytes, chunk: &ColumnChunk) -> Result<Option<OffsetIndex>> {
    let Some(range) = offset_index_range(chunk, file.len())? else {
        return Ok(None);
    };
    let start = range.start as u64;
    decode_offset_index(&file.slice(range), start).map(Some)
}

/// A decoded Bloom filter header and where its bitset lies.
#[derive(Debug, Clone, PartialEq)]
pub struct BloomFilterLocation {
    /// The header.
    pub header: BloomFilterHeader,
    /// Byte range of the bitset, in the same coordinates as the offset given to the
    /// decoder (file offsets for [`read_bloom_filter_header`]).
    pub bitset: Range<u64>,
}

/// Decodes a Bloom filter header from the start of `bytes`, which begin at
/// `file_offset` in the file. The bitset follows the header and is `num_bytes` long;
/// `bytes` need not contain it. When the column chunk gave `bloom_filter_length`, pass
/// it as `total_length` so the header and bitset are checked to fit in it.
pub fn decode_bloom_filter_header(
    bytes: &Bytes,
    file_offset: u64,
    total_length: Option<i32>,
) -> Result<BloomFilterLocation> {
    let mut r = CompactReader::from_bytes(bytes).with_base_offset(file_offset);
    let header = BloomFilterHeader::read(&mut r).map_err(|e| e.context("Bloom filter header"))?;
    let header_len = r.position() as u64;
    if header.num_bytes < 0 {
        return Err(Error::invalid(format!(
            "Bloom filter bitset size {} is negative",
            header.num_bytes
        ))
        .with_offset(file_offset));
    }
    let start = file_offset + header_len;
    let end = start + header.num_bytes as u64;
    if let Some(total) = total_length {
        let limit = file_offset.saturating_add(u64::try_from(total).unwrap_or(0));
        if total < 0 || end > limit {
            return Err(Error::invalid(format!(
                "Bloom filter header ({header_len} bytes) and bitset ({} bytes) exceed bloom_filter_length {total}",
                header.num_bytes
            ))
            .with_offset(file_offset));
        }
    }
    Ok(BloomFilterLocation {
        header,
        bitset: start..end,
    })
}

/// Reads the Bloom filter header of a column chunk from a whole file in memory and
/// checks that its bitset lies within the file; `Ok(None)` when the chunk has no Bloom
/// filter. When `bloom_filter_length` is absent the bitset follows the header and its
/// size is `num_bytes`.
pub fn read_bloom_filter_header(
    file: &Bytes,
    chunk: &ColumnChunk,
) -> Result<Option<BloomFilterLocation>> {
    let Some(meta) = chunk.meta_data.as_ref() else {
        return Ok(None);
    };
    let Some(offset) = meta.bloom_filter_offset else {
        return Ok(None);
    };
    let length = meta.bloom_filter_length;
    let span = match length {
        Some(len) => i64::from(len),
        None => i64::try_from(file.len())
            .unwrap_or(i64::MAX)
            .saturating_sub(offset),
    };
    let range = checked_range("Bloom filter", offset, span, file.len())?;
    let start = range.start as u64;
    let location = decode_bloom_filter_header(&file.slice(range), start, length)?;
    if location.bitset.end > file.len() as u64 {
        return Err(Error::invalid(format!(
            "Bloom filter bitset at {}..{} lies beyond the end of the file ({} bytes)",
            location.bitset.start,
            location.bitset.end,
            file.len()
        ))
        .with_offset(start));
    }
    Ok(Some(location))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::{ColumnMetaData, CompressionCodec, Type};

    fn sample() -> FileMetaData {
        let chunk = |i: i64| ColumnChunk {
            file_offset: 0,
            meta_data: Some(ColumnMetaData {
                type_: Type::INT64,
                path_in_schema: vec![Text::from(format!("c{i}"))].into(),
                codec: CompressionCodec::SNAPPY,
                num_values: 10 + i,
                data_page_offset: 4 + i,
                statistics: Some(Default::default()),
                ..Default::default()
            }),
            ..Default::default()
        };
        let rg = |n: i64| RowGroup {
            columns: (0..4).map(chunk).collect(),
            total_byte_size: 100,
            num_rows: n,
            ..Default::default()
        };
        FileMetaData {
            version: 1,
            schema: vec![SchemaElement {
                name: "schema".into(),
                num_children: Some(4),
                ..Default::default()
            }],
            num_rows: 6,
            row_groups: vec![rg(1), rg(2), rg(3)],
            created_by: Some("test".into()),
            ..Default::default()
        }
    }

    #[test]
    fn selective_decode_keeps_only_selection() {
        let meta = sample();
        let bytes = Bytes::from(meta.encode());
        let opts = FooterOptions::new()
            .with_row_groups([2, 0])
            .with_columns([3, 1])
            .with_skip_statistics(true);
        let got = decode_file_metadata(bytes.clone(), &opts).unwrap();
        assert_eq!(got.row_groups.len(), 2);
        assert_eq!(got.row_groups[0].num_rows, 1);
        assert_eq!(got.row_groups[1].num_rows, 3);
        let paths: Vec<String> = got.row_groups[1]
            .columns
            .iter()
            .map(|c| c.meta_data.as_ref().unwrap().path_in_schema[0].to_string())
            .collect();
        assert_eq!(paths, ["c1", "c3"]);
        assert!(
            got.row_groups[0].columns[0]
                .meta_data
                .as_ref()
                .unwrap()
                .statistics
                .is_none()
        );
        assert_eq!(got.created_by.as_deref(), Some("test"));

        let full = decode_file_metadata(bytes.clone(), &FooterOptions::new()).unwrap();
        assert_eq!(full, meta);

        let e = decode_file_metadata(bytes, &FooterOptions::new().with_columns([4])).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Invalid);
        assert_eq!(e.path(), "FileMetaData.row_groups[0].columns");
    }

    #[test]
    fn footer_tail_and_magic() {
        let mut file = MAGIC.to_vec();
        encode_footer(&sample(), &mut file);
        let bytes = Bytes::from(file.clone());
        assert_eq!(read_metadata(&bytes).unwrap(), sample());
        let n = file.len();
        let mut bad = file.clone();
        bad[n - 1] = b'E';
        let e = read_metadata(&Bytes::from(bad)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Encrypted);
        assert!(e.to_string().contains("encrypted footer: keys required"));
        let mut bad = file.clone();
        bad[n - 1] = b'X';
        assert_eq!(
            read_metadata(&Bytes::from(bad)).unwrap_err().kind(),
            ErrorKind::Invalid
        );
        let mut bad = file.clone();
        bad[0] = b'X';
        assert_eq!(
            read_metadata(&Bytes::from(bad)).unwrap_err().kind(),
            ErrorKind::Invalid
        );
        let mut bad = file.clone();
        bad[n - 8..n - 4].copy_from_slice(&(n as u32).to_le_bytes());
        let e = read_metadata(&Bytes::from(bad)).unwrap_err();
        assert!(e.message().contains("exceeds"), "{e}");
        assert_eq!(
            read_metadata(&Bytes::from_static(b"PAR1PAR1"))
                .unwrap_err()
                .kind(),
            ErrorKind::Truncated
        );
    }
}
