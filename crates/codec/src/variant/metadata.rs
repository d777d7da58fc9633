//! The metadata half of a Variant: a versioned dictionary of strings (mostly object keys).

use std::collections::HashMap;

use crate::error::{Error, Result};

use super::read_le_uint;

/// The only metadata version this implementation reads and writes.
pub const METADATA_VERSION: u8 = 1;

/// A validated, borrowed view of Variant metadata.
///
/// Construction checks the header, every offset (starts at 0, non-decreasing, within the
/// buffer) and that every string is UTF-8, and, when the header says the dictionary is
/// sorted, that the strings are strictly increasing. Afterwards lookups cannot fail on
/// the bytes, only on an id that is out of range.
///
/// ```
/// use herringbone_codec::variant::{MetadataBuilder, VariantMetadata};
///
/// let mut builder = MetadataBuilder::new();
/// builder.add("b");
/// builder.add("a");
/// let bytes = builder.finish_sorted();
/// let metadata = VariantMetadata::try_new(&bytes).unwrap();
/// assert!(metadata.is_sorted());
/// assert_eq!(metadata.get(0).unwrap(), "a");
/// assert_eq!(metadata.find("b"), Some(1));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VariantMetadata<'m> {
    bytes: &'m [u8],
    offset_size: u8,
    sorted: bool,
    dictionary_size: usize,
    /// Where the offset list starts (right after the header and the dictionary size).
    offsets_start: usize,
    /// Where the string bytes start (right after the offset list).
    strings_start: usize,
}

impl<'m> VariantMetadata<'m> {
    /// Validates `bytes` as one complete metadata blob (no trailing bytes allowed).
    pub fn try_new(bytes: &'m [u8]) -> Result<Self> {
        let (metadata, used) = Self::try_new_prefix(bytes)?;
        if used != bytes.len() {
            return Err(Error::corrupt(format!(
                "variant metadata: {} trailing bytes after the {used}-byte dictionary",
                bytes.len() - used
            )));
        }
        Ok(metadata)
    }

    /// Validates the metadata at the start of `bytes` and returns it with the number of
    /// bytes it occupies (for layouts that store a value right after the metadata).
    pub fn try_new_prefix(bytes: &'m [u8]) -> Result<(Self, usize)> {
        let corrupt = |msg: String| Error::corrupt(format!("variant metadata: {msg}"));
        let header = *bytes
            .first()
            .ok_or_else(|| corrupt("empty buffer, expected a header byte".into()))?;
        let version = header & 0x0f;
        if version != METADATA_VERSION {
            return Err(Error::unsupported(format!(
                "variant metadata: version {version} in header byte 0x{header:02x} (only version {METADATA_VERSION} is supported)"
            )));
        }
        if header & 0x20 != 0 {
            return Err(corrupt(format!(
                "reserved header bit 5 is set in header byte 0x{header:02x}"
            )));
        }
        let sorted = header & 0x10 != 0;
        let offset_size = (header >> 6) + 1;
        let size = usize::from(offset_size);
        let dictionary_size = read_le_uint(bytes, 1, offset_size).ok_or_else(|| {
            corrupt(format!(
                "truncated dictionary size: need {size} bytes at byte 1, buffer has {}",
                bytes.len()
            ))
        })? as usize;
        let offsets_start = 1 + size;
        // The offset list has dictionary_size + 1 entries; check it fits before reading.
        let offsets_len = dictionary_size
            .checked_add(1)
            .and_then(|n| n.checked_mul(size))
            .ok_or_else(|| corrupt(format!("dictionary size {dictionary_size} overflows")))?;
        let strings_start = offsets_start
            .checked_add(offsets_len)
            .filter(|&end| end <= bytes.len())
            .ok_or_else(|| {
                corrupt(format!(
                    "offset list of {} entries ({offsets_len} bytes at byte {offsets_start}) exceeds the {}-byte buffer",
                    dictionary_size + 1,
                    bytes.len()
                ))
            })?;
        let metadata = VariantMetadata {
            bytes,
            offset_size,
            sorted,
            dictionary_size,
            offsets_start,
            strings_start,
        };
        let strings_len = bytes.len() - strings_start;
        let mut previous_end = metadata.raw_offset(0);
        if previous_end != 0 {
            return Err(corrupt(format!(
                "first offset is {previous_end}, must be 0"
            )));
        }
        let mut previous: Option<&str> = None;
        for id in 0..dictionary_size {
            let end = metadata.raw_offset(id + 1);
            if end < previous_end || end > strings_len {
                return Err(corrupt(format!(
                    "offset {} of string {id} is {end}: must be between {previous_end} and {strings_len} (the string bytes available)",
                    id + 1
                )));
            }
            let raw = &bytes[strings_start + previous_end..strings_start + end];
            let text = std::str::from_utf8(raw).map_err(|e| {
                corrupt(format!(
                    "string {id} (bytes {}..{}) is not UTF-8: {e}",
                    strings_start + previous_end,
                    strings_start + end
                ))
            })?;
            if sorted {
                if let Some(prev) = previous
                    && prev.as_bytes() >= text.as_bytes()
                {
                    return Err(corrupt(format!(
                        "header says sorted_strings but string {id} {text:?} does not sort after string {} {prev:?}",
                        id - 1
                    )));
                }
                previous = Some(text);
            }
            previous_end = end;
        }
        Ok((metadata, strings_start + previous_end))
    }

