//! Every page of every non-encrypted corpus file, walked with CRC verification on: each
//! page decompresses to its declared size, CRCs verify where present, the corrupt-CRC
//! files fail exactly at their bad pages, and the bad files never panic.

use std::collections::BTreeSet;
use std::path::Path;

use bytes::Bytes;
use herringbone_codec::ErrorKind;
use herringbone_codec::compression::Codec;
use herringbone_codec::page::{Page, PageReader, PageReaderOptions, column_chunk_range};
use herringbone_format::metadata::{ColumnMetaData, FileMetaData};

/// Files with pages too large to decompress in a test on a shared machine: only their
/// pages up to [`SMALL_PAGE`] bytes are decompressed, the others only have their
/// headers read.
const HEADERS_ONLY: &[&str] = &["large_string_map.brotli.parquet"];
const SMALL_PAGE: i32 = 64 << 20;

/// (file, column index, page index) of every page with a wrong CRC.
const CORRUPT_CRC_PAGES: &[(&str, usize, usize)] = &[
    ("data/datapage_v1-corrupt-checksum.parquet", 0, 0),
    ("data/datapage_v1-corrupt-checksum.parquet", 1, 1),
    ("data/rle-dict-uncompressed-corrupt-checksum.parquet", 0, 0),
    ("data/rle-dict-uncompressed-corrupt-checksum.parquet", 1, 0),
];

fn chunk_range(
    meta: &ColumnMetaData,
    created_by: Option<&str>,
    file_len: usize,
) -> Result<(usize, usize), String> {
    column_chunk_range(meta, created_by, file_len as u64)
        .map(|r| (r.start as usize, r.end as usize))
        .map_err(|e| e.to_string())
}

#[derive(Default, Debug)]
struct Walk {
    pages: usize,
    crc_checked: usize,
    /// (column, page index) of pages that failed with a checksum error.
    checksum_failures: Vec<(usize, usize)>,
    /// Other errors, with where they happened.
    errors: Vec<String>,
    /// Pages decompressed (not just skipped), per codec.
    decoded_per_codec: std::collections::BTreeMap<&'static str, usize>,
}

fn walk_file(bytes: &Bytes, metadata: &FileMetaData, headers_only: bool) -> Walk {
    let mut walk = Walk::default();
    let options = PageReaderOptions::default().with_verify_crc(true);
    for (rg, row_group) in metadata.row_groups.iter().enumerate() {
        for (col, chunk) in row_group.columns.iter().enumerate() {
            let Some(meta) = chunk.meta_data.as_ref() else {
                continue;
            };
            if chunk.crypto_metadata.is_some() {
                continue;
            }
            let (start, end) = match chunk_range(meta, metadata.created_by.as_deref(), bytes.len())
            {
                Ok(range) => range,
                Err(e) => {
                    walk.errors
                        .push(format!("row group {rg} column {col}: {e}"));
                    continue;
                }
            };
            let codec = match Codec::try_from(meta.codec) {
                Ok(codec) => codec,
                Err(e) => {
                    walk.errors
                        .push(format!("row group {rg} column {col}: {e}"));
                    continue;
                }
            };
            let num_values = u64::try_from(meta.num_values).unwrap_or(0);
            let mut reader = PageReader::new(bytes.slice(start..end), codec, options)
                .with_base_offset(start as u64)
                .with_num_values(num_values);
            let mut values = 0i64;
            loop {
                let index = reader.page_index();
                let (has_crc, too_large) = match reader.peek_header() {
                    Ok(Some(header)) => (
                        header.crc.is_some(),
                        headers_only && header.uncompressed_page_size > SMALL_PAGE,
                    ),
                    _ => (false, false),
                };
                if has_crc && !too_large {
                    walk.crc_checked += 1;
                }
                // (is a dictionary page, values in the page)
                let result = if too_large {
                    reader.skip_page().map(|header| {
                        header.map(|h| {
                            let data_values = h.data_page_header.map(|d| d.num_values);
                            (data_values.is_none(), data_values.unwrap_or(0) as usize)
                        })
                    })
                } else {
                    reader
                        .next_page()
                        .map(|page| page.map(|p| (p.is_dictionary(), p.num_values())))
                };
                match result {
                    Ok(None) => break,
                    Ok(Some((is_dictionary, page_values))) => {
                        walk.pages += 1;
                        if !too_large {
                            *walk.decoded_per_codec.entry(codec.name()).or_default() += 1;
                        }
                        if !is_dictionary {
                            values += page_values as i64;
                        }
                    }
                    Err(e) if e.kind() == ErrorKind::Checksum => {
                        walk.checksum_failures.push((col, index));
                        // Carry on after the bad page, as a lenient reader would.
                        let mut rest =
                            reader_after(bytes, start, end, codec, options, index + 1, num_values);
                        while let Some(next) = rest.next() {
                            match next {
                                Ok(page) => {
                                    walk.pages += 1;
                                    if !page.is_dictionary() {
                                        values += page.num_values() as i64;
                                    }
                                }
                                Err(e) if e.kind() == ErrorKind::Checksum => {
                                    let bad = rest.page_index() - 1;
                                    walk.checksum_failures.push((col, bad));
                                    rest = reader_after(
                                        bytes,
                                        start,
                                        end,
                                        codec,
                                        options,
                                        bad + 1,
                                        num_values,
                                    );
                                }
                                Err(e) => {
                                    walk.errors
                                        .push(format!("row group {rg} column {col}: {e}"));
                                    break;
                                }
                            }
                        }
                        break;
                    }
                    Err(e) => {
                        walk.errors
                            .push(format!("row group {rg} column {col}: {e}"));
                        break;
                    }
                }
            }
            if values != meta.num_values && !chunk_failed(&walk, col) {
                walk.errors.push(format!(
                    "row group {rg} column {col}: data pages hold {values} values, the chunk metadata says {}",
                    meta.num_values
                ));
            }
        }
    }
    walk
}

