//! Recovery of a file whose footer is missing, truncated or corrupt.
//!
//! The specification calls such a file lost; most of it is not. [`recover`] finds the
//! structure three ways, most trustworthy first:
//!
//! 1. the footer, when it still decodes (then only damaged row groups are dropped);
//! 2. the start of a truncated footer: the schema and every row group whose metadata
//!    precedes the cut decode on their own;
//! 3. the page headers: scanned from the start of the file (resynchronising past
//!    damage), each page decompressed and decoded under the schema's columns, and
//!    grouped into column chunks (an optional dictionary page, then data pages) and
//!    row groups (one chunk per leaf column, in schema order, all with the same number
//!    of rows). A row group is kept only when exactly one grouping explains its pages:
//!    two columns of the same type with several pages each can be split more than one
//!    way, and then it is dropped and reported, never guessed.
//!
//! The schema comes from the file (1, 2) or from the caller
//! ([`RecoverOptions::with_schema`]: a text schema, another file's schema). Every row
//! kept is in a row group whose every page decompressed and decoded; the output copies
//! those pages byte for byte into a valid file with new metadata (no statistics, page
//! index or Bloom filters for rebuilt row groups), and the report lists what was
//! dropped and why.

mod page_shape;

use std::io::Write;

use bytes::Bytes;
use herringbone_codec::compression::Codec;
use herringbone_format::footer::encode_footer;
use herringbone_format::metadata::{
    ColumnChunk, ColumnMetaData, CompressionCodec, Encoding, FileMetaData, KeyValue, PageType,
    RowGroup, SchemaElement,
};
use herringbone_format::schema::SchemaDescriptor;
use herringbone_format::thrift::{CompactReader, ThriftStruct};

use crate::layout::{PageSpan, read_page_span};
use crate::verify::chunk::{ColumnFacts, read_page};
use crate::verify::order::SortOrder;
use crate::verify::values::{DataPage, Dictionary, PageDecoder};
use crate::verify::{Check, VerifyOptions};
use crate::{ChunkReader, ParquetRecordBatchReaderBuilder, SchemaOptions};
use herringbone_codec::page::Page;

/// Errors of recovery (nothing recoverable, no schema, I/O).
pub type Error = herringbone_arrow_bridge::Error;

type Result<T> = std::result::Result<T, Error>;

/// Where the schema and structure came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The footer decoded whole.
    Footer,
    /// The start of a truncated or damaged footer.
    PartialFooter,
    /// The page headers, under a schema the caller gave.
    PageScan,
}

/// What [`recover`] did.
#[derive(Debug, Clone)]
pub struct RecoveryReport {
    /// Where the structure came from (the first source used).
    pub source: Source,
    /// Row groups written.
    pub row_groups: usize,
    /// Rows written.
    pub rows: u64,
    /// What was dropped, and why, one sentence each (with file offsets).
    pub dropped: Vec<String>,
    /// The metadata of the file written.
    pub metadata: FileMetaData,
}

/// How to recover.
#[derive(Debug, Clone, Default)]
pub struct RecoverOptions {
    schema: Option<Vec<SchemaElement>>,
    key_value_metadata: Option<Vec<KeyValue>>,
}

impl RecoverOptions {
    /// The schema to read pages with when the file's own footer has none left, and
    /// key-value metadata (such as `ARROW:schema`) for the output.
    pub fn with_schema(
        mut self,
        schema: Vec<SchemaElement>,
        key_value_metadata: Option<Vec<KeyValue>>,
    ) -> Self {
        self.schema = Some(schema);
        self.key_value_metadata = key_value_metadata;
        self
    }
}

/// A chunk proven intact: its pages' bytes and what its metadata must say.
#[derive(Clone)]
struct Chunk {
    start: u64,
    bytes: Bytes,
    codec: Codec,
    num_values: i64,
    uncompressed: i64,
    encodings: Vec<Encoding>,
    dictionary: bool,
    /// The original metadata (footer sources), to keep its statistics.
    original: Option<ColumnChunk>,
}

#[derive(Clone)]
struct Group {
    rows: i64,
    chunks: Vec<Chunk>,
}

