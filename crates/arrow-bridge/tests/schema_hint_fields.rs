//! The `ARROW:schema` hint is applied field by field: a hint holding one field this
//! version cannot describe (an `Int(128)`, as polars writes for `Int128`) costs that field
//! its hint, and every other field keeps its hinted type (time zone, dictionary,
//! `Duration`, `FixedSizeList`, `LargeUtf8`).

use std::sync::Arc;

use arrow_array::builder::{FixedSizeListBuilder, Int32Builder};
use arrow_array::cast::AsArray;
use arrow_array::types::{DurationMicrosecondType, Int32Type, TimestampMillisecondType};
use arrow_array::{
    Array, ArrayRef, DictionaryArray, DurationMicrosecondArray, FixedSizeBinaryArray,
    LargeStringArray, RecordBatch, TimestampMillisecondArray,
};
use arrow_ipc::r#gen::Message as ipc_message;
use arrow_ipc::r#gen::Schema as ipc;
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use base64::Engine as _;
use bytes::Bytes;
use flatbuffers::{FlatBufferBuilder, WIPOffset};
use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder;
use herringbone_arrow_bridge::schema::{SchemaOptions, parquet_to_arrow};
use herringbone_arrow_bridge::write::{ArrowWriter, WriterProperties};
use herringbone_format::metadata::KeyValue;
use herringbone_format::schema::SchemaDescriptor;

const TOKYO: &str = "Asia/Tokyo";

/// The batch as the writer sees it: `big` is what polars stores for an `Int128` (16
/// little-endian bytes), the others are plain Arrow types.
fn batch() -> RecordBatch {
    let ts: ArrayRef = Arc::new(
        TimestampMillisecondArray::from(vec![Some(1_704_067_200_000), None, Some(0)])
            .with_timezone(TOKYO),
    );
    let dur: ArrayRef = Arc::new(DurationMicrosecondArray::from(vec![
        Some(1_000_000),
        Some(-5),
        None,
    ]));
    let mut fsl = FixedSizeListBuilder::new(Int32Builder::new(), 2);
    fsl.values().append_values(&[1, 2], &[true, true]);
    fsl.append(true);
    fsl.values().append_values(&[0, 0], &[true, true]);
    fsl.append(false);
    fsl.values().append_values(&[5, 6], &[true, false]);
    fsl.append(true);
    let fsl: ArrayRef = Arc::new(fsl.finish());
    let cat: ArrayRef = Arc::new(
        vec![Some("a"), Some("b"), Some("a")]
            .into_iter()
            .collect::<DictionaryArray<Int32Type>>(),
    );
    let big: ArrayRef = Arc::new(
        FixedSizeBinaryArray::try_from_sparse_iter_with_size(
            [
                Some(1i128.to_le_bytes()),
                Some((-(1i128 << 100)).to_le_bytes()),
                None,
            ]
            .into_iter(),
            16,
        )
        .unwrap(),
    );
    let text: ArrayRef = Arc::new(LargeStringArray::from(vec![Some("x"), None, Some("z")]));
    RecordBatch::try_from_iter([
        ("ts", ts),
        ("dur", dur),
        ("fsl", fsl),
        ("cat", cat),
        ("big", big),
        ("text", text),
    ])
    .unwrap()
}

