//! What the end-to-end tests of `hb` share: running the binary, the error contract and
//! scratch directories.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the `hb` binary built for these tests.
pub fn hb(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hb"))
        .args(args)
        .output()
        .expect("hb runs")
}

/// Asserts exit status 1 and a single `hb: ` line on stderr; returns that line.
pub fn fails(args: &[&str]) -> String {
    let out = hb(args);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(err.lines().count(), 1, "{args:?}: one line, got {err:?}");
    assert!(err.starts_with("hb: "), "{args:?}: {err}");
    err
}

/// A fresh directory for one test's files (`name` unique within a test binary).
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hb-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
