//! A whole file through the Arrow reader: footer, schema mapping, pages, levels and
//! values of every column, with reading options taken from the first input byte. It
//! must return batches or an error, never panic, and every batch it returns must be
//! valid Arrow data (offsets in bounds, UTF-8 where the type says so, children as long
//! as their parents need), since engines index into it without checking.
//!
//! The same file is then read again with two threads (row groups decoded ahead, the
//! columns of a batch side by side) from an input that fetches small chunks side by
//! side, as a `File` does: every batch both reads return must be the same. And by the
//! async stream with two threads: when both read the whole file, the same rows.
#![no_main]

use herringbone_format::metadata::FileMetaData;
use std::ops::Range;

use arrow_array::{Array, RecordBatch, RecordBatchReader};
use bytes::Bytes;
use futures::StreamExt;
use herringbone::async_read::ParquetRecordBatchStreamBuilder;
use herringbone::schema::{SchemaOptions, StringRepresentation};
use herringbone::{ChunkReader, ParquetRecordBatchReaderBuilder, Projection, RowSelection};
use libfuzzer_sys::fuzz_target;

/// Batches read per input at most: a file may legitimately expand a few bytes of RLE
/// into billions of rows, which is slow, not wrong.
const MAX_BATCHES: usize = 64;

/// A file in memory read as a `File` is: small chunks side by side fetched together
/// (a `Bytes` input serves each chunk's range apart).
struct SideBySide(Bytes);

impl ChunkReader for SideBySide {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }

    fn get_bytes(&self, range: Range<u64>) -> herringbone::Result<Bytes> {
        self.0.get_bytes(range)
    }

    fn reads_side_by_side(&self) -> bool {
        true
    }
}

/// `builder` (of the file reader or of the async stream: the same methods) with the
/// options both readers have.
macro_rules! with_options {
    ($builder:expr, $options:expr) => {{
        let options = $options;
        let mut builder = $builder
            .with_batch_size(options.batch_size)
            .with_verify_crc(options.verify_crc);
        if let Some(projection) = options.projection {
            builder = builder.with_projection(projection);
        }
        if let Some(groups) = options.row_groups {
            builder = builder.with_row_groups(groups);
        }
        if let Some(selection) = options.selection {
            builder = builder.with_row_selection(selection);
        }
        if let Some(schema) = options.schema {
            builder = builder.with_schema_options(schema);
        }
        builder
    }};
}

fuzz_target!(|data: &[u8]| {
    let Some((&control, file)) = data.split_first() else {
        return;
    };
    let file = Bytes::copy_from_slice(file);
    let streamed = read_async(file.clone(), control);
    let Some((batches, complete)) = read(
        ParquetRecordBatchReaderBuilder::try_new(file.clone()),
        control,
    ) else {
        return;
    };
    let threaded = ParquetRecordBatchReaderBuilder::try_new(SideBySide(file))
        .map(|builder| builder.with_threads(2));
    let Some((threaded_batches, threaded_complete)) = read(threaded, control) else {
        panic!("the file opened on one thread but not on two");
    };
    // Where an error stops a read may differ (a chunk fetched whole when its row group
    // is opened fails before one read page by page), the batches before it may not.
    for (i, (one, two)) in batches.iter().zip(&threaded_batches).enumerate() {
        assert_eq!(one, two, "batch {i} differs between one thread and two");
    }
    if complete && threaded_complete {
        assert_eq!(batches.len(), threaded_batches.len(), "batch counts differ");
    }
    if let (true, Some(streamed)) = (complete, streamed) {
        assert_eq!(
            concat(&streamed),
            concat(&batches),
            "the async stream read other rows"
        );
    }
});

