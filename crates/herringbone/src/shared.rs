//! A reader shared by several users (the verifier and the Arrow reader it runs, the
//! merge of several inputs): [`ChunkReader`] behind an `Arc`.

use std::sync::Arc;

use crate::ChunkReader;

/// A [`ChunkReader`] that can be handed out several times.
pub(crate) struct Shared<R>(pub Arc<R>);

impl<R: ChunkReader + Sync> ChunkReader for Shared<R> {
    fn len(&self) -> u64 {
        self.0.len()
    }

    fn get_bytes(
        &self,
        range: std::ops::Range<u64>,
    ) -> herringbone_arrow_bridge::Result<bytes::Bytes> {
        self.0.get_bytes(range)
    }

    fn get_bytes_within(
        &self,
        range: std::ops::Range<u64>,
        needed_end: u64,
    ) -> herringbone_arrow_bridge::Result<bytes::Bytes> {
        self.0.get_bytes_within(range, needed_end)
    }

    fn reads_side_by_side(&self) -> bool {
        self.0.reads_side_by_side()
    }
}
