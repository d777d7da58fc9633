//! One column chunk: walk its pages, check each header and CRC, decompress and decode
//! every page, and compute what its metadata, statistics and indexes should say.

use std::collections::HashSet;

use bytes::Bytes;
use herringbone_codec::bloom::{self, SplitBlockBloomFilter};
use herringbone_codec::compression::Codec;
use herringbone_codec::crypto::ColumnDecryptor;
use herringbone_codec::page::{Page, PageReader, PageReaderOptions};
use herringbone_format::metadata::{ColumnMetaData, PageType, Type};
use herringbone_format::schema::{ColumnDescriptor, SchemaDescriptor};

use crate::ChunkReader;
use crate::layout::{CrcStatus, PageSpan, PageWalker};

use super::VerifyOptions;
use super::findings::Findings;
use super::order::{Computed, SortOrder, display};
use super::report::{Check, Finding, Location};
use super::sorting::SortCheck;
use super::values::{ColumnShape, DataPage, Dictionary, PageDecoder, Value};

/// What the schema says about one leaf column, for checking its chunks.
#[derive(Debug, Clone)]
pub(crate) struct ColumnFacts {
    pub shape: ColumnShape,
    pub order: SortOrder,
    pub float16: bool,
    pub path: String,
    /// `def_at_rep[r]`: the definition level of the `r`-th repeated field on the path
    /// (index 0 unused): a level with repetition `r` continues that field, so it must
    /// be defined at least that deep.
    pub def_at_rep: Vec<u16>,
}

impl ColumnFacts {
    pub(crate) fn new(
        schema: &SchemaDescriptor,
        descr: &ColumnDescriptor,
        order: SortOrder,
    ) -> ColumnFacts {
        let mut ancestors = Vec::new();
        let mut node = schema.node(descr.node_id());
        while let Some(n) = node {
            ancestors.push(n);
            node = n.parent().and_then(|p| schema.node(p));
        }
        ancestors.pop(); // the root
        ancestors.reverse();
        let mut def_at_rep = vec![0u16];
        let mut def = 0u16;
        for n in ancestors {
            use herringbone_format::metadata::FieldRepetitionType as R;
            match n.repetition() {
                Some(R::OPTIONAL) => def += 1,
                Some(R::REPEATED) => {
                    def += 1;
                    def_at_rep.push(def);
                }
                _ => {}
            }
        }
        let float16 = matches!(
            descr.logical_type(),
            Some(herringbone_format::metadata::LogicalType::Float16)
        ) && descr.physical_type() == Type::FIXED_LEN_BYTE_ARRAY;
        ColumnFacts {
            shape: ColumnShape {
                physical: descr.physical_type(),
                width: descr
                    .type_length()
                    .and_then(|w| usize::try_from(w).ok())
                    .unwrap_or(0),
                max_def: u16::try_from(descr.max_def_level()).unwrap_or(u16::MAX),
                max_rep: u16::try_from(descr.max_rep_level()).unwrap_or(u16::MAX),
            },
            order,
            float16,
            path: descr.path().dotted(),
            def_at_rep,
        }
    }
}

/// What one page held.
#[derive(Debug, Clone, Default)]
pub(crate) struct PageSummary {
    /// Index in the chunk (every page counts).
    pub index: usize,
    pub offset: u64,
    /// Header plus stored bytes.
    pub total_len: u64,
    /// Stored bytes (after the header).
    pub stored_len: u64,
    pub uncompressed_total: u64,
    pub page_type: PageType,
    pub encoding: Option<herringbone_format::metadata::Encoding>,
    pub header_values: Option<i32>,
    /// Whether the page decoded completely (every count below is then exact).
    pub decoded: bool,
    /// Rows (records) that start in the page.
    pub rows: u64,
    /// Rows before the page in the chunk (exact while every earlier page decoded).
    pub first_row: u64,
    pub computed: Computed,
    pub def_histogram: Vec<i64>,
    pub rep_histogram: Vec<i64>,
    pub unencoded_bytes: i64,
    /// The statistics in the page header.
    pub statistics: Option<herringbone_format::metadata::Statistics>,
}

