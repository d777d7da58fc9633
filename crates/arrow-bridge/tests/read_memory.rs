//! Peak memory of a read, under a counting allocator: the reader holds about one page of
//! each column's chunk (fetched page by page), one decompressed page per column and the
//! batch being built, so its peak must stay within about that, whatever the size of the
//! file, of its row groups or of its pages: a page of 16 million values is decoded a
//! batch at a time, never as one buffer.
//!
//! The tests take turns (one lock): the counters see the whole process.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use arrow_array::builder::{Int32Builder, ListBuilder, MapBuilder, StringBuilder, StructBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field};
use bytes::Bytes;
use common::built::{self, Chunk};
use herringbone_arrow_bridge::read::{ChunkReader, ParquetRecordBatchReaderBuilder};
use herringbone_codec::compression::Codec;
use herringbone_codec::page::{PageReader, PageReaderOptions};
use herringbone_format::metadata::{Encoding, FileMetaData};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

/// The tests measure one at a time.
static TURN: Mutex<()> = Mutex::new(());

struct CountingAllocator;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call forwards to the system allocator with the caller's arguments
// unchanged; the counters only observe sizes.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is; the caller upholds `GlobalAlloc::alloc`'s contract.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above with this `layout`.
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

const ROWS: usize = 800_000;
const ROWS_PER_GROUP: usize = 100_000;

fn sample_batch(start: usize, rows: usize) -> RecordBatch {
    let ids: ArrayRef = Arc::new(Int64Array::from_iter(
        (start..start + rows).map(|i| (i % 2 == 0).then_some(i as i64 * 7919)),
    ));
    let names: ArrayRef = Arc::new(StringArray::from_iter_values(
        (start..start + rows).map(|i| format!("name-{:08}-{}", i, i % 13)),
    ));
    let mut lists = ListBuilder::new(Int32Builder::new());
    for i in start..start + rows {
        for j in 0..i % 4 {
            lists.values().append_value((i + j) as i32);
        }
        lists.append(i % 11 != 0);
    }
    let lists: ArrayRef = Arc::new(lists.finish());
    RecordBatch::try_from_iter([("id", ids), ("name", names), ("values", lists)]).unwrap()
}

#[test]
fn peak_memory_stays_within_a_batch_and_a_row_group() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let path = std::env::temp_dir().join(format!("hb-read-memory-{}.parquet", std::process::id()));
    {
        let file = std::fs::File::create(&path).unwrap();
        let properties = WriterProperties::builder()
            .set_max_row_group_row_count(Some(ROWS_PER_GROUP))
            .set_compression(Compression::SNAPPY)
            .build();
        let mut writer =
            ArrowWriter::try_new(file, sample_batch(0, 1).schema(), Some(properties)).unwrap();
        for start in (0..ROWS).step_by(50_000) {
            writer.write(&sample_batch(start, 50_000)).unwrap();
        }
        writer.close().unwrap();
    }
    let file_size = std::fs::metadata(&path).unwrap().len() as usize;

    let builder =
        ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&path).unwrap()).unwrap();
    let largest_group = builder
        .metadata()
        .row_groups
        .iter()
        .map(|g| g.total_compressed_size.unwrap_or(g.total_byte_size) as usize)
        .max()
        .unwrap();
    let reader = builder.with_batch_size(8192).build().unwrap();

    let baseline = CURRENT.load(Ordering::Relaxed);
    PEAK.store(baseline, Ordering::Relaxed);
    let mut rows = 0;
    let mut largest_batch = 0;
    for batch in reader {
        let batch = batch.unwrap();
        rows += batch.num_rows();
        largest_batch = largest_batch.max(batch.get_array_memory_size());
    }
    let peak = PEAK.load(Ordering::Relaxed) - baseline;
    std::fs::remove_file(&path).unwrap();

    println!(
        "file {file_size} bytes, largest row group {largest_group} bytes, largest batch \
         {largest_batch} bytes, peak while reading {peak} bytes"
    );
    assert_eq!(rows, ROWS);
    let bound = 4 * (largest_batch + largest_group);
    assert!(
        peak <= bound,
        "peak {peak} bytes exceeds 4 x (batch {largest_batch} + row group {largest_group})"
    );
    // And far below the file: the reader streams.
    assert!(
        peak < file_size / 2,
        "peak {peak} of a {file_size}-byte file"
    );
}

