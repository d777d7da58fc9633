//! Filtered scans of encrypted files prune like scans of the same file in plaintext: the
//! statistics come from the decrypted metadata, the page indexes and Bloom filters are
//! decrypted with their column's key. A predicate on a column whose key is missing is an
//! error naming the column.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::DataType;
use arrow_select::concat::concat_batches;
use bytes::Bytes;
use herringbone_arrow_bridge::ErrorKind;
use herringbone_arrow_bridge::predicate::{ColumnRef, CompareOp, Literal, Predicate};
use herringbone_arrow_bridge::prune::{Pruner, read_offset_index, read_page_index};
use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder;
use herringbone_arrow_bridge::scan::{PruningOptions, ScanBuilder, ScanMetrics};
use herringbone_arrow_bridge::schema::{SchemaOptions, parquet_to_arrow};
use herringbone_arrow_bridge::write::{ArrowWriter, WriterProperties};
use herringbone_codec::crypto::{Algorithm, FileDecryptionProperties, FileEncryptionProperties};

const FOOTER: &[u8] = b"0123456789012345";
const KEY_X: &[u8] = b"1234567890123450";
const KEY_TAG: &[u8] = b"abcdefghijklmnopqrstuvwx"; // AES-192
const ROWS: usize = 1000;

/// The tag of row `i`: scattered, so every row group's min and max span nearly the
/// whole range and only a Bloom filter can rule a row group out.
fn tag(i: usize) -> String {
    format!(
        "t{:08x}",
        (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32
    )
}

fn data() -> RecordBatch {
    let x: ArrayRef = Arc::new(Int64Array::from_iter_values(0..ROWS as i64));
    let tags: ArrayRef = Arc::new(StringArray::from_iter_values((0..ROWS).map(tag)));
    let y: ArrayRef = Arc::new(Int64Array::from_iter_values(
        (0..ROWS as i64).map(|i| (i * 31) % 97),
    ));
    RecordBatch::try_from_iter([("x", x), ("tag", tags), ("y", y)]).unwrap()
}

/// Ten row groups of 100 rows, pages of 10 rows, a page index on every column and a
/// Bloom filter on `tag`.
fn write(encryption: Option<FileEncryptionProperties>) -> Bytes {
    let batch = data();
    let mut props = WriterProperties::builder()
        .set_max_row_group_rows(100)
        .set_data_page_row_limit(10)
        .set_bloom_filter("tag", 0.01, 100);
    if let Some(e) = encryption {
        props = props.set_encryption(e);
    }
    let mut writer = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props.build())).unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();
    Bytes::from(writer.into_inner())
}

/// Every layout of keys: one key (GCM, encrypted footer), column keys with a plaintext
/// footer (CTR, AAD prefix not stored), and a mix where `y` stays plaintext.
fn encrypted_variants() -> Vec<(
    &'static str,
    FileEncryptionProperties,
    FileDecryptionProperties,
)> {
    let uniform = (
        "uniform GCM",
        FileEncryptionProperties::builder(FOOTER.to_vec())
            .build()
            .unwrap(),
        FileDecryptionProperties::builder()
            .with_footer_key(FOOTER.to_vec())
            .build()
            .unwrap(),
    );
    let columns_ctr = (
        "column keys, CTR, plaintext footer, supplied AAD prefix",
        FileEncryptionProperties::builder(FOOTER.to_vec())
            .with_algorithm(Algorithm::AesGcmCtrV1)
            .with_plaintext_footer(true)
            .with_column_key("x", KEY_X.to_vec())
            .with_column_key("tag", KEY_TAG.to_vec())
            .with_column_key("y", KEY_X.to_vec())
            .with_aad_prefix(b"table/part-7".to_vec())
            .with_store_aad_prefix(false)
            .build()
            .unwrap(),
        FileDecryptionProperties::builder()
            .with_footer_key(FOOTER.to_vec())
            .with_column_key("x", KEY_X.to_vec())
            .with_column_key("tag", KEY_TAG.to_vec())
            .with_column_key("y", KEY_X.to_vec())
            .with_aad_prefix(b"table/part-7".to_vec())
            .build()
            .unwrap(),
    );
    let partial = (
        "column keys for x and tag, y plaintext, encrypted footer",
        FileEncryptionProperties::builder(FOOTER.to_vec())
            .with_column_key("x", KEY_X.to_vec())
            .with_column_key("tag", KEY_TAG.to_vec())
            .build()
            .unwrap(),
        FileDecryptionProperties::builder()
            .with_footer_key(FOOTER.to_vec())
            .with_column_key("x", KEY_X.to_vec())
            .with_column_key("tag", KEY_TAG.to_vec())
            .build()
            .unwrap(),
    );
    vec![uniform, columns_ctr, partial]
}

