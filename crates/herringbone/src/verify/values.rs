//! A page's levels and values as physical values, batch by batch: what the verifier
//! checks statistics, indexes, Bloom filters and sort order against.
//!
//! No Arrow here and nothing sized by a count the page declares: levels are decoded a
//! batch at a time into buffers of at most [`BATCH`] entries, values are handed to a
//! callback one by one (byte arrays as slices of the page or the dictionary, without a
//! copy, except DELTA_BYTE_ARRAY values, which are rebuilt in a small scratch buffer).

use bytes::Bytes;
use herringbone_codec::bitpack::unpack_msb_first;
use herringbone_codec::encoding::byte_stream_split::ByteStreamSplitDecoder;
use herringbone_codec::encoding::delta_binary_packed::DeltaBinaryPackedDecoder;
use herringbone_codec::encoding::delta_byte_array::DeltaByteArrayDecoder;
use herringbone_codec::encoding::delta_length_byte_array::DeltaLengthByteArrayDecoder;
use herringbone_codec::encoding::dictionary::DictionaryIndexDecoder;
use herringbone_codec::encoding::plain::{PlainBooleanDecoder, PlainDecoder};
use herringbone_codec::rle::RleDecoder;
use herringbone_codec::{Error, Result};
use herringbone_format::metadata::{Encoding, Type};

/// Levels (and values) decoded per step.
pub(crate) const BATCH: usize = 1024;

/// DELTA_BYTE_ARRAY values are rebuilt in sub-batches whose bytes stay near this size.
const SCRATCH_BYTES: usize = 1 << 20;

/// One physical value, borrowed from the page, the dictionary or a scratch buffer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Value<'a> {
    Bool(bool),
    Int32(i32),
    Int64(i64),
    Int96([u8; 12]),
    Float(f32),
    Double(f64),
    /// BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY.
    Bytes(&'a [u8]),
}

