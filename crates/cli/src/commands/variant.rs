//! `hb variant METADATA VALUE`: print the JSON of a Variant stored as two blobs.

use std::io::Write;
use std::path::Path;

use herringbone::variant::{Variant, VariantMetadata};

/// Reads the metadata and value files, decodes the Variant and writes its JSON text
/// (conventions of `herringbone::variant`) as one line.
///
/// Errors are one-line strings naming the file or the byte that was wrong.
pub fn run(metadata: &Path, value: &Path, out: &mut dyn Write) -> Result<(), String> {
    let metadata_bytes = std::fs::read(metadata)
        .map_err(|e| format!("reading metadata {}: {e}", metadata.display()))?;
    let value_bytes =
        std::fs::read(value).map_err(|e| format!("reading value {}: {e}", value.display()))?;
    let dictionary = VariantMetadata::try_new(&metadata_bytes)
        .map_err(|e| format!("{}: {e}", metadata.display()))?;
    let variant = Variant::try_new(dictionary, &value_bytes)
        .map_err(|e| format!("{}: {e}", value.display()))?;
    let json = variant
        .to_json()
        .map_err(|e| format!("{}: {e}", value.display()))?;
    writeln!(out, "{json}").map_err(|e| format!("writing output: {e}"))
}
