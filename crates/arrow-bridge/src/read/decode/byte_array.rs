//! BYTE_ARRAY values into [`ByteArrays`] with `i32` offsets (`Utf8`, `Binary`) or `i64`
//! ones (everything else): PLAIN, dictionary, DELTA_LENGTH_BYTE_ARRAY and
//! DELTA_BYTE_ARRAY, all by the codec's decoders.
//!
//! The values' bytes grow with what the pages hold, or more (a dictionary index
//! repeating a long value, a DELTA_BYTE_ARRAY prefix repeating the previous value): each
//! decoder is given what the batch's memory limit (and the offsets' width) still allows
//! and stops with an error beyond it.

use std::sync::Arc;

use bytes::Bytes;
use herringbone_codec::encoding::delta_byte_array::DeltaByteArrayDecoder;
use herringbone_codec::encoding::delta_length_byte_array::DeltaLengthByteArrayDecoder;
use herringbone_codec::encoding::dictionary::DictionaryIndexDecoder;
use herringbone_codec::encoding::plain::{PlainDecoder, SHORT_VALUE};
use herringbone_format::metadata::Encoding;

use super::{ValueKind, bad_encoding, check_count, is_dictionary, require_dictionary};
use crate::error::{Error, Result};
use crate::offsets::OffsetWidth;
use crate::read::budget::Budget;
use crate::read::values::ByteArrays;

/// BYTE_ARRAY values with offsets of type `O`.
#[derive(Debug, Default)]
pub(crate) struct Binary<O>(std::marker::PhantomData<O>);

impl<O> Binary<O> {
    pub(crate) fn new() -> Self {
        Self(std::marker::PhantomData)
    }
}

/// A data page of BYTE_ARRAY values.
#[derive(Debug)]
pub(crate) enum BinaryPage<O> {
    Plain(PlainDecoder<Bytes>),
    Dictionary {
        indices: DictionaryIndexDecoder<Bytes>,
        dictionary: Arc<ByteArrays<O>>,
    },
    DeltaLength(DeltaLengthByteArrayDecoder<Bytes>),
    Delta(DeltaByteArrayDecoder<Bytes>),
}

/// Runs `decode`, which may grow `out`'s bytes up to the `max_bytes` it is given (what
/// both the budget and the offsets allow), and charges what it added; a codec limit
/// error becomes the error of the limit that bound it.
pub(crate) fn within_limits<O: OffsetWidth>(
    out: &mut ByteArrays<O>,
    budget: &mut Budget,
    decode: impl FnOnce(&mut ByteArrays<O>, usize) -> herringbone_codec::Result<usize>,
) -> Result<usize> {
    let before = out.data.len();
    let by_budget = before.saturating_add(budget.remaining());
    let max_bytes = by_budget.min(O::MAX_POSITION);
    match decode(out, max_bytes) {
        Ok(got) => {
            budget.charge(out.data.len() - before)?;
            Ok(got)
        }
        Err(e) if e.kind() == herringbone_codec::ErrorKind::LimitExceeded => {
            Err(if by_budget <= O::MAX_POSITION {
                budget.exceeded(None)
            } else {
                O::check_len(O::MAX_POSITION + 1)
                    .err()
                    .unwrap_or_else(|| Error::from(e))
            })
        }
        Err(e) => Err(e.into()),
    }
}

impl<O: OffsetWidth> ValueKind for Binary<O> {
    type Buffer = ByteArrays<O>;
    type Dictionary = ByteArrays<O>;
    type Page = BinaryPage<O>;

    fn buffer(&self) -> ByteArrays<O> {
        ByteArrays::default()
    }

    fn reserve(&self, out: &mut ByteArrays<O>, values: usize, budget: &mut Budget) -> Result<()> {
        let first = usize::from(out.offsets.is_empty());
        budget.reserve(&mut out.offsets, values + first)
    }

    fn dictionary(&self, page: Bytes, num_values: usize) -> Result<ByteArrays<O>> {
        let mut dictionary = ByteArrays::default();
        let got = PlainDecoder::new(&page).append_byte_arrays(
            num_values,
            O::MAX_POSITION,
            &mut dictionary.offsets,
            &mut dictionary.data,
        )?;
        if got != num_values {
            return Err(Error::corrupt(format!(
                "dictionary page holds {got} values where its header says {num_values}"
            )));
        }
        // Zero bytes after the last value, so that gathering copies every short value
        // as one fixed-size block.
        dictionary.data.extend_from_slice(&[0; SHORT_VALUE]);
        Ok(dictionary)
    }

    fn page(
        &self,
        encoding: Encoding,
        values: Bytes,
        entries: usize,
        dictionary: Option<&Arc<ByteArrays<O>>>,
    ) -> Result<BinaryPage<O>> {
        Ok(match encoding {
            Encoding::PLAIN => {
                BinaryPage::Plain(PlainDecoder::from_source(values).with_value_count(entries))
            }
            e if is_dictionary(e) => BinaryPage::Dictionary {
                indices: DictionaryIndexDecoder::from_source(values)?,
                dictionary: require_dictionary(dictionary)?,
            },
            Encoding::DELTA_LENGTH_BYTE_ARRAY => {
                BinaryPage::DeltaLength(DeltaLengthByteArrayDecoder::from_source(values)?)
            }
            Encoding::DELTA_BYTE_ARRAY => {
                BinaryPage::Delta(DeltaByteArrayDecoder::from_source(values)?)
            }
            other => return Err(bad_encoding(other, "BYTE_ARRAY")),
        })
    }

    fn read(
        &self,
        page: &mut BinaryPage<O>,
        n: usize,
        out: &mut ByteArrays<O>,
        budget: &mut Budget,
    ) -> Result<()> {
        let got = within_limits(out, budget, |out, max| match page {
            BinaryPage::Plain(plain) => {
                plain.append_byte_arrays(n, max, &mut out.offsets, &mut out.data)
            }
            BinaryPage::Dictionary {
                indices,
                dictionary,
            } => indices.append_byte_arrays(
                &dictionary.offsets,
                &dictionary.data,
                n,
                max,
                &mut out.offsets,
                &mut out.data,
            ),
            BinaryPage::DeltaLength(delta) => {
                delta.append_byte_arrays(n, max, &mut out.offsets, &mut out.data)
            }
            BinaryPage::Delta(delta) => {
                delta.append_byte_arrays(n, max, &mut out.offsets, &mut out.data)
            }
        })?;
        check_count(got, n)
    }

    fn skip(&self, page: &mut BinaryPage<O>, n: usize) -> Result<()> {
        let got = match page {
            BinaryPage::Plain(plain) => plain.skip_byte_array(n)?,
            BinaryPage::Dictionary { indices, .. } => indices.skip(n)?,
            BinaryPage::DeltaLength(delta) => delta.skip(n)?,
            BinaryPage::Delta(delta) => delta.skip(n)?,
        };
        check_count(got, n)
    }
}
