//! BYTE_ARRAY values as Arrow views ([`Views`]) for `Utf8View` / `BinaryView` columns:
//! the fast path for strings. PLAIN and DELTA_LENGTH_BYTE_ARRAY values are viewed where
//! they lie in their (decompressed) page, dictionary-encoded values are views of the
//! dictionary page, gathered as 16-byte words; only DELTA_BYTE_ARRAY values, which no
//! page holds whole, are rebuilt into a buffer of their own.
//!
//! A `Utf8View` column's values are checked to be UTF-8 as the views are made (the
//! array is then built without a second check): a dictionary once per chunk, a page's
//! values with one pass over the span they cover plus a look at where each starts and
//! ends (see [`views::utf8_views`]), none at all for a page that is all ASCII.

use std::ops::Range;

use std::sync::Arc;

use arrow_buffer::Buffer;
use bytes::Bytes;
use herringbone_codec::encoding::delta_byte_array::DeltaByteArrayDecoder;
use herringbone_codec::encoding::delta_length_byte_array::DeltaLengthByteArrayDecoder;
use herringbone_codec::encoding::dictionary::DictionaryIndexDecoder;
use herringbone_codec::encoding::plain::PlainDecoder;
use herringbone_codec::source::ByteSource;
use herringbone_format::metadata::Encoding;

use super::{ValueKind, bad_encoding, check_count, is_dictionary, require_dictionary};
use crate::error::{Error, Result};
use crate::read::budget::Budget;
use crate::read::values::Views;
use crate::read::views;

/// BYTE_ARRAY values as views; `utf8` for `Utf8View` (values checked to be UTF-8).
#[derive(Debug)]
pub(crate) struct ViewBytes {
    pub(crate) utf8: bool,
}

/// A data page of BYTE_ARRAY values read as views.
#[derive(Debug)]
pub(crate) enum ViewPage {
    /// `ascii`: every byte of the page is ASCII, so its values need no UTF-8 check.
    Plain {
        decoder: PlainDecoder<Bytes>,
        ascii: bool,
    },
    Dictionary {
        indices: DictionaryIndexDecoder<Bytes>,
        dictionary: Arc<Views>,
    },
    /// `ascii`: every byte of the page's values is ASCII.
    DeltaLength {
        decoder: DeltaLengthByteArrayDecoder<Bytes>,
        ascii: bool,
    },
    Delta(DeltaByteArrayDecoder<Bytes>),
}

fn invalid_utf8() -> Error {
    Error::corrupt("invalid UTF-8 in a string column")
}

/// Fails for a page too large for the 32-bit offsets of views.
fn check_viewable(page: &Bytes) -> Result<()> {
    if u32::try_from(page.len()).is_err() {
        return Err(Error::unsupported(
            "a page of 4 GiB or more of byte arrays read as views",
        ));
    }
    Ok(())
}

/// The index in `buffers` of `page`: the last buffer when that is already this page,
/// otherwise the page added at the end.
fn page_buffer(buffers: &mut Vec<Buffer>, page: &Bytes) -> Result<u32> {
    let shown = buffers
        .last()
        .is_some_and(|b| b.as_ptr() == page.as_ptr() && b.len() == page.len());
    if !shown {
        buffers.push(Buffer::from(page.clone()));
    }
    u32::try_from(buffers.len() - 1)
        .map_err(|_| Error::unsupported("more than 4 billion buffers in one batch of views"))
}

/// A decoder that hands out where its next BYTE_ARRAY values lie in its page. A trait
/// rather than a closure that takes a `dyn FnMut` sink, so that the per-value sink is
/// inlined into the decoder's loop (a call through a vtable per value cost PLAIN
/// views a quarter of their read time).
trait ValuePositions {
    fn positions(
        &mut self,
        n: usize,
        sink: impl FnMut(usize, usize),
    ) -> herringbone_codec::Result<usize>;
}

impl<S: ByteSource> ValuePositions for PlainDecoder<S> {
    #[inline]
    fn positions(
        &mut self,
        n: usize,
        sink: impl FnMut(usize, usize),
    ) -> herringbone_codec::Result<usize> {
        self.byte_array_positions(n, sink)
    }
}

