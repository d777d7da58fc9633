//! Modular encryption through the writer and the reader: round trips over algorithms,
//! footer modes, key sizes and key layouts; every module byte tampered with gives an
//! error, never data; and the errors name what is missing or wrong.

use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, Int32Array, Int64Array, ListArray, RecordBatch, StringArray, StructArray,
};
use arrow_schema::{DataType, Field};
use bytes::Bytes;
use herringbone_arrow_bridge::ErrorKind;
use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder;
use herringbone_arrow_bridge::write::{ArrowWriter, WriterProperties};
use herringbone_codec::crypto::{
    Algorithm, FileDecryptionProperties, FileEncryptionProperties, decrypt_bloom_filter,
    decrypt_column_index, decrypt_offset_index,
};
use herringbone_format::footer::{column_index_range, offset_index_range};
use herringbone_format::schema::SchemaDescriptor;

const FOOTER: &[u8] = b"0123456789012345";
const KEY_A: &[u8] = b"1234567890123450";
const KEY_B: &[u8] = b"abcdefghijklmnopqrstuvwx"; // AES-192

fn batch(rows: usize) -> RecordBatch {
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(
        (0..rows as i64).map(|i| i * 7),
    ));
    let names: ArrayRef = Arc::new(StringArray::from_iter(
        (0..rows).map(|i| (i % 5 != 0).then(|| format!("name-{}", i % 13))),
    ));
    let lists: ArrayRef = Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(
        (0..rows).map(|i| (i % 4 != 1).then(|| (0..(i % 3) as i32).map(Some).collect::<Vec<_>>())),
    ));
    let inner: ArrayRef = Arc::new(Int32Array::from_iter(
        (0..rows as i32).map(|i| (i % 3 != 0).then_some(-i)),
    ));
    let point: ArrayRef = Arc::new(StructArray::from(vec![(
        Arc::new(Field::new("x", DataType::Int32, true)),
        inner,
    )]));
    RecordBatch::try_from_iter([
        ("id", ids),
        ("name", names),
        ("tags", lists),
        ("point", point),
    ])
    .unwrap()
}

fn write(batch: &RecordBatch, encryption: FileEncryptionProperties, row_group: usize) -> Bytes {
    let props = WriterProperties::builder()
        .set_encryption(encryption)
        .set_max_row_group_rows(row_group)
        .set_data_page_row_limit(40)
        .set_bloom_filter("name", 0.01, 100)
        .set_write_crc(true)
        .build();
    let mut writer = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props)).unwrap();
    writer.write(batch).unwrap();
    writer.finish().unwrap();
    Bytes::from(writer.into_inner())
}

fn read(
    file: Bytes,
    keys: &FileDecryptionProperties,
) -> herringbone_arrow_bridge::Result<Vec<RecordBatch>> {
    let reader = ParquetRecordBatchReaderBuilder::try_new_with_decryption(file, keys)?
        .with_verify_crc(true)
        .build()?;
    reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| herringbone_arrow_bridge::Error::new(ErrorKind::Corrupt, e.to_string()))
}