/// The largest uncompressed data page of each leaf column of row group `group`, and its
/// dictionary page (which lives as long as the chunk), summed: what one decompressed
/// page per column takes.
fn one_page_per_column(input: &dyn ChunkReader, metadata: &FileMetaData, group: usize) -> usize {
    let mut total = 0;
    for chunk in &metadata.row_groups[group].columns {
        let meta = chunk.meta_data.as_ref().unwrap();
        let start = meta
            .dictionary_page_offset
            .filter(|&d| d > 0)
            .unwrap_or(meta.data_page_offset) as u64;
        let bytes = input
            .get_bytes(start..start + meta.total_compressed_size as u64)
            .unwrap();
        let mut pages = PageReader::new(bytes, Codec::Uncompressed, PageReaderOptions::default());
        let mut largest = 0;
        while let Some(header) = pages.skip_page().unwrap() {
            let size = header.uncompressed_page_size as usize;
            if header.type_ == herringbone_format::metadata::PageType::DICTIONARY_PAGE {
                total += size;
            } else {
                largest = largest.max(size);
            }
        }
        total += largest;
    }
    total
}

/// Reads `input` whole in batches of 8,192 rows and returns (rows, largest batch,
/// peak bytes allocated while reading).
fn measure<T: ChunkReader + 'static>(input: T) -> (usize, usize, usize) {
    let reader = ParquetRecordBatchReaderBuilder::try_new(input)
        .unwrap()
        .with_batch_size(8192)
        .build()
        .unwrap();
    let baseline = CURRENT.load(Ordering::Relaxed);
    PEAK.store(baseline, Ordering::Relaxed);
    let mut rows = 0;
    let mut largest_batch = 0;
    for batch in reader {
        let batch = batch.unwrap();
        rows += batch.num_rows();
        largest_batch = largest_batch.max(batch.get_array_memory_size());
    }
    (rows, largest_batch, PEAK.load(Ordering::Relaxed) - baseline)
}

/// The shape of the issue: 16,777,216 rows of 48 optional INT64 columns, each column
/// one dictionary-encoded data page holding one RLE run of levels and one of indices
/// (a few hundred bytes a column). Decoded a page at a time, each page would be 128 MiB.
pub fn one_page_columns(columns: usize, rows: usize) -> Vec<u8> {
    let fields: String = (0..columns)
        .map(|c| format!("optional int64 c{c}; "))
        .collect();
    let chunks = (0..columns)
        .map(|c| {
            let mut dictionary = Vec::new();
            herringbone_codec::encoding::plain::encode_fixed(&[c as i64 * 1000], &mut dictionary);
            Chunk::new(Codec::Snappy).dictionary(&dictionary, 1).v1(
                &[],
                &built::level_run(1, rows, 1, true),
                &built::index_run(0, rows, 0),
                rows,
                Encoding::RLE_DICTIONARY,
            )
        })
        .collect();
    built::file(&format!("message m {{ {fields}}}"), rows as i64, chunks)
}

