//! `ScanBuilder::byte_ranges` names every byte a scan of a row group reads (a scan over
//! an input that serves only those ranges returns what a scan of the whole file does),
//! and a scan built from `ReaderMetadata` reads no footer.

use std::ops::Range;
use std::sync::{Arc, Mutex};

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use bytes::Bytes;
use herringbone_arrow_bridge::predicate::Predicate;
use herringbone_arrow_bridge::read::{ChunkReader, ReaderMetadata};
use herringbone_arrow_bridge::scan::ScanBuilder;
use herringbone_arrow_bridge::schema::Projection;
use herringbone_arrow_bridge::write::{ArrowWriter, WriterProperties};
use herringbone_arrow_bridge::{Error, Result};

/// `a` sorted, `b` strings, `c` more strings; three row groups, small pages, page index
/// and a Bloom filter on `a`.
fn file() -> Bytes {
    file_with(WriterProperties::builder())
}

fn file_with(props: herringbone_arrow_bridge::write::WriterPropertiesBuilder) -> Bytes {
    let rows = 3_000i64;
    let a: ArrayRef = Arc::new(Int64Array::from((0..rows).collect::<Vec<_>>()));
    let b: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..rows).map(|i| format!("b{}", i % 17)),
    ));
    let c: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..rows).map(|i| format!("c{i}")),
    ));
    let batch = RecordBatch::try_from_iter([("a", a), ("b", b), ("c", c)]).unwrap();
    let props = props
        .set_max_row_group_rows(1_000)
        .set_data_page_row_limit(100)
        .set_bloom_filter("a", 0.01, 1_000)
        .build();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    Bytes::from(out)
}

/// Serves only the ranges given, and records every read.
struct OnlyThese {
    file: Bytes,
    allowed: Vec<Range<u64>>,
    reads: Mutex<Vec<Range<u64>>>,
}

impl ChunkReader for OnlyThese {
    fn len(&self) -> u64 {
        self.file.len() as u64
    }

    fn get_bytes(&self, range: Range<u64>) -> Result<Bytes> {
        self.reads.lock().unwrap().push(range.clone());
        if !self
            .allowed
            .iter()
            .any(|r| r.start <= range.start && range.end <= r.end)
        {
            return Err(Error::invalid_argument(format!(
                "{range:?} is not among the planned ranges"
            )));
        }
        self.file.get_bytes(range)
    }
}

fn values(scan: ScanBuilder<impl ChunkReader + 'static>) -> Vec<RecordBatch> {
    scan.build()
        .unwrap()
        .collect::<std::result::Result<_, _>>()
        .unwrap()
}

#[test]
fn planned_ranges_are_all_a_scan_reads() {
    let file = file();
    let footer = ReaderMetadata::load(&file).unwrap();
    let predicate = Predicate::parse("a >= 1250 AND a < 1320").unwrap();
    fn setup<T: ChunkReader + Sync + 'static>(
        input: T,
        footer: &ReaderMetadata,
        predicate: &Predicate,
    ) -> ScanBuilder<T> {
        ScanBuilder::new_with_metadata(input, footer.clone())
            .with_projection(Projection::Roots(vec![1]))
            .with_predicate(predicate.clone())
            .with_row_groups(vec![1])
    }
    let planned = setup(file.clone(), &footer, &predicate)
        .byte_ranges(1)
        .unwrap();
    // Chunks of `a` (the predicate) and `b` (the projection), `a`'s column index and
    // Bloom filter, both offset indexes; nothing of `c`.
    let group = &footer.metadata().row_groups[1];
    let chunk = |c: usize| {
        let m = group.columns[c].meta_data.as_ref().unwrap();
        let start = m.dictionary_page_offset.unwrap_or(m.data_page_offset) as u64;
        start..start + m.total_compressed_size as u64
    };
    let a = &group.columns[0];
    let index = |offset: Option<i64>, length: Option<i32>| {
        let start = offset.unwrap() as u64;
        start..start + length.unwrap() as u64
    };
    let b = &group.columns[1];
    let a_meta = a.meta_data.as_ref().unwrap();
    let mut expected = vec![
        chunk(0),
        chunk(1),
        index(a.column_index_offset, a.column_index_length),
        index(a_meta.bloom_filter_offset, a_meta.bloom_filter_length),
        // The reader jumps over pruned pages by the offset indexes of `a` and `b`,
        // which lie side by side: one fetch.
        index(a.offset_index_offset, a.offset_index_length).start
            ..index(b.offset_index_offset, b.offset_index_length).end,
    ];
    assert_eq!(
        index(a.offset_index_offset, a.offset_index_length).end,
        index(b.offset_index_offset, b.offset_index_length).start
    );
    expected.sort_unstable_by_key(|r| r.start);
    assert_eq!(planned, expected);

    // Ranges that touch are served as one, as a store fetching them would (the reader
    // reads a row group's offset indexes, which lie side by side, in one request).
    let mut merged: Vec<Range<u64>> = Vec::new();
    for range in planned {
        match merged.last_mut() {
            Some(last) if last.end == range.start => last.end = range.end,
            _ => merged.push(range),
        }
    }
    let served = OnlyThese {
        file: file.clone(),
        allowed: merged,
        reads: Mutex::new(Vec::new()),
    };
    let from_plan = values(setup(served, &footer, &predicate));
    let whole = values(setup(file.clone(), &footer, &predicate));
    assert_eq!(from_plan, whole);
    let rows: usize = whole.iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 70);
    let b = whole[0]
        .column(0)
        .as_any()
        .downcast_ref::<StringArray>()
        .unwrap();
    assert_eq!(b.value(0), format!("b{}", 1250 % 17));
}

