//! Encoding kernels, Herringbone side by side with arrow-rs `parquet`.
use bytes::Bytes;
use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group, criterion_main};
use herringbone_codec::bitpack;
use parquet::util::bit_util::BitReader;

const N: usize = 4096;

fn packed_input(width: usize) -> Vec<u8> {
    (0..bitpack::packed_len(N, width) + 8)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).rotate_right(13) as u8)
        .collect()
}

fn unpack(c: &mut Criterion) {
    let mut group = c.benchmark_group("unpack_u32");
    group.throughput(Throughput::Elements(N as u64));
    for width in [1usize, 3, 8, 13, 17, 32] {
        let input = packed_input(width);
        let bytes = Bytes::from(input.clone());
        let mut out = vec![0u32; N];
        group.bench_with_input(BenchmarkId::new("herringbone", width), &width, |b, &w| {
            b.iter(|| bitpack::unpack(black_box(&input), w, &mut out).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("arrow-rs", width), &width, |b, &w| {
            b.iter(|| {
                let mut reader = BitReader::new(black_box(bytes.clone()));
                reader.get_batch::<u32>(&mut out, w)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, unpack);
criterion_main!(benches);
