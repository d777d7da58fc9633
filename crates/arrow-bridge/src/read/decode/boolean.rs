//! BOOLEAN values into a `Vec<bool>`: PLAIN (bit-packed), RLE, and dictionary pages
//! (which no common writer produces for booleans, but the format allows).

use std::sync::Arc;

use bytes::Bytes;
use herringbone_codec::encoding::dictionary::DictionaryIndexDecoder;
use herringbone_codec::encoding::plain::PlainBooleanDecoder;
use herringbone_codec::rle::RleDecoder;
use herringbone_format::metadata::Encoding;

use super::{ValueKind, bad_encoding, check_count, is_dictionary, require_dictionary};
use crate::error::{Error, Result};
use crate::read::budget::Budget;

/// BOOLEAN values.
#[derive(Debug, Default)]
pub(crate) struct Booleans;

/// A data page of booleans.
#[derive(Debug)]
pub(crate) enum BooleanPage {
    Plain(PlainBooleanDecoder<Bytes>),
    Rle(RleDecoder<Bytes>),
    Dictionary {
        indices: DictionaryIndexDecoder<Bytes>,
        dictionary: Arc<Vec<bool>>,
    },
}

impl ValueKind for Booleans {
    type Buffer = Vec<bool>;
    type Dictionary = Vec<bool>;
    type Page = BooleanPage;

    fn buffer(&self) -> Vec<bool> {
        Vec::new()
    }

    fn reserve(&self, out: &mut Vec<bool>, values: usize, budget: &mut Budget) -> Result<()> {
        budget.reserve(out, values)
    }

    fn dictionary(&self, page: Bytes, num_values: usize) -> Result<Vec<bool>> {
        if num_values.div_ceil(8) > page.len() {
            return Err(Error::corrupt(format!(
                "dictionary page of {} bytes cannot hold {num_values} BOOLEAN values",
                page.len()
            )));
        }
        let mut values = Vec::with_capacity(num_values);
        PlainBooleanDecoder::new(&page).append(num_values, &mut values);
        Ok(values)
    }

    fn page(
        &self,
        encoding: Encoding,
        values: Bytes,
        _entries: usize,
        dictionary: Option<&Arc<Vec<bool>>>,
    ) -> Result<BooleanPage> {
        Ok(match encoding {
            Encoding::PLAIN => BooleanPage::Plain(PlainBooleanDecoder::from_source(values)),
            Encoding::RLE => {
                BooleanPage::Rle(RleDecoder::from_source_with_length_prefix(values, 1)?.0)
            }
            e if is_dictionary(e) => BooleanPage::Dictionary {
                indices: DictionaryIndexDecoder::from_source(values)?,
                dictionary: require_dictionary(dictionary)?,
            },
            other => return Err(bad_encoding(other, "BOOLEAN")),
        })
    }

    fn read(
        &self,
        page: &mut BooleanPage,
        n: usize,
        out: &mut Vec<bool>,
        _: &mut Budget,
    ) -> Result<()> {
        let got = match page {
            BooleanPage::Plain(plain) => plain.append(n, out),
            BooleanPage::Rle(rle) => {
                let mut bits = [0u8; 1024];
                let mut done = 0;
                while done < n {
                    let k = (n - done).min(bits.len());
                    let got = rle.get_batch(&mut bits[..k])?;
                    out.extend(bits[..got].iter().map(|&b| b != 0));
                    done += got;
                    if got < k {
                        break;
                    }
                }
                done
            }
            BooleanPage::Dictionary {
                indices,
                dictionary,
            } => indices.append_gathered(dictionary, n, out)?,
        };
        check_count(got, n)
    }

    fn skip(&self, page: &mut BooleanPage, n: usize) -> Result<()> {
        let got = match page {
            BooleanPage::Plain(plain) => plain.skip(n),
            BooleanPage::Rle(rle) => rle.skip(n)?,
            BooleanPage::Dictionary { indices, .. } => indices.skip(n)?,
        };
        check_count(got, n)
    }
}