impl Value<'_> {
    /// The value's PLAIN encoding without a length prefix: what statistics, Bloom
    /// filters and distinct counts are computed over.
    pub(crate) fn plain_bytes(&self, out: &mut Vec<u8>) {
        out.clear();
        match *self {
            Value::Bool(v) => out.push(u8::from(v)),
            Value::Int32(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::Int64(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::Int96(v) => out.extend_from_slice(&v),
            Value::Float(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::Double(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::Bytes(v) => out.extend_from_slice(v),
        }
    }

    /// The value decoded from its PLAIN statistics bytes, when they have the type's
    /// width (any length for byte arrays).
    pub(crate) fn from_plain(physical: Type, bytes: &[u8]) -> Option<Value<'_>> {
        Some(match physical {
            Type::BOOLEAN => Value::Bool(*bytes.first()? != 0).filter_len(bytes, 1)?,
            Type::INT32 => Value::Int32(i32::from_le_bytes(bytes.try_into().ok()?)),
            Type::INT64 => Value::Int64(i64::from_le_bytes(bytes.try_into().ok()?)),
            Type::INT96 => Value::Int96(bytes.try_into().ok()?),
            Type::FLOAT => Value::Float(f32::from_le_bytes(bytes.try_into().ok()?)),
            Type::DOUBLE => Value::Double(f64::from_le_bytes(bytes.try_into().ok()?)),
            Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY => Value::Bytes(bytes),
            _ => return None,
        })
    }

    fn filter_len(self, bytes: &[u8], len: usize) -> Option<Self> {
        (bytes.len() == len).then_some(self)
    }
}

/// A chunk's dictionary page, decoded (PLAIN values).
#[derive(Debug, Clone)]
pub(crate) struct Dictionary {
    entries: DictionaryEntries,
}

#[derive(Debug, Clone)]
enum DictionaryEntries {
    Bool(Vec<bool>),
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    Int96(Vec<[u8; 12]>),
    Float(Vec<f32>),
    Double(Vec<f64>),
    Bytes {
        data: Bytes,
        ranges: Vec<(usize, usize)>,
    },
}

impl Dictionary {
    /// Decodes `num_values` PLAIN values of `physical` (`width` bytes each for
    /// FIXED_LEN_BYTE_ARRAY) from a dictionary page; every byte must be used.
    pub(crate) fn decode(
        physical: Type,
        width: usize,
        data: Bytes,
        num_values: usize,
    ) -> Result<Dictionary> {
        fn fixed<const N: usize, T>(
            data: &[u8],
            num_values: usize,
            from: impl Fn([u8; N]) -> T,
        ) -> Result<Vec<T>> {
            let needed = num_values.saturating_mul(N);
            if needed != data.len() {
                return Err(Error::corrupt(format!(
                    "dictionary page of {num_values} values of {N} bytes holds {} bytes, {needed} expected",
                    data.len()
                )));
            }
            Ok(data
                .chunks_exact(N)
                .map(|c| from(c.try_into().expect("N bytes")))
                .collect())
        }
        let entries = match physical {
            Type::BOOLEAN => {
                if num_values.div_ceil(8) > data.len() {
                    return Err(Error::corrupt(format!(
                        "dictionary page of {num_values} booleans holds {} bytes",
                        data.len()
                    )));
                }
                let mut values = vec![false; num_values];
                PlainBooleanDecoder::new(&data).decode(&mut values);
                DictionaryEntries::Bool(values)
            }
            Type::INT32 => DictionaryEntries::Int32(fixed(&data, num_values, i32::from_le_bytes)?),
            Type::INT64 => DictionaryEntries::Int64(fixed(&data, num_values, i64::from_le_bytes)?),
            Type::INT96 => DictionaryEntries::Int96(fixed(&data, num_values, |b: [u8; 12]| b)?),
            Type::FLOAT => DictionaryEntries::Float(fixed(&data, num_values, f32::from_le_bytes)?),
            Type::DOUBLE => {
                DictionaryEntries::Double(fixed(&data, num_values, f64::from_le_bytes)?)
            }
            Type::FIXED_LEN_BYTE_ARRAY => {
                let needed = num_values.saturating_mul(width);
                if needed != data.len() || width == 0 {
                    return Err(Error::corrupt(format!(
                        "dictionary page of {num_values} values of {width} bytes holds {} bytes, {needed} expected",
                        data.len()
                    )));
                }
                let ranges = (0..num_values).map(|i| (i * width, width)).collect();
                DictionaryEntries::Bytes { data, ranges }
            }
            Type::BYTE_ARRAY => {
                // Each entry takes at least its 4-byte length: the capacity is bounded
                // by the bytes present, not by the count the header declares.
                let mut ranges = Vec::with_capacity(num_values.min(data.len() / 4));
                let mut decoder = PlainDecoder::new(&data);
                let mut views = Vec::new();
                while ranges.len() < num_values {
                    views.clear();
                    let want = (num_values - ranges.len()).min(BATCH);
                    let got = decoder.decode_byte_array_views(want, &mut views)?;
                    ranges.extend(views.iter().map(|&(s, l)| (s as usize, l as usize)));
                    if got < want {
                        return Err(Error::corrupt(format!(
                            "dictionary page holds {} of its {num_values} values",
                            ranges.len()
                        )));
                    }
                }
                if decoder.remaining_bytes() != 0 {
                    return Err(Error::corrupt(format!(
                        "dictionary page has {} bytes after its {num_values} values",
                        decoder.remaining_bytes()
                    )));
                }
                DictionaryEntries::Bytes { data, ranges }
            }
            other => {
                return Err(Error::corrupt(format!("unknown physical type {other:?}")));
            }
        };
        Ok(Dictionary { entries })
    }

    /// Number of entries.
    pub(crate) fn len(&self) -> usize {
        match &self.entries {
            DictionaryEntries::Bool(v) => v.len(),
            DictionaryEntries::Int32(v) => v.len(),
            DictionaryEntries::Int64(v) => v.len(),
            DictionaryEntries::Int96(v) => v.len(),
            DictionaryEntries::Float(v) => v.len(),
            DictionaryEntries::Double(v) => v.len(),
            DictionaryEntries::Bytes { ranges, .. } => ranges.len(),
        }
    }

    /// Entry `i` (which must be in range).
    pub(crate) fn get(&self, i: usize) -> Value<'_> {
        match &self.entries {
            DictionaryEntries::Bool(v) => Value::Bool(v[i]),
            DictionaryEntries::Int32(v) => Value::Int32(v[i]),
            DictionaryEntries::Int64(v) => Value::Int64(v[i]),
            DictionaryEntries::Int96(v) => Value::Int96(v[i]),
            DictionaryEntries::Float(v) => Value::Float(v[i]),
            DictionaryEntries::Double(v) => Value::Double(v[i]),
            DictionaryEntries::Bytes { data, ranges } => {
                let (start, len) = ranges[i];
                Value::Bytes(&data[start..start + len])
            }
        }
    }
}

/// The sections of a decompressed data page.
#[derive(Debug, Clone)]
pub(crate) struct DataPage {
    /// Levels and values, as the page stores them after decompression (v1), or the
    /// values only (v2).
    pub values: Bytes,
    /// v2: repetition and definition level sections (RLE without a length prefix).
    pub v2_levels: Option<(Bytes, Bytes)>,
    pub num_values: usize,
    pub encoding: Encoding,
    pub def_level_encoding: Encoding,
    pub rep_level_encoding: Encoding,
}

/// What the column's schema says about its levels and values.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ColumnShape {
    pub physical: Type,
    /// FIXED_LEN_BYTE_ARRAY width (0 otherwise).
    pub width: usize,
    pub max_def: u16,
    pub max_rep: u16,
}