/// An `ARROW:schema` value as polars would write it for `batch()`: `big` is `Int(128)`.
fn hint_with_int128() -> String {
    let mut b = FlatBufferBuilder::new();
    let mut fields = Vec::new();

    let tz = b.create_string(TOKYO);
    let ts = ipc::Timestamp::create(
        &mut b,
        &ipc::TimestampArgs {
            unit: ipc::TimeUnit::MILLISECOND,
            timezone: Some(tz),
        },
    );
    fields.push(field(
        &mut b,
        "ts",
        ipc::Type::Timestamp,
        ts.as_union_value(),
        None,
        &[],
    ));

    let dur = ipc::Duration::create(
        &mut b,
        &ipc::DurationArgs {
            unit: ipc::TimeUnit::MICROSECOND,
        },
    );
    fields.push(field(
        &mut b,
        "dur",
        ipc::Type::Duration,
        dur.as_union_value(),
        None,
        &[],
    ));

    let int32 = int(&mut b, 32);
    let item = field(
        &mut b,
        "item",
        ipc::Type::Int,
        int32.as_union_value(),
        None,
        &[],
    );
    let fsl = ipc::FixedSizeList::create(&mut b, &ipc::FixedSizeListArgs { listSize: 2 });
    fields.push(field(
        &mut b,
        "fsl",
        ipc::Type::FixedSizeList,
        fsl.as_union_value(),
        None,
        &[item],
    ));

    let utf8 = ipc::Utf8::create(&mut b, &ipc::Utf8Args {});
    let index = int(&mut b, 32);
    let dictionary = ipc::DictionaryEncoding::create(
        &mut b,
        &ipc::DictionaryEncodingArgs {
            id: 0,
            indexType: Some(index),
            isOrdered: false,
            dictionaryKind: ipc::DictionaryKind::DenseArray,
        },
    );
    fields.push(field(
        &mut b,
        "cat",
        ipc::Type::Utf8,
        utf8.as_union_value(),
        Some(dictionary),
        &[],
    ));

    let int128 = ipc::Int::create(
        &mut b,
        &ipc::IntArgs {
            bitWidth: 128,
            is_signed: true,
        },
    );
    fields.push(field(
        &mut b,
        "big",
        ipc::Type::Int,
        int128.as_union_value(),
        None,
        &[],
    ));

    let large = ipc::LargeUtf8::create(&mut b, &ipc::LargeUtf8Args {});
    fields.push(field(
        &mut b,
        "text",
        ipc::Type::LargeUtf8,
        large.as_union_value(),
        None,
        &[],
    ));

    let fields = b.create_vector(&fields);
    let schema = ipc::Schema::create(
        &mut b,
        &ipc::SchemaArgs {
            endianness: ipc::Endianness::Little,
            fields: Some(fields),
            custom_metadata: None,
            features: None,
        },
    );
    let message = ipc_message::Message::create(
        &mut b,
        &ipc_message::MessageArgs {
            version: ipc::MetadataVersion::V5,
            header_type: ipc_message::MessageHeader::Schema,
            header: Some(schema.as_union_value()),
            bodyLength: 0,
            custom_metadata: None,
        },
    );
    b.finish(message, None);
    let body = b.finished_data();
    let mut framed = vec![0xff; 4];
    framed.extend_from_slice(&(body.len() as i32).to_le_bytes());
    framed.extend_from_slice(body);
    base64::engine::general_purpose::STANDARD.encode(framed)
}

fn int<'a>(b: &mut FlatBufferBuilder<'a>, bits: i32) -> WIPOffset<ipc::Int<'a>> {
    ipc::Int::create(
        b,
        &ipc::IntArgs {
            bitWidth: bits,
            is_signed: true,
        },
    )
}

fn field<'a>(
    b: &mut FlatBufferBuilder<'a>,
    name: &str,
    type_type: ipc::Type,
    type_: WIPOffset<flatbuffers::UnionWIPOffset>,
    dictionary: Option<WIPOffset<ipc::DictionaryEncoding<'a>>>,
    children: &[WIPOffset<ipc::Field<'a>>],
) -> WIPOffset<ipc::Field<'a>> {
    let name = b.create_string(name);
    let children = b.create_vector(children);
    ipc::Field::create(
        b,
        &ipc::FieldArgs {
            name: Some(name),
            nullable: true,
            type_type,
            type_: Some(type_),
            dictionary,
            children: Some(children),
            custom_metadata: None,
        },
    )
}

