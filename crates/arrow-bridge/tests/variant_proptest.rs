//! Round trip of random Variants: shredded with random shapes (by `shred` before the
//! writer, by the writer's shape setting, or inferred by the writer), written, read back
//! and reconstructed, every row equals the original by meaning (object fields in name
//! order, as the specification stores them; integers and decimals compared by value
//! and scale, since shredding may store an int8 in an int64 column).

use std::sync::Arc;

use arrow_array::builder::BinaryBuilder;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Fields, Schema};
use bytes::Bytes;
use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder;
use herringbone_arrow_bridge::variant::{
    PrimitiveType, ShreddedType, VariantParts, VariantShredding, shred, unshred, variant_field,
};
use herringbone_arrow_bridge::{ArrowWriter, WriterProperties};
use herringbone_codec::variant::{Variant, VariantMetadata, VariantValue};
use proptest::prelude::*;

const NAMES: [&str; 5] = ["a", "b", "c", "d", "e"];

fn primitive_value() -> impl Strategy<Value = VariantValue> {
    prop_oneof![
        Just(VariantValue::Null),
        any::<bool>().prop_map(VariantValue::Boolean),
        any::<i8>().prop_map(VariantValue::Int8),
        any::<i16>().prop_map(VariantValue::Int16),
        any::<i32>().prop_map(VariantValue::Int32),
        any::<i64>().prop_map(VariantValue::Int64),
        any::<f64>().prop_map(VariantValue::Double),
        any::<f32>().prop_map(VariantValue::Float),
        (-999_999_999i32..=999_999_999, 0u8..=9)
            .prop_map(|(unscaled, scale)| VariantValue::Decimal4 { unscaled, scale }),
        (
            -999_999_999_999_999_999i64..=999_999_999_999_999_999,
            0u8..=18
        )
            .prop_map(|(unscaled, scale)| VariantValue::Decimal8 { unscaled, scale }),
        (any::<i64>(), 0u8..=38).prop_map(|(unscaled, scale)| VariantValue::Decimal16 {
            unscaled: i128::from(unscaled) * 1_000_003,
            scale
        }),
        any::<i32>().prop_map(VariantValue::Date),
        any::<i64>().prop_map(VariantValue::TimestampMicros),
        any::<i64>().prop_map(VariantValue::TimestampNtzMicros),
        (0i64..86_400_000_000).prop_map(VariantValue::TimeNtzMicros),
        any::<i64>().prop_map(VariantValue::TimestampNanos),
        any::<i64>().prop_map(VariantValue::TimestampNtzNanos),
        proptest::collection::vec(any::<u8>(), 0..8).prop_map(VariantValue::Binary),
        "[a-z]{0,5}|[a-z]{64,70}".prop_map(VariantValue::String),
        any::<[u8; 16]>().prop_map(VariantValue::Uuid),
    ]
}

fn variant_value() -> impl Strategy<Value = VariantValue> {
    primitive_value().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(VariantValue::Array),
            proptest::collection::btree_map(proptest::sample::select(&NAMES[..]), inner, 0..4)
                .prop_map(|fields| VariantValue::Object(
                    fields
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect()
                )),
        ]
    })
}

fn primitive_type() -> impl Strategy<Value = PrimitiveType> {
    prop_oneof![
        Just(PrimitiveType::Boolean),
        Just(PrimitiveType::Int8),
        Just(PrimitiveType::Int16),
        Just(PrimitiveType::Int32),
        Just(PrimitiveType::Int64),
        Just(PrimitiveType::Float),
        Just(PrimitiveType::Double),
        (1u8..=9, 0u8..=3).prop_map(|(p, s)| PrimitiveType::Decimal4 {
            precision: p.max(s),
            scale: s
        }),
        (10u8..=18, 0u8..=3).prop_map(|(p, s)| PrimitiveType::Decimal8 {
            precision: p,
            scale: s
        }),
        (19u8..=38, 0u8..=3).prop_map(|(p, s)| PrimitiveType::Decimal16 {
            precision: p,
            scale: s
        }),
        Just(PrimitiveType::Date),
        Just(PrimitiveType::Time),
        Just(PrimitiveType::Timestamp),
        Just(PrimitiveType::TimestampNtz),
        Just(PrimitiveType::TimestampNanos),
        Just(PrimitiveType::TimestampNtzNanos),
        Just(PrimitiveType::Binary),
        Just(PrimitiveType::String),
        Just(PrimitiveType::Uuid),
    ]
}