fn scan(
    file: &Bytes,
    keys: Option<&FileDecryptionProperties>,
    predicate: &str,
) -> herringbone_arrow_bridge::Result<(RecordBatch, ScanMetrics)> {
    let builder = match keys {
        Some(keys) => ScanBuilder::try_new_with_decryption(file.clone(), keys)?,
        None => ScanBuilder::try_new(file.clone())?,
    };
    let schema = builder.schema()?;
    let mut scan = builder
        .with_predicate(Predicate::parse(predicate).unwrap())
        .with_page_counts(true)
        .build()?;
    let batches: Vec<RecordBatch> = scan
        .by_ref()
        .collect::<Result<_, _>>()
        .map_err(|e| herringbone_arrow_bridge::Error::new(ErrorKind::Corrupt, e.to_string()))?;
    Ok((
        concat_batches(&schema, &batches).unwrap(),
        scan.metrics().clone(),
    ))
}

fn predicates() -> Vec<String> {
    vec![
        // Statistics keep row group 2, the page index pages 23..26.
        "x >= 235 AND x < 262".into(),
        // Only the Bloom filters rule row groups out.
        format!("tag = '{}'", tag(555)),
        format!("tag IN ('{}', '{}', 'absent')", tag(17), tag(901)),
        // Statistics, page index and Bloom filters together.
        format!("(x < 15 OR x > 990) AND tag <> '{}'", tag(3)),
        format!("tag = '{}' OR x BETWEEN 420 AND 433", tag(777)),
        "y = 3 AND x > 500".into(),
    ]
}

#[test]
fn encrypted_scans_prune_like_plaintext_scans() {
    let plain = write(None);
    for (name, encryption, keys) in encrypted_variants() {
        let file = write(Some(encryption));
        for predicate in predicates() {
            let (want, want_metrics) = scan(&plain, None, &predicate).unwrap();
            let (got, got_metrics) = scan(&file, Some(&keys), &predicate)
                .unwrap_or_else(|e| panic!("{name}, {predicate}: {e}"));
            assert_eq!(got, want, "{name}, {predicate}");
            assert_eq!(got_metrics, want_metrics, "{name}, {predicate}");
        }
    }
}

#[test]
fn every_pruning_source_works_on_an_encrypted_file() {
    let (_, encryption, keys) = encrypted_variants().swap_remove(1);
    let file = write(Some(encryption));

    // Page index: 27 rows out of one row group, in 4 of its pages (230..270).
    let (got, m) = scan(&file, Some(&keys), "x >= 235 AND x < 262").unwrap();
    assert_eq!(got.num_rows(), 27);
    assert_eq!(m.row_groups_pruned_by_statistics, 9);
    assert_eq!(m.row_groups_read, 1);
    assert_eq!(m.rows_selected, 40);
    // Counted from the decrypted offset indexes of x, tag and y: 10 row groups x 10
    // pages each, 4 pages of each column selected.
    assert_eq!(m.pages_total, 300);
    assert_eq!(m.pages_selected, 12);

    // Bloom filter: the statistics keep most row groups, the filters all but one.
    let (got, m) = scan(&file, Some(&keys), &format!("tag = '{}'", tag(555))).unwrap();
    assert_eq!(got.num_rows(), 1);
    assert_eq!(
        got.column(0)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap()
            .value(0),
        555
    );
    assert!(
        m.row_groups_pruned_by_bloom_filter >= 5,
        "the Bloom filters pruned only {} row groups",
        m.row_groups_pruned_by_bloom_filter
    );
    assert_eq!(m.row_groups_read, 1, "{m:?}");
    // A value in no row group: every row group pruned (the filters have 1% false
    // positives; this value is not one of them).
    let (got, m) = scan(&file, Some(&keys), "tag = 'absent'").unwrap();
    assert_eq!(got.num_rows(), 0);
    assert_eq!(m.row_groups_read, 0);
}

