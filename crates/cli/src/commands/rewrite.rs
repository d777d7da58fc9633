//! `hb rewrite IN OUT [writer options]`: the same rows written again with other
//! settings (codec, page and row group sizes, dictionary, statistics, page index,
//! Bloom filters, CRC), batch by batch: memory follows one row group being written.
//! The file's key-value metadata and the row groups' sort order (when every row group
//! declares the same) are kept; `ARROW:schema` is written anew for the Arrow types read.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use herringbone::ArrowWriter;
use herringbone::metadata::KeyValue;

use super::reading::{Batches, ReadArgs};
use super::writing::WriteArgs;

pub fn run(
    input: &Path,
    output: &Path,
    read: &ReadArgs,
    write: &WriteArgs,
    out: &mut dyn Write,
) -> Result<(), String> {
    if same_file(input, output) {
        return Err(format!(
            "{}: the output would overwrite the input",
            output.display()
        ));
    }
    let batches = Batches::open(input, read, |b| b)?;
    let metadata = batches.metadata().clone();
    let rows = u64::try_from(metadata.num_rows).unwrap_or(0);
    let mut builder = write.builder(rows)?;
    let kept: Vec<KeyValue> = metadata
        .key_value_metadata
        .iter()
        .flatten()
        .filter(|kv| kv.key.as_str() != "ARROW:schema")
        .cloned()
        .collect();
    if !kept.is_empty() {
        builder = builder.set_key_value_metadata(kept);
    }
    let mut sorting = metadata.row_groups.iter().map(|g| &g.sorting_columns);
    if read.columns.is_none()
        && let Some(Some(first)) = sorting.next()
        && sorting.all(|s| s.as_ref() == Some(first))
    {
        builder = builder.set_sorting_columns(Some(first.clone()));
    }
    let file = File::create(output).map_err(|e| format!("{}: {e}", output.display()))?;
    let result = copy(batches, BufWriter::new(file), builder.build());
    if result.is_err() {
        let _ = std::fs::remove_file(output);
    }
    let (rows, groups) = result.map_err(|e| format!("{}: {e}", output.display()))?;
    writeln!(
        out,
        "wrote {rows} rows in {groups} row groups to {}",
        output.display()
    )
    .map_err(|e| format!("writing output: {e}"))
}

fn copy(
    batches: Batches,
    sink: BufWriter<File>,
    properties: herringbone::WriterProperties,
) -> Result<(i64, usize), String> {
    let mut writer = ArrowWriter::try_new(sink, batches.schema(), Some(properties))
        .map_err(|e| e.to_string())?;
    for batch in batches {
        writer.write(&batch?).map_err(|e| e.to_string())?;
    }
    let metadata = writer.finish().map_err(|e| e.to_string())?;
    writer.into_inner().flush().map_err(|e| e.to_string())?;
    Ok((metadata.num_rows, metadata.row_groups.len()))
}

/// Whether both paths name the same existing file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
