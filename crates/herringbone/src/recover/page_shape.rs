//! The layout of a page header as writers produce it, checked before a header is decoded
//! at an offset where the page scan looks for one.
//!
//! After damage the scan tries every byte offset. Decoding a header at each cost time in
//! proportion to what the decode walked: the generated reader steps over unknown fields,
//! and random or hostile bytes declare lists long enough to walk to the end of the file,
//! so the scan was quadratic in the file's size (a 4 MB file of random bytes took four
//! times as long as a 2 MB one). A page header holds only fields of the specification,
//! none of them a list, and writers emit them in ascending id order; this check follows
//! that layout and rejects anything else, so it reads at most a fixed number of fields
//! (binary values are stepped over by their length) whatever the bytes, and the full
//! decode runs only where it passes. It reads bytes with its own `Option`-returning
//! helpers rather than `CompactReader`, whose failures build an error message: the scan
//! fails at nearly every offset it tries.

use herringbone_format::thrift::wire;

/// What a field holds.
#[derive(Clone, Copy)]
enum Kind {
    I32,
    I64,
    Bool,
    Binary,
    Struct(&'static [(i16, Kind)]),
}

/// `Statistics`: min / max in both forms, counts, exactness flags.
static STATISTICS: [(i16, Kind); 9] = [
    (1, Kind::Binary),
    (2, Kind::Binary),
    (3, Kind::I64),
    (4, Kind::I64),
    (5, Kind::Binary),
    (6, Kind::Binary),
    (7, Kind::Bool),
    (8, Kind::Bool),
    (9, Kind::I64),
];

static DATA_PAGE_HEADER: [(i16, Kind); 5] = [
    (1, Kind::I32),
    (2, Kind::I32),
    (3, Kind::I32),
    (4, Kind::I32),
    (5, Kind::Struct(&STATISTICS)),
];

static DICTIONARY_PAGE_HEADER: [(i16, Kind); 3] = [(1, Kind::I32), (2, Kind::I32), (3, Kind::Bool)];

static DATA_PAGE_HEADER_V2: [(i16, Kind); 8] = [
    (1, Kind::I32),
    (2, Kind::I32),
    (3, Kind::I32),
    (4, Kind::I32),
    (5, Kind::I32),
    (6, Kind::I32),
    (7, Kind::Bool),
    (8, Kind::Struct(&STATISTICS)),
];

static PAGE_HEADER: [(i16, Kind); 8] = [
    (1, Kind::I32),
    (2, Kind::I32),
    (3, Kind::I32),
    (4, Kind::I32),
    (5, Kind::Struct(&DATA_PAGE_HEADER)),
    (6, Kind::Struct(&[])),
    (7, Kind::Struct(&DICTIONARY_PAGE_HEADER)),
    (8, Kind::Struct(&DATA_PAGE_HEADER_V2)),
];

/// Whether `bytes` start with a page header laid out as writers lay them out: known
/// fields only, each at most once and in ascending id order, of their declared wire
/// types, values within `bytes`. Required fields are left to the decoder.
pub(super) fn looks_like_page_header(bytes: &[u8]) -> bool {
    let mut at = 0;
    fields(bytes, &mut at, &PAGE_HEADER).is_some()
}

fn fields(bytes: &[u8], at: &mut usize, shape: &[(i16, Kind)]) -> Option<()> {
    let mut last = 0i16;
    loop {
        let header = byte(bytes, at)?;
        if header == wire::STOP {
            return Some(());
        }
        let (delta, ty) = (header >> 4, header & 0x0f);
        let id = if delta == 0 {
            let v = u16::try_from(varint(bytes, at)?).ok()?;
            ((v >> 1) as i16) ^ -((v & 1) as i16)
        } else {
            last.checked_add(i16::from(delta))?
        };
        if id <= last {
            return None;
        }
        last = id;
        let &(_, kind) = shape.iter().find(|(known, _)| *known == id)?;
        match kind {
            Kind::I32 if ty == wire::I32 => {
                u32::try_from(varint(bytes, at)?).ok()?;
            }
            Kind::I64 if ty == wire::I64 => {
                varint(bytes, at)?;
            }
            Kind::Bool if ty == wire::BOOL_TRUE || ty == wire::BOOL_FALSE => {}
            Kind::Binary if ty == wire::BINARY => {
                let len = usize::try_from(varint(bytes, at)?).ok()?;
                *at = at.checked_add(len).filter(|&end| end <= bytes.len())?;
            }
            Kind::Struct(inner) if ty == wire::STRUCT => fields(bytes, at, inner)?,
            _ => return None,
        }
    }
}

fn byte(bytes: &[u8], at: &mut usize) -> Option<u8> {
    let b = *bytes.get(*at)?;
    *at += 1;
    Some(b)
}

/// An unsigned varint of at most 10 bytes.
fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..70).step_by(7) {
        let b = byte(bytes, at)?;
        value |= u64::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
        if b < 0x80 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use herringbone_format::metadata::{
        DataPageHeader, DataPageHeaderV2, DictionaryPageHeader, Encoding, IndexPageHeader,
        PageHeader, PageType, Statistics,
    };
    use herringbone_format::thrift::ThriftStruct;

    fn headers() -> Vec<PageHeader> {
        let statistics = Statistics {
            max_value: Some(b"zebra".to_vec().into()),
            min_value: Some(vec![b'a'; 300].into()),
            null_count: Some(3),
            is_max_value_exact: Some(true),
            ..Default::default()
        };
        let base = PageHeader {
            type_: PageType::DATA_PAGE,
            uncompressed_page_size: 1 << 20,
            compressed_page_size: 70_000,
            crc: Some(-5),
            ..Default::default()
        };
        vec![
            PageHeader {
                data_page_header: Some(DataPageHeader {
                    num_values: 100,
                    encoding: Encoding::PLAIN,
                    definition_level_encoding: Encoding::RLE,
                    repetition_level_encoding: Encoding::RLE,
                    statistics: Some(statistics.clone()),
                }),
                ..base.clone()
            },
            PageHeader {
                type_: PageType::DICTIONARY_PAGE,
                crc: None,
                dictionary_page_header: Some(DictionaryPageHeader {
                    num_values: 7,
                    encoding: Encoding::PLAIN,
                    is_sorted: Some(false),
                }),
                ..base.clone()
            },
            PageHeader {
                type_: PageType::DATA_PAGE_V2,
                data_page_header_v2: Some(DataPageHeaderV2 {
                    num_values: 10,
                    num_nulls: 2,
                    num_rows: 4,
                    encoding: Encoding::RLE_DICTIONARY,
                    definition_levels_byte_length: 3,
                    repetition_levels_byte_length: 1,
                    is_compressed: Some(true),
                    statistics: Some(statistics),
                }),
                ..base.clone()
            },
            PageHeader {
                type_: PageType::INDEX_PAGE,
                index_page_header: Some(IndexPageHeader {}),
                ..base
            },
        ]
    }

    #[test]
    fn headers_as_written_pass() {
        for header in headers() {
            let mut bytes = header.encode();
            assert!(looks_like_page_header(&bytes), "{header:?}");
            // Whatever follows the header (the page) does not matter.
            bytes.extend_from_slice(&[0xff; 9]);
            assert!(looks_like_page_header(&bytes), "{header:?}");
        }
    }

    #[test]
    fn other_layouts_fail() {
        let header = headers().remove(0).encode();
        // Cut anywhere before its end.
        for cut in 0..header.len() {
            assert!(!looks_like_page_header(&header[..cut]), "cut at {cut}");
        }
        // An unknown field (id 9, a list of a million i32s): rejected at its header.
        let mut unknown = header[..header.len() - 1].to_vec();
        unknown.extend_from_slice(&[0x49, 0xf5, 0xc0, 0x84, 0x3d]);
        assert!(!looks_like_page_header(&unknown));
        // A field again (long form, id 1 after id 5) or of another wire type.
        let mut again = header[..header.len() - 1].to_vec();
        again.extend_from_slice(&[0x05, 0x02, 0x00, 0x00]);
        assert!(!looks_like_page_header(&again));
        assert!(!looks_like_page_header(&[0x16, 0x00, 0x00]));
        // Random bytes: a 4-byte prefix decides almost always.
        assert!(!looks_like_page_header(&[0x15, 0x00, 0x15, 0x80]));
        assert!(!looks_like_page_header(&[]));
    }
}
