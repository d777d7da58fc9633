//! Where a column chunk's data pages lie and which rows each holds, from the chunk's
//! offset index, checked against the chunk before a [`PageReader`](super::PageReader)
//! trusts them to jump over pages without reading their headers.

use herringbone_format::metadata::PageLocation;

use crate::error::{Error, Result};

/// One data page: its bytes in the chunk (header included) and its first row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Located {
    start: usize,
    end: usize,
    first_row: u64,
}

/// A column chunk's data pages as its offset index places them, positions counted from
/// the chunk's first byte.
///
/// [`PageLocations::new`] refuses an index that does not fit its chunk: a page outside
/// the chunk's bytes, empty, overlapping or out of order, a first page not at row 0,
/// first rows that decrease or reach the row group's row count. What it cannot see is a
/// self-consistent index that lies about a page it is used to skip; each page the
/// reader does decode is checked against its header (see
/// [`PageReader::located_rows`](super::PageReader::located_rows)).
///
/// ```
/// use herringbone_codec::page::PageLocations;
/// use herringbone_format::metadata::PageLocation;
/// let page = |offset, compressed_page_size, first_row_index| PageLocation {
///     offset,
///     compressed_page_size,
///     first_row_index,
/// };
/// // A chunk at file offset 4 of 300 bytes: a dictionary page, then two data pages.
/// let index = [page(104, 100, 0), page(204, 100, 60)];
/// let locations = PageLocations::new(&index, 4, 300, 100).unwrap();
/// assert_eq!(locations.len(), 2);
/// assert_eq!(locations.rows(1), 40);
/// // Overlapping pages are refused, naming the page.
/// let bad = [page(104, 120, 0), page(204, 100, 60)];
/// let error = PageLocations::new(&bad, 4, 300, 100).unwrap_err();
/// assert!(error.to_string().contains("page 1"), "{error}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageLocations {
    pages: Vec<Located>,
    /// Rows of the row group.
    num_rows: u64,
}

impl PageLocations {
    /// The `locations` of a chunk that starts at file offset `chunk_start`, spans
    /// `chunk_len` bytes and holds `num_rows` rows, once checked; the error names the
    /// first page at fault.
    pub fn new(
        locations: &[PageLocation],
        chunk_start: u64,
        chunk_len: usize,
        num_rows: u64,
    ) -> Result<Self> {
        if locations.is_empty() && num_rows > 0 {
            return Err(Error::corrupt(format!(
                "offset index lists no page for {num_rows} rows"
            )));
        }
        let mut pages: Vec<Located> = Vec::with_capacity(locations.len());
        for (i, location) in locations.iter().enumerate() {
            let bad = |what: String| Error::corrupt(format!("offset index, page {i}: {what}"));
            let start = u64::try_from(location.offset)
                .ok()
                .and_then(|offset| offset.checked_sub(chunk_start))
                .and_then(|start| usize::try_from(start).ok())
                .ok_or_else(|| {
                    bad(format!(
                        "offset {} is before the column chunk (at {chunk_start})",
                        location.offset
                    ))
                })?;
            let len = usize::try_from(location.compressed_page_size)
                .ok()
                .filter(|&len| len > 0)
                .ok_or_else(|| {
                    bad(format!(
                        "compressed_page_size {} is not positive",
                        location.compressed_page_size
                    ))
                })?;
            let end = start
                .checked_add(len)
                .filter(|&end| end <= chunk_len)
                .ok_or_else(|| {
                    bad(format!(
                        "bytes {}..{} reach past the column chunk ({chunk_len} bytes from {chunk_start})",
                        location.offset,
                        location.offset.saturating_add(i64::from(location.compressed_page_size))
                    ))
                })?;
            let first_row = u64::try_from(location.first_row_index)
                .ok()
                .filter(|&row| row < num_rows)
                .ok_or_else(|| {
                    bad(format!(
                        "first_row_index {} is outside the row group's {num_rows} rows",
                        location.first_row_index
                    ))
                })?;
            match pages.last() {
                None if first_row != 0 => {
                    return Err(bad(format!("first_row_index {first_row} where 0 is due")));
                }
                Some(previous) if start < previous.end => {
                    return Err(bad(format!(
                        "offset {} overlaps the previous page, which ends at {}",
                        location.offset,
                        chunk_start + previous.end as u64
                    )));
                }
                Some(previous) if first_row <= previous.first_row => {
                    return Err(bad(format!(
                        "first_row_index {first_row} does not follow the previous page's {}",
                        previous.first_row
                    )));
                }
                _ => {}
            }
            pages.push(Located {
                start,
                end,
                first_row,
            });
        }
        Ok(Self { pages, num_rows })
    }

