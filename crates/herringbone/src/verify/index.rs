//! The page index of a column chunk (column index and offset index) against the pages
//! the verifier walked and decoded.

use bytes::Bytes;
use herringbone_codec::crypto::{ColumnDecryptor, decrypt_column_index, decrypt_offset_index};
use herringbone_format::footer::{decode_column_index, decode_offset_index};
use herringbone_format::metadata::{BoundaryOrder, ColumnChunk, ColumnIndex, OffsetIndex};

use crate::ChunkReader;

use super::checks::check_bound;
use super::chunk::{ChunkSummary, ColumnFacts};
use super::findings::Findings;
use super::order::SortOrder;
use super::report::{Check, Finding};
use super::values::Value;

/// Reads `offset`/`length` bytes of an index structure, or reports why not.
fn fetch(
    input: &dyn ChunkReader,
    offset: Option<i64>,
    length: Option<i32>,
    file_len: u64,
    what: &str,
    check: Check,
    findings: &mut Findings<'_>,
) -> Option<(Bytes, u64)> {
    let (offset, length) = match (offset, length) {
        (None, None) => return None,
        (Some(o), Some(l)) => (o, l),
        (o, l) => {
            findings.problem(
                check,
                format!("{what} offset {o:?} and length {l:?}: one without the other"),
            );
            return None;
        }
    };
    let range = u64::try_from(offset)
        .ok()
        .zip(u64::try_from(length).ok())
        .map(|(o, l)| o..o.saturating_add(l))
        .filter(|r| r.end <= file_len);
    let Some(range) = range else {
        findings.problem(
            check,
            format!("{what} at offset {offset} of {length} bytes lies outside the file ({file_len} bytes)"),
        );
        return None;
    };
    match input.get_bytes(range.clone()) {
        Ok(bytes) => Some((bytes, range.start)),
        Err(e) => {
            findings.problem(check, format!("reading the {what}: {e}"));
            None
        }
    }
}

/// Checks the chunk's offset index and column index, when it has them.
pub(crate) fn check_page_index(
    input: &dyn ChunkReader,
    file_len: u64,
    chunk: &ColumnChunk,
    summary: &ChunkSummary,
    facts: &ColumnFacts,
    decryptor: Option<&ColumnDecryptor>,
    findings: &mut Findings<'_>,
) {
    if let Some((bytes, start)) = fetch(
        input,
        chunk.offset_index_offset,
        chunk.offset_index_length,
        file_len,
        "offset index",
        Check::OffsetIndex,
        findings,
    ) {
        let index = match decryptor {
            Some(decryptor) => decrypt_offset_index(&bytes, decryptor).map_err(|e| e.to_string()),
            None => decode_offset_index(&bytes, start).map_err(|e| e.to_string()),
        };
        match index {
            Ok(index) => {
                findings.report().summary.offset_indexes += 1;
                findings.report().summary.encrypted_modules += usize::from(decryptor.is_some());
                check_offset_index(&index, summary, findings);
            }
            Err(e) => findings.problem(Check::OffsetIndex, format!("unreadable offset index: {e}")),
        }
    }
    if let Some((bytes, start)) = fetch(
        input,
        chunk.column_index_offset,
        chunk.column_index_length,
        file_len,
        "column index",
        Check::ColumnIndex,
        findings,
    ) {
        let index = match decryptor {
            Some(decryptor) => decrypt_column_index(&bytes, decryptor).map_err(|e| e.to_string()),
            None => decode_column_index(&bytes, start).map_err(|e| e.to_string()),
        };
        match index {
            Ok(index) => {
                findings.report().summary.column_indexes += 1;
                findings.report().summary.encrypted_modules += usize::from(decryptor.is_some());
                check_column_index(&index, summary, facts, findings);
            }
            Err(e) => findings.problem(Check::ColumnIndex, format!("unreadable column index: {e}")),
        }
    }
}

