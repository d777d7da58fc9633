//! Geospatial statistics (bounding boxes and geometry type lists of GEOMETRY /
//! GEOGRAPHY column chunks) as Arrow arrays, one entry per row group.

use arrow_array::builder::{Int32Builder, ListBuilder};
use arrow_array::{Float64Array, ListArray};
use herringbone_format::metadata::{BoundingBox, FileMetaData, GeospatialStatistics};

use crate::error::{Error, Result};

/// The geospatial statistics of one leaf column over a list of row groups: each array
/// has one entry per row group, null where the chunk has no such value.
///
/// `xmin > xmax` means the box wraps the antimeridian (GEOGRAPHY): X lies in
/// `xmin..=180` or `-180..=xmax`.
#[derive(Debug, Clone)]
pub struct GeoStatisticsArrays {
    /// West bounds.
    pub xmin: Float64Array,
    /// East bounds.
    pub xmax: Float64Array,
    /// South bounds.
    pub ymin: Float64Array,
    /// North bounds.
    pub ymax: Float64Array,
    /// Lowest Z, where the chunk has Z values.
    pub zmin: Float64Array,
    /// Highest Z.
    pub zmax: Float64Array,
    /// Lowest M, where the chunk has M values.
    pub mmin: Float64Array,
    /// Highest M.
    pub mmax: Float64Array,
    /// The ISO WKB type codes present (`1` Point .. `7` GeometryCollection, plus 1000
    /// for Z, 2000 for M, 3000 for ZM); null where unknown, empty where the writer said
    /// it did not know.
    pub geospatial_types: ListArray,
}

/// The [`GeoStatisticsArrays`] of leaf column `leaf` over `row_groups`.
///
/// Errors (kind `InvalidArgument`) when a row group or the leaf is out of range.
///
/// ```
/// # use herringbone_format::metadata::*;
/// use herringbone_arrow_bridge::statistics::geo_statistics;
/// let chunk = |stats| ColumnChunk {
///     meta_data: Some(ColumnMetaData { geospatial_statistics: stats, ..Default::default() }),
///     ..Default::default()
/// };
/// let stats = GeospatialStatistics {
///     bbox: Some(BoundingBox { xmin: 170.0, xmax: -170.0, ymin: 0.0, ymax: 5.0, ..Default::default() }),
///     geospatial_types: Some(vec![1]),
/// };
/// let metadata = FileMetaData {
///     row_groups: vec![
///         RowGroup { columns: vec![chunk(Some(Box::new(stats)))], ..Default::default() },
///         RowGroup { columns: vec![chunk(None)], ..Default::default() },
///     ],
///     ..Default::default()
/// };
/// let arrays = geo_statistics(&metadata, 0, &[0, 1]).unwrap();
/// assert_eq!(arrays.xmin.iter().collect::<Vec<_>>(), [Some(170.0), None]);
/// assert_eq!(arrays.xmax.value(0), -170.0);
/// ```
pub fn geo_statistics(
    metadata: &FileMetaData,
    leaf: usize,
    row_groups: &[usize],
) -> Result<GeoStatisticsArrays> {
    let mut stats: Vec<Option<&GeospatialStatistics>> = Vec::with_capacity(row_groups.len());
    for &g in row_groups {
        let rg = metadata.row_groups.get(g).ok_or_else(|| {
            Error::invalid_argument(format!(
                "geospatial statistics: row group {g} out of range (the file has {})",
                metadata.row_groups.len()
            ))
        })?;
        let chunk = rg.columns.get(leaf).ok_or_else(|| {
            Error::invalid_argument(format!(
                "geospatial statistics: leaf column {leaf} out of range (row group {g} has {})",
                rg.columns.len()
            ))
        })?;
        stats.push(
            chunk
                .meta_data
                .as_ref()
                .and_then(|m| m.geospatial_statistics.as_deref()),
        );
    }
    let bound = |f: &dyn Fn(&BoundingBox) -> Option<f64>| -> Float64Array {
        stats
            .iter()
            .map(|s| s.and_then(|s| s.bbox.as_ref()).and_then(f))
            .collect()
    };
    let mut types = ListBuilder::new(Int32Builder::new());
    for s in &stats {
        match s.and_then(|s| s.geospatial_types.as_ref()) {
            Some(list) => {
                types.values().append_slice(list);
                types.append(true);
            }
            None => types.append(false),
        }
    }
    Ok(GeoStatisticsArrays {
        xmin: bound(&|b| Some(b.xmin)),
        xmax: bound(&|b| Some(b.xmax)),
        ymin: bound(&|b| Some(b.ymin)),
        ymax: bound(&|b| Some(b.ymax)),
        zmin: bound(&|b| b.zmin),
        zmax: bound(&|b| b.zmax),
        mmin: bound(&|b| b.mmin),
        mmax: bound(&|b| b.mmax),
        geospatial_types: types.finish(),
    })
}
