//! `hb head FILE [-n N]`: the first rows of a file, as `hb cat --limit N` prints them
//! (only the row groups those rows lie in are read).

use std::io::Write;
use std::path::Path;

use super::cat::{self, Format, Rows};
use super::reading::ReadArgs;

pub fn run(
    path: &Path,
    args: &ReadArgs,
    rows: usize,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), String> {
    cat::run(path, args, 0, Rows::Limit(rows), format, out)
}
