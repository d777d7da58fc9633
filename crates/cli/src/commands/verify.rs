//! `hb verify FILE... [--json]`: checks everything each file promises (see
//! `herringbone::verify`); prints one line per problem and warning, then a summary.
//! The exit status is 0 when every file is clean, 1 when a problem was found, 2 when a
//! file cannot be read at all.

use std::io::Write;
use std::path::Path;

use herringbone::verify::{Finding, Report, VerifyOptions, verify};
use serde_json::{Value, json};

/// Verifies `files`; returns the exit status.
pub fn run(
    files: &[impl AsRef<Path>],
    as_json: bool,
    no_arrow: bool,
    keys: &super::keys::KeyArgs,
    out: &mut dyn Write,
) -> Result<u8, String> {
    let mut options = VerifyOptions::default().with_arrow_read(!no_arrow);
    if let Some(keys) = keys.decryption()? {
        options = options.with_decryption(keys);
    }
    let mut status = 0u8;
    let mut documents = Vec::new();
    for path in files {
        let path = path.as_ref();
        let report = match std::fs::File::open(path) {
            Ok(file) => verify(file, &options),
            Err(e) => unreadable(format!("cannot open: {e}")),
        };
        status = status.max(report.exit_code());
        if as_json {
            documents.push(report_json(path, &report));
        } else {
            write_text(path, &report, out).map_err(|e| format!("writing output: {e}"))?;
        }
    }
    if as_json {
        let value = if documents.len() == 1 {
            documents.pop().unwrap_or(Value::Null)
        } else {
            Value::Array(documents)
        };
        let text = serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?;
        writeln!(out, "{text}").map_err(|e| format!("writing output: {e}"))?;
    }
    Ok(status)
}

fn unreadable(message: String) -> Report {
    Report {
        readable: false,
        problems: vec![Finding {
            location: Default::default(),
            check: herringbone::verify::Check::Footer,
            message,
            expected: None,
            found: None,
        }],
        ..Report::default()
    }
}

fn write_text(path: &Path, report: &Report, out: &mut dyn Write) -> std::io::Result<()> {
    let name = path.display();
    for problem in &report.problems {
        writeln!(out, "{name}: problem: {problem}")?;
    }
    for warning in &report.warnings {
        writeln!(out, "{name}: warning: {warning}")?;
    }
    let s = &report.summary;
    let verdict = if !report.readable {
        "UNREADABLE".to_string()
    } else if report.problems.is_empty() {
        "ok".to_string()
    } else {
        plural(report.problems.len(), "problem")
    };
    let warnings = if report.warnings.is_empty() {
        String::new()
    } else {
        format!(", {}", plural(report.warnings.len(), "warning"))
    };
    let encrypted = if s.encrypted_modules > 0 {
        format!(
            ", {} authenticated",
            plural(s.encrypted_modules, "encrypted module")
        )
    } else {
        String::new()
    };
    if report.readable {
        writeln!(
            out,
            "{name}: {verdict}{warnings} ({}, {}, {} ({} with CRC), {} levels, {}, {} column / {} offset indexes, {}, {} read through Arrow{encrypted})",
            plural(s.row_groups, "row group"),
            plural(s.column_chunks, "column chunk"),
            plural(s.pages, "page"),
            s.crcs,
            s.levels,
            plural(s.statistics, "statistics set"),
            s.column_indexes,
            s.offset_indexes,
            plural(s.bloom_filters, "Bloom filter"),
            plural(s.arrow_row_groups, "row group"),
        )
    } else {
        writeln!(out, "{name}: {verdict}")
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else if let Some(stem) = word.strip_suffix(" set") {
        format!("{n} {stem} sets")
    } else {
        format!("{n} {word}s")
    }
}

fn finding_json(finding: &Finding) -> Value {
    let l = &finding.location;
    json!({
        "check": finding.check.name(),
        "row_group": l.row_group,
        "column": l.column,
        "page": l.page,
        "offset": l.offset,
        "message": finding.message,
        "expected": finding.expected,
        "found": finding.found,
    })
}

fn report_json(path: &Path, report: &Report) -> Value {
    let s = &report.summary;
    json!({
        "file": path.display().to_string(),
        "readable": report.readable,
        "ok": report.is_clean(),
        "exit_status": report.exit_code(),
        "problems": report.problems.iter().map(finding_json).collect::<Vec<_>>(),
        "warnings": report.warnings.iter().map(finding_json).collect::<Vec<_>>(),
        "checked": {
            "file_bytes": s.file_len,
            "row_groups": s.row_groups,
            "column_chunks": s.column_chunks,
            "pages": s.pages,
            "crcs": s.crcs,
            "levels": s.levels,
            "statistics": s.statistics,
            "column_indexes": s.column_indexes,
            "offset_indexes": s.offset_indexes,
            "bloom_filters": s.bloom_filters,
            "encrypted_modules": s.encrypted_modules,
            "arrow_row_groups": s.arrow_row_groups,
        },
    })
}
