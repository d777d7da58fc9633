//! LZO (`LZO`, codec id 3) as parquet-java writes it: Hadoop's block framing around
//! LZO1X blocks.
//!
//! A stream is a sequence of blocks; each block starts with its uncompressed length
//! (4 bytes, big-endian) and holds one or more chunks, each its compressed length
//! (4 bytes, big-endian) followed by an LZO1X block, until the block's bytes are
//! produced. A bare LZO1X block without framing is accepted too.
//!
//! Decoding uses the `lzo` crate (Apache-2.0, `forbid(unsafe_code)`, bounds-checked
//! and fuzzed, written for untrusted input); the older pure-Rust LZO crates are GPL
//! translations of liblzo or C-to-Rust ports with `unsafe` throughout. No maintained
//! permissive crate compresses, so the LZO1X encoder below is our own: a greedy matcher
//! over a hash table of 4-byte sequences that emits the standard instructions (literal
//! runs, M2/M3/M4 matches, the end-of-stream marker); any LZO1X decoder reads it
//! (tested against liblzo2 through python-lzo, and the `lzo` crate).

use crate::error::{Error, Result};

/// Uncompressed bytes per Hadoop block on write (`io.compression.codec.lzo.buffersize`
/// of parquet-java's default configuration).
const BLOCK_SIZE: usize = 256 * 1024;

/// An LZO1X block expands at most ~255:1 (each extension byte adds 255 to a length).
fn can_produce(input_len: usize, expected: usize) -> bool {
    expected <= input_len.saturating_mul(255).saturating_add(64)
}

fn be_u32(bytes: &[u8]) -> usize {
    u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize
}

/// Decompresses `input`, appending exactly `expected` bytes to `out`: Hadoop framing,
/// else one bare LZO1X block. The output is not allocated before the claim is checked
/// against what the input can produce.
pub(super) fn decompress(input: &[u8], expected: usize, out: &mut Vec<u8>) -> Result<()> {
    if !can_produce(input.len(), expected) {
        return Err(Error::corrupt(format!(
            "LZO data of {} bytes cannot produce {expected} bytes",
            input.len()
        )));
    }
    decompress_into(input, super::grow_zeroed(out, expected))
}

fn decompress_into(input: &[u8], target: &mut [u8]) -> Result<()> {
    match decompress_hadoop(input, target) {
        Ok(()) => Ok(()),
        Err(framed) => match ::lzo::decompress_into(input, target) {
            Ok(n) if n == target.len() => Ok(()),
            _ => Err(framed),
        },
    }
}

fn decompress_hadoop(input: &[u8], target: &mut [u8]) -> Result<()> {
    let expected = target.len();
    let mut rest = input;
    let mut filled = 0usize;
    let mut block = 0usize;
    while !rest.is_empty() {
        if rest.len() < 4 {
            return Err(Error::corrupt(format!(
                "Hadoop LZO block {block}: {} trailing bytes are too short for a length",
                rest.len()
            )));
        }
        let block_len = be_u32(rest);
        rest = &rest[4..];
        if block_len > expected - filled {
            return Err(Error::corrupt(format!(
                "Hadoop LZO block {block}: uncompressed length {block_len} exceeds the {} bytes left to fill",
                expected - filled
            )));
        }
        let block_end = filled + block_len;
        let mut chunk = 0usize;
        while filled < block_end {
            if rest.len() < 4 {
                return Err(Error::corrupt(format!(
                    "Hadoop LZO block {block}, chunk {chunk}: {} bytes are too short for a length",
                    rest.len()
                )));
            }
            let chunk_len = be_u32(rest);
            rest = &rest[4..];
            if chunk_len > rest.len() {
                return Err(Error::corrupt(format!(
                    "Hadoop LZO block {block}, chunk {chunk}: compressed length {chunk_len} exceeds the {} bytes left",
                    rest.len()
                )));
            }
            let produced =
                ::lzo::decompress_into(&rest[..chunk_len], &mut target[filled..block_end])
                    .map_err(|e| {
                        Error::corrupt(format!("Hadoop LZO block {block}, chunk {chunk}: {e}"))
                    })?;
            if produced == 0 {
                return Err(Error::corrupt(format!(
                    "Hadoop LZO block {block}, chunk {chunk}: an empty chunk in a block with {} bytes to go",
                    block_end - filled
                )));
            }
            filled += produced;
            rest = &rest[chunk_len..];
            chunk += 1;
        }
        block += 1;
    }
    if filled != expected {
        return Err(Error::corrupt(format!(
            "Hadoop LZO data produced {filled} bytes, {expected} expected"
        )));
    }
    Ok(())
}