#[test]
fn a_predicate_on_a_column_without_its_key_is_an_error_naming_it() {
    // x and tag under their own keys, the footer plaintext: without tag's key the file
    // opens, a scan filtering on x prunes, one filtering on tag fails naming it.
    let encryption = FileEncryptionProperties::builder(FOOTER.to_vec())
        .with_plaintext_footer(true)
        .with_column_key("x", KEY_X.to_vec())
        .with_column_key("tag", KEY_TAG.to_vec())
        .build()
        .unwrap();
    let file = write(Some(encryption));
    let keys = FileDecryptionProperties::builder()
        .with_footer_key(FOOTER.to_vec())
        .with_column_key("x", KEY_X.to_vec())
        .build()
        .unwrap();
    let builder = ScanBuilder::try_new_with_decryption(file.clone(), &keys).unwrap();
    let mut scan = builder
        .with_projection(herringbone_arrow_bridge::schema::Projection::Leaves(vec![
            0,
        ]))
        .with_predicate(Predicate::parse("x >= 235 AND x < 262").unwrap())
        .build()
        .unwrap();
    let rows: usize = scan.by_ref().map(|b| b.unwrap().num_rows()).sum();
    assert_eq!(rows, 27);
    assert_eq!(scan.metrics().rows_selected, 40);

    for predicate in [format!("tag = '{}'", tag(555)), "tag > 't8'".to_string()] {
        let err = scan_error(&file, &keys, &predicate);
        assert_eq!(err.kind(), ErrorKind::Encrypted, "{predicate}: {err}");
        let message = err.to_string();
        assert!(message.contains("column tag"), "{predicate}: {message}");
        assert!(message.contains("key"), "{predicate}: {message}");
    }

    // Without any keys, the plaintext footer opens the file; the encrypted page index
    // of x is then an error naming x.
    let err = ScanBuilder::try_new(file.clone())
        .unwrap()
        .with_predicate(Predicate::parse("x >= 235").unwrap())
        .build()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Encrypted, "{err}");
    assert!(err.to_string().contains("column x"), "{err}");
}

fn scan_error(
    file: &Bytes,
    keys: &FileDecryptionProperties,
    predicate: &str,
) -> herringbone_arrow_bridge::Error {
    let built = ScanBuilder::try_new_with_decryption(file.clone(), keys)
        .unwrap()
        .with_predicate(Predicate::parse(predicate).unwrap())
        .build();
    match built {
        Err(e) => e,
        Ok(mut scan) => match scan.find_map(|b| b.err()) {
            Some(e) => herringbone_arrow_bridge::Error::new(ErrorKind::Encrypted, e.to_string()),
            None => panic!("{predicate}: scan succeeded without the column's key"),
        },
    }
}

#[test]
fn a_tampered_index_or_filter_is_an_error_not_a_wrong_prune() {
    let (_, encryption, keys) = encrypted_variants().swap_remove(0);
    let file = write(Some(encryption));
    let builder =
        ParquetRecordBatchReaderBuilder::try_new_with_decryption(file.clone(), &keys).unwrap();
    let chunk = builder.metadata().row_groups[3].columns[1].clone();
    let meta = chunk.meta_data.as_ref().unwrap();
    let bloom = meta.bloom_filter_offset.unwrap() as usize;
    let column_index = chunk.column_index_offset.unwrap() as usize;
    let offset_index = chunk.offset_index_offset.unwrap() as usize;
    // Row 305 is in row group 3: its Bloom filter and page index are read.
    let predicate = format!("tag = '{}'", tag(305));
    for (what, at) in [
        ("Bloom filter", bloom + 20),
        ("column index", column_index + 30),
        ("offset index", offset_index + 30),
    ] {
        let mut bytes = file.to_vec();
        bytes[at] ^= 0x40;
        let bytes = Bytes::from(bytes);
        let err = match ScanBuilder::try_new_with_decryption(bytes, &keys)
            .unwrap()
            .with_predicate(Predicate::parse(&predicate).unwrap())
            .build()
        {
            Err(e) => e,
            Ok(_) => panic!("{what} tampered with: the scan was built"),
        };
        assert_eq!(err.kind(), ErrorKind::Decryption, "{what}: {err}");
        let message = err.to_string();
        assert!(
            message.contains("row group 3") && message.contains("column tag"),
            "{what}: {message}"
        );
    }
}