/// What a whole chunk held.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChunkSummary {
    pub pages: Vec<PageSummary>,
    /// Every page was walked and decoded: totals are exact.
    pub complete: bool,
    /// Every page header up to the end of the chunk's bytes was read.
    pub walked: bool,
    pub rows: u64,
    pub levels: u64,
    pub computed: Computed,
    pub def_histogram: Vec<i64>,
    pub rep_histogram: Vec<i64>,
    pub unencoded_bytes: i64,
    pub distinct: Option<usize>,
}

impl ChunkSummary {
    /// The data pages, in order.
    pub(crate) fn data_pages(&self) -> impl Iterator<Item = &PageSummary> {
        self.pages
            .iter()
            .filter(|p| matches!(p.page_type, PageType::DATA_PAGE | PageType::DATA_PAGE_V2))
    }
}

/// The byte range a chunk's metadata gives, checked against the data area of the file
/// (between the leading magic and the footer).
pub(crate) fn chunk_range(
    meta: &ColumnMetaData,
    data_end: u64,
    findings: &mut Findings<'_>,
) -> Option<std::ops::Range<u64>> {
    let dictionary = meta.dictionary_page_offset.filter(|&d| d > 0);
    // A chunk without data pages (no values) may say data_page_offset 0.
    let no_data = meta.num_values == 0 && meta.data_page_offset == 0;
    let start = match dictionary {
        Some(d) if d < meta.data_page_offset || no_data => d,
        Some(d) => {
            findings.problem(
                Check::ChunkMetadata,
                format!(
                    "dictionary_page_offset {d} is not before data_page_offset {}",
                    meta.data_page_offset
                ),
            );
            meta.data_page_offset
        }
        None => meta.data_page_offset,
    };
    if meta.dictionary_page_offset == Some(0) {
        findings.warning(
            Check::ChunkMetadata,
            "dictionary_page_offset is 0 (a writer's way of saying none; readers ignore it)",
        );
    }
    let (Ok(start), Ok(len)) = (
        u64::try_from(start),
        u64::try_from(meta.total_compressed_size),
    ) else {
        findings.problem(
            Check::ChunkMetadata,
            format!(
                "negative chunk offset {start} or total_compressed_size {}",
                meta.total_compressed_size
            ),
        );
        return None;
    };
    let end = start.saturating_add(len);
    if start < 4 || end > data_end {
        findings.problem(
            Check::ChunkMetadata,
            format!(
                "the chunk at {start}..{end} (total_compressed_size {len}) is not within the data pages area 4..{data_end}"
            ),
        );
        return None;
    }
    Some(start..end)
}

/// Where the walk of a chunk may go past its declared end: files of parquet-mr before
/// 1.2.9 (`created_by` says which) give `total_compressed_size` without the dictionary
/// page header, so up to 100 more bytes (within the data area) are allowed.
pub(crate) fn padded_end(
    meta: &ColumnMetaData,
    range: &std::ops::Range<u64>,
    created_by: Option<&str>,
    data_end: u64,
) -> u64 {
    herringbone_codec::page::column_chunk_range(meta, created_by, data_end)
        .map(|r| r.end.max(range.end))
        .unwrap_or(range.end)
}