fn shape() -> impl Strategy<Value = ShreddedType> {
    let leaf = prop_oneof![
        1 => Just(ShreddedType::Variant),
        4 => primitive_type().prop_map(ShreddedType::Primitive),
    ];
    leaf.prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|e| ShreddedType::Array(Box::new(e))),
            proptest::collection::btree_map(proptest::sample::select(&NAMES[..]), inner, 1..4)
                .prop_map(|fields| ShreddedType::Object(
                    fields
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect()
                )),
        ]
    })
}

/// The value as the specification considers it: objects in name order, integers of
/// every width as one, decimals of every width as one.
fn by_meaning(value: &VariantValue) -> VariantValue {
    match value.sorted() {
        VariantValue::Int8(v) => VariantValue::Int64(v.into()),
        VariantValue::Int16(v) => VariantValue::Int64(v.into()),
        VariantValue::Int32(v) => VariantValue::Int64(v.into()),
        VariantValue::Decimal4 { unscaled, scale } => VariantValue::Decimal16 {
            unscaled: unscaled.into(),
            scale,
        },
        VariantValue::Decimal8 { unscaled, scale } => VariantValue::Decimal16 {
            unscaled: unscaled.into(),
            scale,
        },
        VariantValue::Object(fields) => VariantValue::Object(
            fields
                .iter()
                .map(|(name, value)| (name.clone(), by_meaning(value)))
                .collect(),
        ),
        VariantValue::Array(elements) => {
            VariantValue::Array(elements.iter().map(by_meaning).collect())
        }
        other => other,
    }
}

fn plain_column(rows: &[Option<VariantValue>]) -> StructArray {
    let mut metadata = BinaryBuilder::new();
    let mut value = BinaryBuilder::new();
    for row in rows {
        match row {
            Some(v) => {
                let encoded = v.encode().unwrap();
                metadata.append_value(&encoded.metadata);
                value.append_value(&encoded.value);
            }
            None => {
                metadata.append_value([1, 0, 0]);
                value.append_null();
            }
        }
    }
    let nulls = NullBuffer::from(rows.iter().map(Option::is_some).collect::<Vec<_>>());
    StructArray::try_new(
        Fields::from(vec![
            Field::new("metadata", DataType::Binary, false),
            Field::new("value", DataType::Binary, true),
        ]),
        vec![Arc::new(metadata.finish()), Arc::new(value.finish())],
        Some(nulls),
    )
    .unwrap()
}

#[derive(Debug, Clone, Copy)]
enum Route {
    ShredThenWrite,
    WriterShape,
    WriterAuto,
}

fn round_trip(
    rows: &[Option<VariantValue>],
    shape: &ShreddedType,
    route: Route,
) -> Vec<Option<VariantValue>> {
    let plain = plain_column(rows);
    let (column, setting) = match route {
        Route::ShredThenWrite => (shred(&plain, shape).unwrap(), VariantShredding::AsIs),
        Route::WriterShape => (plain, VariantShredding::Shape(shape.clone())),
        Route::WriterAuto => (plain, VariantShredding::Auto),
    };
    let field = variant_field("v").with_data_type(column.data_type().clone());
    let schema = Arc::new(Schema::new(vec![field]));
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(column) as ArrayRef]).unwrap();
    let props = WriterProperties::builder()
        .set_variant_shredding("v", setting)
        .set_max_row_group_rows(7)
        .build();
    let mut file = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut file, schema, Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let reader = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file))
        .unwrap()
        .with_batch_size(5)
        .build()
        .unwrap();
    let mut out = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        let plain = unshred(batch.column(0).as_struct()).unwrap();
        let parts = VariantParts::try_new(&plain).unwrap();
        let value = parts.value.unwrap();
        for row in 0..plain.len() {
            if plain.is_null(row) {
                out.push(None);
                continue;
            }
            let metadata = VariantMetadata::try_new(parts.metadata.get(row).unwrap()).unwrap();
            assert!(metadata.is_sorted(), "written metadata must be sorted");
            let variant = Variant::try_new(metadata, value.get(row).unwrap()).unwrap();
            variant.validate().unwrap();
            out.push(Some(variant.to_owned_value().unwrap()));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn shred_write_read_unshred_gives_the_originals(
        rows in proptest::collection::vec(proptest::option::weighted(0.9, variant_value()), 0..20),
        shape in shape(),
        route in prop_oneof![Just(Route::ShredThenWrite), Just(Route::WriterShape), Just(Route::WriterAuto)],
    ) {
        let back = round_trip(&rows, &shape, route);
        prop_assert_eq!(back.len(), rows.len());
        for (got, want) in back.iter().zip(&rows) {
            prop_assert_eq!(got.as_ref().map(by_meaning), want.as_ref().map(by_meaning));
        }
    }
}
