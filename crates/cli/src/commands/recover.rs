//! `hb recover IN OUT [--schema FILE]`: writes every row group of a damaged file that
//! can be proven intact into a new file (see `herringbone::recover`), and says what was
//! dropped. The schema comes from the file's own footer while any of it is left, else
//! from `--schema`: a text schema (`message m { ... }`) or a Parquet file with the same
//! schema (whose `ARROW:schema` is carried over too).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use herringbone::recover::{RecoverOptions, Source, recover};
use herringbone::schema::parse_message_type;

use super::rewrite::same_file;

pub fn run(
    input: &Path,
    output: &Path,
    schema: Option<&Path>,
    out: &mut dyn Write,
) -> Result<(), String> {
    if same_file(input, output) {
        return Err(format!(
            "{}: the output would overwrite the input",
            output.display()
        ));
    }
    let mut options = RecoverOptions::default();
    if let Some(path) = schema {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        options = if bytes.starts_with(b"PAR1") || bytes.ends_with(b"PAR1") {
            let sibling = super::ParquetFile::from_bytes(bytes.into())
                .map_err(|e| format!("{}: {e}", path.display()))?;
            let arrow_schema = sibling.metadata.key_value_metadata.as_ref().map(|kv| {
                kv.iter()
                    .filter(|kv| kv.key.as_str() == "ARROW:schema")
                    .cloned()
                    .collect::<Vec<_>>()
            });
            options.with_schema(
                sibling.metadata.schema,
                arrow_schema.filter(|kv| !kv.is_empty()),
            )
        } else {
            let text = String::from_utf8(bytes).map_err(|_| {
                format!(
                    "{}: neither a Parquet file nor a text schema",
                    path.display()
                )
            })?;
            let elements =
                parse_message_type(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            options.with_schema(elements, None)
        };
    }
    let file = File::open(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let sink = File::create(output).map_err(|e| format!("{}: {e}", output.display()))?;
    let report = match recover(&file, BufWriter::new(sink), &options) {
        Ok(report) => report,
        Err(e) => {
            let _ = std::fs::remove_file(output);
            return Err(format!("{}: {e}", input.display()));
        }
    };
    let source = match report.source {
        Source::Footer => "the footer",
        Source::PartialFooter => "what is left of the footer, then the page headers",
        Source::PageScan => "the page headers",
    };
    let write = |out: &mut dyn Write| -> std::io::Result<()> {
        writeln!(
            out,
            "recovered {} rows in {} row groups into {} (structure from {source})",
            report.rows,
            report.row_groups,
            output.display()
        )?;
        for line in &report.dropped {
            writeln!(out, "dropped: {line}")?;
        }
        Ok(())
    };
    write(out).map_err(|e| format!("writing output: {e}"))
}
