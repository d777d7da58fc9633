//! The writer: random Arrow batches (types, nulls, nesting and lengths from the input)
//! with random writer options, written, read back, and compared equal; the file must
//! also verify clean.
#![no_main]

use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, BooleanArray, Float64Array, Int32Array, RecordBatch};
use bytes::Bytes;
use herringbone::verify::{VerifyOptions, verify};
use herringbone::{
    ArrowWriter, Codec, DataPageVersion, ParquetRecordBatchReaderBuilder, StatisticsLevel,
    WriterProperties,
};
use libfuzzer_sys::fuzz_target;

/// Takes bytes from the input, zeros once it runs out.
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn int(&mut self) -> i64 {
        i64::from_le_bytes(std::array::from_fn(|_| self.byte()))
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let rows = usize::from(input.byte()) * 4 + usize::from(input.byte() % 4);
    let nulls = input.byte();
    let null = |i: usize, input: &mut Input<'_>| {
        nulls != 0 && input.byte().is_multiple_of(nulls % 7 + 2) && i % 3 != 1
    };
    let a: ArrayRef = Arc::new(Int32Array::from(
        (0..rows)
            .map(|i| (!null(i, &mut input)).then(|| input.int() as i32 % 1000))
            .collect::<Vec<_>>(),
    ));
    let mut strings = StringBuilder::new();
    for i in 0..rows {
        if null(i, &mut input) {
            strings.append_null();
        } else {
            let len = usize::from(input.byte() % 24);
            let text: String = (0..len)
                .map(|_| char::from(b'a' + input.byte() % 26))
                .collect();
            strings.append_value(text);
        }
    }
    let b: ArrayRef = Arc::new(strings.finish());
    let c: ArrayRef = Arc::new(Float64Array::from(
        (0..rows)
            .map(|_| f64::from(input.int() as i32) / 8.0)
            .collect::<Vec<_>>(),
    ));
    let d: ArrayRef = Arc::new(BooleanArray::from(
        (0..rows)
            .map(|i| (!null(i, &mut input)).then(|| input.byte() & 1 == 1))
            .collect::<Vec<_>>(),
    ));
    let mut lists = ListBuilder::new(Int64Builder::new());
    for i in 0..rows {
        if null(i, &mut input) {
            lists.append_null();
        } else {
            for _ in 0..input.byte() % 5 {
                let v = input.int();
                if v % 5 == 0 {
                    lists.values().append_null();
                } else {
                    lists.values().append_value(v);
                }
            }
            lists.append(true);
        }
    }
    let e: ArrayRef = Arc::new(lists.finish());
    let batch = RecordBatch::try_from_iter([("a", a), ("b", b), ("c", c), ("d", d), ("e", e)])
        .expect("columns of one length");
    let control = input.byte();
    let codec = [
        Codec::Uncompressed,
        Codec::Snappy,
        Codec::Zstd { level: 1 },
        Codec::Lz4Raw,
        Codec::Gzip { level: 1 },
        Codec::Lzo,
        Codec::Brotli { quality: 1 },
        Codec::Lz4,
    ][usize::from(control & 7)];
    let props = WriterProperties::builder()
        .set_compression(codec)
        .set_dictionary_enabled(control & 8 != 0)
        .set_data_page_version(if control & 16 != 0 {
            DataPageVersion::V2
        } else {
            DataPageVersion::V1
        })
        .set_statistics(if control & 32 != 0 {
            StatisticsLevel::Page
        } else {
            StatisticsLevel::Chunk
        })
        .set_write_crc(control & 64 != 0)
        .set_data_page_row_limit(usize::from(input.byte()).max(1))
        .set_max_row_group_rows(usize::from(input.byte()).max(1) * 3)
        .set_bloom_filter("a", 0.05, 64)
        .build();
    let mut file = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), Some(props)).expect("writer");
    // Written in two slices, as a stream of batches would be.
    let half = rows / 2;
    writer.write(&batch.slice(0, half)).expect("write");
    writer
        .write(&batch.slice(half, rows - half))
        .expect("write");
    writer.close().expect("close");
    let file = Bytes::from(file);
    let reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .expect("open")
        .with_batch_size(rows.max(1))
        .build()
        .expect("build");
    let read: Vec<RecordBatch> = reader.collect::<Result<_, _>>().expect("read back");
    let read = arrow_select::concat::concat_batches(&batch.schema(), &read).expect("concat");
    assert_eq!(read, batch, "read back equal");
    let report = verify(file, &VerifyOptions::default());
    assert!(report.is_clean(), "{:?}", report.problems);
});