    /// Reads offset entry `index` (0..=dictionary_size); the list was bounds-checked.
    fn raw_offset(&self, index: usize) -> usize {
        let pos = self.offsets_start + index * usize::from(self.offset_size);
        read_le_uint(self.bytes, pos, self.offset_size).unwrap_or(0) as usize
    }

    /// The metadata version (always 1).
    pub fn version(&self) -> u8 {
        self.bytes[0] & 0x0f
    }

    /// Whether the header promises unique, byte-wise sorted strings (validated).
    pub fn is_sorted(&self) -> bool {
        self.sorted
    }

    /// Bytes per dictionary size and offset entry (1 to 4).
    pub fn offset_size(&self) -> u8 {
        self.offset_size
    }

    /// Number of strings in the dictionary.
    pub fn len(&self) -> usize {
        self.dictionary_size
    }

    /// Whether the dictionary has no strings.
    pub fn is_empty(&self) -> bool {
        self.dictionary_size == 0
    }

    /// The encoded bytes of this metadata.
    pub fn as_bytes(&self) -> &'m [u8] {
        let end = self.strings_start + self.raw_offset(self.dictionary_size);
        &self.bytes[..end]
    }

    /// The string with dictionary id `id`.
    pub fn get(&self, id: usize) -> Result<&'m str> {
        if id >= self.dictionary_size {
            return Err(Error::corrupt(format!(
                "variant: field id {id} is out of range for a dictionary of {} strings",
                self.dictionary_size
            )));
        }
        let start = self.strings_start + self.raw_offset(id);
        let end = self.strings_start + self.raw_offset(id + 1);
        // Validated in try_new_prefix: in bounds and UTF-8; this cannot fail, but a failure
        // still answers with an error rather than a panic.
        self.bytes
            .get(start..end)
            .and_then(|raw| std::str::from_utf8(raw).ok())
            .ok_or_else(|| Error::corrupt(format!("variant metadata: string {id} is invalid")))
    }

    /// The raw bytes of string `id` (validated as UTF-8 at construction), without the
    /// UTF-8 check [`get`](Self::get) repeats: what name comparisons use.
    pub(crate) fn name_bytes(&self, id: usize) -> Option<&'m [u8]> {
        if id >= self.dictionary_size {
            return None;
        }
        let start = self.strings_start + self.raw_offset(id);
        let end = self.strings_start + self.raw_offset(id + 1);
        self.bytes.get(start..end)
    }

    /// The id of `name`: binary search when the dictionary is sorted, else a linear scan
    /// (first match; an unsorted dictionary may hold duplicates).
    pub fn find(&self, name: &str) -> Option<usize> {
        if self.sorted {
            let (mut low, mut high) = (0, self.dictionary_size);
            while low < high {
                let mid = low + (high - low) / 2;
                let candidate = self.name_bytes(mid)?;
                match candidate.cmp(name.as_bytes()) {
                    std::cmp::Ordering::Less => low = mid + 1,
                    std::cmp::Ordering::Greater => high = mid,
                    std::cmp::Ordering::Equal => return Some(mid),
                }
            }
            None
        } else {
            self.iter().position(|s| s == name)
        }
    }

    /// Builds a name -> id index, for repeated lookups in a large unsorted dictionary.
    pub fn index(&self) -> HashMap<&'m str, usize> {
        let mut map = HashMap::with_capacity(self.dictionary_size);
        for (id, name) in self.iter().enumerate() {
            map.entry(name).or_insert(id);
        }
        map
    }

    /// The strings in id order.
    pub fn iter(&self) -> impl Iterator<Item = &'m str> + '_ {
        (0..self.dictionary_size).filter_map(|id| self.get(id).ok())
    }
}