impl ViewBytes {
    /// Appends the views of the next `n` values of `decoder`, over `page` (buffer
    /// `buffer`), checking them to be UTF-8 unless `checked` says they are.
    fn view_positions(
        &self,
        page: &[u8],
        buffer: u32,
        checked: bool,
        out: &mut Vec<u128>,
        decoder: &mut impl ValuePositions,
        n: usize,
    ) -> Result<usize> {
        let added = out.len();
        let check = self.utf8 && !checked;
        let mut boundaries = true;
        // Lowest start and last end of the values walked (empty until the first one).
        let mut span = Range {
            start: usize::MAX,
            end: 0,
        };
        let got = decoder.positions(n, |start, len| {
            out.push(views::view_at(page, start, len, buffer));
            if check {
                boundaries &=
                    views::starts_char(page, start) & views::starts_char(page, start + len);
                span.start = span.start.min(start);
                span.end = start + len;
            }
        })?;
        if check && got > 0 && !views::utf8_views(page, span, boundaries, &out[added..]) {
            return Err(invalid_utf8());
        }
        Ok(got)
    }
}

impl ViewBytes {
    /// [`Self::view_positions`] for DELTA_LENGTH_BYTE_ARRAY, whose values come in runs
    /// lying back to back: each run's views are one `extend` over its lengths (no
    /// per-value capacity check), and for a UTF-8 check the values' starts (each the
    /// previous one's end) are looked at in a loop of their own.
    fn delta_length_views(
        &self,
        page: &[u8],
        buffer: u32,
        checked: bool,
        out: &mut Vec<u128>,
        decoder: &mut DeltaLengthByteArrayDecoder<Bytes>,
        n: usize,
    ) -> Result<usize> {
        let added = out.len();
        let check = self.utf8 && !checked;
        let mut boundaries = true;
        let mut span = Range {
            start: usize::MAX,
            end: 0,
        };
        let got = decoder.value_runs(n, |start, lengths| {
            let mut at = start;
            out.extend(lengths.iter().map(|&len| {
                let view = views::view_at(page, at, len as usize, buffer);
                at += len as usize;
                view
            }));
            if check {
                let mut at = start;
                for &len in lengths {
                    boundaries &= views::starts_char(page, at);
                    at += len as usize;
                }
                boundaries &= views::starts_char(page, at);
                span.start = span.start.min(start);
                span.end = at;
            }
        })?;
        if check && got > 0 && !views::utf8_views(page, span, boundaries, &out[added..]) {
            return Err(invalid_utf8());
        }
        Ok(got)
    }
}

impl ValueKind for ViewBytes {
    type Buffer = Views;
    type Dictionary = Views;
    type Page = ViewPage;

    fn buffer(&self) -> Views {
        Views::default()
    }

    fn reserve(&self, out: &mut Views, values: usize, budget: &mut Budget) -> Result<()> {
        budget.reserve(&mut out.views, values)
    }

    fn dictionary(&self, page: Bytes, num_values: usize) -> Result<Views> {
        check_viewable(&page)?;
        let mut decoder = PlainDecoder::new(&page);
        let mut dictionary = Views::default();
        // Every value takes at least its 4-byte length in the page.
        dictionary.views.reserve(num_values.min(page.len() / 4));
        let ascii = page.is_ascii();
        let got = self.view_positions(
            &page,
            0,
            ascii,
            &mut dictionary.views,
            &mut decoder,
            num_values,
        )?;
        if got != num_values {
            return Err(Error::corrupt(format!(
                "dictionary page holds {got} values where its header says {num_values}"
            )));
        }
        dictionary.buffers.push(Buffer::from(page));
        Ok(dictionary)
    }

