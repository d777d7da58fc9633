//! A column chunk's bytes as a [`PageReader`](super::PageReader) walks them: either all
//! of them, given at once, or fetched range by range from a [`ChunkSource`] as the pages
//! are reached.
//!
//! Fetched range by range, a reader holds about one page of the chunk at a time (the
//! page being decoded and a little of what follows, the next page's header): once a
//! page is done with, and nothing else shares its bytes, they are freed (a chunk's
//! last page, once decompressed: [`ChunkBytes::drop_window`]). A reader of a wide row
//! group then holds one page per column instead of every column's whole chunk, and
//! pages stepped over are never fetched.

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;

use crate::error::{Error, Result};

/// Where a column chunk's bytes come from when they are fetched as the pages are read
/// (a file, read at the chunk's offset): see [`PageReader::from_source`](super::PageReader::from_source).
///
/// ```
/// use std::ops::Range;
/// use bytes::Bytes;
/// use herringbone_codec::page::ChunkSource;
///
/// /// A chunk held in memory, handed out slice by slice.
/// #[derive(Debug)]
/// struct InMemory(Bytes);
///
/// impl ChunkSource for InMemory {
///     fn len(&self) -> usize {
///         self.0.len()
///     }
///     fn fetch(&self, range: Range<usize>) -> herringbone_codec::Result<Bytes> {
///         Ok(self.0.slice(range))
///     }
/// }
/// ```
pub trait ChunkSource: Send + Sync + std::fmt::Debug {
    /// Length of the chunk in bytes.
    fn len(&self) -> usize;

    /// Whether the chunk is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The chunk's bytes `range` (always within `0..len()`); exactly that many bytes.
    fn fetch(&self, range: Range<usize>) -> Result<Bytes>;

    /// The chunk's bytes from `start`, at least to `needed_end` and at most to
    /// `wanted_end` (`start <= needed_end <= wanted_end <= len()`): the reader asks for
    /// a little more than it needs (the next page's header). By default
    /// [`Self::fetch`]`(start..wanted_end)`; a source that holds only some of the
    /// chunk's bytes (the pages a selection reads) gives what it holds.
    fn fetch_within(&self, start: usize, needed_end: usize, wanted_end: usize) -> Result<Bytes> {
        let _ = needed_end;
        self.fetch(start..wanted_end)
    }
}

/// Bytes fetched beyond the end of a page body: enough for the next page's header in
/// the same fetch.
const HEADER_LOOKAHEAD: usize = 16 << 10;

/// The fewest bytes one fetch asks for (within the chunk): small pages come several to
/// a fetch.
const MIN_FETCH: usize = 64 << 10;

/// A column chunk's bytes, whole or fetched as needed.
#[derive(Debug)]
pub(crate) struct ChunkBytes {
    /// `None`: `window` is the whole chunk.
    source: Option<Arc<dyn ChunkSource>>,
    /// Bytes `window_start..window_start + window.len()` of the chunk.
    window: Bytes,
    window_start: usize,
    len: usize,
}

impl ChunkBytes {
    /// All of a chunk's bytes.
    pub(crate) fn whole(chunk: Bytes) -> Self {
        Self {
            source: None,
            len: chunk.len(),
            window: chunk,
            window_start: 0,
        }
    }

    /// A chunk whose bytes `source` fetches as they are needed.
    pub(crate) fn fetched(source: Arc<dyn ChunkSource>) -> Self {
        Self {
            len: source.len(),
            source: Some(source),
            window: Bytes::new(),
            window_start: 0,
        }
    }

    /// Length of the chunk.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether `bytes` lie in the window fetched last (a page that shares it rather
    /// than a copy of its own).
    pub(crate) fn window_holds(&self, bytes: &[u8]) -> bool {
        let window = self.window.as_ptr_range();
        let held = bytes.as_ptr_range();
        !bytes.is_empty() && window.start <= held.start && held.end <= window.end
    }

    /// The chunk's pages are all read, the last one copied out (decompressed or
    /// decrypted): a fetched window is let go now rather than when the reader is
    /// dropped. A column whose last page is held decompressed for many batches (a
    /// whole chunk in one page, as DuckDB writes them) then holds no compressed copy
    /// beside it for the rest of its row group. Before the last page the window stays:
    /// freed early, its block went to the batches' buffers and the next page's
    /// window took fresh memory (page faults +60% on strings.polars).
    pub(crate) fn drop_window(&mut self) {
        if self.source.is_some() {
            self.window_start += self.window.len();
            self.window = Bytes::new();
        }
    }