/// Reads every row, and every chunk's column index, offset index and Bloom filter.
fn read_everything(
    file: Bytes,
    keys: &FileDecryptionProperties,
) -> Result<Vec<RecordBatch>, String> {
    let builder = ParquetRecordBatchReaderBuilder::try_new_with_decryption(file.clone(), keys)
        .map_err(|e| e.to_string())?;
    let metadata = builder.metadata().clone();
    let decryptor = builder.decryptor().cloned().ok_or("no decryptor")?;
    let schema = SchemaDescriptor::new(&metadata.schema).map_err(|e| e.to_string())?;
    for (g, group) in metadata.row_groups.iter().enumerate() {
        for (c, chunk) in group.columns.iter().enumerate() {
            let path = schema.column(c).unwrap().path().dotted();
            let column = decryptor
                .column(&path, chunk.crypto_metadata.as_deref(), g, c)
                .map_err(|e| e.to_string())?
                .ok_or("every column is encrypted in these files")?;
            if let Some(range) = column_index_range(chunk, file.len()).map_err(|e| e.to_string())? {
                decrypt_column_index(&file[range], &column).map_err(|e| e.to_string())?;
            }
            if let Some(range) = offset_index_range(chunk, file.len()).map_err(|e| e.to_string())? {
                decrypt_offset_index(&file[range], &column).map_err(|e| e.to_string())?;
            }
            let meta = chunk.meta_data.as_ref().ok_or("chunk metadata")?;
            if let Some(offset) = meta.bloom_filter_offset {
                let len = meta.bloom_filter_length.ok_or("Bloom filter length")? as usize;
                let start = usize::try_from(offset).map_err(|e| e.to_string())?;
                let bytes = file
                    .get(start..start + len)
                    .ok_or("Bloom filter past the end")?;
                let (filter, used) =
                    decrypt_bloom_filter(bytes, &column, 1 << 20).map_err(|e| e.to_string())?;
                if used != len {
                    return Err(format!(
                        "Bloom filter of {used} bytes, the metadata says {len}"
                    ));
                }
                if !filter.check("name-1") {
                    return Err("the Bloom filter lost a value".into());
                }
            }
        }
    }
    let reader = builder
        .with_verify_crc(true)
        .build()
        .map_err(|e| e.to_string())?;
    reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())
}

fn uniform(algorithm: Algorithm, plaintext_footer: bool, key: &[u8]) -> FileEncryptionProperties {
    FileEncryptionProperties::builder(key.to_vec())
        .with_algorithm(algorithm)
        .with_plaintext_footer(plaintext_footer)
        .build()
        .unwrap()
}

fn column_keyed(algorithm: Algorithm, plaintext_footer: bool) -> FileEncryptionProperties {
    FileEncryptionProperties::builder(FOOTER.to_vec())
        .with_algorithm(algorithm)
        .with_plaintext_footer(plaintext_footer)
        .with_column_key("name", KEY_A.to_vec())
        .with_column_key("tags.list.item", KEY_B.to_vec())
        .with_aad_prefix(b"tbl/part-0".to_vec())
        .with_store_aad_prefix(false)
        .build()
        .unwrap()
}

fn all_keys() -> FileDecryptionProperties {
    FileDecryptionProperties::builder()
        .with_footer_key(FOOTER.to_vec())
        .with_column_key("name", KEY_A.to_vec())
        .with_column_key("tags.list.item", KEY_B.to_vec())
        .with_aad_prefix(b"tbl/part-0".to_vec())
        .build()
        .unwrap()
}

#[test]
fn round_trips_every_algorithm_footer_mode_key_size_and_key_layout() {
    let data = batch(300);
    for algorithm in [Algorithm::AesGcmV1, Algorithm::AesGcmCtrV1] {
        for plaintext_footer in [false, true] {
            for key in [
                FOOTER,
                KEY_B,
                b"01234567890123456789012345678901".as_slice(),
            ] {
                let file = write(&data, uniform(algorithm, plaintext_footer, key), 128);
                let magic = if plaintext_footer { b"PAR1" } else { b"PARE" };
                assert_eq!(&file[..4], magic);
                assert_eq!(&file[file.len() - 4..], magic);
                let keys = FileDecryptionProperties::builder()
                    .with_footer_key(key.to_vec())
                    .build()
                    .unwrap();
                let got = read_everything(file, &keys).unwrap_or_else(|e| {
                    panic!(
                        "{algorithm:?} plaintext footer {plaintext_footer}, {} bits: {e}",
                        key.len() * 8
                    )
                });
                assert_batches_equal(&got, &data);
            }
            let file = write(&data, column_keyed(algorithm, plaintext_footer), 100);
            let got = read(file.clone(), &all_keys()).unwrap();
            assert_batches_equal(&got, &data);
        }
    }
}

/// `got`, batch by batch, equals the matching slices of `want`.
fn assert_batches_equal(got: &[RecordBatch], want: &RecordBatch) {
    let mut offset = 0;
    for batch in got {
        assert_eq!(batch, &want.slice(offset, batch.num_rows()));
        offset += batch.num_rows();
    }
    assert_eq!(offset, want.num_rows());
}

