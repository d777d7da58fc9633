//! The sans-I/O footer reader: a state machine that says which byte ranges of a file it
//! needs next and decodes what it is given. The synchronous readers (files, `Bytes`),
//! the command-line tool and an asynchronous adapter (object stores) all drive this one
//! machine, so a file is checked the same way whichever way it is read.
//!
//! ```text
//! FooterReader::new(file_len)
//!   needed(): [0..4, len-8..len]      leading magic + tail (two small reads)
//!   needed(): [len-8-n..len-8]        the footer (skipped when a prefetch covered it)
//!   needed(): [page index ranges]     only with_page_index(true)
//!   finish() -> Footer
//! ```
//!
//! ```
//! use bytes::Bytes;
//! use herringbone_format::footer::{FooterReader, encode_footer};
//! use herringbone_format::metadata::{FileMetaData, SchemaElement};
//!
//! let meta = FileMetaData {
//!     version: 1,
//!     schema: vec![SchemaElement { name: "schema".into(), num_children: Some(0), ..Default::default() }],
//!     ..Default::default()
//! };
//! let mut file = b"PAR1".to_vec();
//! encode_footer(&meta, &mut file);
//! let file = Bytes::from(file);
//!
//! let mut reader = FooterReader::new(file.len() as u64).unwrap();
//! let mut reads = 0;
//! while !reader.is_done() {
//!     let fetched: Vec<Bytes> = reader
//!         .needed()
//!         .iter()
//!         .map(|r| file.slice(r.start as usize..r.end as usize))
//!         .collect();
//!     reads += fetched.len();
//!     reader.push(&fetched).unwrap();
//! }
//! assert_eq!(reads, 3); // leading magic, tail, footer
//! assert_eq!(reader.finish().unwrap().metadata, meta);
//! ```

use std::ops::Range;

use bytes::Bytes;

use super::{
    FOOTER_TAIL_LEN, FooterOptions, FooterTail, MAGIC, MAGIC_ENCRYPTED_FOOTER, column_index_range,
    decode_column_index, decode_file_metadata, decode_offset_index, offset_index_range,
};
use crate::error::{Error, Result};
use crate::metadata::{ColumnIndex, FileMetaData, OffsetIndex};

/// Page index ranges closer than this are fetched as one range (the bytes between them
/// cost less than another request).
const COALESCE_GAP: u64 = 64 * 1024;

/// What the footer reader found.
#[derive(Debug, Clone, PartialEq)]
pub struct Footer {
    /// The decoded metadata (selected as the [`FooterOptions`] asked).
    pub metadata: FileMetaData,
    /// Where the encoded metadata lies in the file.
    pub metadata_range: Range<u64>,
    /// The page index, when [`FooterReader::with_page_index`] asked for it.
    pub page_index: Option<PageIndex>,
}

/// The column and offset indexes of a file's chunks, indexed like
/// `metadata.row_groups[g].columns[c]` (`None` where a chunk has none).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageIndex {
    /// Column index (page statistics) of each chunk.
    pub column_index: Vec<Vec<Option<ColumnIndex>>>,
    /// Offset index (page locations and first rows) of each chunk.
    pub offset_index: Vec<Vec<Option<OffsetIndex>>>,
}

/// The footer's bytes as stored, for a caller that decodes them itself (the codec's
/// decrypting footer decoder): see [`FooterReader::with_undecoded_metadata`].
#[derive(Debug, Clone, PartialEq)]
pub struct UndecodedFooter {
    /// The footer bytes: the `FileMetaData` (and any signature) of a `PAR1` file; the
    /// crypto metadata and the encrypted module of a `PARE` file.
    pub bytes: Bytes,
    /// Where they lie in the file.
    pub range: Range<u64>,
    /// Whether the file ends (and starts) with `PARE`: an encrypted footer.
    pub encrypted_footer: bool,
}

