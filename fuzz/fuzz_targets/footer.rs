//! Fuzzes the footer and every metadata decoder: arbitrary bytes must decode or fail
//! cleanly, whatever decodes must re-encode and decode to the same value, and the
//! hand-tuned column chunk reader must agree with the generated readers.
#![no_main]

use bytes::Bytes;
use herringbone_format::footer::{FooterOptions, decode_file_metadata, read_metadata};
use herringbone_format::metadata::{
    BloomFilterHeader, ColumnIndex, FileCryptoMetaData, FileMetaData, OffsetIndex, PageHeader,
};
use herringbone_format::thrift::{CompactReader, ThriftStruct};
use libfuzzer_sys::fuzz_target;

fn round_trip<T: ThriftStruct + PartialEq + std::fmt::Debug>(bytes: &Bytes) {
    if let Ok((value, _)) = T::decode_prefix(bytes) {
        let encoded = Bytes::from(value.encode());
        let (again, used) = T::decode_prefix(&encoded).expect("re-encoded value decodes");
        assert_eq!(used, encoded.len());
        // Compare encodings, not values: a NaN statistic or bounding box is the same
        // value after a round trip but never `==` itself.
        assert_eq!(again.encode(), encoded, "{value:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    let bytes = Bytes::copy_from_slice(data);
    if let Ok(meta) = read_metadata(&bytes) {
        let encoded = meta.encode();
        let again = FileMetaData::decode_slice(&encoded).expect("re-encoded footer decodes");
        assert_eq!(again.0.encode(), encoded, "{meta:?}");
    }
    round_trip::<FileMetaData>(&bytes);
    // The hand-tuned column chunk reader must agree with the generated readers: same
    // value or same error.
    let fast = FileMetaData::read(&mut CompactReader::from_bytes(&bytes));
    let generated =
        FileMetaData::read(&mut CompactReader::from_bytes(&bytes).with_hand_tuned(false));
    assert_eq!(format!("{fast:?}"), format!("{generated:?}"));
    round_trip::<PageHeader>(&bytes);
    round_trip::<ColumnIndex>(&bytes);
    round_trip::<OffsetIndex>(&bytes);
    round_trip::<BloomFilterHeader>(&bytes);
    round_trip::<FileCryptoMetaData>(&bytes);
    // selective decode: the first byte picks columns and row groups
    let pick = usize::from(data.first().copied().unwrap_or(0));
    let opts = FooterOptions::new()
        .with_columns([pick % 4, pick % 7])
        .with_row_groups([pick % 3])
        .with_skip_statistics(pick & 1 == 1);
    let _ = decode_file_metadata(bytes, &opts);
});