#[test]
fn a_scan_from_reader_metadata_reads_no_footer() {
    let file = file();
    let footer = ReaderMetadata::load(&file).unwrap();
    let len = file.len() as u64;
    let input = Arc::new(OnlyThese {
        file: file.clone(),
        allowed: std::iter::once(0..len).collect(),
        reads: Mutex::new(Vec::new()),
    });
    for _ in 0..2 {
        let scan = ScanBuilder::new_with_metadata(SharedInput(input.clone()), footer.clone())
            .with_projection(Projection::Roots(vec![2]));
        let rows: usize = values(scan).iter().map(|b| b.num_rows()).sum();
        assert_eq!(rows, 3_000);
    }
    let footer_start = len
        - 8
        - u32::from_le_bytes(file[file.len() - 8..file.len() - 4].try_into().unwrap()) as u64;
    let reads = input.reads.lock().unwrap();
    assert!(!reads.is_empty());
    assert!(
        reads.iter().all(|r| r.end <= footer_start && r.start >= 4),
        "{reads:?}"
    );
}

struct SharedInput(Arc<OnlyThese>);

impl ChunkReader for SharedInput {
    fn len(&self) -> u64 {
        self.0.len()
    }

    fn get_bytes(&self, range: Range<u64>) -> Result<Bytes> {
        self.0.get_bytes(range)
    }
}

/// Serves only the ranges given, handing out what a range holds when the page reader
/// asks for more than it needs (as an engine's prefetched blocks do).
struct OnlyTheseWithin(OnlyThese);

impl ChunkReader for OnlyTheseWithin {
    fn len(&self) -> u64 {
        self.0.len()
    }

    fn get_bytes(&self, range: Range<u64>) -> Result<Bytes> {
        self.0.get_bytes(range)
    }

    fn get_bytes_within(&self, range: Range<u64>, needed_end: u64) -> Result<Bytes> {
        let holding = self
            .0
            .allowed
            .iter()
            .find(|r| r.start <= range.start && needed_end <= r.end);
        match holding {
            Some(r) => self.0.get_bytes(range.start..range.end.min(r.end)),
            None => self.0.get_bytes(range),
        }
    }
}

fn merged(mut ranges: Vec<Range<u64>>) -> Vec<Range<u64>> {
    ranges.sort_unstable_by_key(|r| (r.start, r.end));
    let mut out: Vec<Range<u64>> = Vec::new();
    for range in ranges {
        match out.last_mut() {
            Some(last) if last.end >= range.start => last.end = last.end.max(range.end),
            _ => out.push(range),
        }
    }
    out
}

fn bytes_of(ranges: &[Range<u64>]) -> u64 {
    ranges.iter().map(|r| r.end - r.start).sum()
}

