//! INT32, INT64, FLOAT, DOUBLE and INT96 values into a `Vec<T>`: PLAIN, dictionary,
//! BYTE_STREAM_SPLIT, and DELTA_BINARY_PACKED for the integers.

use std::convert::Infallible;
use std::marker::PhantomData;
use std::sync::Arc;

use bytes::Bytes;
use herringbone_codec::encoding::FixedWidth;
use herringbone_codec::encoding::byte_stream_split::ByteStreamSplitDecoder;
use herringbone_codec::encoding::delta_binary_packed::DeltaBinaryPackedDecoder;
use herringbone_codec::encoding::dictionary::DictionaryIndexDecoder;
use herringbone_codec::encoding::plain::PlainDecoder;
use herringbone_format::metadata::Encoding;

use super::{ValueKind, bad_encoding, check_count, is_dictionary, require_dictionary};
use crate::error::{Error, Result};
use crate::read::budget::Budget;

/// A fixed-width physical value and what its DELTA_BINARY_PACKED pages decode with
/// (nothing, for FLOAT, DOUBLE and INT96).
pub(crate) trait FixedValue: FixedWidth + Send + Sync {
    /// The Parquet type name, for messages.
    const NAME: &'static str;
    /// A DELTA_BINARY_PACKED page's decoder.
    type Delta: Send + std::fmt::Debug;

    /// The decoder of a DELTA_BINARY_PACKED page.
    fn delta(values: Bytes) -> Result<Self::Delta>;
    /// Appends up to `n` values; returns how many.
    fn append_delta(delta: &mut Self::Delta, n: usize, out: &mut Vec<Self>) -> Result<usize>;
    /// Skips up to `n` values; returns how many.
    fn skip_delta(delta: &mut Self::Delta, n: usize) -> Result<usize>;
}

macro_rules! delta_integer {
    ($t:ty, $name:literal) => {
        impl FixedValue for $t {
            const NAME: &'static str = $name;
            type Delta = DeltaBinaryPackedDecoder<$t, Bytes>;

            fn delta(values: Bytes) -> Result<Self::Delta> {
                Ok(DeltaBinaryPackedDecoder::from_source(values)?)
            }

            fn append_delta(
                delta: &mut Self::Delta,
                n: usize,
                out: &mut Vec<Self>,
            ) -> Result<usize> {
                Ok(delta.append(n, out)?)
            }

            fn skip_delta(delta: &mut Self::Delta, n: usize) -> Result<usize> {
                Ok(delta.skip(n)?)
            }
        }
    };
}

macro_rules! no_delta {
    ($t:ty, $name:literal) => {
        impl FixedValue for $t {
            const NAME: &'static str = $name;
            type Delta = Infallible;

            fn delta(_: Bytes) -> Result<Self::Delta> {
                Err(bad_encoding(Encoding::DELTA_BINARY_PACKED, $name))
            }

            fn append_delta(delta: &mut Self::Delta, _: usize, _: &mut Vec<Self>) -> Result<usize> {
                match *delta {}
            }

            fn skip_delta(delta: &mut Self::Delta, _: usize) -> Result<usize> {
                match *delta {}
            }
        }
    };
}

delta_integer!(i32, "INT32");
delta_integer!(i64, "INT64");
no_delta!(f32, "FLOAT");
no_delta!(f64, "DOUBLE");
no_delta!([u8; 12], "INT96");

/// Values of a fixed-width physical type.
#[derive(Debug, Default)]
pub(crate) struct Fixed<T>(PhantomData<T>);

impl<T> Fixed<T> {
    pub(crate) fn new() -> Self {
        Self(PhantomData)
    }
}

/// A data page of fixed-width values.
#[derive(Debug)]
pub(crate) enum FixedPage<T: FixedValue> {
    Plain(PlainDecoder<Bytes>),
    Dictionary {
        indices: DictionaryIndexDecoder<Bytes>,
        dictionary: Arc<Vec<T>>,
    },
    Delta(T::Delta),
    Split(ByteStreamSplitDecoder<Bytes>),
}

impl<T: FixedValue> ValueKind for Fixed<T> {
    type Buffer = Vec<T>;
    type Dictionary = Vec<T>;
    type Page = FixedPage<T>;

    fn buffer(&self) -> Vec<T> {
        Vec::new()
    }

    fn reserve(&self, out: &mut Vec<T>, values: usize, budget: &mut Budget) -> Result<()> {
        budget.reserve(out, values)
    }

    fn dictionary(&self, page: Bytes, num_values: usize) -> Result<Vec<T>> {
        if num_values
            .checked_mul(T::SIZE)
            .is_none_or(|bytes| bytes > page.len())
        {
            return Err(Error::corrupt(format!(
                "dictionary page of {} bytes cannot hold {num_values} {} values",
                page.len(),
                T::NAME
            )));
        }
        let mut values = Vec::with_capacity(num_values);
        PlainDecoder::new(&page).append_fixed(num_values, &mut values);
        Ok(values)
    }

    fn page(
        &self,
        encoding: Encoding,
        values: Bytes,
        _entries: usize,
        dictionary: Option<&Arc<Vec<T>>>,
    ) -> Result<FixedPage<T>> {
        Ok(match encoding {
            Encoding::PLAIN => FixedPage::Plain(PlainDecoder::from_source(values)),
            e if is_dictionary(e) => FixedPage::Dictionary {
                indices: DictionaryIndexDecoder::from_source(values)?,
                dictionary: require_dictionary(dictionary)?,
            },
            Encoding::DELTA_BINARY_PACKED => FixedPage::Delta(T::delta(values)?),
            Encoding::BYTE_STREAM_SPLIT => {
                FixedPage::Split(ByteStreamSplitDecoder::from_source(values, T::SIZE)?)
            }
            other => return Err(bad_encoding(other, T::NAME)),
        })
    }

    fn read(
        &self,
        page: &mut FixedPage<T>,
        n: usize,
        out: &mut Vec<T>,
        _: &mut Budget,
    ) -> Result<()> {
        let got = match page {
            FixedPage::Plain(plain) => plain.append_fixed(n, out),
            FixedPage::Dictionary {
                indices,
                dictionary,
            } => indices.append_gathered(dictionary, n, out)?,
            FixedPage::Delta(delta) => T::append_delta(delta, n, out)?,
            FixedPage::Split(split) => split.append_fixed(n, out)?,
        };
        check_count(got, n)
    }

    fn skip(&self, page: &mut FixedPage<T>, n: usize) -> Result<()> {
        let got = match page {
            FixedPage::Plain(plain) => plain.skip_fixed::<T>(n)?,
            FixedPage::Dictionary { indices, .. } => indices.skip(n)?,
            FixedPage::Delta(delta) => T::skip_delta(delta, n)?,
            FixedPage::Split(split) => split.skip(n)?,
        };
        check_count(got, n)
    }
}