/// Loads the chunk's Bloom filter (a problem is reported when it is unreadable).
pub(crate) fn load_bloom_filter(
    input: &dyn ChunkReader,
    meta: &ColumnMetaData,
    file_len: u64,
    decryptor: Option<&ColumnDecryptor>,
    findings: &mut Findings<'_>,
) -> Option<SplitBlockBloomFilter> {
    let offset = meta.bloom_filter_offset?;
    let location = findings.at_offset(offset.max(0) as u64);
    let fail = |findings: &mut Findings<'_>, message: String| {
        findings.problem_at(Finding::new(location.clone(), Check::BloomFilter, message));
        None
    };
    let Ok(start) = u64::try_from(offset) else {
        return fail(
            findings,
            format!("bloom_filter_offset {offset} is negative"),
        );
    };
    if start >= file_len {
        return fail(
            findings,
            format!("bloom_filter_offset {start} lies beyond the end of the file"),
        );
    }
    if let Some(decryptor) = decryptor {
        // The header and bitset modules, sized by their length fields when the
        // metadata has no bloom_filter_length.
        let end = match meta.bloom_filter_length {
            Some(len) => start.saturating_add(u64::try_from(len).unwrap_or(0)),
            // Header and bitset modules at most: a bitset of the largest size allowed.
            None => start.saturating_add(bloom::BITSET_MAX_BYTES as u64 + 4096),
        }
        .min(file_len);
        let bytes = match input.get_bytes(start..end) {
            Ok(bytes) => bytes,
            Err(e) => return fail(findings, format!("reading the Bloom filter: {e}")),
        };
        return match herringbone_codec::crypto::decrypt_bloom_filter(
            &bytes,
            decryptor,
            bloom::BITSET_MAX_BYTES,
        ) {
            Ok((filter, _)) => {
                findings.report().summary.encrypted_modules += 2;
                Some(filter)
            }
            Err(e) => fail(findings, format!("unreadable encrypted Bloom filter: {e}")),
        };
    }
    let span = match meta.bloom_filter_length {
        Some(len) if len < 0 => {
            return fail(findings, format!("bloom_filter_length {len} is negative"));
        }
        Some(len) => u64::try_from(len).unwrap_or(0),
        None => file_len - start,
    };
    let end = start.saturating_add(span);
    if end > file_len {
        return fail(
            findings,
            format!("the Bloom filter at {start}..{end} lies beyond the end of the file"),
        );
    }
    let bytes = match input.get_bytes(start..end) {
        Ok(bytes) => bytes,
        Err(e) => return fail(findings, format!("reading the Bloom filter: {e}")),
    };
    match SplitBlockBloomFilter::read(&bytes, bloom::BITSET_MAX_BYTES) {
        Ok((filter, used)) => {
            if meta.bloom_filter_length.is_some() && used as u64 != span {
                findings.problem_at(
                    Finding::new(
                        location.clone(),
                        Check::BloomFilter,
                        "bloom_filter_length is not the size of the header and bitset",
                    )
                    .values(used.to_string(), span.to_string()),
                );
            }
            Some(filter)
        }
        Err(e) => fail(findings, format!("unreadable Bloom filter: {e}")),
    }
}

/// Per-value checks that need state across the chunk.
pub(crate) struct ValueChecks<'a> {
    pub bloom: Option<&'a SplitBlockBloomFilter>,
    pub bloom_misses: u64,
    pub first_bloom_miss: Option<String>,
    pub distinct: Option<HashSet<Vec<u8>>>,
    pub max_distinct: usize,
    pub sort: Option<&'a mut SortCheck>,
}