fn chunk_failed(walk: &Walk, col: usize) -> bool {
    walk.checksum_failures.iter().any(|&(c, _)| c == col)
        || walk
            .errors
            .iter()
            .any(|e| e.contains(&format!("column {col}:")))
}

/// A reader positioned at page `skip` of a chunk (the pages before it skipped unread).
fn reader_after(
    bytes: &Bytes,
    start: usize,
    end: usize,
    codec: Codec,
    options: PageReaderOptions,
    skip: usize,
    num_values: u64,
) -> PageReader {
    let mut reader = PageReader::new(bytes.slice(start..end), codec, options)
        .with_base_offset(start as u64)
        .with_num_values(num_values);
    for _ in 0..skip {
        reader.skip_page().expect("header read before");
    }
    reader
}

fn file_name(path: &Path) -> &str {
    path.file_name().and_then(|n| n.to_str()).unwrap_or("")
}

#[test]
fn every_page_of_every_good_file_decompresses_and_verifies() {
    let files = herringbone_testkit::corpus_files(&["data", "shredded_variant"]);
    assert!(
        files.len() > 50,
        "corpus looks incomplete: {} files",
        files.len()
    );
    let mut walked = 0;
    let mut total_pages = 0;
    let mut total_crc = 0;
    let mut seen_corrupt = BTreeSet::new();
    let mut decoded_per_codec = std::collections::BTreeMap::new();
    let mut failures = Vec::new();
    for rel in &files {
        let name = rel.to_string_lossy().replace('\\', "/");
        if name.ends_with(".encrypted") {
            continue;
        }
        let bytes = Bytes::from(herringbone_testkit::read_corpus_file(rel));
        let metadata = match herringbone_format::footer::read_metadata(&bytes) {
            Ok(m) => m,
            Err(e) if e.kind() == herringbone_format::ErrorKind::Encrypted => continue,
            Err(e) => {
                failures.push(format!("{name}: footer: {e}"));
                continue;
            }
        };
        let headers_only = HEADERS_ONLY.contains(&file_name(rel));
        if headers_only {
            println!(
                "{name}: pages decompress to more than 2 GiB; decompressing only pages under 64 MiB"
            );
        }
        let walk = walk_file(&bytes, &metadata, headers_only);
        walked += 1;
        total_pages += walk.pages;
        total_crc += walk.crc_checked;
        for (codec, pages) in &walk.decoded_per_codec {
            *decoded_per_codec.entry(*codec).or_insert(0usize) += pages;
        }
        let expected: Vec<(usize, usize)> = CORRUPT_CRC_PAGES
            .iter()
            .filter(|(file, _, _)| *file == name)
            .map(|&(_, col, page)| (col, page))
            .collect();
        if walk.checksum_failures != expected {
            failures.push(format!(
                "{name}: checksum failures at (column, page) {:?}, expected {expected:?}",
                walk.checksum_failures
            ));
        }
        if !expected.is_empty() {
            seen_corrupt.insert(name.clone());
        }
        for error in walk.errors {
            failures.push(format!("{name}: {error}"));
        }
    }
    println!("walked {walked} files, {total_pages} pages, {total_crc} with a CRC");
    println!("pages decompressed per codec: {decoded_per_codec:?}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        seen_corrupt.len(),
        2,
        "both corrupt-checksum files were walked"
    );
    assert!(total_crc > 50, "only {total_crc} pages carried a CRC");
    for codec in [
        "UNCOMPRESSED",
        "SNAPPY",
        "GZIP",
        "BROTLI",
        "LZ4",
        "LZ4_RAW",
        "ZSTD",
    ] {
        assert!(
            decoded_per_codec.get(codec).is_some_and(|&n| n > 0),
            "no {codec} page decompressed: {decoded_per_codec:?}"
        );
    }
}

