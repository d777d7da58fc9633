//! `herringbone::recover` on files whose end was cut off at several points: every row
//! group that lies wholly before the cut comes back with equal values.

use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use bytes::Bytes;
use herringbone::metadata::FileMetaData;
use herringbone::recover::{RecoverOptions, Source, recover};
use herringbone::verify::{VerifyOptions, verify};
use herringbone::{ArrowWriter, Codec, ParquetRecordBatchReaderBuilder, WriterProperties};
use herringbone_format::footer::read_metadata;

fn rows_of(file: Bytes, groups: Option<Vec<usize>>) -> Vec<RecordBatch> {
    let mut builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    if let Some(groups) = groups {
        builder = builder.with_row_groups(groups);
    }
    builder.build().unwrap().collect::<Result<_, _>>().unwrap()
}

/// Row groups whose chunks (and so pages) all end before `cut`.
fn intact_before(metadata: &FileMetaData, cut: u64) -> usize {
    metadata
        .row_groups
        .iter()
        .take_while(|g| {
            g.columns.iter().all(|c| {
                let m = c.meta_data.as_ref().unwrap();
                let start = m
                    .dictionary_page_offset
                    .filter(|&d| d > 0)
                    .unwrap_or(m.data_page_offset);
                (start + m.total_compressed_size) as u64 <= cut
            })
        })
        .count()
}

/// Cuts `file` at several points and checks each recovery; returns the sources used.
fn check_cuts(name: &str, file: &[u8]) -> Vec<Source> {
    let bytes = Bytes::copy_from_slice(file);
    let metadata = read_metadata(&bytes).unwrap();
    let footer_len =
        u32::from_le_bytes(file[file.len() - 8..file.len() - 4].try_into().unwrap()) as usize;
    let footer_start = file.len() - 8 - footer_len;
    let last = metadata.row_groups.last().unwrap().columns[0]
        .meta_data
        .as_ref()
        .unwrap();
    let last_start = last
        .dictionary_page_offset
        .filter(|&d| d > 0)
        .unwrap_or(last.data_page_offset) as usize;
    let mut cuts = vec![
        file.len() - 4,                // the magic
        file.len() - 8,                // the footer length
        footer_start + footer_len / 2, // inside the footer
        footer_start,                  // the whole footer
    ];
    if metadata.row_groups.len() > 1 {
        cuts.push(last_start + 3); // inside the last row group
    }
    let options = RecoverOptions::default()
        .with_schema(metadata.schema.clone(), metadata.key_value_metadata.clone());
    let mut sources = Vec::new();
    for cut in cuts {
        let mut out = Vec::new();
        let report = recover(&Bytes::copy_from_slice(&file[..cut]), &mut out, &options)
            .unwrap_or_else(|e| panic!("{name} cut at {cut}: {e}"));
        sources.push(report.source);
        let expected = intact_before(&metadata, cut as u64);
        assert!(
            report.row_groups >= expected,
            "{name} cut at {cut}: {} row groups recovered, {expected} intact: {:?}",
            report.row_groups,
            report.dropped
        );
        let out = Bytes::from(out);
        let recovered = rows_of(out.clone(), Some((0..expected).collect()));
        let original = rows_of(bytes.clone(), Some((0..expected).collect()));
        let concat = |batches: &[RecordBatch]| {
            arrow_select::concat::concat_batches(&batches[0].schema(), batches).unwrap()
        };
        assert_eq!(
            concat(&recovered),
            concat(&original),
            "{name} cut at {cut}: values"
        );
        let checked = verify(out, &VerifyOptions::default());
        assert!(
            checked.is_clean(),
            "{name} cut at {cut}: {:?}",
            checked.problems
        );
    }
    sources
}

#[test]
fn a_written_file_cut_anywhere_keeps_its_intact_row_groups() {
    let n = 3000;
    let ids: ArrayRef = Arc::new(Int64Array::from((0..n).collect::<Vec<i64>>()));
    let names: ArrayRef = Arc::new(StringArray::from(
        (0..n)
            .map(|i| (i % 3 != 0).then(|| format!("name {}", i % 17)))
            .collect::<Vec<_>>(),
    ));
    let prices: ArrayRef = Arc::new(Float64Array::from(
        (0..n).map(|i| i as f64 / 4.0).collect::<Vec<_>>(),
    ));
    let batch =
        RecordBatch::try_from_iter([("id", ids), ("name", names), ("price", prices)]).unwrap();
    for codec in [Codec::Snappy, Codec::Zstd { level: 1 }, Codec::Uncompressed] {
        let props = WriterProperties::builder()
            .set_compression(codec)
            .set_max_row_group_rows(1000)
            .set_data_page_row_limit(400)
            .build();
        let mut file = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), Some(props)).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let sources = check_cuts(codec.name(), &file);
        assert!(sources.contains(&Source::PartialFooter), "{sources:?}");
        assert!(sources.contains(&Source::PageScan), "{sources:?}");
    }
}