fn check_offset_index(index: &OffsetIndex, summary: &ChunkSummary, findings: &mut Findings<'_>) {
    let pages: Vec<_> = summary.data_pages().collect();
    if summary.walked && index.page_locations.len() != pages.len() {
        findings.problem_at(
            Finding::new(
                findings.base().clone(),
                Check::OffsetIndex,
                "the offset index does not list every data page",
            )
            .values(
                pages.len().to_string(),
                index.page_locations.len().to_string(),
            ),
        );
    }
    let mut rows_exact = true;
    for (i, (location, page)) in index.page_locations.iter().zip(&pages).enumerate() {
        let at = findings.at_page(page.index, page.offset);
        let field = |findings: &mut Findings<'_>, name: &str, expected: String, found: String| {
            if expected != found {
                findings.problem_at(
                    Finding::new(
                        at.clone(),
                        Check::OffsetIndex,
                        format!("page_locations[{i}].{name} does not match the page"),
                    )
                    .values(expected, found),
                );
            }
        };
        field(
            findings,
            "offset",
            page.offset.to_string(),
            location.offset.to_string(),
        );
        field(
            findings,
            "compressed_page_size",
            page.total_len.to_string(),
            location.compressed_page_size.to_string(),
        );
        if rows_exact {
            field(
                findings,
                "first_row_index",
                page.first_row.to_string(),
                location.first_row_index.to_string(),
            );
        }
        rows_exact &= page.decoded;
        if let Some(sizes) = &index.unencoded_byte_array_data_bytes
            && page.decoded
            && let Some(&declared) = sizes.get(i)
        {
            field(
                findings,
                "unencoded_byte_array_data_bytes",
                page.unencoded_bytes.to_string(),
                declared.to_string(),
            );
        }
    }
    if let Some(sizes) = &index.unencoded_byte_array_data_bytes
        && sizes.len() != index.page_locations.len()
    {
        findings.problem(
            Check::OffsetIndex,
            format!(
                "{} unencoded_byte_array_data_bytes entries for {} pages",
                sizes.len(),
                index.page_locations.len()
            ),
        );
    }
}

