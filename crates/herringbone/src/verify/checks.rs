//! Comparing what a chunk's metadata and statistics declare with what its pages hold.

use std::cmp::Ordering;
use std::collections::HashMap;

use herringbone_format::metadata::{
    ColumnMetaData, Encoding, PageType, SizeStatistics, Statistics,
};

use super::chunk::{ChunkSummary, ColumnFacts, PageSummary};
use super::findings::Findings;
use super::order::{Computed, SortOrder, display};
use super::report::{Check, Finding, Location};
use super::values::Value;

/// Which bound of a pair.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Min,
    Max,
}

/// Compares a declared bound with the computed extreme; `Err(message)` when it does
/// not hold. `exact`: whether the bound must equal the extreme (else it may be looser).
pub(crate) fn check_bound(
    declared: &[u8],
    computed: Option<Value<'_>>,
    min: bool,
    exact: bool,
    facts: &ColumnFacts,
    field: &str,
) -> Result<(), Box<Finding>> {
    let bound = if min { Bound::Min } else { Bound::Max };
    let order = facts.order;
    let Some(computed) = computed else {
        return Ok(());
    };
    let Some(declared_value) = Value::from_plain(facts.shape.physical, declared) else {
        return Err(Box::new(Finding::new(
            Location::default(),
            Check::Statistics,
            format!(
                "{field} holds {} bytes, not a {:?} value",
                declared.len(),
                facts.shape.physical
            ),
        )));
    };
    let shown_declared = display(declared_value, order, facts.float16);
    let shown_computed = display(computed, order, facts.float16);
    let (word, extreme) = match bound {
        Bound::Min => ("smallest", Ordering::Greater),
        Bound::Max => ("largest", Ordering::Less),
    };
    match order.compare(declared_value, computed, facts.float16) {
        Some(Ordering::Equal) => Ok(()),
        Some(o) if o == extreme => Err(Box::new(
            Finding::new(
                Location::default(),
                Check::Statistics,
                format!(
                    "{field} {shown_declared} is {} the {word} value {shown_computed}",
                    if bound == Bound::Min {
                        "above"
                    } else {
                        "below"
                    }
                ),
            )
            .values(shown_computed, shown_declared),
        )),
        Some(_) if exact => Err(Box::new(
            Finding::new(
                Location::default(),
                Check::Statistics,
                format!("{field} {shown_declared} is not the {word} value {shown_computed}"),
            )
            .values(shown_computed, shown_declared),
        )),
        Some(_) => Ok(()),
        None => Ok(()),
    }
}

/// Checks declared statistics (chunk or page header) against computed ones.
pub(crate) fn check_statistics(
    stats: &Statistics,
    computed: &Computed,
    facts: &ColumnFacts,
    check: Check,
    location: &Location,
    findings: &mut Findings<'_>,
) {
    findings.report().summary.statistics += 1;
    let at = |finding: Finding| Finding {
        location: location.clone(),
        check,
        ..finding
    };
    if let Some(declared) = stats.null_count
        && !computed.null_count_matches(declared)
    {
        findings.problem_at(at(Finding::new(
            Location::default(),
            check,
            "null_count does not match the nulls in the data",
        )
        .values(computed.nulls.to_string(), declared.to_string())));
    }
    if let Some(declared) = stats.nan_count
        && u64::try_from(declared).ok() != Some(computed.nans)
    {
        findings.problem_at(at(Finding::new(
            Location::default(),
            check,
            "nan_count does not match the NaNs in the data",
        )
        .values(computed.nans.to_string(), declared.to_string())));
    }
    let order = facts.order;
    let (min, max, deprecated) = match (&stats.min_value, &stats.max_value) {
        (None, None) => (stats.min.as_deref(), stats.max.as_deref(), true),
        (min, max) => (min.as_deref(), max.as_deref(), false),
    };
    if min.is_none() && max.is_none() {
        return;
    }
    if order == SortOrder::Undefined {
        findings.warning_at(at(Finding::new(
            Location::default(),
            check,
            "min/max given for a column whose sort order is undefined (INT96, INTERVAL, geometry): not checked",
        )));
        return;
    }
    if deprecated && !order.trusts_deprecated_bounds() {
        findings.warning_at(at(Finding::new(
            Location::default(),
            check,
            "only the deprecated min/max fields, whose order is unreliable for this type (PARQUET-251): not checked",
        )));
        return;
    }
    let (names, min_exact, max_exact) = if deprecated {
        (("min", "max"), None, None)
    } else {
        (
            ("min_value", "max_value"),
            stats.is_min_value_exact,
            stats.is_max_value_exact,
        )
    };
    let nan_bound = [min, max].into_iter().flatten().any(|b| {
        Value::from_plain(facts.shape.physical, b)
            .is_some_and(|v| order != SortOrder::FloatTotal && order.is_nan(v, facts.float16))
    });
    if nan_bound {
        findings.warning_at(at(Finding::new(
            Location::default(),
            check,
            "a NaN min or max (written by old writers; readers ignore it): not checked",
        )));
        return;
    }
    let (computed_min, computed_max) = computed.bounds();
    if computed_min.is_none() {
        findings.warning_at(at(Finding::new(
            Location::default(),
            check,
            "min/max given although no value is non-null and not NaN",
        )));
        return;
    }
    for (declared, computed_value, is_min, flag, name) in [
        (min, computed_min, true, min_exact, names.0),
        (max, computed_max, false, max_exact, names.1),
    ] {
        let Some(declared) = declared else { continue };
        let exact = match flag {
            Some(flag) => flag,
            None => order.bounds_are_exact(),
        };
        if let Err(finding) = check_bound(
            declared,
            computed_value.map(|v| v.as_value()),
            is_min,
            exact,
            facts,
            name,
        ) {
            findings.problem_at(at(*finding));
        }
    }
}

