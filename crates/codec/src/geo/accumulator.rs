//! [`GeoStatisticsAccumulator`]: the `GeospatialStatistics` of a column chunk, built one
//! WKB value at a time.

use herringbone_format::metadata::{BoundingBox, EdgeInterpolationAlgorithm, GeospatialStatistics};

use super::sphere::{EdgeExtent, LonArc, edge_latitudes};
use super::wkb::{Coord, GeometryType, Sequence, WkbError, WkbVisitor, scan};

/// How edges between coordinates are drawn, which decides what a bounding box is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edges {
    /// GEOMETRY: straight lines in the plane; the box is the coordinates' min/max.
    Planar,
    /// GEOGRAPHY with SPHERICAL edges: great circles. Longitudes form an arc that may
    /// wrap the antimeridian (`xmin > xmax`), latitudes include each edge's bulge
    /// toward a pole, a ring around a pole covers it.
    Spherical,
    /// GEOGRAPHY with an ellipsoidal algorithm (VINCENTY, THOMAS, ANDOYER, KARNEY):
    /// no bounding box is written, only the type list. The edges bulge differently
    /// from great circles and a box that may miss part of an edge would prune wrongly.
    Ellipsoidal,
}

impl Edges {
    /// The edges of a GEOGRAPHY column with this algorithm (absent is SPHERICAL).
    pub fn of_geography(algorithm: Option<EdgeInterpolationAlgorithm>) -> Edges {
        match algorithm {
            None | Some(EdgeInterpolationAlgorithm::SPHERICAL) => Edges::Spherical,
            Some(_) => Edges::Ellipsoidal,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Range {
    min: f64,
    max: f64,
}

impl Range {
    const EMPTY: Range = Range {
        min: f64::INFINITY,
        max: f64::NEG_INFINITY,
    };

    /// NaN fails both comparisons and is skipped, as the specification asks.
    #[inline]
    fn add(&mut self, v: f64) {
        if v < self.min {
            self.min = v;
        }
        if v > self.max {
            self.max = v;
        }
    }

    fn merge(&mut self, other: Range) {
        self.add(other.min);
        self.add(other.max);
    }

    fn get(self) -> Option<(f64, f64)> {
        (self.min <= self.max).then_some((self.min, self.max))
    }
}

/// The state of one spherical run (LineString or ring) being walked.
#[derive(Debug, Clone, Copy, Default)]
struct Run {
    /// The previous vertex with a usable longitude / latitude.
    prev: Option<(f64, f64)>,
    /// Sum of the signed longitude steps of a ring (about ±360 around a pole).
    winding: f64,
    is_ring: bool,
    all_north: bool,
    all_south: bool,
}

/// The bounds of everything seen so far, as a visitor of WKB scans.
#[derive(Debug, Clone)]
struct Bounds {
    edges: Edges,
    x: Range,
    y: Range,
    z: Range,
    m: Range,
    lon: LonArc,
    run: Run,
    /// A geography coordinate outside [-180, 180] x [-90, 90].
    out_of_range: bool,
}

impl Bounds {
    fn new(edges: Edges) -> Self {
        Bounds {
            edges,
            x: Range::EMPTY,
            y: Range::EMPTY,
            z: Range::EMPTY,
            m: Range::EMPTY,
            lon: LonArc::Empty,
            run: Run::default(),
            out_of_range: false,
        }
    }
}

impl WkbVisitor for Bounds {
    #[inline]
    fn begin(&mut self, sequence: Sequence, _len: usize) {
        self.run = Run {
            is_ring: sequence == Sequence::Ring,
            all_north: true,
            all_south: true,
            ..Run::default()
        };
    }

    #[inline]
    fn coord(&mut self, c: Coord) {
        self.z.add(c.z);
        self.m.add(c.m);
        match self.edges {
            Edges::Planar | Edges::Ellipsoidal => {
                self.x.add(c.x);
                self.y.add(c.y);
            }
            Edges::Spherical => self.spherical(c.x, c.y),
        }
    }

    fn end(&mut self) {
        if self.edges != Edges::Spherical || !self.run.is_ring {
            return;
        }
        // A ring whose longitude steps add up to a full turn goes around a pole: the
        // smaller of the two regions it bounds (the one a polygon means) holds the pole
        // on the side the ring lies; a ring crossing the equator could mean either.
        if self.run.winding.abs() > 180.0 {
            self.lon = LonArc::Full;
            if !self.run.all_south {
                self.y.add(90.0);
            }
            if !self.run.all_north {
                self.y.add(-90.0);
            }
        }
    }
}

impl Bounds {
    fn spherical(&mut self, lon: f64, lat: f64) {
        if (!lon.is_nan() && !(-180.0..=180.0).contains(&lon))
            || (!lat.is_nan() && !(-90.0..=90.0).contains(&lat))
        {
            self.out_of_range = true;
            return;
        }
        if lon.is_nan() || lat.is_nan() {
            // A NaN coordinate breaks the run: no edge to or from it.
            self.x.add(lon);
            self.y.add(lat);
            if !lon.is_nan() {
                self.lon = self.lon.union(LonArc::Arc { lo: lon, hi: lon });
            }
            self.run.prev = None;
            return;
        }
        // A vertex at a pole keeps its stored longitude (as S2 bounds it, so boxes and
        // row-level tests agree with files other writers bound); an edge reaching a pole
        // spans every longitude (below).
        self.y.add(lat);
        self.run.all_north &= lat > 0.0;
        self.run.all_south &= lat < 0.0;
        match self.run.prev {
            None => self.lon = self.lon.union(LonArc::Arc { lo: lon, hi: lon }),
            Some((lon0, lat0)) => {
                let step = (lon - lon0 + 180.0).rem_euclid(360.0) - 180.0;
                self.run.winding += step;
                match edge_latitudes(lon0, lat0, lon, lat) {
                    EdgeExtent::Lat { lat_min, lat_max } => {
                        self.y.add(lat_min);
                        self.y.add(lat_max);
                        self.lon = if lat_max >= 90.0 || lat_min <= -90.0 {
                            // Through a pole.
                            LonArc::Full
                        } else {
                            self.lon.union(LonArc::edge(lon0, lon))
                        };
                    }
                    EdgeExtent::Anywhere => {
                        self.lon = LonArc::Full;
                        self.y.add(-90.0);
                        self.y.add(90.0);
                    }
                }
            }
        }
        self.run.prev = Some((lon, lat));
    }
}

/// Builds the `GeospatialStatistics` of a column chunk from its WKB values.
///
/// A value that is not valid WKB (or, for GEOGRAPHY, has a coordinate outside
/// [-180, 180] x [-90, 90]) is not an error for the write: the chunk is then written
/// without geospatial statistics, which the specification allows, and
/// [`GeoStatisticsAccumulator::error`] says why.
///
/// ```
/// use herringbone_codec::geo::{Edges, GeoStatisticsAccumulator};
/// let point = |x: f64, y: f64| {
///     let mut wkb = vec![1u8, 1, 0, 0, 0];
///     wkb.extend_from_slice(&x.to_le_bytes());
///     wkb.extend_from_slice(&y.to_le_bytes());
///     wkb
/// };
/// let mut acc = GeoStatisticsAccumulator::new(Edges::Planar);
/// acc.add(&point(1.0, 5.0));
/// acc.add(&point(-2.0, 3.0));
/// let stats = acc.finish().unwrap();
/// let bbox = stats.bbox.unwrap();
/// assert_eq!((bbox.xmin, bbox.xmax, bbox.ymin, bbox.ymax), (-2.0, 1.0, 3.0, 5.0));
/// assert_eq!(stats.geospatial_types, Some(vec![1]));
/// ```
#[derive(Debug, Clone)]
pub struct GeoStatisticsAccumulator {
    bounds: Bounds,
    /// Bit `4 * (base - 1) + dimensions` for each top-level type seen.
    types: u32,
    error: Option<WkbError>,
}

impl GeoStatisticsAccumulator {
    /// An empty accumulator for a column with these edges.
    pub fn new(edges: Edges) -> Self {
        GeoStatisticsAccumulator {
            bounds: Bounds::new(edges),
            types: 0,
            error: None,
        }
    }

    /// Adds one WKB value. After the first invalid value the rest are ignored.
    pub fn add(&mut self, wkb: &[u8]) {
        if self.error.is_some() {
            return;
        }
        match scan(wkb, &mut self.bounds) {
            Ok(geometry) => self.types |= 1 << type_bit(geometry),
            Err(e) => self.error = Some(e),
        }
    }

    /// Adds the statistics of another accumulator of the same column (pages into a
    /// chunk, or chunks written in parallel).
    pub fn merge(&mut self, other: &GeoStatisticsAccumulator) {
        if self.error.is_some() {
            return;
        }
        if let Some(e) = &other.error {
            self.error = Some(e.clone());
            return;
        }
        self.types |= other.types;
        let (a, b) = (&mut self.bounds, &other.bounds);
        a.x.merge(b.x);
        a.y.merge(b.y);
        a.z.merge(b.z);
        a.m.merge(b.m);
        a.lon = a.lon.union(b.lon);
        a.out_of_range |= b.out_of_range;
    }

    /// Why statistics will be omitted: the first invalid value seen.
    pub fn error(&self) -> Option<&WkbError> {
        self.error.as_ref()
    }

    /// Forgets everything (for the next column chunk).
    pub fn reset(&mut self) {
        *self = GeoStatisticsAccumulator::new(self.bounds.edges);
    }

    /// The statistics of the values added: `None` when a value was invalid. The box is
    /// omitted when X or Y has no non-NaN value (all empty geometries), or for
    /// ellipsoidal edges; Z and M are present when some coordinate had one.
    pub fn finish(&self) -> Option<GeospatialStatistics> {
        if self.error.is_some() || self.bounds.out_of_range {
            return None;
        }
        let mut types = Vec::new();
        for bit in 0..28 {
            if self.types & (1 << bit) != 0 {
                types.push((bit / 4 + 1) + 1000 * (bit % 4));
            }
        }
        // Sorted by code: the bit order is by base first, so sort.
        types.sort_unstable();
        let b = &self.bounds;
        let bbox = match b.edges {
            Edges::Ellipsoidal => None,
            Edges::Planar => b.x.get().zip(b.y.get()),
            Edges::Spherical => b.y.get().and_then(|y| match b.lon {
                LonArc::Empty => None,
                LonArc::Full => Some(((-180.0, 180.0), y)),
                LonArc::Arc { lo, hi } => Some(((lo, hi), y)),
            }),
        };
        let bbox = bbox.map(|((xmin, xmax), (ymin, ymax))| {
            let z = b.z.get();
            let m = b.m.get();
            BoundingBox {
                xmin,
                xmax,
                ymin,
                ymax,
                zmin: z.map(|z| z.0),
                zmax: z.map(|z| z.1),
                mmin: m.map(|m| m.0),
                mmax: m.map(|m| m.1),
            }
        });
        Some(GeospatialStatistics {
            bbox,
            geospatial_types: Some(types),
        })
    }
}

fn type_bit(geometry: GeometryType) -> u32 {
    let code = geometry.code();
    4 * (code % 1000 - 1) + code / 1000
}
