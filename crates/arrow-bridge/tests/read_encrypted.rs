//! Every encrypted file of the parquet-testing corpus, read with its keys (from
//! `INVENTORY.md`), gives the values pyarrow reads: the whole oracle where pyarrow reads
//! the whole file, else each column pyarrow read, and for the columns under keys
//! pyarrow's Python API cannot supply, the same rows of the file's uniformly encrypted
//! twin. arrow-rs (`encryption` feature) reads the GCM files as a second opinion.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::RecordBatch;
use bytes::Bytes;
use herringbone_arrow_bridge::ErrorKind;
use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder;
use herringbone_codec::crypto::key_tools::{ExternalKeyMaterial, InMemoryKms, KmsKeyRetriever};
use herringbone_codec::crypto::{AesKey, FileDecryptionProperties, KeyRetriever};
use herringbone_testkit::canonical::{batch_checksums, compare_with_oracle};

const AES128: &[(&str, &str, &str)] = &[
    ("kf", "", "0123456789012345"),
    ("kc1", "double_field", "1234567890123450"),
    ("kc2", "float_field", "1234567890123451"),
];

const AES256: &[(&str, &str, &str)] = &[
    ("kf", "", "01234567890123456789012345678901"),
    ("kc1", "double_field", "12345678901234567890123456789012"),
    ("kc2", "float_field", "12345678901234567890123456789013"),
    ("kc3", "boolean_field", "12345678901234567890123456789014"),
    ("kc4", "int32_field", "12345678901234567890123456789015"),
    ("kc5", "ba_field", "12345678901234567890123456789016"),
    ("kc6", "flba_field", "12345678901234567890123456789017"),
    (
        "kc7",
        "int64_field.list.element",
        "12345678901234567890123456789018",
    ),
    ("kc8", "int96_field", "12345678901234567890123456789019"),
];

/// Maps the key ids the corpus stores as key metadata to their keys.
#[derive(Debug)]
struct KeyIds(HashMap<Vec<u8>, AesKey>);

impl KeyRetriever for KeyIds {
    fn retrieve_key(&self, key_metadata: &[u8]) -> herringbone_codec::Result<AesKey> {
        self.0.get(key_metadata).cloned().ok_or_else(|| {
            herringbone_codec::Error::key_required(format!(
                "unknown key id {:?}",
                String::from_utf8_lossy(key_metadata)
            ))
        })
    }
}

fn table(name: &str) -> &'static [(&'static str, &'static str, &'static str)] {
    if name.starts_with("data/aes256/") {
        AES256
    } else {
        AES128
    }
}

fn aad_prefix(name: &str) -> Option<Vec<u8>> {
    name.contains("disable_aad_storage")
        .then(|| b"tester".to_vec())
}

/// Keys given directly: the footer key and every column key by path.
fn direct_keys(name: &str) -> FileDecryptionProperties {
    let mut builder = FileDecryptionProperties::builder();
    for (_, column, key) in table(name) {
        builder = if column.is_empty() {
            builder.with_footer_key(key.as_bytes().to_vec())
        } else {
            builder.with_column_key(*column, key.as_bytes().to_vec())
        };
    }
    if let Some(prefix) = aad_prefix(name) {
        builder = builder.with_aad_prefix(prefix);
    }
    builder.build().unwrap()
}

/// Keys found by a retriever from the key ids stored in the file.
fn retrieved_keys(name: &str) -> FileDecryptionProperties {
    let ids = table(name)
        .iter()
        .map(|(id, _, key)| (id.as_bytes().to_vec(), AesKey::new(key.as_bytes()).unwrap()))
        .collect();
    let mut builder = FileDecryptionProperties::builder().with_key_retriever(Arc::new(KeyIds(ids)));
    if let Some(prefix) = aad_prefix(name) {
        builder = builder.with_aad_prefix(prefix);
    }
    builder.build().unwrap()
}

/// The KMS of parquet-java's tests and the file's external key material.
fn kms_keys(relative: &Path) -> FileDecryptionProperties {
    let kms = InMemoryKms::new(
        AES128
            .iter()
            .map(|(id, _, key)| (*id, key.as_bytes().to_vec())),
    )
    .unwrap();
    let path = herringbone_testkit::corpus_root().join(relative);
    let external = ExternalKeyMaterial::read_for(&path).unwrap();
    let retriever = KmsKeyRetriever::new(Arc::new(kms)).with_external_key_material(external);
    FileDecryptionProperties::builder()
        .with_key_retriever(Arc::new(retriever))
        .build()
        .unwrap()
}

fn read(
    relative: &Path,
    keys: &FileDecryptionProperties,
) -> herringbone_arrow_bridge::Result<(arrow_schema::SchemaRef, Vec<RecordBatch>)> {
    let bytes = Bytes::from(herringbone_testkit::read_corpus_file(relative));
    let reader = ParquetRecordBatchReaderBuilder::try_new_with_decryption(bytes, keys)?
        .with_batch_size(17)
        .with_verify_crc(true)
        .build()?;
    let schema = arrow_array::RecordBatchReader::schema(&reader);
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| herringbone_arrow_bridge::Error::new(ErrorKind::Corrupt, e.to_string()))?;
    Ok((schema, batches))
}

