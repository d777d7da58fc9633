//! Page compression codecs: UNCOMPRESSED, SNAPPY, GZIP, BROTLI, LZ4 (the deprecated,
//! Hadoop-framed codec), LZ4_RAW and ZSTD.
//!
//! Decompression is always told how many bytes to produce (the page header's
//! `uncompressed_page_size`) and fails unless exactly that many come out. The output is
//! bounded by that size, and the size itself by a caller-configurable limit, so a hostile
//! stream cannot make the reader allocate more than it asked for. Where the claimed
//! size is implausible for the compressed length, output grows with what the stream
//! actually produces instead of being allocated up front.
//!
//! Each codec other than UNCOMPRESSED sits behind a cargo feature of its name
//! (`snappy`, `gzip`, `brotli`, `lz4` for LZ4 and LZ4_RAW, `zstd`, `lzo`; all on by
//! default). A codec left out is an [`ErrorKind::Unsupported`](crate::ErrorKind::Unsupported)
//! error, "codec SNAPPY not compiled in (feature `snappy`)"; see
//! [`Codec::is_compiled_in`].
//!
//! LZO (codec id 3) is read and written as parquet-java writes it: Hadoop's block
//! framing around LZO1X blocks (see the `lzo` submodule for the crates and the encoder).
//!
//! ```
//! # #[cfg(feature = "zstd")] {
//! use herringbone_codec::compression::Codec;
//!
//! let codec = Codec::Zstd { level: 3 };
//! let data = b"herringbone herringbone herringbone".repeat(10);
//! let mut compressed = Vec::new();
//! codec.compress(&data, &mut compressed).unwrap();
//! let mut restored = Vec::new();
//! codec.decompress(&compressed, data.len(), &mut restored).unwrap();
//! assert_eq!(restored, data);
//! # }
//! ```

#[cfg(any(feature = "gzip", feature = "brotli"))]
use std::io::Write;
#[cfg(any(
    feature = "gzip",
    feature = "brotli",
    feature = "lz4",
    feature = "zstd"
))]
use std::io::{self, Read};

use herringbone_format::metadata::CompressionCodec;

use crate::error::{Error, Result};

#[cfg(feature = "lzo")]
mod lzo;

/// The largest uncompressed size [`Codec::decompress`] accepts: the largest size a page
/// header can declare (`i32::MAX`). Callers that know better pass their own limit to
/// [`Codec::decompress_with_limit`].
pub const DEFAULT_MAX_UNCOMPRESSED_SIZE: usize = i32::MAX as usize;

/// Default GZIP level (zlib's default).
pub const DEFAULT_GZIP_LEVEL: u32 = 6;
/// Default BROTLI quality (the reference Rust writer's default: fast, still good ratio).
pub const DEFAULT_BROTLI_QUALITY: u32 = 1;
/// Default ZSTD level (zstd's own default).
pub const DEFAULT_ZSTD_LEVEL: i32 = 3;

#[cfg(feature = "brotli")]
/// Brotli window size (log2) used on write: the largest standard window.
const BROTLI_LGWIN: u32 = 22;
#[cfg(feature = "brotli")]
/// Internal buffer size of the streaming brotli codec.
const BROTLI_BUFFER_SIZE: usize = 4096;
#[cfg(feature = "lz4")]
/// Hadoop LZ4 framing: 4-byte big-endian uncompressed length, 4-byte big-endian
/// compressed length, then an LZ4 block.
const HADOOP_FRAME_PREFIX: usize = 8;
#[cfg(any(
    feature = "gzip",
    feature = "brotli",
    feature = "lz4",
    feature = "zstd"
))]
/// First growth step of streamed output.
const MIN_GROWTH: usize = 64 * 1024;
#[cfg(feature = "gzip")]
/// The largest expansion DEFLATE allows.
const DEFLATE_MAX_RATIO: usize = 1032;
#[cfg(feature = "brotli")]
/// First output allocation of a brotli stream, per input byte.
const BROTLI_TYPICAL_RATIO: usize = 16;

/// Thrift ids of `CompressionCodec` (parquet.thrift).
mod id {
    pub const UNCOMPRESSED: i32 = 0;
    pub const SNAPPY: i32 = 1;
    pub const GZIP: i32 = 2;
    pub const LZO: i32 = 3;
    pub const BROTLI: i32 = 4;
    pub const LZ4: i32 = 5;
    pub const ZSTD: i32 = 6;
    pub const LZ4_RAW: i32 = 7;
}

/// A page compression codec, with its write level where it has one.
///
/// The level only matters for [`Codec::compress`]; any level decompresses any stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Codec {
    /// No compression (`UNCOMPRESSED`).
    #[default]
    Uncompressed,
    /// Snappy raw format (`SNAPPY`), no framing.
    Snappy,
    /// GZIP (`GZIP`, RFC 1952); several concatenated members are read as one stream.
    Gzip {
        /// 0 (store) ..= 9 (best).
        level: u32,
    },
    /// LZO (`LZO`): LZO1X blocks in Hadoop's block framing (a bare block is read too).
    Lzo,
    /// Brotli (`BROTLI`).
    Brotli {
        /// Quality 0 ..= 11.
        quality: u32,
    },
    /// The deprecated `LZ4` codec: written with the Hadoop framing; read with the Hadoop
    /// framing, falling back to a bare LZ4 block and then to the LZ4 frame format, as
    /// older writers produced those.
    Lz4,
    /// `LZ4_RAW`: one bare LZ4 block.
    Lz4Raw,
    /// Zstandard (`ZSTD`).
    Zstd {
        /// Level, 1 ..= 22 (negative levels are zstd's fast modes).
        level: i32,
    },
}