#[derive(Debug)]
enum State {
    /// Waiting for the leading magic and the last `tail_len` bytes.
    Tail {
        tail_len: u64,
    },
    /// Waiting for the footer bytes.
    Metadata {
        range: Range<u64>,
        encrypted_footer: bool,
    },
    /// Waiting for the page index ranges.
    PageIndex {
        metadata: Box<FileMetaData>,
        metadata_range: Range<u64>,
        ranges: Vec<Range<u64>>,
    },
    Done(Box<Footer>),
    Undecoded(UndecodedFooter),
    Failed,
}

/// Reads a file's footer without doing I/O itself: [`Self::needed`] lists the byte
/// ranges to fetch, [`Self::push`] takes their bytes, until [`Self::is_done`]; then
/// [`Self::finish`] returns the [`Footer`]. See the module documentation of `footer::reader`.
///
/// Checks, in this order: the file is at least 12 bytes; it starts with `PAR1` (unless
/// switched off); it ends with `PAR1` (`PARE`, an encrypted footer, is
/// [`ErrorKind::Encrypted`](crate::ErrorKind)); the footer length fits between the two
/// magic numbers; the metadata decodes; page index ranges lie between the leading magic
/// and the footer. Every error names its file offset.
#[derive(Debug)]
pub struct FooterReader {
    file_len: u64,
    options: FooterOptions,
    check_leading_magic: bool,
    page_index: bool,
    undecoded: bool,
    state: State,
    needed: Vec<Range<u64>>,
}

impl FooterReader {
    /// A reader of the footer of a file of `file_len` bytes, which first asks for the
    /// leading magic and the 8-byte tail.
    pub fn new(file_len: u64) -> Result<Self> {
        let min = (MAGIC.len() + FOOTER_TAIL_LEN) as u64;
        if file_len < min {
            return Err(Error::truncated(format!(
                "file of {file_len} bytes is too small for a Parquet file (at least {min} bytes)"
            )));
        }
        let mut reader = Self {
            file_len,
            options: FooterOptions::default(),
            check_leading_magic: true,
            page_index: false,
            undecoded: false,
            state: State::Tail {
                tail_len: FOOTER_TAIL_LEN as u64,
            },
            needed: Vec::new(),
        };
        reader.set_tail_ranges();
        Ok(reader)
    }

    /// What to decode of the metadata (row groups, columns, statistics).
    pub fn with_options(mut self, options: FooterOptions) -> Self {
        self.options = options;
        self
    }

    /// Asks for the last `bytes` bytes instead of the last 8 in the first step (at
    /// least 8, at most the file): a footer within them needs no second read.
    pub fn with_prefetch(mut self, bytes: u64) -> Self {
        if matches!(self.state, State::Tail { .. }) {
            let tail_len = bytes.clamp(FOOTER_TAIL_LEN as u64, self.file_len);
            self.state = State::Tail { tail_len };
            self.set_tail_ranges();
        }
        self
    }

    /// Whether to check that the file starts with `PAR1` (default `true`; off saves a
    /// read where the caller has checked it).
    pub fn with_leading_magic_check(mut self, check: bool) -> Self {
        self.check_leading_magic = check;
        self.set_tail_ranges();
        self
    }

    /// Whether to read the page index (column and offset indexes) of the decoded chunks
    /// after the metadata (default `false`).
    pub fn with_page_index(mut self, page_index: bool) -> Self {
        self.page_index = page_index;
        self
    }

    /// Whether to stop at the footer's bytes, undecoded (default `false`): the reader
    /// then accepts an encrypted (`PARE`) footer, reads no page index, and
    /// [`Self::finish_undecoded`] returns the bytes for a decoder that decrypts them.
    pub fn with_undecoded_metadata(mut self, undecoded: bool) -> Self {
        self.undecoded = undecoded;
        self
    }

