//! The Variant files of the parquet-testing corpus: `variant/*.metadata` + `*.value`
//! against `variant/data_dictionary.json`, and `shredded_variant/*.variant.bin`.

use std::collections::BTreeMap;
use std::path::Path;

use herringbone_codec::variant::{JsonValue, Variant, VariantMetadata};

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// A JSON number's exact value in a canonical form: sign, significant digits without
/// leading or trailing zeros, and the power of ten of the last digit.
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
    let mut exponent = exponent - fraction.len() as i64;
    let trimmed_end = digits.trim_end_matches('0');
    exponent += (digits.len() - trimmed_end.len()) as i64;
    let significant = trimmed_end.trim_start_matches('0');
    if significant.is_empty() {
        return (false, String::new(), 0);
    }
    (negative, significant.to_owned(), exponent)
}

/// Compares JSON documents as values: object members as maps, numbers by exact decimal
/// value, strings exactly.
fn json_equal(ours: &JsonValue, expected: &JsonValue, at: &str) -> Result<(), String> {
    match (ours, expected) {
        (JsonValue::Number(a), JsonValue::Number(b)) => {
            if canonical_number(a) == canonical_number(b) {
                Ok(())
            } else {
                Err(format!("{at}: number {a} != expected {b}"))
            }
        }
        (JsonValue::Array(a), JsonValue::Array(b)) => {
            if a.len() != b.len() {
                return Err(format!("{at}: {} elements, expected {}", a.len(), b.len()));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                json_equal(x, y, &format!("{at}[{i}]"))?;
            }
            Ok(())
        }
        (JsonValue::Object(a), JsonValue::Object(b)) => {
            let a: BTreeMap<&str, &JsonValue> = a.iter().map(|(k, v)| (k.as_str(), v)).collect();
            let b: BTreeMap<&str, &JsonValue> = b.iter().map(|(k, v)| (k.as_str(), v)).collect();
            if a.keys().ne(b.keys()) {
                return Err(format!(
                    "{at}: keys {:?}, expected {:?}",
                    a.keys(),
                    b.keys()
                ));
            }
            for (key, x) in &a {
                json_equal(x, b[key], &format!("{at}.{key}"))?;
            }
            Ok(())
        }
        (a, b) if a == b => Ok(()),
        (a, b) => Err(format!("{at}: {a:?} != expected {b:?}")),
    }
}

/// Nanoseconds since the epoch (or since 1970-01-01 civil time when there is no offset)
/// of `YYYY-MM-DD[T ]HH:MM:SS[.fff…][Z|±HH:MM]`.
fn timestamp_nanos(text: &str) -> (i128, bool) {
    let (date, rest) = text.split_at(10);
    let mut parts = date.split('-').map(|p| p.parse::<i64>().unwrap());
    let (year, month, day) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap(),
    );
    // Days from civil, for the years these files use (after 1970, before 2100).
    let month_days = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let mut days = (1970..year)
        .map(|y| if y % 4 == 0 { 366 } else { 365 })
        .sum::<i64>();
    days += month_days[..(month - 1) as usize].iter().sum::<i64>();
    if year % 4 == 0 && month > 2 {
        days += 1;
    }
    days += day - 1;
    let rest = &rest[1..];
    let (time, offset) = match rest.rfind(['+', '-', 'Z']) {
        Some(pos) => (&rest[..pos], Some(&rest[pos..])),
        None => (rest, None),
    };
    let (hms, fraction) = time.split_once('.').unwrap_or((time, ""));
    let mut hms = hms.split(':').map(|p| p.parse::<i64>().unwrap());
    let seconds =
        days * 86_400 + hms.next().unwrap() * 3600 + hms.next().unwrap() * 60 + hms.next().unwrap();
    let nanos_fraction: i64 = format!("{fraction:0<9}").parse().unwrap();
    let mut nanos = i128::from(seconds) * 1_000_000_000 + i128::from(nanos_fraction);
    if let Some(offset) = offset.filter(|o| *o != "Z") {
        let sign = if offset.starts_with('-') { -1 } else { 1 };
        let (h, m) = offset[1..].split_once(':').unwrap();
        let minutes = h.parse::<i128>().unwrap() * 60 + m.parse::<i128>().unwrap();
        nanos -= sign * minutes * 60 * 1_000_000_000;
    }
    (nanos, offset.is_some())
}