impl Codec {
    /// The codec for a Thrift `CompressionCodec` id, with default write levels.
    ///
    /// Unknown ids are an `Unsupported` error.
    pub fn from_thrift_id(codec_id: i32) -> Result<Codec> {
        Ok(match codec_id {
            id::UNCOMPRESSED => Codec::Uncompressed,
            id::SNAPPY => Codec::Snappy,
            id::GZIP => Codec::Gzip {
                level: DEFAULT_GZIP_LEVEL,
            },
            id::LZO => Codec::Lzo,
            id::BROTLI => Codec::Brotli {
                quality: DEFAULT_BROTLI_QUALITY,
            },
            id::LZ4 => Codec::Lz4,
            id::ZSTD => Codec::Zstd {
                level: DEFAULT_ZSTD_LEVEL,
            },
            id::LZ4_RAW => Codec::Lz4Raw,
            other => {
                return Err(Error::unsupported(format!(
                    "unsupported codec: unknown compression codec id {other}"
                )));
            }
        })
    }

    /// The codec a column chunk's metadata names, with default write levels.
    pub fn from_compression_codec(codec: CompressionCodec) -> Result<Codec> {
        Self::from_thrift_id(codec.0)
    }

    /// The `CompressionCodec` to write in column chunk metadata.
    pub fn compression_codec(&self) -> CompressionCodec {
        CompressionCodec(self.thrift_id())
    }

    /// The Thrift `CompressionCodec` id written in column metadata.
    pub fn thrift_id(&self) -> i32 {
        match self {
            Codec::Uncompressed => id::UNCOMPRESSED,
            Codec::Snappy => id::SNAPPY,
            Codec::Gzip { .. } => id::GZIP,
            Codec::Lzo => id::LZO,
            Codec::Brotli { .. } => id::BROTLI,
            Codec::Lz4 => id::LZ4,
            Codec::Zstd { .. } => id::ZSTD,
            Codec::Lz4Raw => id::LZ4_RAW,
        }
    }

