//! Encoding kernels, Herringbone side by side with arrow-rs `parquet` (same inputs, same
//! output buffers, in the same run).
//!
//! Run: `cargo bench -p herringbone-benches --bench codec_kernels -- --warm-up-time 1 --measurement-time 2`
//! Each group has a `herringbone` and an `arrow-rs` (or `memcpy`) entry per parameter;
//! the ratio of their times is the figure to report.

use std::hint::black_box;
use std::sync::Arc;

use bytes::Bytes;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use herringbone_codec::bitpack;
use herringbone_codec::encoding::byte_stream_split::{self, ByteStreamSplitDecoder};
use herringbone_codec::encoding::delta_binary_packed::{self, DeltaBinaryPackedDecoder};
use herringbone_codec::encoding::plain::{self, PlainDecoder};
use herringbone_codec::rle::{RleDecoder, RleEncoder};
use parquet::basic::{Encoding, Type as PhysicalType};
use parquet::data_type::{DoubleType, FloatType, Int64Type};
use parquet::encodings::decoding::{
    Decoder, DeltaBitPackDecoder, PlainDecoder as ArrowPlain, get_decoder,
};
use parquet::schema::types::{ColumnDescriptor, ColumnPath, Type};
use parquet::util::bit_util::BitReader;

const N: usize = 4096;

/// Deterministic pseudo-random numbers (no RNG dependency).
fn noise(i: usize) -> u64 {
    (i as u64 ^ 0x5DEE_CE66)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_right(29)
}

fn packed_input(width: usize) -> Vec<u8> {
    (0..bitpack::packed_len(N, width) + 8)
        .map(|i| noise(i) as u8)
        .collect()
}