#[test]
fn corpus_files_cut_anywhere_keep_their_intact_row_groups() {
    let dir = herringbone_testkit::corpus_data_dir();
    for name in [
        "alltypes_tiny_pages.parquet",
        "sort_columns.parquet",
        "floating_orders_nan_count.parquet",
        "nested_lists.snappy.parquet",
        "nullable.impala.parquet",
        "delta_encoding_optional_column.parquet",
        "geospatial/geography-points.parquet",
    ] {
        let file = std::fs::read(dir.join(name)).unwrap();
        check_cuts(name, &file);
    }
}

#[test]
fn without_a_footer_or_a_schema_recovery_says_what_it_needs() {
    let ids: ArrayRef = Arc::new(Int64Array::from(vec![1, 2, 3]));
    let batch = RecordBatch::try_from_iter([("id", ids)]).unwrap();
    let mut file = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    // Everything after the pages is gone, the footer's schema with it.
    let cut = &file[..40];
    let err = recover(
        &Bytes::copy_from_slice(cut),
        &mut Vec::new(),
        &RecoverOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("give one"), "{err}");
}

/// What the `recover` fuzz target asks of any input: recovery fails cleanly, or what it
/// writes reads back whole (INT96 in seconds), row for row what it reported, and
/// verifies without a decoding problem.
fn recovers_cleanly(hex: &str, schema: Option<&str>) {
    let file: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    let mut options = RecoverOptions::default();
    if let Some(schema) = schema {
        options = options.with_schema(
            herringbone::schema::parse_message_type(schema).unwrap(),
            None,
        );
    }
    let mut out = Vec::new();
    let Ok(report) = recover(&Bytes::from(file), &mut out, &options) else {
        return;
    };
    let out = Bytes::from(out);
    let reader = ParquetRecordBatchReaderBuilder::try_new(out.clone())
        .unwrap()
        .with_schema_options(
            herringbone::SchemaOptions::new().with_int96_unit(arrow_schema::TimeUnit::Second),
        )
        .build()
        .unwrap();
    let rows: usize = reader.map(|b| b.unwrap().num_rows()).sum();
    assert_eq!(rows as u64, report.rows, "{report:?}");
    let checked = verify(out, &VerifyOptions::default());
    assert!(checked.problems.is_empty(), "{:?}", checked.problems);
}

/// Fuzzers' finds. Pages whose header counts fewer values than their PLAIN section
/// holds (bytes left over) are not proven intact. A list chunk whose pages each decode
/// but whose levels contradict each other across pages does not read back: its row
/// group is dropped.
#[test]
fn what_recovery_keeps_reads_back() {
    recovers_cleanly(
        "504152311500153e155c15f0fefbe1051c150415001506150600001f8b0800000000000003636260606066620691fc0c6c40aa20b12835af8405c8ca4bcc4d0500df7fbca71f00000015001544156215efc3bbe5061c150415001506150600001f8b0800000000000003636260606066620691fc0cec402a312fbf2423b5880dc82c4a2dc82f2a0100f1a8b5fd220000001911021918046e616d65191806706172656e74150219160000191102191807616e6f746865721918067265706f7274150219160000191c1608158a0116000000191c169201159001160000001502195c480b686976655f736368656d61150200350218066d795f6d6170150215024c2c000000350418096b65795f76616c75651504150400150c250218036b657925004c1c000000150c25",
        Some("message m { required int32 a; optional binary b (STRING); }"),
    );
    recovers_cleanly(
        "504152311504153c153c4c150c150400001e1001000000610105006201053c630100000064010000006501000000661500154215442c15241504150615061c1801661801611606000000212c07000000076cb227bb09000a010b40fff9ffe7ff3dff3c0000030588866844341615041508150c4c150215040000040c010000001500150415082c15061504150915081c1804010000001804010000001600000000020400031502199c480c737061726b5f736368656d6115040035021801611502150600350418046c69737415020035021807656c656d656e741502150600350418046c69737415020035021807656c656d656e741502150600350418046c697374150200150c25021807656c656d656e7425000015022500180162001606191c192c26081c150c1925060419780161046c69737407656c656d656e74046c69737407656c656d656e74046c69737407656c656d656e741502162416ce0116d00126083c180166180161160600192c1504150415020015001504150200000026d8011c15021925080419180162150216061668167026d8013c180401000000180401000000160000192c1504150415020015001504150200000016b602160600191c18296f72672e6170616368652e737061726b2e73716c2e706172717565742e726f772e6d6574616461746118ad027b2274797065223a22737472756374222c226669656c6473223a5b7b226e616d65223a2261222c2274797065223a7b2274797065223a226172726179222c22656c656d656e7454797065223a7b2274797065223a226172726179222c22656c656d656e7454797065223a7b2274797065223a226172726179222c22656c656d656e7454797065223a22737472696e67222c22636f6e7461696e734e756c6c223a747275657d",
        None,
    );
}
