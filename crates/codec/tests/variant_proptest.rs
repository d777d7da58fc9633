//! Property tests of the Variant encoding: build -> encode -> decode identity for random
//! nested values, every container width the format allows, and no panics on arbitrary
//! or corrupted bytes.

use herringbone_codec::variant::{
    JsonValue, MetadataBuilder, Variant, VariantMetadata, VariantValue, encode_array_from_elements,
    encode_object_from_fields,
};
use proptest::prelude::*;

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
        // Each width at most its precision (9, 18, 38 digits), scale up to the precision.
        (-999_999_999..=999_999_999i32, 0u8..=9)
            .prop_map(|(unscaled, scale)| VariantValue::Decimal4 { unscaled, scale }),
        (-(10i64.pow(18) - 1)..10i64.pow(18), 0u8..=18)
            .prop_map(|(unscaled, scale)| VariantValue::Decimal8 { unscaled, scale }),
        (-(10i128.pow(38) - 1)..10i128.pow(38), 0u8..=38)
            .prop_map(|(unscaled, scale)| VariantValue::Decimal16 { unscaled, scale }),
        any::<i32>().prop_map(VariantValue::Date),
        any::<i64>().prop_map(VariantValue::TimestampMicros),
        any::<i64>().prop_map(VariantValue::TimestampNtzMicros),
        any::<i64>().prop_map(VariantValue::TimeNtzMicros),
        any::<i64>().prop_map(VariantValue::TimestampNanos),
        any::<i64>().prop_map(VariantValue::TimestampNtzNanos),
        any::<[u8; 16]>().prop_map(VariantValue::Uuid),
        prop::collection::vec(any::<u8>(), 0..80).prop_map(VariantValue::Binary),
        // Around the 64-byte short-string limit, with multi-byte characters.
        "[a-zé😀\"\\\\\n]{0,70}".prop_map(VariantValue::String),
    ]
}

fn key() -> impl Strategy<Value = String> {
    // A small pool so names repeat across objects (shared dictionary entries).
    prop_oneof!["[a-e]{1,2}", "[a-zA-Z0-9_ .\\[\\]'é]{0,12}",]
}

fn nested() -> impl Strategy<Value = VariantValue> {
    primitive().prop_recursive(8, 96, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(VariantValue::Array),
            prop::collection::btree_map(key(), inner, 0..8).prop_map(|fields| {
                // Reverse name order: the encoder must sort.
                VariantValue::Object(fields.into_iter().rev().collect())
            }),
        ]
    })
}

/// A JSON number's exact value: sign, significant digits, power of ten of the last digit.
fn canonical_number(text: &str) -> (bool, String, i64) {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(pos) => (&rest[..pos], rest[pos + 1..].parse::<i64>().unwrap()),
        None => (rest, 0),
    };
    let (int_part, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int_part}{fraction}");
    let trimmed_end = digits.trim_end_matches('0');
    let exponent = exponent - fraction.len() as i64 + (digits.len() - trimmed_end.len()) as i64;
    let significant = trimmed_end.trim_start_matches('0');
    if significant.is_empty() {
        return (false, String::new(), 0);
    }
    (negative, significant.to_owned(), exponent)
}

fn same_json(a: &JsonValue, b: &JsonValue) -> bool {
    match (a, b) {
        (JsonValue::Number(x), JsonValue::Number(y)) => canonical_number(x) == canonical_number(y),
        (JsonValue::Array(x), JsonValue::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (JsonValue::Object(x), JsonValue::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && same_json(vx, vy))
        }
        (x, y) => x == y,
    }
}

fn decode(metadata: &[u8], value: &[u8]) -> VariantValue {
    let metadata = VariantMetadata::try_new(metadata).unwrap();
    let variant = Variant::try_new(metadata, value).unwrap();
    variant.validate().unwrap();
    variant.to_owned_value().unwrap()
}