/// Entries of data_dictionary.json whose text does not follow one JSON convention for
/// the type (the file was assembled from several writers). Each is checked for the
/// same value by the rule given here, and our exact text is pinned as well.
fn check_known_deviation(
    name: &str,
    ours: &str,
    expected: &JsonValue,
) -> Option<Result<(), String>> {
    let expected_text = match expected {
        JsonValue::Number(n) | JsonValue::String(n) => n.clone(),
        _ => return None,
    };
    let result = match name {
        // The expected value went through a double: 12345678912345678.90 printed as
        // 1.2345678912345678e+16. We render the decimal exactly.
        "primitive_decimal16" => {
            if ours == "12345678912345678.90"
                && ours.parse::<f64>().unwrap() == expected_text.parse::<f64>().unwrap()
            {
                Ok(())
            } else {
                Err(format!("{ours} vs {expected_text}"))
            }
        }
        // Java's Float.toString digits (1.23456794E9) for the float 1234567936; we print
        // the shortest digits that round-trip through f32.
        "primitive_float" => {
            if ours.parse::<f32>().unwrap() == expected_text.parse::<f32>().unwrap() {
                Ok(())
            } else {
                Err(format!("{ours} vs {expected_text}"))
            }
        }
        // The expected text separates microseconds with a colon ("12:33:54:123456").
        "primitive_time" => {
            if ours == "\"12:33:54.123456\"" && expected_text == "12:33:54:123456" {
                Ok(())
            } else {
                Err(format!("{ours} vs {expected_text}"))
            }
        }
        // Shown in the writer's time zone (-04:00) with a space; we print UTC, ISO form.
        "primitive_timestamp" | "primitive_timestampntz" => {
            let ours_text = ours.trim_matches('"');
            if timestamp_nanos(ours_text) == timestamp_nanos(&expected_text) {
                Ok(())
            } else {
                Err(format!("{ours} vs {expected_text}: different instants"))
            }
        }
        _ => return None,
    };
    Some(result)
}

#[test]
fn variant_pairs_match_data_dictionary() {
    let dir = herringbone_testkit::corpus_root().join("variant");
    let dictionary_text = std::fs::read_to_string(dir.join("data_dictionary.json")).unwrap();
    // The file ends its top-level object with a trailing comma.
    assert!(JsonValue::parse(&dictionary_text).is_err());
    let JsonValue::Object(entries) = JsonValue::parse_lenient(&dictionary_text).unwrap() else {
        panic!("data_dictionary.json is not an object");
    };
    let expected: BTreeMap<String, JsonValue> = entries.into_iter().collect();

    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".metadata").map(str::to_owned)
        })
        .collect();
    names.sort();
    assert_eq!(names.len(), 29, "{names:?}");

    let mut compared = 0;
    let mut deviations = 0;
    for name in &names {
        let metadata_bytes = read(&dir.join(format!("{name}.metadata")));
        let value_bytes = read(&dir.join(format!("{name}.value")));
        let metadata = VariantMetadata::try_new(&metadata_bytes)
            .unwrap_or_else(|e| panic!("{name}: metadata: {e}"));
        let variant =
            Variant::try_new(metadata, &value_bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        variant.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        let json = variant.to_json().unwrap_or_else(|e| panic!("{name}: {e}"));

        // Re-encoding gives a value that decodes to the same thing.
        let owned = variant.to_owned_value().unwrap();
        let reencoded = owned.encode().unwrap();
        let metadata2 = VariantMetadata::try_new(&reencoded.metadata).unwrap();
        let variant2 = Variant::try_new(metadata2, &reencoded.value).unwrap();
        assert_eq!(
            variant2.to_owned_value().unwrap(),
            owned,
            "{name}: re-encoded"
        );
        assert_eq!(variant2.to_json().unwrap(), json, "{name}: re-encoded JSON");

        let Some(expected_json) = expected.get(name) else {
            // long_string has files but no dictionary entry: check its text directly.
            assert_eq!(name, "long_string");
            let text = variant.as_str().unwrap();
            assert!(text.starts_with("This string is for sure and certainly longer than 64 bytes"));
            assert!(text.ends_with("🎣 and 🤦!!"), "{text}");
            assert!(text.len() >= 64);
            continue;
        };
        if let Some(result) = check_known_deviation(name, &json, expected_json) {
            result.unwrap_or_else(|e| panic!("{name}: {e}"));
            deviations += 1;
        } else {
            let ours = JsonValue::parse(&json).unwrap_or_else(|e| panic!("{name}: {json}: {e}"));
            json_equal(&ours, expected_json, name)
                .unwrap_or_else(|e| panic!("{name}: ours {json}: {e}"));
        }
        compared += 1;
    }
    assert_eq!(compared, expected.len(), "every dictionary entry has files");
    assert_eq!(deviations, 5);
}