fn check_column_index(
    index: &ColumnIndex,
    summary: &ChunkSummary,
    facts: &ColumnFacts,
    findings: &mut Findings<'_>,
) {
    let pages: Vec<_> = summary.data_pages().collect();
    let n = index.null_pages.len();
    let lengths_ok = index.min_values.len() == n && index.max_values.len() == n;
    if !lengths_ok {
        findings.problem(
            Check::ColumnIndex,
            format!(
                "{} null_pages, {} min_values and {} max_values: the lists differ in length",
                n,
                index.min_values.len(),
                index.max_values.len()
            ),
        );
        return;
    }
    if summary.walked && n != pages.len() {
        findings.problem_at(
            Finding::new(
                findings.base().clone(),
                Check::ColumnIndex,
                "the column index does not have one entry per data page",
            )
            .values(pages.len().to_string(), n.to_string()),
        );
        return;
    }
    let levels = |max: u16| usize::from(max) + 1;
    for (name, hist, width) in [
        (
            "repetition_level_histograms",
            index.repetition_level_histograms.as_ref(),
            levels(facts.shape.max_rep),
        ),
        (
            "definition_level_histograms",
            index.definition_level_histograms.as_ref(),
            levels(facts.shape.max_def),
        ),
    ] {
        if let Some(hist) = hist
            && hist.len() != n * width
        {
            findings.problem(
                Check::ColumnIndex,
                format!(
                    "{name} holds {} entries, {n} pages x {width} levels expected",
                    hist.len()
                ),
            );
        }
    }
    for (i, page) in pages.iter().enumerate().take(n) {
        if !page.decoded {
            continue;
        }
        let at = findings.at_page(page.index, page.offset);
        let problem =
            |findings: &mut Findings<'_>, message: String, expected: String, found: String| {
                findings.problem_at(
                    Finding::new(at.clone(), Check::ColumnIndex, message).values(expected, found),
                );
            };
        let all_null = page.computed.values == 0;
        if index.null_pages[i] != all_null {
            problem(
                findings,
                format!("null_pages[{i}] is wrong"),
                all_null.to_string(),
                index.null_pages[i].to_string(),
            );
            continue;
        }
        if let Some(counts) = &index.null_counts
            && let Some(&declared) = counts.get(i)
            && !page.computed.null_count_matches(declared)
        {
            problem(
                findings,
                format!("null_counts[{i}] does not count the page's nulls"),
                page.computed.nulls.to_string(),
                declared.to_string(),
            );
        }
        if let Some(counts) = &index.nan_counts
            && let Some(&declared) = counts.get(i)
            && u64::try_from(declared).ok() != Some(page.computed.nans)
        {
            problem(
                findings,
                format!("nan_counts[{i}] does not count the page's NaNs"),
                page.computed.nans.to_string(),
                declared.to_string(),
            );
        }
        for (name, hist, counted) in [
            (
                "repetition_level_histograms",
                index.repetition_level_histograms.as_ref(),
                &page.rep_histogram,
            ),
            (
                "definition_level_histograms",
                index.definition_level_histograms.as_ref(),
                &page.def_histogram,
            ),
        ] {
            let width = counted.len();
            if let Some(hist) = hist
                && hist.len() == n * width
                && hist[i * width..(i + 1) * width] != counted[..]
            {
                problem(
                    findings,
                    format!("{name} of page {i} do not count its levels"),
                    format!("{counted:?}"),
                    format!("{:?}", &hist[i * width..(i + 1) * width]),
                );
            }
        }
        if all_null || facts.order == SortOrder::Undefined {
            continue;
        }
        let (min, max) = page.computed.bounds();
        if min.is_none() {
            // Only NaNs under the types' order: writers may store anything or a NaN.
            continue;
        }
        let exact = facts.order.bounds_are_exact();
        for (declared, computed, is_min, name) in [
            (&index.min_values[i], min, true, "min_values"),
            (&index.max_values[i], max, false, "max_values"),
        ] {
            if let Err(mut finding) = check_bound(
                declared,
                computed.map(|c| c.as_value()),
                is_min,
                exact,
                facts,
                &format!("{name}[{i}]"),
            ) {
                finding.location = at.clone();
                finding.check = Check::ColumnIndex;
                findings.problem_at(*finding);
            }
        }
    }
    check_boundary_order(index, facts, findings);
}

/// `boundary_order` says how the pages' bounds run; check it against the index's own
/// bounds (non-null pages only).
fn check_boundary_order(index: &ColumnIndex, facts: &ColumnFacts, findings: &mut Findings<'_>) {
    let want = match index.boundary_order {
        BoundaryOrder::ASCENDING => std::cmp::Ordering::Less,
        BoundaryOrder::DESCENDING => std::cmp::Ordering::Greater,
        _ => return,
    };
    if facts.order == SortOrder::Undefined {
        return;
    }
    let physical = facts.shape.physical;
    let bounds: Vec<(usize, &[u8], &[u8])> = (0..index.null_pages.len())
        .filter(|&i| !index.null_pages[i])
        .map(|i| (i, &index.min_values[i][..], &index.max_values[i][..]))
        .collect();
    for pair in bounds.windows(2) {
        let (i, min_a, max_a) = pair[0];
        let (j, min_b, max_b) = pair[1];
        for (a, b, what) in [(min_a, min_b, "min_values"), (max_a, max_b, "max_values")] {
            let (Some(a), Some(b)) = (
                Value::from_plain(physical, a),
                Value::from_plain(physical, b),
            ) else {
                continue;
            };
            if facts.order.compare(a, b, facts.float16) == Some(want.reverse()) {
                findings.problem(
                    Check::ColumnIndex,
                    format!(
                        "boundary_order {:?}, but {what}[{i}] and {what}[{j}] run the other way",
                        index.boundary_order
                    ),
                );
                return;
            }
        }
    }
}
