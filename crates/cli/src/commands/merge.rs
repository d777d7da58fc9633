//! `hb merge OUT IN... [writer options]`: concatenates files with the same schema.
//! Column chunks are copied without decoding when the inputs allow it (same schema,
//! column orders and writer, no encryption) and no writer option is given; otherwise
//! every row is re-encoded (see `herringbone::merge`).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use herringbone::encryption::read_metadata_with_decryption;
use herringbone::merge::{MergeMode, MergeOptions, merge};

use super::rewrite::same_file;
use super::writing::WriteArgs;

pub fn run(
    output: &Path,
    inputs: &[PathBuf],
    write: &WriteArgs,
    keys: &super::keys::KeyArgs,
    encrypt: &super::keys::EncryptArgs,
    out: &mut dyn Write,
) -> Result<(), String> {
    // As in `hb convert`, the key options decrypt the inputs and encrypt the output.
    let decryption = keys.decryption()?;
    let encryption = keys.encryption(encrypt)?;
    if let Some(input) = inputs.iter().find(|i| same_file(i, output)) {
        return Err(format!(
            "{}: the output would overwrite an input",
            input.display()
        ));
    }
    let mut files = Vec::with_capacity(inputs.len());
    let mut rows = 0u64;
    for path in inputs {
        let file = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let (metadata, _) = read_metadata_with_decryption(&file, decryption.as_ref())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        rows += u64::try_from(metadata.num_rows).unwrap_or(0);
        files.push(file);
    }
    let mut options = MergeOptions::default();
    if !write.is_default() || encryption.is_some() {
        // The rows to be written size the Bloom filters.
        options = options.with_properties(write.properties(rows, encryption)?);
    }
    if let Some(keys) = decryption {
        options = options.with_decryption(keys);
    }
    let file = File::create(output).map_err(|e| format!("{}: {e}", output.display()))?;
    let result = merge(files, BufWriter::new(file), &options);
    let summary = match result {
        Ok(summary) => summary,
        Err(e) => {
            let _ = std::fs::remove_file(output);
            return Err(format!("{}: {e}", output.display()));
        }
    };
    let how = match summary.mode {
        MergeMode::Copied => "column chunks copied".to_string(),
        MergeMode::Reencoded => format!(
            "re-encoded: {}",
            summary.reason.as_deref().unwrap_or("writer options given")
        ),
    };
    writeln!(
        out,
        "merged {} files into {}: {} rows in {} row groups ({how})",
        inputs.len(),
        output.display(),
        summary.rows,
        summary.row_groups
    )
    .map_err(|e| format!("writing output: {e}"))
}
