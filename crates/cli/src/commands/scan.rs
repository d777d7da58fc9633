//! `hb scan FILE`: decodes every batch and drops it, then prints how much was read and
//! how fast: a quick measure of the reader on a real file.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use super::progress::Progress;
use super::reading::{Batches, ReadArgs};

pub fn run(
    path: &Path,
    args: &ReadArgs,
    batch_size: usize,
    out: &mut dyn Write,
) -> Result<(), String> {
    let io = |e: std::io::Error| format!("writing output: {e}");
    let file_bytes = std::fs::metadata(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .len();
    // The clock starts before the footer is read: what a caller opening the file waits.
    let start = Instant::now();
    let batches = Batches::open(path, args, |b| {
        b.with_batch_size(batch_size)
            .with_page_counts(args.filter.is_some())
    })?;
    let (compressed, uncompressed) = chunk_bytes(&batches);
    let columns = batches.schema().fields().len();
    let total = batches.selected_rows();
    let mut progress = Progress::on_stderr();
    let (mut rows, mut count) = (0usize, 0usize);
    let mut batches = batches;
    for batch in batches.by_ref() {
        let batch = batch?;
        rows += batch.num_rows();
        count += 1;
        drop(std::hint::black_box(batch));
        progress.update(rows as u64, (total > 0).then(|| rows as f64 / total as f64));
    }
    progress.finish();
    let seconds = start.elapsed().as_secs_f64();
    // A zero duration (a clock of coarse resolution) gives no rate rather than infinity.
    let rate = |amount: f64| {
        if seconds > 0.0 {
            format!("{:.0}", amount / seconds)
        } else {
            "-".to_string()
        }
    };
    let mb_rate = |bytes: u64| {
        if seconds > 0.0 {
            format!("{:.1}", bytes as f64 / 1e6 / seconds)
        } else {
            "-".to_string()
        }
    };
    writeln!(out, "file:          {}", path.display()).map_err(io)?;
    writeln!(out, "rows:          {rows}").map_err(io)?;
    if let Some(filter) = &args.filter {
        let m = batches.metrics();
        writeln!(out, "filter:        {filter}").map_err(io)?;
        writeln!(
            out,
            "row groups:    read {} of {} (skipped: {} by statistics, {} by Bloom filters, {} by the page index)",
            m.row_groups_read,
            m.row_groups_total,
            m.row_groups_pruned_by_statistics,
            m.row_groups_pruned_by_bloom_filter,
            m.row_groups_pruned_by_page_index
        )
        .map_err(io)?;
        writeln!(
            out,
            "pages:         read {} of {} (pages of the columns read, from the offset index)",
            m.pages_selected, m.pages_total
        )
        .map_err(io)?;
        writeln!(
            out,
            "rows:          matched {} of {} ({} left after pruning)",
            m.rows_matched, m.rows_total, m.rows_selected
        )
        .map_err(io)?;
        writeln!(
            out,
            "late:          {} rows and {} pages of the other columns not decoded (the filter dropped them)",
            m.rows_filtered_late, m.pages_skipped_late
        )
        .map_err(io)?;
    }
    writeln!(out, "batches:       {count} (batch size {batch_size})").map_err(io)?;
    writeln!(out, "columns:       {columns} top-level").map_err(io)?;
    writeln!(out, "file bytes:    {file_bytes}").map_err(io)?;
    writeln!(
        out,
        "chunk bytes:   {compressed} compressed, {uncompressed} uncompressed (the column chunks read)"
    )
    .map_err(io)?;
    writeln!(
        out,
        "elapsed:       {:.3} ms (open, read and decode)",
        seconds * 1e3
    )
    .map_err(io)?;
    writeln!(
        out,
        "throughput:    {} rows/s, {} MB/s of file, {} MB/s of column chunks (uncompressed)",
        rate(rows as f64),
        mb_rate(file_bytes),
        mb_rate(uncompressed)
    )
    .map_err(io)
}

/// Compressed and uncompressed bytes of the column chunks the scan reads (every row
/// group, the projected leaves), from the footer.
fn chunk_bytes(batches: &Batches) -> (u64, u64) {
    let (mut compressed, mut uncompressed) = (0u64, 0u64);
    for row_group in &batches.metadata().row_groups {
        for &leaf in batches.leaf_columns() {
            let Some(meta) = row_group
                .columns
                .get(leaf)
                .and_then(|c| c.meta_data.as_ref())
            else {
                continue;
            };
            // Sizes are signed in the format; a negative one (corrupt) counts as 0.
            compressed =
                compressed.saturating_add(u64::try_from(meta.total_compressed_size).unwrap_or(0));
            uncompressed = uncompressed
                .saturating_add(u64::try_from(meta.total_uncompressed_size).unwrap_or(0));
        }
    }
    (compressed, uncompressed)
}