/// The batches the async stream reads with two threads and the options `control` picks,
/// when it reads to the end within `MAX_BATCHES`; `None` when it cannot be built, stops
/// at an error or at `MAX_BATCHES`, or the options include one it does not have (an
/// offset).
fn read_async(file: Bytes, control: u8) -> Option<Vec<RecordBatch>> {
    if control & 128 != 0 {
        return None;
    }
    futures::executor::block_on(async move {
        let size = file.len() as u64;
        let mut builder = ParquetRecordBatchStreamBuilder::try_new(file, size)
            .await
            .ok()?;
        let options = Options::new(control, builder.metadata());
        builder = with_options!(builder, options).with_threads(2);
        let mut stream = builder.build().ok()?;
        let mut batches = Vec::new();
        while let Some(batch) = stream.next().await {
            if batches.len() == MAX_BATCHES {
                return None;
            }
            batches.push(batch.ok()?);
        }
        Some(batches)
    })
}

/// The rows of `batches` as one batch (`None` for no batch).
fn concat(batches: &[RecordBatch]) -> Option<RecordBatch> {
    let first = batches.first()?;
    Some(arrow_select::concat::concat_batches(&first.schema(), batches).expect("one schema"))
}

/// The reading options the first input byte picks.
struct Options {
    batch_size: usize,
    verify_crc: bool,
    /// The first leaf column alone (its field, as the projection builds it).
    projection: Option<Projection>,
    /// The row groups in reverse order.
    row_groups: Option<Vec<usize>>,
    /// Every other run of three rows.
    selection: Option<RowSelection>,
    /// Strings as Utf8View, the Arrow schema hint ignored.
    schema: Option<SchemaOptions>,
    /// Rows 5 to 105 (the async stream has no offset).
    offset_and_limit: bool,
}

impl Options {
    fn new(control: u8, metadata: &FileMetaData) -> Self {
        let total = usize::try_from(metadata.num_rows).unwrap_or(0).min(1 << 20);
        Self {
            batch_size: [1, 7, 64, 1024][usize::from(control & 3)],
            verify_crc: control & 4 != 0,
            projection: (control & 8 != 0).then(|| Projection::Leaves(vec![0])),
            row_groups: (control & 16 != 0).then(|| (0..metadata.row_groups.len()).rev().collect()),
            selection: (control & 32 != 0).then(|| {
                let ranges = (0..total).step_by(6).map(|start| start..start + 3);
                RowSelection::from_consecutive_ranges(ranges, total)
            }),
            schema: (control & 64 != 0).then(|| {
                SchemaOptions::new()
                    .with_strings(StringRepresentation::Utf8View)
                    .with_arrow_schema_hint(false)
            }),
            offset_and_limit: control & 128 != 0,
        }
    }
}

/// The batches of a read with the options `control` picks (at most `MAX_BATCHES`) and
/// whether the read ended, without an error, within them; `None` when the reader cannot
/// be built.
fn read<T: ChunkReader + 'static>(
    builder: herringbone::Result<ParquetRecordBatchReaderBuilder<T>>,
    control: u8,
) -> Option<(Vec<RecordBatch>, bool)> {
    let mut builder = builder.ok()?;
    let options = Options::new(control, builder.metadata());
    let batch_size = options.batch_size;
    let offset_and_limit = options.offset_and_limit;
    builder = with_options!(builder, options);
    if offset_and_limit {
        builder = builder.with_offset(5).with_limit(100);
    }
    let reader = builder.build().ok()?;
    let schema = reader.schema();
    let mut batches = Vec::new();
    for batch in reader {
        if batches.len() == MAX_BATCHES {
            return Some((batches, false));
        }
        let Ok(batch) = batch else {
            return Some((batches, false));
        };
        assert_eq!(
            batch.schema(),
            schema,
            "every batch has the reader's schema"
        );
        assert!(batch.num_rows() <= batch_size, "batch larger than asked");
        for column in batch.columns() {
            if let Err(e) = column.to_data().validate_full() {
                panic!("invalid {} array from the reader: {e}", column.data_type());
            }
        }
        batches.push(batch);
    }
    Some((batches, true))
}
