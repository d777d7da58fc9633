//! The whole file: magic, footer, schema, row groups, every column chunk, the record
//! structure through the Arrow reader.

use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;

use herringbone_codec::compression::Codec;
use herringbone_codec::crypto::{ColumnDecryptor, FileDecryptionProperties, FileDecryptor};
use herringbone_format::footer::{FooterOptions, decode_file_metadata, parse_footer_tail};
use herringbone_format::metadata::{FileMetaData, RowGroup};
use herringbone_format::schema::SchemaDescriptor;

use crate::shared::Shared;
use crate::{ChunkReader, ParquetRecordBatchReaderBuilder};

use super::VerifyOptions;
use super::checks::{
    check_chunk_metadata, check_page_statistics, check_size_statistics, check_statistics,
};
use super::chunk::{
    ChunkSummary, ColumnFacts, ValueChecks, chunk_range, load_bloom_filter, padded_end, walk_chunk,
};
use super::findings::Findings;
use super::index::check_page_index;
use super::order::SortOrder;
use super::report::{Check, Finding, Location, Report};
use super::sorting::SortCheck;

/// Everything about the file that chunk checks need.
struct FileFacts<'a> {
    input: &'a dyn ChunkReader,
    file_len: u64,
    /// Where the footer starts: pages, indexes and filters lie before it.
    data_end: u64,
    metadata: &'a FileMetaData,
    columns: Vec<ColumnFacts>,
    /// The file's decryptor, when it is encrypted and keys were given.
    decryptor: Option<Arc<FileDecryptor>>,
}

pub(crate) fn verify_file<R: ChunkReader + Sync + 'static>(
    input: Arc<R>,
    options: &VerifyOptions,
) -> Report {
    let mut report = Report::default();
    let file_len = input.len();
    report.summary.file_len = file_len;
    let footer = match &options.decryption {
        Some(keys) => read_encrypted_footer(input.as_ref(), keys, &mut report),
        None => read_footer(input.as_ref(), &mut report).map(|(m, start)| (m, start, None)),
    };
    let Some((metadata, footer_start, decryptor)) = footer else {
        return report;
    };
    let schema = match SchemaDescriptor::new(&metadata.schema) {
        Ok(schema) => schema,
        Err(e) => {
            report.problems.push(Finding::new(
                Location::default(),
                Check::Schema,
                format!("invalid schema: {e}"),
            ));
            return report;
        }
    };
    report.readable = true;
    let columns = schema
        .columns()
        .iter()
        .enumerate()
        .map(|(i, descr)| {
            let order = SortOrder::of(
                descr,
                metadata.column_orders.as_ref().and_then(|o| o.get(i)),
            );
            ColumnFacts::new(&schema, descr, order)
        })
        .collect();
    let facts = FileFacts {
        input: input.as_ref(),
        file_len,
        data_end: footer_start,
        metadata: &metadata,
        columns,
        decryptor,
    };
    check_file_fields(&facts, &mut report);
    for (g, group) in metadata.row_groups.iter().enumerate() {
        verify_row_group(&facts, g, group, options, &mut report);
    }
    let encrypted = metadata.encryption_algorithm.is_some()
        || metadata.row_groups.iter().any(|g| {
            g.columns
                .iter()
                .any(|c| c.crypto_metadata.is_some() || c.encrypted_column_metadata.is_some())
        });
    if options.arrow_read && (!encrypted || options.decryption.is_some()) {
        read_through_arrow(input, &metadata, options.decryption.as_ref(), &mut report);
    }
    report.problems.sort_by(|a, b| {
        a.location
            .row_group
            .cmp(&b.location.row_group)
            .then(a.location.column_index.cmp(&b.location.column_index))
    });
    report.warnings.sort_by(|a, b| {
        a.location
            .row_group
            .cmp(&b.location.row_group)
            .then(a.location.column_index.cmp(&b.location.column_index))
    });
    report
}