#[test]
fn a_page_of_16_million_values_costs_a_batch_not_a_page() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let rows = 16_777_216;
    let file = Bytes::from(one_page_columns(48, rows));
    let metadata = herringbone_format::footer::read_metadata(&file).unwrap();
    let chunks = metadata.row_groups[0].total_byte_size as usize;
    let pages = one_page_per_column(&file, &metadata, 0);
    let (read, largest_batch, peak) = measure(file.clone());
    println!(
        "file {} bytes, chunks {chunks}, one page per column {pages}, largest batch \
         {largest_batch}, peak {peak}",
        file.len()
    );
    assert_eq!(read, rows, "every row counted");
    // About one batch (the one being built; the one before it is dropped), the chunks
    // (here inside the file's own buffer), one decompressed page per column.
    let bound = 2 * largest_batch + chunks + pages + (1 << 20);
    assert!(peak <= bound, "peak {peak} bytes over {bound}");
    // A batch of 8,192 rows of 48 INT64 columns is 3 MiB.
    assert!(
        (48 * 8192 * 8..4 << 20).contains(&largest_batch),
        "{largest_batch}"
    );
    // And the values are the dictionary's, in every column.
    let last = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .with_offset(rows - 1)
        .build()
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(last.num_rows(), 1);
    assert_eq!(last.column(47).as_primitive::<Int64Type>().value(0), 47_000);
}

/// A nested, nullable, string-heavy table: a struct of a long nullable string, a list
/// of strings and a map of strings.
fn nested_strings(start: usize, rows: usize) -> RecordBatch {
    let mut people = StructBuilder::from_fields(
        vec![
            Field::new("name", DataType::Utf8, true),
            Field::new(
                "tags",
                DataType::List(Arc::new(Field::new_list_field(DataType::Utf8, true))),
                true,
            ),
        ],
        rows,
    );
    let mut attributes = MapBuilder::new(None, StringBuilder::new(), StringBuilder::new());
    for i in start..start + rows {
        let name = people.field_builder::<StringBuilder>(0).unwrap();
        if i % 5 == 0 {
            name.append_null();
        } else {
            name.append_value(format!("{i:012}-{}", "abcdefghij".repeat(1 + i % 9)));
        }
        let tags = people
            .field_builder::<ListBuilder<Box<dyn arrow_array::builder::ArrayBuilder>>>(1)
            .unwrap();
        let tag_values = tags
            .values()
            .as_any_mut()
            .downcast_mut::<StringBuilder>()
            .unwrap();
        for j in 0..i % 4 {
            tag_values.append_value(format!("tag-{}-{j}", i % 1000));
        }
        tags.append(i % 13 != 0);
        people.append(i % 17 != 0);
        for j in 0..i % 3 {
            attributes.keys().append_value(format!("key{j}"));
            attributes.values().append_value(format!("value-{i}-{j}"));
        }
        attributes.append(i % 19 != 0).unwrap();
    }
    let people: ArrayRef = Arc::new(people.finish());
    let attributes: ArrayRef = Arc::new(attributes.finish());
    RecordBatch::try_from_iter([("person", people), ("attributes", attributes)]).unwrap()
}

#[test]
fn a_nested_nullable_string_heavy_file_costs_a_batch_a_row_group_and_a_page_per_column() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let path = std::env::temp_dir().join(format!(
        "hb-read-memory-nested-{}.parquet",
        std::process::id()
    ));
    let rows = 400_000;
    {
        let file = std::fs::File::create(&path).unwrap();
        let properties = WriterProperties::builder()
            .set_max_row_group_row_count(Some(200_000))
            .set_compression(Compression::SNAPPY)
            .build();
        let mut writer =
            ArrowWriter::try_new(file, nested_strings(0, 1).schema(), Some(properties)).unwrap();
        for start in (0..rows).step_by(50_000) {
            writer.write(&nested_strings(start, 50_000)).unwrap();
        }
        writer.close().unwrap();
    }
    let file = std::fs::File::open(&path).unwrap();
    let metadata = herringbone_arrow_bridge::read::read_metadata(&file).unwrap();
    let mut bound_parts = (0, 0);
    for group in 0..metadata.row_groups.len() {
        let chunks = metadata.row_groups[group]
            .total_compressed_size
            .unwrap_or(metadata.row_groups[group].total_byte_size) as usize;
        let pages = one_page_per_column(&file, &metadata, group);
        bound_parts.0 = bound_parts.0.max(chunks);
        bound_parts.1 = bound_parts.1.max(pages);
    }
    let (read, largest_batch, peak) = measure(file);
    std::fs::remove_file(&path).unwrap();
    let (chunks, pages) = bound_parts;
    println!(
        "chunks {chunks}, one page per column {pages}, largest batch {largest_batch}, peak {peak}"
    );
    assert_eq!(read, rows);
    let bound = 2 * largest_batch + chunks + pages + (1 << 20);
    assert!(peak <= bound, "peak {peak} bytes over {bound}");
}