/// Chunk metadata against the walked pages: sizes, offsets, counts, encodings.
pub(crate) fn check_chunk_metadata(
    meta: &ColumnMetaData,
    summary: &ChunkSummary,
    chunk_start: u64,
    findings: &mut Findings<'_>,
) {
    let walked_all_headers = summary.walked;
    let _ = chunk_start;
    let uncompressed: u64 = summary.pages.iter().map(|p| p.uncompressed_total).sum();
    let mismatch = |findings: &mut Findings<'_>, message: &str, expected: u64, found: i64| {
        if u64::try_from(found).ok() != Some(expected) {
            findings.problem_at(
                Finding::new(findings.base().clone(), Check::ChunkMetadata, message)
                    .values(expected.to_string(), found.to_string()),
            );
        }
    };
    // parquet-mr before 1.2.9 left the dictionary page header out of both sizes
    // (PARQUET-816): the walk reports that once, for the compressed size.
    let dictionary_header = summary
        .pages
        .first()
        .filter(|p| p.page_type == PageType::DICTIONARY_PAGE)
        .map_or(0, |p| p.total_len - p.stored_len);
    let legacy_size = u64::try_from(meta.total_uncompressed_size).ok()
        == Some(uncompressed.saturating_sub(dictionary_header))
        && summary.pages.iter().map(|p| p.total_len).sum::<u64>()
            > u64::try_from(meta.total_compressed_size).unwrap_or(u64::MAX);
    if walked_all_headers && !legacy_size {
        mismatch(
            findings,
            "total_uncompressed_size is not the sum of the page headers and uncompressed pages",
            uncompressed,
            meta.total_uncompressed_size,
        );
    }
    let data_values: i64 = summary
        .data_pages()
        .map(|p| i64::from(p.header_values.unwrap_or(0)))
        .sum();
    if walked_all_headers || data_values > meta.num_values {
        mismatch(
            findings,
            "num_values is not the sum of the data pages' num_values",
            data_values.max(0) as u64,
            meta.num_values,
        );
    }
    let dictionary_page = summary
        .pages
        .iter()
        .find(|p| p.page_type == PageType::DICTIONARY_PAGE);
    let legacy_start = meta.dictionary_page_offset.is_none()
        && dictionary_page
            .is_some_and(|d| u64::try_from(meta.data_page_offset).ok() == Some(d.offset));
    if legacy_start {
        findings.warning(
            Check::ChunkMetadata,
            "data_page_offset points at the dictionary page and dictionary_page_offset is absent (an old writers' layout readers cope with)",
        );
    } else if let Some(first_data) = summary.data_pages().next()
        && u64::try_from(meta.data_page_offset).ok() != Some(first_data.offset)
    {
        findings.problem_at(
            Finding::new(
                findings.base().clone(),
                Check::ChunkMetadata,
                "data_page_offset is not the offset of the first data page",
            )
            .values(
                first_data.offset.to_string(),
                meta.data_page_offset.to_string(),
            ),
        );
    }
    let dictionary = summary
        .pages
        .iter()
        .find(|p| p.page_type == PageType::DICTIONARY_PAGE);
    match (dictionary, meta.dictionary_page_offset) {
        (Some(page), Some(offset)) if u64::try_from(offset).ok() != Some(page.offset) => {
            findings.problem_at(
                Finding::new(
                    findings.base().clone(),
                    Check::ChunkMetadata,
                    "dictionary_page_offset is not the offset of the dictionary page",
                )
                .values(page.offset.to_string(), offset.to_string()),
            );
        }
        (Some(page), None) if !legacy_start => findings.warning_at(Finding::new(
            findings.at_offset(page.offset),
            Check::ChunkMetadata,
            "the chunk has a dictionary page but no dictionary_page_offset",
        )),
        _ => {}
    }
    // Every value encoding the pages use is listed in `encodings`.
    let mut used: Vec<Encoding> = summary.pages.iter().filter_map(|p| p.encoding).collect();
    used.sort();
    used.dedup();
    for encoding in used {
        let listed = meta.encodings.contains(&encoding)
            || (encoding == Encoding::PLAIN_DICTIONARY
                && meta.encodings.contains(&Encoding::RLE_DICTIONARY))
            || (encoding == Encoding::RLE_DICTIONARY
                && meta.encodings.contains(&Encoding::PLAIN_DICTIONARY));
        if !listed {
            findings.warning(
                Check::ChunkMetadata,
                format!(
                    "pages use encoding {encoding:?}, which the chunk's encodings {:?} do not list",
                    &meta.encodings[..]
                ),
            );
        }
    }
    if let Some(declared) = &meta.encoding_stats
        && walked_all_headers
    {
        let mut counted: HashMap<(PageType, Encoding), i64> = HashMap::new();
        for page in &summary.pages {
            if let Some(encoding) = page.encoding {
                let kind = if page.page_type == PageType::DATA_PAGE_V2 {
                    PageType::DATA_PAGE
                } else {
                    page.page_type
                };
                *counted.entry((kind, encoding)).or_default() += 1;
            }
        }
        let mut listed: HashMap<(PageType, Encoding), i64> = HashMap::new();
        for stat in declared.iter() {
            let kind = if stat.page_type == PageType::DATA_PAGE_V2 {
                PageType::DATA_PAGE
            } else {
                stat.page_type
            };
            *listed.entry((kind, stat.encoding)).or_default() += i64::from(stat.count);
        }
        if counted != listed {
            let show = |m: &HashMap<(PageType, Encoding), i64>| {
                let mut v: Vec<String> = m
                    .iter()
                    .map(|((t, e), n)| format!("{t:?}/{e:?}x{n}"))
                    .collect();
                v.sort();
                v.join(" ")
            };
            findings.problem_at(
                Finding::new(
                    findings.base().clone(),
                    Check::ChunkMetadata,
                    "encoding_stats do not count the pages by type and encoding",
                )
                .values(show(&counted), show(&listed)),
            );
        }
    }
}