/// Re-writes an encoded value with the given (possibly wider than needed) field-id and
/// offset widths and `is_large` flag, so the decoder sees every header combination.
fn rewrite_wide(
    variant: &Variant<'_, '_>,
    metadata: &VariantMetadata<'_>,
    id_size: u8,
    offset_size: u8,
    is_large: bool,
    out: &mut Vec<u8>,
) -> bool {
    let mut fits = true;
    let push = |out: &mut Vec<u8>, value: usize, size: u8| {
        // Offsets too large for the chosen width are marked so the caller can skip.
        if value >= 1usize << (8 * u32::from(size)) {
            out.push(0xff);
        }
        out.extend_from_slice(&(value as u32).to_le_bytes()[..usize::from(size)]);
    };
    match variant {
        Variant::Object(object) => {
            let mut values = Vec::new();
            let mut offsets = Vec::new();
            let mut ids = Vec::new();
            for field in object.iter() {
                let (name, value) = field.unwrap();
                ids.push(metadata.find(name).unwrap());
                offsets.push(values.len());
                fits &= rewrite_wide(
                    &value,
                    metadata,
                    id_size,
                    offset_size,
                    is_large,
                    &mut values,
                );
            }
            offsets.push(values.len());
            fits &= values.len() < 1usize << (8 * u32::from(offset_size));
            out.push(((u8::from(is_large) << 4 | (id_size - 1) << 2 | (offset_size - 1)) << 2) | 2);
            push(out, ids.len(), if is_large { 4 } else { 1 });
            ids.iter().for_each(|&id| push(out, id, id_size));
            offsets.iter().for_each(|&o| push(out, o, offset_size));
            out.extend_from_slice(&values);
        }
        Variant::Array(array) => {
            let mut values = Vec::new();
            let mut offsets = Vec::new();
            for element in array.iter() {
                offsets.push(values.len());
                fits &= rewrite_wide(
                    &element.unwrap(),
                    metadata,
                    id_size,
                    offset_size,
                    is_large,
                    &mut values,
                );
            }
            offsets.push(values.len());
            fits &= values.len() < 1usize << (8 * u32::from(offset_size));
            out.push(((u8::from(is_large) << 2 | (offset_size - 1)) << 2) | 3);
            push(out, offsets.len() - 1, if is_large { 4 } else { 1 });
            offsets.iter().for_each(|&o| push(out, o, offset_size));
            out.extend_from_slice(&values);
        }
        other => {
            let encoded = other.to_owned_value().unwrap().encode().unwrap();
            out.extend_from_slice(&encoded.value);
        }
    }
    fits
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn encode_decode_identity(value in nested()) {
        let encoded = value.encode().unwrap();
        prop_assert_eq!(decode(&encoded.metadata, &encoded.value), value.sorted());
        // Decoding then re-encoding gives the same bytes.
        let again = decode(&encoded.metadata, &encoded.value).encode().unwrap();
        prop_assert_eq!(again, encoded);
    }

    #[test]
    fn every_header_width_decodes(value in nested(), id_size in 1u8..=4, offset_size in 1u8..=4, is_large: bool) {
        let encoded = value.encode().unwrap();
        let metadata = VariantMetadata::try_new(&encoded.metadata).unwrap();
        let variant = Variant::try_new(metadata, &encoded.value).unwrap();
        let mut wide = Vec::new();
        prop_assume!(rewrite_wide(&variant, &metadata, id_size, offset_size, is_large, &mut wide));
        prop_assert_eq!(decode(&encoded.metadata, &wide), value.sorted());
    }

    #[test]
    fn json_round_trip_keeps_the_text(value in nested()) {
        let encoded = value.encode().unwrap();
        let metadata = VariantMetadata::try_new(&encoded.metadata).unwrap();
        let variant = Variant::try_new(metadata, &encoded.value).unwrap();
        // Times outside one day have no JSON form; everything else renders.
        let Ok(json) = variant.to_json() else { return Ok(()); };
        let rebuilt = VariantValue::from_json(&json).unwrap().encode().unwrap();
        let metadata = VariantMetadata::try_new(&rebuilt.metadata).unwrap();
        let json_again = Variant::try_new(metadata, &rebuilt.value).unwrap().to_json().unwrap();
        // Numbers may change type (a double 1e20 comes back as a decimal) but keep their
        // exact value; strings, dates etc. come back as the same strings.
        let before = JsonValue::parse(&json).unwrap();
        let after = JsonValue::parse(&json_again).unwrap();
        prop_assert!(same_json(&before, &after), "{} vs {}", json, json_again);
    }

    #[test]
    fn arbitrary_bytes_never_panic(metadata in prop::collection::vec(any::<u8>(), 0..24), value in prop::collection::vec(any::<u8>(), 0..64)) {
        if let Ok(metadata) = VariantMetadata::try_new(&metadata)
            && let Ok(variant) = Variant::try_new(metadata, &value) {
                let _ = variant.validate();
                let _ = variant.to_json();
                let _ = variant.get_path("$.a[0].b");
                let _ = variant.to_owned_value();
            }
    }

    #[test]
    fn corrupted_encodings_never_panic(value in nested(), flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4), in_metadata: bool) {
        let encoded = value.encode().unwrap();
        let (mut metadata, mut bytes) = (encoded.metadata, encoded.value);
        let target = if in_metadata { &mut metadata } else { &mut bytes };
        for (index, byte) in flips {
            let i = index.index(target.len());
            target[i] ^= byte;
        }
        if let Ok(metadata) = VariantMetadata::try_new(&metadata)
            && let Ok(variant) = Variant::try_new(metadata, &bytes) {
                let _ = variant.get_path("$.a[1]");
                let json = variant.to_json();
                if let Ok(owned) = variant.to_owned_value() {
                    prop_assert!(variant.validate().is_ok());
                    let again = owned.encode().unwrap();
                    let decoded = decode(&again.metadata, &again.value);
                    prop_assert_eq!(&decoded, &owned);
                    if let Ok(json) = json {
                        let metadata = VariantMetadata::try_new(&again.metadata).unwrap();
                        prop_assert_eq!(Variant::try_new(metadata, &again.value).unwrap().to_json().unwrap(), json);
                    }
                }
            }
    }
}