fn level_bit_width(max: u16) -> usize {
    (16 - max.leading_zeros()) as usize
}

enum Levels<'p> {
    /// Max level 0: no levels stored, every level is 0.
    None,
    Rle(RleDecoder<&'p [u8]>),
    /// The deprecated BIT_PACKED levels (v1 only): `count` levels, most significant bit
    /// first.
    BitPacked {
        data: &'p [u8],
        width: usize,
        next: usize,
    },
}

impl Levels<'_> {
    /// Decodes `out.len()` levels; each must be at most `max`.
    fn decode(&mut self, out: &mut [u16], max: u16, kind: &str) -> Result<()> {
        match self {
            Levels::None => out.fill(0),
            Levels::Rle(decoder) => {
                let got = decoder.get_batch(out)?;
                if got < out.len() {
                    return Err(Error::corrupt(format!(
                        "{kind} levels end early: {got} of {} decoded in this step",
                        out.len()
                    )));
                }
            }
            Levels::BitPacked { data, width, next } => {
                unpack_msb_first(data, *width, *next, out)?;
                *next += out.len();
            }
        }
        if let Some(bad) = out.iter().find(|&&l| l > max) {
            return Err(Error::corrupt(format!(
                "{kind} level {bad} exceeds the column's maximum {max}"
            )));
        }
        Ok(())
    }
}

