//! Every structure, union and enum of `parquet.thrift`, each declared once with its
//! Thrift field ids; readers and writers are generated from these declarations by the
//! macros described below ("thrift codegen").
//!
//! # Thrift codegen
//! `thrift_struct!` turns a declaration such as
//! `pub struct KeyValue { 1: required key: Text, 2: optional value: Text }` into the Rust
//! struct plus a [`ThriftStruct`] implementation: the reader accepts fields in any
//! order, skips unknown ones, and names the structure and field when a required one is
//! missing; the writer emits fields in id order with short headers. `thrift_union!`
//! does the same for unions (a Rust enum with an `Unrecognized` member that keeps the
//! raw bytes of members from newer writers), `thrift_enum!` for enums (an `i32`
//! newtype with the spec's constants, so unknown values are carried).
//!
//! Fields marked `stats` are optional fields that the reader skips at the wire level
//! when [`CompactReader::with_skip_statistics`] is set.
//!
//! ```
//! use herringbone_format::metadata::{KeyValue, Type};
//! use herringbone_format::thrift::ThriftStruct;
//! let kv = KeyValue { key: "a".into(), value: Some("b".into()) };
//! let bytes = bytes::Bytes::from(kv.encode());
//! assert_eq!(KeyValue::decode_prefix(&bytes).unwrap().0, kv);
//! assert_eq!(Type::INT32.to_string(), "INT32");
//! assert_eq!(format!("{:?}", Type(42)), "Type(42)");
//! ```

use bytes::Bytes;

pub use crate::compact::{Binary, ColumnPath, InlineVec};
use crate::error::{ErrorKind, Result};
use crate::thrift::{CompactReader, CompactWriter, Text, ThriftStruct, ThriftValue, wire};