/// Flips each byte of every module (pages, page headers, dictionary pages, column and
/// offset indexes, Bloom filter headers and bitsets, column metadata inside the footer,
/// the footer) of small AES_GCM_V1 files: each read of everything fails.
#[test]
fn every_tampered_module_byte_is_an_error_never_data() {
    let data = batch(60);
    let cases = [
        (
            "uniform, encrypted footer",
            uniform(Algorithm::AesGcmV1, false, FOOTER),
            keys_for_uniform(),
        ),
        (
            "column keys, encrypted footer",
            column_keyed_all(false),
            every_column_key(),
        ),
        (
            "column keys, plaintext footer",
            column_keyed_all(true),
            every_column_key(),
        ),
    ];
    for (what, encryption, keys) in cases {
        let file = write(&data, encryption, 30);
        assert_batches_equal(&read_everything(file.clone(), &keys).unwrap(), &data);
        let footer_len =
            u32::from_le_bytes(file[file.len() - 8..file.len() - 4].try_into().unwrap()) as usize;
        let footer_start = file.len() - 8 - footer_len;
        // The modules: everything between the leading magic and the footer, and the
        // footer after its plaintext FileCryptoMetaData (or, with a plaintext footer,
        // the signed metadata and its signature).
        let crypto_metadata_len = if &file[..4] == b"PARE" {
            let footer = file.slice(footer_start..file.len() - 8);
            herringbone_format::crypto::split_encrypted_footer(footer, 0)
                .unwrap()
                .module_offset as usize
        } else {
            0
        };
        let mut checked = 0;
        for i in (4..footer_start).chain(footer_start + crypto_metadata_len..file.len() - 8) {
            let mut bad = file.to_vec();
            bad[i] ^= 0x01;
            if let Ok(batches) = read_everything(Bytes::from(bad), &keys) {
                panic!(
                    "{what}: byte {i} of {} flipped, yet {} rows read",
                    file.len(),
                    batches.iter().map(|b| b.num_rows()).sum::<usize>()
                );
            }
            checked += 1;
        }
        assert!(checked > 1000, "{what}: {checked} bytes");
    }
}

fn keys_for_uniform() -> FileDecryptionProperties {
    FileDecryptionProperties::builder()
        .with_footer_key(FOOTER.to_vec())
        .build()
        .unwrap()
}

/// The keys of `column_keyed_all`.
fn every_column_key() -> FileDecryptionProperties {
    FileDecryptionProperties::builder()
        .with_footer_key(FOOTER.to_vec())
        .with_column_key("id", KEY_A.to_vec())
        .with_column_key("name", KEY_A.to_vec())
        .with_column_key("tags.list.item", KEY_B.to_vec())
        .with_column_key("point.x", FOOTER.to_vec())
        .with_aad_prefix(b"tbl/part-0".to_vec())
        .build()
        .unwrap()
}

/// Every leaf under a key of its own (so that no chunk is plaintext).
fn column_keyed_all(plaintext_footer: bool) -> FileEncryptionProperties {
    FileEncryptionProperties::builder(FOOTER.to_vec())
        .with_plaintext_footer(plaintext_footer)
        .with_column_key("id", KEY_A.to_vec())
        .with_column_key("name", KEY_A.to_vec())
        .with_column_key("tags.list.item", KEY_B.to_vec())
        .with_column_key("point.x", FOOTER.to_vec())
        .with_aad_prefix(b"tbl/part-0".to_vec())
        .with_store_aad_prefix(false)
        .build()
        .unwrap()
}

