//! `verify`, the page walker (`hb pages`) and `merge` on encrypted files, with keys:
//! the corpus' encrypted files and Herringbone-written ones.

use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
use bytes::Bytes;
use herringbone::encryption::{
    FileDecryptionProperties, FileEncryptionProperties, read_metadata_with_decryption,
};
use herringbone::layout::PageWalker;
use herringbone::merge::{MergeMode, MergeOptions, merge};
use herringbone::metadata::PageType;
use herringbone::verify::{Check, Report, VerifyOptions, verify};
use herringbone::{ArrowWriter, Codec, ParquetRecordBatchReaderBuilder, WriterProperties};
use herringbone_arrow_bridge::decryption::chunk_decryptor;

const KF: &[u8] = b"0123456789012345";
const KC1: &[u8] = b"1234567890123450";
const KC2: &[u8] = b"1234567890123451";

fn corpus(name: &str) -> Bytes {
    let path = herringbone_testkit::corpus_data_dir().join(name);
    Bytes::from(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

fn corpus_keys(aad_prefix: Option<&str>) -> FileDecryptionProperties {
    let mut keys = FileDecryptionProperties::builder()
        .with_footer_key(KF.to_vec())
        .with_column_key("double_field", KC1.to_vec())
        .with_column_key("float_field", KC2.to_vec());
    if let Some(prefix) = aad_prefix {
        keys = keys.with_aad_prefix(prefix.as_bytes().to_vec());
    }
    keys.build().unwrap()
}

fn verify_with(file: Bytes, keys: FileDecryptionProperties) -> Report {
    verify(file, &VerifyOptions::default().with_decryption(keys))
}

fn messages(report: &Report) -> Vec<String> {
    report
        .problems
        .iter()
        .chain(&report.warnings)
        .map(ToString::to_string)
        .collect()
}

#[test]
fn the_corpus_encrypted_files_verify_clean_with_their_keys() {
    for (name, prefix) in [
        ("uniform_encryption.parquet.encrypted", None),
        ("encrypt_columns_and_footer.parquet.encrypted", None),
        ("encrypt_columns_and_footer_aad.parquet.encrypted", None),
        ("encrypt_columns_and_footer_ctr.parquet.encrypted", None),
        (
            "encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted",
            Some("tester"),
        ),
        ("encrypt_columns_plaintext_footer.parquet.encrypted", None),
        (
            "encrypt_columns_and_footer_bloom_filter.parquet.encrypted",
            None,
        ),
    ] {
        let report = verify_with(corpus(name), corpus_keys(prefix));
        assert!(report.is_clean(), "{name}: {:#?}", messages(&report));
        assert!(
            report.warnings.is_empty(),
            "{name}: {:#?}",
            messages(&report)
        );
        assert_eq!(report.summary.arrow_row_groups, 1, "{name}");
        // The footer (or its signature) and, per encrypted chunk, page headers and
        // pages, offset indexes (and column indexes, Bloom filters where present).
        assert!(
            report.summary.encrypted_modules >= 9,
            "{name}: {:?}",
            report.summary
        );
    }
    let bloom = verify_with(
        corpus("encrypt_columns_and_footer_bloom_filter.parquet.encrypted"),
        corpus_keys(None),
    );
    assert_eq!(bloom.summary.bloom_filters, 2);
}

#[test]
fn without_a_column_key_its_chunk_is_reported_not_checked() {
    let keys = FileDecryptionProperties::builder()
        .with_footer_key(KF.to_vec())
        .build()
        .unwrap();
    let report = verify_with(corpus("encrypt_columns_and_footer.parquet.encrypted"), keys);
    assert!(report.is_clean(), "{:#?}", messages(&report));
    let not_checked: Vec<_> = report
        .warnings
        .iter()
        .filter(|w| w.check == Check::Encryption)
        .map(|w| w.location.column.clone().unwrap())
        .collect();
    assert_eq!(not_checked, ["float_field", "double_field"]);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.check == Check::ArrowRead && w.message.contains("not run")),
        "{:#?}",
        messages(&report)
    );
}

#[test]
fn a_wrong_footer_key_makes_the_file_unreadable() {
    let keys = FileDecryptionProperties::builder()
        .with_footer_key(KC1.to_vec())
        .build()
        .unwrap();
    let report = verify_with(corpus("uniform_encryption.parquet.encrypted"), keys);
    assert_eq!(report.exit_code(), 2);
    assert_eq!(report.problems[0].check, Check::Encryption);
    assert!(
        report.problems[0].message.contains("tag mismatch"),
        "{}",
        report.problems[0]
    );
}

fn sample() -> RecordBatch {
    let x: ArrayRef = Arc::new(Int32Array::from((0..1000).collect::<Vec<_>>()));
    let s: ArrayRef = Arc::new(StringArray::from(
        (0..1000)
            .map(|i| format!("value {}", i % 7))
            .collect::<Vec<_>>(),
    ));
    RecordBatch::try_from_iter([("x", x), ("s", s)]).unwrap()
}

fn write(batch: &RecordBatch, encrypted: bool) -> Bytes {
    let mut props = WriterProperties::builder()
        .set_compression(Codec::Uncompressed)
        .set_write_crc(true)
        .set_data_page_row_limit(100)
        .set_bloom_filter("s", 0.01, 100);
    if encrypted {
        props = props.set_encryption(
            FileEncryptionProperties::builder(KF.to_vec())
                .with_column_key("x", KC1.to_vec())
                .build()
                .unwrap(),
        );
    }
    let mut writer = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props.build())).unwrap();
    writer.write(batch).unwrap();
    writer.finish().unwrap();
    Bytes::from(writer.into_inner())
}

