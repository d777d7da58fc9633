//! Property-based round trips: random values of every structure, union and enum of
//! `parquet.thrift` encode, decode back to the same value (through both the shared
//! `Bytes` and the copying slice reader) and re-encode to the same bytes.

use bytes::Bytes;
use herringbone_format::metadata::*;
use herringbone_format::thrift::ThriftStruct;
use proptest::prelude::*;

use crate::common;

use common::{Gen, Rand};

fn check_round_trip<T: ThriftStruct + Rand + PartialEq + std::fmt::Debug>(
    seed: u64,
) -> Result<(), TestCaseError> {
    let value = T::rand(&mut Gen::new(seed));
    let encoded = value.encode();
    let shared = Bytes::from(encoded.clone());
    let (decoded, used) =
        T::decode_prefix(&shared).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(used, encoded.len());
    prop_assert_eq!(&decoded, &value);
    let (copied, used) =
        T::decode_slice(&encoded).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(used, encoded.len());
    prop_assert_eq!(&copied, &value);
    prop_assert_eq!(decoded.encode(), encoded);
    Ok(())
}

macro_rules! round_trips {
    ($($name:ident: $t:ty,)*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(128))]
            $(
                #[test]
                fn $name(seed in any::<u64>()) {
                    check_round_trip::<$t>(seed)?;
                }
            )*
        }
    };
}

round_trips! {
    size_statistics: SizeStatistics,
    bounding_box: BoundingBox,
    geospatial_statistics: GeospatialStatistics,
    statistics: Statistics,
    string_type: StringType,
    uuid_type: UUIDType,
    map_type: MapType,
    list_type: ListType,
    enum_type: EnumType,
    date_type: DateType,
    float16_type: Float16Type,
    null_type: NullType,
    json_type: JsonType,
    bson_type: BsonType,
    decimal_type: DecimalType,
    milli_seconds: MilliSeconds,
    micro_seconds: MicroSeconds,
    nano_seconds: NanoSeconds,
    timestamp_type: TimestampType,
    time_type: TimeType,
    int_type: IntType,
    variant_type: VariantType,
    geometry_type: GeometryType,
    geography_type: GeographyType,
    schema_element: SchemaElement,
    data_page_header: DataPageHeader,
    index_page_header: IndexPageHeader,
    dictionary_page_header: DictionaryPageHeader,
    data_page_header_v2: DataPageHeaderV2,
    split_block_algorithm: SplitBlockAlgorithm,
    xx_hash: XxHash,
    uncompressed: Uncompressed,
    bloom_filter_header: BloomFilterHeader,
    page_header: PageHeader,
    key_value: KeyValue,
    sorting_column: SortingColumn,
    page_encoding_stats: PageEncodingStats,
    column_meta_data: ColumnMetaData,
    encryption_with_footer_key: EncryptionWithFooterKey,
    encryption_with_column_key: EncryptionWithColumnKey,
    column_chunk: ColumnChunk,
    row_group: RowGroup,
    type_defined_order: TypeDefinedOrder,
    ieee754_total_order: IEEE754TotalOrder,
    int96_timestamp_order: Int96TimestampOrder,
    page_location: PageLocation,
    offset_index: OffsetIndex,
    column_index: ColumnIndex,
    aes_gcm_v1: AesGcmV1,
    aes_gcm_ctr_v1: AesGcmCtrV1,
    file_meta_data: FileMetaData,
    file_crypto_meta_data: FileCryptoMetaData,
    logical_type: LogicalType,
    time_unit: TimeUnit,
    bloom_filter_algorithm: BloomFilterAlgorithm,
    bloom_filter_hash: BloomFilterHash,
    bloom_filter_compression: BloomFilterCompression,
    column_crypto_meta_data: ColumnCryptoMetaData,
    column_order: ColumnOrder,
    encryption_algorithm: EncryptionAlgorithm,
}

#[test]
fn enums_print_spec_names_and_carry_unknown_values() {
    assert_eq!(Encoding::RLE_DICTIONARY.to_string(), "RLE_DICTIONARY");
    assert_eq!(
        format!("{:?}", ConvertedType::TIMESTAMP_MICROS),
        "TIMESTAMP_MICROS"
    );
    assert_eq!(CompressionCodec(99).name(), None);
    assert_eq!(
        format!("{:?}", CompressionCodec(99)),
        "CompressionCodec(99)"
    );
    assert!(matches!(Type::INT96, Type::INT96));
    let header = PageHeader {
        type_: PageType(17),
        ..Default::default()
    };
    let (back, _) = PageHeader::decode_slice(&header.encode()).unwrap();
    assert_eq!(back.type_, PageType(17));
}

#[test]
fn a_logical_type_with_an_unknown_time_unit_is_carried_unrecognized() {
    // LogicalType member 8 (TIMESTAMP) { 1: false, 2: TimeUnit { 3: NANOS {} } }, with the
    // time unit's member id changed from 3 to 4: a unit this version does not know.
    let nanos = LogicalType::Timestamp {
        is_adjusted_to_utc: false,
        unit: TimeUnit::Nanos,
    }
    .encode();
    assert_eq!(nanos, [0x8C, 0x12, 0x1C, 0x3C, 0x00, 0x00, 0x00, 0x00]);
    let mut newer = nanos.clone();
    newer[3] = 0x4C;
    let (decoded, used) = LogicalType::decode_slice(&newer).unwrap();
    assert_eq!(used, newer.len());
    assert_eq!(
        decoded,
        LogicalType::Unrecognized {
            field_id: 8,
            raw: Bytes::from_static(&[0x12, 0x1C, 0x4C, 0x00, 0x00, 0x00]),
        }
    );
    assert_eq!(decoded.encode(), newer);

    // Inside a schema element the rest of the element still decodes.
    let element = SchemaElement {
        type_: Some(Type::INT64),
        name: "t".into(),
        converted_type: Some(ConvertedType::TIMESTAMP_MICROS),
        logical_type: Some(LogicalType::Timestamp {
            is_adjusted_to_utc: true,
            unit: TimeUnit::Nanos,
        }),
        ..Default::default()
    };
    let mut bytes = element.encode();
    let at = bytes
        .windows(2)
        .position(|w| w == [0x1C, 0x3C])
        .expect("the time unit's member header");
    bytes[at + 1] = 0x4C;
    let (decoded, _) = SchemaElement::decode_slice(&bytes).unwrap();
    assert_eq!(decoded.name, element.name);
    assert_eq!(
        decoded.converted_type,
        Some(ConvertedType::TIMESTAMP_MICROS)
    );
    assert!(matches!(
        decoded.logical_type,
        Some(LogicalType::Unrecognized { field_id: 8, .. })
    ));
    assert_eq!(decoded.encode(), bytes);

    // A time unit read on its own still names what it did not know.
    let err = TimeUnit::decode_slice(&[0x4C, 0x00, 0x00]).unwrap_err();
    assert!(
        err.to_string()
            .contains("unknown time unit (union member 4)"),
        "{err}"
    );
}