#[test]
fn variant_pairs_spot_values() {
    let dir = herringbone_testkit::corpus_root().join("variant");
    let load = |name: &str| {
        (
            read(&dir.join(format!("{name}.metadata"))),
            read(&dir.join(format!("{name}.value"))),
        )
    };
    let (m, v) = load("object_nested");
    let metadata = VariantMetadata::try_new(&m).unwrap();
    let variant = Variant::try_new(metadata, &v).unwrap();
    assert_eq!(
        variant.get_path("$.observation.value.humidity").unwrap(),
        Some(Variant::Int16(456))
    );
    assert_eq!(
        variant.get_path("$.species.name").unwrap(),
        Some(Variant::String("lava monster"))
    );
    assert_eq!(variant.get_path("$.species.missing").unwrap(), None);

    let (m, v) = load("array_nested");
    let metadata = VariantMetadata::try_new(&m).unwrap();
    let variant = Variant::try_new(metadata, &v).unwrap();
    assert_eq!(
        variant.get_path("$[2].names[1]").unwrap(),
        Some(Variant::String("Ray"))
    );
    assert_eq!(
        variant.get_path("$[0].thing.names[0]").unwrap(),
        Some(Variant::String("Contrarian"))
    );
    assert_eq!(variant.get_path("$[1]").unwrap(), Some(Variant::Null));

    let (m, v) = load("primitive_uuid");
    let metadata = VariantMetadata::try_new(&m).unwrap();
    assert_eq!(
        Variant::try_new(metadata, &v).unwrap().to_json().unwrap(),
        "\"f24f9b64-81fa-49d1-b74e-8c09a6e31c56\""
    );
    let (m, v) = load("primitive_timestamp_nanos");
    let metadata = VariantMetadata::try_new(&m).unwrap();
    assert_eq!(
        Variant::try_new(metadata, &v).unwrap(),
        Variant::TimestampNanos(1_730_982_834_123_456_789)
    );
}

#[test]
fn shredded_variant_bins_decode() {
    let dir = herringbone_testkit::corpus_root().join("shredded_variant");
    let mut bins: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".variant.bin"))
        .collect();
    bins.sort();
    assert_eq!(bins.len(), 137);
    let cases_text = std::fs::read_to_string(dir.join("cases.json")).unwrap();
    let JsonValue::Array(cases) = JsonValue::parse(&cases_text).unwrap() else {
        panic!("cases.json is not an array");
    };
    let mut descriptions = BTreeMap::new();
    for case in &cases {
        let JsonValue::Object(members) = case else {
            panic!()
        };
        let get = |key: &str| {
            members
                .iter()
                .find(|(k, _)| k == key)
                .and_then(|(_, v)| match v {
                    JsonValue::String(s) => Some(s.clone()),
                    _ => None,
                })
        };
        if let (Some(file), Some(variant)) = (get("variant_file"), get("variant")) {
            descriptions.insert(file, variant);
        }
    }
    let mut checked_primitives = 0;
    for path in &bins {
        let bytes = read(path);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (metadata, used) = VariantMetadata::try_new_prefix(&bytes)
            .unwrap_or_else(|e| panic!("{name}: metadata: {e}"));
        let variant = Variant::try_new(metadata, &bytes[used..])
            .unwrap_or_else(|e| panic!("{name}: value: {e}"));
        variant.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        let json = variant.to_json().unwrap_or_else(|e| panic!("{name}: {e}"));
        // Primitive cases state their type and value: check the ones with an
        // unambiguous text form.
        let Some(description) = descriptions.get(&name) else {
            continue;
        };
        let Some(inner) = description
            .strip_prefix("Variant(metadata=VariantMetadata(dict={}), value=Variant(type=")
            .and_then(|s| s.strip_suffix("))"))
        else {
            continue;
        };
        let (type_name, value_text) = inner.split_once(", value=").unwrap();
        let ours_type = variant.type_name();
        let expected_type = match type_name {
            "BOOLEAN_TRUE" | "BOOLEAN_FALSE" => "boolean",
            "INT8" => "int8",
            "INT16" => "int16",
            "INT32" => "int32",
            "INT64" => "int64",
            "FLOAT" => "float",
            "DOUBLE" => "double",
            "DECIMAL4" => "decimal4",
            "DECIMAL8" => "decimal8",
            "DECIMAL16" => "decimal16",
            "DATE" => "date",
            "TIMESTAMPTZ" => "timestamp",
            "TIMESTAMPNTZ" => "timestamp_ntz",
            "TIMESTAMPTZ_NANOS" => "timestamp_nanos",
            "TIMESTAMPNTZ_NANOS" => "timestamp_ntz_nanos",
            "TIME" => "time_ntz",
            "STRING" => "string",
            "BINARY" => "binary",
            "UUID" => "uuid",
            "NULL" => "null",
            other => panic!("{name}: unknown type {other}"),
        };
        assert_eq!(ours_type, expected_type, "{name}: {description}");
        let json_text = json.trim_matches('"');
        match expected_type {
            "binary" => {
                let Variant::Binary(bytes) = variant else {
                    unreachable!()
                };
                let hex: String = bytes.iter().map(|b| format!("{b:02X}")).collect();
                assert_eq!(hex, value_text, "{name}");
            }
            "float" => assert_eq!(
                json_text.parse::<f32>().unwrap(),
                value_text.parse::<f32>().unwrap()
            ),
            "double" => assert_eq!(
                json_text.parse::<f64>().unwrap(),
                value_text.parse::<f64>().unwrap()
            ),
            _ => assert_eq!(json_text, value_text, "{name}: {description}"),
        }
        checked_primitives += 1;
    }
    assert!(checked_primitives >= 30, "{checked_primitives}");
}