#[test]
fn large_containers_use_wide_offsets_and_ids() {
    // 300 distinct names: 2-byte field ids, is_large object; a 70 KB string: 3-byte
    // offsets; a 17 MB binary: 4-byte offsets.
    let mut fields: Vec<(String, VariantValue)> = (0..300)
        .map(|i| (format!("k{i:03}"), VariantValue::Int16(i)))
        .collect();
    fields.push(("big".into(), VariantValue::String("x".repeat(70_000))));
    let object = VariantValue::Object(fields);
    let encoded = object.encode().unwrap();
    let header = encoded.value[0] >> 2;
    assert_eq!((header >> 4, (header >> 2) & 3, header & 3), (1, 1, 2));
    assert_eq!(decode(&encoded.metadata, &encoded.value), object.sorted());

    let huge = VariantValue::Array(vec![
        VariantValue::Binary(vec![7; (1 << 24) + 10]),
        VariantValue::Int8(1),
    ]);
    let encoded = huge.encode().unwrap();
    assert_eq!(
        encoded.value[0],
        ((3u8) << 2) | 3,
        "array with 4-byte offsets"
    );
    let metadata = VariantMetadata::try_new(&encoded.metadata).unwrap();
    let variant = Variant::try_new(metadata, &encoded.value).unwrap();
    assert_eq!(variant.get_path("$[1]").unwrap(), Some(Variant::Int8(1)));
    assert_eq!(variant.to_owned_value().unwrap(), huge);

    // A dictionary past 65,535 names needs 3-byte field ids.
    let wide: Vec<(String, VariantValue)> = (0..70_000)
        .map(|i| (format!("n{i:05}"), VariantValue::Null))
        .collect();
    let encoded = VariantValue::Object(wide).encode().unwrap();
    assert_eq!((encoded.value[0] >> 4) & 3, 2, "3-byte field ids");
}

