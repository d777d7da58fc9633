//! Bytes in, values out (and back) for Herringbone: bit packing, the RLE/bit-packing
//! hybrid, every Parquet encoding, compression codecs, pages, split-block Bloom filters,
//! page checksums, modular encryption, the Variant binary encoding and WKB geometry
//! statistics.
//!
//! Nothing here knows about Arrow: decoders write into buffers the caller provides, so
//! the reader can decode straight into Arrow buffers.

#![warn(missing_docs)]

pub mod bitpack;
pub mod bloom;
pub mod compression;
mod cpu;
pub mod crc;
pub mod crypto;
pub mod encoding;
pub mod error;
pub mod geo;
pub mod page;
pub mod rle;
pub mod source;
pub mod spread;
pub mod variant;

pub use error::{Error, ErrorKind, Result};