/// Recovers what can be proven intact from `input` into `output`; see the
/// [module documentation](self).
pub fn recover<R: ChunkReader, W: Write>(
    input: &R,
    output: W,
    options: &RecoverOptions,
) -> Result<RecoveryReport> {
    let len = input.len();
    let file = input.get_bytes(0..len)?;
    let mut dropped = Vec::new();
    if file.len() < 4 || &file[..4] != b"PAR1" {
        dropped.push("the file does not start with PAR1 (read on regardless)".to_string());
    }
    let (source, footer) = match herringbone_arrow_bridge::read::read_metadata(input) {
        Ok(metadata) => (Source::Footer, Some((metadata, true))),
        Err(e) => {
            dropped.push(format!("the footer: {e}"));
            match partial_footer(&file) {
                Some(partial) => (Source::PartialFooter, Some((partial, false))),
                None => (Source::PageScan, None),
            }
        }
    };
    let schema_elements = match (&footer, &options.schema) {
        (Some((metadata, _)), _) => metadata.schema.clone(),
        (None, Some(schema)) => schema.clone(),
        (None, None) => {
            return Err(Error::invalid_argument(
                "no footer left to take the schema from: give one (a text schema, or a Parquet file with the same schema)",
            ));
        }
    };
    let schema = SchemaDescriptor::new(&schema_elements)?;
    let columns: Vec<ColumnFacts> = schema
        .columns()
        .iter()
        .map(|d| ColumnFacts::new(&schema, d, SortOrder::Undefined))
        .collect();
    let mut groups = Vec::new();
    // Where the pages the footer does not describe start.
    let mut scan_from = 4u64;
    if let Some((metadata, whole)) = &footer {
        for (g, group) in metadata.row_groups.iter().enumerate() {
            match footer_group(&file, metadata, group, &columns) {
                Ok(kept) => {
                    scan_from = scan_from.max(
                        kept.chunks
                            .iter()
                            .map(|c| c.start + c.bytes.len() as u64)
                            .max()
                            .unwrap_or(0),
                    );
                    groups.push(kept);
                }
                Err(reason) => dropped.push(format!("row group {g} (from the footer): {reason}")),
            }
        }
        if *whole {
            // The footer covers every page.
            scan_from = len;
        }
    }
    if scan_from < len {
        let pages = scan_pages(&file, scan_from);
        let (found, mut lost) = group_pages(&file, &pages, &columns);
        groups.extend(found);
        dropped.append(&mut lost);
    }
    // Last, the reader's own word: a row group whose pages each decode may still not
    // assemble (levels that contradict each other across pages, say).
    let groups = groups
        .into_iter()
        .enumerate()
        .filter_map(|(n, group)| match reads_back(&schema_elements, &group) {
            Ok(()) => Some(group),
            Err(e) => {
                dropped.push(format!(
                    "row group {n} (as rebuilt): does not read back: {e}"
                ));
                None
            }
        })
        .collect::<Vec<_>>();
    if groups.is_empty() {
        return Err(Error::corrupt(format!(
            "no row group could be proven intact: {}",
            dropped.join("; ")
        )));
    }
    let (created_by, key_value_metadata, column_orders) = match &footer {
        Some((m, _)) => (
            m.created_by.clone(),
            m.key_value_metadata
                .clone()
                .or_else(|| options.key_value_metadata.clone()),
            m.column_orders.clone(),
        ),
        None => (None, options.key_value_metadata.clone(), None),
    };
    let metadata = write_file(
        output,
        schema_elements,
        groups,
        created_by,
        key_value_metadata,
        column_orders,
    )?;
    Ok(RecoveryReport {
        source,
        row_groups: metadata.row_groups.len(),
        rows: u64::try_from(metadata.num_rows).unwrap_or(0),
        dropped,
        metadata,
    })
}

/// Whether `group`, written alone as a file, reads back whole through the reader (INT96
/// in seconds, which every INT96 fits: a timestamp too far out for nanoseconds is not
/// damage) and the verifier finds its pages' headers, levels and values sound (it
/// checks what the reader tolerates, e.g. levels that continue a list they do not
/// define).
fn reads_back(schema: &[SchemaElement], group: &Group) -> Result<()> {
    let mut file = Vec::new();
    write_file(
        &mut file,
        schema.to_vec(),
        vec![group.clone()],
        None,
        None,
        None,
    )?;
    let file = Bytes::from(file);
    let options = SchemaOptions::new().with_int96_unit(arrow_schema::TimeUnit::Second);
    let reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())?
        .with_schema_options(options)
        .build()?;
    for batch in reader {
        batch.map_err(Error::from)?;
    }
    let checked = crate::verify::verify(file, &VerifyOptions::default());
    let damage = checked.problems.iter().find(|p| {
        matches!(
            p.check,
            Check::PageHeader | Check::Decompression | Check::Levels | Check::Decoding
        )
    });
    match damage {
        Some(problem) => Err(Error::corrupt(problem.to_string())),
        None => Ok(()),
    }
}

