//! A closed column chunk's entries in the footer and the page index, from its page
//! records: `ColumnMetaData` (encodings, page encoding stats, sizes, chunk statistics,
//! size statistics), the column index and the offset index.

use std::cmp::Ordering;

use herringbone_codec::compression::Codec;
use herringbone_codec::page::WrittenPage;
use herringbone_format::metadata::{
    BoundaryOrder, ColumnIndex, ColumnMetaData, Encoding, OffsetIndex, PageEncodingStats,
    PageLocation, PageType, SizeStatistics, Type,
};
use herringbone_format::thrift::Text;

use super::page::{PageFormat, PageRecord};
use super::properties::StatisticsLevel;
use super::statistics::{MinMax, SortOrder};
use crate::error::{Error, Result};

/// The footer and page index entries of one column chunk, with offsets relative to the
/// chunk's first byte.
#[derive(Debug)]
pub(crate) struct ChunkMetadata {
    /// The chunk's `ColumnMetaData`.
    pub metadata: ColumnMetaData,
    /// Its column index (`None` when the pages cannot be described).
    pub column_index: Option<ColumnIndex>,
    /// Its offset index.
    pub offset_index: OffsetIndex,
}

/// What a chunk is, beyond its pages.
#[derive(Debug)]
pub(crate) struct ChunkFacts<'a> {
    /// Dotted path parts of the column.
    pub path: &'a [Text],
    /// The codec of its pages.
    pub codec: Codec,
    /// Level slots in the chunk.
    pub num_values: i64,
    /// The dictionary page (offset 0 when present: it leads the chunk).
    pub dictionary_page: Option<&'a WrittenPage>,
    /// Bytes before the first data page (the dictionary page).
    pub data_offset: usize,
    /// Bytes of the whole chunk.
    pub total_size: usize,
}

/// Builds the metadata of a chunk whose data pages are `pages` (offsets relative to
/// the first data page).
pub(crate) fn chunk_metadata(
    facts: &ChunkFacts<'_>,
    pages: &[PageRecord],
    format: &PageFormat,
) -> Result<ChunkMetadata> {
    let shift = facts.data_offset;
    let mut encodings = Vec::new();
    let mut add_encoding = |e: Encoding| {
        if !encodings.contains(&e) {
            encodings.push(e);
        }
    };
    let mut encoding_stats: Vec<PageEncodingStats> = Vec::new();
    let mut count_page = |page_type: PageType, encoding: Encoding| match encoding_stats
        .iter_mut()
        .find(|s| s.page_type == page_type && s.encoding == encoding)
    {
        Some(s) => s.count += 1,
        None => encoding_stats.push(PageEncodingStats {
            page_type,
            encoding,
            count: 1,
        }),
    };
    let mut total_uncompressed = 0i64;
    if let Some(d) = facts.dictionary_page {
        add_encoding(Encoding::PLAIN);
        count_page(PageType::DICTIONARY_PAGE, Encoding::PLAIN);
        total_uncompressed += (d.header_size + d.uncompressed_page_size) as i64;
    }
    add_encoding(Encoding::RLE);
    for page in pages {
        add_encoding(page.written.encoding);
        count_page(page.written.page_type, page.written.encoding);
        total_uncompressed +=
            (page.written.header_size + page.written.uncompressed_page_size) as i64;
    }

    let mut chunk_min_max = None;
    let mut null_count = 0i64;
    for page in pages {
        if let Some(mm) = &page.min_max {
            format.bounds.merge(&mut chunk_min_max, mm);
        }
        null_count += page.null_count;
    }
    let statistics = (format.statistics != StatisticsLevel::None)
        .then(|| format.bounds.statistics(chunk_min_max.as_ref(), null_count));

    let is_byte_array = format.bounds.physical == Type::BYTE_ARRAY;
    let offset_index = OffsetIndex {
        page_locations: pages
            .iter()
            .map(|p| {
                Ok(PageLocation {
                    offset: (p.written.offset + shift) as i64,
                    compressed_page_size: i32::try_from(p.written.total_size())
                        .map_err(|_| Error::invalid_argument("a page larger than 2 GiB"))?,
                    first_row_index: p.first_row as i64,
                })
            })
            .collect::<Result<_>>()?,
        unencoded_byte_array_data_bytes: is_byte_array.then(|| {
            pages
                .iter()
                .map(|p| p.unencoded_bytes.unwrap_or(0))
                .collect()
        }),
    };
    let data_page_offset = pages.first().map_or(shift, |p| p.written.offset + shift) as i64;
    let metadata = ColumnMetaData {
        type_: format.bounds.physical,
        encodings: encodings.into(),
        path_in_schema: facts.path.iter().cloned().collect(),
        codec: facts.codec.compression_codec(),
        num_values: facts.num_values,
        total_uncompressed_size: total_uncompressed,
        total_compressed_size: facts.total_size as i64,
        data_page_offset,
        dictionary_page_offset: facts.dictionary_page.map(|d| d.offset as i64),
        statistics,
        encoding_stats: Some(encoding_stats.into()),
        size_statistics: size_statistics(pages, is_byte_array),
        ..ColumnMetaData::default()
    };
    Ok(ChunkMetadata {
        metadata,
        column_index: column_index(pages, format),
        offset_index,
    })
}

