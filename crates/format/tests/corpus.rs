//! Every footer of the parquet-testing corpus: decodes (or fails cleanly for bad files
//! and encrypted footers), matches the pyarrow oracle, and round-trips through the writer.

use std::path::Path;

use bytes::Bytes;
use herringbone_format::ErrorKind;
use herringbone_format::footer::{
    FooterOptions, footer_range, read_metadata, read_metadata_with_options,
};
use herringbone_format::metadata::FileMetaData;
use herringbone_format::thrift::{CompactReader, ThriftStruct};
use herringbone_testkit::{corpus_files, oracle, read_corpus_file};

fn leaf_count(meta: &FileMetaData) -> usize {
    meta.schema
        .iter()
        .skip(1)
        .filter(|e| e.num_children.unwrap_or(0) == 0 && e.type_.is_some())
        .count()
}

/// Leaves in pyarrow's printed schema: one declaration per line ending with `;`.
fn oracle_leaf_count(parquet_schema: &str) -> usize {
    parquet_schema
        .lines()
        .filter(|l| l.trim_end().ends_with(';'))
        .count()
}

fn is_encrypted_footer(file: &[u8]) -> bool {
    file.len() >= 4 && &file[file.len() - 4..] == b"PARE"
}

#[test]
fn corpus_footers_match_oracle() {
    let files = corpus_files(&["data", "bad_data", "shredded_variant", "variant"]);
    assert!(
        files.len() > 100,
        "corpus looks incomplete: {} files",
        files.len()
    );
    let (mut decoded, mut encrypted, mut bad_errors, mut compared) = (0, 0, 0, 0);
    for rel in &files {
        let bytes = Bytes::from(read_corpus_file(rel));
        let is_bad = rel.starts_with("bad_data");
        let result = read_metadata(&bytes);
        let oracle = oracle(rel);
        match result {
            Ok(meta) => {
                decoded += 1;
                for (i, rg) in meta.row_groups.iter().enumerate() {
                    assert_eq!(
                        rg.columns.len(),
                        leaf_count(&meta),
                        "{}: row group {i} has one chunk per leaf",
                        rel.display()
                    );
                }
                if let Some(o) = &oracle {
                    compared += compare_with_oracle(rel, &meta, o, is_bad);
                }
                println!(
                    "ok   {} rows={} row_groups={} leaves={}",
                    rel.display(),
                    meta.num_rows,
                    meta.row_groups.len(),
                    leaf_count(&meta)
                );
            }
            Err(e) if is_encrypted_footer(&bytes) => {
                assert_eq!(e.kind(), ErrorKind::Encrypted, "{}: {e}", rel.display());
                assert!(e.to_string().contains("encrypted footer: keys required"));
                encrypted += 1;
                println!("enc  {}: {e}", rel.display());
            }
            Err(e) => {
                assert!(is_bad, "{}: footer failed to decode: {e}", rel.display());
                // pyarrow must not have been able to open this footer either.
                if let Some(o) = &oracle {
                    println!(
                        "     (pyarrow metadata_error: {}, num_rows: {})",
                        o["metadata_error"], o["num_rows"]
                    );
                }
                bad_errors += 1;
                println!("err  {}: {e}", rel.display());
            }
        }
    }
    println!(
        "{} files: {decoded} decoded ({compared} compared with the oracle), {encrypted} encrypted footers, {bad_errors} bad_data errors",
        files.len()
    );
    assert!(encrypted > 0, "the corpus has encrypted-footer files");
    assert!(compared > 100);
}

fn compare_with_oracle(
    rel: &Path,
    meta: &FileMetaData,
    o: &serde_json::Value,
    is_bad: bool,
) -> usize {
    let name = rel.display();
    let mut checked = 0;
    if let Some(n) = o["num_rows"].as_i64() {
        assert_eq!(meta.num_rows, n, "{name}: num_rows");
        checked = 1;
    }
    if let Some(n) = o["num_row_groups"].as_u64() {
        assert_eq!(meta.row_groups.len() as u64, n, "{name}: num_row_groups");
    }
    if let Some(rows) = o["row_group_num_rows"].as_array() {
        let ours: Vec<i64> = meta.row_groups.iter().map(|rg| rg.num_rows).collect();
        let theirs: Vec<i64> = rows.iter().filter_map(|v| v.as_i64()).collect();
        assert_eq!(ours, theirs, "{name}: row_group_num_rows");
    }
    if let Some(s) = o["created_by"].as_str() {
        // pyarrow reports an absent created_by as "".
        assert_eq!(
            meta.created_by.as_deref().unwrap_or(""),
            s,
            "{name}: created_by"
        );
    }
    if let Some(schema) = o["parquet_schema"].as_str() {
        let expected = oracle_leaf_count(schema);
        // pyarrow prints its own view of a few malformed schemas; only valid files must agree.
        if !is_bad {
            assert_eq!(leaf_count(meta), expected, "{name}: leaf columns");
        }
    }
    checked
}

