//! `hb schema FILE`: the schema as text (`message schema { ... }`).

use std::io::Write;
use std::path::Path;

use super::reading::FileFooter;

pub fn run(path: &Path, out: &mut dyn Write) -> Result<(), String> {
    let file = FileFooter::open(path)?;
    write!(out, "{}", file.schema.to_text()).map_err(|e| e.to_string())
}