/// The chunk's size statistics: unencoded byte array bytes and level histograms, the
/// sums of the pages'.
fn size_statistics(pages: &[PageRecord], is_byte_array: bool) -> Option<SizeStatistics> {
    let unencoded =
        is_byte_array.then(|| pages.iter().map(|p| p.unencoded_bytes.unwrap_or(0)).sum());
    let sum = |pick: fn(&PageRecord) -> &Vec<i64>| -> Option<Vec<i64>> {
        let first = pick(pages.first()?);
        if first.is_empty() {
            return None;
        }
        let mut total = vec![0i64; first.len()];
        for page in pages {
            for (t, v) in total.iter_mut().zip(pick(page)) {
                *t += v;
            }
        }
        Some(total)
    };
    let stats = SizeStatistics {
        unencoded_byte_array_data_bytes: unencoded,
        repetition_level_histogram: sum(|p| &p.rep_histogram).map(Into::into),
        definition_level_histogram: sum(|p| &p.def_histogram).map(Into::into),
    };
    (stats != SizeStatistics::default()).then_some(stats)
}

/// The column index of the pages (`None` without page statistics, for a column without
/// an order, or when a page with values has no bounds: only NaN).
fn column_index(pages: &[PageRecord], format: &PageFormat) -> Option<ColumnIndex> {
    if format.statistics != StatisticsLevel::Page || format.bounds.order == SortOrder::Undefined {
        return None;
    }
    if pages.iter().any(|p| p.non_null > 0 && p.min_max.is_none()) {
        return None;
    }
    let mut index = ColumnIndex::default();
    for page in pages {
        let is_null_page = page.non_null == 0;
        index.null_pages.push(is_null_page);
        match &page.min_max {
            Some(mm) if !is_null_page => {
                let (min, _, max, _) = format.bounds.truncated(mm);
                index.min_values.push(min.into());
                index.max_values.push(max.into());
            }
            _ => {
                index.min_values.push(Vec::new().into());
                index.max_values.push(Vec::new().into());
            }
        }
    }
    index.boundary_order = boundary_order(pages, format);
    index.null_counts = Some(pages.iter().map(|p| p.null_count).collect());
    if format.max_rep > 0 {
        index.repetition_level_histograms =
            Some(pages.iter().flat_map(|p| p.rep_histogram.clone()).collect());
    }
    if format.max_def > 0 {
        index.definition_level_histograms =
            Some(pages.iter().flat_map(|p| p.def_histogram.clone()).collect());
    }
    Some(index)
}

/// Whether the pages' bounds ascend, descend or neither.
fn boundary_order(pages: &[PageRecord], format: &PageFormat) -> BoundaryOrder {
    let bounds: Vec<&MinMax> = pages.iter().filter_map(|p| p.min_max.as_ref()).collect();
    let cmp = |a: &[u8], b: &[u8]| format.bounds.compare(a, b);
    let ascending = bounds.windows(2).all(|w| {
        cmp(&w[0].min, &w[1].min) != Ordering::Greater
            && cmp(&w[0].max, &w[1].max) != Ordering::Greater
    });
    let descending = bounds.windows(2).all(|w| {
        cmp(&w[0].min, &w[1].min) != Ordering::Less && cmp(&w[0].max, &w[1].max) != Ordering::Less
    });
    if ascending {
        BoundaryOrder::ASCENDING
    } else if descending {
        BoundaryOrder::DESCENDING
    } else {
        BoundaryOrder::UNORDERED
    }
}
