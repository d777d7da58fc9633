//! Definition and repetition levels, decoded from the current page as a batch asks for
//! them: a long RLE run or a page of millions of levels never becomes one buffer.
//!
//! | column                                   | levels kept for a batch                  |
//! |------------------------------------------|------------------------------------------|
//! | required, outside any optional group     | none                                     |
//! | its only level is its own optionality    | a validity bitmap ([`DefLevels::Bits`])  |
//! | anything else                            | definition levels as `u16`s              |
//! | inside a list or map                     | and repetition levels as `u16`s          |
//!
//! Without repetition a level entry is a row. With it, a row (record) is the entries from
//! one repetition level 0 to the next: [`PageLevels::records`] looks ahead through a
//! small window of decoded levels to stop exactly at a record boundary. Skipping counts
//! the levels that reach the maximum (the values to skip) run by run, writing nothing.

use arrow_buffer::BooleanBufferBuilder;
use arrow_buffer::bit_chunk_iterator::UnalignedBitChunk;
use bytes::Bytes;
use herringbone_codec::bitpack::unpack_msb_first;
use herringbone_codec::rle::{RleDecoder, Run};
use herringbone_format::metadata::Encoding;

use super::budget::Budget;
use crate::error::{Error, Result};

/// Levels decoded ahead of a repeated column's reads, at most this many at a time.
const WINDOW: usize = 1024;

/// The definition levels of the rows of one batch.
#[derive(Debug)]
pub(crate) enum DefLevels {
    /// A required column outside any optional group.
    None,
    /// A column whose only level is its own optionality: set where the value is
    /// present, and how many are not.
    Bits {
        bits: BooleanBufferBuilder,
        nulls: usize,
    },
    /// Every other column.
    Levels(Vec<u16>),
}

impl DefLevels {
    /// Empty levels of a column with these maximum levels.
    pub(crate) fn for_column(max_def: u16, max_rep: u16) -> Self {
        if max_def == 0 {
            DefLevels::None
        } else if max_def == 1 && max_rep == 0 {
            DefLevels::Bits {
                bits: BooleanBufferBuilder::new(0),
                nulls: 0,
            }
        } else {
            DefLevels::Levels(Vec::new())
        }
    }

    /// Takes the levels, leaving empty ones of the same shape.
    pub(crate) fn take(&mut self) -> DefLevels {
        match self {
            DefLevels::None => DefLevels::None,
            DefLevels::Bits { bits, nulls } => {
                let taken = DefLevels::Bits {
                    bits: std::mem::replace(bits, BooleanBufferBuilder::new(0)),
                    nulls: *nulls,
                };
                *nulls = 0;
                taken
            }
            DefLevels::Levels(levels) => DefLevels::Levels(std::mem::take(levels)),
        }
    }

    /// Room for `rows` more rows of a column without repetition, charged to `budget`.
    pub(crate) fn reserve(&mut self, rows: usize, budget: &mut Budget) -> Result<()> {
        match self {
            DefLevels::None => Ok(()),
            DefLevels::Bits { bits, .. } => {
                budget.charge(rows.div_ceil(8))?;
                bits.reserve(rows);
                Ok(())
            }
            DefLevels::Levels(levels) => budget.reserve(levels, rows),
        }
    }
}

/// A page's section of definition or repetition levels, decoded on demand.
#[derive(Debug)]
enum LevelDecoder {
    Rle(RleDecoder<Bytes>),
    /// The deprecated BIT_PACKED encoding (most significant bit first), of v1 pages.
    BitPacked {
        data: Bytes,
        bit_width: usize,
        next: usize,
    },
}

