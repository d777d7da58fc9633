//! Geospatial values (WKB) and their statistics, with no geometry library: a scanner
//! that visits every coordinate of a WKB value ([`wkb`]), the per-chunk
//! `GeospatialStatistics` accumulator of the writer ([`GeoStatisticsAccumulator`]), and
//! the bounding-box tests pruning uses ([`box_intersects`], [`types_may_match`]).
//!
//! GEOMETRY boxes are planar min/max. GEOGRAPHY boxes with SPHERICAL edges follow the
//! great circles between vertices and may wrap the antimeridian (`xmin > xmax`, meaning
//! `x >= xmin || x <= xmax`); GEOGRAPHY with an ellipsoidal algorithm gets a type list
//! but no box (see [`Edges`]).

mod accumulator;
mod sphere;
pub mod wkb;

pub use accumulator::{Edges, GeoStatisticsAccumulator};

use herringbone_format::metadata::BoundingBox;

/// A query rectangle: `xmin > xmax` wraps the antimeridian like a statistics box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueryBox {
    /// West edge.
    pub xmin: f64,
    /// South edge.
    pub ymin: f64,
    /// East edge (less than `xmin` when the box wraps).
    pub xmax: f64,
    /// North edge.
    pub ymax: f64,
}

/// Whether any geometry inside the statistics box `bbox` may intersect `query`
/// (`false` only when none can). Either box may wrap the antimeridian; a box with NaN
/// bounds proves nothing and may match.
///
/// ```
/// use herringbone_codec::geo::{QueryBox, box_intersects};
/// use herringbone_format::metadata::BoundingBox;
/// // A chunk spanning 170E..170W (wrapping).
/// let bbox = BoundingBox { xmin: 170.0, xmax: -170.0, ymin: 0.0, ymax: 10.0, ..Default::default() };
/// let near = QueryBox { xmin: 175.0, ymin: 5.0, xmax: 179.0, ymax: 6.0 };
/// let far = QueryBox { xmin: 0.0, ymin: 5.0, xmax: 10.0, ymax: 6.0 };
/// assert!(box_intersects(&bbox, &near));
/// assert!(!box_intersects(&bbox, &far));
/// ```
pub fn box_intersects(bbox: &BoundingBox, query: &QueryBox) -> bool {
    let bounds = [
        bbox.xmin, bbox.xmax, bbox.ymin, bbox.ymax, query.xmin, query.xmax, query.ymin, query.ymax,
    ];
    if bounds.iter().any(|v| v.is_nan()) {
        return true;
    }
    if bbox.ymax < query.ymin || query.ymax < bbox.ymin {
        return false;
    }
    x_ranges_intersect((bbox.xmin, bbox.xmax), (query.xmin, query.xmax))
}

/// Two X ranges, each either `lo <= hi` or wrapping (`lo > hi`: `x >= lo || x <= hi`).
fn x_ranges_intersect(a: (f64, f64), b: (f64, f64)) -> bool {
    let wraps = |r: (f64, f64)| r.0 > r.1;
    match (wraps(a), wraps(b)) {
        (false, false) => a.0 <= b.1 && b.0 <= a.1,
        // One wraps: it is [lo, +inf) U (-inf, hi]; the other meets either half.
        (true, false) => b.1 >= a.0 || b.0 <= a.1,
        (false, true) => a.1 >= b.0 || a.0 <= b.1,
        // Both contain the antimeridian.
        (true, true) => true,
    }
}

/// Whether a chunk whose type list is `types` may hold a geometry of one of the
/// `wanted` ISO codes. An absent or empty list means the types are not known.
///
/// ```
/// use herringbone_codec::geo::types_may_match;
/// assert!(!types_may_match(Some(&[1, 4]), &[3, 6]));
/// assert!(types_may_match(Some(&[1, 3]), &[3]));
/// assert!(types_may_match(Some(&[]), &[3]));
/// ```
pub fn types_may_match(types: Option<&[i32]>, wanted: &[i32]) -> bool {
    match types {
        None | Some([]) => true,
        Some(types) => types.iter().any(|t| wanted.contains(t)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bbox(xmin: f64, xmax: f64, ymin: f64, ymax: f64) -> BoundingBox {
        BoundingBox {
            xmin,
            xmax,
            ymin,
            ymax,
            ..Default::default()
        }
    }

    fn query(xmin: f64, ymin: f64, xmax: f64, ymax: f64) -> QueryBox {
        QueryBox {
            xmin,
            ymin,
            xmax,
            ymax,
        }
    }

    #[test]
    fn plain_boxes() {
        let b = bbox(0.0, 10.0, 0.0, 10.0);
        assert!(box_intersects(&b, &query(5.0, 5.0, 20.0, 20.0)));
        assert!(
            box_intersects(&b, &query(10.0, 10.0, 20.0, 20.0)),
            "touching"
        );
        assert!(!box_intersects(&b, &query(11.0, 0.0, 20.0, 10.0)));
        assert!(!box_intersects(&b, &query(0.0, -5.0, 10.0, -1.0)));
    }

    #[test]
    fn wrapping_boxes() {
        let b = bbox(170.0, -170.0, -10.0, 10.0);
        assert!(box_intersects(&b, &query(175.0, 0.0, 180.0, 1.0)));
        assert!(box_intersects(&b, &query(-180.0, 0.0, -175.0, 1.0)));
        assert!(!box_intersects(&b, &query(-169.0, 0.0, 169.0, 1.0)));
        // The query wraps too.
        assert!(box_intersects(&b, &query(179.0, 0.0, -179.0, 1.0)));
        // The query wraps, the box does not.
        let plain = bbox(-20.0, -10.0, -10.0, 10.0);
        assert!(!box_intersects(&plain, &query(170.0, 0.0, -170.0, 1.0)));
        assert!(box_intersects(&plain, &query(170.0, 0.0, -15.0, 1.0)));
    }

    #[test]
    fn nan_bounds_may_match() {
        assert!(box_intersects(
            &bbox(f64::NAN, 1.0, 0.0, 1.0),
            &query(50.0, 50.0, 60.0, 60.0)
        ));
    }
}