    /// The spec's name of the codec (`SNAPPY`, `LZ4_RAW`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Codec::Uncompressed => "UNCOMPRESSED",
            Codec::Snappy => "SNAPPY",
            Codec::Gzip { .. } => "GZIP",
            Codec::Lzo => "LZO",
            Codec::Brotli { .. } => "BROTLI",
            Codec::Lz4 => "LZ4",
            Codec::Zstd { .. } => "ZSTD",
            Codec::Lz4Raw => "LZ4_RAW",
        }
    }

    /// The cargo feature that compiles this codec in (`None` for UNCOMPRESSED).
    pub fn feature(&self) -> Option<&'static str> {
        match self {
            Codec::Uncompressed => None,
            Codec::Lzo => Some("lzo"),
            Codec::Snappy => Some("snappy"),
            Codec::Gzip { .. } => Some("gzip"),
            Codec::Brotli { .. } => Some("brotli"),
            Codec::Lz4 | Codec::Lz4Raw => Some("lz4"),
            Codec::Zstd { .. } => Some("zstd"),
        }
    }

    /// Whether this build can compress and decompress with the codec: its cargo feature
    /// is on (UNCOMPRESSED always).
    ///
    /// ```
    /// use herringbone_codec::compression::Codec;
    /// assert!(Codec::Uncompressed.is_compiled_in());
    /// assert_eq!(Codec::Snappy.is_compiled_in(), cfg!(feature = "snappy"));
    /// ```
    pub fn is_compiled_in(&self) -> bool {
        match self {
            Codec::Uncompressed => true,
            Codec::Lzo => cfg!(feature = "lzo"),
            Codec::Snappy => cfg!(feature = "snappy"),
            Codec::Gzip { .. } => cfg!(feature = "gzip"),
            Codec::Brotli { .. } => cfg!(feature = "brotli"),
            Codec::Lz4 | Codec::Lz4Raw => cfg!(feature = "lz4"),
            Codec::Zstd { .. } => cfg!(feature = "zstd"),
        }
    }

    /// The error for a codec whose cargo feature is off.
    #[cfg_attr(
        all(
            feature = "snappy",
            feature = "gzip",
            feature = "brotli",
            feature = "lz4",
            feature = "zstd",
            feature = "lzo"
        ),
        allow(dead_code)
    )]
    fn not_compiled_in(&self) -> Error {
        Error::unsupported(format!(
            "codec {} not compiled in (feature `{}`)",
            self.name(),
            self.feature().unwrap_or("?")
        ))
    }

    /// Decompresses `input`, appending exactly `expected_size` bytes to `out`.
    ///
    /// Fails (leaving `out` as it was) if the stream is malformed, produces a different
    /// number of bytes, or `expected_size` exceeds [`DEFAULT_MAX_UNCOMPRESSED_SIZE`].
    pub fn decompress(&self, input: &[u8], expected_size: usize, out: &mut Vec<u8>) -> Result<()> {
        self.decompress_with_limit(input, expected_size, DEFAULT_MAX_UNCOMPRESSED_SIZE, out)
    }

    /// [`Codec::decompress`] with a caller-chosen bound on `expected_size`.
    pub fn decompress_with_limit(
        &self,
        input: &[u8],
        expected_size: usize,
        max_size: usize,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let start = out.len();
        self.decompress_at(input, expected_size, max_size, out, start)
    }

    /// [`Codec::decompress_with_limit`] into `buffer` from its start, replacing what it
    /// held. The bytes it holds are scratch: SNAPPY and LZ4_RAW, which write into a
    /// slice, overwrite them in place, so a buffer reused from page to page is not
    /// zero-filled again (a `memset` of every page was 8% of reading a SNAPPY string
    /// file). On error `buffer` is left empty.
    pub fn decompress_replacing(
        &self,
        input: &[u8],
        expected_size: usize,
        max_size: usize,
        buffer: &mut Vec<u8>,
    ) -> Result<()> {
        match self {
            #[cfg(feature = "snappy")]
            Codec::Snappy => {}
            #[cfg(feature = "lz4")]
            Codec::Lz4Raw => {}
            _ => buffer.clear(),
        }
        self.decompress_at(input, expected_size, max_size, buffer, 0)
    }

    /// Decompresses `input` into `out[start..]`, which ends up exactly `expected_size`
    /// bytes long. Bytes of `out` past `start` are overwritten by the codecs that write
    /// into a slice; the others append, so they are given `start == out.len()`.
    fn decompress_at(
        &self,
        input: &[u8],
        expected_size: usize,
        max_size: usize,
        out: &mut Vec<u8>,
        start: usize,
    ) -> Result<()> {
        debug_assert!(start <= out.len());
        if expected_size > max_size {
            return Err(Error::unsupported(format!(
                "{}: uncompressed size {expected_size} exceeds the configured limit of {max_size} bytes",
                self.name()
            )));
        }
        if expected_size == 0 && input.is_empty() {
            out.truncate(start);
            return Ok(());
        }
        let result = match self {
            Codec::Uncompressed => {
                if input.len() == expected_size {
                    out.extend_from_slice(input);
                    Ok(())
                } else {
                    Err(size_mismatch(input.len(), expected_size))
                }
            }
            #[cfg(feature = "snappy")]
            Codec::Snappy => decompress_snappy(input, expected_size, out, start),
            #[cfg(feature = "gzip")]
            Codec::Gzip { .. } => decompress_deflate(input, expected_size, out),
            #[cfg(feature = "lzo")]
            Codec::Lzo => lzo::decompress(input, expected_size, out),
            #[cfg(feature = "brotli")]
            Codec::Brotli { .. } => decompress_brotli(input, expected_size, out),
            #[cfg(feature = "lz4")]
            Codec::Lz4 => decompress_lz4_legacy(input, expected_size, out),
            #[cfg(feature = "lz4")]
            Codec::Lz4Raw => decompress_lz4_block(input, expected_size, out, start),
            #[cfg(feature = "zstd")]
            Codec::Zstd { .. } => decompress_zstd(input, expected_size, out),
            #[allow(unreachable_patterns)] // every codec compiled in
            _ => Err(self.not_compiled_in()),
        };
        if let Err(error) = result {
            out.truncate(start);
            return Err(error.context(format!(
                "{} decompression of {} bytes into {expected_size}",
                self.name(),
                input.len()
            )));
        }
        Ok(())
    }

    /// Compresses `input`, appending the compressed bytes to `out`.
    pub fn compress(&self, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let start = out.len();
        let result = match *self {
            Codec::Uncompressed => {
                out.extend_from_slice(input);
                Ok(())
            }
            #[cfg(feature = "snappy")]
            Codec::Snappy => compress_snappy(input, out),
            #[cfg(feature = "gzip")]
            Codec::Gzip { level } => compress_gzip(input, level, out),
            #[cfg(feature = "lzo")]
            Codec::Lzo => lzo::compress(input, out),
            #[cfg(feature = "brotli")]
            Codec::Brotli { quality } => compress_brotli(input, quality, out),
            #[cfg(feature = "lz4")]
            Codec::Lz4 => compress_lz4_hadoop(input, out),
            #[cfg(feature = "lz4")]
            Codec::Lz4Raw => {
                compress_lz4_block(input, out);
                Ok(())
            }
            #[cfg(feature = "zstd")]
            Codec::Zstd { level } => compress_zstd(input, level, out),
            #[allow(unreachable_patterns)] // every codec compiled in
            _ => Err(self.not_compiled_in()),
        };
        if result.is_err() {
            out.truncate(start);
        }
        result
    }
}

