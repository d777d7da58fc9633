//! Peak memory of a read: a multi-row-group file read batch by batch from a `File`
//! under a counting allocator. The reader holds one row group's fetched column chunks,
//! one decoded page per column and the batch being built, so its peak must stay within
//! a small multiple of (one output batch + one row group's column chunks), whatever the
//! size of the file.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use arrow_array::builder::{Int32Builder, ListBuilder};
use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

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