fn own_keys() -> FileDecryptionProperties {
    FileDecryptionProperties::builder()
        .with_allow_plaintext_files(true)
        .with_footer_key(KF.to_vec())
        .with_column_key("x", KC1.to_vec())
        .build()
        .unwrap()
}

/// The pages of row group 0, column `c`, walked with the keys when `keys` is given.
fn walk(
    file: &Bytes,
    c: usize,
    keys: Option<&FileDecryptionProperties>,
) -> Vec<herringbone::layout::PageSpan> {
    let (metadata, decryptor) = read_metadata_with_decryption(file, keys).unwrap();
    let meta = metadata.row_groups[0].columns[c]
        .meta_data
        .as_ref()
        .unwrap();
    let start = meta
        .dictionary_page_offset
        .filter(|&d| d > 0 && d < meta.data_page_offset)
        .unwrap_or(meta.data_page_offset) as usize;
    let end = start + meta.total_compressed_size as usize;
    let mut walker = PageWalker::new(file.slice(start..end), start as u64);
    let path = if c == 0 { "x" } else { "s" };
    if let Some(column) = chunk_decryptor(decryptor.as_deref(), &metadata, 0, c, path).unwrap() {
        let dictionary_first = meta
            .dictionary_page_offset
            .is_some_and(|d| d > 0 && d < meta.data_page_offset);
        walker = walker.with_decryptor(column, dictionary_first);
    }
    walker.collect::<Result<_, _>>().unwrap()
}

#[test]
fn the_page_walker_decrypts_headers_like_the_plaintext_file_has_them() {
    let batch = sample();
    let plain = write(&batch, false);
    let secret = write(&batch, true);
    for c in 0..2 {
        let plain_pages = walk(&plain, c, None);
        let secret_pages = walk(&secret, c, Some(&own_keys()));
        let shape = |pages: &[herringbone::layout::PageSpan]| -> Vec<(PageType, Option<i32>)> {
            pages
                .iter()
                .map(|p| (p.header.type_, p.num_values()))
                .collect()
        };
        assert_eq!(shape(&secret_pages), shape(&plain_pages), "column {c}");
        assert!(secret_pages.len() > 2);
        for page in &secret_pages {
            // `x` is encrypted (its own key): each page decrypts, to more bytes than its
            // plaintext body (the header comes first). `s` is not encrypted (only the
            // columns given keys are).
            match (c, &page.plaintext) {
                (0, Some(Ok(plaintext))) => assert!(plaintext.len() > page.uncompressed_len),
                (1, None) => {}
                other => panic!("column {c}: {other:?}"),
            }
            assert_eq!(page.crc_status(), herringbone::layout::CrcStatus::Valid);
        }
    }
}

#[test]
fn a_tampered_encrypted_page_is_a_problem_at_that_page() {
    let secret = write(&sample(), true);
    let report = verify_with(secret.clone(), own_keys());
    assert!(report.is_clean(), "{:#?}", messages(&report));
    assert!(report.warnings.is_empty(), "{:#?}", messages(&report));

    let page = walk(&secret, 0, Some(&own_keys())).remove(3);
    let mut damaged = secret.to_vec();
    // A byte of the ciphertext, past the module's length and nonce.
    let at = page.offset as usize + page.header_len + 4 + 12 + 5;
    damaged[at] ^= 0x01;
    let report = verify_with(Bytes::from(damaged), own_keys());
    assert_eq!(report.exit_code(), 1);
    let problem = report
        .problems
        .iter()
        .find(|p| p.check == Check::Encryption)
        .unwrap_or_else(|| panic!("{:#?}", messages(&report)));
    assert_eq!(problem.location.column.as_deref(), Some("x"));
    assert_eq!(problem.location.page, Some(3));
    assert!(problem.message.contains("does not decrypt"), "{problem}");
    // The CRC covers the stored (encrypted) bytes: it breaks too.
    assert!(report.problems.iter().any(|p| p.check == Check::Crc));
}

#[test]
fn merge_decrypts_and_re_encodes_encrypted_inputs() {
    let batch = sample();
    let secret = write(&batch, true);
    let plain = write(&batch, false);
    // Without keys: an error naming the input.
    let e = merge(
        vec![secret.clone(), plain.clone()],
        Vec::new(),
        &MergeOptions::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("input 0"), "{e}");
    assert!(e.to_string().contains("keys required"), "{e}");

    // With keys: re-encoded (plaintext output: no encryption in the writer options).
    let mut out = Vec::new();
    let summary = merge(
        vec![secret.clone(), plain],
        &mut out,
        &MergeOptions::default().with_decryption(own_keys()),
    )
    .unwrap();
    assert_eq!(summary.mode, MergeMode::Reencoded);
    assert!(
        summary
            .reason
            .as_deref()
            .unwrap()
            .contains("input 0 is encrypted")
    );
    let batches: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(out))
        .unwrap()
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let merged = arrow_select::concat::concat_batches(&batch.schema(), &batches).unwrap();
    let twice = arrow_select::concat::concat_batches(&batch.schema(), [&batch, &batch]).unwrap();
    assert_eq!(merged, twice);

    // Encrypted again when the writer options say so; verifies clean with the keys.
    let encryption = FileEncryptionProperties::builder(KF.to_vec())
        .with_column_key("x", KC1.to_vec())
        .build()
        .unwrap();
    let mut out = Vec::new();
    merge(
        vec![secret.clone(), secret],
        &mut out,
        &MergeOptions::default()
            .with_decryption(own_keys())
            .with_properties(
                WriterProperties::builder()
                    .set_encryption(encryption)
                    .build(),
            ),
    )
    .unwrap();
    let report = verify_with(Bytes::from(out), own_keys());
    assert!(report.is_clean(), "{:#?}", messages(&report));
    assert_eq!(report.summary.arrow_row_groups, 2);
}