#[test]
fn bad_files_never_panic() {
    let mut count = 0;
    for rel in herringbone_testkit::corpus_files(&["bad_data"]) {
        let bytes = Bytes::from(herringbone_testkit::read_corpus_file(&rel));
        let Ok(metadata) = herringbone_format::footer::read_metadata(&bytes) else {
            continue;
        };
        let walk = walk_file(&bytes, &metadata, false);
        println!(
            "{}: {} pages, {} errors {:?}",
            rel.display(),
            walk.pages,
            walk.errors.len(),
            walk.errors.first()
        );
        count += 1;
    }
    assert!(count > 0, "no bad_data file had a readable footer");
}

fn first_chunk_pages(rel: &str, column: usize) -> Vec<Page> {
    let bytes = Bytes::from(herringbone_testkit::read_corpus_file(Path::new(rel)));
    let metadata = herringbone_format::footer::read_metadata(&bytes).unwrap();
    let meta = metadata.row_groups[0].columns[column]
        .meta_data
        .as_ref()
        .unwrap();
    let (start, end) = chunk_range(meta, metadata.created_by.as_deref(), bytes.len()).unwrap();
    let codec = Codec::try_from(meta.codec).unwrap();
    PageReader::new(bytes.slice(start..end), codec, PageReaderOptions::default())
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

#[test]
fn concatenated_gzip_members_decode_to_all_values() {
    let pages = first_chunk_pages("data/concatenated_gzip_members.parquet", 0);
    assert_eq!(pages.len(), 1);
    let Page::DataV2 {
        values, num_values, ..
    } = &pages[0]
    else {
        panic!("expected a v2 page, got {:?}", pages[0]);
    };
    assert_eq!(*num_values, 513);
    assert_eq!(values.len(), 513 * 8);
    let oracle =
        herringbone_testkit::oracle(Path::new("data/concatenated_gzip_members.parquet")).unwrap();
    let rows = oracle["rows"].as_array().unwrap();
    let column = oracle["columns"][0]["name"].as_str().unwrap();
    // The page is PLAIN UINT64 of a column with no nulls: compare the first and last value.
    let first = u64::from_le_bytes(values[..8].try_into().unwrap());
    let last = u64::from_le_bytes(values[values.len() - 8..].try_into().unwrap());
    assert_eq!(rows[0][column].as_u64(), Some(first));
    assert_eq!(rows[512][column].as_u64(), Some(last));
}

#[test]
fn lz4_variants_decode() {
    for rel in [
        "data/hadoop_lz4_compressed.parquet",
        "data/non_hadoop_lz4_compressed.parquet",
        "data/lz4_raw_compressed.parquet",
    ] {
        for column in 0..3 {
            let pages = first_chunk_pages(rel, column);
            let data_values: usize = pages
                .iter()
                .filter(|p| !p.is_dictionary())
                .map(Page::num_values)
                .sum();
            assert_eq!(data_values, 4, "{rel} column {column}");
        }
    }
    for rel in [
        "data/hadoop_lz4_compressed_larger.parquet",
        "data/lz4_raw_compressed_larger.parquet",
    ] {
        let pages = first_chunk_pages(rel, 0);
        assert_eq!(
            pages.iter().map(Page::num_values).sum::<usize>(),
            10000,
            "{rel}"
        );
    }
}

#[test]
fn empty_v2_pages() {
    // One null FLOAT: the v2 page is all definition levels, its values section is 0
    // bytes and must not reach the snappy decoder (0 bytes is not a snappy stream).
    let pages = first_chunk_pages("data/datapage_v2_empty_datapage.snappy.parquet", 0);
    assert_eq!(pages.len(), 1);
    let Page::DataV2 {
        rep_levels,
        def_levels,
        values,
        num_nulls,
        ..
    } = &pages[0]
    else {
        panic!("expected a v2 page, got {:?}", pages[0]);
    };
    assert!(rep_levels.is_empty());
    assert_eq!(def_levels.len(), 2);
    assert!(values.is_empty());
    assert_eq!(*num_nulls, 1);

    // All-null INT32: the dictionary page is a ZSTD frame that decompresses to 0 bytes.
    let pages = first_chunk_pages("data/page_v2_empty_compressed.parquet", 0);
    assert_eq!(pages.len(), 2);
    let Page::Dictionary {
        values, num_values, ..
    } = &pages[0]
    else {
        panic!("expected the dictionary page, got {:?}", pages[0]);
    };
    assert!(values.is_empty());
    assert_eq!(*num_values, 0);
    let Page::DataV2 {
        values, num_nulls, ..
    } = &pages[1]
    else {
        panic!("expected a v2 page, got {:?}", pages[1]);
    };
    // RLE_DICTIONARY values of an all-null page: just the bit-width byte.
    assert_eq!(values.len(), 1);
    assert_eq!(*num_nulls, 10);
}