impl TryFrom<CompressionCodec> for Codec {
    type Error = Error;

    fn try_from(codec: CompressionCodec) -> Result<Codec> {
        Codec::from_compression_codec(codec)
    }
}

fn size_mismatch(produced: usize, expected: usize) -> Error {
    Error::corrupt(format!(
        "decompressed size {produced} differs from the {expected} bytes the page header declares"
    ))
}

#[cfg(any(
    feature = "gzip",
    feature = "brotli",
    feature = "lz4",
    feature = "zstd"
))]
/// Drains `reader` into `out`, requiring exactly `expected` bytes.
///
/// The buffer starts at `first_step` (at least 64 KiB) and then doubles with what the
/// stream produces, so a tiny stream claiming a huge size costs memory in proportion to
/// its real output only.
fn read_exact_size<R: Read>(
    mut reader: R,
    expected: usize,
    first_step: usize,
    out: &mut Vec<u8>,
) -> Result<()> {
    let start = out.len();
    let mut filled = 0usize;
    while filled < expected {
        if out.len() == start + filled {
            let step = if filled == 0 {
                first_step.max(MIN_GROWTH)
            } else {
                filled
            };
            let grow = (expected - filled).min(step);
            out.resize(start + filled + grow, 0);
        }
        match reader.read(&mut out[start + filled..]) {
            Ok(0) => {
                out.truncate(start + filled);
                return Err(size_mismatch(filled, expected));
            }
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                out.truncate(start + filled);
                return Err(
                    Error::corrupt(format!("stream error after {filled} bytes")).with_source(e)
                );
            }
        }
    }
    out.truncate(start + filled);
    // Reading once more lets the codec verify its trailer (gzip CRC/length) and tells a
    // stream that goes on past the declared size.
    let mut probe = [0u8; 1];
    loop {
        match reader.read(&mut probe) {
            Ok(0) => return Ok(()),
            Ok(_) => {
                return Err(Error::corrupt(format!(
                    "stream produces more than the {expected} bytes the page header declares"
                )));
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                return Err(
                    Error::corrupt(format!("stream error after {filled} bytes")).with_source(e)
                );
            }
        }
    }
}

#[cfg(any(feature = "snappy", feature = "lz4"))]
/// Appends `len` zero bytes to `out` and returns the new tail.
fn grow_zeroed(out: &mut Vec<u8>, len: usize) -> &mut [u8] {
    let start = out.len();
    slice_at(out, start, len)
}

#[cfg(any(feature = "snappy", feature = "lz4"))]
/// Makes `out` exactly `start + len` bytes long and returns `out[start..]`: bytes it
/// already held are kept (to be overwritten), only bytes beyond them are zero-filled.
fn slice_at(out: &mut Vec<u8>, start: usize, len: usize) -> &mut [u8] {
    out.truncate(start + len);
    out.resize(start + len, 0);
    &mut out[start..]
}

#[cfg(feature = "snappy")]
fn decompress_snappy(input: &[u8], expected: usize, out: &mut Vec<u8>, start: usize) -> Result<()> {
    let claimed = snap::raw::decompress_len(input)
        .map_err(|e| Error::corrupt("invalid snappy length preamble").with_source(e))?;
    if claimed != expected {
        return Err(size_mismatch(claimed, expected));
    }
    // A snappy element of at most 3 bytes yields at most 64; anything claiming more
    // than that ratio is corrupt, and rejecting it here keeps allocation honest.
    if expected / 32 > input.len() {
        return Err(Error::corrupt(format!(
            "snappy stream of {} bytes cannot produce {expected} bytes",
            input.len()
        )));
    }
    let produced = snap::raw::Decoder::new()
        .decompress(input, slice_at(out, start, expected))
        .map_err(|e| Error::corrupt("invalid snappy data").with_source(e))?;
    if produced != expected {
        out.truncate(start);
        return Err(size_mismatch(produced, expected));
    }
    Ok(())
}

#[cfg(feature = "gzip")]
/// GZIP payloads, multi-member; a zlib stream (which some writers produced for GZIP) is
/// recognised by its header and read too.
fn decompress_deflate(input: &[u8], expected: usize, out: &mut Vec<u8>) -> Result<()> {
    // DEFLATE expands at most 1032:1 (a 258-byte match per 2 bits); more is corrupt,
    // and anything less can be allocated up front.
    if expected / DEFLATE_MAX_RATIO > input.len() {
        return Err(Error::corrupt(format!(
            "DEFLATE stream of {} bytes cannot produce {expected} bytes",
            input.len()
        )));
    }
    let is_zlib = input.len() >= 2
        && input[0] & 0x0f == 8
        && input[0] >> 4 <= 7
        && (u16::from(input[0]) << 8 | u16::from(input[1])) % 31 == 0;
    if is_zlib && input[0] != 0x1f {
        read_exact_size(
            flate2::bufread::ZlibDecoder::new(input),
            expected,
            expected,
            out,
        )
    } else {
        read_exact_size(
            flate2::bufread::MultiGzDecoder::new(input),
            expected,
            expected,
            out,
        )
    }
}

