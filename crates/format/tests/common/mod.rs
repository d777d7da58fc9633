//! Shared by the round-trip and cross-check tests: a seeded generator of random values
//! of every `parquet.thrift` structure.
#![allow(dead_code)]

use bytes::Bytes;
use herringbone_format::metadata::*;
use herringbone_format::thrift::{Text, ThriftStruct};

/// A small deterministic generator seeded by proptest (xorshift64*), so values of every
/// structure can be built field by field with type inference.
pub struct Gen {
    state: u64,
    pub depth: u32,
}

impl Gen {
    pub fn new(seed: u64) -> Self {
        Gen {
            state: seed | 1,
            depth: 0,
        }
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn len(&mut self) -> usize {
        // mostly short lists, sometimes long enough for the long list header
        match self.below(10) {
            0 => 15 + self.below(10) as usize,
            _ => self.below(4) as usize,
        }
    }
}

pub trait Rand: Sized {
    fn rand(g: &mut Gen) -> Self;
}

impl Rand for bool {
    fn rand(g: &mut Gen) -> Self {
        g.below(2) == 1
    }
}

macro_rules! rand_int {
    ($($t:ty),*) => {$(
        impl Rand for $t {
            fn rand(g: &mut Gen) -> Self {
                match g.below(4) {
                    0 => <$t>::MIN,
                    1 => <$t>::MAX,
                    2 => (g.below(200) as i64 - 100) as $t,
                    _ => g.next() as $t,
                }
            }
        }
    )*};
}
rand_int!(i8, i16, i32, i64);

impl Rand for f64 {
    fn rand(g: &mut Gen) -> Self {
        // finite values only: NaN would not compare equal to itself
        let v = f64::from_bits(g.next());
        if v.is_finite() {
            v
        } else {
            g.below(1000) as f64 / 7.0
        }
    }
}

impl Rand for Bytes {
    fn rand(g: &mut Gen) -> Self {
        let n = g.below(24) as usize;
        (0..n).map(|_| g.next() as u8).collect::<Vec<u8>>().into()
    }
}

impl Rand for Text {
    fn rand(g: &mut Gen) -> Self {
        const CHARS: &[char] = &['a', 'Z', '0', '_', '.', ' ', 'é', 'ß', '日', '🦀', '\0'];
        let n = g.below(12) as usize;
        let s: String = (0..n)
            .map(|_| CHARS[g.below(CHARS.len() as u64) as usize])
            .collect();
        Text::from(s)
    }
}

impl Rand for Binary {
    fn rand(g: &mut Gen) -> Self {
        // Both sides of the inline capacity (22 bytes).
        let n = g.below(40) as usize;
        (0..n).map(|_| g.next() as u8).collect::<Vec<u8>>().into()
    }
}

impl<T: Rand + Copy + Default, const N: usize> Rand for InlineVec<T, N> {
    fn rand(g: &mut Gen) -> Self {
        Vec::<T>::rand(g).into()
    }
}

impl<T: Rand> Rand for Box<T> {
    fn rand(g: &mut Gen) -> Self {
        Box::new(T::rand(g))
    }
}

impl Rand for ColumnPath {
    fn rand(g: &mut Gen) -> Self {
        Vec::<Text>::rand(g).into()
    }
}

impl<T: Rand> Rand for Option<T> {
    fn rand(g: &mut Gen) -> Self {
        if g.below(2) == 0 {
            None
        } else {
            Some(T::rand(g))
        }
    }
}

impl<T: Rand> Rand for Vec<T> {
    fn rand(g: &mut Gen) -> Self {
        if g.depth > 4 {
            return Vec::new();
        }
        g.depth += 1;
        let n = g.len();
        let v = (0..n).map(|_| T::rand(g)).collect();
        g.depth -= 1;
        v
    }
}

macro_rules! rand_enum {
    ($($t:ident),*) => {$(
        impl Rand for $t {
            fn rand(g: &mut Gen) -> Self {
                if g.below(8) == 0 {
                    $t(g.next() as i32) // values from a newer writer are carried
                } else {
                    $t::ALL[g.below($t::ALL.len() as u64) as usize]
                }
            }
        }
    )*};
}
rand_enum!(
    Type,
    ConvertedType,
    FieldRepetitionType,
    Encoding,
    CompressionCodec,
    PageType,
    BoundaryOrder,
    EdgeInterpolationAlgorithm
);

macro_rules! rand_struct {
    ($t:ident { $($f:ident),* }) => {
        impl Rand for $t {
            #[allow(unused_variables)]
            fn rand(g: &mut Gen) -> Self {
                $t { $($f: Rand::rand(g)),* }
            }
        }
    };
}

rand_struct!(SizeStatistics {
    unencoded_byte_array_data_bytes,
    repetition_level_histogram,
    definition_level_histogram
});
rand_struct!(BoundingBox {
    xmin,
    xmax,
    ymin,
    ymax,
    zmin,
    zmax,
    mmin,
    mmax
});
rand_struct!(GeospatialStatistics {
    bbox,
    geospatial_types
});
rand_struct!(Statistics {
    max,
    min,
    null_count,
    distinct_count,
    max_value,
    min_value,
    is_max_value_exact,
    is_min_value_exact,
    nan_count
});
rand_struct!(StringType {});
rand_struct!(UUIDType {});
rand_struct!(MapType {});
rand_struct!(ListType {});
rand_struct!(EnumType {});
rand_struct!(DateType {});
rand_struct!(Float16Type {});
rand_struct!(NullType {});
rand_struct!(JsonType {});
rand_struct!(BsonType {});
rand_struct!(DecimalType { scale, precision });
rand_struct!(MilliSeconds {});
rand_struct!(MicroSeconds {});
rand_struct!(NanoSeconds {});
rand_struct!(TimestampType {
    is_adjusted_to_utc,
    unit
});
rand_struct!(TimeType {
    is_adjusted_to_utc,
    unit
});
rand_struct!(IntType {
    bit_width,
    is_signed
});
rand_struct!(VariantType {
    specification_version
});
rand_struct!(GeometryType { crs });
rand_struct!(GeographyType { crs, algorithm });
rand_struct!(SchemaElement {
    type_,
    type_length,
    repetition_type,
    name,
    num_children,
    converted_type,
    scale,
    precision,
    field_id,
    logical_type
});
rand_struct!(DataPageHeader {
    num_values,
    encoding,
    definition_level_encoding,
    repetition_level_encoding,
    statistics
});
rand_struct!(IndexPageHeader {});
rand_struct!(DictionaryPageHeader {
    num_values,
    encoding,
    is_sorted
});
rand_struct!(DataPageHeaderV2 {
    num_values,
    num_nulls,
    num_rows,
    encoding,
    definition_levels_byte_length,
    repetition_levels_byte_length,
    is_compressed,
    statistics
});
rand_struct!(SplitBlockAlgorithm {});
rand_struct!(XxHash {});
rand_struct!(Uncompressed {});
rand_struct!(BloomFilterHeader {
    num_bytes,
    algorithm,
    hash,
    compression
});
rand_struct!(PageHeader {
    type_,
    uncompressed_page_size,
    compressed_page_size,
    crc,
    data_page_header,
    index_page_header,
    dictionary_page_header,
    data_page_header_v2
});
rand_struct!(KeyValue { key, value });
rand_struct!(SortingColumn {
    column_idx,
    descending,
    nulls_first
});
rand_struct!(PageEncodingStats {
    page_type,
    encoding,
    count
});
rand_struct!(ColumnMetaData {
    type_,
    encodings,
    path_in_schema,
    codec,
    num_values,
    total_uncompressed_size,
    total_compressed_size,
    key_value_metadata,
    data_page_offset,
    index_page_offset,
    dictionary_page_offset,
    statistics,
    encoding_stats,
    bloom_filter_offset,
    bloom_filter_length,
    size_statistics,
    geospatial_statistics
});
rand_struct!(EncryptionWithFooterKey {});
rand_struct!(EncryptionWithColumnKey {
    path_in_schema,
    key_metadata
});
rand_struct!(ColumnChunk {
    file_path,
    file_offset,
    meta_data,
    offset_index_offset,
    offset_index_length,
    column_index_offset,
    column_index_length,
    crypto_metadata,
    encrypted_column_metadata
});
rand_struct!(RowGroup {
    columns,
    total_byte_size,
    num_rows,
    sorting_columns,
    file_offset,
    total_compressed_size,
    ordinal
});
rand_struct!(TypeDefinedOrder {});
rand_struct!(IEEE754TotalOrder {});
rand_struct!(Int96TimestampOrder {});
rand_struct!(PageLocation {
    offset,
    compressed_page_size,
    first_row_index
});
rand_struct!(OffsetIndex {
    page_locations,
    unencoded_byte_array_data_bytes
});
rand_struct!(ColumnIndex {
    null_pages,
    min_values,
    max_values,
    boundary_order,
    null_counts,
    repetition_level_histograms,
    definition_level_histograms,
    nan_counts
});
rand_struct!(AesGcmV1 {
    aad_prefix,
    aad_file_unique,
    supply_aad_prefix
});
rand_struct!(AesGcmCtrV1 {
    aad_prefix,
    aad_file_unique,
    supply_aad_prefix
});
rand_struct!(FileMetaData {
    version,
    schema,
    num_rows,
    row_groups,
    key_value_metadata,
    created_by,
    column_orders,
    encryption_algorithm,
    footer_signing_key_metadata
});
rand_struct!(FileCryptoMetaData {
    encryption_algorithm,
    key_metadata
});

/// The raw bytes of an unknown union member: any encoded structure.
fn unknown_member(g: &mut Gen) -> (i16, Bytes) {
    let id = 100 + g.below(100) as i16;
    let raw = KeyValue::rand(g).encode();
    (id, Bytes::from(raw))
}

impl Rand for TimeUnit {
    fn rand(g: &mut Gen) -> Self {
        [TimeUnit::Millis, TimeUnit::Micros, TimeUnit::Nanos][g.below(3) as usize]
    }
}

impl Rand for LogicalType {
    fn rand(g: &mut Gen) -> Self {
        match g.below(19) {
            0 => LogicalType::String,
            1 => LogicalType::Map,
            2 => LogicalType::List,
            3 => LogicalType::Enum,
            4 => LogicalType::Decimal {
                scale: Rand::rand(g),
                precision: Rand::rand(g),
            },
            5 => LogicalType::Date,
            6 => LogicalType::Time {
                is_adjusted_to_utc: Rand::rand(g),
                unit: Rand::rand(g),
            },
            7 => LogicalType::Timestamp {
                is_adjusted_to_utc: Rand::rand(g),
                unit: Rand::rand(g),
            },
            8 => LogicalType::Integer {
                bit_width: Rand::rand(g),
                is_signed: Rand::rand(g),
            },
            9 => LogicalType::Unknown,
            10 => LogicalType::Json,
            11 => LogicalType::Bson,
            12 => LogicalType::Uuid,
            13 => LogicalType::Float16,
            14 => LogicalType::Variant {
                specification_version: Rand::rand(g),
            },
            15 => LogicalType::Geometry { crs: Rand::rand(g) },
            16 => LogicalType::Geography {
                crs: Rand::rand(g),
                algorithm: Rand::rand(g),
            },
            _ => {
                let (field_id, raw) = unknown_member(g);
                LogicalType::Unrecognized { field_id, raw }
            }
        }
    }
}

macro_rules! rand_union {
    ($t:ident { $($variant:expr),* }) => {
        impl Rand for $t {
            fn rand(g: &mut Gen) -> Self {
                let choices: Vec<fn(&mut Gen) -> $t> = vec![$($variant),*];
                let k = g.below(choices.len() as u64 + 1) as usize;
                match choices.get(k) {
                    Some(f) => f(g),
                    None => {
                        let (field_id, raw) = unknown_member(g);
                        $t::Unrecognized { field_id, raw }
                    }
                }
            }
        }
    };
}

rand_union!(BloomFilterAlgorithm { |_| BloomFilterAlgorithm::Block });
rand_union!(BloomFilterHash { |_| BloomFilterHash::Xxhash });
rand_union!(BloomFilterCompression { |_| BloomFilterCompression::Uncompressed });
rand_union!(ColumnCryptoMetaData {
    |_| ColumnCryptoMetaData::EncryptionWithFooterKey,
    |g| ColumnCryptoMetaData::EncryptionWithColumnKey(Rand::rand(g))
});
rand_union!(ColumnOrder {
    |_| ColumnOrder::TypeDefinedOrder,
    |_| ColumnOrder::Ieee754TotalOrder,
    |_| ColumnOrder::Int96TimestampOrder
});
rand_union!(EncryptionAlgorithm {
    |g| EncryptionAlgorithm::AesGcmV1(Rand::rand(g)),
    |g| EncryptionAlgorithm::AesGcmCtrV1(Rand::rand(g))
});
