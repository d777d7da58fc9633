//! `hb convert IN.parquet OUT`: what the reader returns, written as an Arrow IPC file
//! (`.arrow`, `.ipc`, `.feather`) or as Parquet again (`.parquet`, with the writer
//! options of [`WriteArgs`]).

use std::io::Write;
use std::path::Path;

use arrow_ipc::writer::FileWriter;

use herringbone::ArrowWriter;

use super::reading::{Batches, ReadArgs};
use super::writing::WriteArgs;

/// Output extensions `hb convert` writes: Parquet, or the Arrow IPC file format (Feather
/// v2 is the same format).
const SUPPORTED: &[&str] = &["parquet", "arrow", "ipc", "feather"];

pub fn run(
    input: &Path,
    output: &Path,
    args: &ReadArgs,
    write_args: &WriteArgs,
    out: &mut dyn Write,
) -> Result<(), String> {
    let extension = output
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if !extension.as_deref().is_some_and(|e| SUPPORTED.contains(&e)) {
        return Err(format!(
            "{}: unsupported output format; supported: {}",
            output.display(),
            SUPPORTED
                .iter()
                .map(|e| format!(".{e}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if same_file(input, output) {
        return Err(format!(
            "{}: the output would overwrite the input",
            output.display()
        ));
    }
    // The input is opened (footer, schema, projection checked) before the output is
    // created, so a bad input leaves no empty output behind.
    let batches = Batches::open(input, args, |b| b)?;
    let parquet = extension.as_deref() == Some("parquet");
    let properties = if parquet {
        let rows = u64::try_from(batches.metadata.num_rows).unwrap_or(0);
        Some(write_args.properties(rows)?)
    } else {
        None
    };
    let file = std::fs::File::create(output).map_err(|e| format!("{}: {e}", output.display()))?;
    let written = match properties {
        Some(properties) => write_parquet(batches, file, output, properties),
        None => write_ipc(batches, file, output),
    };
    if written.is_err() {
        // A partial IPC file without its footer is unreadable: do not leave it behind.
        let _ = std::fs::remove_file(output);
    }
    let (rows, count) = written?;
    writeln!(
        out,
        "wrote {rows} rows in {count} batches to {}",
        output.display()
    )
    .map_err(|e| format!("writing output: {e}"))
}

fn write_parquet(
    batches: Batches,
    file: std::fs::File,
    output: &Path,
    properties: herringbone::WriterProperties,
) -> Result<(usize, usize), String> {
    let failed = |e: herringbone::arrow::Error| format!("{}: {e}", output.display());
    let mut writer = ArrowWriter::try_new(
        std::io::BufWriter::new(file),
        batches.schema(),
        Some(properties),
    )
    .map_err(failed)?;
    let (mut rows, mut count) = (0, 0);
    for batch in batches {
        let batch = batch?;
        rows += batch.num_rows();
        count += 1;
        writer.write(&batch).map_err(failed)?;
    }
    writer.close().map_err(failed)?;
    Ok((rows, count))
}

fn write_ipc(
    batches: Batches,
    file: std::fs::File,
    output: &Path,
) -> Result<(usize, usize), String> {
    let failed = |e: arrow_schema::ArrowError| format!("{}: {e}", output.display());
    let schema = batches.schema();
    let mut writer = FileWriter::try_new(std::io::BufWriter::new(file), &schema).map_err(failed)?;
    let (mut rows, mut count) = (0, 0);
    for batch in batches {
        let batch = batch?;
        rows += batch.num_rows();
        count += 1;
        writer.write(&batch).map_err(failed)?;
    }
    writer.finish().map_err(failed)?;
    writer
        .into_inner()
        .map_err(failed)?
        .flush()
        .map_err(|e| format!("{}: {e}", output.display()))?;
    Ok((rows, count))
}

/// Whether both paths name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
