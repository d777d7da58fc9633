//! Spatial predicates on WKB (GEOMETRY / GEOGRAPHY, `geoarrow.wkb`) columns:
//! `bbox_intersects(geom, xmin, ymin, xmax, ymax)` and
//! `geometry_type_in(geom, code, ...)`.
//!
//! A row's geometry intersects the query box when its own bounding box does (computed as
//! the writer computes statistics: planar for GEOMETRY, great circles for spherical
//! GEOGRAPHY, which may wrap the antimeridian); `xmin > xmax` in the query wraps too.
//! Empty geometries intersect nothing; a value that is not valid WKB is null (unknown).
//! Row groups are pruned by the chunks' geospatial statistics with the same rule, so a
//! pruned row group never holds a row the filter would keep.

use std::fmt;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, BooleanArray};
use arrow_schema::{DataType, Field};
use herringbone_codec::geo::wkb::{Coord, WkbVisitor, scan};
use herringbone_codec::geo::{
    Edges, GeoStatisticsAccumulator, QueryBox, box_intersects, types_may_match,
};

use crate::error::{Error, Result};
use crate::statistics::GeoStatisticsArrays;

/// What a spatial predicate asks of each geometry.
#[derive(Debug, Clone, PartialEq)]
pub enum SpatialFilter {
    /// The geometry's bounding box meets this box (`xmin > xmax` wraps the
    /// antimeridian).
    BboxIntersects(QueryBox),
    /// The geometry's ISO WKB type code (`1` Point .. `7` GeometryCollection, plus
    /// 1000 Z, 2000 M, 3000 ZM) is one of these.
    TypeIn(Vec<i32>),
}

impl SpatialFilter {
    /// The function name in the text form.
    pub fn name(&self) -> &'static str {
        match self {
            SpatialFilter::BboxIntersects(_) => "bbox_intersects",
            SpatialFilter::TypeIn(_) => "geometry_type_in",
        }
    }

    /// The filter of function `name` with numeric arguments `args` (after the column).
    pub(crate) fn from_call(name: &str, args: &[f64]) -> std::result::Result<Self, String> {
        if name.eq_ignore_ascii_case("bbox_intersects") {
            let [xmin, ymin, xmax, ymax] = args else {
                return Err(format!(
                    "bbox_intersects takes a column and 4 numbers (xmin, ymin, xmax, ymax), not {}",
                    args.len()
                ));
            };
            if args.iter().any(|v| v.is_nan()) || ymin > ymax {
                return Err(format!(
                    "bbox_intersects: ymin {ymin} above ymax {ymax}, or a NaN bound"
                ));
            }
            Ok(SpatialFilter::BboxIntersects(QueryBox {
                xmin: *xmin,
                ymin: *ymin,
                xmax: *xmax,
                ymax: *ymax,
            }))
        } else if name.eq_ignore_ascii_case("geometry_type_in") {
            if args.is_empty() {
                return Err("geometry_type_in takes a column and at least one type code".into());
            }
            let codes = args
                .iter()
                .map(|&v| {
                    let code = v as i32;
                    (f64::from(code) == v && (0..=3007).contains(&code))
                        .then_some(code)
                        .ok_or_else(|| format!("geometry_type_in: {v} is not a WKB type code"))
                })
                .collect::<std::result::Result<_, _>>()?;
            Ok(SpatialFilter::TypeIn(codes))
        } else {
            Err(format!("unknown function `{name}`"))
        }
    }

    /// Writes the call's arguments after the column: `, 1, 2, 3, 4`.
    pub(crate) fn fmt_args(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpatialFilter::BboxIntersects(b) => {
                write!(
                    f,
                    ", {:?}, {:?}, {:?}, {:?}",
                    b.xmin, b.ymin, b.xmax, b.ymax
                )
            }
            SpatialFilter::TypeIn(codes) => codes.iter().try_for_each(|c| write!(f, ", {c}")),
        }
    }
}