    fn set_tail_ranges(&mut self) {
        if let State::Tail { tail_len } = self.state {
            let tail = self.file_len - tail_len..self.file_len;
            self.needed = if !self.check_leading_magic {
                vec![tail]
            } else if tail.start <= MAGIC.len() as u64 {
                // The tail reaches the start: one read covers both.
                std::iter::once(0..self.file_len).collect()
            } else {
                vec![0..MAGIC.len() as u64, tail]
            };
        }
    }

    /// The byte ranges to fetch next, in file order; empty once done (or failed).
    pub fn needed(&self) -> &[Range<u64>] {
        &self.needed
    }

    /// Whether the footer is read ([`Self::finish`] returns it).
    pub fn is_done(&self) -> bool {
        matches!(
            self.state,
            State::Done(_) | State::Undecoded(_) | State::Failed
        )
    }

    /// Takes the bytes of the ranges [`Self::needed`] listed, in the same order, and
    /// moves on. After an error the reader needs nothing more and `finish` repeats the
    /// failure.
    pub fn push(&mut self, fetched: &[Bytes]) -> Result<()> {
        let result = self.advance(fetched);
        if result.is_err() {
            self.state = State::Failed;
            self.needed.clear();
        }
        result
    }

    fn advance(&mut self, fetched: &[Bytes]) -> Result<()> {
        if fetched.len() != self.needed.len()
            || fetched
                .iter()
                .zip(&self.needed)
                .any(|(b, r)| b.len() as u64 != r.end - r.start)
        {
            return Err(Error::invalid(format!(
                "footer reader: {} buffers of {:?} bytes given for the ranges {:?}",
                fetched.len(),
                fetched.iter().map(Bytes::len).collect::<Vec<_>>(),
                self.needed
            )));
        }
        match std::mem::replace(&mut self.state, State::Failed) {
            State::Tail { .. } => self.take_tail(fetched),
            State::Metadata {
                range,
                encrypted_footer,
            } => {
                let footer = fetched[0].clone();
                self.take_metadata(footer, range, encrypted_footer)
            }
            State::PageIndex {
                metadata,
                metadata_range,
                ranges,
            } => {
                let page_index = page_index_of(&metadata, self.file_len, &ranges, fetched)?;
                self.finish_with(*metadata, metadata_range, Some(page_index));
                Ok(())
            }
            State::Done(_) | State::Undecoded(_) | State::Failed => Err(Error::invalid(
                "footer reader: bytes pushed after it finished",
            )),
        }
    }

    fn take_tail(&mut self, fetched: &[Bytes]) -> Result<()> {
        let (head, tail) = match fetched {
            [whole] if self.needed[0].start == 0 && self.check_leading_magic => {
                (Some(whole.slice(..MAGIC.len())), whole.clone())
            }
            [head, tail] => (Some(head.clone()), tail.clone()),
            [tail] => (None, tail.clone()),
            _ => return Err(Error::invalid("footer reader: no tail given")),
        };
        let mut last = [0u8; FOOTER_TAIL_LEN];
        last.copy_from_slice(&tail[tail.len() - FOOTER_TAIL_LEN..]);
        let (range, encrypted_footer) =
            locate_metadata(head.as_deref(), &last, self.file_len, self.undecoded)?;
        let metadata_len = range.end - range.start;
        let tail_len = tail.len() as u64;
        if metadata_len + FOOTER_TAIL_LEN as u64 <= tail_len {
            // The prefetched tail holds the whole footer.
            let from = (tail_len - FOOTER_TAIL_LEN as u64 - metadata_len) as usize;
            let footer = tail.slice(from..from + metadata_len as usize);
            return self.take_metadata(footer, range, encrypted_footer);
        }
        self.needed = vec![range.clone()];
        self.state = State::Metadata {
            range,
            encrypted_footer,
        };
        Ok(())
    }