    /// Number of data pages.
    pub fn len(&self) -> usize {
        self.pages.len()
    }

    /// Whether the chunk has no data page.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// Rows that data page `page` holds (up to the next page's first row, or the end of
    /// the row group for the last page).
    pub fn rows(&self, page: usize) -> u64 {
        let next = self
            .pages
            .get(page + 1)
            .map_or(self.num_rows, |next| next.first_row);
        next - self.pages[page].first_row
    }

    /// The first row of data page `page`.
    pub fn first_row(&self, page: usize) -> u64 {
        self.pages[page].first_row
    }

    /// The bytes of data page `page` (header included), counted from the chunk's
    /// first byte.
    pub fn bytes(&self, page: usize) -> std::ops::Range<usize> {
        self.pages[page].start..self.pages[page].end
    }

    /// Position in the chunk of the first data page (what precedes it is the
    /// dictionary page, if any).
    pub fn first_start(&self) -> usize {
        self.pages.first().map_or(0, |p| p.start)
    }

    /// The data page whose bytes start at `position` of the chunk, if any.
    pub(crate) fn page_at(&self, position: usize) -> Option<usize> {
        let i = self.pages.partition_point(|p| p.start < position);
        (self.pages.get(i)?.start == position).then_some(i)
    }

    /// Position in the chunk just past data page `page`.
    pub(crate) fn end(&self, page: usize) -> usize {
        self.pages[page].end
    }

    /// Position in the chunk just past the last data page.
    pub(crate) fn data_end(&self) -> usize {
        self.pages.last().map_or(0, |p| p.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(offset: i64, size: i32, first_row: i64) -> PageLocation {
        PageLocation {
            offset,
            compressed_page_size: size,
            first_row_index: first_row,
        }
    }

    fn error(pages: &[PageLocation]) -> String {
        PageLocations::new(pages, 100, 1000, 50)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn pages_are_found_by_position_and_count_their_rows() {
        let index = [page(100, 10, 0), page(110, 20, 5), page(200, 800, 49)];
        let locations = PageLocations::new(&index, 100, 1000, 50).unwrap();
        assert_eq!(
            (0..3).map(|p| locations.rows(p)).collect::<Vec<_>>(),
            [5, 44, 1]
        );
        assert_eq!(locations.page_at(0), Some(0));
        assert_eq!(locations.page_at(10), Some(1));
        assert_eq!(locations.page_at(100), Some(2));
        assert_eq!(locations.page_at(5), None);
        assert_eq!(locations.page_at(1000), None);
        assert_eq!((locations.first_start(), locations.data_end()), (0, 900));
        assert_eq!(locations.end(1), 30);
    }

    #[test]
    fn indexes_that_do_not_fit_the_chunk_are_refused_naming_the_page() {
        let cases: [(&[PageLocation], &str); 9] = [
            (&[page(99, 10, 0)], "page 0: offset 99 is before"),
            (&[page(100, 0, 0)], "page 0: compressed_page_size 0"),
            (
                &[page(100, 10, 0), page(1090, 20, 5)],
                "page 1: bytes 1090..1110 reach past",
            ),
            (
                &[page(100, 10, 0), page(105, 20, 5)],
                "page 1: offset 105 overlaps",
            ),
            (&[page(100, 10, 3)], "page 0: first_row_index 3 where 0"),
            (
                &[page(100, 10, 0), page(110, 10, 0)],
                "page 1: first_row_index 0 does not follow",
            ),
            (
                &[page(100, 10, 0), page(110, 10, 50)],
                "page 1: first_row_index 50 is outside",
            ),
            (
                &[page(100, 10, -1)],
                "page 0: first_row_index -1 is outside",
            ),
            (&[], "no page for 50 rows"),
        ];
        for (pages, expected) in cases {
            let message = error(pages);
            assert!(message.contains(expected), "{expected}: {message}");
        }
        // Pages out of order overlap the one before them.
        let message = error(&[page(200, 10, 0), page(100, 10, 5)]);
        assert!(message.contains("page 1: offset 100 overlaps"), "{message}");
    }
}