/// Compresses `input` in Hadoop blocks of at most 256 KiB, one LZO1X chunk each.
pub(super) fn compress(input: &[u8], out: &mut Vec<u8>) -> Result<()> {
    if u32::try_from(input.len()).is_err() {
        return Err(Error::invalid_argument(format!(
            "LZO (Hadoop) cannot frame {} bytes: more than u32::MAX",
            input.len()
        )));
    }
    let mut table = vec![0u32; 1 << HASH_BITS];
    for block in input.chunks(BLOCK_SIZE) {
        out.extend_from_slice(&(block.len() as u32).to_be_bytes());
        let at = out.len();
        out.extend_from_slice(&[0; 4]);
        compress_block(block, &mut table, out);
        let len = (out.len() - at - 4) as u32;
        out[at..at + 4].copy_from_slice(&len.to_be_bytes());
    }
    Ok(())
}

const HASH_BITS: u32 = 14;
/// The farthest an M2 match reaches back.
const M2_MAX_DISTANCE: usize = 2048;
const M2_MAX_LEN: usize = 8;
/// The farthest an M3 match reaches back.
const M3_MAX_DISTANCE: usize = 16384;
const M3_MAX_LEN: usize = 33;
/// The farthest an M4 match reaches back.
const M4_MAX_DISTANCE: usize = 49151;
const M4_MAX_LEN: usize = 9;
const MIN_MATCH: usize = 4;

