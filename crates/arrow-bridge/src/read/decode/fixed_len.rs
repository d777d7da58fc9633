//! FIXED_LEN_BYTE_ARRAY values into [`FixedBytes`]: PLAIN, dictionary,
//! DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT.
//!
//! The width comes from the schema (`type_length`), so a batch's buffer is sized by
//! `rows × width` before anything is read: that product is charged to the batch's memory
//! limit first, which is what stops a column declaring a width of 2 GiB.

use std::sync::Arc;

use bytes::Bytes;
use herringbone_codec::encoding::byte_stream_split::ByteStreamSplitDecoder;
use herringbone_codec::encoding::delta_byte_array::DeltaByteArrayDecoder;
use herringbone_codec::encoding::dictionary::DictionaryIndexDecoder;
use herringbone_codec::encoding::plain::PlainDecoder;
use herringbone_format::metadata::Encoding;

use super::{ValueKind, bad_encoding, check_count, is_dictionary, require_dictionary};
use crate::error::{Error, Result};
use crate::read::budget::Budget;
use crate::read::values::FixedBytes;

/// FIXED_LEN_BYTE_ARRAY values of one width (positive).
#[derive(Debug)]
pub(crate) struct FixedLenBytes {
    pub(crate) width: usize,
}

/// A data page of FIXED_LEN_BYTE_ARRAY values.
// One per column being read, replaced per page: the size difference costs nothing
// worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum FixedLenPage {
    Plain(PlainDecoder<Bytes>),
    Dictionary {
        indices: DictionaryIndexDecoder<Bytes>,
        dictionary: Arc<FixedBytes>,
    },
    Delta(DeltaByteArrayDecoder<Bytes>),
    Split(ByteStreamSplitDecoder<Bytes>),
}

impl ValueKind for FixedLenBytes {
    type Buffer = FixedBytes;
    type Dictionary = FixedBytes;
    type Page = FixedLenPage;

    fn buffer(&self) -> FixedBytes {
        FixedBytes {
            width: self.width,
            data: Vec::new(),
        }
    }

    fn reserve(&self, out: &mut FixedBytes, values: usize, budget: &mut Budget) -> Result<()> {
        let bytes = values.saturating_mul(self.width);
        budget.reserve(&mut out.data, bytes)
    }

    fn dictionary(&self, page: Bytes, num_values: usize) -> Result<FixedBytes> {
        let bytes = num_values
            .checked_mul(self.width)
            .filter(|&bytes| bytes <= page.len())
            .ok_or_else(|| {
                Error::corrupt(format!(
                    "dictionary page of {} bytes cannot hold {num_values} values of {} bytes",
                    page.len(),
                    self.width
                ))
            })?;
        Ok(FixedBytes {
            width: self.width,
            data: page[..bytes].to_vec(),
        })
    }

    fn page(
        &self,
        encoding: Encoding,
        values: Bytes,
        _entries: usize,
        dictionary: Option<&Arc<FixedBytes>>,
    ) -> Result<FixedLenPage> {
        Ok(match encoding {
            Encoding::PLAIN => FixedLenPage::Plain(PlainDecoder::from_source(values)),
            e if is_dictionary(e) => FixedLenPage::Dictionary {
                indices: DictionaryIndexDecoder::from_source(values)?,
                dictionary: require_dictionary(dictionary)?,
            },
            Encoding::DELTA_BYTE_ARRAY => {
                FixedLenPage::Delta(DeltaByteArrayDecoder::from_source(values)?)
            }
            Encoding::BYTE_STREAM_SPLIT => {
                FixedLenPage::Split(ByteStreamSplitDecoder::from_source(values, self.width)?)
            }
            other => return Err(bad_encoding(other, "FIXED_LEN_BYTE_ARRAY")),
        })
    }

    fn read(
        &self,
        page: &mut FixedLenPage,
        n: usize,
        out: &mut FixedBytes,
        _: &mut Budget,
    ) -> Result<()> {
        let width = self.width;
        // The room reserved for these values is all they may take.
        let max_bytes = out.data.len() + n * width;
        let got = match page {
            FixedLenPage::Plain(plain) => plain.decode_flba(width, n, &mut out.data)?,
            FixedLenPage::Dictionary {
                indices,
                dictionary,
            } => {
                indices.append_fixed_bytes(&dictionary.data, width, n, max_bytes, &mut out.data)?
            }
            FixedLenPage::Delta(delta) => {
                delta.append_fixed_bytes(width, n, max_bytes, &mut out.data)?
            }
            FixedLenPage::Split(split) => split.decode_bytes(n, &mut out.data)?,
        };
        check_count(got, n)
    }

    fn skip(&self, page: &mut FixedLenPage, n: usize) -> Result<()> {
        let got = match page {
            FixedLenPage::Plain(plain) => plain.skip_flba(self.width, n)?,
            FixedLenPage::Dictionary { indices, .. } => indices.skip(n)?,
            FixedLenPage::Delta(delta) => delta.skip(n)?,
            FixedLenPage::Split(split) => split.skip(n)?,
        };
        check_count(got, n)
    }
}