/// Walks and decodes the pages of a chunk whose bytes are `bytes` (starting at file
/// offset `start`; `declared_len` of them are the chunk's, the rest is the padding old
/// parquet-mr files need, see [`padded_end`]), reporting what is wrong with any page.
#[allow(clippy::too_many_arguments)]
pub(crate) fn walk_chunk(
    bytes: Bytes,
    start: u64,
    declared_len: u64,
    meta: &ColumnMetaData,
    facts: &ColumnFacts,
    codec: Option<Codec>,
    options: &VerifyOptions,
    page_index_present: bool,
    decryptor: Option<(ColumnDecryptor, bool)>,
    checks: &mut ValueChecks<'_>,
    findings: &mut Findings<'_>,
) -> ChunkSummary {
    let shape = facts.shape;
    let mut summary = ChunkSummary {
        complete: true,
        walked: true,
        def_histogram: vec![0; usize::from(shape.max_def) + 1],
        rep_histogram: vec![0; usize::from(shape.max_rep) + 1],
        ..ChunkSummary::default()
    };
    let declared_values = u64::try_from(meta.num_values).unwrap_or(0);
    let mut data_values = 0u64;
    let mut dictionary: Option<Dictionary> = None;
    let mut dictionary_failed = false;
    let mut plain_bytes = Vec::new();
    let mut walker = PageWalker::new(bytes.clone(), start);
    if let Some((decryptor, dictionary_first)) = decryptor {
        walker = walker.with_decryptor(decryptor, dictionary_first);
    }
    let mut index = 0usize;
    loop {
        let header_offset = walker.offset();
        let Some(next) = walker.next() else { break };
        let span = match next {
            Ok(span) => span,
            Err(e) => {
                findings.problem_at(Finding::new(
                    findings.at_page(index, header_offset),
                    Check::PageHeader,
                    format!("unreadable page header: {e}"),
                ));
                summary.complete = false;
                summary.walked = false;
                break;
            }
        };
        findings.report().summary.pages += 1;
        let at = findings.at_page(index, span.offset);
        let mut page = PageSummary {
            index,
            offset: span.offset,
            total_len: span.total_len(),
            stored_len: span.compressed_len as u64,
            uncompressed_total: (span.header_len + span.uncompressed_len) as u64,
            page_type: span.header.type_,
            encoding: span.encoding(),
            header_values: span.num_values(),
            first_row: summary.rows,
            def_histogram: vec![0; usize::from(shape.max_def) + 1],
            rep_histogram: vec![0; usize::from(shape.max_rep) + 1],
            statistics: span.statistics().cloned(),
            ..PageSummary::default()
        };
        index += 1;
        match span.crc_status() {
            CrcStatus::Absent => {}
            CrcStatus::Valid => findings.report().summary.crcs += 1,
            CrcStatus::Invalid { stored, computed } => {
                findings.report().summary.crcs += 1;
                findings.problem_at(
                    Finding::new(
                        at.clone(),
                        Check::Crc,
                        format!(
                            "the CRC32 of the page's {} stored bytes does not match its header",
                            span.compressed_len
                        ),
                    )
                    .values(format!("{computed:#010x}"), format!("{stored:#010x}")),
                );
            }
        }
        let is_dictionary = span.header.type_ == PageType::DICTIONARY_PAGE;
        if span.is_data() {
            data_values += span
                .num_values()
                .and_then(|n| u64::try_from(n).ok())
                .unwrap_or(0);
        } else if is_dictionary {
            if page.index != 0 {
                findings.problem_at(Finding::new(
                    at.clone(),
                    Check::Dictionary,
                    "a dictionary page that is not the chunk's first page",
                ));
            }
        } else if span.header.type_ == PageType::INDEX_PAGE {
            findings.warning_at(Finding::new(
                at.clone(),
                Check::PageHeader,
                "an INDEX_PAGE (no writer produces them; skipped)",
            ));
        } else {
            findings.problem_at(Finding::new(
                at.clone(),
                Check::PageHeader,
                format!("unknown page type {:?}", span.header.type_),
            ));
        }
        match codec {
            Some(codec) if span.is_data() || is_dictionary => {
                let decoded = decode_page(
                    &bytes,
                    start,
                    &span,
                    codec,
                    facts,
                    options,
                    &mut dictionary,
                    &mut dictionary_failed,
                    page_index_present,
                    &mut page,
                    checks,
                    &mut plain_bytes,
                    findings,
                    &at,
                );
                if !decoded {
                    summary.complete = false;
                }
            }
            _ if span.is_data() => summary.complete = false,
            _ => {}
        }
        if span.is_data() {
            summary.rows += page.rows;
            summary
                .computed
                .merge(&page.computed, facts.order, facts.float16);
            for (total, n) in summary.def_histogram.iter_mut().zip(&page.def_histogram) {
                *total += n;
            }
            for (total, n) in summary.rep_histogram.iter_mut().zip(&page.rep_histogram) {
                *total += n;
            }
            summary.unencoded_bytes += page.unencoded_bytes;
            summary.levels += page.def_histogram.iter().sum::<i64>() as u64;
        }
        summary.pages.push(page);
        // Reading stops with the chunk's last value (PARQUET-816 padding may follow).
        if data_values >= declared_values && declared_values > 0 {
            break;
        }
    }
    let walked: u64 = summary.pages.iter().map(|p| p.total_len).sum();
    if summary.walked && walked < declared_len {
        summary.walked = false;
        findings.problem_at(
            Finding::new(
                findings.base().clone(),
                Check::ChunkMetadata,
                format!(
                    "{} bytes of the chunk follow the page holding its last value (num_values {declared_values})",
                    declared_len - walked
                ),
            )
            .values(walked.to_string(), format!("total_compressed_size {declared_len}")),
        );
    } else if walked > declared_len {
        let dictionary_header = summary
            .pages
            .first()
            .filter(|p| p.page_type == PageType::DICTIONARY_PAGE)
            .map(|p| p.total_len - p.stored_len);
        if dictionary_header == Some(walked - declared_len) {
            findings.warning(
                Check::ChunkMetadata,
                "total_compressed_size leaves out the dictionary page header (parquet-mr before 1.2.9, PARQUET-816; readers allow for it)",
            );
        } else {
            findings.problem_at(
                Finding::new(
                    findings.base().clone(),
                    Check::ChunkMetadata,
                    "the chunk's pages run past its total_compressed_size",
                )
                .values(walked.to_string(), declared_len.to_string()),
            );
        }
    }
    summary.distinct = checks.distinct.as_ref().map(HashSet::len);
    summary
}