fn unpack_u32(c: &mut Criterion) {
    let mut group = c.benchmark_group("unpack_u32");
    group.throughput(Throughput::Elements(N as u64));
    for width in 1..=32usize {
        let input = packed_input(width);
        let bytes = Bytes::from(input.clone());
        let mut out = vec![0u32; N];
        group.bench_with_input(BenchmarkId::new("herringbone", width), &width, |b, &w| {
            b.iter(|| bitpack::unpack(black_box(&input), w, &mut out).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("arrow-rs", width), &width, |b, &w| {
            b.iter(|| BitReader::new(black_box(bytes.clone())).get_batch::<u32>(&mut out, w))
        });
    }
    group.finish();
}

fn unpack_u64(c: &mut Criterion) {
    let mut group = c.benchmark_group("unpack_u64");
    group.throughput(Throughput::Elements(N as u64));
    for width in [1usize, 5, 8, 13, 21, 32, 40, 51, 64] {
        let input = packed_input(width);
        let bytes = Bytes::from(input.clone());
        let mut out = vec![0u64; N];
        group.bench_with_input(BenchmarkId::new("herringbone", width), &width, |b, &w| {
            b.iter(|| bitpack::unpack(black_box(&input), w, &mut out).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("arrow-rs", width), &width, |b, &w| {
            b.iter(|| BitReader::new(black_box(bytes.clone())).get_batch::<u64>(&mut out, w))
        });
    }
    group.finish();
}

fn rle_stream(width: usize, values: impl Iterator<Item = u64>) -> Vec<u8> {
    let mut encoder = RleEncoder::new(width);
    values.for_each(|v| encoder.put(v));
    encoder.finish()
}

fn rle_decode(c: &mut Criterion) {
    let mut group = c.benchmark_group("rle_decode");
    group.throughput(Throughput::Elements(N as u64));
    let cases = [
        // Definition levels of a column with long null / non-null stretches.
        (
            "levels_long_runs",
            1,
            rle_stream(1, (0..N).map(|i| ((i / 500) % 2) as u64)),
        ),
        // Definition levels with scattered nulls: bit-packed runs.
        (
            "levels_bit_packed",
            1,
            rle_stream(1, (0..N).map(|i| u64::from(!noise(i).is_multiple_of(3)))),
        ),
        // Dictionary ids of a 1000-value dictionary.
        (
            "dict_ids_w10",
            10,
            rle_stream(10, (0..N).map(|i| noise(i) % 1000)),
        ),
    ];
    for (name, width, data) in cases {
        let bytes = Bytes::from(data.clone());
        let mut out = vec![0u32; N];
        group.bench_function(BenchmarkId::new("herringbone", name), |b| {
            b.iter(|| {
                let mut decoder = RleDecoder::new(black_box(&data), width).unwrap();
                decoder.get_batch(&mut out).unwrap()
            })
        });
        group.bench_function(BenchmarkId::new("arrow-rs", name), |b| {
            b.iter(|| {
                let mut decoder = parquet::encodings::rle::RleDecoder::new(width as u8);
                decoder.set_data(black_box(bytes.clone())).unwrap();
                decoder.get_batch(&mut out).unwrap()
            })
        });
    }
    // Dictionary ids straight to values.
    let data = rle_stream(10, (0..N).map(|i| noise(i) % 1000));
    let bytes = Bytes::from(data.clone());
    let dictionary: Vec<i64> = (0..1000).map(|i| i * 31).collect();
    let mut out = vec![0i64; N];
    group.bench_function(BenchmarkId::new("herringbone", "dict_gather_i64"), |b| {
        b.iter(|| {
            let mut decoder = RleDecoder::new(black_box(&data), 10).unwrap();
            decoder
                .get_batch_with_dictionary(&dictionary, &mut out)
                .unwrap()
        })
    });
    group.bench_function(BenchmarkId::new("arrow-rs", "dict_gather_i64"), |b| {
        b.iter(|| {
            let mut decoder = parquet::encodings::rle::RleDecoder::new(10);
            decoder.set_data(black_box(bytes.clone())).unwrap();
            decoder
                .get_batch_with_dict(&dictionary, &mut out, N)
                .unwrap()
        })
    });
    group.finish();
}

fn delta_binary_packed(c: &mut Criterion) {
    let mut group = c.benchmark_group("delta_binary_packed_i64");
    group.throughput(Throughput::Elements(N as u64));
    let mut ts = 1_700_000_000_000i64;
    let timestamps: Vec<i64> = (0..N)
        .map(|i| {
            ts += (noise(i) % 1000) as i64;
            ts
        })
        .collect();
    let mut data = Vec::new();
    delta_binary_packed::encode(&timestamps, &mut data);
    let bytes = Bytes::from(data.clone());
    let mut out = vec![0i64; N];
    group.bench_function("herringbone", |b| {
        b.iter(|| {
            let mut decoder = DeltaBinaryPackedDecoder::<i64, _>::new(black_box(&data)).unwrap();
            decoder.decode(&mut out).unwrap()
        })
    });
    group.bench_function("arrow-rs", |b| {
        b.iter(|| {
            let mut decoder = DeltaBitPackDecoder::<Int64Type>::new();
            decoder.set_data(black_box(bytes.clone()), N).unwrap();
            decoder.get(&mut out).unwrap()
        })
    });
    group.finish();
}

fn column(physical: PhysicalType) -> Arc<ColumnDescriptor> {
    let tp = Type::primitive_type_builder("v", physical).build().unwrap();
    Arc::new(ColumnDescriptor::new(
        Arc::new(tp),
        0,
        0,
        ColumnPath::new(vec!["v".into()]),
    ))
}

fn byte_stream_split(c: &mut Criterion) {
    let mut group = c.benchmark_group("byte_stream_split");
    group.throughput(Throughput::Elements(N as u64));
    let doubles: Vec<f64> = (0..N).map(|i| (noise(i) % 100_000) as f64 / 7.0).collect();
    let mut data = Vec::new();
    byte_stream_split::encode_fixed(&doubles, &mut data);
    let bytes = Bytes::from(data.clone());
    let mut out = vec![0f64; N];
    group.bench_function(BenchmarkId::new("herringbone", "f64"), |b| {
        b.iter(|| {
            let mut decoder = ByteStreamSplitDecoder::new(black_box(&data), 8).unwrap();
            decoder.decode_fixed(&mut out).unwrap()
        })
    });
    group.bench_function(BenchmarkId::new("arrow-rs", "f64"), |b| {
        let descr = column(PhysicalType::DOUBLE);
        b.iter(|| {
            let mut decoder =
                get_decoder::<DoubleType>(descr.clone(), Encoding::BYTE_STREAM_SPLIT).unwrap();
            decoder.set_data(black_box(bytes.clone()), N).unwrap();
            decoder.get(&mut out).unwrap()
        })
    });
    let floats: Vec<f32> = doubles.iter().map(|&d| d as f32).collect();
    let mut data = Vec::new();
    byte_stream_split::encode_fixed(&floats, &mut data);
    let bytes = Bytes::from(data.clone());
    let mut out = vec![0f32; N];
    group.bench_function(BenchmarkId::new("herringbone", "f32"), |b| {
        b.iter(|| {
            let mut decoder = ByteStreamSplitDecoder::new(black_box(&data), 4).unwrap();
            decoder.decode_fixed(&mut out).unwrap()
        })
    });
    group.bench_function(BenchmarkId::new("arrow-rs", "f32"), |b| {
        let descr = column(PhysicalType::FLOAT);
        b.iter(|| {
            let mut decoder =
                get_decoder::<FloatType>(descr.clone(), Encoding::BYTE_STREAM_SPLIT).unwrap();
            decoder.set_data(black_box(bytes.clone()), N).unwrap();
            decoder.get(&mut out).unwrap()
        })
    });
    group.finish();
}

fn plain_fixed(c: &mut Criterion) {
    let mut group = c.benchmark_group("plain_i64");
    group.throughput(Throughput::Bytes((N * 8) as u64));
    let values: Vec<i64> = (0..N).map(|i| noise(i) as i64).collect();
    let mut data = Vec::new();
    plain::encode_fixed(&values, &mut data);
    let bytes = Bytes::from(data.clone());
    let mut out = vec![0i64; N];
    let mut raw = vec![0u8; N * 8];
    group.bench_function("herringbone", |b| {
        b.iter(|| {
            PlainDecoder::new(black_box(&data))
                .decode_fixed(&mut out)
                .unwrap()
        })
    });
    group.bench_function("memcpy", |b| {
        b.iter(|| raw.copy_from_slice(black_box(&data)))
    });
    group.bench_function("arrow-rs", |b| {
        b.iter(|| {
            let mut decoder = ArrowPlain::<Int64Type>::new(0);
            decoder.set_data(black_box(bytes.clone()), N).unwrap();
            decoder.get(&mut out).unwrap()
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    unpack_u32,
    unpack_u64,
    rle_decode,
    delta_binary_packed,
    byte_stream_split,
    plain_fixed
);
criterion_main!(benches);