    fn page(
        &self,
        encoding: Encoding,
        values: Bytes,
        _entries: usize,
        dictionary: Option<&Arc<Views>>,
    ) -> Result<ViewPage> {
        check_viewable(&values)?;
        Ok(match encoding {
            Encoding::PLAIN => ViewPage::Plain {
                // A page of `Utf8View` values whose every byte (length prefixes
                // included) is ASCII holds only UTF-8 values, each starting on a
                // character boundary: one vectorised pass here spares the checks of
                // each batch.
                ascii: self.utf8 && values.is_ascii(),
                decoder: PlainDecoder::from_source(values),
            },
            e if is_dictionary(e) => ViewPage::Dictionary {
                indices: DictionaryIndexDecoder::from_source(values)?,
                dictionary: require_dictionary(dictionary)?,
            },
            Encoding::DELTA_LENGTH_BYTE_ARRAY => {
                let decoder = DeltaLengthByteArrayDecoder::from_source(values)?;
                // As for PLAIN: one pass over the values' bytes spares every batch the
                // per-value checks when they are all ASCII.
                let ascii = self.utf8
                    && decoder
                        .data()
                        .get(decoder.position()..)
                        .is_some_and(<[u8]>::is_ascii);
                ViewPage::DeltaLength { decoder, ascii }
            }
            Encoding::DELTA_BYTE_ARRAY => {
                ViewPage::Delta(DeltaByteArrayDecoder::from_source(values)?)
            }
            other => return Err(bad_encoding(other, "BYTE_ARRAY")),
        })
    }

    fn read(
        &self,
        page: &mut ViewPage,
        n: usize,
        out: &mut Views,
        budget: &mut Budget,
    ) -> Result<()> {
        let got = match page {
            ViewPage::Plain { decoder, ascii } => {
                let bytes = decoder.data().clone();
                let buffer = page_buffer(&mut out.buffers, &bytes)?;
                let ascii = *ascii;
                self.view_positions(&bytes, buffer, ascii, &mut out.views, decoder, n)?
            }
            ViewPage::DeltaLength { decoder, ascii } => {
                let bytes = decoder.data().clone();
                let buffer = page_buffer(&mut out.buffers, &bytes)?;
                self.delta_length_views(&bytes, buffer, *ascii, &mut out.views, decoder, n)?
            }
            ViewPage::Dictionary {
                indices,
                dictionary,
            } => {
                let start = out.views.len();
                let got = indices.append_gathered(&dictionary.views, n, &mut out.views)?;
                views::adopt_buffers(
                    &mut out.views[start..],
                    &mut out.buffers,
                    &dictionary.buffers,
                );
                got
            }
            ViewPage::Delta(decoder) => {
                // Rebuilt values go to a buffer of their own, charged to the batch.
                let mut data = Vec::new();
                let mut ends = Vec::with_capacity(n.min(1 << 16));
                let limit = budget.remaining();
                let got = decoder
                    .decode_with(n, |value| {
                        if value.len() > limit - data.len() {
                            return Err(herringbone_codec::Error::limit_exceeded(
                                "rebuilt values past the limit",
                            ));
                        }
                        data.extend_from_slice(value);
                        ends.push(data.len());
                        Ok(())
                    })
                    .map_err(|e| {
                        if e.kind() == herringbone_codec::ErrorKind::LimitExceeded {
                            budget.exceeded(None)
                        } else {
                            e.into()
                        }
                    })?;
                budget.charge(data.len())?;
                if u32::try_from(data.len()).is_err() {
                    return Err(Error::unsupported(
                        "4 GiB or more of values in one batch of views",
                    ));
                }
                let buffer = u32::try_from(out.buffers.len()).map_err(|_| {
                    Error::unsupported("more than 4 billion buffers in one batch of views")
                })?;
                let mut boundaries = true;
                let mut start = 0;
                let added = out.views.len();
                for &end in &ends {
                    out.views
                        .push(views::view_at(&data, start, end - start, buffer));
                    if self.utf8 {
                        boundaries &= views::starts_char(&data, start);
                    }
                    start = end;
                }
                if self.utf8
                    && !views::utf8_views(&data, 0..data.len(), boundaries, &out.views[added..])
                {
                    return Err(invalid_utf8());
                }
                out.buffers.push(Buffer::from_vec(data));
                got
            }
        };
        check_count(got, n)
    }

    fn skip(&self, page: &mut ViewPage, n: usize) -> Result<()> {
        let got = match page {
            ViewPage::Plain { decoder, .. } => decoder.skip_byte_array(n)?,
            ViewPage::Dictionary { indices, .. } => indices.skip(n)?,
            ViewPage::DeltaLength { decoder, .. } => decoder.skip(n)?,
            ViewPage::Delta(decoder) => decoder.skip(n)?,
        };
        check_count(got, n)
    }
}
