//! A column chunk's written pages held in blocks ([`PageBlocks`]) until its row group
//! goes to the sink.
//!
//! One buffer per chunk grew by doubling to the chunk's size (tens of MiB for a column
//! of strings): above the allocator's mapping threshold, so every writer mapped it
//! afresh, page-faulted through it, and gave it back to the kernel when dropped. Blocks
//! of about a page's size come from the heap, which keeps and reuses them, and a
//! growing chunk never moves the bytes it holds.

/// Capacity of a new block: a default data page (1 MiB) and its header fit.
const BLOCK: usize = (1 << 20) + (1 << 12);

/// Pages back to back, in blocks that each hold whole pages.
#[derive(Debug, Default)]
pub(crate) struct PageBlocks {
    /// Filled blocks, in order.
    full: Vec<Vec<u8>>,
    /// The block pages are appended to.
    open: Vec<u8>,
    /// Bytes in `full`: the chunk offset of `open`'s first byte.
    full_len: usize,
    /// Emptied blocks of an earlier chunk, taken before new ones are allocated.
    spare: Vec<Vec<u8>>,
}

impl PageBlocks {
    /// The block the next page goes to, with room for `page_bytes` more (a fresh or
    /// spare block when the open one has too little; a page larger than a block gets a
    /// block of its size), and the chunk offset of the block's first byte.
    pub fn block_for(&mut self, page_bytes: usize) -> (&mut Vec<u8>, usize) {
        if !self.open.is_empty() && self.open.capacity() - self.open.len() < page_bytes {
            let next = self.spare.pop().unwrap_or_default();
            let full = std::mem::replace(&mut self.open, next);
            self.full_len += full.len();
            self.full.push(full);
        }
        if self.open.capacity() - self.open.len() < page_bytes {
            self.open.reserve(page_bytes.max(BLOCK));
        }
        (&mut self.open, self.full_len)
    }

    /// Bytes of the pages so far.
    pub fn len(&self) -> usize {
        self.full_len + self.open.len()
    }

    /// Takes the pages' blocks, in order (none when there are no pages).
    pub fn take(&mut self) -> Vec<Vec<u8>> {
        let mut blocks = std::mem::take(&mut self.full);
        if !self.open.is_empty() {
            blocks.push(std::mem::take(&mut self.open));
        }
        self.full_len = 0;
        blocks
    }

    /// Forgets the pages, keeping their blocks for the next ones.
    pub fn clear(&mut self) {
        let blocks = self.take();
        self.recycle(blocks);
    }

    /// Keeps `blocks` (taken earlier, their bytes written) for the next pages.
    pub fn recycle(&mut self, blocks: Vec<Vec<u8>>) {
        for mut block in blocks {
            block.clear();
            if self.open.capacity() == 0 {
                self.open = block;
            } else {
                self.spare.push(block);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_stay_whole_and_in_order_and_blocks_are_reused() {
        let mut blocks = PageBlocks::default();
        let mut expected = Vec::new();
        let mut pages = Vec::new();
        for (i, size) in [10usize, BLOCK - 20, 30, 3 * BLOCK, 5]
            .into_iter()
            .enumerate()
        {
            let page = vec![i as u8; size];
            let (block, base) = blocks.block_for(page.len());
            pages.push((base + block.len(), size));
            block.extend_from_slice(&page);
            expected.extend_from_slice(&page);
        }
        assert_eq!(blocks.len(), expected.len());
        // Each page starts where the pages before it end.
        let starts: Vec<usize> = pages.iter().map(|p| p.0).collect();
        assert_eq!(starts, [0, 10, BLOCK - 10, BLOCK + 20, 4 * BLOCK + 20]);
        let taken = blocks.take();
        assert_eq!(taken.concat(), expected);
        assert_eq!(blocks.len(), 0);
        // A page never straddles two blocks: 10 + (BLOCK - 20) share the first, the
        // 30-byte page starts the second, the large page has a block of its own.
        let mut block_ranges = Vec::new();
        let mut at = 0;
        for block in &taken {
            block_ranges.push(at..at + block.len());
            at += block.len();
        }
        assert_eq!(block_ranges[0], 0..BLOCK - 10);
        for (start, size) in pages {
            assert!(
                block_ranges
                    .iter()
                    .any(|r| r.start <= start && start + size <= r.end),
                "page at {start} of {size} bytes is whole in one block"
            );
        }

        let pointers: Vec<*const u8> = taken.iter().map(|b| b.as_ptr()).collect();
        blocks.recycle(taken);
        let (block, base) = blocks.block_for(100);
        assert_eq!((block.len(), base), (0, 0));
        assert!(pointers.contains(&block.as_ptr()), "a kept block is reused");
        block.extend_from_slice(&[7; 100]);
        assert_eq!(blocks.take().concat(), vec![7; 100]);
    }
}