fn encrypted_files() -> Vec<PathBuf> {
    let files: Vec<PathBuf> = herringbone_testkit::corpus_files(&["data"])
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".encrypted"))
        .collect();
    assert_eq!(files.len(), 13, "the corpus has 13 encrypted files");
    files
}

/// Checksums of every column of the uniformly encrypted twin, by column name.
fn uniform_checksums(name: &str) -> HashMap<String, String> {
    let twin = if name.starts_with("data/aes256/") {
        "data/aes256/uniform_encryption.parquet.encrypted"
    } else {
        "data/uniform_encryption.parquet.encrypted"
    };
    let oracle = herringbone_testkit::oracle(Path::new(twin)).expect("uniform oracle");
    oracle["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["checksum"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Compares a read with the oracle: whole where pyarrow read it all, else per column,
/// the columns pyarrow could not read against the uniform twin. Returns how many
/// columns were compared with a twin (none for the Bloom filter file, which has none).
fn check_against_pyarrow(
    relative: &Path,
    schema: &arrow_schema::Schema,
    batches: &[RecordBatch],
) -> Result<usize, String> {
    let name = relative.to_string_lossy().replace('\\', "/");
    let oracle = herringbone_testkit::oracle(relative).ok_or("no oracle")?;
    if oracle["readable_by_pyarrow"] == serde_json::Value::Bool(true) {
        compare_with_oracle(relative, schema, batches)?;
        return Ok(0);
    }
    let got = batch_checksums(batches);
    let twin = uniform_checksums(&name);
    let has_twin = !name.contains("bloom_filter");
    let mut from_twin = 0;
    for (i, column) in oracle["columns"].as_array().unwrap().iter().enumerate() {
        let column_name = column["name"].as_str().unwrap();
        assert_eq!(schema.field(i).name(), column_name, "{name}");
        let expected = match column["checksum"].as_str() {
            Some(checksum) => checksum.to_string(),
            None if has_twin => {
                from_twin += 1;
                twin[column_name].clone()
            }
            None => continue,
        };
        if got[i] != expected {
            return Err(format!(
                "{name}: column {column_name} differs from pyarrow's values"
            ));
        }
    }
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    if Some(rows as u64) != oracle["num_rows"].as_u64() {
        return Err(format!(
            "{name}: {rows} rows, the footer says {}",
            oracle["num_rows"]
        ));
    }
    Ok(from_twin)
}

#[test]
fn every_encrypted_corpus_file_reads_like_pyarrow_with_its_keys() {
    let mut checked = 0;
    for relative in encrypted_files() {
        let name = relative.to_string_lossy().replace('\\', "/");
        let keysets: Vec<(&str, FileDecryptionProperties)> =
            if name.contains("external_key_material") {
                vec![("KMS and external key material", kms_keys(&relative))]
            } else {
                vec![
                    ("direct keys", direct_keys(&name)),
                    ("key retriever", retrieved_keys(&name)),
                ]
            };
        for (how, keys) in keysets {
            let (schema, batches) =
                read(&relative, &keys).unwrap_or_else(|e| panic!("{name} ({how}): {e}"));
            let from_twin = check_against_pyarrow(&relative, &schema, &batches)
                .unwrap_or_else(|e| panic!("{name} ({how}): {e}"));
            println!("ok {name} ({how}, {from_twin} columns against the uniform twin)");
            checked += 1;
        }
    }
    assert_eq!(checked, 25, "12 files two ways and one with the KMS");
}

/// arrow-rs reads the AES_GCM_V1 files (it has no AES_GCM_CTR_V1) with the same keys to
/// the same values, including the columns pyarrow could not read and the Bloom filter
/// file's encrypted columns.
#[test]
fn arrow_rs_reads_the_gcm_files_to_the_same_values() {
    use parquet::arrow::arrow_reader::{
        ArrowReaderOptions, ParquetRecordBatchReaderBuilder as Peer,
    };
    use parquet::encryption::decrypt::FileDecryptionProperties as PeerKeys;
    let mut compared = 0;
    for relative in encrypted_files() {
        let name = relative.to_string_lossy().replace('\\', "/");
        if name.contains("_ctr") || name.contains("external_key_material") {
            continue;
        }
        let table = table(&name);
        let mut peer = PeerKeys::builder(table[0].2.as_bytes().to_vec());
        for (_, column, key) in &table[1..] {
            peer = peer.with_column_key(column, key.as_bytes().to_vec());
        }
        if let Some(prefix) = aad_prefix(&name) {
            peer = peer.with_aad_prefix(prefix);
        }
        let options =
            ArrowReaderOptions::new().with_file_decryption_properties(peer.build().unwrap());
        let bytes = Bytes::from(herringbone_testkit::read_corpus_file(&relative));
        let theirs: Vec<RecordBatch> = Peer::try_new_with_options(bytes, options)
            .unwrap()
            .build()
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let (_, ours) = read(&relative, &direct_keys(&name)).unwrap();
        assert_eq!(batch_checksums(&ours), batch_checksums(&theirs), "{name}");
        compared += 1;
    }
    assert_eq!(compared, 10, "10 AES_GCM_V1 files with direct keys");
}