impl LevelDecoder {
    /// The levels at the start of a v1 page's `buffer` (RLE with its length prefix, or
    /// BIT_PACKED), and the bytes they take there.
    fn v1(
        buffer: &Bytes,
        encoding: Encoding,
        bit_width: usize,
        num_values: usize,
        kind: &str,
    ) -> Result<(Self, usize)> {
        match encoding {
            Encoding::RLE => {
                let (decoder, used) =
                    RleDecoder::from_source_with_length_prefix(buffer.clone(), bit_width)?;
                Ok((LevelDecoder::Rle(decoder), used))
            }
            Encoding::BIT_PACKED => {
                let bytes = num_values
                    .checked_mul(bit_width)
                    .map(|bits| bits.div_ceil(8))
                    .filter(|&bytes| bytes <= buffer.len())
                    .ok_or_else(|| {
                        Error::corrupt(format!(
                            "BIT_PACKED {kind} levels of {num_values} values need more than the \
                             {} bytes of the page",
                            buffer.len()
                        ))
                    })?;
                Ok((
                    LevelDecoder::BitPacked {
                        data: buffer.slice(..bytes),
                        bit_width,
                        next: 0,
                    },
                    bytes,
                ))
            }
            other => Err(Error::unsupported(format!(
                "{kind} level encoding {other:?}"
            ))),
        }
    }