/// Size statistics against the data.
pub(crate) fn check_size_statistics(
    size: &SizeStatistics,
    summary: &ChunkSummary,
    facts: &ColumnFacts,
    findings: &mut Findings<'_>,
) {
    if let Some(declared) = size.unencoded_byte_array_data_bytes {
        if facts.shape.physical != herringbone_format::metadata::Type::BYTE_ARRAY {
            findings.problem(
                Check::SizeStatistics,
                "unencoded_byte_array_data_bytes on a column that is not BYTE_ARRAY",
            );
        } else if declared != summary.unencoded_bytes {
            findings.problem_at(
                Finding::new(
                    findings.base().clone(),
                    Check::SizeStatistics,
                    "unencoded_byte_array_data_bytes is not the total length of the values",
                )
                .values(summary.unencoded_bytes.to_string(), declared.to_string()),
            );
        }
    }
    for (name, declared, counted) in [
        (
            "repetition_level_histogram",
            size.repetition_level_histogram.as_deref(),
            &summary.rep_histogram,
        ),
        (
            "definition_level_histogram",
            size.definition_level_histogram.as_deref(),
            &summary.def_histogram,
        ),
    ] {
        let omitted = declared.is_some_and(|d| d.is_empty()) && counted.len() == 1;
        if let Some(declared) = declared
            && !omitted
            && declared != counted.as_slice()
        {
            findings.problem_at(
                Finding::new(
                    findings.base().clone(),
                    Check::SizeStatistics,
                    format!("{name} does not count the levels"),
                )
                .values(format!("{counted:?}"), format!("{declared:?}")),
            );
        }
    }
}

/// Page header statistics of every decoded data page.
pub(crate) fn check_page_statistics(
    page: &PageSummary,
    facts: &ColumnFacts,
    findings: &mut Findings<'_>,
) {
    let Some(stats) = &page.statistics else {
        return;
    };
    let location = findings.at_page(page.index, page.offset);
    check_statistics(
        stats,
        &page.computed,
        facts,
        Check::PageStatistics,
        &location,
        findings,
    );
}