enum Values<'p> {
    Plain(PlainDecoder<&'p [u8]>),
    PlainBool(PlainBooleanDecoder<&'p [u8]>),
    RleBool(RleDecoder<&'p [u8]>),
    Dictionary(DictionaryIndexDecoder<&'p [u8]>),
    Delta32(DeltaBinaryPackedDecoder<i32, &'p [u8]>),
    Delta64(DeltaBinaryPackedDecoder<i64, &'p [u8]>),
    DeltaLength(DeltaLengthByteArrayDecoder<&'p [u8]>),
    DeltaByteArray(DeltaByteArrayDecoder<&'p [u8]>),
    Split(ByteStreamSplitDecoder<&'p [u8]>),
}

/// Decodes one data page batch by batch: [`PageDecoder::next_levels`], then
/// [`PageDecoder::values`] for the values those levels say are present.
pub(crate) struct PageDecoder<'p> {
    shape: ColumnShape,
    data: &'p [u8],
    rep: Levels<'p>,
    def: Levels<'p>,
    values: Values<'p>,
    levels_left: usize,
    rep_buf: Vec<u16>,
    def_buf: Vec<u16>,
    index_buf: Vec<u32>,
    bool_buf: Vec<bool>,
    i32_buf: Vec<i32>,
    i64_buf: Vec<i64>,
    views: Vec<(u32, u32)>,
    scratch_offsets: Vec<i64>,
    scratch: Vec<u8>,
    largest_value: usize,
}

impl<'p> PageDecoder<'p> {
    /// A decoder over `page` (whose buffers outlive it).
    pub(crate) fn new(shape: ColumnShape, page: &'p DataPage) -> Result<Self> {
        let (rep, def, values_data) = match &page.v2_levels {
            Some((rep_bytes, def_bytes)) => {
                // Some writers store a run of zeros for a level whose maximum is 0:
                // there is nothing to decode either way.
                let rep = if shape.max_rep == 0 {
                    Levels::None
                } else {
                    Levels::Rle(RleDecoder::new(rep_bytes, level_bit_width(shape.max_rep))?)
                };
                let def = if shape.max_def == 0 {
                    Levels::None
                } else {
                    Levels::Rle(RleDecoder::new(def_bytes, level_bit_width(shape.max_def))?)
                };
                (rep, def, &page.values[..])
            }
            None => {
                let mut rest: &[u8] = &page.values;
                let rep = v1_levels(
                    &mut rest,
                    shape.max_rep,
                    page.rep_level_encoding,
                    page.num_values,
                    "repetition",
                )?;
                let def = v1_levels(
                    &mut rest,
                    shape.max_def,
                    page.def_level_encoding,
                    page.num_values,
                    "definition",
                )?;
                (rep, def, rest)
            }
        };
        let values = value_decoder(shape, page.encoding, values_data)?;
        Ok(Self {
            shape,
            data: values_data,
            rep,
            def,
            values,
            levels_left: page.num_values,
            rep_buf: Vec::new(),
            def_buf: Vec::new(),
            index_buf: Vec::new(),
            bool_buf: Vec::new(),
            i32_buf: Vec::new(),
            i64_buf: Vec::new(),
            views: Vec::new(),
            scratch_offsets: Vec::new(),
            scratch: Vec::new(),
            largest_value: 0,
        })
    }

    /// Decodes the next batch of levels (at most [`BATCH`]); returns how many, 0 at the
    /// end of the page.
    pub(crate) fn next_levels(&mut self) -> Result<usize> {
        let n = self.levels_left.min(BATCH);
        self.rep_buf.resize(n, 0);
        self.def_buf.resize(n, 0);
        self.rep
            .decode(&mut self.rep_buf, self.shape.max_rep, "repetition")?;
        self.def
            .decode(&mut self.def_buf, self.shape.max_def, "definition")?;
        self.levels_left -= n;
        Ok(n)
    }

    /// Repetition levels of the last batch.
    pub(crate) fn rep_levels(&self) -> &[u16] {
        &self.rep_buf
    }

    /// Definition levels of the last batch.
    pub(crate) fn def_levels(&self) -> &[u16] {
        &self.def_buf
    }

    /// Decodes the next `n` values, handing each to `sink`; dictionary indices are
    /// looked up in `dictionary` (an index out of its range is an error).
    pub(crate) fn values(
        &mut self,
        n: usize,
        dictionary: Option<&Dictionary>,
        sink: &mut dyn FnMut(Value<'_>),
    ) -> Result<()> {
        let physical = self.shape.physical;
        let width = self.shape.width;
        let short = |got: usize| {
            Error::corrupt(format!(
                "the values section ends early: {got} of {n} values decoded in this step"
            ))
        };
        match &mut self.values {
            Values::Plain(decoder) => match physical {
                Type::INT32 => fixed(decoder, n, &mut self.i32_buf, Value::Int32, sink)?,
                Type::INT64 => fixed(decoder, n, &mut self.i64_buf, Value::Int64, sink)?,
                Type::FLOAT => {
                    let mut buf = vec![0f32; n];
                    let got = decoder.decode_fixed(&mut buf)?;
                    buf[..got].iter().for_each(|&v| sink(Value::Float(v)));
                    if got < n {
                        return Err(short(got));
                    }
                }
                Type::DOUBLE => {
                    let mut buf = vec![0f64; n];
                    let got = decoder.decode_fixed(&mut buf)?;
                    buf[..got].iter().for_each(|&v| sink(Value::Double(v)));
                    if got < n {
                        return Err(short(got));
                    }
                }
                Type::INT96 => {
                    let mut buf = vec![[0u8; 12]; n];
                    let got = decoder.decode_fixed(&mut buf)?;
                    buf[..got].iter().for_each(|&v| sink(Value::Int96(v)));
                    if got < n {
                        return Err(short(got));
                    }
                }
                Type::FIXED_LEN_BYTE_ARRAY => {
                    let start = decoder.position();
                    let got = decoder.skip_flba(width, n)?;
                    let bytes = &self.data[start..start + got * width];
                    bytes
                        .chunks_exact(width)
                        .for_each(|v| sink(Value::Bytes(v)));
                    if got < n {
                        return Err(short(got));
                    }
                }
                _ => {
                    self.views.clear();
                    let got = decoder.decode_byte_array_views(n, &mut self.views)?;
                    let data = self.data;
                    for &(start, len) in &self.views {
                        sink(Value::Bytes(
                            &data[start as usize..start as usize + len as usize],
                        ));
                    }
                    if got < n {
                        return Err(short(got));
                    }
                }
            },
            Values::PlainBool(decoder) => {
                self.bool_buf.resize(n, false);
                let got = decoder.decode(&mut self.bool_buf);
                self.bool_buf[..got]
                    .iter()
                    .for_each(|&v| sink(Value::Bool(v)));
                if got < n {
                    return Err(short(got));
                }
            }
            Values::RleBool(decoder) => {
                self.index_buf.resize(n, 0);
                let got = decoder.get_batch(&mut self.index_buf)?;
                for &v in &self.index_buf[..got] {
                    if v > 1 {
                        return Err(Error::corrupt(format!("RLE boolean value {v}")));
                    }
                    sink(Value::Bool(v == 1));
                }
                if got < n {
                    return Err(short(got));
                }
            }
            Values::Dictionary(decoder) => {
                let Some(dictionary) = dictionary else {
                    return Err(Error::corrupt(
                        "a dictionary-encoded data page in a column chunk without a dictionary page",
                    ));
                };
                self.index_buf.resize(n, 0);
                let got = decoder.decode(&mut self.index_buf)?;
                for (at, &index) in self.index_buf[..got].iter().enumerate() {
                    if index as usize >= dictionary.len() {
                        return Err(Error::corrupt(format!(
                            "dictionary index {index} (value {at} of this step) is out of range: the dictionary has {} entries",
                            dictionary.len()
                        )));
                    }
                    sink(dictionary.get(index as usize));
                }
                if got < n {
                    return Err(short(got));
                }
            }
            Values::Delta32(decoder) => {
                self.i32_buf.resize(n, 0);
                let got = decoder.decode(&mut self.i32_buf)?;
                self.i32_buf[..got]
                    .iter()
                    .for_each(|&v| sink(Value::Int32(v)));
                if got < n {
                    return Err(short(got));
                }
            }
            Values::Delta64(decoder) => {
                self.i64_buf.resize(n, 0);
                let got = decoder.decode(&mut self.i64_buf)?;
                self.i64_buf[..got]
                    .iter()
                    .for_each(|&v| sink(Value::Int64(v)));
                if got < n {
                    return Err(short(got));
                }
            }
            Values::DeltaLength(decoder) => {
                self.views.clear();
                let got = decoder.decode_views(n, &mut self.views)?;
                let data = self.data;
                for &(start, len) in &self.views {
                    sink(Value::Bytes(
                        &data[start as usize..start as usize + len as usize],
                    ));
                }
                if got < n {
                    return Err(short(got));
                }
            }
            Values::DeltaByteArray(decoder) => {
                let mut done = 0;
                while done < n {
                    let step = (SCRATCH_BYTES / self.largest_value.max(1)).clamp(1, n - done);
                    self.scratch.clear();
                    self.scratch_offsets.clear();
                    let got = if physical == Type::FIXED_LEN_BYTE_ARRAY {
                        let got = decoder.decode_fixed(width, step, &mut self.scratch)?;
                        self.scratch_offsets
                            .extend((0..=got).map(|i| (i * width) as i64));
                        got
                    } else {
                        decoder.decode(step, &mut self.scratch_offsets, &mut self.scratch)?
                    };
                    for pair in self.scratch_offsets.windows(2) {
                        let (start, end) = (pair[0] as usize, pair[1] as usize);
                        self.largest_value = self.largest_value.max(end - start);
                        sink(Value::Bytes(&self.scratch[start..end]));
                    }
                    done += got;
                    if got < step {
                        return Err(short(done));
                    }
                }
            }
            Values::Split(decoder) => match physical {
                Type::INT32 => {
                    self.i32_buf.resize(n, 0);
                    let got = decoder.decode_fixed(&mut self.i32_buf)?;
                    self.i32_buf[..got]
                        .iter()
                        .for_each(|&v| sink(Value::Int32(v)));
                    if got < n {
                        return Err(short(got));
                    }
                }
                Type::INT64 => {
                    self.i64_buf.resize(n, 0);
                    let got = decoder.decode_fixed(&mut self.i64_buf)?;
                    self.i64_buf[..got]
                        .iter()
                        .for_each(|&v| sink(Value::Int64(v)));
                    if got < n {
                        return Err(short(got));
                    }
                }
                Type::FLOAT => {
                    let mut buf = vec![0f32; n];
                    let got = decoder.decode_fixed(&mut buf)?;
                    buf[..got].iter().for_each(|&v| sink(Value::Float(v)));
                    if got < n {
                        return Err(short(got));
                    }
                }
                Type::DOUBLE => {
                    let mut buf = vec![0f64; n];
                    let got = decoder.decode_fixed(&mut buf)?;
                    buf[..got].iter().for_each(|&v| sink(Value::Double(v)));
                    if got < n {
                        return Err(short(got));
                    }
                }
                _ => {
                    self.scratch.clear();
                    let got = decoder.decode_bytes(n, &mut self.scratch)?;
                    self.scratch
                        .chunks_exact(width.max(1))
                        .for_each(|v| sink(Value::Bytes(v)));
                    if got < n {
                        return Err(short(got));
                    }
                }
            },
        }
        Ok(())
    }

    /// Bytes of a PLAIN values section not taken by the values decoded so far (`None`
    /// for encodings whose padding is allowed).
    pub(crate) fn plain_bytes_left(&self) -> Option<usize> {
        match &self.values {
            Values::Plain(decoder) => Some(decoder.remaining_bytes()),
            _ => None,
        }
    }
}

fn fixed<T: herringbone_codec::encoding::FixedWidth>(
    decoder: &mut PlainDecoder<&[u8]>,
    n: usize,
    buf: &mut Vec<T>,
    wrap: impl Fn(T) -> Value<'static>,
    sink: &mut dyn FnMut(Value<'_>),
) -> Result<()> {
    buf.resize(n, T::default());
    let got = decoder.decode_fixed(buf)?;
    buf[..got].iter().for_each(|&v| sink(wrap(v)));
    if got < n {
        return Err(Error::corrupt(format!(
            "the values section ends early: {got} of {n} values decoded in this step"
        )));
    }
    Ok(())
}

/// The level section of a v1 page at the front of `rest` (which is advanced past it).
fn v1_levels<'p>(
    rest: &mut &'p [u8],
    max: u16,
    encoding: Encoding,
    num_values: usize,
    kind: &str,
) -> Result<Levels<'p>> {
    if max == 0 {
        return Ok(Levels::None);
    }
    let width = level_bit_width(max);
    match encoding {
        Encoding::RLE => {
            let (decoder, used) = RleDecoder::with_length_prefix(rest, width)
                .map_err(|e| e.context(format!("{kind} levels")))?;
            *rest = &rest[used..];
            Ok(Levels::Rle(decoder))
        }
        Encoding::BIT_PACKED => {
            let bytes = num_values
                .checked_mul(width)
                .map(|bits| bits.div_ceil(8))
                .filter(|&b| b <= rest.len())
                .ok_or_else(|| {
                    Error::corrupt(format!(
                        "BIT_PACKED {kind} levels of {num_values} values need more than the {} bytes of the page",
                        rest.len()
                    ))
                })?;
            let data = &rest[..bytes];
            *rest = &rest[bytes..];
            Ok(Levels::BitPacked {
                data,
                width,
                next: 0,
            })
        }
        other => Err(Error::corrupt(format!(
            "{kind} levels in encoding {other:?} (only RLE and BIT_PACKED exist)"
        ))),
    }
}

fn value_decoder<'p>(shape: ColumnShape, encoding: Encoding, data: &'p [u8]) -> Result<Values<'p>> {
    let physical = shape.physical;
    let bad = || {
        Error::corrupt(format!(
            "encoding {encoding:?} does not apply to {physical:?} values"
        ))
    };
    Ok(match encoding {
        Encoding::PLAIN if physical == Type::BOOLEAN => {
            Values::PlainBool(PlainBooleanDecoder::new(data))
        }
        Encoding::PLAIN => {
            if physical == Type::FIXED_LEN_BYTE_ARRAY && shape.width == 0 {
                return Err(Error::corrupt("FIXED_LEN_BYTE_ARRAY of width 0"));
            }
            Values::Plain(PlainDecoder::new(data))
        }
        Encoding::RLE if physical == Type::BOOLEAN => {
            let (decoder, _) = RleDecoder::with_length_prefix(data, 1)?;
            Values::RleBool(decoder)
        }
        Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY => {
            Values::Dictionary(DictionaryIndexDecoder::new(data)?)
        }
        Encoding::DELTA_BINARY_PACKED => match physical {
            Type::INT32 => Values::Delta32(DeltaBinaryPackedDecoder::new(data)?),
            Type::INT64 => Values::Delta64(DeltaBinaryPackedDecoder::new(data)?),
            _ => return Err(bad()),
        },
        Encoding::DELTA_LENGTH_BYTE_ARRAY if physical == Type::BYTE_ARRAY => {
            Values::DeltaLength(DeltaLengthByteArrayDecoder::new(data)?)
        }
        Encoding::DELTA_BYTE_ARRAY
            if matches!(physical, Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY) =>
        {
            Values::DeltaByteArray(DeltaByteArrayDecoder::new(data)?)
        }
        Encoding::BYTE_STREAM_SPLIT => {
            let width = match physical {
                Type::INT32 | Type::FLOAT => 4,
                Type::INT64 | Type::DOUBLE => 8,
                Type::FIXED_LEN_BYTE_ARRAY if shape.width > 0 => shape.width,
                _ => return Err(bad()),
            };
            Values::Split(ByteStreamSplitDecoder::new(data, width)?)
        }
        _ => return Err(bad()),
    })
}