#[cfg(feature = "lz4")]
/// An LZ4 block can expand at most ~255:1 (each extra length byte adds 255).
fn lz4_block_can_produce(input_len: usize, expected: usize) -> bool {
    expected <= input_len.saturating_mul(255).saturating_add(16)
}

#[cfg(feature = "lz4")]
fn decompress_lz4_block(
    input: &[u8],
    expected: usize,
    out: &mut Vec<u8>,
    start: usize,
) -> Result<()> {
    if !lz4_block_can_produce(input.len(), expected) {
        return Err(Error::corrupt(format!(
            "LZ4 block of {} bytes cannot produce {expected} bytes",
            input.len()
        )));
    }
    let produced = lz4_flex::block::decompress_into(input, slice_at(out, start, expected))
        .map_err(|e| Error::corrupt("invalid LZ4 block").with_source(e));
    match produced {
        Ok(n) if n == expected => Ok(()),
        Ok(n) => {
            out.truncate(start);
            Err(size_mismatch(n, expected))
        }
        Err(e) => {
            out.truncate(start);
            Err(e)
        }
    }
}

#[cfg(feature = "lz4")]
/// One or more Hadoop frames that together fill exactly `expected` bytes.
fn decompress_lz4_hadoop(input: &[u8], expected: usize, out: &mut Vec<u8>) -> Result<()> {
    if !lz4_block_can_produce(input.len(), expected) {
        return Err(Error::corrupt(format!(
            "Hadoop LZ4 data of {} bytes cannot produce {expected} bytes",
            input.len()
        )));
    }
    let target = grow_zeroed(out, expected);
    let mut rest = input;
    let mut filled = 0usize;
    let mut frame_index = 0usize;
    while !rest.is_empty() {
        if rest.len() < HADOOP_FRAME_PREFIX {
            return Err(Error::corrupt(format!(
                "Hadoop LZ4 frame {frame_index}: {} trailing bytes are too short for a frame prefix",
                rest.len()
            )));
        }
        let frame_uncompressed = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        let frame_compressed = u32::from_be_bytes([rest[4], rest[5], rest[6], rest[7]]) as usize;
        rest = &rest[HADOOP_FRAME_PREFIX..];
        if frame_compressed > rest.len() {
            return Err(Error::corrupt(format!(
                "Hadoop LZ4 frame {frame_index}: compressed length {frame_compressed} exceeds the {} bytes left",
                rest.len()
            )));
        }
        if frame_uncompressed > expected - filled {
            return Err(Error::corrupt(format!(
                "Hadoop LZ4 frame {frame_index}: uncompressed length {frame_uncompressed} exceeds the {} bytes left to fill",
                expected - filled
            )));
        }
        let produced = lz4_flex::block::decompress_into(
            &rest[..frame_compressed],
            &mut target[filled..filled + frame_uncompressed],
        )
        .map_err(|e| {
            Error::corrupt(format!("Hadoop LZ4 frame {frame_index}: invalid LZ4 block"))
                .with_source(e)
        })?;
        if produced != frame_uncompressed {
            return Err(Error::corrupt(format!(
                "Hadoop LZ4 frame {frame_index}: produced {produced} bytes, its prefix says {frame_uncompressed}"
            )));
        }
        filled += produced;
        rest = &rest[frame_compressed..];
        frame_index += 1;
    }
    if filled != expected {
        return Err(size_mismatch(filled, expected));
    }
    Ok(())
}

#[cfg(feature = "lz4")]
/// The deprecated LZ4 codec: Hadoop framing as the spec now defines it; old parquet-cpp
/// wrote bare blocks and old arrow-rs wrote the LZ4 frame format, so fall back to those.
fn decompress_lz4_legacy(input: &[u8], expected: usize, out: &mut Vec<u8>) -> Result<()> {
    // Every form holds LZ4 blocks, so the block expansion bound holds for all three.
    if !lz4_block_can_produce(input.len(), expected) {
        return Err(Error::corrupt(format!(
            "LZ4 data of {} bytes cannot produce {expected} bytes",
            input.len()
        )));
    }
    let start = out.len();
    let hadoop_error = match decompress_lz4_hadoop(input, expected, out) {
        Ok(()) => return Ok(()),
        Err(e) => e,
    };
    out.truncate(start);
    if decompress_lz4_block(input, expected, out, start).is_ok() {
        return Ok(());
    }
    out.truncate(start);
    let frame = lz4_flex::frame::FrameDecoder::new(input);
    if read_exact_size(frame, expected, expected, out).is_ok() {
        return Ok(());
    }
    out.truncate(start);
    Err(
        Error::corrupt("not valid as Hadoop-framed LZ4, a bare LZ4 block or the LZ4 frame format")
            .with_source(hadoop_error),
    )
}

#[cfg(feature = "zstd")]
/// A ZSTD frame that costs more than this many output bytes per input byte is decoded
/// by streaming (output growing with what it really produces) rather than into a
/// buffer allocated up front.
const ZSTD_UPFRONT_RATIO: usize = 1024;