/// The start of a footer: the schema and the row groups whose metadata decodes whole.
/// Footers follow the pages, so candidates are searched from the end backwards.
fn partial_footer(file: &Bytes) -> Option<FileMetaData> {
    let limit = file.len().saturating_sub(64 << 20).max(4);
    (limit..file.len().saturating_sub(2))
        .rev()
        .filter(|&p| starts_like_a_footer(&file[p..]))
        .find_map(|p| decode_partial(&file.slice(p..)))
}

/// Whether `bytes` start as writers start a footer: `version` (field 1, an i32 of one
/// byte) and then `schema` (field 2, a list of structures). Decoding from every offset
/// instead walked, at each, as far as the bytes there declared (a long list in an
/// unknown field: up to the end of the file), which made a scan of damaged data
/// quadratic in its size.
fn starts_like_a_footer(bytes: &[u8]) -> bool {
    matches!(bytes, [0x15, version, 0x19, list, ..] if *version < 0x80 && list & 0x0f == 0x0c)
}

fn decode_partial(bytes: &Bytes) -> Option<FileMetaData> {
    let mut r = CompactReader::from_bytes(bytes);
    let mut metadata = FileMetaData::default();
    let mut last = 0i16;
    let mut have_schema = false;
    loop {
        let Ok(Some((ty, id))) = r.read_field_header(&mut last) else {
            break;
        };
        let step: herringbone_format::Result<()> = (|| {
            match id {
                1 => metadata.version = r.read_i32()?,
                2 => {
                    let (_, n) = r.read_list_header()?;
                    let mut schema = Vec::new();
                    for _ in 0..n {
                        schema.push(SchemaElement::read(&mut r)?);
                    }
                    metadata.schema = schema;
                }
                3 => metadata.num_rows = r.read_i64()?,
                4 => {
                    let (_, n) = r.read_list_header()?;
                    for _ in 0..n {
                        metadata.row_groups.push(RowGroup::read(&mut r)?);
                    }
                }
                5 => {
                    let (_, n) = r.read_list_header()?;
                    let mut kv = Vec::new();
                    for _ in 0..n {
                        kv.push(KeyValue::read(&mut r)?);
                    }
                    metadata.key_value_metadata = Some(kv);
                }
                6 => metadata.created_by = Some(r.read_text()?),
                _ => r.skip_field(ty)?,
            }
            Ok(())
        })();
        if id == 2 {
            have_schema = step.is_ok();
        }
        if step.is_err() {
            break;
        }
    }
    if !have_schema || metadata.schema.len() < 2 {
        return None;
    }
    SchemaDescriptor::new(&metadata.schema).ok()?;
    Some(metadata)
}

/// Checks a row group the footer describes: every chunk's pages must decode.
fn footer_group(
    file: &Bytes,
    metadata: &FileMetaData,
    group: &RowGroup,
    columns: &[ColumnFacts],
) -> std::result::Result<Group, String> {
    if group.columns.len() != columns.len() {
        return Err(format!(
            "{} chunks for {} columns",
            group.columns.len(),
            columns.len()
        ));
    }
    let rows = group.num_rows;
    let mut chunks = Vec::new();
    for (chunk, facts) in group.columns.iter().zip(columns) {
        let meta = chunk
            .meta_data
            .as_ref()
            .ok_or_else(|| format!("column {}: no metadata (encrypted?)", facts.path))?;
        let codec = Codec::from_thrift_id(meta.codec.0).map_err(|e| e.to_string())?;
        let range = herringbone_codec::page::column_chunk_range(
            meta,
            metadata.created_by.as_deref(),
            file.len() as u64,
        )
        .map_err(|e| format!("column {}: {e}", facts.path))?;
        let bytes = file.slice(range.start as usize..range.end as usize);
        let mut at = 0usize;
        let mut spans = Vec::new();
        let mut values = 0i64;
        while values < meta.num_values && at < bytes.len() {
            let span = read_page_span(&bytes.slice(at..), range.start + at as u64)
                .map_err(|e| format!("column {}: {e}", facts.path))?;
            at += span.total_len() as usize;
            if span.is_data() {
                values += i64::from(span.num_values().unwrap_or(0));
            }
            spans.push(span);
        }
        let checked =
            check_chunk(&spans, codec, facts).map_err(|e| format!("column {}: {e}", facts.path))?;
        if checked.rows != u64::try_from(rows).unwrap_or(0) {
            return Err(format!(
                "column {}: the pages hold {} rows, the row group says {rows}",
                facts.path, checked.rows
            ));
        }
        chunks.push(Chunk {
            start: range.start,
            bytes: bytes.slice(..at),
            codec,
            num_values: values,
            uncompressed: checked.uncompressed,
            encodings: checked.encodings,
            dictionary: checked.dictionary,
            original: Some(chunk.clone()),
        });
    }
    Ok(Group { rows, chunks })
}