    fn take_metadata(
        &mut self,
        footer: Bytes,
        range: Range<u64>,
        encrypted_footer: bool,
    ) -> Result<()> {
        if self.undecoded {
            self.needed.clear();
            self.state = State::Undecoded(UndecodedFooter {
                bytes: footer,
                range,
                encrypted_footer,
            });
            return Ok(());
        }
        let options = self.options.clone().with_base_offset(range.start);
        let metadata = decode_file_metadata(footer, &options)?;
        if !self.page_index {
            self.finish_with(metadata, range, None);
            return Ok(());
        }
        let ranges = page_index_ranges(&metadata, self.file_len, range.start)?;
        if ranges.is_empty() {
            let empty = page_index_of(&metadata, self.file_len, &[], &[])?;
            self.finish_with(metadata, range, Some(empty));
            return Ok(());
        }
        self.needed = ranges.clone();
        self.state = State::PageIndex {
            metadata: Box::new(metadata),
            metadata_range: range,
            ranges,
        };
        Ok(())
    }

    fn finish_with(
        &mut self,
        metadata: FileMetaData,
        metadata_range: Range<u64>,
        page_index: Option<PageIndex>,
    ) {
        self.needed.clear();
        self.state = State::Done(Box::new(Footer {
            metadata,
            metadata_range,
            page_index,
        }));
    }

    /// The footer, once [`Self::is_done`]; an error before that or after a failure.
    pub fn finish(self) -> Result<Footer> {
        match self.state {
            State::Done(footer) => Ok(*footer),
            State::Undecoded(_) => Err(Error::invalid(
                "footer reader: asked for undecoded metadata (finish_undecoded)",
            )),
            State::Failed => Err(Error::invalid("footer reader: reading the footer failed")),
            _ => Err(Error::invalid(format!(
                "footer reader: not finished, still needs {:?}",
                self.needed
            ))),
        }
    }

    /// The footer's bytes, once [`Self::is_done`] with
    /// [`Self::with_undecoded_metadata`]; an error otherwise.
    pub fn finish_undecoded(self) -> Result<UndecodedFooter> {
        match self.state {
            State::Undecoded(footer) => Ok(footer),
            State::Failed => Err(Error::invalid("footer reader: reading the footer failed")),
            _ => Err(Error::invalid(
                "footer reader: not finished with undecoded metadata",
            )),
        }
    }

    /// Drives the reader to the end with `fetch` (one call per range) and returns the
    /// footer: what a synchronous adapter does.
    pub fn read_with(
        mut self,
        mut fetch: impl FnMut(Range<u64>) -> Result<Bytes>,
    ) -> Result<Footer> {
        while !self.is_done() {
            let fetched = self
                .needed
                .clone()
                .into_iter()
                .map(&mut fetch)
                .collect::<Result<Vec<_>>>()?;
            self.push(&fetched)?;
        }
        self.finish()
    }
}

/// Where the metadata of a file of `file_len` bytes lies, from its first 4 bytes
/// (`None`: not checked) and its last 8: the checks every footer read makes, in this
/// order: the trailing magic (`PARE` is [`ErrorKind::Encrypted`](crate::ErrorKind)
/// unless `accept_encrypted`), the leading magic (the same as the trailing one), the
/// footer length against the bytes between the two. Returns the range and whether the
/// footer is encrypted.
pub(super) fn locate_metadata(
    head: Option<&[u8]>,
    last: &[u8; FOOTER_TAIL_LEN],
    file_len: u64,
    accept_encrypted: bool,
) -> Result<(Range<u64>, bool)> {
    let parsed = FooterTail::parse(last).map_err(|e| e.shift_offset(file_len - 8))?;
    if parsed.encrypted_footer && !accept_encrypted {
        return Err(Error::encrypted("encrypted footer: keys required").with_offset(file_len - 4));
    }
    let expected = if parsed.encrypted_footer {
        MAGIC_ENCRYPTED_FOOTER
    } else {
        MAGIC
    };
    if let Some(head) = head
        && head != expected
    {
        return Err(Error::invalid(format!(
            "not a Parquet file: leading magic is {head:02x?}, expected {:?} as at the end",
            String::from_utf8_lossy(&expected)
        ))
        .with_offset(0));
    }
    let metadata_len = parsed.metadata_len as u64;
    let available = file_len - (FOOTER_TAIL_LEN + MAGIC.len()) as u64;
    if metadata_len > available {
        return Err(Error::invalid(format!(
            "footer length {metadata_len} exceeds the {available} bytes between the magic numbers"
        ))
        .with_offset(file_len - FOOTER_TAIL_LEN as u64));
    }
    let end = file_len - FOOTER_TAIL_LEN as u64;
    Ok((end - metadata_len..end, parsed.encrypted_footer))
}