    /// The chunk's bytes from `start` on, at least to `end` (both within the chunk,
    /// `start <= end`), maybe more: a slice sharing what was fetched.
    pub(crate) fn slice_from(&mut self, start: usize, end: usize) -> Result<Bytes> {
        debug_assert!(start <= end && end <= self.len);
        let window_end = self.window_start + self.window.len();
        let covered = start >= self.window_start && end <= window_end;
        if !covered {
            let Some(source) = &self.source else {
                // A whole chunk covers every range within it.
                return Err(Error::corrupt(format!(
                    "bytes {start}..{end} outside a column chunk of {} bytes",
                    self.len
                )));
            };
            let fetch_end = end
                .saturating_add(HEADER_LOOKAHEAD)
                .max(start.saturating_add(MIN_FETCH))
                .min(self.len);
            // The previous window goes first: when no page holds on to it, its block
            // is free for the new one. Allocated while the old one still stood, each
            // page-sized window took fresh room and left a hole behind, which the
            // batches' buffers partly filled: a few MiB of a whole-file read's peak.
            self.window = Bytes::new();
            self.window_start = start;
            let fetched = source.fetch_within(start, end, fetch_end)?;
            if fetched.len() < end - start || fetched.len() > fetch_end - start {
                return Err(Error::corrupt(format!(
                    "fetched {} bytes of a column chunk where {}..={} were asked for (bytes {start}..{fetch_end})",
                    fetched.len(),
                    end - start,
                    fetch_end - start
                )));
            }
            self.window = fetched;
        }
        Ok(self.window.slice(start - self.window_start..))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[derive(Debug)]
    struct Counted {
        bytes: Bytes,
        fetches: Mutex<Vec<Range<usize>>>,
    }

    impl ChunkSource for Counted {
        fn len(&self) -> usize {
            self.bytes.len()
        }
        fn fetch(&self, range: Range<usize>) -> Result<Bytes> {
            self.fetches.lock().unwrap().push(range.clone());
            Ok(Bytes::copy_from_slice(&self.bytes[range]))
        }
    }

    #[test]
    fn fetches_only_what_is_not_held_and_stops_at_the_chunk_end() {
        let data: Vec<u8> = (0..200_000u32).map(|i| i as u8).collect();
        let source = Arc::new(Counted {
            bytes: Bytes::from(data.clone()),
            fetches: Mutex::new(Vec::new()),
        });
        let mut chunk = ChunkBytes::fetched(source.clone());
        assert_eq!(chunk.len(), 200_000);
        let first = chunk.slice_from(0, 10).unwrap();
        assert_eq!(&first[..10], &data[..10]);
        // Within the first fetch: nothing fetched again.
        let inside = chunk.slice_from(100, 1000).unwrap();
        assert_eq!(&inside[..900], &data[100..1000]);
        // Beyond it: one fetch from `start`, to the end of the chunk at most.
        let tail = chunk.slice_from(150_000, 199_000).unwrap();
        assert_eq!(&tail[..], &data[150_000..]);
        assert_eq!(
            *source.fetches.lock().unwrap(),
            [0..MIN_FETCH, 150_000..200_000]
        );
        // The first window is freed once nothing shares it: only the slices held keep
        // their bytes.
        drop((first, inside));
        assert_eq!(
            chunk.slice_from(199_999, 200_000).unwrap()[..],
            [data[199_999]]
        );
    }

    #[test]
    fn a_short_fetch_is_an_error() {
        #[derive(Debug)]
        struct Short;
        impl ChunkSource for Short {
            fn len(&self) -> usize {
                100
            }
            fn fetch(&self, _: Range<usize>) -> Result<Bytes> {
                Ok(Bytes::from_static(b"abc"))
            }
        }
        let error = ChunkBytes::fetched(Arc::new(Short))
            .slice_from(0, 10)
            .unwrap_err();
        assert!(error.to_string().contains("fetched 3 bytes"), "{error}");
    }

    #[test]
    fn the_previous_window_is_released_before_the_next_fetch() {
        /// Hands out windows that count themselves alive (each owns a clone of `alive`).
        #[derive(Debug)]
        struct Tracked {
            alive: Arc<()>,
            live_at_fetch: Mutex<Vec<usize>>,
        }
        struct Owned(Vec<u8>, #[allow(dead_code)] Arc<()>);
        impl AsRef<[u8]> for Owned {
            fn as_ref(&self) -> &[u8] {
                &self.0
            }
        }
        impl ChunkSource for Tracked {
            fn len(&self) -> usize {
                1 << 20
            }
            fn fetch(&self, range: Range<usize>) -> Result<Bytes> {
                // Windows alive besides `alive` itself.
                self.live_at_fetch
                    .lock()
                    .unwrap()
                    .push(Arc::strong_count(&self.alive) - 1);
                let bytes = range.map(|i| i as u8).collect();
                Ok(Bytes::from_owner(Owned(bytes, self.alive.clone())))
            }
        }
        let source = Arc::new(Tracked {
            alive: Arc::new(()),
            live_at_fetch: Mutex::new(Vec::new()),
        });
        let mut chunk = ChunkBytes::fetched(source.clone());
        let page = chunk.slice_from(0, 1000).unwrap();
        assert_eq!(page[999], (999 % 256) as u8);
        drop(page);
        // A page done with: the window it came from is gone when the next one is read.
        let next = chunk.slice_from(500_000, 600_000).unwrap();
        assert_eq!(next[0], (500_000 % 256) as u8);
        // A page still held keeps its window, and only that.
        let held = chunk.slice_from(900_000, 950_000).unwrap();
        assert_eq!(*source.live_at_fetch.lock().unwrap(), [0, 0, 1]);
        drop(next);
        drop(held);
        drop(chunk);
        assert_eq!(Arc::strong_count(&source.alive), 1);
    }

    #[test]
    fn a_window_is_dropped_once_the_pages_are_read_and_refetched_if_asked_again() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let source = Arc::new(Counted {
            bytes: Bytes::from(data.clone()),
            fetches: Mutex::new(Vec::new()),
        });
        let mut chunk = ChunkBytes::fetched(source.clone());
        let page = chunk.slice_from(150_000, 200_000).unwrap();
        assert!(chunk.window_holds(&page[..10]));
        assert!(!chunk.window_holds(&data[..10]));
        drop(page);
        chunk.drop_window();
        assert!(chunk.window.is_empty());
        // Asked again (a reader never does): fetched again, the same bytes.
        assert_eq!(
            chunk.slice_from(199_000, 200_000).unwrap()[..],
            data[199_000..]
        );
        assert_eq!(source.fetches.lock().unwrap().len(), 2);
        // A whole chunk is never let go.
        let mut whole = ChunkBytes::whole(Bytes::from(data.clone()));
        whole.drop_window();
        assert_eq!(whole.window.len(), 200_000);
    }
}