/// What a chunk's pages held once every one decoded.
struct Checked {
    rows: u64,
    uncompressed: i64,
    encodings: Vec<Encoding>,
    dictionary: bool,
}

/// Decodes a chunk's pages one after another under `facts`.
struct ChunkCheck<'a> {
    codec: Codec,
    facts: &'a ColumnFacts,
    dictionary: Option<Dictionary>,
    pages: usize,
    checked: Checked,
}

impl<'a> ChunkCheck<'a> {
    fn new(codec: Codec, facts: &'a ColumnFacts) -> Self {
        Self {
            codec,
            facts,
            dictionary: None,
            pages: 0,
            checked: Checked {
                rows: 0,
                uncompressed: 0,
                encodings: vec![Encoding::RLE],
                dictionary: false,
            },
        }
    }

    /// Decompresses and decodes the next page of the chunk.
    fn add(&mut self, span: &PageSpan) -> std::result::Result<(), String> {
        let i = self.pages;
        let at = |e: &dyn std::fmt::Display| format!("page {i} at offset {}: {e}", span.offset);
        let mut whole = Vec::with_capacity(span.header_len + span.compressed_len);
        let mut writer = herringbone_format::thrift::CompactWriter::new();
        span.header.write(&mut writer);
        whole.extend_from_slice(&writer.into_inner());
        whole.extend_from_slice(&span.body);
        let page = read_page(Bytes::from(whole), self.codec, &VerifyOptions::default())
            .map_err(|e| at(&e))?
            .ok_or_else(|| at(&"not a data or dictionary page"))?;
        let data = match page {
            Page::Dictionary {
                values, num_values, ..
            } => {
                if i != 0 {
                    return Err(at(&"a dictionary page inside the chunk"));
                }
                let dictionary = Dictionary::decode(
                    self.facts.shape.physical,
                    self.facts.shape.width,
                    values,
                    num_values,
                )
                .map_err(|e| at(&e))?;
                self.dictionary = Some(dictionary);
                self.checked.dictionary = true;
                None
            }
            Page::DataV1 {
                buffer,
                num_values,
                encoding,
                def_level_encoding,
                rep_level_encoding,
                ..
            } => Some(DataPage {
                values: buffer,
                v2_levels: None,
                num_values,
                encoding,
                def_level_encoding,
                rep_level_encoding,
            }),
            Page::DataV2 {
                rep_levels,
                def_levels,
                values,
                num_values,
                encoding,
                ..
            } => Some(DataPage {
                values,
                v2_levels: Some((rep_levels, def_levels)),
                num_values,
                encoding,
                def_level_encoding: Encoding::RLE,
                rep_level_encoding: Encoding::RLE,
            }),
        };
        if let Some(data) = data {
            let first = self.checked.rows == 0;
            let rows = decode_rows(&data, self.facts, self.dictionary.as_ref(), first)
                .map_err(|e| at(&e))?;
            self.checked.rows += rows;
        }
        if let Some(encoding) = span.encoding()
            && !self.checked.encodings.contains(&encoding)
        {
            self.checked.encodings.push(encoding);
        }
        self.checked.uncompressed += (span.header_len + span.uncompressed_len) as i64;
        self.pages += 1;
        Ok(())
    }
}

/// Decompresses and decodes every page of a chunk under `facts`; the first error ends it.
fn check_chunk(
    spans: &[PageSpan],
    codec: Codec,
    facts: &ColumnFacts,
) -> std::result::Result<Checked, String> {
    let mut check = ChunkCheck::new(codec, facts);
    for span in spans {
        check.add(span)?;
    }
    Ok(check.checked)
}

