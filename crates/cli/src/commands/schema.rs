//! `hb schema FILE`: the schema as text (`message schema { ... }`).

use std::io::Write;
use std::path::Path;

use super::ParquetFile;

pub fn run(path: &Path, keys: &super::keys::KeyArgs, out: &mut dyn Write) -> Result<(), String> {
    let file = ParquetFile::open(path, keys)?;
    write!(out, "{}", file.schema.to_text()).map_err(|e| e.to_string())
}