/// Magic, footer length and footer; `None` (with `readable` left false) when the file
/// cannot be read at all.
fn read_footer(input: &dyn ChunkReader, report: &mut Report) -> Option<(FileMetaData, u64)> {
    let len = input.len();
    let fatal = |report: &mut Report, check: Check, offset: Option<u64>, message: String| {
        report.problems.push(Finding::new(
            Location {
                offset,
                ..Location::default()
            },
            check,
            message,
        ));
        None
    };
    if len < 12 {
        return fatal(
            report,
            Check::Magic,
            None,
            format!("{len} bytes: too short for a Parquet file (12 at least)"),
        );
    }
    let read = |range: std::ops::Range<u64>| input.get_bytes(range).map_err(|e| e.to_string());
    let head = match read(0..4) {
        Ok(head) => head,
        Err(e) => return fatal(report, Check::Magic, Some(0), e),
    };
    let tail = match read(len - 8..len) {
        Ok(tail) => tail,
        Err(e) => return fatal(report, Check::Footer, Some(len - 8), e),
    };
    let tail: [u8; 8] = tail[..].try_into().ok()?;
    if &tail[4..] == b"PARE" {
        return fatal(
            report,
            Check::Encryption,
            Some(len - 4),
            "the footer is encrypted (PARE): keys required to read it".to_string(),
        );
    }
    let metadata_len = match parse_footer_tail(&tail) {
        Ok(n) => n as u64,
        Err(e) => return fatal(report, Check::Magic, Some(len - 4), format!("{e}")),
    };
    if &head[..] != b"PAR1" {
        report.problems.push(Finding::new(
            Location {
                offset: Some(0),
                ..Location::default()
            },
            Check::Magic,
            format!(
                "the file does not start with PAR1 (found {:02x?})",
                &head[..]
            ),
        ));
    }
    if metadata_len > len - 12 {
        return fatal(
            report,
            Check::Footer,
            Some(len - 8),
            format!("footer length {metadata_len} does not fit a file of {len} bytes"),
        );
    }
    let start = len - 8 - metadata_len;
    let footer = match read(start..len - 8) {
        Ok(footer) => footer,
        Err(e) => return fatal(report, Check::Footer, Some(start), e),
    };
    match decode_file_metadata(footer, &FooterOptions::default().with_base_offset(start)) {
        Ok(metadata) => Some((metadata, start)),
        Err(e) => fatal(
            report,
            Check::Footer,
            Some(start),
            format!("undecodable footer: {e}"),
        ),
    }
}

/// The footer of a file read with keys: decrypted (`PARE`) or its signature checked
/// (plaintext footer of an encrypted file), column metadata decrypted; `None` (with
/// `readable` left false) when it cannot be read.
fn read_encrypted_footer(
    input: &dyn ChunkReader,
    keys: &FileDecryptionProperties,
    report: &mut Report,
) -> Option<(FileMetaData, u64, Option<Arc<FileDecryptor>>)> {
    let len = input.len();
    let fatal = |report: &mut Report, check: Check, message: String| {
        report
            .problems
            .push(Finding::new(Location::default(), check, message));
        None
    };
    if len < 12 {
        return fatal(
            report,
            Check::Magic,
            format!("{len} bytes: too short for a Parquet file (12 at least)"),
        );
    }
    let (metadata, decryptor) =
        match herringbone_arrow_bridge::read::read_metadata_with_decryption(input, Some(keys)) {
            Ok(read) => read,
            Err(e) => {
                let check = if e.kind() == crate::ErrorKind::Encrypted
                    || e.to_string().contains("key")
                    || e.to_string().contains("decrypt")
                    || e.to_string().contains("signature")
                    || e.to_string().contains("AAD")
                {
                    Check::Encryption
                } else {
                    Check::Footer
                };
                return fatal(report, check, format!("{e}"));
            }
        };
    // The tail's length covers the footer module (or the plaintext footer and its
    // signature) in either kind of file.
    let tail = input.get_bytes(len - 8..len - 4).ok()?;
    let footer_len = u64::from(u32::from_le_bytes(tail[..].try_into().ok()?));
    let start = (len - 8).checked_sub(footer_len)?;
    report.summary.encrypted_modules += 1;
    Some((metadata, start, decryptor))
}

