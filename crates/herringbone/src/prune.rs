//! Pruning: which row groups, pages and rows a [`Predicate`](crate::predicate::Predicate)
//! can skip without decoding them, from chunk statistics, the page index and Bloom
//! filters. Every answer is conservative: only what cannot match is dropped.
//!
//! Most users want [`crate::scan`], which prunes and then reads; a [`Pruner`] is for
//! engines that plan reads themselves. Its outcome is a list of row groups and a
//! [`RowSelection`](crate::read::RowSelection) ([`selection_of`]) for the reader.

pub use herringbone_arrow_bridge::prune::{
    PageIndex, Pruner, RowRanges, page_rows, pages_overlapping, read_offset_index, read_page_index,
    selection_of,
};
