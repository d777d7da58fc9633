//! The encrypted files of the parquet-testing corpus at the codec level: the footer
//! decrypts (or its signature verifies) with the keys of `INVENTORY.md`, every page of
//! every column chunk decrypts and decompresses to the values its metadata counts, and
//! each chunk's column index, offset index and Bloom filter decrypt; the offset index
//! agrees with where the pages are.

use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use herringbone_codec::compression::Codec;
use herringbone_codec::crypto::key_tools::{ExternalKeyMaterial, InMemoryKms, KmsKeyRetriever};
use herringbone_codec::crypto::{
    FileDecryptionProperties, decode_footer, decrypt_bloom_filter, decrypt_column_index,
    decrypt_offset_index,
};
use herringbone_codec::page::{PageReader, PageReaderOptions, column_chunk_range};
use herringbone_format::crypto::FooterLocation;
use herringbone_format::footer::{FooterOptions, column_index_range, offset_index_range};
use herringbone_format::schema::SchemaDescriptor;

fn keys(name: &str) -> FileDecryptionProperties {
    if name.contains("external_key_material") {
        let kms = InMemoryKms::new([
            ("kf", b"0123456789012345".to_vec()),
            ("kc1", b"1234567890123450".to_vec()),
            ("kc2", b"1234567890123451".to_vec()),
        ])
        .unwrap();
        let path = herringbone_testkit::corpus_root().join(name);
        let external = ExternalKeyMaterial::read_for(&path).unwrap();
        let retriever = KmsKeyRetriever::new(Arc::new(kms)).with_external_key_material(external);
        return FileDecryptionProperties::builder()
            .with_key_retriever(Arc::new(retriever))
            .build()
            .unwrap();
    }
    let mut builder = FileDecryptionProperties::builder();
    if name.starts_with("data/aes256/") {
        builder = builder.with_footer_key(b"01234567890123456789012345678901".to_vec());
        for (column, last) in [
            ("double_field", '2'),
            ("float_field", '3'),
            ("boolean_field", '4'),
            ("int32_field", '5'),
            ("ba_field", '6'),
            ("flba_field", '7'),
            ("int64_field.list.element", '8'),
            ("int96_field", '9'),
        ] {
            let key = format!("1234567890123456789012345678901{last}");
            builder = builder.with_column_key(column, key.into_bytes());
        }
    } else {
        builder = builder
            .with_footer_key(b"0123456789012345".to_vec())
            .with_column_key("double_field", b"1234567890123450".to_vec())
            .with_column_key("float_field", b"1234567890123451".to_vec());
    }
    if name.contains("disable_aad_storage") {
        builder = builder.with_aad_prefix(b"tester".to_vec());
    }
    builder.build().unwrap()
}

#[test]
fn every_encrypted_corpus_file_decrypts_page_by_page() {
    let files: Vec<_> = herringbone_testkit::corpus_files(&["data"])
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".encrypted"))
        .collect();
    assert_eq!(files.len(), 13);
    let (mut chunks, mut pages, mut indexes, mut blooms) = (0, 0, 0, 0);
    for relative in files {
        let name = relative.to_string_lossy().replace('\\', "/");
        let file = Bytes::from(herringbone_testkit::read_corpus_file(Path::new(&name)));
        let location = FooterLocation::of_file(&file).unwrap();
        let keys = keys(&name);
        let decoded = decode_footer(
            file.slice(location.range.clone()),
            location.encrypted_footer,
            Some(&keys),
            &FooterOptions::new().with_base_offset(location.range.start as u64),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let decryptor = decoded.decryptor.expect("an encrypted file");
        let metadata = decoded.metadata;
        let schema = SchemaDescriptor::new(&metadata.schema).unwrap();
        for (g, group) in metadata.row_groups.iter().enumerate() {
            for (c, chunk) in group.columns.iter().enumerate() {
                let path = schema.column(c).unwrap().path().dotted();
                let context = format!("{name}: column {path}, row group {g}");
                let meta = chunk
                    .meta_data
                    .as_ref()
                    .unwrap_or_else(|| panic!("{context}: no metadata"));
                let column = decryptor
                    .column(&path, chunk.crypto_metadata.as_deref(), g, c)
                    .unwrap_or_else(|e| panic!("{context}: {e}"));
                let range =
                    column_chunk_range(meta, metadata.created_by.as_deref(), file.len() as u64)
                        .unwrap();
                let bytes = file.slice(range.start as usize..range.end as usize);
                let codec = Codec::from_thrift_id(meta.codec.0).unwrap();
                let mut reader = PageReader::new(
                    bytes,
                    codec,
                    PageReaderOptions::default().with_verify_crc(true),
                )
                .with_num_values(meta.num_values as u64)
                .with_base_offset(range.start);
                if let Some(column) = column.clone() {
                    let dictionary_first = matches!(meta.dictionary_page_offset, Some(d) if d > 0 && d < meta.data_page_offset);
                    reader = reader.with_decryptor(column, dictionary_first);
                }
                let mut values = 0;
                let mut offsets = Vec::new();
                loop {
                    let offset = reader.offset();
                    match reader
                        .next_page()
                        .unwrap_or_else(|e| panic!("{context}: {e}"))
                    {
                        None => break,
                        Some(page) => {
                            if !page.is_dictionary() {
                                values += page.num_values();
                                offsets.push(offset as i64);
                            }
                            pages += 1;
                        }
                    }
                }
                assert_eq!(values as i64, meta.num_values, "{context}");
                chunks += 1;
                let Some(column) = column else { continue };
                if let Some(range) = offset_index_range(chunk, file.len()).unwrap() {
                    let index = decrypt_offset_index(&file[range], &column)
                        .unwrap_or_else(|e| panic!("{context}: {e}"));
                    let located: Vec<i64> = index.page_locations.iter().map(|l| l.offset).collect();
                    assert_eq!(located, offsets, "{context}: offset index");
                    indexes += 1;
                }
                if let Some(range) = column_index_range(chunk, file.len()).unwrap() {
                    let index = decrypt_column_index(&file[range], &column)
                        .unwrap_or_else(|e| panic!("{context}: {e}"));
                    assert_eq!(
                        index.null_pages.len(),
                        offsets.len(),
                        "{context}: column index"
                    );
                    indexes += 1;
                }
                if let Some(offset) = meta.bloom_filter_offset {
                    let start = offset as usize;
                    let end = meta
                        .bloom_filter_length
                        .map_or(file.len(), |l| start + l as usize);
                    let (_, used) = decrypt_bloom_filter(&file[start..end], &column, 1 << 24)
                        .unwrap_or_else(|e| panic!("{context}: Bloom filter: {e}"));
                    assert!(used <= end - start);
                    blooms += 1;
                }
            }
        }
    }
    println!("{chunks} chunks, {pages} pages, {indexes} page indexes, {blooms} Bloom filters");
    assert_eq!((chunks, pages, indexes, blooms), (94, 148, 118, 2));
}