fn check_file_fields(facts: &FileFacts<'_>, report: &mut Report) {
    let metadata = facts.metadata;
    let mut findings = Findings::new(report, Location::default());
    let rows: i64 = metadata.row_groups.iter().map(|g| g.num_rows).sum();
    if rows != metadata.num_rows {
        findings.problem_at(
            Finding::new(
                Location::default(),
                Check::RowGroup,
                "the file's num_rows is not the sum of its row groups' num_rows",
            )
            .values(rows.to_string(), metadata.num_rows.to_string()),
        );
    }
    if let Some(orders) = &metadata.column_orders
        && orders.len() != facts.columns.len()
    {
        findings.problem(
            Check::Schema,
            format!(
                "{} column_orders for {} leaf columns",
                orders.len(),
                facts.columns.len()
            ),
        );
    }
    if metadata.encryption_algorithm.is_some() && facts.decryptor.is_none() {
        findings.warning(
            Check::Encryption,
            "plaintext footer of an encrypted file: the footer signature and encrypted modules are not checked (keys required)",
        );
    }
    findings.finish();
}

fn verify_row_group(
    facts: &FileFacts<'_>,
    g: usize,
    group: &RowGroup,
    options: &VerifyOptions,
    report: &mut Report,
) {
    report.summary.row_groups += 1;
    let base = Location {
        row_group: Some(g),
        ..Location::default()
    };
    let mut findings = Findings::new(report, base);
    let num_rows = u64::try_from(group.num_rows).ok();
    if num_rows.is_none() {
        findings.problem(
            Check::RowGroup,
            format!("num_rows {} is negative", group.num_rows),
        );
    }
    if group.columns.len() != facts.columns.len() {
        findings.problem(
            Check::RowGroup,
            format!(
                "{} column chunks for {} leaf columns",
                group.columns.len(),
                facts.columns.len()
            ),
        );
    }
    if let Some(ordinal) = group.ordinal
        && usize::try_from(ordinal).ok() != Some(g)
    {
        findings.warning(
            Check::RowGroup,
            format!("ordinal {ordinal} in row group {g}"),
        );
    }
    let metas: Vec<_> = group
        .columns
        .iter()
        .filter_map(|c| c.meta_data.as_ref())
        .collect();
    if metas.len() == group.columns.len() && !metas.is_empty() {
        let compressed: i64 = metas.iter().map(|m| m.total_compressed_size).sum();
        if let Some(declared) = group.total_compressed_size
            && declared != compressed
        {
            findings.problem_at(
                Finding::new(
                    findings.base().clone(),
                    Check::RowGroup,
                    "total_compressed_size is not the sum of its chunks' total_compressed_size",
                )
                .values(compressed.to_string(), declared.to_string()),
            );
        }
        let uncompressed: i64 = metas.iter().map(|m| m.total_uncompressed_size).sum();
        if group.total_byte_size != uncompressed {
            findings.warning_at(
                Finding::new(
                    findings.base().clone(),
                    Check::RowGroup,
                    "total_byte_size is not the sum of its chunks' total_uncompressed_size",
                )
                .values(uncompressed.to_string(), group.total_byte_size.to_string()),
            );
        }
    }
    // Sort columns first (primary first), so each can use the ties the one before left.
    let sorting: Vec<_> = group
        .sorting_columns
        .iter()
        .flatten()
        .filter_map(|s| usize::try_from(s.column_idx).ok().map(|c| (c, s)))
        .collect();
    for (c, _) in &sorting {
        let flat = facts.columns.get(*c).is_some_and(|f| f.shape.max_rep == 0);
        if !flat {
            findings.problem(
                Check::SortingColumns,
                format!("sorting column {c} is not a leaf column outside any list"),
            );
        }
    }
    let sorted_first: Vec<usize> = sorting
        .iter()
        .map(|(c, _)| *c)
        .filter(|&c| {
            c < group.columns.len() && facts.columns.get(c).is_some_and(|f| f.shape.max_rep == 0)
        })
        .collect::<Vec<_>>();
    let mut seen = HashSet::new();
    let order: Vec<usize> = sorted_first
        .iter()
        .copied()
        .chain(0..group.columns.len().min(facts.columns.len()))
        .filter(|c| seen.insert(*c))
        .collect();
    findings.finish();
    let mut ties: Option<Vec<u64>> = None;
    let mut sort_broken = false;
    for c in order {
        let sort_spec = sorting.iter().find(|(sc, _)| *sc == c).map(|(_, s)| *s);
        let mut sort = match sort_spec {
            Some(spec) if !sort_broken => Some(SortCheck::new(
                spec.descending,
                spec.nulls_first,
                ties.take(),
            )),
            _ => None,
        };
        let summary = verify_chunk(facts, g, c, options, sort.as_mut(), report);
        let mut findings = Findings::new(
            report,
            Location {
                row_group: Some(g),
                column_index: Some(c),
                column: Some(facts.columns[c].path.clone()),
                ..Location::default()
            },
        );
        if let (Some(summary), Some(rows)) = (&summary, num_rows)
            && summary.complete
            && summary.rows != rows
        {
            findings.problem_at(
                Finding::new(
                    findings.base().clone(),
                    Check::Counts,
                    "the chunk's pages hold another number of rows than the row group's num_rows",
                )
                .values(summary.rows.to_string(), rows.to_string()),
            );
        }
        if let Some(sort) = sort {
            let complete = summary.as_ref().is_some_and(|s| s.complete);
            if !complete {
                sort_broken = true;
            } else if let Some((_, message)) = &sort.violation {
                findings.problem(Check::SortingColumns, message.clone());
                sort_broken = true;
            } else if sort.incomparable {
                findings.warning(
                    Check::SortingColumns,
                    "some values cannot be ordered (NaN or an undefined order): not fully checked",
                );
            }
            ties = Some(sort.into_ties());
        }
        findings.finish();
    }
}