#[test]
fn errors_name_the_missing_or_wrong_key_and_the_column() {
    let data = batch(50);
    let file = write(&data, column_keyed(Algorithm::AesGcmV1, false), 50);
    let message = |keys: FileDecryptionProperties| match read(file.clone(), &keys) {
        Ok(_) => panic!("read without the right keys"),
        Err(e) => (e.kind(), e.to_string()),
    };
    // No keys at all.
    let e = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .err()
        .unwrap();
    assert_eq!(e.kind(), ErrorKind::Encrypted);
    assert!(e.to_string().contains("encrypted: keys required"), "{e}");
    // The footer key but no AAD prefix (the file does not store it).
    let (kind, text) = message(
        FileDecryptionProperties::builder()
            .with_footer_key(FOOTER.to_vec())
            .build()
            .unwrap(),
    );
    assert_eq!(kind, ErrorKind::Encrypted, "{text}");
    assert!(text.contains("AAD prefix"), "{text}");
    // A wrong footer key.
    let (kind, text) = message(
        FileDecryptionProperties::builder()
            .with_footer_key(KEY_A.to_vec())
            .with_aad_prefix(b"tbl/part-0".to_vec())
            .build()
            .unwrap(),
    );
    assert_eq!(kind, ErrorKind::Decryption, "{text}");
    assert!(
        text.contains("encrypted footer") && text.contains("tag mismatch"),
        "{text}"
    );
    // A wrong AAD prefix.
    let (kind, text) = message(
        FileDecryptionProperties::builder()
            .with_footer_key(FOOTER.to_vec())
            .with_aad_prefix(b"tbl/part-1".to_vec())
            .build()
            .unwrap(),
    );
    assert_eq!(kind, ErrorKind::Decryption, "{text}");
    // A missing column key: the column is named, with the row group.
    let (kind, text) = message(
        FileDecryptionProperties::builder()
            .with_footer_key(FOOTER.to_vec())
            .with_column_key("name", KEY_A.to_vec())
            .with_aad_prefix(b"tbl/part-0".to_vec())
            .build()
            .unwrap(),
    );
    assert_eq!(kind, ErrorKind::Encrypted, "{text}");
    assert!(
        text.contains("column tags.list.item is encrypted with its own key and none was given"),
        "{text}"
    );
    // A wrong column key: its metadata does not decrypt.
    let (kind, text) = message(
        FileDecryptionProperties::builder()
            .with_footer_key(FOOTER.to_vec())
            .with_column_key("name", KEY_B.to_vec())
            .with_column_key("tags.list.item", KEY_B.to_vec())
            .with_aad_prefix(b"tbl/part-0".to_vec())
            .build()
            .unwrap(),
    );
    assert_eq!(kind, ErrorKind::Decryption, "{text}");
    assert!(
        text.contains("column name, row group 0, column metadata"),
        "{text}"
    );
    // A key for a column the file does not have.
    let (kind, text) = message(
        FileDecryptionProperties::builder()
            .with_footer_key(FOOTER.to_vec())
            .with_column_key("name", KEY_A.to_vec())
            .with_column_key("tags.list.item", KEY_B.to_vec())
            .with_column_key("nmae", KEY_B.to_vec())
            .with_aad_prefix(b"tbl/part-0".to_vec())
            .build()
            .unwrap(),
    );
    assert_eq!(kind, ErrorKind::InvalidArgument, "{text}");
    assert!(
        text.contains("column nmae that the file does not have"),
        "{text}"
    );
    // Columns without a key of their own are plaintext: projecting them needs only the
    // footer key and the prefix.
    let keys = FileDecryptionProperties::builder()
        .with_footer_key(FOOTER.to_vec())
        .with_aad_prefix(b"tbl/part-0".to_vec())
        .build()
        .unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new_with_decryption(file.clone(), &keys);
    // The footer decrypts, the missing column keys only matter for their columns.
    let builder = builder.unwrap();
    let projection = herringbone_arrow_bridge::schema::Projection::Roots(vec![0, 3]);
    let batches: Vec<RecordBatch> = builder
        .with_projection(projection)
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_batches_equal(&batches, &data.project(&[0, 3]).unwrap());
}

#[test]
fn truncated_modules_are_errors_that_say_so() {
    let data = batch(50);
    let file = write(&data, uniform(Algorithm::AesGcmV1, true, FOOTER), 50);
    let keys = keys_for_uniform();
    // Cut the file just after the first page header's length field claims more bytes
    // than there are: rewrite the first module length (the first data page header).
    let mut bad = file.to_vec();
    bad[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = read(Bytes::from(bad), &keys).unwrap_err().to_string();
    assert!(e.contains("truncated module"), "{e}");
    assert!(e.contains("column id, row group 0"), "{e}");
}