/// How a column's edges are drawn, from its `geoarrow.wkb` metadata; an error for a
/// column that is not binary.
pub(crate) fn column_edges(field: &Field, dotted: &str) -> Result<Edges> {
    if !matches!(
        field.data_type(),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView
    ) {
        return Err(Error::invalid_argument(format!(
            "filter: spatial functions need a WKB (binary) column, {dotted} is {}",
            field.data_type()
        )));
    }
    let edges = field
        .metadata()
        .get("ARROW:extension:metadata")
        .and_then(|m| serde_json::from_str::<serde_json::Value>(m).ok())
        .and_then(|m| {
            m.get("edges")
                .or_else(|| m.get("algorithm"))
                .and_then(|e| e.as_str().map(str::to_string))
        });
    Ok(match edges.as_deref() {
        None | Some("planar") => Edges::Planar,
        Some("spherical") => Edges::Spherical,
        Some(_) => Edges::Ellipsoidal,
    })
}

struct Ignore;

impl WkbVisitor for Ignore {
    fn coord(&mut self, _: Coord) {}
}

/// Whether one WKB value passes; `None` when it is not valid WKB.
fn value_matches(filter: &SpatialFilter, edges: Edges, wkb: &[u8]) -> Option<bool> {
    match filter {
        SpatialFilter::TypeIn(codes) => {
            let code = scan(wkb, &mut Ignore).ok()?.code();
            Some(codes.iter().any(|&c| c as u32 == code))
        }
        SpatialFilter::BboxIntersects(query) => {
            // Ellipsoidal edges have no box rule: the vertices' planar box stands in at
            // row level, and chunks are never pruned by box.
            let edges = if edges == Edges::Ellipsoidal {
                Edges::Planar
            } else {
                edges
            };
            let mut acc = GeoStatisticsAccumulator::new(edges);
            acc.add(wkb);
            let stats = acc.finish()?;
            Some(stats.bbox.is_some_and(|b| box_intersects(&b, query)))
        }
    }
}

/// The filter over every value of a binary column: null where the value is null or not
/// valid WKB.
pub(crate) fn evaluate(
    filter: &SpatialFilter,
    edges: Edges,
    negated: bool,
    array: &ArrayRef,
) -> Result<BooleanArray> {
    let one = |v: Option<&[u8]>| {
        v.and_then(|v| value_matches(filter, edges, v))
            .map(|b| b != negated)
    };
    Ok(match array.data_type() {
        DataType::Binary => array.as_binary::<i32>().iter().map(one).collect(),
        DataType::LargeBinary => array.as_binary::<i64>().iter().map(one).collect(),
        DataType::BinaryView => array.as_binary_view().iter().map(one).collect(),
        other => {
            return Err(Error::invalid_argument(format!(
                "filter: spatial functions need a WKB (binary) column, got {other}"
            )));
        }
    })
}

/// Per row group, whether the filter may be true there, from the chunks' geospatial
/// statistics (`has_value(i)`: the chunk holds a non-null value).
pub(crate) fn may_match(
    filter: &SpatialFilter,
    edges: Edges,
    negated: bool,
    geo: &GeoStatisticsArrays,
    has_value: &dyn Fn(usize) -> bool,
) -> Vec<bool> {
    let n = geo.xmin.len();
    (0..n)
        .map(|i| {
            if !has_value(i) {
                return false;
            }
            if negated {
                return true;
            }
            match filter {
                SpatialFilter::TypeIn(codes) => {
                    let list = geo.geospatial_types.is_valid(i).then(|| {
                        let values = geo.geospatial_types.value(i);
                        values
                            .as_primitive::<arrow_array::types::Int32Type>()
                            .values()
                            .to_vec()
                    });
                    types_may_match(list.as_deref(), codes)
                }
                SpatialFilter::BboxIntersects(query) => {
                    if edges == Edges::Ellipsoidal || geo.xmin.is_null(i) {
                        return true;
                    }
                    let bbox = herringbone_format::metadata::BoundingBox {
                        xmin: geo.xmin.value(i),
                        xmax: geo.xmax.value(i),
                        ymin: geo.ymin.value(i),
                        ymax: geo.ymax.value(i),
                        ..Default::default()
                    };
                    box_intersects(&bbox, query)
                }
            }
        })
        .collect()
}
