//! Columns read as `Dictionary(K, V)` keep their dictionary-encoded chunks as they
//! are: a batch hands out the pages' indices as keys of the chunk's dictionary
//! ([`Keyed::Keys`]), whose Arrow array the batches share, so no value is copied or
//! hashed per batch.
//!
//! Fallback, per batch: a batch that also takes values from a page of another encoding
//! (a writer's dictionary fallback to PLAIN midway through the chunk) has its keys
//! gathered into plain values as soon as that happens, and is then read as plain
//! values (cast to the dictionary type by the array layer, hashing only that batch's
//! values), as arrow-rs does when its dictionary buffer spills. A dictionary with more
//! entries than the key type indexes is not kept: its pages gather plain values.

use std::sync::Arc;

use bytes::Bytes;
use herringbone_codec::encoding::dictionary::DictionaryIndexDecoder;
use herringbone_format::metadata::Encoding;

use super::{ValueKind, check_count, is_dictionary, require_dictionary};
use crate::error::Result;
use crate::read::budget::Budget;
use crate::read::values::{KeptDictionary, Keyed, ValueBuffer};

/// Values of kind `K` kept as keys of their chunk's dictionary, which keys of the
/// column's key type index up to `max_entries` entries of.
#[derive(Debug)]
pub(crate) struct KeyedKind<K> {
    pub(crate) inner: K,
    pub(crate) max_entries: usize,
}

/// A data page of a column read as `Dictionary`.
#[derive(Debug)]
pub(crate) enum KeyedPage<K: ValueKind> {
    /// Dictionary indices of a dictionary kept as such.
    Keys {
        indices: DictionaryIndexDecoder<Bytes>,
        dictionary: Arc<KeptDictionary<K::Buffer>>,
    },
    /// Anything else, decoded into plain values.
    Plain(K::Page),
}

impl<K: ValueKind<Dictionary = <K as ValueKind>::Buffer>> KeyedKind<K> {
    /// Makes `out` hold plain values (gathering its keys if it held some), with room
    /// for `more` values more.
    fn plain<'a>(
        &self,
        out: &'a mut Keyed<K::Buffer>,
        more: usize,
        budget: &mut Budget,
    ) -> Result<&'a mut K::Buffer> {
        if let Keyed::Keys { keys, dictionary } = out {
            let mut plain = self.inner.buffer();
            if let Some(dictionary) = dictionary {
                dictionary.values.gather_into(keys, &mut plain, budget)?;
            }
            *out = Keyed::Plain(plain);
        }
        if let Keyed::Plain(plain) = out {
            self.inner.reserve(plain, more, budget)?;
        }
        match out {
            Keyed::Plain(plain) => Ok(plain),
            Keyed::Keys { .. } => unreachable!("made plain just above"),
        }
    }
}

impl<K: ValueKind<Dictionary = <K as ValueKind>::Buffer>> ValueKind for KeyedKind<K> {
    type Buffer = Keyed<K::Buffer>;
    type Dictionary = KeptDictionary<K::Buffer>;
    type Page = KeyedPage<K>;

    fn buffer(&self) -> Keyed<K::Buffer> {
        Keyed::Keys {
            keys: Vec::new(),
            dictionary: None,
        }
    }

    fn reserve(
        &self,
        out: &mut Keyed<K::Buffer>,
        values: usize,
        budget: &mut Budget,
    ) -> Result<()> {
        match out {
            Keyed::Keys { keys, .. } => budget.reserve(keys, values),
            Keyed::Plain(plain) => self.inner.reserve(plain, values, budget),
        }
    }

    fn dictionary(&self, page: Bytes, num_values: usize) -> Result<KeptDictionary<K::Buffer>> {
        Ok(KeptDictionary::new(Arc::new(
            self.inner.dictionary(page, num_values)?,
        )))
    }

    fn page(
        &self,
        encoding: Encoding,
        values: Bytes,
        entries: usize,
        dictionary: Option<&Arc<KeptDictionary<K::Buffer>>>,
    ) -> Result<KeyedPage<K>> {
        if is_dictionary(encoding) {
            let dictionary = require_dictionary(dictionary)?;
            if dictionary.values.value_count() <= self.max_entries {
                return Ok(KeyedPage::Keys {
                    indices: DictionaryIndexDecoder::from_source(values)?,
                    dictionary,
                });
            }
            return Ok(KeyedPage::Plain(self.inner.page(
                encoding,
                values,
                entries,
                Some(&dictionary.values),
            )?));
        }
        Ok(KeyedPage::Plain(self.inner.page(
            encoding,
            values,
            entries,
            dictionary.map(|d| &d.values),
        )?))
    }

    fn read(
        &self,
        page: &mut KeyedPage<K>,
        n: usize,
        out: &mut Keyed<K::Buffer>,
        budget: &mut Budget,
    ) -> Result<()> {
        match page {
            KeyedPage::Keys {
                indices,
                dictionary: page_dictionary,
            } => {
                let len = page_dictionary.values.value_count();
                if let Keyed::Keys { keys, dictionary } = out {
                    let same = dictionary
                        .get_or_insert_with(|| page_dictionary.clone())
                        .clone();
                    if Arc::ptr_eq(&same, page_dictionary) {
                        let got = indices.append_checked(n, len, keys)?;
                        return check_count(got, n);
                    }
                }
                // Keys of another dictionary, or plain values already: gathered.
                let mut keys = Vec::with_capacity(n.min(1 << 16));
                let got = indices.append_checked(n, len, &mut keys)?;
                check_count(got, n)?;
                let plain = self.plain(out, n, budget)?;
                page_dictionary.values.gather_into(&keys, plain, budget)
            }
            KeyedPage::Plain(page) => {
                let plain = self.plain(out, n, budget)?;
                self.inner.read(page, n, plain, budget)
            }
        }
    }

    fn skip(&self, page: &mut KeyedPage<K>, n: usize) -> Result<()> {
        match page {
            KeyedPage::Keys { indices, .. } => check_count(indices.skip(n)?, n),
            KeyedPage::Plain(page) => self.inner.skip(page, n),
        }
    }
}
