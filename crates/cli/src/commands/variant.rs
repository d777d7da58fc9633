//! `hb variant METADATA VALUE` (being written).
use std::io::Write;
use std::path::Path;

pub fn run(_metadata: &Path, _value: &Path, _out: &mut dyn Write) -> Result<(), String> {
    Err("hb variant is being written".into())
}
