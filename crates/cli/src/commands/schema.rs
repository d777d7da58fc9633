//! `hb schema FILE`: the schema as text (`message schema { ... }`), then, when the file
//! has Variant columns, how each is shredded.

use std::io::Write;
use std::path::Path;

use super::reading::FileFooter;

pub fn run(path: &Path, keys: &super::keys::KeyArgs, out: &mut dyn Write) -> Result<(), String> {
    let file = FileFooter::open(path, keys)?;
    write!(out, "{}", file.schema.to_text()).map_err(|e| e.to_string())?;
    let variants = file.variant_columns();
    if !variants.is_empty() {
        writeln!(out, "\nvariant columns:").map_err(|e| e.to_string())?;
        for (path, shredding) in variants {
            writeln!(out, "  {path}: {shredding}").map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}
