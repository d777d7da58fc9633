//! Recovery of arbitrary bytes, with and without a schema: it must fail cleanly or
//! write a file that the reader opens and reads in full, whose row count is what the
//! recovery reported, and that verifies without a decoding problem.
#![no_main]

use arrow_schema::TimeUnit;
use bytes::Bytes;
use herringbone::recover::{RecoverOptions, recover};
use herringbone::schema::parse_message_type;
use herringbone::verify::{Check, VerifyOptions, verify};
use herringbone::{ParquetRecordBatchReaderBuilder, SchemaOptions};
use libfuzzer_sys::fuzz_target;

const SCHEMAS: [&str; 3] = [
    "message m { required int32 a; optional binary b (STRING); }",
    "message m { optional group l (LIST) { repeated group list { optional int64 element; } } }",
    "message m { required double x; required boolean y; }",
];

fuzz_target!(|data: &[u8]| {
    let Some((&control, file)) = data.split_first() else {
        return;
    };
    let mut options = RecoverOptions::default();
    if control & 4 == 0 {
        let schema = parse_message_type(SCHEMAS[usize::from(control & 3) % SCHEMAS.len()])
            .expect("a valid schema");
        options = options.with_schema(schema, None);
    }
    let mut out = Vec::new();
    let Ok(report) = recover(&Bytes::copy_from_slice(file), &mut out, &options) else {
        return;
    };
    let out = Bytes::from(out);
    // INT96 read in seconds: any INT96 fits, while a recovered Julian day far from the
    // epoch does not fit nanoseconds (an error by design, not a failed recovery).
    let reader = ParquetRecordBatchReaderBuilder::try_new(out.clone())
        .expect("the recovered file opens")
        .with_schema_options(SchemaOptions::new().with_int96_unit(TimeUnit::Second))
        .build()
        .expect("and reads");
    let mut rows = 0u64;
    for batch in reader {
        rows += batch.expect("every recovered row decodes").num_rows() as u64;
    }
    assert_eq!(rows, report.rows);
    let checked = verify(out, &VerifyOptions::default().with_max_page_size(1 << 20));
    assert!(checked.readable);
    for problem in &checked.problems {
        assert!(
            !matches!(
                problem.check,
                Check::Decoding | Check::Levels | Check::Decompression | Check::PageHeader
            ),
            "recovered pages decode: {problem}"
        );
    }
});