#[test]
fn corpus_footers_round_trip() {
    let files = corpus_files(&["data", "bad_data", "shredded_variant", "variant"]);
    let (mut total, mut identical) = (0, 0);
    let mut differing = Vec::new();
    for rel in &files {
        let bytes = Bytes::from(read_corpus_file(rel));
        let Ok(range) = footer_range(&bytes) else {
            continue;
        };
        let Ok(meta) = read_metadata(&bytes) else {
            continue;
        };
        total += 1;
        let encoded = Bytes::from(meta.encode());
        let (again, used) =
            FileMetaData::decode_prefix(&encoded).expect("re-encoded footer decodes");
        assert_eq!(used, encoded.len(), "{}", rel.display());
        assert_eq!(again, meta, "{}: decode -> encode -> decode", rel.display());
        // the writer is deterministic
        assert_eq!(again.encode(), encoded.as_ref(), "{}", rel.display());
        if encoded.as_ref() == &bytes[range.clone()] {
            identical += 1;
        } else {
            differing.push(rel.display().to_string());
        }
    }
    println!("{total} footers round-trip; {identical} re-encode byte-identical");
    println!("differing bytes (writer used another field order or encoding): {differing:?}");
    assert!(total > 100);
    assert!(
        identical > total / 2,
        "most writers use canonical order: {identical}/{total}"
    );
}

#[test]
fn corpus_selective_decode_agrees_with_full_decode() {
    for rel in corpus_files(&["data"]) {
        let bytes = Bytes::from(read_corpus_file(&rel));
        let Ok(full) = read_metadata(&bytes) else {
            continue;
        };
        let leaves = leaf_count(&full);
        if leaves == 0 || full.row_groups.is_empty() {
            continue;
        }
        let cols = [0, leaves / 2, leaves - 1];
        let last_rg = full.row_groups.len() - 1;
        let opts = FooterOptions::new()
            .with_columns(cols)
            .with_row_groups([last_rg])
            .with_skip_statistics(true);
        let part = read_metadata_with_options(&bytes, &opts).unwrap();
        assert_eq!(part.schema, full.schema);
        assert_eq!(part.row_groups.len(), 1);
        let selected = opts.selected_columns().unwrap();
        let rg = &part.row_groups[0];
        assert_eq!(rg.columns.len(), selected.len());
        for (k, &leaf) in selected.iter().enumerate() {
            let mut expected = full.row_groups[last_rg].columns[leaf].clone();
            if let Some(m) = expected.meta_data.as_mut() {
                m.statistics = None;
                m.encoding_stats = None;
                m.size_statistics = None;
                m.geospatial_statistics = None;
            }
            assert_eq!(rg.columns[k], expected, "{}: column {leaf}", rel.display());
        }
        assert_eq!(rg.num_rows, full.row_groups[last_rg].num_rows);
    }
}

/// The hand-tuned column chunk reader (used for the usual layout) and the generated
/// readers decode every corpus footer to the same value, or fail with the same error.
#[test]
fn corpus_hand_tuned_chunks_match_generated_readers() {
    let files = corpus_files(&["data", "bad_data", "shredded_variant", "variant"]);
    let mut chunks = 0usize;
    for rel in &files {
        let bytes = Bytes::from(read_corpus_file(rel));
        let Ok(range) = footer_range(&bytes) else {
            continue;
        };
        let footer = bytes.slice(range);
        for skip in [true, false] {
            let reader = || CompactReader::from_bytes(&footer).with_skip_statistics(skip);
            let fast = FileMetaData::read(&mut reader());
            let generated = FileMetaData::read(&mut reader().with_hand_tuned(false));
            assert_eq!(
                format!("{fast:?}"),
                format!("{generated:?}"),
                "{} (statistics skipped: {skip})",
                rel.display()
            );
        }
        let fast = FileMetaData::read(&mut CompactReader::from_bytes(&footer));
        if let Ok(meta) = fast {
            chunks += meta
                .row_groups
                .iter()
                .map(|rg| rg.columns.len())
                .sum::<usize>();
        }
    }
    assert!(chunks > 1000, "only {chunks} chunks compared");
}