/// Writes `rows` rows of [`nested_strings`] with arrow-rs's defaults but for the
/// compression (none, as arrow-rs writes by default) and one row group, and returns the
/// file's path.
fn uncompressed_one_group(name: &str, rows: usize) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!(
        "hb-read-memory-{name}-{}.parquet",
        std::process::id()
    ));
    let file = std::fs::File::create(&path).unwrap();
    let properties = WriterProperties::builder()
        .set_max_row_group_row_count(Some(rows))
        .set_compression(Compression::UNCOMPRESSED)
        .build();
    let mut writer =
        ArrowWriter::try_new(file, nested_strings(0, 1).schema(), Some(properties)).unwrap();
    for start in (0..rows).step_by(50_000) {
        writer
            .write(&nested_strings(start, 50_000.min(rows - start)))
            .unwrap();
    }
    writer.close().unwrap();
    path
}

/// The bytes an array's values need: the lengths (not capacities) of its buffers, its
/// validity bitmap and its children's, each counted where it is used.
fn bytes_needed(data: &arrow_data::ArrayData) -> usize {
    let offset_bits = data.offset();
    let nulls = data
        .nulls()
        .map_or(0, |n| (n.len() + offset_bits % 8).div_ceil(8));
    let own: usize = data.buffers().iter().map(|b| b.len()).sum();
    own + nulls + data.child_data().iter().map(bytes_needed).sum::<usize>()
}

#[test]
fn a_row_group_is_read_a_page_per_column_not_held_whole() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let path = uncompressed_one_group("one-group", 400_000);
    let file = std::fs::File::open(&path).unwrap();
    let metadata = herringbone_arrow_bridge::read::read_metadata(&file).unwrap();
    assert_eq!(metadata.row_groups.len(), 1);
    let group = metadata.row_groups[0].total_byte_size as usize;
    let pages = one_page_per_column(&file, &metadata, 0);
    let columns = metadata.row_groups[0].columns.len();
    let (read, largest_batch, peak) = measure(file);
    std::fs::remove_file(&path).unwrap();
    println!(
        "row group {group} bytes, {columns} columns, one page per column {pages}, largest \
         batch {largest_batch}, peak {peak}"
    );
    assert_eq!(read, 400_000);
    // The batch being built and the one before it, about a page per column (a page the
    // reader holds, the page a column decodes, and the look-ahead of each fetch), never
    // the row group's chunks.
    let bound = 2 * largest_batch + 2 * pages + columns * (128 << 10) + (1 << 20);
    assert!(peak <= bound, "peak {peak} bytes over {bound}");
    assert!(
        peak < group / 4,
        "peak {peak} bytes for a row group of {group} bytes: the chunks were held"
    );
}

/// Every batch of the file at `path`, read with the defaults; the file is removed.
fn read_and_remove(path: &std::path::Path) -> Vec<RecordBatch> {
    let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(path).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let batches = reader.map(|b| b.unwrap()).collect();
    std::fs::remove_file(path).unwrap();
    batches
}

/// Column `c` of `batches`: the bytes its arrays hold (`get_array_memory_size`) and the
/// bytes their values need ([`bytes_needed`]).
fn held_and_needed(batches: &[RecordBatch], c: usize) -> (usize, usize) {
    let held = batches
        .iter()
        .map(|b| b.column(c).get_array_memory_size())
        .sum();
    let needed = batches
        .iter()
        .map(|b| bytes_needed(&b.column(c).to_data()))
        .sum();
    (held, needed)
}