/// Decodes every level and value of a page; returns the rows that start in it.
fn decode_rows(
    data: &DataPage,
    facts: &ColumnFacts,
    dictionary: Option<&Dictionary>,
    first_of_chunk: bool,
) -> herringbone_codec::Result<u64> {
    let mut decoder = PageDecoder::new(facts.shape, data)?;
    let mut rows = 0u64;
    let mut first = true;
    loop {
        let n = decoder.next_levels()?;
        if n == 0 {
            break;
        }
        if first && first_of_chunk && decoder.rep_levels()[0] != 0 {
            return Err(herringbone_codec::Error::corrupt(
                "the chunk starts inside a record",
            ));
        }
        first = false;
        rows += decoder.rep_levels().iter().filter(|&&r| r == 0).count() as u64;
        let present = decoder
            .def_levels()
            .iter()
            .filter(|&&d| d == facts.shape.max_def)
            .count();
        decoder.values(present, dictionary, &mut |_| {})?;
    }
    // Bytes the header's value count leaves unread mean the count (or the data) is not
    // what was written: the page is not proven intact.
    if let Some(left) = decoder.plain_bytes_left()
        && left > 0
    {
        return Err(herringbone_codec::Error::corrupt(format!(
            "{left} bytes left in the PLAIN values section after the page's values"
        )));
    }
    Ok(rows)
}

/// The page headers found scanning from `from`, in file order; after bytes that are
/// not a page, the scan moves on a byte at a time. A header is decoded only where the
/// bytes have a page header's layout ([`page_shape`]), which takes a bounded number of
/// steps at any offset: the scan is linear in the file's size.
fn scan_pages(file: &Bytes, from: u64) -> Vec<PageSpan> {
    let mut pages = Vec::new();
    let mut at = from as usize;
    while at + 4 < file.len() {
        let span = page_shape::looks_like_page_header(&file[at..])
            .then(|| read_page_span(&file.slice(at..), at as u64).ok())
            .flatten();
        match span {
            Some(span) if plausible(&span) => {
                at += span.total_len() as usize;
                pages.push(span);
            }
            _ => at += 1,
        }
    }
    pages
}

fn plausible(span: &PageSpan) -> bool {
    let h = &span.header;
    let values = span.num_values().unwrap_or(-1);
    let sub_header = match h.type_ {
        PageType::DATA_PAGE => h.data_page_header.is_some(),
        PageType::DATA_PAGE_V2 => h.data_page_header_v2.is_some(),
        PageType::DICTIONARY_PAGE => h.dictionary_page_header.is_some(),
        _ => false,
    };
    sub_header
        && values >= 0
        && span.uncompressed_len
            <= span
                .compressed_len
                .saturating_mul(1100)
                .saturating_add(1024)
}

/// The codecs a page may be compressed with, most likely first.
const CODECS: [Codec; 8] = [
    Codec::Uncompressed,
    Codec::Snappy,
    Codec::Zstd { level: 3 },
    Codec::Gzip { level: 6 },
    Codec::Lz4Raw,
    Codec::Lz4,
    Codec::Brotli { quality: 1 },
    Codec::Lzo,
];

/// The ways the chunk of column `facts` starting at page `first` can end (with `rows`
/// rows, or any number when `None`): its codec, the index after its last page, what it
/// held. Of the codecs that decode its first page, the one that decodes the most pages
/// is the chunk's.
fn chunk_at(
    pages: &[PageSpan],
    first: usize,
    facts: &ColumnFacts,
    rows: Option<u64>,
) -> Vec<(Codec, usize, Checked)> {
    let mut best: (usize, Vec<(Codec, usize, Checked)>) = (0, Vec::new());
    for codec in CODECS {
        if codec == Codec::Uncompressed
            && pages[first].compressed_len != pages[first].uncompressed_len
        {
            continue;
        }
        let mut found = Vec::new();
        let mut check = ChunkCheck::new(codec, facts);
        let mut end = first;
        while end < pages.len() {
            let gap = end > first && pages[end].offset != pages[end - 1].end();
            let second_dictionary =
                end > first && pages[end].header.type_ == PageType::DICTIONARY_PAGE;
            if gap || second_dictionary || check.add(&pages[end]).is_err() {
                break;
            }
            end += 1;
            if !pages[end - 1].is_data() {
                continue;
            }
            let so_far = check.checked.rows;
            let snapshot = || Checked {
                rows: so_far,
                uncompressed: check.checked.uncompressed,
                encodings: check.checked.encodings.clone(),
                dictionary: check.checked.dictionary,
            };
            match rows {
                Some(r) if so_far == r => {
                    found.push((codec, end, snapshot()));
                    break;
                }
                Some(r) if so_far > r => break,
                Some(_) => {}
                None => found.push((codec, end, snapshot())),
            }
        }
        let reach = end - first;
        if !found.is_empty() && reach > best.0 {
            best = (reach, found);
        }
    }
    best.1
}