fn verify_chunk(
    facts: &FileFacts<'_>,
    g: usize,
    c: usize,
    options: &VerifyOptions,
    sort: Option<&mut SortCheck>,
    report: &mut Report,
) -> Option<ChunkSummary> {
    let column = &facts.columns[c];
    let group = &facts.metadata.row_groups[g];
    let chunk = group.columns.get(c)?;
    report.summary.column_chunks += 1;
    let mut findings = Findings::new(
        report,
        Location {
            row_group: Some(g),
            column_index: Some(c),
            column: Some(column.path.clone()),
            ..Location::default()
        },
    );
    let summary = verify_chunk_in(facts, g, c, chunk, column, options, sort, &mut findings);
    findings.finish();
    summary
}

#[allow(clippy::too_many_arguments)]
fn verify_chunk_in(
    facts: &FileFacts<'_>,
    g: usize,
    c: usize,
    chunk: &herringbone_format::metadata::ColumnChunk,
    column: &ColumnFacts,
    options: &VerifyOptions,
    sort: Option<&mut SortCheck>,
    findings: &mut Findings<'_>,
) -> Option<ChunkSummary> {
    if let Some(path) = &chunk.file_path {
        findings.warning(
            Check::ChunkMetadata,
            format!("the chunk lives in another file ({path}): not checked"),
        );
        return None;
    }
    let encrypted = chunk.crypto_metadata.is_some() || chunk.encrypted_column_metadata.is_some();
    let decryptor: Option<ColumnDecryptor> = if !encrypted {
        None
    } else {
        let Some(file_decryptor) = &facts.decryptor else {
            findings.warning(
                Check::Encryption,
                "encrypted column chunk: keys required, not checked",
            );
            return None;
        };
        match herringbone_arrow_bridge::decryption::chunk_decryptor(
            Some(file_decryptor),
            facts.metadata,
            g,
            c,
            &column.path,
        ) {
            Ok(Some(decryptor)) => Some(decryptor),
            Ok(None) => None,
            Err(e) => {
                findings.warning(
                    Check::Encryption,
                    format!("encrypted column chunk not checked: {e}"),
                );
                return None;
            }
        }
    };
    let Some(meta) = &chunk.meta_data else {
        findings.problem(Check::ChunkMetadata, "the column chunk has no meta_data");
        return None;
    };
    if meta.type_ != column.shape.physical {
        findings.problem_at(
            Finding::new(
                findings.base().clone(),
                Check::ChunkMetadata,
                "the chunk's type is not the schema's",
            )
            .values(
                format!("{:?}", column.shape.physical),
                format!("{:?}", meta.type_),
            ),
        );
        return None;
    }
    let path: Vec<&str> = meta.path_in_schema.iter().map(|p| p.as_str()).collect();
    if path.join(".") != column.path {
        findings.problem_at(
            Finding::new(
                findings.base().clone(),
                Check::ChunkMetadata,
                "path_in_schema is not the column's path",
            )
            .values(column.path.clone(), path.join(".")),
        );
    }
    let codec = match Codec::from_thrift_id(meta.codec.0) {
        Ok(codec) => Some(codec),
        Err(e) => {
            findings.problem(Check::ChunkMetadata, format!("{e}: pages not decoded"));
            None
        }
    };
    let range = chunk_range(meta, facts.data_end, findings)?;
    let end = padded_end(
        meta,
        &range,
        facts.metadata.created_by.as_deref(),
        facts.data_end,
    );
    let bytes = match facts.input.get_bytes(range.start..end) {
        Ok(bytes) => bytes,
        Err(e) => {
            findings.problem(Check::ChunkMetadata, format!("reading the chunk: {e}"));
            return None;
        }
    };
    let bloom = load_bloom_filter(
        facts.input,
        meta,
        facts.file_len,
        decryptor.as_ref(),
        findings,
    );
    let distinct = meta
        .statistics
        .as_ref()
        .and_then(|s| s.distinct_count)
        .map(|_| HashSet::new());
    let mut checks = ValueChecks {
        bloom: bloom.as_ref(),
        bloom_misses: 0,
        first_bloom_miss: None,
        distinct,
        max_distinct: options.max_distinct,
        sort,
    };
    let page_index_present = chunk.offset_index_offset.is_some();
    let dictionary_first = matches!(
        meta.dictionary_page_offset,
        Some(d) if d > 0 && d < meta.data_page_offset
    );
    let summary = walk_chunk(
        bytes,
        range.start,
        range.end - range.start,
        meta,
        column,
        codec,
        options,
        page_index_present,
        decryptor.clone().map(|d| (d, dictionary_first)),
        &mut checks,
        findings,
    );
    check_chunk_metadata(meta, &summary, range.start, findings);
    if summary.complete {
        if let Some(stats) = &meta.statistics {
            let at = findings.base().clone();
            check_statistics(
                stats,
                &summary.computed,
                column,
                Check::Statistics,
                &at,
                findings,
            );
            if let Some(declared) = stats.distinct_count {
                match summary.distinct {
                    Some(n) if u64::try_from(declared).ok() != Some(n as u64) => {
                        findings.problem_at(
                            Finding::new(
                                at.clone(),
                                Check::Statistics,
                                "distinct_count does not count the distinct values",
                            )
                            .values(n.to_string(), declared.to_string()),
                        );
                    }
                    Some(_) => {}
                    None => findings.warning(
                        Check::Statistics,
                        format!(
                            "distinct_count not checked: more than {} distinct values",
                            options.max_distinct
                        ),
                    ),
                }
            }
        }
        if let Some(size) = &meta.size_statistics {
            check_size_statistics(size, &summary, column, findings);
        }
        if bloom.is_some() {
            findings.report().summary.bloom_filters += 1;
            if checks.bloom_misses > 0 {
                findings.problem(
                    Check::BloomFilter,
                    format!(
                        "{} values are missing from the Bloom filter (the first: {})",
                        checks.bloom_misses,
                        checks.first_bloom_miss.as_deref().unwrap_or("?")
                    ),
                );
            }
        }
    }
    for page in summary.data_pages() {
        if page.decoded {
            check_page_statistics(page, column, findings);
        }
    }
    check_page_index(
        facts.input,
        facts.file_len,
        chunk,
        &summary,
        column,
        decryptor.as_ref(),
        findings,
    );
    Some(summary)
}