#[cfg(feature = "zstd")]
thread_local! {
    /// One decompression context per thread, reused across pages: creating a context
    /// costs allocations comparable to decoding a small page.
    static ZSTD_DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

#[cfg(feature = "zstd")]
thread_local! {
    /// One compression context per thread, reused across pages.
    static ZSTD_COMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

#[cfg(feature = "zstd")]
fn decompress_zstd(input: &[u8], expected: usize, out: &mut Vec<u8>) -> Result<()> {
    if let Ok(Some(content_size)) = zstd::zstd_safe::get_frame_content_size(input)
        && content_size > expected as u64
    {
        return Err(Error::corrupt(format!(
            "ZSTD frame declares {content_size} bytes, more than the {expected} the page header declares"
        )));
    }
    if expected / ZSTD_UPFRONT_RATIO > input.len() {
        return read_exact_size(
            zstd::stream::read::Decoder::with_buffer(input)
                .map_err(|e| Error::corrupt("cannot start ZSTD decoder").with_source(e))?,
            expected,
            0,
            out,
        );
    }
    let start = out.len();
    // zstd writes straight into the reserved spare capacity (no zero-fill first).
    out.reserve_exact(expected);
    let produced = ZSTD_DECOMPRESSOR
        .with(|cell| {
            let mut slot = cell.borrow_mut();
            let decompressor = match &mut *slot {
                Some(decompressor) => decompressor,
                empty => empty.insert(zstd::bulk::Decompressor::new()?),
            };
            let mut cursor = io::Cursor::new(&mut *out);
            cursor.set_position(start as u64);
            decompressor.decompress_to_buffer(input, &mut cursor)
        })
        .map_err(|e| Error::corrupt("invalid ZSTD data").with_source(e));
    match produced {
        Ok(n) if n == expected && out.len() == start + expected => Ok(()),
        Ok(n) => {
            out.truncate(start);
            Err(size_mismatch(n, expected))
        }
        Err(e) => {
            out.truncate(start);
            Err(e)
        }
    }
}

#[cfg(feature = "brotli")]
fn decompress_brotli(input: &[u8], expected: usize, out: &mut Vec<u8>) -> Result<()> {
    read_exact_size(
        brotli::Decompressor::new(input, BROTLI_BUFFER_SIZE),
        expected,
        // Brotli's ratio is unbounded; start from a generous typical one.
        input.len().saturating_mul(BROTLI_TYPICAL_RATIO),
        out,
    )
}

#[cfg(feature = "gzip")]
fn compress_gzip(input: &[u8], level: u32, out: &mut Vec<u8>) -> Result<()> {
    if level > 9 {
        return Err(Error::invalid_argument(format!(
            "GZIP level {level} is outside 0..=9"
        )));
    }
    let mut encoder = flate2::write::GzEncoder::new(&mut *out, flate2::Compression::new(level));
    encoder
        .write_all(input)
        .and_then(|()| encoder.finish().map(|_| ()))
        .map_err(|e| Error::corrupt("GZIP compression failed").with_source(e))
}

#[cfg(feature = "brotli")]
fn compress_brotli(input: &[u8], quality: u32, out: &mut Vec<u8>) -> Result<()> {
    if quality > 11 {
        return Err(Error::invalid_argument(format!(
            "BROTLI quality {quality} is outside 0..=11"
        )));
    }
    let mut encoder =
        brotli::CompressorWriter::new(&mut *out, BROTLI_BUFFER_SIZE, quality, BROTLI_LGWIN);
    encoder
        .write_all(input)
        .and_then(|()| encoder.flush())
        .map_err(|e| Error::corrupt("BROTLI compression failed").with_source(e))
}

#[cfg(feature = "snappy")]
fn compress_snappy(input: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let start = out.len();
    let bound = snap::raw::max_compress_len(input.len());
    if bound == 0 && !input.is_empty() {
        return Err(Error::invalid_argument(format!(
            "SNAPPY cannot compress {} bytes in one block",
            input.len()
        )));
    }
    let written = snap::raw::Encoder::new()
        .compress(input, grow_zeroed(out, bound))
        .map_err(|e| Error::invalid_argument("SNAPPY compression failed").with_source(e))?;
    out.truncate(start + written);
    Ok(())
}

#[cfg(feature = "lz4")]
fn compress_lz4_block(input: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    let bound = lz4_flex::block::get_maximum_output_size(input.len());
    let written = lz4_flex::block::compress_into(input, grow_zeroed(out, bound))
        .expect("lz4_flex output buffer sized by get_maximum_output_size");
    out.truncate(start + written);
}

#[cfg(feature = "lz4")]
fn compress_lz4_hadoop(input: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let uncompressed = u32::try_from(input.len()).map_err(|_| {
        Error::invalid_argument(format!(
            "LZ4 (Hadoop) cannot frame {} bytes: more than u32::MAX",
            input.len()
        ))
    })?;
    let start = out.len();
    out.extend_from_slice(&[0u8; HADOOP_FRAME_PREFIX]);
    compress_lz4_block(input, out);
    let compressed = (out.len() - start - HADOOP_FRAME_PREFIX) as u32;
    out[start..start + 4].copy_from_slice(&uncompressed.to_be_bytes());
    out[start + 4..start + 8].copy_from_slice(&compressed.to_be_bytes());
    Ok(())
}

#[cfg(feature = "zstd")]
fn compress_zstd(input: &[u8], level: i32, out: &mut Vec<u8>) -> Result<()> {
    let start = out.len();
    out.reserve(zstd::zstd_safe::compress_bound(input.len()));
    let written = ZSTD_COMPRESSOR
        .with(|cell| {
            let mut slot = cell.borrow_mut();
            let compressor = match &mut *slot {
                Some(compressor) => {
                    compressor.set_compression_level(level)?;
                    compressor
                }
                empty => empty.insert(zstd::bulk::Compressor::new(level)?),
            };
            let mut cursor = io::Cursor::new(&mut *out);
            cursor.set_position(start as u64);
            compressor.compress_to_buffer(input, &mut cursor)
        })
        .map_err(|e| {
            Error::invalid_argument(format!("ZSTD compression at level {level} failed"))
                .with_source(e)
        });
    match written {
        Ok(n) if out.len() == start + n => Ok(()),
        Ok(n) => {
            out.truncate(start);
            Err(Error::invalid_argument(format!(
                "ZSTD reported {n} compressed bytes but wrote {}",
                out.len().saturating_sub(start)
            )))
        }
        Err(e) => {
            out.truncate(start);
            Err(e)
        }
    }
}

#[cfg(test)]
mod features {
    use super::*;

    /// In every build: a codec compiled in round-trips, one left out is a named
    /// `Unsupported` error both ways (`.ci/run` also runs this with only `zstd` on).
    #[test]
    fn codecs_compiled_in_or_named_as_left_out() {
        let data = b"herringbone herringbone herringbone".repeat(20);
        for codec in [
            Codec::Snappy,
            Codec::Gzip { level: 6 },
            Codec::Brotli { quality: 1 },
            Codec::Lz4,
            Codec::Lz4Raw,
            Codec::Zstd { level: 3 },
            Codec::Lzo,
        ] {
            let mut compressed = Vec::new();
            let written = codec.compress(&data, &mut compressed);
            if codec.is_compiled_in() {
                written.unwrap();
                let mut restored = Vec::new();
                codec
                    .decompress(&compressed, data.len(), &mut restored)
                    .unwrap();
                assert_eq!(restored, data, "{}", codec.name());
                continue;
            }
            let message = format!(
                "codec {} not compiled in (feature `{}`)",
                codec.name(),
                codec.feature().unwrap()
            );
            let err = written.unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::Unsupported);
            assert_eq!(err.to_string(), message);
            assert!(compressed.is_empty());
            let err = codec
                .decompress(b"\x01\x02\x03", 10, &mut Vec::new())
                .unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::Unsupported);
            assert!(err.to_string().ends_with(&message), "{err}");
        }
    }
}