#[test]
fn page_index_and_bloom_filter_readers_decrypt() {
    let (_, encryption, keys) = encrypted_variants().swap_remove(1);
    let file = write(Some(encryption));
    let plain = write(None);
    let builder =
        ParquetRecordBatchReaderBuilder::try_new_with_decryption(file.clone(), &keys).unwrap();
    let plain_builder = ParquetRecordBatchReaderBuilder::try_new(plain.clone()).unwrap();
    let decryptor = builder.decryptor().cloned().unwrap();
    let metadata = builder.metadata().clone();
    for g in 0..10 {
        for (c, path) in ["x", "tag", "y"].into_iter().enumerate() {
            let chunk = &metadata.row_groups[g].columns[c];
            let plain_chunk = &plain_builder.metadata().row_groups[g].columns[c];
            let column = herringbone_arrow_bridge::decryption::chunk_decryptor(
                Some(&decryptor),
                &metadata,
                g,
                c,
                path,
            )
            .unwrap()
            .unwrap();
            let got = read_page_index(&file, chunk, Some(&column))
                .unwrap()
                .unwrap();
            let want = read_page_index(&plain, plain_chunk, None).unwrap().unwrap();
            assert_eq!(got.column_index, want.column_index, "row group {g}, {path}");
            assert_eq!(got.offset_index.page_locations.len(), 10);
            // The pages are at other offsets (encrypted pages are longer); the rows match.
            let rows = |i: &herringbone_format::metadata::OffsetIndex| {
                i.page_locations
                    .iter()
                    .map(|p| p.first_row_index)
                    .collect::<Vec<_>>()
            };
            assert_eq!(rows(&got.offset_index), rows(&want.offset_index));
            let offsets = read_offset_index(&file, chunk, Some(&column))
                .unwrap()
                .unwrap();
            assert_eq!(offsets, got.offset_index);
            // Without the decryptor, the encrypted module does not parse as an index.
            assert!(read_offset_index(&file, chunk, None).is_err());
        }
    }
}