/// Collects field names (deduplicated) and writes a metadata blob.
///
/// Ids are handed out in insertion order by [`add`](Self::add); [`finish`](Self::finish)
/// keeps that order, [`finish_sorted`](Self::finish_sorted) sorts the strings (which
/// changes the ids: use [`sorted_ids`](Self::sorted_ids) to translate, or add all names
/// before encoding values).
#[derive(Debug, Default, Clone)]
pub struct MetadataBuilder {
    names: Vec<String>,
    ids: HashMap<String, u32>,
}

impl MetadataBuilder {
    /// An empty dictionary.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `name` if it is not there yet and returns its id (in insertion order).
    pub fn add(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }

    /// The id of `name` in insertion order, if added.
    pub fn id(&self, name: &str) -> Option<u32> {
        self.ids.get(name).copied()
    }

    /// Number of distinct names.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no name was added.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// For each insertion-order id, its id once sorted.
    pub fn sorted_ids(&self) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.names.len() as u32).collect();
        order.sort_by(|&a, &b| {
            self.names[a as usize]
                .as_bytes()
                .cmp(self.names[b as usize].as_bytes())
        });
        let mut remap = vec![0u32; order.len()];
        for (sorted_id, &id) in order.iter().enumerate() {
            remap[id as usize] = sorted_id as u32;
        }
        remap
    }

    /// Writes the dictionary in insertion order (sorted_strings = 0 unless the names
    /// happen to be added in sorted order, in which case the flag is set).
    pub fn finish(&self) -> Vec<u8> {
        let refs: Vec<&str> = self.names.iter().map(String::as_str).collect();
        let sorted = refs.windows(2).all(|w| w[0].as_bytes() < w[1].as_bytes());
        write_metadata(&refs, sorted)
    }

    /// Writes the dictionary sorted byte-wise, with sorted_strings = 1.
    pub fn finish_sorted(&self) -> Vec<u8> {
        let mut refs: Vec<&str> = self.names.iter().map(String::as_str).collect();
        refs.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        write_metadata(&refs, true)
    }
}

/// Smallest number of bytes (1 to 4) that holds `max`.
pub(crate) fn byte_width(max: usize) -> u8 {
    match max {
        0..=0xff => 1,
        0x100..=0xffff => 2,
        0x1_0000..=0xff_ffff => 3,
        _ => 4,
    }
}