#[test]
fn shared_dictionary_encodes_many_values() {
    let rows = [
        VariantValue::from_json(r#"{"a": 1, "b": {"c": true}}"#).unwrap(),
        VariantValue::from_json(r#"[{"c": null}, {"d": "x"}]"#).unwrap(),
    ];
    let mut builder = MetadataBuilder::new();
    rows.iter()
        .for_each(|row| row.collect_field_names(&mut builder));
    let metadata_bytes = builder.finish_sorted();
    let metadata = VariantMetadata::try_new(&metadata_bytes).unwrap();
    assert_eq!(metadata.iter().collect::<Vec<_>>(), ["a", "b", "c", "d"]);
    for row in &rows {
        let mut value = Vec::new();
        row.encode_value(&metadata, &mut value).unwrap();
        assert_eq!(decode(&metadata_bytes, &value), row.sorted());
    }
    let missing = VariantValue::from_json(r#"{"zz": 1}"#).unwrap();
    let err = missing
        .encode_value(&metadata, &mut Vec::new())
        .unwrap_err();
    assert!(err.to_string().contains("\"zz\""), "{err}");
}

#[test]
fn hostile_values_fail_with_locations() {
    let metadata_bytes = [0x01, 1, 0, 1, b'a'];
    let metadata = VariantMetadata::try_new(&metadata_bytes).unwrap();
    let err = |value: &[u8]| -> String {
        match Variant::try_new(metadata, value).and_then(|v| v.validate()) {
            Ok(()) => panic!("accepted {value:?}"),
            Err(e) => e.to_string(),
        }
    };
    // Object whose field id 5 is outside the 1-entry dictionary.
    assert!(err(&[0x02, 1, 5, 0, 1, 0x00]).contains("field id 5"));
    // Object whose last offset points past the buffer.
    assert!(err(&[0x02, 1, 0, 0, 9, 0x00]).contains("beyond"));
    // Object with is_large and a count of 2^32-1 that cannot fit.
    assert!(err(&[0x42, 0xff, 0xff, 0xff, 0xff, 0]).contains("exceeds"));
    // Array whose first element runs past the last offset.
    assert!(err(&[0x03, 2, 0, 2, 1, 0x00]).contains("array element 0 spans offsets 0..2"));
    // Array whose last offset leaves bytes over.
    assert!(err(&[0x03, 1, 0, 1, 0x00, 0x00]).contains("trailing"));
    // Decimal4 with 10 digits, decimal16 with 39 digits.
    assert!(
        err(&[0x20, 0, 0x00, 0xca, 0x9a, 0x3b])
            .contains("decimal4 1000000000 has more than 9 digits")
    );
    let mut decimal = vec![0x28, 0];
    decimal.extend_from_slice(&10i128.pow(38).to_le_bytes());
    assert!(err(&decimal).contains("38 digits"));
    // Unsorted duplicate names in an object.
    assert!(err(&[0x02, 2, 0, 0, 0, 1, 2, 0x00, 0x00]).contains("sort"));
    // Unknown primitive type 21.
    assert!(err(&[21 << 2]).contains("primitive type id 21"));
    // Truncated long string.
    assert!(err(&[0x40, 10, 0, 0, 0, b'a']).contains("truncated"));
    // Decimal scale above 38.
    assert!(err(&[0x20, 39, 0, 0, 0, 0]).contains("scale 39"));
    // Nesting beyond the depth limit: 300 nested single-element arrays.
    let mut value = vec![0x00];
    for _ in 0..300 {
        let mut outer = vec![0x03, 1, 0, value.len() as u8];
        if value.len() > 255 {
            // Switch to 2-byte offsets once the child grows past one byte.
            outer = vec![0x07, 1, 0, 0];
            outer.extend_from_slice(&(value.len() as u16).to_le_bytes());
        }
        outer.extend_from_slice(&value);
        value = outer;
    }
    assert!(err(&value).contains("nesting deeper"));
}

#[test]
fn containers_from_encoded_parts() {
    let dir = herringbone_testkit::corpus_root().join("variant");
    let metadata_bytes = std::fs::read(dir.join("object_primitive.metadata")).unwrap();
    let value_bytes = std::fs::read(dir.join("object_primitive.value")).unwrap();
    let metadata = VariantMetadata::try_new(&metadata_bytes).unwrap();
    let variant = Variant::try_new(metadata, &value_bytes).unwrap();
    let object = variant.as_object().unwrap();
    // Keep every field but "int_field", in reverse order: the writer sorts them.
    let mut kept = Vec::new();
    for index in (0..object.len()).rev() {
        let name = object.field_name(index).unwrap();
        if name != "int_field" {
            kept.push((name, object.field_bytes(index).unwrap()));
        }
    }
    let mut value = Vec::new();
    encode_object_from_fields(&metadata, &kept, &mut value).unwrap();
    let VariantValue::Object(mut expected) = variant.to_owned_value().unwrap() else {
        panic!("not an object")
    };
    expected.retain(|(name, _)| name != "int_field");
    assert_eq!(
        decode(&metadata_bytes, &value),
        VariantValue::Object(expected)
    );

    // Duplicates, unknown names and malformed values are rejected.
    let one = [0x0c, 1];
    let err = encode_object_from_fields(
        &metadata,
        &[("int_field", &one), ("int_field", &one)],
        &mut Vec::new(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("duplicate"), "{err}");
    let err = encode_object_from_fields(&metadata, &[("nope", &one)], &mut Vec::new()).unwrap_err();
    assert!(err.to_string().contains("not in the metadata"), "{err}");
    let err = encode_object_from_fields(&metadata, &[("int_field", &[0x0c][..])], &mut Vec::new())
        .unwrap_err();
    assert!(err.to_string().contains("field \"int_field\""), "{err}");

    // Arrays: elements of the corpus array_nested, reversed.
    let metadata_bytes = std::fs::read(dir.join("array_nested.metadata")).unwrap();
    let value_bytes = std::fs::read(dir.join("array_nested.value")).unwrap();
    let metadata = VariantMetadata::try_new(&metadata_bytes).unwrap();
    let variant = Variant::try_new(metadata, &value_bytes).unwrap();
    let array = variant.as_array().unwrap();
    let parts: Vec<&[u8]> = (0..array.len())
        .rev()
        .map(|i| array.element_bytes(i).unwrap())
        .collect();
    let mut value = Vec::new();
    encode_array_from_elements(&metadata, &parts, &mut value).unwrap();
    let VariantValue::Array(mut expected) = variant.to_owned_value().unwrap() else {
        panic!("not an array")
    };
    expected.reverse();
    assert_eq!(
        decode(&metadata_bytes, &value),
        VariantValue::Array(expected)
    );
    assert!(encode_array_from_elements(&metadata, &[&[0x09, b'a']], &mut Vec::new()).is_err());
}