#[cfg(all(
    test,
    feature = "snappy",
    feature = "gzip",
    feature = "brotli",
    feature = "lz4",
    feature = "zstd",
    feature = "lzo"
))]
mod tests {
    use super::*;

    fn all_codecs() -> Vec<Codec> {
        vec![
            Codec::Uncompressed,
            Codec::Snappy,
            Codec::Gzip { level: 6 },
            Codec::Brotli { quality: 1 },
            Codec::Lz4,
            Codec::Lz4Raw,
            Codec::Zstd { level: 3 },
            Codec::Lzo,
        ]
    }

    #[test]
    fn thrift_ids_round_trip() {
        for id in 0..=7 {
            assert_eq!(Codec::from_thrift_id(id).unwrap().thrift_id(), id);
        }
        let err = Codec::from_thrift_id(8).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Unsupported);
    }

    #[test]
    fn compression_codec_conversions() {
        for &codec in CompressionCodec::ALL {
            let ours = Codec::try_from(codec).unwrap();
            assert_eq!(ours.compression_codec(), codec);
            assert_eq!(Some(ours.name()), codec.name());
        }
        assert!(Codec::try_from(CompressionCodec(99)).is_err());
    }

    #[test]
    fn lzo_errors_name_the_codec() {
        let err = Codec::Lzo
            .decompress(b"abc", 10, &mut Vec::new())
            .unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Corrupt);
        assert!(
            err.to_string()
                .contains("LZO decompression of 3 bytes into 10"),
            "{err}"
        );
    }

    #[test]
    fn every_codec_rejects_a_wrong_expected_size() {
        let data = b"0123456789abcdef".repeat(100);
        for codec in all_codecs() {
            let mut compressed = Vec::new();
            codec.compress(&data, &mut compressed).unwrap();
            for wrong in [data.len() - 1, data.len() + 1] {
                let mut out = vec![7u8];
                let err = codec.decompress(&compressed, wrong, &mut out).unwrap_err();
                assert_eq!(
                    err.kind(),
                    crate::ErrorKind::Corrupt,
                    "{codec:?} {wrong}: {err}"
                );
                assert_eq!(out, vec![7u8], "{codec:?}: output restored on error");
            }
        }
    }

    #[test]
    fn zstd_contexts_recover_after_errors() {
        let codec = Codec::Zstd { level: 5 };
        let data = b"context reuse context reuse".repeat(50);
        let mut compressed = Vec::new();
        codec.compress(&data, &mut compressed).unwrap();
        let mut corrupt = compressed.clone();
        let middle = corrupt.len() / 2;
        corrupt[middle] ^= 0xff;
        corrupt.truncate(corrupt.len() - 3);
        for _ in 0..3 {
            assert!(
                codec
                    .decompress(&corrupt, data.len(), &mut Vec::new())
                    .is_err()
            );
            let mut out = vec![1, 2];
            codec.decompress(&compressed, data.len(), &mut out).unwrap();
            assert_eq!(&out[..2], &[1, 2]);
            assert_eq!(&out[2..], &data[..]);
            // A different level on the reused compressor still round trips.
            let mut again = vec![9];
            Codec::Zstd { level: 1 }
                .compress(&data, &mut again)
                .unwrap();
            let mut out = Vec::new();
            codec.decompress(&again[1..], data.len(), &mut out).unwrap();
            assert_eq!(out, data);
        }
    }

    #[test]
    fn limit_is_enforced_before_decoding() {
        let err = Codec::Snappy
            .decompress_with_limit(&[0x80, 0x80, 0x04], 1 << 16, 1 << 10, &mut Vec::new())
            .unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::Unsupported);
        assert!(err.to_string().contains("limit"), "{err}");
    }

    #[test]
    fn hadoop_lz4_reads_several_frames_and_fallbacks() {
        let a = b"first frame first frame first frame".to_vec();
        let b = b"second frame, second frame".to_vec();
        let mut framed = Vec::new();
        Codec::Lz4.compress(&a, &mut framed).unwrap();
        Codec::Lz4.compress(&b, &mut framed).unwrap();
        let mut out = Vec::new();
        Codec::Lz4
            .decompress(&framed, a.len() + b.len(), &mut out)
            .unwrap();
        assert_eq!(out, [a.clone(), b].concat());

        // Bare block, as old parquet-cpp wrote.
        let mut bare = Vec::new();
        Codec::Lz4Raw.compress(&a, &mut bare).unwrap();
        let mut out = Vec::new();
        Codec::Lz4.decompress(&bare, a.len(), &mut out).unwrap();
        assert_eq!(out, a);

        // LZ4 frame format, as old arrow-rs wrote.
        let mut encoder = lz4_flex::frame::FrameEncoder::new(Vec::new());
        encoder.write_all(&a).unwrap();
        let frame = encoder.finish().unwrap();
        let mut out = Vec::new();
        Codec::Lz4.decompress(&frame, a.len(), &mut out).unwrap();
        assert_eq!(out, a);
    }

    #[test]
    fn gzip_reads_concatenated_members_and_zlib() {
        let mut two = Vec::new();
        Codec::Gzip { level: 6 }
            .compress(b"hello ", &mut two)
            .unwrap();
        Codec::Gzip { level: 1 }
            .compress(b"world", &mut two)
            .unwrap();
        let mut out = Vec::new();
        Codec::Gzip { level: 6 }
            .decompress(&two, 11, &mut out)
            .unwrap();
        assert_eq!(out, b"hello world");

        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        zlib.write_all(b"zlib payload").unwrap();
        let zlib = zlib.finish().unwrap();
        let mut out = Vec::new();
        Codec::Gzip { level: 6 }
            .decompress(&zlib, 12, &mut out)
            .unwrap();
        assert_eq!(out, b"zlib payload");
    }

    #[test]
    fn empty_payloads() {
        for codec in all_codecs() {
            let mut out = Vec::new();
            codec.decompress(&[], 0, &mut out).unwrap();
            assert!(out.is_empty());
            let mut compressed = Vec::new();
            codec.compress(&[], &mut compressed).unwrap();
            codec.decompress(&compressed, 0, &mut out).unwrap();
            assert!(out.is_empty(), "{codec:?}");
        }
    }

    #[test]
    fn hostile_size_claims_do_not_allocate_up_front() {
        // 20 bytes cannot become 1 GiB under snappy or LZ4.
        let tiny = [0u8; 20];
        for codec in [Codec::Snappy, Codec::Lz4Raw, Codec::Lz4] {
            let mut out = Vec::new();
            assert!(codec.decompress(&tiny, 1 << 30, &mut out).is_err());
            assert!(
                out.capacity() < 1 << 20,
                "{codec:?} allocated {}",
                out.capacity()
            );
        }
        // A real zstd frame of a few bytes claiming a huge page grows only with its output.
        let mut compressed = Vec::new();
        Codec::Zstd { level: 3 }
            .compress(&[1u8; 1000], &mut compressed)
            .unwrap();
        let mut out = Vec::new();
        assert!(
            Codec::Zstd { level: 3 }
                .decompress(&compressed, 1 << 30, &mut out)
                .is_err()
        );
        assert!(out.capacity() < 1 << 20);
    }
}