/// Groups scanned pages into row groups; returns them and what was dropped.
fn group_pages(
    file: &Bytes,
    pages: &[PageSpan],
    columns: &[ColumnFacts],
) -> (Vec<Group>, Vec<String>) {
    let mut groups = Vec::new();
    let mut dropped = Vec::new();
    // Pages that start no row group, in a run: (first page, count).
    let mut skipped: Option<(usize, usize)> = None;
    let flush = |skipped: &mut Option<(usize, usize)>, dropped: &mut Vec<String>| {
        if let Some((first, n)) = skipped.take() {
            let last = &pages[first + n - 1];
            dropped.push(format!(
                "{n} pages at offsets {}..{} belong to no complete row group (skipped)",
                pages[first].offset,
                last.end()
            ));
        }
    };
    let mut at = 0usize;
    while at < pages.len() {
        // Every way the row group starting here can be split into one chunk per column.
        let mut ways: Vec<Vec<(Codec, usize, Checked)>> = Vec::new();
        for first in chunk_at(pages, at, &columns[0], None) {
            let rows = first.2.rows;
            let mut chunks = vec![first];
            let mut ok = true;
            for facts in &columns[1..] {
                // Chunks may have bytes between them (writers put a copy of the chunk's
                // metadata, or its Bloom filter, there); pages within a chunk may not.
                let start = chunks.last().expect("one chunk at least").1;
                if start >= pages.len() {
                    ok = false;
                    break;
                }
                match chunk_at(pages, start, facts, Some(rows)).into_iter().next() {
                    Some(chunk) => chunks.push(chunk),
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                ways.push(chunks);
            }
        }
        match ways.len() {
            0 => {
                match &mut skipped {
                    Some((_, n)) => *n += 1,
                    None => skipped = Some((at, 1)),
                }
                at += 1;
            }
            1 => {
                flush(&mut skipped, &mut dropped);
                let chunks = ways.pop().expect("one way");
                let mut start = at;
                let rows = chunks[0].2.rows;
                let mut built = Vec::new();
                for (codec, end, checked) in chunks {
                    let from = pages[start].offset as usize;
                    let to = pages[end - 1].end() as usize;
                    let num_values = pages[start..end]
                        .iter()
                        .filter(|p| p.is_data())
                        .map(|p| i64::from(p.num_values().unwrap_or(0)))
                        .sum();
                    built.push(Chunk {
                        start: from as u64,
                        bytes: file.slice(from..to),
                        codec,
                        num_values,
                        uncompressed: checked.uncompressed,
                        encodings: checked.encodings,
                        dictionary: checked.dictionary,
                        original: None,
                    });
                    start = end;
                }
                groups.push(Group {
                    rows: rows as i64,
                    chunks: built,
                });
                at = start;
            }
            n => {
                flush(&mut skipped, &mut dropped);
                dropped.push(format!(
                    "the row group starting at offset {}: its pages split into columns {n} ways, none provable: dropped with the rest of the pages after it",
                    pages[at].offset
                ));
                break;
            }
        }
    }
    flush(&mut skipped, &mut dropped);
    (groups, dropped)
}

fn write_file<W: Write>(
    mut output: W,
    schema: Vec<SchemaElement>,
    groups: Vec<Group>,
    created_by: Option<herringbone_format::thrift::Text>,
    key_value_metadata: Option<Vec<KeyValue>>,
    column_orders: Option<Vec<herringbone_format::metadata::ColumnOrder>>,
) -> Result<FileMetaData> {
    let io = |e: std::io::Error| Error::from(e).context("writing the recovered file");
    let mut position = 4u64;
    output.write_all(b"PAR1").map_err(io)?;
    let descriptor = SchemaDescriptor::new(&schema)?;
    let mut row_groups = Vec::new();
    for (g, group) in groups.into_iter().enumerate() {
        let mut columns = Vec::new();
        let group_start = position;
        let mut total_uncompressed = 0i64;
        for (c, chunk) in group.chunks.into_iter().enumerate() {
            let new_start = position;
            output.write_all(&chunk.bytes).map_err(io)?;
            position += chunk.bytes.len() as u64;
            let shift = |offset: i64| offset - chunk.start as i64 + new_start as i64;
            let descr = descriptor
                .column(c)
                .ok_or_else(|| Error::corrupt("column out of range"))?;
            let meta = match chunk.original.and_then(|o| o.meta_data) {
                Some(mut meta) => {
                    meta.data_page_offset = shift(meta.data_page_offset);
                    meta.dictionary_page_offset = meta
                        .dictionary_page_offset
                        .map(|d| if d > 0 { shift(d) } else { d });
                    meta.index_page_offset = None;
                    meta.bloom_filter_offset = None;
                    meta.bloom_filter_length = None;
                    meta.total_compressed_size = chunk.bytes.len() as i64;
                    meta
                }
                None => {
                    let dictionary_header = chunk.dictionary.then_some(new_start as i64);
                    let first_data = if chunk.dictionary {
                        let span = read_page_span(&chunk.bytes, new_start).map_err(Error::from)?;
                        new_start as i64 + span.total_len() as i64
                    } else {
                        new_start as i64
                    };
                    ColumnMetaData {
                        type_: descr.physical_type(),
                        encodings: chunk.encodings.into(),
                        path_in_schema: descr
                            .path()
                            .parts()
                            .iter()
                            .map(|p| p.as_str().into())
                            .collect::<Vec<herringbone_format::thrift::Text>>()
                            .into(),
                        codec: CompressionCodec(chunk.codec.thrift_id()),
                        num_values: chunk.num_values,
                        total_uncompressed_size: chunk.uncompressed,
                        total_compressed_size: chunk.bytes.len() as i64,
                        data_page_offset: first_data,
                        dictionary_page_offset: dictionary_header,
                        ..ColumnMetaData::default()
                    }
                }
            };
            total_uncompressed += meta.total_uncompressed_size;
            columns.push(ColumnChunk {
                file_offset: new_start as i64,
                meta_data: Some(meta),
                ..ColumnChunk::default()
            });
        }
        row_groups.push(RowGroup {
            total_compressed_size: Some((position - group_start) as i64),
            columns,
            total_byte_size: total_uncompressed,
            num_rows: group.rows,
            file_offset: Some(group_start as i64),
            ordinal: i16::try_from(g).ok(),
            ..RowGroup::default()
        });
    }
    let metadata = FileMetaData {
        version: 1,
        schema,
        num_rows: row_groups.iter().map(|g| g.num_rows).sum(),
        row_groups,
        key_value_metadata,
        created_by: Some(
            created_by
                .unwrap_or_else(|| herringbone_arrow_bridge::write::properties::CREATED_BY.into()),
        ),
        column_orders,
        ..FileMetaData::default()
    };
    let mut footer = Vec::new();
    encode_footer(&metadata, &mut footer);
    output.write_all(&footer).map_err(io)?;
    output.flush().map_err(io)?;
    Ok(metadata)
}

#[cfg(test)]
mod tests {
    use super::*;
    use herringbone_format::metadata::{FieldRepetitionType, Type};
    use herringbone_format::thrift::Text;

    #[test]
    fn footers_start_as_the_footer_search_expects() {
        let element = |name: &str, type_, num_children| SchemaElement {
            name: Text::from(name),
            type_,
            num_children,
            repetition_type: type_.map(|_| FieldRepetitionType::OPTIONAL),
            ..Default::default()
        };
        for (version, columns) in [(1, 1), (2, 20)] {
            let mut schema = vec![element("schema", None, Some(columns))];
            schema.extend((0..columns).map(|i| element(&format!("c{i}"), Some(Type::INT64), None)));
            let metadata = FileMetaData {
                version,
                schema,
                num_rows: 3,
                ..Default::default()
            };
            let bytes = metadata.encode();
            assert!(
                starts_like_a_footer(&bytes),
                "version {version}, {columns} columns"
            );
        }
        for other in [
            &[0x15, 0x02, 0x19][..],
            &[0x15, 0x82, 0x19, 0x1c],
            &[0x16, 0x02, 0x19, 0x1c],
            &[0x15, 0x02, 0x29, 0x1c],
        ] {
            assert!(!starts_like_a_footer(other), "{other:x?}");
        }
    }
}
