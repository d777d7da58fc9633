//! Sets of rows of one row group as sorted, disjoint ranges.

use std::ops::Range;

/// Rows of a row group, as sorted, disjoint, non-empty ranges.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RowRanges {
    ranges: Vec<Range<u64>>,
}

impl RowRanges {
    /// Rows `0..rows`.
    pub fn all(rows: u64) -> Self {
        Self::from_sorted(std::iter::once(0..rows))
    }

    /// No rows.
    pub fn none() -> Self {
        Self::default()
    }

    /// The union of `ranges` given in ascending order of start (overlapping or adjacent
    /// ranges are merged, empty ones dropped).
    pub fn from_sorted(ranges: impl IntoIterator<Item = Range<u64>>) -> Self {
        let mut out: Vec<Range<u64>> = Vec::new();
        for r in ranges {
            if r.start >= r.end {
                continue;
            }
            match out.last_mut() {
                Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
                _ => out.push(r),
            }
        }
        Self { ranges: out }
    }

    /// The ranges.
    pub fn ranges(&self) -> &[Range<u64>] {
        &self.ranges
    }

    /// Number of rows.
    pub fn row_count(&self) -> u64 {
        self.ranges.iter().map(|r| r.end - r.start).sum()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Whether any row of `range` is in the set.
    pub fn overlaps(&self, range: &Range<u64>) -> bool {
        // The first range ending after `range.start` is the only candidate.
        let i = self.ranges.partition_point(|r| r.end <= range.start);
        self.ranges
            .get(i)
            .is_some_and(|r| r.start < range.end && range.start < range.end)
    }

    /// Rows in both.
    pub fn intersect(&self, other: &RowRanges) -> RowRanges {
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::new();
        while i < self.ranges.len() && j < other.ranges.len() {
            let (a, b) = (&self.ranges[i], &other.ranges[j]);
            let start = a.start.max(b.start);
            let end = a.end.min(b.end);
            if start < end {
                out.push(start..end);
            }
            if a.end <= b.end {
                i += 1;
            } else {
                j += 1;
            }
        }
        Self { ranges: out }
    }

    /// Rows in either.
    pub fn union(&self, other: &RowRanges) -> RowRanges {
        let mut all: Vec<Range<u64>> = Vec::with_capacity(self.ranges.len() + other.ranges.len());
        let (mut i, mut j) = (0, 0);
        while i < self.ranges.len() || j < other.ranges.len() {
            let take_self = match (self.ranges.get(i), other.ranges.get(j)) {
                (Some(a), Some(b)) => a.start <= b.start,
                (Some(_), None) => true,
                _ => false,
            };
            if take_self {
                all.push(self.ranges[i].clone());
                i += 1;
            } else {
                all.push(other.ranges[j].clone());
                j += 1;
            }
        }
        Self::from_sorted(all)
    }
}

#[cfg(test)]
// Lists of one range are what these tests compare against.
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    #[test]
    fn set_algebra() {
        let a = RowRanges::from_sorted([0..10, 10..15, 20..30]);
        assert_eq!(a.ranges(), &[0..15, 20..30]);
        let b = RowRanges::from_sorted([5..22, 25..26, 29..40]);
        assert_eq!(a.intersect(&b).ranges(), &[5..15, 20..22, 25..26, 29..30]);
        assert_eq!(a.union(&b).ranges(), &[0..40]);
        assert_eq!(a.row_count(), 25);
        assert!(a.overlaps(&(14..16)));
        assert!(!a.overlaps(&(15..20)));
        assert!(a.overlaps(&(19..21)));
        assert!(!a.overlaps(&(30..31)));
        assert!(RowRanges::none().intersect(&a).is_empty());
        assert_eq!(RowRanges::none().union(&a), a);
    }
}