#[test]
fn bloom_filters_without_a_length_are_found_by_their_module_lengths() {
    // Writers before parquet-format 2.10 store no bloom_filter_length: the filter's
    // extent comes from the lengths of its header and bitset modules.
    let (_, encryption, keys) = encrypted_variants().swap_remove(0);
    let file = write(Some(encryption));
    let builder =
        ParquetRecordBatchReaderBuilder::try_new_with_decryption(file.clone(), &keys).unwrap();
    let mut metadata = (**builder.metadata()).clone();
    for group in &mut metadata.row_groups {
        group.columns[1]
            .meta_data
            .as_mut()
            .unwrap()
            .bloom_filter_length = None;
    }
    let descriptor = builder.parquet_schema().clone();
    let mapping = parquet_to_arrow(&descriptor, None, &SchemaOptions::default()).unwrap();
    let groups: Vec<usize> = (0..10).collect();
    let prune = |predicate: &str, metadata: &herringbone_format::metadata::FileMetaData| {
        let bound = Predicate::parse(predicate)
            .unwrap()
            .bind(mapping.schema())
            .unwrap();
        Pruner::try_new(&bound, metadata, &descriptor, &mapping)
            .unwrap()
            .with_decryptor(builder.decryptor().cloned())
            .row_groups_with_bloom_filters(metadata, &file, &groups)
    };
    let predicate = format!("tag = '{}'", tag(555));
    let with_length = prune(&predicate, builder.metadata()).unwrap();
    let without = prune(&predicate, &metadata).unwrap();
    assert_eq!(without, with_length);
    assert!(without[5]);
    assert!(without.iter().filter(|k| **k).count() <= 2, "{without:?}");

    // A bitset module whose length runs past the end of the file: an error.
    let chunk = &metadata.row_groups[4].columns[1];
    let start = chunk
        .meta_data
        .as_ref()
        .unwrap()
        .bloom_filter_offset
        .unwrap() as usize;
    let header_len = u32::from_le_bytes(file[start..start + 4].try_into().unwrap()) as usize;
    let mut bytes = file.to_vec();
    bytes[start + 4 + header_len..start + 8 + header_len].copy_from_slice(&u32::MAX.to_le_bytes());
    let bytes = Bytes::from(bytes);
    let bound = Predicate::parse(&predicate)
        .unwrap()
        .bind(mapping.schema())
        .unwrap();
    let err = Pruner::try_new(&bound, &metadata, &descriptor, &mapping)
        .unwrap()
        .with_decryptor(builder.decryptor().cloned())
        .row_groups_with_bloom_filters(&metadata, &bytes, &[4])
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Corrupt, "{err}");
    assert!(
        err.to_string().contains("Bloom filter bitset module"),
        "{err}"
    );
}

/// The corpus keys (`INVENTORY.md`): AES-128 footer and two column keys, or AES-256
/// keys for each of the eight columns.
fn corpus_keys(name: &str) -> FileDecryptionProperties {
    const AES128: &[(&str, &str)] = &[
        ("", "0123456789012345"),
        ("double_field", "1234567890123450"),
        ("float_field", "1234567890123451"),
    ];
    const AES256: &[(&str, &str)] = &[
        ("", "01234567890123456789012345678901"),
        ("double_field", "12345678901234567890123456789012"),
        ("float_field", "12345678901234567890123456789013"),
        ("boolean_field", "12345678901234567890123456789014"),
        ("int32_field", "12345678901234567890123456789015"),
        ("ba_field", "12345678901234567890123456789016"),
        ("flba_field", "12345678901234567890123456789017"),
        (
            "int64_field.list.element",
            "12345678901234567890123456789018",
        ),
        ("int96_field", "12345678901234567890123456789019"),
    ];
    let table = if name.starts_with("data/aes256/") {
        AES256
    } else {
        AES128
    };
    let mut builder = FileDecryptionProperties::builder();
    for (column, key) in table {
        builder = if column.is_empty() {
            builder.with_footer_key(key.as_bytes().to_vec())
        } else {
            builder.with_column_key(*column, key.as_bytes().to_vec())
        };
    }
    if name.contains("disable_aad_storage") {
        builder = builder.with_aad_prefix(b"tester".to_vec());
    }
    builder.build().unwrap()
}

fn corpus_scan(
    file: &Bytes,
    keys: &FileDecryptionProperties,
    predicate: &Predicate,
    pruning: PruningOptions,
) -> herringbone_arrow_bridge::Result<(RecordBatch, ScanMetrics)> {
    let builder = ScanBuilder::try_new_with_decryption(file.clone(), keys)?;
    let schema = builder.schema()?;
    let mut scan = builder
        .with_predicate(predicate.clone())
        .with_pruning(pruning)
        .with_page_counts(true)
        .build()?;
    let batches: Vec<RecordBatch> = scan
        .by_ref()
        .collect::<Result<_, _>>()
        .map_err(|e| herringbone_arrow_bridge::Error::corrupt(e.to_string()))?;
    Ok((concat_batches(&schema, &batches)?, scan.metrics().clone()))
}

