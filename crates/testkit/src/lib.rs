//! Test support for Herringbone: finds the public `parquet-testing` corpus and the
//! pyarrow oracles that describe what each corpus file holds.
//!
//! The corpus is looked up, in order, at:
//! 1. `$PARQUET_TEST_DATA` (the `data/` folder of a parquet-testing checkout),
//! 2. `parquet-testing/data` in this checkout (the git submodule, after
//!    `git clone --recursive` or `git submodule update --init`),
//! 3. `../shared/parquet-testing/data` beside the checkout.
//!
//! A missing corpus is a test failure with instructions, never a silent skip.

pub mod canonical;

use std::path::{Path, PathBuf};

/// Root of the workspace (two levels above this crate's manifest).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root exists")
}

fn usable(dir: &Path) -> bool {
    dir.is_dir()
        && std::fs::read_dir(dir)
            .map(|mut entries| entries.next().is_some())
            .unwrap_or(false)
}

/// The `data/` folder of the parquet-testing corpus.
///
/// # Panics
/// When no corpus can be found: the message says how to get one.
pub fn corpus_data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("PARQUET_TEST_DATA") {
        let dir = PathBuf::from(dir);
        assert!(
            usable(&dir),
            "PARQUET_TEST_DATA={} is not a non-empty directory",
            dir.display()
        );
        return dir;
    }
    let root = workspace_root();
    let candidates = [
        root.join("parquet-testing/data"),
        root.join("../shared/parquet-testing/data"),
    ];
    for dir in &candidates {
        if usable(dir) {
            return dir.canonicalize().unwrap_or_else(|_| dir.clone());
        }
    }
    panic!(
        "parquet-testing corpus not found. Set PARQUET_TEST_DATA to the data/ folder of a \
         checkout of https://github.com/apache/parquet-testing, or run \
         `git submodule update --init parquet-testing` in {} (looked at {:?})",
        root.display(),
        candidates
    );
}

/// The corpus root (the folder holding `data/`, `bad_data/`, `variant/`, `shredded_variant/`).
pub fn corpus_root() -> PathBuf {
    corpus_data_dir()
        .parent()
        .expect("data dir has a parent")
        .to_path_buf()
}

/// The folder of pyarrow oracles (`parquet-testing-expected/`), if present.
///
/// Looked up at `$PARQUET_TEST_EXPECTED`, then beside the corpus root
/// (`<corpus>/../parquet-testing-expected`), then `../shared/parquet-testing-expected`.
pub fn expected_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("PARQUET_TEST_EXPECTED") {
        return PathBuf::from(dir);
    }
    let beside = corpus_root().join("../parquet-testing-expected");
    if usable(&beside) {
        return beside.canonicalize().unwrap_or(beside);
    }
    let shared = workspace_root().join("../shared/parquet-testing-expected");
    assert!(
        usable(&shared),
        "pyarrow oracles (parquet-testing-expected) not found: set PARQUET_TEST_EXPECTED \
         (looked beside the corpus and at {})",
        shared.display()
    );
    shared.canonicalize().unwrap_or(shared)
}

/// Every Parquet file of the corpus (`*.parquet` and `*.parquet.encrypted`) under the
/// given sub-folders of the corpus root (e.g. `["data", "bad_data"]`), recursively,
/// sorted by path. Paths are returned relative to the corpus root.
pub fn corpus_files(subdirs: &[&str]) -> Vec<PathBuf> {
    let root = corpus_root();
    let mut out = Vec::new();
    for sub in subdirs {
        collect(&root.join(sub), &mut out);
    }
    out.sort();
    out.into_iter()
        .map(|p| p.strip_prefix(&root).map(Path::to_path_buf).unwrap_or(p))
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if let Some(name) = path.file_name().and_then(|n| n.to_str())
            && (name.ends_with(".parquet") || name.ends_with(".parquet.encrypted"))
        {
            out.push(path);
        }
    }
}

/// The pyarrow oracle of a corpus file (path relative to the corpus root), parsed.
/// `None` when no oracle exists for it.
pub fn oracle(relative: &Path) -> Option<serde_json::Value> {
    let mut name = relative.as_os_str().to_owned();
    name.push(".json");
    let path = expected_dir().join(name);
    let text = std::fs::read_to_string(path).ok()?;
    Some(serde_json::from_str(&text).expect("oracle is valid JSON"))
}

/// Reads a corpus file (path relative to the corpus root).
pub fn read_corpus_file(relative: &Path) -> Vec<u8> {
    let path = corpus_root().join(relative);
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_corpus_and_oracles() {
        let files = corpus_files(&["data"]);
        assert!(
            files
                .iter()
                .any(|p| p.ends_with("data/alltypes_plain.parquet")),
            "alltypes_plain.parquet in {files:?}"
        );
        let oracle = oracle(Path::new("data/alltypes_plain.parquet")).expect("oracle exists");
        assert_eq!(oracle["num_rows"], 8);
    }
}
