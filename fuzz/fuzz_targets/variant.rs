//! Variant decoding on arbitrary bytes: metadata + value split, full validation, JSON
//! rendering, path lookups and a re-encode round trip. Nothing may panic, and a value
//! that decodes must re-encode to one that decodes to the same thing.
#![no_main]

use herringbone_codec::variant::{Variant, VariantMetadata, VariantValue};
use libfuzzer_sys::fuzz_target;

const PATHS: &[&str] = &["$", "$.a", "$[0]", "$.a.b[1]", "$['']", "$[3].x[0]['k']"];

fuzz_target!(|data: &[u8]| {
    let Some((&split, rest)) = data.split_first() else {
        return;
    };
    // Either the metadata's own length tells where the value starts, or the first byte
    // gives the split point (so corrupt metadata is exercised too).
    let (metadata_bytes, value_bytes) = match VariantMetadata::try_new_prefix(rest) {
        Ok((_, used)) if split & 1 == 0 => rest.split_at(used),
        _ => rest.split_at(usize::from(split).min(rest.len())),
    };
    let Ok(metadata) = VariantMetadata::try_new(metadata_bytes) else {
        return;
    };
    for id in 0..metadata.len().min(64) {
        if let Ok(name) = metadata.get(id) {
            assert!(metadata.find(name).is_some());
        }
    }
    let Ok(variant) = Variant::try_new(metadata, value_bytes) else {
        return;
    };
    for path in PATHS {
        let _ = variant.get_path(path);
    }
    let json = variant.to_json();
    let valid = variant.validate();
    let Ok(owned) = variant.to_owned_value() else {
        return;
    };
    assert!(
        valid.is_ok(),
        "to_owned_value succeeded where validate failed"
    );
    let encoded = owned.encode().expect("a decoded value re-encodes");
    let metadata2 = VariantMetadata::try_new(&encoded.metadata).expect("own metadata decodes");
    let variant2 = Variant::try_new(metadata2, &encoded.value).expect("own value decodes");
    assert_eq!(
        variant2.to_owned_value().expect("own value converts"),
        owned
    );
    if let Ok(json) = json {
        assert_eq!(variant2.to_json().ok(), Some(json.clone()));
        // JSON we render is JSON we read (numbers may change type, not value text).
        if let Ok(back) = VariantValue::from_json(&json) {
            let again = back.encode().expect("JSON-built value encodes");
            let metadata3 = VariantMetadata::try_new(&again.metadata).expect("metadata");
            let _ = Variant::try_new(metadata3, &again.value)
                .expect("value")
                .to_json();
        }
    }
});