#[test]
fn corpus_encrypted_files_prune_with_their_page_indexes_and_bloom_filters() {
    let no_pruning = PruningOptions {
        statistics: false,
        bloom_filters: false,
        page_index: false,
    };
    let mut checked = 0;
    let mut pages_counted = 0;
    let mut bloom_pruned = 0;
    for path in herringbone_testkit::corpus_files(&["data"]) {
        let name = path.to_string_lossy().into_owned();
        if !name.ends_with(".encrypted") || name.contains("external_key_material") {
            continue;
        }
        let file = Bytes::from(herringbone_testkit::read_corpus_file(&path));
        let keys = corpus_keys(&name);
        let (whole, _) = corpus_scan(&file, &keys, &Predicate::Const(true), no_pruning)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for (field, array) in whole.schema().fields().iter().zip(whole.columns()) {
            if !matches!(
                array.data_type(),
                DataType::Int32
                    | DataType::Int64
                    | DataType::Float64
                    | DataType::Utf8
                    | DataType::Binary
            ) {
                continue;
            }
            let column = ColumnRef::from_parts(vec![field.name().clone()]);
            let valid: Vec<usize> = (0..array.len()).filter(|&i| array.is_valid(i)).collect();
            let Some(&mid) = valid.get(valid.len() / 2) else {
                continue;
            };
            let value = Literal::new(array.slice(mid, 1));
            let mut predicates: Vec<Predicate> = [CompareOp::Eq, CompareOp::GtEq, CompareOp::Lt]
                .into_iter()
                .map(|op| Predicate::Compare {
                    column: column.clone(),
                    op,
                    value: value.clone(),
                })
                .collect();
            // A value in no row: only the Bloom filters (where there are some) and
            // the statistics can say so.
            if let Some(absent) = absent_value(array) {
                predicates.push(Predicate::Compare {
                    column: column.clone(),
                    op: CompareOp::Eq,
                    value: absent,
                });
            }
            for predicate in predicates {
                let (want, _) = corpus_scan(&file, &keys, &predicate, no_pruning).unwrap();
                let (got, metrics) =
                    corpus_scan(&file, &keys, &predicate, PruningOptions::default())
                        .unwrap_or_else(|e| panic!("{name}, {predicate}: {e}"));
                assert_eq!(got, want, "{name}, {predicate}");
                pages_counted += metrics.pages_total;
                bloom_pruned += metrics.row_groups_pruned_by_bloom_filter;
                checked += 1;
            }
        }
    }
    assert!(checked >= 80, "{checked} predicates checked");
    // Every file has offset indexes, all encrypted.
    assert!(pages_counted > 0);
    // encrypt_columns_and_footer_bloom_filter: Bloom filters on encrypted columns
    // (parquet-java, header module padded) rule out the absent values.
    assert!(bloom_pruned > 0, "no row group pruned by a Bloom filter");
}

/// A value of `array`'s type that no row holds and that lies between its bounds (so
/// only a Bloom filter rules it out), when one is easy to find.
fn absent_value(array: &ArrayRef) -> Option<Literal> {
    let ints: Vec<i64> = match array.data_type() {
        DataType::Int32 => array
            .as_any()
            .downcast_ref::<arrow_array::Int32Array>()?
            .iter()
            .flatten()
            .map(i64::from)
            .collect(),
        DataType::Int64 => array
            .as_any()
            .downcast_ref::<Int64Array>()?
            .iter()
            .flatten()
            .collect(),
        DataType::Float64 => {
            let values: Vec<f64> = array
                .as_any()
                .downcast_ref::<arrow_array::Float64Array>()?
                .iter()
                .flatten()
                .collect();
            let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let mid = lo + (hi - lo) * 0.4321;
            return (!values.contains(&mid)).then(|| {
                Literal::new(Arc::new(arrow_array::Float64Array::from(vec![mid])) as ArrayRef)
            });
        }
        _ => return None,
    };
    let lo = *ints.iter().min()?;
    let hi = *ints.iter().max()?;
    let absent = (lo..hi).find(|v| !ints.contains(v))?;
    Some(Literal::new(match array.data_type() {
        DataType::Int32 => Arc::new(arrow_array::Int32Array::from(vec![absent as i32])) as ArrayRef,
        _ => Arc::new(Int64Array::from(vec![absent])),
    }))
}
