//! Cross-implementation check against arrow-rs (`parquet::variant`, a dev-dependency):
//! what we encode, arrow-rs reads (with its full validation) and re-encodes with its own
//! builder; we decode that and get the original value back. The corpus pairs go through
//! the same loop.

use herringbone_codec::variant::{Variant, VariantMetadata, VariantValue};
use parquet::variant::{Variant as ArrowVariant, VariantBuilder as ArrowVariantBuilder};
use proptest::prelude::*;

/// Primitives within the ranges arrow-rs represents (its dates and times are chrono
/// types: ±262,000 years, times within one day).
fn primitive() -> impl Strategy<Value = VariantValue> {
    prop_oneof![
        Just(VariantValue::Null),
        any::<bool>().prop_map(VariantValue::Boolean),
        any::<i8>().prop_map(VariantValue::Int8),
        any::<i16>().prop_map(VariantValue::Int16),
        any::<i32>().prop_map(VariantValue::Int32),
        any::<i64>().prop_map(VariantValue::Int64),
        any::<u64>().prop_map(|bits| VariantValue::Double(f64::from_bits(bits))),
        any::<u32>().prop_map(|bits| VariantValue::Float(f32::from_bits(bits))),
        (-999_999_999..=999_999_999i32, 0u8..=9)
            .prop_map(|(unscaled, scale)| VariantValue::Decimal4 { unscaled, scale }),
        (-(10i64.pow(18) - 1)..10i64.pow(18), 0u8..=18)
            .prop_map(|(unscaled, scale)| VariantValue::Decimal8 { unscaled, scale }),
        (-(10i128.pow(38) - 1)..10i128.pow(38), 0u8..=38)
            .prop_map(|(unscaled, scale)| VariantValue::Decimal16 { unscaled, scale }),
        (-90_000_000..90_000_000i32).prop_map(VariantValue::Date),
        (-8_000_000_000_000_000_000..8_000_000_000_000_000_000i64)
            .prop_map(VariantValue::TimestampMicros),
        (-8_000_000_000_000_000_000..8_000_000_000_000_000_000i64)
            .prop_map(VariantValue::TimestampNtzMicros),
        (0..86_400_000_000i64).prop_map(VariantValue::TimeNtzMicros),
        any::<i64>().prop_map(VariantValue::TimestampNanos),
        any::<i64>().prop_map(VariantValue::TimestampNtzNanos),
        any::<[u8; 16]>().prop_map(VariantValue::Uuid),
        prop::collection::vec(any::<u8>(), 0..80).prop_map(VariantValue::Binary),
        "[a-zé😀\"\\\\\n]{0,70}".prop_map(VariantValue::String),
    ]
}

fn nested() -> impl Strategy<Value = VariantValue> {
    primitive().prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(VariantValue::Array),
            prop::collection::btree_map("[a-e]{0,2}|[a-z0-9 ]{3,10}", inner, 0..8)
                .prop_map(|fields| VariantValue::Object(fields.into_iter().rev().collect())),
        ]
    })
}

fn decode(metadata: &[u8], value: &[u8]) -> VariantValue {
    let metadata = VariantMetadata::try_new(metadata).unwrap();
    let variant = Variant::try_new(metadata, value).unwrap();
    variant.validate().unwrap();
    variant.to_owned_value().unwrap()
}

/// arrow-rs reads `metadata` + `value` and writes them again with its own builder.
fn through_arrow_rs(metadata: &[u8], value: &[u8]) -> Result<(Vec<u8>, Vec<u8>), String> {
    let variant = ArrowVariant::try_new(metadata, value).map_err(|e| e.to_string())?;
    let mut builder = ArrowVariantBuilder::new();
    builder
        .try_append_value(variant)
        .map_err(|e| e.to_string())?;
    Ok(builder.finish())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arrow_rs_reads_ours_and_we_read_arrow_rs(value in nested()) {
        let encoded = value.encode().unwrap();
        let (metadata, bytes) = through_arrow_rs(&encoded.metadata, &encoded.value)
            .map_err(|e| TestCaseError::fail(format!("arrow-rs rejected our encoding: {e}")))?;
        prop_assert_eq!(decode(&metadata, &bytes), value.sorted());
    }
}

#[test]
fn corpus_pairs_survive_arrow_rs() {
    let dir = herringbone_testkit::corpus_root().join("variant");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let Some(name) = path
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .strip_suffix(".metadata")
        else {
            continue;
        };
        let metadata = std::fs::read(&path).unwrap();
        let value = std::fs::read(dir.join(format!("{name}.value"))).unwrap();
        let ours = decode(&metadata, &value);
        let (arrow_metadata, arrow_value) = through_arrow_rs(&metadata, &value).unwrap();
        assert_eq!(decode(&arrow_metadata, &arrow_value), ours, "{name}");
        // And arrow-rs reads our re-encoding of it.
        let encoded = ours.encode().unwrap();
        let (m, v) = through_arrow_rs(&encoded.metadata, &encoded.value).unwrap();
        assert_eq!(decode(&m, &v), ours, "{name}");
        checked += 1;
    }
    assert_eq!(checked, 29);
}
