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
//!
//! Runs, for a row filter: a column read as `RunEndEncoded(Int32, Dictionary(Int32, V))`
//! keeps its keys as runs of equal keys ([`Keyed::Runs`]): a repeated index of the
//! RLE/bit-packing hybrid is one run whatever its length, so a filter decides it once.
//! Where runs turn out short (sorted data is long runs, shuffled data runs of one), the
//! batch goes on as plain keys (numbers: as plain values), and so does the rest of the
//! chunk: a run per value costs twice the memory of a key and buys nothing.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bytes::Bytes;
use herringbone_codec::encoding::dictionary::{DictionaryIndexDecoder, check_indices, index_error};
use herringbone_codec::rle::Run;
use herringbone_format::metadata::Encoding;

use super::{ValueKind, check_count, is_dictionary, require_dictionary};
use crate::error::Result;
use crate::read::budget::Budget;
use crate::read::values::{KeptDictionary, KeyRuns, Keyed, ValueBuffer};

/// Values of kind `K` kept as keys of their chunk's dictionary, which keys of the
/// column's key type index up to `max_entries` entries of; in runs of equal keys when
/// `runs` until runs turn out short in the chunk, as keys after that, or as plain values
/// when `plain_when_short` (numbers: comparing them is as cheap as looking keys up).
#[derive(Debug)]
pub(crate) struct KeyedKind<K> {
    pub(crate) inner: K,
    pub(crate) max_entries: usize,
    pub(crate) runs: bool,
    pub(crate) plain_when_short: bool,
    /// Set once a batch of the chunk found its runs short (a kind serves one chunk).
    pub(crate) short_seen: AtomicBool,
}

impl<K> KeyedKind<K> {
    /// Keys of kind `inner` (in runs when `runs`), up to `max_entries` entries.
    pub(crate) fn new(inner: K, max_entries: usize, runs: bool, plain_when_short: bool) -> Self {
        Self {
            inner,
            max_entries,
            runs,
            plain_when_short,
            short_seen: AtomicBool::new(false),
        }
    }

    /// Whether batches start in runs of keys.
    fn in_runs(&self) -> bool {
        self.runs && !self.short_seen.load(Ordering::Relaxed)
    }

    /// Whether pages are read as plain values: runs were short, for numbers.
    fn as_plain(&self) -> bool {
        self.runs && self.plain_when_short && self.short_seen.load(Ordering::Relaxed)
    }
}

/// Below this many values per run on average (once a batch holds
/// [`RUNS_CHECKED_AFTER`] values), a batch read in runs goes on as plain keys.
const MIN_VALUES_PER_RUN: usize = 4;
const RUNS_CHECKED_AFTER: usize = 256;

/// Appends up to `n` indices of `indices` (each checked against a dictionary of `len`
/// entries) to `runs`: a repeated index is one run, bit-packed ones are unpacked and
/// joined where neighbours are equal. Stops early, once `runs`
/// holds [`RUNS_CHECKED_AFTER`] values or more, when they are short runs. Returns how
/// many it appended; charges the runs added.
fn append_runs(
    indices: &mut DictionaryIndexDecoder<Bytes>,
    n: usize,
    len: usize,
    runs: &mut KeyRuns,
    budget: &mut Budget,
) -> Result<usize> {
    let before = runs.keys.len();
    let mut scratch: Vec<u32> = Vec::new();
    let mut got = 0;
    while got < n {
        match indices.next_run(n - got)? {
            None => break,
            Some(Run::Repeated { value, count }) => {
                if value >= len as u64 {
                    return Err(index_error(value, len).into());
                }
                runs.push(value as u32, count)?;
                got += count;
            }
            Some(Run::BitPacked(packed)) => {
                scratch.clear();
                scratch.resize(packed.len(), 0);
                packed.unpack_into(scratch.as_mut_slice())?;
                check_indices(&scratch, len)?;
                for &key in scratch.iter() {
                    runs.push(key, 1)?;
                }
                got += packed.len();
            }
        }
        if short_runs(runs) {
            break;
        }
    }
    budget.charge((runs.keys.len() - before) * 2 * std::mem::size_of::<u32>())?;
    Ok(got)
}

/// Whether `runs` has values enough to tell, and too few values per run to pay.
fn short_runs(runs: &KeyRuns) -> bool {
    let values = runs.value_count();
    values >= RUNS_CHECKED_AFTER && runs.keys.len().saturating_mul(MIN_VALUES_PER_RUN) > values
}

/// Whether a batch whose keys address `dictionary` (none yet: it takes the page's)
/// can go on taking keys of the page's dictionary `page`.
fn keeps<D>(dictionary: &mut Option<Arc<D>>, page: &Arc<D>) -> bool {
    Arc::ptr_eq(dictionary.get_or_insert_with(|| page.clone()), page)
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
        if let Keyed::Runs { runs, dictionary } = out {
            *out = Keyed::Keys {
                keys: runs.expand(),
                dictionary: dictionary.take(),
            };
        }
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
            Keyed::Keys { .. } | Keyed::Runs { .. } => unreachable!("made plain just above"),
        }
    }
}

impl<K: ValueKind<Dictionary = <K as ValueKind>::Buffer>> ValueKind for KeyedKind<K> {
    type Buffer = Keyed<K::Buffer>;
    type Dictionary = KeptDictionary<K::Buffer>;
    type Page = KeyedPage<K>;

    fn buffer(&self) -> Keyed<K::Buffer> {
        if self.as_plain() {
            return Keyed::Plain(self.inner.buffer());
        }
        if self.in_runs() {
            return Keyed::Runs {
                runs: KeyRuns::default(),
                dictionary: None,
            };
        }
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
            // Runs are charged as they are made: there are as many as the data says.
            Keyed::Runs { .. } => Ok(()),
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
            if dictionary.values.value_count() <= self.max_entries && !self.as_plain() {
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
                if let Keyed::Runs { runs, dictionary } = out
                    && keeps(dictionary, page_dictionary)
                {
                    let got = append_runs(indices, n, len, runs, budget)?;
                    if !short_runs(runs) {
                        return check_count(got, n);
                    }
                    // Short runs: the rest of the batch (and of the chunk) as
                    // plain keys.
                    self.short_seen.store(true, Ordering::Relaxed);
                    let mut keys = runs.expand();
                    budget.reserve(&mut keys, n - got)?;
                    let more = indices.append_checked(n - got, len, &mut keys)?;
                    *out = Keyed::Keys {
                        keys,
                        dictionary: Some(page_dictionary.clone()),
                    };
                    if self.plain_when_short {
                        self.plain(out, 0, budget)?;
                    }
                    return check_count(got + more, n);
                }
                if let Keyed::Keys { keys, dictionary } = out
                    && keeps(dictionary, page_dictionary)
                {
                    let got = indices.append_checked(n, len, keys)?;
                    return check_count(got, n);
                }
                // Keys of another dictionary, or plain values already: gathered.
                let plain = self.plain(out, 0, budget)?;
                let got = page_dictionary
                    .values
                    .gather_indices_into(indices, n, plain, budget)?;
                check_count(got, n)
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