/// Decompresses and decodes one page into `page`; `false` when it could not be
/// decoded completely (the problem is reported).
#[allow(clippy::too_many_arguments)]
fn decode_page(
    chunk: &Bytes,
    chunk_start: u64,
    span: &PageSpan,
    codec: Codec,
    facts: &ColumnFacts,
    options: &VerifyOptions,
    dictionary: &mut Option<Dictionary>,
    dictionary_failed: &mut bool,
    page_index_present: bool,
    page: &mut PageSummary,
    checks: &mut ValueChecks<'_>,
    plain_bytes: &mut Vec<u8>,
    findings: &mut Findings<'_>,
    at: &Location,
) -> bool {
    let problem = |findings: &mut Findings<'_>, check: Check, message: String| {
        findings.problem_at(Finding::new(at.clone(), check, message));
        false
    };
    let stored = match &span.plaintext {
        None => page_bytes(chunk, chunk_start, span),
        Some(Ok(plain)) => {
            // The header module (decrypted by the walker) and the page module.
            findings.report().summary.encrypted_modules += 2;
            plain.clone()
        }
        Some(Err(e)) => {
            if span.header.type_ == PageType::DICTIONARY_PAGE {
                *dictionary_failed = true;
            }
            return problem(
                findings,
                Check::Encryption,
                format!("the page module does not decrypt: {e}"),
            );
        }
    };
    let decoded = match read_page(stored, codec, options) {
        Ok(Some(decoded)) => decoded,
        Ok(None) => return true,
        Err(e) => {
            let check = match e.kind() {
                herringbone_codec::ErrorKind::Metadata => Check::PageHeader,
                _ if e.message().contains("level sections") => Check::PageHeader,
                _ => Check::Decompression,
            };
            if span.header.type_ == PageType::DICTIONARY_PAGE {
                *dictionary_failed = true;
            }
            return problem(findings, check, format!("{e}"));
        }
    };
    let data = match decoded {
        Page::Dictionary {
            values,
            num_values,
            encoding,
            ..
        } => {
            use herringbone_format::metadata::Encoding;
            if !matches!(encoding, Encoding::PLAIN | Encoding::PLAIN_DICTIONARY) {
                *dictionary_failed = true;
                return problem(
                    findings,
                    Check::Dictionary,
                    format!("dictionary page in encoding {encoding:?} (PLAIN expected)"),
                );
            }
            if dictionary.is_some() {
                return problem(
                    findings,
                    Check::Dictionary,
                    "a second dictionary page in the chunk".to_string(),
                );
            }
            match Dictionary::decode(facts.shape.physical, facts.shape.width, values, num_values) {
                Ok(d) => {
                    *dictionary = Some(d);
                    return true;
                }
                Err(e) => {
                    *dictionary_failed = true;
                    return problem(findings, Check::Dictionary, format!("{e}"));
                }
            }
        }
        Page::DataV1 {
            buffer,
            num_values,
            encoding,
            def_level_encoding,
            rep_level_encoding,
            ..
        } => DataPage {
            values: buffer,
            v2_levels: None,
            num_values,
            encoding,
            def_level_encoding,
            rep_level_encoding,
        },
        Page::DataV2 {
            rep_levels,
            def_levels,
            values,
            num_values,
            encoding,
            ..
        } => DataPage {
            values,
            v2_levels: Some((rep_levels, def_levels)),
            num_values,
            encoding,
            def_level_encoding: herringbone_format::metadata::Encoding::RLE,
            rep_level_encoding: herringbone_format::metadata::Encoding::RLE,
        },
    };
    let uses_dictionary = matches!(
        data.encoding,
        herringbone_format::metadata::Encoding::PLAIN_DICTIONARY
            | herringbone_format::metadata::Encoding::RLE_DICTIONARY
    );
    if uses_dictionary && dictionary.is_none() {
        if *dictionary_failed {
            // Already reported: the dictionary page itself.
            return false;
        }
        return problem(
            findings,
            Check::Dictionary,
            "a dictionary-encoded data page in a chunk without a dictionary page".to_string(),
        );
    }
    let is_v2 = data.v2_levels.is_some();
    match decode_values(
        &data,
        facts,
        dictionary.as_ref(),
        is_v2 || page_index_present,
        page.first_row == 0 && page.index <= 1,
        page,
        checks,
        plain_bytes,
    ) {
        Ok(level_problems) => {
            for (check, message) in level_problems {
                findings.problem_at(Finding::new(at.clone(), check, message));
            }
        }
        Err(e) => {
            let message = e.to_string();
            let check = if message.contains("dictionary index") {
                Check::Dictionary
            } else if message.contains(" level") {
                Check::Levels
            } else {
                Check::Decoding
            };
            return problem(findings, check, message);
        }
    }
    findings.report().summary.levels += data.num_values as u64;
    page.decoded = true;
    true
}