#[test]
fn index_ranges_then_pruned_ranges_are_all_a_scan_reads() {
    // Plain pages (no dictionary page holding every value before them): the bytes of
    // a chunk are its data pages', ten of them per chunk.
    let file = file_with(WriterProperties::builder().set_dictionary_enabled(false));
    let footer = ReaderMetadata::load(&file).unwrap();
    let setup = |input: Bytes, predicate: &Predicate, group: usize| {
        ScanBuilder::new_with_metadata(input, footer.clone())
            .with_projection(Projection::Roots(vec![1, 2]))
            .with_predicate(predicate.clone())
            .with_row_groups(vec![group])
    };
    // (predicate, row group, rows, whether the page index narrows the chunks)
    let cases = [
        ("a >= 1250 AND a < 1320", 1, 70, true),
        ("a = 2999", 2, 1, true),
        ("a >= 100 AND a < 150 OR a >= 910 AND a < 920", 0, 60, true),
        ("b = 'b3'", 1, 59, false),
        ("a < 0", 0, 0, true),
    ];
    for (text, group, rows, narrowed) in cases {
        let predicate = Predicate::parse(text).unwrap();
        let planner = setup(file.clone(), &predicate, group);
        let indexes = planner.index_ranges(group).unwrap();
        let pages = planner.pruned_byte_ranges(group).unwrap();
        let whole = planner.byte_ranges(group).unwrap();
        // The indexes alone serve pruning.
        let only_indexes = ScanBuilder::new_with_metadata(
            OnlyTheseWithin(OnlyThese {
                file: file.clone(),
                allowed: merged(indexes.clone()),
                reads: Mutex::new(Vec::new()),
            }),
            footer.clone(),
        )
        .with_projection(Projection::Roots(vec![1, 2]))
        .with_predicate(predicate.clone())
        .with_row_groups(vec![group]);
        assert_eq!(
            only_indexes.pruned_byte_ranges(group).unwrap(),
            pages,
            "{text}"
        );
        // The indexes and the pages serve the scan.
        let served = OnlyTheseWithin(OnlyThese {
            file: file.clone(),
            allowed: merged(indexes.iter().chain(&pages).cloned().collect()),
            reads: Mutex::new(Vec::new()),
        });
        let scan = ScanBuilder::new_with_metadata(served, footer.clone())
            .with_projection(Projection::Roots(vec![1, 2]))
            .with_predicate(predicate.clone())
            .with_row_groups(vec![group]);
        let from_pages = values(scan);
        let expected = values(setup(file.clone(), &predicate, group));
        assert_eq!(from_pages, expected, "{text}");
        let got: usize = from_pages.iter().map(|b| b.num_rows()).sum();
        assert_eq!(got, rows, "{text}");
        let chunk_bytes = bytes_of(&whole) - bytes_of(&merged(indexes.clone()));
        if rows == 0 {
            assert!(pages.is_empty(), "{text}: {pages:?}");
        } else if narrowed {
            assert!(
                bytes_of(&pages) * 3 < chunk_bytes,
                "{text}: {} of {chunk_bytes} bytes",
                bytes_of(&pages)
            );
        } else {
            assert_eq!(bytes_of(&pages), chunk_bytes, "{text}");
        }
    }
    // Dictionary-encoded chunks: their dictionary pages are fetched with the pages.
    let dictionary_file = self::file();
    let predicate = Predicate::parse("a >= 1250 AND a < 1320").unwrap();
    let planner = ScanBuilder::new_with_metadata(
        dictionary_file.clone(),
        ReaderMetadata::load(&dictionary_file).unwrap(),
    )
    .with_projection(Projection::Roots(vec![1, 2]))
    .with_predicate(predicate.clone())
    .with_row_groups(vec![1]);
    let allowed = merged(
        planner
            .index_ranges(1)
            .unwrap()
            .into_iter()
            .chain(planner.pruned_byte_ranges(1).unwrap())
            .collect(),
    );
    let served = planner.build().unwrap();
    let expected: Vec<RecordBatch> = served.collect::<std::result::Result<_, _>>().unwrap();
    let footer = ReaderMetadata::load(&dictionary_file).unwrap();
    let scan = ScanBuilder::new_with_metadata(
        OnlyTheseWithin(OnlyThese {
            file: dictionary_file.clone(),
            allowed,
            reads: Mutex::new(Vec::new()),
        }),
        footer.clone(),
    )
    .with_projection(Projection::Roots(vec![1, 2]))
    .with_predicate(predicate)
    .with_row_groups(vec![1]);
    let got = values(scan);
    assert_eq!(got, expected);
    assert_eq!(got.iter().map(|b| b.num_rows()).sum::<usize>(), 70);

    // Without a predicate: no indexes, the whole chunks.
    let plain = ScanBuilder::new_with_metadata(file.clone(), footer.clone())
        .with_projection(Projection::Roots(vec![2]));
    assert!(plain.index_ranges(0).unwrap().is_empty());
    assert_eq!(
        plain.pruned_byte_ranges(0).unwrap(),
        plain.byte_ranges(0).unwrap()
    );
}