    /// Hands the next `n` levels (all present, or an error naming `kind`) to `sink`
    /// run by run: `Ok(value, count)` for a repeated run, a slice for others.
    #[inline]
    fn runs(
        &mut self,
        n: usize,
        kind: &str,
        mut sink: impl FnMut(LevelRun<'_>) -> Result<()>,
    ) -> Result<()> {
        let mut scratch = [0u16; WINDOW];
        let mut done = 0;
        while done < n {
            let want = (n - done).min(WINDOW);
            match self {
                LevelDecoder::Rle(decoder) => match decoder.next_run(want)? {
                    None => {
                        return Err(Error::corrupt(format!(
                            "{kind} levels end {} values early",
                            n - done
                        )));
                    }
                    Some(Run::Repeated { value, count }) => {
                        sink(LevelRun::Repeated(value, count))?;
                        done += count;
                    }
                    Some(Run::BitPacked(run)) => {
                        if run.bit_width() == 1 {
                            sink(LevelRun::Bits(run.data(), run.first(), run.len()))?;
                        } else {
                            let out = &mut scratch[..run.len()];
                            run.unpack_into(out)?;
                            sink(LevelRun::Levels(out))?;
                        }
                        done += run.len();
                    }
                },
                LevelDecoder::BitPacked {
                    data,
                    bit_width,
                    next,
                } => {
                    let out = &mut scratch[..want];
                    unpack_msb_first(data, *bit_width, *next, out).map_err(|_| {
                        Error::corrupt(format!("BIT_PACKED {kind} levels end early"))
                    })?;
                    *next += want;
                    sink(LevelRun::Levels(out))?;
                    done += want;
                }
            }
        }
        Ok(())
    }

    /// Appends the next `n` levels to `out`, each checked against `max`; returns how
    /// many equal `max`.
    fn read(&mut self, n: usize, max: u16, out: &mut Vec<u16>, kind: &str) -> Result<usize> {
        let mut present = 0;
        self.runs(n, kind, |run| {
            match run {
                LevelRun::Repeated(value, count) => {
                    let level = checked_level(value, max, kind)?;
                    out.extend(std::iter::repeat_n(level, count));
                    present += if level == max { count } else { 0 };
                }
                LevelRun::Bits(data, first, count) => {
                    present += present_bits(data, first, count, max, kind)?;
                    spread_bits(data, first, count, out);
                }
                LevelRun::Levels(levels) => {
                    present += count_present(levels, max, kind)?;
                    out.extend_from_slice(levels);
                }
            }
            Ok(())
        })?;
        Ok(present)
    }

    /// Appends the next `n` levels of maximum 1 to a bitmap (set where the level is
    /// 1); returns how many are set. A repeated run is one append, a bit-packed run of
    /// width 1 already is the bitmap.
    fn read_bits(&mut self, n: usize, out: &mut BooleanBufferBuilder) -> Result<usize> {
        let mut present = 0;
        self.runs(n, "definition", |run| {
            match run {
                LevelRun::Repeated(value, count) => {
                    let valid = checked_level(value, 1, "definition")? == 1;
                    out.append_n(count, valid);
                    present += if valid { count } else { 0 };
                }
                LevelRun::Bits(data, first, count) => {
                    out.append_packed_range(first..first + count, data);
                    present += UnalignedBitChunk::new(data, first, count).count_ones();
                }
                LevelRun::Levels(levels) => {
                    present += count_present(levels, 1, "definition")?;
                    for &l in levels {
                        out.append(l == 1);
                    }
                }
            }
            Ok(())
        })?;
        Ok(present)
    }

    /// Skips the next `n` levels; returns how many equal `max`.
    fn skip(&mut self, n: usize, max: u16, kind: &str) -> Result<usize> {
        let mut present = 0;
        self.runs(n, kind, |run| {
            present += match run {
                LevelRun::Repeated(value, count) => {
                    if checked_level(value, max, kind)? == max {
                        count
                    } else {
                        0
                    }
                }
                LevelRun::Bits(data, first, count) => present_bits(data, first, count, max, kind)?,
                LevelRun::Levels(levels) => count_present(levels, max, kind)?,
            };
            Ok(())
        })?;
        Ok(present)
    }
}

/// A run of levels handed out by [`LevelDecoder::runs`].
enum LevelRun<'a> {
    /// `count` copies of a level.
    Repeated(u64, usize),
    /// `count` one-bit levels, from bit `first` of the bytes (least significant first).
    Bits(&'a [u8], usize, usize),
    /// Levels unpacked.
    Levels(&'a [u16]),
}

fn checked_level(value: u64, max: u16, kind: &str) -> Result<u16> {
    if value > u64::from(max) {
        return Err(level_error(value, max, kind));
    }
    Ok(value as u16)
}

/// How many of the one-bit levels `first..first + count` of `data` equal `max` (a set
/// bit where the maximum is 0 is an error).
fn present_bits(data: &[u8], first: usize, count: usize, max: u16, kind: &str) -> Result<usize> {
    let ones = UnalignedBitChunk::new(data, first, count).count_ones();
    match max {
        0 if ones > 0 => Err(level_error(1, 0, kind)),
        0 => Ok(count),
        1 => Ok(ones),
        _ => Ok(0),
    }
}

/// Each byte's 8 bits (least significant first) as levels 0 / 1.
static SPREAD_BYTE: [[u16; 8]; 256] = spread_table();

const fn spread_table() -> [[u16; 8]; 256] {
    let mut table = [[0u16; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut bit = 0;
        while bit < 8 {
            table[byte][bit] = ((byte >> bit) & 1) as u16;
            bit += 1;
        }
        byte += 1;
    }
    table
}

/// Appends the one-bit levels `first..first + count` of `data` (least significant bit
/// first) as `u16`s: whole bytes through a table (one 16-byte move per 8 levels), the
/// bits before and after them one at a time.
fn spread_bits(data: &[u8], first: usize, count: usize, out: &mut Vec<u16>) {
    let end = first + count;
    let bit = |i: usize| u16::from(data[i / 8] >> (i % 8) & 1);
    out.reserve(count);
    let aligned = first.next_multiple_of(8).min(end);
    out.extend((first..aligned).map(bit));
    let whole = (end - aligned) / 8;
    for &byte in &data[aligned / 8..aligned / 8 + whole] {
        out.extend_from_slice(&SPREAD_BYTE[usize::from(byte)]);
    }
    out.extend((aligned + whole * 8..end).map(bit));
}

/// How many of `levels` equal `max`; a level above it is an error.
fn count_present(levels: &[u16], max: u16, kind: &str) -> Result<usize> {
    // One pass that vectorises: the rare bad level is looked for only when the highest
    // level seen says there is one.
    let mut highest = 0;
    let mut present = 0;
    for &l in levels {
        highest = highest.max(l);
        present += usize::from(l == max);
    }
    if highest > max {
        return Err(level_error(u64::from(highest), max, kind));
    }
    Ok(present)
}

fn level_error(level: u64, max: u16, kind: &str) -> Error {
    Error::corrupt(format!(
        "{kind} level {level} exceeds the column's maximum {max}"
    ))
}

/// How far [`PageLevels::records`] got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RecordStep {
    /// Records started (a repetition level 0 consumed).
    pub(crate) started: usize,
    /// Level entries consumed.
    pub(crate) entries: usize,
    /// Entries at the maximum definition level (values) among them.
    pub(crate) present: usize,
    /// Whether it stopped at the start of a record beyond those asked for (`false`:
    /// the page ran out first).
    pub(crate) at_boundary: bool,
}

/// The levels of a leaf column's current data page.
#[derive(Debug)]
pub(crate) struct PageLevels {
    max_def: u16,
    max_rep: u16,
    def_bit_width: usize,
    rep_bit_width: usize,
    def: Option<LevelDecoder>,
    rep: Option<LevelDecoder>,
    /// Entries of the page not yet decoded.
    left: usize,
    /// Decoded entries of a repeated column not yet consumed, from `window_pos`.
    window_def: Vec<u16>,
    window_rep: Vec<u16>,
    window_pos: usize,
}

impl PageLevels {
    /// Levels of a column with these maximum levels; no page yet.
    pub(crate) fn new(max_def: u16, max_rep: u16) -> Self {
        Self {
            max_def,
            max_rep,
            def_bit_width: (16 - max_def.leading_zeros()) as usize,
            rep_bit_width: (16 - max_rep.leading_zeros()) as usize,
            def: None,
            rep: None,
            left: 0,
            window_def: Vec::new(),
            window_rep: Vec::new(),
            window_pos: 0,
        }
    }

    /// Level entries of the page not yet consumed.
    pub(crate) fn entries_left(&self) -> usize {
        self.left + self.window_rep.len() - self.window_pos
    }

    /// Drops the page's level decoders (and with them their share of its bytes).
    pub(crate) fn clear(&mut self) {
        self.reset(0);
    }

    fn reset(&mut self, num_values: usize) {
        self.left = num_values;
        self.window_def.clear();
        self.window_rep.clear();
        self.window_pos = 0;
        self.def = None;
        self.rep = None;
    }

    /// Starts a v1 page of `num_values` entries whose `buffer` holds the repetition
    /// levels, the definition levels and the values; returns where the values start.
    pub(crate) fn start_v1(
        &mut self,
        buffer: &Bytes,
        num_values: usize,
        def_encoding: Encoding,
        rep_encoding: Encoding,
    ) -> Result<usize> {
        self.reset(num_values);
        let mut at = 0;
        if self.max_rep > 0 {
            let (rep, used) = LevelDecoder::v1(
                buffer,
                rep_encoding,
                self.rep_bit_width,
                num_values,
                "repetition",
            )?;
            self.rep = Some(rep);
            at += used;
        }
        if self.max_def > 0 {
            let (def, used) = LevelDecoder::v1(
                &buffer.slice(at..),
                def_encoding,
                self.def_bit_width,
                num_values,
                "definition",
            )?;
            self.def = Some(def);
            at += used;
        }
        Ok(at)
    }

    /// Starts a v2 page of `num_values` entries with these level sections.
    pub(crate) fn start_v2(&mut self, rep: Bytes, def: Bytes, num_values: usize) -> Result<()> {
        self.reset(num_values);
        if self.max_rep > 0 {
            self.rep = Some(LevelDecoder::Rle(RleDecoder::from_source(
                rep,
                self.rep_bit_width,
            )?));
        }
        if self.max_def > 0 {
            self.def = Some(LevelDecoder::Rle(RleDecoder::from_source(
                def,
                self.def_bit_width,
            )?));
        }
        Ok(())
    }

    /// Reads the next `n` entries (rows) of a column without repetition into `out`;
    /// returns how many hold a value.
    pub(crate) fn read_flat(&mut self, n: usize, out: &mut DefLevels) -> Result<usize> {
        debug_assert!(n <= self.left && self.max_rep == 0);
        self.left -= n;
        let max = self.max_def;
        match (&mut self.def, out) {
            (None, _) => Ok(n),
            (Some(def), DefLevels::Bits { bits, nulls }) => {
                let present = def.read_bits(n, bits)?;
                *nulls += n - present;
                Ok(present)
            }
            (Some(def), DefLevels::Levels(levels)) => def.read(n, max, levels, "definition"),
            (Some(def), DefLevels::None) => def.skip(n, max, "definition"),
        }
    }

    /// Skips the next `n` entries (rows) of a column without repetition; returns how
    /// many hold a value.
    pub(crate) fn skip_flat(&mut self, n: usize) -> Result<usize> {
        debug_assert!(n <= self.left && self.max_rep == 0);
        self.left -= n;
        match &mut self.def {
            None => Ok(n),
            Some(def) => def.skip(n, self.max_def, "definition"),
        }
    }

    /// Decodes the next window of a repeated column's levels; `false` when the page
    /// has none left.
    fn refill(&mut self) -> Result<bool> {
        if self.left == 0 {
            return Ok(false);
        }
        let n = self.left.min(WINDOW);
        self.left -= n;
        self.window_def.clear();
        self.window_rep.clear();
        self.window_pos = 0;
        match &mut self.rep {
            Some(rep) => {
                rep.read(n, self.max_rep, &mut self.window_rep, "repetition")?;
            }
            None => return Err(Error::corrupt("repeated column without repetition levels")),
        }
        match &mut self.def {
            Some(def) => {
                def.read(n, self.max_def, &mut self.window_def, "definition")?;
            }
            None => self.window_def.resize(n, 0),
        }
        Ok(true)
    }

    /// Consumes the entries of up to `records` more records of a repeated column,
    /// appending their levels to `out` (definition, repetition) when given: it stops
    /// before the repetition level 0 that would start one record more, or at the end
    /// of the page. `open` says whether a record is already under way (one continued
    /// from the previous page); otherwise the first entry must start a record.
    pub(crate) fn records(
        &mut self,
        records: usize,
        open: bool,
        mut out: Option<(&mut Vec<u16>, &mut Vec<u16>)>,
        budget: &mut Budget,
    ) -> Result<RecordStep> {
        let mut step = RecordStep {
            started: 0,
            entries: 0,
            present: 0,
            at_boundary: false,
        };
        loop {
            if self.window_pos == self.window_rep.len() && !self.refill()? {
                return Ok(step);
            }
            let reps = &self.window_rep[self.window_pos..];
            if !open && step.started == 0 && step.entries == 0 && reps[0] != 0 {
                return Err(Error::corrupt(format!(
                    "a row starts with repetition level {} instead of 0",
                    reps[0]
                )));
            }
            // Record starts are counted a block at a time (no branch per level) until
            // the block that holds the boundary, which is walked level by level.
            let mut end = reps.len();
            let mut at = 0;
            for block in reps.chunks(64) {
                let starts = block.iter().filter(|&&rep| rep == 0).count();
                if step.started + starts <= records {
                    step.started += starts;
                    at += block.len();
                    continue;
                }
                for (i, &rep) in block.iter().enumerate() {
                    if rep == 0 {
                        if step.started == records {
                            end = at + i;
                            break;
                        }
                        step.started += 1;
                    }
                }
                break;
            }
            let from = self.window_pos;
            let defs = &self.window_def[from..from + end];
            let max = self.max_def;
            step.present += defs.iter().filter(|&&l| l == max).count();
            if let Some((def_out, rep_out)) = out.as_mut() {
                budget.reserve(def_out, end)?;
                budget.reserve(rep_out, end)?;
                def_out.extend_from_slice(defs);
                rep_out.extend_from_slice(&self.window_rep[from..from + end]);
            }
            step.entries += end;
            self.window_pos += end;
            if self.window_pos < self.window_rep.len() {
                step.at_boundary = true;
                return Ok(step);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn spread_bits_are_the_bits_in_order(
            data in proptest::collection::vec(any::<u8>(), 0..40),
            first in 0usize..320,
            count in 0usize..320,
            max in 0u16..3,
        ) {
            let first = first.min(data.len() * 8);
            let count = count.min(data.len() * 8 - first);
            let bits: Vec<u16> = (first..first + count)
                .map(|i| u16::from(data[i / 8] >> (i % 8) & 1))
                .collect();
            let mut out = vec![7u16];
            spread_bits(&data, first, count, &mut out);
            prop_assert_eq!(out[0], 7);
            prop_assert_eq!(&out[1..], &bits[..]);

            let present = present_bits(&data, first, count, max, "definition");
            let ones = bits.iter().filter(|&&b| b == 1).count();
            match max {
                0 if ones > 0 => prop_assert!(present.is_err()),
                _ => prop_assert_eq!(
                    present.unwrap(),
                    bits.iter().filter(|&&b| b == max).count()
                ),
            }
        }
    }
}