fn write_metadata(names: &[&str], sorted: bool) -> Vec<u8> {
    let total: usize = names.iter().map(|s| s.len()).sum();
    let offset_size = byte_width(total.max(names.len()));
    let mut out = Vec::with_capacity(1 + (names.len() + 2) * usize::from(offset_size) + total);
    out.push(METADATA_VERSION | (u8::from(sorted) << 4) | ((offset_size - 1) << 6));
    super::push_le_uint(&mut out, names.len() as u32, offset_size);
    let mut offset = 0usize;
    super::push_le_uint(&mut out, 0, offset_size);
    for name in names {
        offset += name.len();
        super::push_le_uint(&mut out, offset as u32, offset_size);
    }
    for name in names {
        out.extend_from_slice(name.as_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_metadata_is_three_bytes() {
        let bytes = MetadataBuilder::new().finish();
        assert_eq!(bytes, [0x11, 0, 0]);
        let metadata = VariantMetadata::try_new(&bytes).unwrap();
        assert!(metadata.is_empty());
        assert!(metadata.get(0).is_err());
    }

    #[test]
    fn builder_dedups_and_sorts() {
        let mut builder = MetadataBuilder::new();
        assert_eq!(builder.add("zeta"), 0);
        assert_eq!(builder.add("alpha"), 1);
        assert_eq!(builder.add("zeta"), 0);
        assert_eq!(builder.sorted_ids(), [1, 0]);
        let unsorted = builder.finish();
        let metadata = VariantMetadata::try_new(&unsorted).unwrap();
        assert!(!metadata.is_sorted());
        assert_eq!(metadata.iter().collect::<Vec<_>>(), ["zeta", "alpha"]);
        assert_eq!(metadata.find("alpha"), Some(1));
        let sorted = builder.finish_sorted();
        let metadata = VariantMetadata::try_new(&sorted).unwrap();
        assert!(metadata.is_sorted());
        assert_eq!(metadata.iter().collect::<Vec<_>>(), ["alpha", "zeta"]);
        assert_eq!(metadata.find("zeta"), Some(1));
        assert_eq!(metadata.find("beta"), None);
        assert_eq!(metadata.index().get("zeta"), Some(&1));
    }

    #[test]
    fn large_dictionary_uses_wider_offsets() {
        let mut builder = MetadataBuilder::new();
        for i in 0..300 {
            builder.add(&format!("field{i:04}"));
        }
        let bytes = builder.finish_sorted();
        assert_eq!(bytes[0] >> 6, 1, "two-byte offsets");
        let metadata = VariantMetadata::try_new(&bytes).unwrap();
        assert_eq!(metadata.offset_size(), 2);
        assert_eq!(metadata.len(), 300);
        assert_eq!(metadata.find("field0299"), Some(299));
        assert_eq!(metadata.get(17).unwrap(), "field0017");
    }

    #[test]
    fn rejects_bad_headers_and_offsets() {
        let version_2 = VariantMetadata::try_new(&[0x02, 0, 0]).unwrap_err();
        assert!(version_2.to_string().contains("version 2"), "{version_2}");
        let truncated = VariantMetadata::try_new(&[0x01, 2, 0, 1]).unwrap_err();
        assert!(truncated.to_string().contains("exceeds"), "{truncated}");
        let decreasing = VariantMetadata::try_new(&[0x01, 2, 0, 2, 1, b'a', b'b']).unwrap_err();
        assert!(decreasing.to_string().contains("offset 2"), "{decreasing}");
        let nonzero_first = VariantMetadata::try_new(&[0x01, 1, 1, 1, b'a']).unwrap_err();
        assert!(
            nonzero_first.to_string().contains("first offset"),
            "{nonzero_first}"
        );
        let bad_utf8 = VariantMetadata::try_new(&[0x01, 1, 0, 1, 0xff]).unwrap_err();
        assert!(bad_utf8.to_string().contains("UTF-8"), "{bad_utf8}");
        let unsorted = VariantMetadata::try_new(&[0x11, 2, 0, 1, 2, b'b', b'a']).unwrap_err();
        assert!(unsorted.to_string().contains("sorted"), "{unsorted}");
        let trailing = VariantMetadata::try_new(&[0x01, 0, 0, 9]).unwrap_err();
        assert!(trailing.to_string().contains("trailing"), "{trailing}");
        let (prefix, used) = VariantMetadata::try_new_prefix(&[0x01, 1, 0, 1, b'a', 9]).unwrap();
        assert_eq!(used, 5);
        assert_eq!(prefix.get(0).unwrap(), "a");
    }
}