/// Declares a Thrift enum as an `i32` newtype with one constant per member.
macro_rules! thrift_enum {
    (
        $(#[$attr:meta])*
        pub struct $name:ident {
            $( $(#[$vattr:meta])* $variant:ident = $value:literal ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        pub struct $name(pub i32);

        #[allow(non_upper_case_globals)]
        impl $name {
            $(
                $(#[$vattr])*
                #[doc = ""]
                #[doc = concat!("`", stringify!($variant), "` (", stringify!($value), ") in `parquet.thrift`.")]
                pub const $variant: $name = $name($value);
            )*

            /// Every member the spec defines, in value order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The spec's name of this value, `None` for a value this version does not know.
            pub fn name(self) -> Option<&'static str> {
                match self.0 {
                    $( $value => Some(stringify!($variant)), )*
                    _ => None,
                }
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self.name() {
                    Some(n) => f.write_str(n),
                    None => write!(f, "{}({})", stringify!($name), self.0),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(self, f)
            }
        }

        impl From<i32> for $name {
            fn from(v: i32) -> Self {
                $name(v)
            }
        }

        impl ThriftValue for $name {
            const WIRE: u8 = wire::I32;
            #[inline]
            fn read_value(r: &mut CompactReader<'_>) -> Result<Self> {
                r.read_i32().map($name)
            }
            #[inline]
            fn write_value(&self, w: &mut CompactWriter) {
                w.write_i32(self.0)
            }
            #[inline]
            fn element_type_ok(ty: u8) -> bool {
                crate::thrift::is_varint_integer(ty)
            }
        }
    };
}

macro_rules! thrift_field_type {
    (required $ty:ty) => { $ty };
    (optional $ty:ty) => { Option<$ty> };
    (stats $ty:ty) => { Option<$ty> };
}

macro_rules! thrift_read_field {
    (stats $r:ident $wty:ident $this:ident $seen:ident $field:ident $ty:ty, $id:literal $sname:ident) => {
        if $r.skip_statistics() {
            $r.skip_field($wty)?
        } else {
            thrift_read_field!(optional $r $wty $this $seen $field $ty, $id $sname)
        }
    };
    (optional $r:ident $wty:ident $this:ident $seen:ident $field:ident $ty:ty, $id:literal $sname:ident) => {
        crate::thrift::read_field_into::<$ty>($r, $wty, &mut $this.$field)
            .map_err(|e| e.in_field(stringify!($sname), stringify!($field)))?
    };
    (required $r:ident $wty:ident $this:ident $seen:ident $field:ident $ty:ty, $id:literal $sname:ident) => {
        if crate::thrift::read_required_field_into::<$ty>(
            $r,
            $wty,
            &mut $this.$field,
            $seen & (1u64 << $id) != 0,
        )
        .map_err(|e| e.in_field(stringify!($sname), stringify!($field)))?
        {
            $seen |= 1u64 << $id;
        }
    };
}

macro_rules! thrift_check_required {
    (required $r:ident $seen:ident $id:literal, $sname:ident $fname:ident) => {
        if $seen & (1u64 << $id) == 0 {
            return Err($r
                .error(
                    ErrorKind::Invalid,
                    concat!(
                        "required field `",
                        stringify!($fname),
                        "` (id ",
                        stringify!($id),
                        ") is missing"
                    ),
                )
                .in_field(stringify!($sname), stringify!($fname)));
        }
    };
    ($req:ident $r:ident $seen:ident $id:literal, $sname:ident $fname:ident) => {};
}

macro_rules! thrift_write_field {
    (required $w:ident $last:ident $value:expr, $id:literal) => {
        ThriftValue::write_field(&$value, $w, &mut $last, $id)
    };
    ($req:ident $w:ident $last:ident $value:expr, $id:literal) => {
        if let Some(v) = &$value {
            ThriftValue::write_field(v, $w, &mut $last, $id)
        }
    };
}

/// Declares a Thrift structure: the Rust struct, its reader and its writer.
macro_rules! thrift_struct {
    (
        $(#[$attr:meta])*
        $(@on_read $hook:ident;)?
        $(@fast_path $fast:path;)?
        pub struct $name:ident {
            $( $(#[$fattr:meta])* $id:literal : $req:ident $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        #[derive(Debug, Clone, PartialEq, Default)]
        pub struct $name {
            $(
                $(#[$fattr])*
                #[doc = ""]
                #[doc = concat!("Thrift field ", stringify!($id), " (", stringify!($req), ") of `", stringify!($name), "`.")]
                pub $field: thrift_field_type!($req $ty),
            )*
        }

        impl $name {
            /// Reads the structure into `self`, which must be `Default` (fields are
            /// decoded in place, which avoids moving large structures).
            #[allow(unused_mut, unused_variables)]
            pub fn read_in_place(&mut self, r: &mut CompactReader<'_>) -> Result<()> {
                // A hand-tuned reader for the structure's usual layout, if it has one;
                // it leaves anything else to the general reader below.
                $( if $fast(self, r) { return Ok(()); } )?
                r.enter()?;
                $( r.$hook(); )?
                let mut seen: u64 = 0;
                let mut last = 0i16;
                let mut next = r.read_field_header(&mut last)?;
                // Fast path: the fields in declaration (ascending id) order, which is
                // how writers emit them. Each field is one direct, well-predicted test;
                // a `match` in a loop compiles to an indirect jump per field that
                // mispredicts whenever the set of present fields changes.
                $(
                    if let Some((wty, $id)) = next {
                        thrift_read_field!($req r wty self seen $field $ty, $id $name);
                        next = r.read_field_header(&mut last)?;
                    }
                )*
                // Whatever is left (unknown, repeated or out-of-order fields).
                while let Some((wty, id)) = next {
                    match id {
                        $( $id => thrift_read_field!($req r wty self seen $field $ty, $id $name), )*
                        _ => r.skip_field(wty)?,
                    }
                    next = r.read_field_header(&mut last)?;
                }
                r.leave();
                $( thrift_check_required!($req r seen $id, $name $field); )*
                Ok(())
            }
        }

        impl ThriftStruct for $name {
            fn read(r: &mut CompactReader<'_>) -> Result<Self> {
                let mut value = Self::default();
                value.read_in_place(r)?;
                Ok(value)
            }

            #[allow(unused_mut, unused_variables)]
            fn write(&self, w: &mut CompactWriter) {
                let mut last = 0i16;
                $( thrift_write_field!($req w last self.$field, $id); )*
                w.write_stop();
            }
        }

        impl ThriftValue for $name {
            const WIRE: u8 = wire::STRUCT;
            const IN_PLACE: bool = true;
            #[inline]
            fn read_value(r: &mut CompactReader<'_>) -> Result<Self> {
                <Self as ThriftStruct>::read(r)
            }
            #[inline]
            fn read_value_in_place(&mut self, r: &mut CompactReader<'_>) -> Result<()> {
                self.read_in_place(r)
            }
            #[inline]
            fn write_value(&self, w: &mut CompactWriter) {
                <Self as ThriftStruct>::write(self, w)
            }
        }
    };
}

macro_rules! union_read_member {
    ($name:ident $v:ident { $($f:ident),* } ; $inner:ident ; $r:ident) => {
        <$inner as ThriftStruct>::read($r).map(|x| {
            let $inner { $($f),* } = x;
            $name::$v { $($f),* }
        })
    };
    ($name:ident $v:ident ( $t:ty ) ; $inner:ident ; $r:ident) => {
        <$inner as ThriftStruct>::read($r).map($name::$v)
    };
    ($name:ident $v:ident ; $inner:ident ; $r:ident) => {
        <$inner as ThriftStruct>::read($r).map(|_| $name::$v)
    };
}

macro_rules! union_pattern {
    ($name:ident $v:ident { $($f:ident),* } ; $bind:ident) => { $name::$v { $($f),* } };
    ($name:ident $v:ident ( $t:ty ) ; $bind:ident) => { $name::$v($bind) };
    ($name:ident $v:ident ; $bind:ident) => { $name::$v };
}

macro_rules! union_write_member {
    ($v:ident { $($f:ident),* } ; $inner:ident ; $bind:ident ; $w:ident) => {
        ThriftStruct::write(&$inner { $($f: $f.clone()),* }, $w)
    };
    ($v:ident ( $t:ty ) ; $inner:ident ; $bind:ident ; $w:ident) => {
        ThriftStruct::write($bind, $w)
    };
    ($v:ident ; $inner:ident ; $bind:ident ; $w:ident) => {
        ThriftStruct::write(&$inner {}, $w)
    };
}

/// Declares a Thrift union as a Rust enum (plus an `Unrecognized` member for members
/// this version does not know), its reader and its writer.
macro_rules! thrift_union {
    (
        $(#[$attr:meta])*
        pub enum $name:ident (default = $default:expr) {
            $(
                $(#[$vattr:meta])*
                $id:literal : $variant:ident $({ $($f:ident : $fty:ty),* $(,)? })? $(( $tup:ty ))? = $inner:ident
            ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $(
                $(#[$vattr])*
                $variant $({ $(
                    #[doc = concat!("The `", stringify!($f), "` field of the member.")]
                    $f: $fty
                ),* })? $(($tup))?,
            )*
            /// A member this version does not know: its field id and the encoded bytes of
            /// its value (a structure), carried so the file still opens and re-encodes
            /// exactly.
            Unrecognized {
                /// The union field id.
                field_id: i16,
                /// The member's encoded structure, stop byte included.
                raw: Bytes,
            },
        }

        impl Default for $name {
            fn default() -> Self {
                $default
            }
        }

        impl ThriftStruct for $name {
            fn read(r: &mut CompactReader<'_>) -> Result<Self> {
                r.enter()?;
                let mut last = 0i16;
                let Some((wty, id)) = r.read_field_header(&mut last)? else {
                    return Err(r
                        .error(ErrorKind::Invalid, "union has no member set")
                        .in_struct(stringify!($name)));
                };
                let value = match id {
                    $(
                        $id => {
                            r.expect_type(wty, wire::STRUCT)
                                .map_err(|e| e.in_field(stringify!($name), stringify!($variant)))?;
                            let start = r.checkpoint();
                            match union_read_member!(
                                $name $variant $({ $($f),* })? $(($tup))? ; $inner ; r)
                            {
                                Ok(value) => value,
                                // The member holds something newer than this version (a
                                // time unit added after it, say): the member as a whole is
                                // carried unrecognized, as an unknown member would be.
                                Err(e) if e.kind() == ErrorKind::Unsupported => {
                                    r.restore(start);
                                    $name::Unrecognized { field_id: id, raw: r.capture_value(wty)? }
                                }
                                Err(e) => {
                                    return Err(e.in_field(stringify!($name), stringify!($variant)))
                                }
                            }
                        }
                    )*
                    _ => {
                        if wty != wire::STRUCT {
                            return Err(r
                                .error(
                                    ErrorKind::Unsupported,
                                    format!("unknown union member {id} is not a structure"),
                                )
                                .in_struct(stringify!($name)));
                        }
                        $name::Unrecognized { field_id: id, raw: r.capture_value(wty)? }
                    }
                };
                if r.read_field_header(&mut last)?.is_some() {
                    return Err(r
                        .error(ErrorKind::Invalid, "union has more than one member set")
                        .in_struct(stringify!($name)));
                }
                r.leave();
                Ok(value)
            }

            fn write(&self, w: &mut CompactWriter) {
                let mut last = 0i16;
                match self {
                    $(
                        union_pattern!($name $variant $({ $($f),* })? $(($tup))? ; value) => {
                            w.write_field_header(&mut last, wire::STRUCT, $id);
                            union_write_member!($variant $({ $($f),* })? $(($tup))? ; $inner ; value ; w);
                        }
                    )*
                    $name::Unrecognized { field_id, raw } => {
                        w.write_field_header(&mut last, wire::STRUCT, *field_id);
                        w.write_raw(raw);
                    }
                }
                w.write_stop();
            }
        }

        impl ThriftValue for $name {
            const WIRE: u8 = wire::STRUCT;
            #[inline]
            fn read_value(r: &mut CompactReader<'_>) -> Result<Self> {
                <Self as ThriftStruct>::read(r)
            }
            #[inline]
            fn write_value(&self, w: &mut CompactWriter) {
                <Self as ThriftStruct>::write(self, w)
            }
        }
    };
}

// ---------------------------------------------------------------------------------------
// Enums

thrift_enum! {
    /// Physical type of a column.
    pub struct Type {
        BOOLEAN = 0,
        INT32 = 1,
        INT64 = 2,
        /// Deprecated: legacy 96-bit timestamps.
        INT96 = 3,
        FLOAT = 4,
        DOUBLE = 5,
        BYTE_ARRAY = 6,
        FIXED_LEN_BYTE_ARRAY = 7,
    }
}

thrift_enum! {
    /// Deprecated annotation superseded by [`LogicalType`]; still written for compatibility.
    pub struct ConvertedType {
        UTF8 = 0,
        MAP = 1,
        MAP_KEY_VALUE = 2,
        LIST = 3,
        ENUM = 4,
        DECIMAL = 5,
        DATE = 6,
        TIME_MILLIS = 7,
        TIME_MICROS = 8,
        TIMESTAMP_MILLIS = 9,
        TIMESTAMP_MICROS = 10,
        UINT_8 = 11,
        UINT_16 = 12,
        UINT_32 = 13,
        UINT_64 = 14,
        INT_8 = 15,
        INT_16 = 16,
        INT_32 = 17,
        INT_64 = 18,
        JSON = 19,
        BSON = 20,
        INTERVAL = 21,
    }
}

thrift_enum! {
    /// Repetition of a schema field.
    pub struct FieldRepetitionType {
        REQUIRED = 0,
        OPTIONAL = 1,
        REPEATED = 2,
    }
}

thrift_enum! {
    /// Encoding of values or levels.
    pub struct Encoding {
        PLAIN = 0,
        /// Deprecated and never used; kept so the value prints with its name.
        GROUP_VAR_INT = 1,
        PLAIN_DICTIONARY = 2,
        RLE = 3,
        BIT_PACKED = 4,
        DELTA_BINARY_PACKED = 5,
        DELTA_LENGTH_BYTE_ARRAY = 6,
        DELTA_BYTE_ARRAY = 7,
        RLE_DICTIONARY = 8,
        BYTE_STREAM_SPLIT = 9,
    }
}

thrift_enum! {
    /// Compression codec of a column chunk.
    pub struct CompressionCodec {
        UNCOMPRESSED = 0,
        SNAPPY = 1,
        GZIP = 2,
        LZO = 3,
        BROTLI = 4,
        LZ4 = 5,
        ZSTD = 6,
        LZ4_RAW = 7,
    }
}

thrift_enum! {
    /// Kind of page.
    pub struct PageType {
        DATA_PAGE = 0,
        INDEX_PAGE = 1,
        DICTIONARY_PAGE = 2,
        DATA_PAGE_V2 = 3,
    }
}

thrift_enum! {
    /// Whether the min/max lists of a [`ColumnIndex`] are ordered.
    pub struct BoundaryOrder {
        UNORDERED = 0,
        ASCENDING = 1,
        DESCENDING = 2,
    }
}

thrift_enum! {
    /// Edge interpolation of the GEOGRAPHY logical type.
    pub struct EdgeInterpolationAlgorithm {
        SPHERICAL = 0,
        VINCENTY = 1,
        THOMAS = 2,
        ANDOYER = 3,
        KARNEY = 4,
    }
}

// ---------------------------------------------------------------------------------------
// Statistics

/// `ColumnMetaData::encodings`: up to 5 encodings inline (files list 2 to 4).
pub type Encodings = InlineVec<Encoding, 5>;

/// `ColumnMetaData::encoding_stats`: up to 3 entries inline (a dictionary page, data
/// pages with the dictionary and after a fallback).
pub type EncodingStatsList = InlineVec<PageEncodingStats, 3>;

/// A level histogram of [`SizeStatistics`]: up to 3 counts (levels 0..=2) inline.
pub type LevelHistogram = InlineVec<i64, 3>;

thrift_struct! {
    /// Unencoded sizes and level histograms of a column chunk or page.
    #[derive(Eq, Hash)]
    pub struct SizeStatistics {
        1: optional unencoded_byte_array_data_bytes: i64,
        2: optional repetition_level_histogram: LevelHistogram,
        3: optional definition_level_histogram: LevelHistogram,
    }
}

thrift_struct! {
    /// Bounding box of GEOMETRY / GEOGRAPHY values.
    pub struct BoundingBox {
        1: required xmin: f64,
        2: required xmax: f64,
        3: required ymin: f64,
        4: required ymax: f64,
        5: optional zmin: f64,
        6: optional zmax: f64,
        7: optional mmin: f64,
        8: optional mmax: f64,
    }
}

thrift_struct! {
    /// Statistics of GEOMETRY / GEOGRAPHY columns.
    pub struct GeospatialStatistics {
        1: optional bbox: BoundingBox,
        2: optional geospatial_types: Vec<i32>,
    }
}

thrift_struct! {
    /// Statistics of a column chunk or page (values PLAIN-encoded, byte arrays without
    /// their length prefix).
    #[derive(Eq, Hash)]
    pub struct Statistics {
        /// Deprecated: maximum by signed comparison.
        1: optional max: Binary,
        /// Deprecated: minimum by signed comparison.
        2: optional min: Binary,
        3: optional null_count: i64,
        4: optional distinct_count: i64,
        5: optional max_value: Binary,
        6: optional min_value: Binary,
        7: optional is_max_value_exact: bool,
        8: optional is_min_value_exact: bool,
        9: optional nan_count: i64,
    }
}

// ---------------------------------------------------------------------------------------
// Logical types

thrift_struct! {
    /// Annotation structure of `LogicalType::String`.
    #[derive(Eq, Hash)]
    pub struct StringType {}
}
thrift_struct! {
    /// Annotation structure of `LogicalType::Uuid`.
    #[derive(Eq, Hash)]
    pub struct UUIDType {}
}
thrift_struct! {
    /// Annotation structure of `LogicalType::Map`.
    #[derive(Eq, Hash)]
    pub struct MapType {}
}
thrift_struct! {
    /// Annotation structure of `LogicalType::List`.
    #[derive(Eq, Hash)]
    pub struct ListType {}
}
thrift_struct! {
    /// Annotation structure of `LogicalType::Enum`.
    #[derive(Eq, Hash)]
    pub struct EnumType {}
}
thrift_struct! {
    /// Annotation structure of `LogicalType::Date`.
    #[derive(Eq, Hash)]
    pub struct DateType {}
}
thrift_struct! {
    /// Annotation structure of `LogicalType::Float16`.
    #[derive(Eq, Hash)]
    pub struct Float16Type {}
}
thrift_struct! {
    /// Annotation structure of `LogicalType::Unknown` (always-null columns).
    #[derive(Eq, Hash)]
    pub struct NullType {}
}
thrift_struct! {
    /// Annotation structure of `LogicalType::Json`.
    #[derive(Eq, Hash)]
    pub struct JsonType {}
}
thrift_struct! {
    /// Annotation structure of `LogicalType::Bson`.
    #[derive(Eq, Hash)]
    pub struct BsonType {}
}
thrift_struct! {
    /// Annotation structure of `LogicalType::Decimal`.
    #[derive(Eq, Hash)]
    pub struct DecimalType {
        1: required scale: i32,
        2: required precision: i32,
    }
}
thrift_struct! {
    /// Time unit member `MILLIS`.
    #[derive(Eq, Hash)]
    pub struct MilliSeconds {}
}
thrift_struct! {
    /// Time unit member `MICROS`.
    #[derive(Eq, Hash)]
    pub struct MicroSeconds {}
}
thrift_struct! {
    /// Time unit member `NANOS`.
    #[derive(Eq, Hash)]
    pub struct NanoSeconds {}
}

/// Unit of TIME and TIMESTAMP logical types (the Thrift union `TimeUnit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TimeUnit {
    /// Milliseconds.
    #[default]
    Millis,
    /// Microseconds.
    Micros,
    /// Nanoseconds.
    Nanos,
}

impl ThriftStruct for TimeUnit {
    fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        r.enter()?;
        let mut last = 0i16;
        let Some((wty, id)) = r.read_field_header(&mut last)? else {
            return Err(r
                .error(ErrorKind::Invalid, "union has no member set")
                .in_struct("TimeUnit"));
        };
        r.expect_type(wty, wire::STRUCT)
            .map_err(|e| e.in_struct("TimeUnit"))?;
        let unit = match id {
            1 => MilliSeconds::read(r).map(|_| TimeUnit::Millis),
            2 => MicroSeconds::read(r).map(|_| TimeUnit::Micros),
            3 => NanoSeconds::read(r).map(|_| TimeUnit::Nanos),
            other => Err(r.error(
                ErrorKind::Unsupported,
                format!("unknown time unit (union member {other})"),
            )),
        }
        .map_err(|e| e.in_struct("TimeUnit"))?;
        if r.read_field_header(&mut last)?.is_some() {
            return Err(r
                .error(ErrorKind::Invalid, "union has more than one member set")
                .in_struct("TimeUnit"));
        }
        r.leave();
        Ok(unit)
    }

    fn write(&self, w: &mut CompactWriter) {
        let mut last = 0i16;
        let id = match self {
            TimeUnit::Millis => 1,
            TimeUnit::Micros => 2,
            TimeUnit::Nanos => 3,
        };
        w.write_field_header(&mut last, wire::STRUCT, id);
        w.write_stop();
        w.write_stop();
    }
}

impl ThriftValue for TimeUnit {
    const WIRE: u8 = wire::STRUCT;
    fn read_value(r: &mut CompactReader<'_>) -> Result<Self> {
        <Self as ThriftStruct>::read(r)
    }
    fn write_value(&self, w: &mut CompactWriter) {
        <Self as ThriftStruct>::write(self, w)
    }
}

thrift_struct! {
    /// Annotation structure of `LogicalType::Timestamp`.
    #[derive(Eq, Hash)]
    pub struct TimestampType {
        1: required is_adjusted_to_utc: bool,
        2: required unit: TimeUnit,
    }
}
thrift_struct! {
    /// Annotation structure of `LogicalType::Time`.
    #[derive(Eq, Hash)]
    pub struct TimeType {
        1: required is_adjusted_to_utc: bool,
        2: required unit: TimeUnit,
    }
}
thrift_struct! {
    /// Annotation structure of `LogicalType::Integer`.
    #[derive(Eq, Hash)]
    pub struct IntType {
        1: required bit_width: i8,
        2: required is_signed: bool,
    }
}
thrift_struct! {
    /// Annotation structure of `LogicalType::Variant`.
    #[derive(Eq, Hash)]
    pub struct VariantType {
        1: optional specification_version: i8,
    }
}
thrift_struct! {
    /// Annotation structure of `LogicalType::Geometry`.
    #[derive(Eq, Hash)]
    pub struct GeometryType {
        1: optional crs: Text,
    }
}
thrift_struct! {
    /// Annotation structure of `LogicalType::Geography`.
    #[derive(Eq, Hash)]
    pub struct GeographyType {
        1: optional crs: Text,
        2: optional algorithm: EdgeInterpolationAlgorithm,
    }
}

thrift_union! {
    /// Logical type annotation of a schema element.
    pub enum LogicalType (default = LogicalType::String) {
        /// UTF-8 text (BYTE_ARRAY).
        1: String = StringType,
        /// Map group.
        2: Map = MapType,
        /// List group.
        3: List = ListType,
        /// Enum text (BYTE_ARRAY).
        4: Enum = EnumType,
        /// Decimal with scale and precision.
        5: Decimal { scale: i32, precision: i32 } = DecimalType,
        /// Days since the epoch (INT32).
        6: Date = DateType,
        /// Time of day.
        7: Time { is_adjusted_to_utc: bool, unit: TimeUnit } = TimeType,
        /// Instant or local date-time.
        8: Timestamp { is_adjusted_to_utc: bool, unit: TimeUnit } = TimestampType,
        /// Integer of a bit width and signedness.
        10: Integer { bit_width: i8, is_signed: bool } = IntType,
        /// Always-null column (`UNKNOWN`, union id 11).
        11: Unknown = NullType,
        /// JSON text.
        12: Json = JsonType,
        /// BSON document.
        13: Bson = BsonType,
        /// UUID (FIXED_LEN_BYTE_ARRAY(16)).
        14: Uuid = UUIDType,
        /// Half float (FIXED_LEN_BYTE_ARRAY(2)).
        15: Float16 = Float16Type,
        /// Variant (semi-structured) group.
        16: Variant { specification_version: Option<i8> } = VariantType,
        /// Geometry (WKB), planar edges.
        17: Geometry { crs: Option<Text> } = GeometryType,
        /// Geography (WKB) with an edge interpolation algorithm.
        18: Geography { crs: Option<Text>, algorithm: Option<EdgeInterpolationAlgorithm> } = GeographyType,
    }
}

// ---------------------------------------------------------------------------------------
// Schema

thrift_struct! {
    /// One node of the flattened (depth-first) schema.
    #[derive(Eq, Hash)]
    pub struct SchemaElement {
        /// Physical type; unset for groups.
        1: optional type_: Type,
        /// Byte length of FIXED_LEN_BYTE_ARRAY values.
        2: optional type_length: i32,
        /// Unset for the root.
        3: optional repetition_type: FieldRepetitionType,
        4: required name: Text,
        /// Number of children; set for groups only.
        5: optional num_children: i32,
        6: optional converted_type: ConvertedType,
        7: optional scale: i32,
        8: optional precision: i32,
        9: optional field_id: i32,
        10: optional logical_type: LogicalType,
    }
}

// ---------------------------------------------------------------------------------------
// Pages

thrift_struct! {
    /// Header of a v1 data page.
    #[derive(Eq, Hash)]
    pub struct DataPageHeader {
        1: required num_values: i32,
        2: required encoding: Encoding,
        3: required definition_level_encoding: Encoding,
        4: required repetition_level_encoding: Encoding,
        5: optional statistics: Statistics,
    }
}

thrift_struct! {
    /// Header of an index page (no fields defined by the spec).
    #[derive(Eq, Hash)]
    pub struct IndexPageHeader {}
}

thrift_struct! {
    /// Header of a dictionary page.
    #[derive(Eq, Hash)]
    pub struct DictionaryPageHeader {
        1: required num_values: i32,
        2: required encoding: Encoding,
        3: optional is_sorted: bool,
    }
}

thrift_struct! {
    /// Header of a v2 data page (levels uncompressed, ahead of the values).
    #[derive(Eq, Hash)]
    pub struct DataPageHeaderV2 {
        1: required num_values: i32,
        2: required num_nulls: i32,
        3: required num_rows: i32,
        4: required encoding: Encoding,
        5: required definition_levels_byte_length: i32,
        6: required repetition_levels_byte_length: i32,
        /// Absent means compressed.
        7: optional is_compressed: bool,
        8: optional statistics: Statistics,
    }
}

thrift_struct! {
    /// Member `BLOCK` of [`BloomFilterAlgorithm`].
    #[derive(Eq, Hash)]
    pub struct SplitBlockAlgorithm {}
}
thrift_union! {
    /// Bloom filter algorithm.
    pub enum BloomFilterAlgorithm (default = BloomFilterAlgorithm::Block) {
        /// Split-block Bloom filter.
        1: Block = SplitBlockAlgorithm,
    }
}
thrift_struct! {
    /// Member `XXHASH` of [`BloomFilterHash`].
    #[derive(Eq, Hash)]
    pub struct XxHash {}
}
thrift_union! {
    /// Bloom filter hash function.
    pub enum BloomFilterHash (default = BloomFilterHash::Xxhash) {
        /// XXH64 with seed 0.
        1: Xxhash = XxHash,
    }
}
thrift_struct! {
    /// Member `UNCOMPRESSED` of [`BloomFilterCompression`].
    #[derive(Eq, Hash)]
    pub struct Uncompressed {}
}
thrift_union! {
    /// Bloom filter compression.
    pub enum BloomFilterCompression (default = BloomFilterCompression::Uncompressed) {
        /// Stored as is.
        1: Uncompressed = Uncompressed,
    }
}

thrift_struct! {
    /// Header in front of a Bloom filter bitset.
    #[derive(Eq, Hash)]
    pub struct BloomFilterHeader {
        /// Size of the bitset in bytes.
        1: required num_bytes: i32,
        2: required algorithm: BloomFilterAlgorithm,
        3: required hash: BloomFilterHash,
        4: required compression: BloomFilterCompression,
    }
}

thrift_struct! {
    /// Header in front of every page.
    #[derive(Eq, Hash)]
    pub struct PageHeader {
        1: required type_: PageType,
        /// Uncompressed page size, header excluded.
        2: required uncompressed_page_size: i32,
        /// Compressed (and possibly encrypted) page size, header excluded.
        3: required compressed_page_size: i32,
        /// CRC32 of the page bytes after the header.
        4: optional crc: i32,
        5: optional data_page_header: DataPageHeader,
        6: optional index_page_header: IndexPageHeader,
        7: optional dictionary_page_header: DictionaryPageHeader,
        8: optional data_page_header_v2: DataPageHeaderV2,
    }
}

// ---------------------------------------------------------------------------------------
// Column chunks, row groups, file

thrift_struct! {
    /// A key/value metadata pair.
    #[derive(Eq, Hash)]
    pub struct KeyValue {
        1: required key: Text,
        2: optional value: Text,
    }
}

thrift_struct! {
    /// Sort order of one leaf column within a row group.
    #[derive(Eq, Hash)]
    pub struct SortingColumn {
        1: required column_idx: i32,
        2: required descending: bool,
        3: required nulls_first: bool,
    }
}

thrift_struct! {
    /// Number of pages of one type and encoding.
    #[derive(Copy, Eq, Hash)]
    pub struct PageEncodingStats {
        1: required page_type: PageType,
        2: required encoding: Encoding,
        3: required count: i32,
    }
}

thrift_struct! {
    /// Metadata of a column chunk.
    pub struct ColumnMetaData {
        1: required type_: Type,
        /// Every encoding used in the chunk, as the file lists them.
        2: required encodings: Encodings,
        /// Shared between the row groups that repeat it (see [`ColumnPath`]).
        3: required path_in_schema: ColumnPath,
        4: required codec: CompressionCodec,
        5: required num_values: i64,
        6: required total_uncompressed_size: i64,
        7: required total_compressed_size: i64,
        /// Boxed: rarely present on a chunk.
        8: optional key_value_metadata: Box<Vec<KeyValue>>,
        9: required data_page_offset: i64,
        10: optional index_page_offset: i64,
        11: optional dictionary_page_offset: i64,
        12: stats statistics: Statistics,
        13: stats encoding_stats: EncodingStatsList,
        14: optional bloom_filter_offset: i64,
        /// Bloom filter size including its header.
        15: optional bloom_filter_length: i32,
        16: stats size_statistics: SizeStatistics,
        /// Boxed: only GEOMETRY / GEOGRAPHY columns have them.
        17: stats geospatial_statistics: Box<GeospatialStatistics>,
    }
}

thrift_struct! {
    /// Member `ENCRYPTION_WITH_FOOTER_KEY` of [`ColumnCryptoMetaData`].
    #[derive(Eq, Hash)]
    pub struct EncryptionWithFooterKey {}
}

thrift_struct! {
    /// Member `ENCRYPTION_WITH_COLUMN_KEY` of [`ColumnCryptoMetaData`].
    #[derive(Eq, Hash)]
    pub struct EncryptionWithColumnKey {
        1: required path_in_schema: Vec<Text>,
        2: optional key_metadata: Bytes,
    }
}

thrift_union! {
    /// How a column is encrypted.
    pub enum ColumnCryptoMetaData (default = ColumnCryptoMetaData::EncryptionWithFooterKey) {
        /// With the footer key.
        1: EncryptionWithFooterKey = EncryptionWithFooterKey,
        /// With a column key.
        2: EncryptionWithColumnKey(EncryptionWithColumnKey) = EncryptionWithColumnKey,
    }
}

thrift_struct! {
    /// A column chunk of a row group.
    // Wide footers are made of these: the usual layout has a hand-tuned reader.
    @fast_path crate::chunk::read_column_chunk;
    pub struct ColumnChunk {
        /// Boxed: only chunks stored in another file have it.
        1: optional file_path: Box<Text>,
        /// Deprecated; 0 when the metadata is not stored outside the footer.
        2: required file_offset: i64,
        3: optional meta_data: ColumnMetaData,
        4: optional offset_index_offset: i64,
        5: optional offset_index_length: i32,
        6: optional column_index_offset: i64,
        7: optional column_index_length: i32,
        /// Boxed: only encrypted columns have it.
        8: optional crypto_metadata: Box<ColumnCryptoMetaData>,
        /// Boxed: only encrypted columns have it.
        9: optional encrypted_column_metadata: Box<Bytes>,
    }
}

thrift_struct! {
    /// A row group.
    // Column paths are shared with the previous row group's chunk at the same position.
    @on_read begin_row_group;
    pub struct RowGroup {
        /// One chunk per leaf column, in schema order. After a selective decode
        /// (`footer::FooterOptions::with_columns`) only the selected leaves, in
        /// ascending leaf index order.
        1: required columns: Vec<ColumnChunk>,
        2: required total_byte_size: i64,
        3: required num_rows: i64,
        4: optional sorting_columns: Vec<SortingColumn>,
        5: optional file_offset: i64,
        6: optional total_compressed_size: i64,
        7: optional ordinal: i16,
    }
}

thrift_struct! {
    /// Member `TYPE_ORDER` of [`ColumnOrder`].
    #[derive(Eq, Hash)]
    pub struct TypeDefinedOrder {}
}
thrift_struct! {
    /// Member `IEEE_754_TOTAL_ORDER` of [`ColumnOrder`].
    #[derive(Eq, Hash)]
    pub struct IEEE754TotalOrder {}
}
thrift_struct! {
    /// Member `INT96_TIMESTAMP_ORDER` of [`ColumnOrder`].
    #[derive(Eq, Hash)]
    pub struct Int96TimestampOrder {}
}

thrift_union! {
    /// Sort order of a column's statistics.
    pub enum ColumnOrder (default = ColumnOrder::TypeDefinedOrder) {
        /// The order of the logical (or physical) type.
        1: TypeDefinedOrder = TypeDefinedOrder,
        /// IEEE 754 totalOrder for floating point columns.
        2: Ieee754TotalOrder = IEEE754TotalOrder,
        /// Chronological order of INT96 timestamps.
        3: Int96TimestampOrder = Int96TimestampOrder,
    }
}

thrift_struct! {
    /// Location of one page (page index).
    #[derive(Eq, Hash)]
    pub struct PageLocation {
        1: required offset: i64,
        /// Page size including its header.
        2: required compressed_page_size: i32,
        3: required first_row_index: i64,
    }
}

thrift_struct! {
    /// Page locations of a column chunk (page index).
    #[derive(Eq, Hash)]
    pub struct OffsetIndex {
        1: required page_locations: Vec<PageLocation>,
        2: optional unencoded_byte_array_data_bytes: Vec<i64>,
    }
}

thrift_struct! {
    /// Per-page statistics of a column chunk (page index).
    #[derive(Eq, Hash)]
    pub struct ColumnIndex {
        1: required null_pages: Vec<bool>,
        2: required min_values: Vec<Bytes>,
        3: required max_values: Vec<Bytes>,
        4: required boundary_order: BoundaryOrder,
        5: optional null_counts: Vec<i64>,
        6: optional repetition_level_histograms: Vec<i64>,
        7: optional definition_level_histograms: Vec<i64>,
        8: optional nan_counts: Vec<i64>,
    }
}

thrift_struct! {
    /// Parameters of AES-GCM module encryption.
    #[derive(Eq, Hash)]
    pub struct AesGcmV1 {
        1: optional aad_prefix: Bytes,
        2: optional aad_file_unique: Bytes,
        3: optional supply_aad_prefix: bool,
    }
}

thrift_struct! {
    /// Parameters of AES-GCM-CTR module encryption.
    #[derive(Eq, Hash)]
    pub struct AesGcmCtrV1 {
        1: optional aad_prefix: Bytes,
        2: optional aad_file_unique: Bytes,
        3: optional supply_aad_prefix: bool,
    }
}

thrift_union! {
    /// Encryption algorithm of a file.
    pub enum EncryptionAlgorithm (default = EncryptionAlgorithm::AesGcmV1(AesGcmV1::default())) {
        /// AES-GCM for all modules.
        1: AesGcmV1(AesGcmV1) = AesGcmV1,
        /// AES-GCM for metadata, AES-CTR for page data.
        2: AesGcmCtrV1(AesGcmCtrV1) = AesGcmCtrV1,
    }
}

thrift_struct! {
    /// The file footer.
    pub struct FileMetaData {
        1: required version: i32,
        /// Depth-first flattened schema; the first element is the root.
        2: required schema: Vec<SchemaElement>,
        3: required num_rows: i64,
        /// After a selective decode (`footer::FooterOptions::with_row_groups`) only the
        /// selected row groups, in file order.
        4: required row_groups: Vec<RowGroup>,
        5: optional key_value_metadata: Vec<KeyValue>,
        6: optional created_by: Text,
        /// One per leaf column, in schema order.
        7: optional column_orders: Vec<ColumnOrder>,
        8: optional encryption_algorithm: EncryptionAlgorithm,
        9: optional footer_signing_key_metadata: Bytes,
    }
}

thrift_struct! {
    /// Crypto metadata in front of an encrypted footer (`PARE` files).
    #[derive(Eq, Hash)]
    pub struct FileCryptoMetaData {
        1: required encryption_algorithm: EncryptionAlgorithm,
        2: optional key_metadata: Bytes,
    }
}