fn hash(bytes: &[u8]) -> usize {
    let v = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    (v.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize
}

/// Appends a length beyond an instruction's own bits: `v` (at least 1) as zero bytes
/// worth 255 each and a non-zero final byte.
fn put_extension(mut v: usize, out: &mut Vec<u8>) {
    while v > 255 {
        out.push(0);
        v -= 255;
    }
    out.push(v as u8);
}

/// One LZO1X block of `input` (the `table` is scratch, cleared here).
fn compress_block(input: &[u8], table: &mut [u32], out: &mut Vec<u8>) {
    table.fill(0);
    let n = input.len();
    let mut ip = 0usize;
    let mut literal_start = 0usize;
    // Position in `out` of the two bits that carry 0..3 literals after a match, once a
    // match has been written.
    let mut state_at: Option<usize> = None;
    while ip + MIN_MATCH <= n {
        let h = hash(&input[ip..]);
        // Positions are stored plus one: 0 means empty.
        let candidate = table[h] as usize;
        table[h] = (ip + 1) as u32;
        let Some(candidate) = candidate.checked_sub(1) else {
            ip += 1;
            continue;
        };
        let distance = ip - candidate;
        if distance > M4_MAX_DISTANCE
            || input[candidate..candidate + MIN_MATCH] != input[ip..ip + MIN_MATCH]
        {
            ip += 1;
            continue;
        }
        let mut len = MIN_MATCH;
        while ip + len < n && input[candidate + len] == input[ip + len] {
            len += 1;
        }
        put_literals(&input[literal_start..ip], state_at, out);
        state_at = Some(put_match(distance, len, out));
        ip += len;
        literal_start = ip;
    }
    put_literals(&input[literal_start..], state_at, out);
    // End of stream: an M4 match of distance 16384 and length 3.
    out.extend_from_slice(&[0x11, 0, 0]);
}

/// Appends `literals` (possibly none) before the next instruction.
fn put_literals(literals: &[u8], state_at: Option<usize>, out: &mut Vec<u8>) {
    let len = literals.len();
    if len == 0 {
        return;
    }
    match state_at {
        // At the start of the block: the first byte says 1..238 literals by itself.
        None if len <= 238 => out.push((len + 17) as u8),
        // After a match, up to 3 literals ride in its two state bits.
        Some(at) if len <= 3 => out[at] |= len as u8,
        _ if len <= 18 => out.push((len - 3) as u8),
        _ => {
            out.push(0);
            put_extension(len - 18, out);
        }
    }
    out.extend_from_slice(literals);
}

/// Appends a match (`len` at least 3); returns where its state bits are.
fn put_match(distance: usize, len: usize, out: &mut Vec<u8>) -> usize {
    if distance <= M2_MAX_DISTANCE && len <= M2_MAX_LEN {
        let d = distance - 1;
        let at = out.len();
        out.push((((len - 1) << 5) | ((d & 7) << 2)) as u8);
        out.push((d >> 3) as u8);
        return at;
    }
    let d = if distance <= M3_MAX_DISTANCE {
        let d = distance - 1;
        if len <= M3_MAX_LEN {
            out.push((32 | (len - 2)) as u8);
        } else {
            out.push(32);
            put_extension(len - M3_MAX_LEN, out);
        }
        d
    } else {
        let d = distance - 16384;
        let high = ((d & 0x4000) >> 11) as u8;
        if len <= M4_MAX_LEN {
            out.push(16 | high | (len - 2) as u8);
        } else {
            out.push(16 | high);
            put_extension(len - M4_MAX_LEN, out);
        }
        d & 0x3fff
    };
    let at = out.len();
    let bits = d << 2;
    out.push((bits & 0xff) as u8);
    out.push((bits >> 8) as u8);
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(data: &[u8]) {
        let mut compressed = Vec::new();
        compress(data, &mut compressed).unwrap();
        let mut restored = Vec::new();
        decompress(&compressed, data.len(), &mut restored).unwrap();
        assert_eq!(restored, data);
        // Each block is a plain LZO1X stream any decoder reads.
        let mut rest = &compressed[..];
        let mut at = 0;
        while !rest.is_empty() {
            let block = be_u32(rest);
            let chunk = be_u32(&rest[4..]);
            let mut decoded = vec![0u8; block];
            let n = ::lzo::decompress_into(&rest[8..8 + chunk], &mut decoded).unwrap();
            assert_eq!(n, block);
            assert_eq!(decoded, &data[at..at + block]);
            at += block;
            rest = &rest[8 + chunk..];
        }
    }

    #[test]
    fn every_instruction_round_trips() {
        roundtrip(b"");
        roundtrip(b"a");
        roundtrip(b"abc");
        roundtrip(b"herringbone herringbone herringbone");
        // Long literal runs (extension), long matches (extension) at every distance class.
        let mut data: Vec<u8> = (0..300u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        data.extend(std::iter::repeat_n(b'x', 1000));
        let noise: Vec<u8> = (0..40_000u32)
            .map(|i| (i.wrapping_mul(2_246_822_519) >> 7) as u8)
            .collect();
        data.extend_from_slice(&noise);
        data.extend_from_slice(&noise[..5000]); // distance ~40,000: M4 with the high bit
        data.extend_from_slice(&noise[30_000..30_100]); // distance ~15,000: M3
        let near = data.len() - 1500;
        data.extend_from_within(near..near + 10); // M2
        roundtrip(&data);
        // Several blocks.
        let big: Vec<u8> = (0..600_000u32)
            .map(|i| (i % 251) as u8 ^ (i >> 11) as u8)
            .collect();
        roundtrip(&big);
    }

    #[test]
    fn hostile_frames_are_errors() {
        let mut target = Vec::new();
        // A block length beyond the target.
        let mut bad = 100u32.to_be_bytes().to_vec();
        bad.extend_from_slice(&3u32.to_be_bytes());
        bad.extend_from_slice(&[0x11, 0, 0]);
        let err = decompress(&bad, 16, &mut target).unwrap_err();
        assert!(
            err.to_string()
                .contains("exceeds the 16 bytes left to fill"),
            "{err}"
        );
        // A chunk length beyond the input.
        let mut bad = 16u32.to_be_bytes().to_vec();
        bad.extend_from_slice(&1000u32.to_be_bytes());
        let err = decompress(&bad, 16, &mut target).unwrap_err();
        assert!(err.to_string().contains("compressed length 1000"), "{err}");
        // More output claimed than the input can make.
        let err = decompress(&[0x11, 0, 0], 1 << 20, &mut target).unwrap_err();
        assert!(err.to_string().contains("cannot produce"), "{err}");
        assert!(
            target.capacity() < 1 << 20,
            "nothing allocated for the claim"
        );
    }
}