/// Decodes a data page's levels and values into `page`, feeding every value to the
/// value checks. Returns messages about the record structure (the page decoded).
#[allow(clippy::too_many_arguments)]
fn decode_values(
    data: &DataPage,
    facts: &ColumnFacts,
    dictionary: Option<&Dictionary>,
    must_start_record: bool,
    chunk_start: bool,
    page: &mut PageSummary,
    checks: &mut ValueChecks<'_>,
    plain_bytes: &mut Vec<u8>,
) -> herringbone_codec::Result<Vec<(Check, String)>> {
    let shape = facts.shape;
    let mut decoder = PageDecoder::new(shape, data)?;
    let mut messages = Vec::new();
    let mut first = true;
    let element_level = facts.def_at_rep.last().copied().unwrap_or(0);
    let mut reps = Vec::new();
    let mut defs = Vec::new();
    loop {
        let n = decoder.next_levels()?;
        if n == 0 {
            break;
        }
        reps.clear();
        reps.extend_from_slice(decoder.rep_levels());
        defs.clear();
        defs.extend_from_slice(decoder.def_levels());
        if first {
            first = false;
            if reps[0] != 0 && (chunk_start || must_start_record) {
                messages.push((
                    Check::Levels,
                    format!(
                        "the page starts with repetition level {} inside a record: {}",
                        reps[0],
                        if chunk_start {
                            "a column chunk must start with a new record"
                        } else {
                            "pages must start at record boundaries (v2 pages, or a page index)"
                        }
                    ),
                ));
            }
        }
        let mut present = 0usize;
        for (&rep, &def) in reps.iter().zip(&defs) {
            if rep == 0 {
                page.rows += 1;
            } else if let Some(&needed) = facts.def_at_rep.get(usize::from(rep))
                && def < needed
                && messages.len() < 3
            {
                messages.push((Check::Levels, format!(
                    "repetition level {rep} with definition level {def}: continuing the repeated field at depth {rep} needs definition level {needed} or more"
                )));
            }
            page.rep_histogram[usize::from(rep)] += 1;
            page.def_histogram[usize::from(def)] += 1;
            if def == shape.max_def {
                present += 1;
            } else {
                page.computed.nulls += 1;
                if def >= element_level {
                    page.computed.element_nulls += 1;
                }
            }
        }
        let order = facts.order;
        let float16 = facts.float16;
        let is_byte_array = shape.physical == Type::BYTE_ARRAY;
        let max_def = shape.max_def;
        let mut cursor = 0usize;
        let computed = &mut page.computed;
        let unencoded = &mut page.unencoded_bytes;
        let ValueChecks {
            bloom,
            bloom_misses,
            first_bloom_miss,
            distinct,
            max_distinct,
            sort,
        } = checks;
        let mut sink = |value: Value<'_>| {
            computed.add(value, order, float16);
            if is_byte_array && let Value::Bytes(b) = value {
                *unencoded += b.len() as i64;
            }
            if bloom.is_some() || distinct.is_some() {
                value.plain_bytes(plain_bytes);
            }
            if let Some(filter) = bloom
                && !matches!(value, Value::Bool(_))
                && !filter.check_hash(bloom::hash_bytes(plain_bytes))
            {
                *bloom_misses += 1;
                if first_bloom_miss.is_none() {
                    *first_bloom_miss = Some(display(value, order, float16));
                }
            }
            if let Some(set) = distinct {
                if set.len() <= *max_distinct {
                    if !set.contains(plain_bytes.as_slice()) {
                        set.insert(plain_bytes.clone());
                    }
                } else {
                    *distinct = None;
                }
            }
            if let Some(sort) = sort.as_deref_mut() {
                while cursor < defs.len() && defs[cursor] < max_def {
                    sort.row(None, facts);
                    cursor += 1;
                }
                sort.row(Some(value), facts);
                cursor += 1;
            }
        };
        decoder.values(present, dictionary, &mut sink)?;
        if let Some(sort) = sort.as_deref_mut() {
            while cursor < defs.len() {
                sort.row(None, facts);
                cursor += 1;
            }
        }
    }
    if let Some(left) = decoder.plain_bytes_left()
        && left > 0
    {
        messages.push((
            Check::Decoding,
            format!(
                "{left} bytes left in the PLAIN values section after the page's {} values",
                page.computed.values
            ),
        ));
    }
    Ok(messages)
}

pub(crate) fn page_bytes(chunk: &Bytes, chunk_start: u64, span: &PageSpan) -> Bytes {
    let from = (span.offset - chunk_start) as usize;
    chunk.slice(from..from + span.total_len() as usize)
}

pub(crate) fn read_page(
    bytes: Bytes,
    codec: Codec,
    options: &VerifyOptions,
) -> herringbone_codec::Result<Option<Page>> {
    let options = PageReaderOptions::default().with_max_page_size(options.max_page_size);
    PageReader::new(bytes, codec, options).next_page()
}