#[test]
fn kept_batches_hold_about_what_their_values_need() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let path = uncompressed_one_group("kept", 200_000);
    let batches = read_and_remove(&path);
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 200_000);
    let schema = batches[0].schema();
    for (c, field) in schema.fields().iter().enumerate() {
        let (held, needed) = held_and_needed(&batches, c);
        println!("{}: held {held} bytes, values need {needed}", field.name());
        // Capacity reserved beyond the values (and arrays pinning larger buffers) stays
        // within a quarter of what the values need.
        assert!(
            held * 4 <= needed * 5,
            "{}: the batches hold {held} bytes for {needed} bytes of values",
            field.name()
        );
    }
}

/// Lists as polars writes them (64-bit offsets, in the file's Arrow schema), a list of
/// lists and a list of strings, in small pages: a batch's list values arrive a page at
/// a time, so their room is not known when the batch begins.
fn lists_in_small_pages(name: &str, rows: usize) -> std::path::PathBuf {
    use arrow_array::builder::{Int64Builder, LargeListBuilder, LargeStringBuilder};
    let mut tags = LargeListBuilder::new(Int64Builder::new());
    let mut matrix = ListBuilder::new(ListBuilder::new(Int32Builder::new()));
    let mut names = LargeListBuilder::new(LargeStringBuilder::new());
    for i in 0..rows {
        for j in 0..(i * 7 + i / 3) % 8 {
            tags.values().append_value((i * 8 + j) as i64);
        }
        tags.append(i % 10 != 0);
        for x in 0..i % 4 {
            for y in 0..(x + i) % 4 {
                matrix.values().values().append_value((x * 10 + y) as i32);
            }
            matrix.values().append(true);
        }
        matrix.append(true);
        for j in 0..(i / 2) % 4 {
            names.values().append_value(format!("n{}", (i + j) % 1000));
        }
        names.append(true);
    }
    let batch = RecordBatch::try_from_iter([
        ("tags", Arc::new(tags.finish()) as ArrayRef),
        ("matrix", Arc::new(matrix.finish()) as ArrayRef),
        ("names", Arc::new(names.finish()) as ArrayRef),
    ])
    .unwrap();
    let path = std::env::temp_dir().join(format!(
        "hb-read-memory-{name}-{}.parquet",
        std::process::id()
    ));
    let properties = WriterProperties::builder()
        .set_data_page_size_limit(8 << 10)
        .set_write_batch_size(512)
        .set_compression(Compression::UNCOMPRESSED)
        .build();
    let file = std::fs::File::create(&path).unwrap();
    let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(properties)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    path
}

#[test]
fn list_values_arriving_page_by_page_are_kept_at_about_their_size() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let path = lists_in_small_pages("lists", 100_000);
    let batches = read_and_remove(&path);
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 100_000);
    let schema = batches[0].schema();
    assert!(matches!(
        schema.field(0).data_type(),
        DataType::LargeList(_)
    ));
    let tags = batches[5].column(0).as_list::<i64>();
    let first = 5 * batches[0].num_rows();
    assert_eq!(
        tags.value_length(3) as usize,
        ((first + 3) * 7 + (first + 3) / 3) % 8
    );
    for (c, field) in schema.fields().iter().enumerate() {
        let (held, needed) = held_and_needed(&batches, c);
        println!("{}: held {held} bytes, values need {needed}", field.name());
        // An eighth of room left over per buffer at most, and the arrays' own headers.
        let headers = batches.len() * 1024;
        assert!(
            held * 8 <= needed * 9 + headers * 8,
            "{}: the batches hold {held} bytes for {needed} bytes of values",
            field.name()
        );
    }
}
