//! Fetching only the pages a selection reads: a row group's selected rows, split out of
//! the selection ([`rows_per_group`]), pick through each chunk's offset index the data
//! pages holding a selected row and the dictionary page before them
//! ([`selected_page_ranges`](crate::prune::selected_page_ranges)); the bytes fetched for them are handed to the decoder as a
//! [`SparseChunk`], which holds those pages only. The offset index tells the page
//! reader where each page lies, so it never asks for a byte between them.

use std::ops::Range;

use bytes::Bytes;
use herringbone_codec::page::ChunkSource;

use crate::read::RowSelector;

/// The rows `runs` selects in each of consecutive row groups of `group_rows` rows, as
/// ranges counted from each group's first row.
pub(crate) fn rows_per_group(runs: &[RowSelector], group_rows: &[usize]) -> Vec<Vec<Range<usize>>> {
    let mut out: Vec<Vec<Range<usize>>> = vec![Vec::new(); group_rows.len()];
    let mut group = 0;
    let mut group_start = 0;
    let mut at = 0;
    for run in runs {
        let end = at + run.row_count;
        // The run's rows group by group.
        while at < end && group < group_rows.len() {
            let group_end = group_start + group_rows[group];
            let piece_end = end.min(group_end);
            if !run.skip && piece_end > at {
                let local = at - group_start..piece_end - group_start;
                match out[group].last_mut() {
                    Some(last) if last.end == local.start => last.end = local.end,
                    _ => out[group].push(local),
                }
            }
            at = piece_end;
            if at == group_end {
                group += 1;
                group_start = group_end;
            }
        }
        at = end;
    }
    out
}

/// Some of a column chunk's bytes (the pages a selection reads), fetched: a
/// [`ChunkSource`] that hands out what it holds and refuses the rest.
#[derive(Debug)]
pub(crate) struct SparseChunk {
    len: usize,
    /// Pieces in order, not overlapping: (first byte in the chunk, bytes).
    pieces: Vec<(usize, Bytes)>,
}

impl SparseChunk {
    pub(crate) fn new(len: usize, pieces: Vec<(usize, Bytes)>) -> Self {
        Self { len, pieces }
    }

    /// The piece holding byte `start`, from `start` on.
    fn from(&self, start: usize) -> Option<Bytes> {
        let i = self.pieces.partition_point(|(at, _)| *at <= start);
        let (at, bytes) = self.pieces.get(i.checked_sub(1)?)?;
        let offset = start - at;
        (offset < bytes.len()).then(|| bytes.slice(offset..))
    }
}

impl ChunkSource for SparseChunk {
    fn len(&self) -> usize {
        self.len
    }

    fn fetch(&self, range: Range<usize>) -> herringbone_codec::Result<Bytes> {
        self.fetch_within(range.start, range.end, range.end)
    }

    fn fetch_within(
        &self,
        start: usize,
        needed_end: usize,
        wanted_end: usize,
    ) -> herringbone_codec::Result<Bytes> {
        match self.from(start) {
            Some(bytes) if start + bytes.len() >= needed_end => {
                Ok(bytes.slice(..bytes.len().min(wanted_end - start)))
            }
            _ => Err(herringbone_codec::Error::corrupt(format!(
                "bytes {start}..{needed_end} of the column chunk were not fetched (the offset index placed no selected page there)"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prune::selected_page_ranges;
    use herringbone_codec::page::PageLocations;
    use herringbone_format::metadata::PageLocation;

    #[test]
    fn selections_split_by_row_group() {
        let runs = [
            RowSelector::skip(5),
            RowSelector::select(10), // 5..15: groups 0 and 1
            RowSelector::skip(20),   // 15..35
            RowSelector::select(3),  // 35..38: group 3
        ];
        let split = rows_per_group(&runs, &[10, 10, 10, 10, 10]);
        assert_eq!(
            split,
            vec![vec![5..10], vec![0..5], vec![], vec![5..8], vec![]]
        );
    }

    #[test]
    fn the_pages_holding_selected_rows_and_the_dictionary_are_fetched() {
        let page = |offset, size, first| PageLocation {
            offset,
            compressed_page_size: size,
            first_row_index: first,
        };
        // Chunk at 100: dictionary 100..150, pages of 10 rows.
        let index: Vec<PageLocation> = (0..5).map(|p| page(150 + p * 50, 50, p * 10)).collect();
        let locations = PageLocations::new(&index, 100, 300, 50).unwrap();
        let ranges = selected_page_ranges(&locations, &[12..13, 19..21, 45..46]);
        assert_eq!(ranges, vec![0..50, 100..200, 250..300]);
        let chunk = SparseChunk::new(
            300,
            ranges
                .iter()
                .map(|r| (r.start, Bytes::from(vec![r.start as u8; r.len()])))
                .collect(),
        );
        assert_eq!(chunk.fetch_within(120, 150, 260).unwrap().len(), 80);
        assert_eq!(chunk.fetch(0..10).unwrap()[..], [0; 10]);
        let error = chunk.fetch_within(60, 70, 80).unwrap_err();
        assert!(error.to_string().contains("bytes 60..70"), "{error}");
        assert!(chunk.fetch_within(190, 210, 210).is_err());
    }
}