/// The ranges holding the page indexes of every chunk of `metadata`, coalesced where
/// they lie close together; each within the data (after the leading magic, before the
/// footer at `footer_start`).
fn page_index_ranges(
    metadata: &FileMetaData,
    file_len: u64,
    footer_start: u64,
) -> Result<Vec<Range<u64>>> {
    let mut ranges = Vec::new();
    for chunk in metadata.row_groups.iter().flat_map(|g| &g.columns) {
        for range in [
            column_index_range(chunk, file_len as usize)?,
            offset_index_range(chunk, file_len as usize)?,
        ]
        .into_iter()
        .flatten()
        {
            let (start, end) = (range.start as u64, range.end as u64);
            if start < MAGIC.len() as u64 || end > footer_start {
                return Err(Error::invalid(format!(
                    "page index at {start}..{end} overlaps the magic or the footer (at {footer_start})"
                ))
                .with_offset(start));
            }
            ranges.push(start..end);
        }
    }
    ranges.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<u64>> = Vec::new();
    for range in ranges {
        match merged.last_mut() {
            Some(last) if range.start <= last.end.saturating_add(COALESCE_GAP) => {
                last.end = last.end.max(range.end);
            }
            _ => merged.push(range),
        }
    }
    Ok(merged)
}

/// Decodes the page index of every chunk of `metadata` from the fetched `ranges`.
fn page_index_of(
    metadata: &FileMetaData,
    file_len: u64,
    ranges: &[Range<u64>],
    fetched: &[Bytes],
) -> Result<PageIndex> {
    let slice = |range: Range<usize>| -> Result<(Bytes, u64)> {
        let (start, end) = (range.start as u64, range.end as u64);
        ranges
            .iter()
            .zip(fetched)
            .find(|(r, _)| r.start <= start && end <= r.end)
            .map(|(r, bytes)| {
                let from = (start - r.start) as usize;
                (bytes.slice(from..from + (end - start) as usize), start)
            })
            .ok_or_else(|| {
                Error::invalid(format!("page index at {start}..{end} was not fetched"))
                    .with_offset(start)
            })
    };
    let mut index = PageIndex::default();
    for group in &metadata.row_groups {
        let mut columns = Vec::with_capacity(group.columns.len());
        let mut offsets = Vec::with_capacity(group.columns.len());
        for chunk in &group.columns {
            columns.push(match column_index_range(chunk, file_len as usize)? {
                Some(range) => {
                    let (bytes, at) = slice(range)?;
                    Some(decode_column_index(&bytes, at)?)
                }
                None => None,
            });
            offsets.push(match offset_index_range(chunk, file_len as usize)? {
                Some(range) => {
                    let (bytes, at) = slice(range)?;
                    Some(decode_offset_index(&bytes, at)?)
                }
                None => None,
            });
        }
        index.column_index.push(columns);
        index.offset_index.push(offsets);
    }
    Ok(index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;
    use crate::footer::encode_footer;
    use crate::metadata::{
        BoundaryOrder, ColumnChunk, PageLocation, RowGroup, SchemaElement, Type,
    };
    use crate::thrift::{CompactWriter, ThriftStruct};

    fn metadata(row_groups: Vec<RowGroup>) -> FileMetaData {
        FileMetaData {
            version: 1,
            schema: vec![
                SchemaElement {
                    name: "schema".into(),
                    num_children: Some(1),
                    ..Default::default()
                },
                SchemaElement {
                    name: "x".into(),
                    type_: Some(Type::INT32),
                    ..Default::default()
                },
            ],
            row_groups,
            ..Default::default()
        }
    }

    fn file_of(body: &[u8], meta: &FileMetaData) -> Bytes {
        let mut file = b"PAR1".to_vec();
        file.extend_from_slice(body);
        encode_footer(meta, &mut file);
        Bytes::from(file)
    }

    /// Drives `reader` over `file`, returning the footer and the ranges asked for, step
    /// by step.
    fn drive(mut reader: FooterReader, file: &Bytes) -> (Result<Footer>, Vec<Vec<Range<u64>>>) {
        let mut steps = Vec::new();
        while !reader.is_done() {
            let needed = reader.needed().to_vec();
            let fetched: Vec<Bytes> = needed
                .iter()
                .map(|r| file.slice(r.start as usize..r.end as usize))
                .collect();
            steps.push(needed);
            if let Err(e) = reader.push(&fetched) {
                return (Err(e), steps);
            }
        }
        (reader.finish(), steps)
    }

    #[test]
    fn the_footer_costs_the_magic_and_tail_then_the_footer() {
        let meta = metadata(Vec::new());
        let file = file_of(&[0; 100], &meta);
        let len = file.len() as u64;
        let (footer, steps) = drive(FooterReader::new(len).unwrap(), &file);
        let footer = footer.unwrap();
        assert_eq!(footer.metadata, meta);
        assert_eq!(footer.page_index, None);
        let range = footer.metadata_range.clone();
        assert_eq!(range.end, len - 8);
        assert_eq!(
            steps,
            vec![vec![0..4, len - 8..len], vec![range.clone()]],
            "two small reads, then the footer"
        );
        // A prefetch that covers the footer needs no second step.
        let (footer, steps) = drive(FooterReader::new(len).unwrap().with_prefetch(64), &file);
        assert_eq!(footer.unwrap().metadata, meta);
        assert_eq!(steps, vec![vec![0..4, len - 64..len]]);
        // Without the leading check, one read; a prefetch of the whole file, one range.
        let reader = FooterReader::new(len)
            .unwrap()
            .with_leading_magic_check(false);
        assert_eq!(reader.needed(), std::slice::from_ref(&(len - 8..len)));
        let reader = FooterReader::new(len).unwrap().with_prefetch(len);
        assert_eq!(reader.needed(), std::slice::from_ref(&(0..len)));
        assert_eq!(drive(reader, &file).0.unwrap().metadata, meta);
    }

    #[test]
    fn bad_magic_encrypted_footers_and_bad_lengths_are_errors_with_offsets() {
        let meta = metadata(Vec::new());
        let good = file_of(&[], &meta);
        let len = good.len();

        let mut bad = good.to_vec();
        bad[..4].copy_from_slice(b"PAR2");
        let error = drive(FooterReader::new(len as u64).unwrap(), &Bytes::from(bad))
            .0
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Invalid);
        assert_eq!(error.offset(), Some(0));
        assert!(error.to_string().contains("leading magic"), "{error}");

        let mut encrypted = good.to_vec();
        encrypted[len - 4..].copy_from_slice(b"PARE");
        let error = drive(
            FooterReader::new(len as u64).unwrap(),
            &Bytes::from(encrypted),
        )
        .0
        .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Encrypted);

        let mut long = good.to_vec();
        long[len - 8..len - 4].copy_from_slice(&(len as u32).to_le_bytes());
        let error = drive(FooterReader::new(len as u64).unwrap(), &Bytes::from(long))
            .0
            .unwrap_err();
        assert!(error.to_string().contains("exceeds"), "{error}");
        assert_eq!(error.offset(), Some(len as u64 - 8));

        assert_eq!(
            FooterReader::new(11).unwrap_err().kind(),
            ErrorKind::Truncated
        );
        // Buffers that do not match the ranges asked for.
        let mut reader = FooterReader::new(len as u64).unwrap();
        assert!(reader.push(&[good.slice(..4)]).is_err());
        assert!(reader.is_done() && reader.needed().is_empty());
        assert!(reader.finish().is_err());
    }

    fn encoded<T: ThriftStruct>(value: &T) -> Vec<u8> {
        let mut writer = CompactWriter::from_vec(Vec::new());
        value.write(&mut writer);
        writer.into_inner()
    }

    #[test]
    fn the_page_index_is_fetched_in_one_coalesced_range_and_decoded() {
        let column_index = ColumnIndex {
            null_pages: vec![false, true],
            min_values: vec![Bytes::from_static(&[1, 0, 0, 0]), Bytes::new()],
            max_values: vec![Bytes::from_static(&[9, 0, 0, 0]), Bytes::new()],
            boundary_order: BoundaryOrder::ASCENDING,
            null_counts: Some(vec![0, 10]),
            ..Default::default()
        };
        let offset_index = OffsetIndex {
            page_locations: vec![
                PageLocation {
                    offset: 4,
                    compressed_page_size: 10,
                    first_row_index: 0,
                },
                PageLocation {
                    offset: 14,
                    compressed_page_size: 10,
                    first_row_index: 10,
                },
            ],
            unencoded_byte_array_data_bytes: None,
        };
        let ci = encoded(&column_index);
        let oi = encoded(&offset_index);
        // 20 bytes of "pages", then the column index, then the offset index.
        let mut body = vec![0u8; 20];
        let ci_at = 4 + body.len() as i64;
        body.extend_from_slice(&ci);
        let oi_at = 4 + body.len() as i64;
        body.extend_from_slice(&oi);
        let chunk = |with_index: bool| ColumnChunk {
            file_offset: 4,
            column_index_offset: with_index.then_some(ci_at),
            column_index_length: with_index.then_some(ci.len() as i32),
            offset_index_offset: with_index.then_some(oi_at),
            offset_index_length: with_index.then_some(oi.len() as i32),
            ..Default::default()
        };
        let groups = vec![
            RowGroup {
                columns: vec![chunk(true)],
                num_rows: 20,
                ..Default::default()
            },
            RowGroup {
                columns: vec![chunk(false)],
                ..Default::default()
            },
        ];
        let meta = metadata(groups);
        let file = file_of(&body, &meta);
        let len = file.len() as u64;
        let reader = FooterReader::new(len).unwrap().with_page_index(true);
        let (footer, steps) = drive(reader, &file);
        let footer = footer.unwrap();
        assert_eq!(steps.len(), 3);
        assert_eq!(
            steps[2],
            vec![ci_at as u64..(oi_at as u64 + oi.len() as u64)],
            "both indexes in one read"
        );
        let index = footer.page_index.unwrap();
        assert_eq!(
            index.column_index,
            vec![vec![Some(column_index)], vec![None]]
        );
        assert_eq!(
            index.offset_index,
            vec![vec![Some(offset_index)], vec![None]]
        );

        // An index that reaches into the footer is refused before anything is fetched.
        let mut bad = meta.clone();
        bad.row_groups[0].columns[0].offset_index_length = Some(10_000);
        let file = file_of(&body, &bad);
        let len = file.len() as u64;
        let reader = FooterReader::new(len).unwrap().with_page_index(true);
        let error = drive(reader, &file).0.unwrap_err();
        assert!(error.to_string().contains("offset index"), "{error}");
    }
}