/// Reads every row group through the Arrow reader (the record structure: lists, maps,
/// structs); a failure is reported once per row group that no other check flagged.
fn read_through_arrow<R: ChunkReader + Sync + 'static>(
    input: Arc<R>,
    metadata: &FileMetaData,
    keys: Option<&FileDecryptionProperties>,
    report: &mut Report,
) {
    let flagged: BTreeSet<usize> = report
        .problems
        .iter()
        .filter_map(|p| p.location.row_group)
        .collect();
    let groups = metadata.row_groups.len();
    let rows: Vec<u64> = metadata
        .row_groups
        .iter()
        .map(|g| u64::try_from(g.num_rows).unwrap_or(0))
        .collect();
    let mut next = 0usize;
    while next < groups {
        let opened = match keys {
            Some(keys) => ParquetRecordBatchReaderBuilder::try_new_with_decryption(
                Shared(input.clone()),
                keys,
            ),
            None => ParquetRecordBatchReaderBuilder::try_new(Shared(input.clone())),
        };
        let builder = match opened {
            Ok(b) => b,
            Err(e) => {
                report.problems.push(Finding::new(
                    Location::default(),
                    Check::ArrowRead,
                    format!("the Arrow reader cannot open the file: {e}"),
                ));
                return;
            }
        };
        let selected: Vec<usize> = (next..groups).collect();
        // INT96 as seconds: every value fits, whatever its date.
        let options =
            crate::SchemaOptions::default().with_int96_unit(arrow_schema::TimeUnit::Second);
        let reader = match builder
            .with_schema_options(options)
            .with_row_groups(selected)
            .build()
        {
            Ok(r) => r,
            Err(e) if e.kind() == crate::ErrorKind::Encrypted => {
                // A column whose key was not given: reported as not checked already.
                report.warnings.push(Finding::new(
                    Location::default(),
                    Check::ArrowRead,
                    format!("the Arrow reader pass was not run: {e}"),
                ));
                return;
            }
            Err(e) => {
                report.problems.push(Finding::new(
                    Location::default(),
                    Check::ArrowRead,
                    format!("the Arrow reader cannot read the file: {e}"),
                ));
                return;
            }
        };
        let mut read = 0u64;
        let mut failed_at = None;
        for batch in reader {
            match batch {
                Ok(batch) => read += batch.num_rows() as u64,
                Err(e) => {
                    // The group in progress: the first whose rows are not all read.
                    let mut end = 0u64;
                    let mut group = next;
                    for (g, &n) in rows.iter().enumerate().skip(next) {
                        end += n;
                        group = g;
                        if end > read {
                            break;
                        }
                    }
                    if !flagged.contains(&group) {
                        report.problems.push(Finding::new(
                            Location {
                                row_group: Some(group),
                                ..Location::default()
                            },
                            Check::ArrowRead,
                            format!("the Arrow reader fails: {e}"),
                        ));
                    }
                    failed_at = Some(group);
                    break;
                }
            }
        }
        match failed_at {
            Some(g) => {
                report.summary.arrow_row_groups += g - next;
                next = g + 1;
            }
            None => {
                report.summary.arrow_row_groups += groups - next;
                next = groups;
            }
        }
    }
}