/// `batch()` written without its own hint, with `hint_with_int128()` in its place.
fn file_with_hint() -> Bytes {
    let batch = batch();
    let props = WriterProperties::builder()
        .set_write_arrow_schema(false)
        .set_key_value_metadata(vec![KeyValue {
            key: "ARROW:schema".into(),
            value: Some(hint_with_int128().into()),
        }])
        .build();
    let mut file = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut file, batch.schema(), Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    Bytes::from(file)
}

#[test]
fn one_unusable_hint_field_keeps_the_others_hinted() {
    let file = file_with_hint();
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();

    // The mapping says which field lost its hint and why.
    let descriptor = SchemaDescriptor::new(&builder.metadata().schema).unwrap();
    let mapping = parquet_to_arrow(
        &descriptor,
        builder.metadata().key_value_metadata.as_deref(),
        &SchemaOptions::default(),
    )
    .unwrap();
    let error = mapping.arrow_schema_hint_error().unwrap();
    assert!(
        error.contains("field `big`") && error.contains("128 bits"),
        "{error}"
    );
    assert!(
        !error.contains("`ts`") && !error.contains("`cat`"),
        "{error}"
    );

    let expected = Schema::new(vec![
        Field::new(
            "ts",
            DataType::Timestamp(TimeUnit::Millisecond, Some(TOKYO.into())),
            true,
        ),
        Field::new("dur", DataType::Duration(TimeUnit::Microsecond), true),
        Field::new(
            "fsl",
            DataType::FixedSizeList(Arc::new(Field::new("item", DataType::Int32, true)), 2),
            true,
        ),
        Field::new(
            "cat",
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
            true,
        ),
        // No hint: the Parquet type of an unannotated FIXED_LEN_BYTE_ARRAY(16).
        Field::new("big", DataType::FixedSizeBinary(16), true),
        Field::new("text", DataType::LargeUtf8, true),
    ]);
    let schema = builder.schema().unwrap();
    let fields: Vec<(&str, &DataType)> = schema
        .fields()
        .iter()
        .map(|f| (f.name().as_str(), f.data_type()))
        .collect();
    let wanted: Vec<(&str, &DataType)> = expected
        .fields()
        .iter()
        .map(|f| (f.name().as_str(), f.data_type()))
        .collect();
    assert_eq!(fields, wanted);

    // And the values read under those types are the ones written.
    let batches: Vec<RecordBatch> = builder.build().unwrap().collect::<Result<_, _>>().unwrap();
    assert_eq!(batches.len(), 1);
    let read = &batches[0];
    let ts = read.column(0).as_primitive::<TimestampMillisecondType>();
    assert_eq!(ts.timezone(), Some(TOKYO));
    assert_eq!(
        ts.iter().collect::<Vec<_>>(),
        vec![Some(1_704_067_200_000), None, Some(0)]
    );
    let dur = read.column(1).as_primitive::<DurationMicrosecondType>();
    assert_eq!(
        dur.iter().collect::<Vec<_>>(),
        vec![Some(1_000_000), Some(-5), None]
    );
    let fsl = read.column(2).as_fixed_size_list();
    assert!(fsl.is_null(1));
    let first = fsl.value(0);
    assert_eq!(
        first.as_primitive::<Int32Type>().values().to_vec(),
        vec![1, 2]
    );
    let third = fsl.value(2);
    let third = third.as_primitive::<Int32Type>();
    assert_eq!(third.iter().collect::<Vec<_>>(), vec![Some(5), None]);
    let cat = read.column(3).as_dictionary::<Int32Type>();
    let cat: Vec<Option<&str>> = cat
        .downcast_dict::<arrow_array::StringArray>()
        .unwrap()
        .into_iter()
        .collect();
    assert_eq!(cat, vec![Some("a"), Some("b"), Some("a")]);
    let big = read.column(4).as_fixed_size_binary();
    assert_eq!(big.value(0), 1i128.to_le_bytes());
    assert_eq!(big.value(1), (-(1i128 << 100)).to_le_bytes());
    assert!(big.is_null(2));
    let text = read.column(5).as_string::<i64>();
    assert_eq!(
        text.iter().collect::<Vec<_>>(),
        vec![Some("x"), None, Some("z")]
    );
}

