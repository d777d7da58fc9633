//! A whole file through the verifier: whatever the bytes, it must return a report
//! (never panic, hang or allocate by a declared size), an unreadable file must say
//! why, and a readable one must have checked what it counted.
#![no_main]

use bytes::Bytes;
use herringbone::verify::{VerifyOptions, verify};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&control, file)) = data.split_first() else {
        return;
    };
    // Small limits keep hostile page sizes and distinct sets cheap.
    let options = VerifyOptions::default()
        .with_max_page_size(1 << 20)
        .with_max_distinct(1 << 12)
        .with_arrow_read(control & 1 != 0);
    let report = verify(Bytes::copy_from_slice(file), &options);
    if !report.readable {
        assert!(!report.problems.is_empty(), "an unreadable file says why");
        assert_eq!(report.exit_code(), 2);
    } else {
        assert_eq!(report.exit_code() == 0, report.problems.is_empty());
        assert!(report.summary.column_chunks <= report.summary.row_groups.saturating_mul(1 << 16));
    }
    for finding in report.problems.iter().chain(&report.warnings) {
        assert!(!finding.message.is_empty());
    }
});