#[test]
fn with_the_hint_off_every_field_takes_its_parquet_type() {
    // The same file read with the hint switched off: every field falls back, which is
    // what one bad field used to do to all of them.
    let file = file_with_hint();
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .with_schema_options(SchemaOptions::new().with_arrow_schema_hint(false));
    let schema = builder.schema().unwrap();
    assert_eq!(
        schema.field(0).data_type(),
        &DataType::Timestamp(TimeUnit::Millisecond, Some("+00:00".into()))
    );
    assert_eq!(schema.field(1).data_type(), &DataType::Int64);
    assert!(matches!(schema.field(2).data_type(), DataType::List(_)));
    assert_eq!(schema.field(3).data_type(), &DataType::Utf8);
}

/// A real polars 2.1.0 file (scripts/make_polars_int128.py): its hint holds `Int(128)` for
/// `big` (pyarrow 26 refuses the whole file: "Integers with more than 64 bits not
/// implemented"); Herringbone reads `big` as its 16 bytes and keeps every other hinted type.
#[test]
fn a_polars_int128_file_keeps_its_other_hinted_types() {
    let path =
        herringbone_testkit::workspace_root().join("testdata/peers/polars-2.1.0-int128.parquet");
    let file = Bytes::from(std::fs::read(&path).unwrap());
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let schema = reader.arrow_schema().clone();
    let types: Vec<(&str, DataType)> = schema
        .fields()
        .iter()
        .map(|f| (f.name().as_str(), f.data_type().clone()))
        .collect();
    assert_eq!(
        types,
        vec![
            ("big", DataType::FixedSizeBinary(16)),
            ("dur_us", DataType::Duration(TimeUnit::Microsecond)),
            (
                "ts",
                DataType::Timestamp(TimeUnit::Millisecond, Some(TOKYO.into()))
            ),
            (
                "cat",
                DataType::Dictionary(Box::new(DataType::UInt32), Box::new(DataType::LargeUtf8))
            ),
            (
                "arr",
                DataType::FixedSizeList(Arc::new(Field::new("element", DataType::Int32, true)), 2)
            ),
        ]
    );
    let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
    assert_eq!(batches.len(), 1);
    let batch = &batches[0];
    // polars stores the i128 little-endian, two's complement.
    let big = batch.column(0).as_fixed_size_binary();
    assert_eq!(big.value(0), 1i128.to_le_bytes());
    assert_eq!(big.value(1), (-(1i128 << 100)).to_le_bytes());
    assert!(big.is_null(2));
    let dur = batch.column(1).as_primitive::<DurationMicrosecondType>();
    assert_eq!(
        dur.iter().collect::<Vec<_>>(),
        vec![Some(1_000_000), Some(-5), None]
    );
    let ts = batch.column(2).as_primitive::<TimestampMillisecondType>();
    assert_eq!(
        ts.iter().collect::<Vec<_>>(),
        vec![Some(1_704_067_200_000), None, Some(0)]
    );
    let cat = batch
        .column(3)
        .as_dictionary::<arrow_array::types::UInt32Type>();
    let values = cat.values().as_string::<i64>();
    let cat: Vec<Option<&str>> = cat
        .keys()
        .iter()
        .map(|k| k.map(|k| values.value(k as usize)))
        .collect();
    assert_eq!(cat, vec![Some("a"), Some("b"), Some("a")]);
    let arr = batch.column(4).as_fixed_size_list();
    assert_eq!(
        arr.values().as_primitive::<Int32Type>().values().to_vec(),
        vec![1, 2, 3, 4, 0, 0]
    );
    assert!(arr.is_null(2));
}
