//! A Well-Known Binary scanner: walks one WKB value and hands every coordinate to a
//! [`WkbVisitor`], without allocating and without building a geometry.
//!
//! The accepted form is ISO WKB (OGC Simple Features 1.2.1), which the Parquet
//! specification names: a byte-order byte (`0` big endian, `1` little endian) per
//! geometry, a `u32` type code `base + 1000 * dimensions` (base 1 Point .. 7
//! GeometryCollection; dimensions 0 XY, 1 XYZ, 2 XYM, 3 XYZM), then the body.
//!
//! EWKB (PostGIS's extended form, whose Z/M/SRID live in the type code's high bits) is
//! rejected: Parquet's GEOMETRY and GEOGRAPHY hold ISO WKB only, and Arrow C++ (pyarrow)
//! rejects it too, so a chunk holding EWKB gets no geospatial statistics from either
//! writer rather than statistics other readers could not reproduce from the data.
//! Other ISO types (PolyhedralSurface, TIN, Triangle, curves) are outside the
//! specification's type list and rejected the same way.
//!
//! An empty geometry is a zero count (LineString, Polygon, Multi*, GeometryCollection)
//! or, for a Point, all coordinates NaN; both are valid and simply visit nothing (the
//! Point's NaN coordinates are visited, and skipped by bounding boxes).
//!
//! Every count is checked against the bytes left before the elements are read, nesting
//! is limited to [`MAX_DEPTH`], a value must end exactly where its geometry ends, and a
//! nested geometry must have its parent's dimensions (and, inside a Multi*, the matching
//! single type).

use std::fmt;

/// Deepest nesting of geometry collections accepted (a hostile value cannot exhaust
/// the stack).
pub const MAX_DEPTH: usize = 64;

/// The coordinate dimensions of a geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dimensions {
    /// X and Y.
    Xy,
    /// X, Y and Z.
    Xyz,
    /// X, Y and M.
    Xym,
    /// X, Y, Z and M.
    Xyzm,
}

impl Dimensions {
    /// Coordinate values per point.
    pub fn values_per_point(self) -> usize {
        match self {
            Dimensions::Xy => 2,
            Dimensions::Xyz | Dimensions::Xym => 3,
            Dimensions::Xyzm => 4,
        }
    }

    /// Whether points have a Z value.
    pub fn has_z(self) -> bool {
        matches!(self, Dimensions::Xyz | Dimensions::Xyzm)
    }

    /// Whether points have an M value.
    pub fn has_m(self) -> bool {
        matches!(self, Dimensions::Xym | Dimensions::Xyzm)
    }

    fn from_thousands(n: u32) -> Option<Dimensions> {
        Some(match n {
            0 => Dimensions::Xy,
            1 => Dimensions::Xyz,
            2 => Dimensions::Xym,
            3 => Dimensions::Xyzm,
            _ => return None,
        })
    }

    fn thousands(self) -> u32 {
        match self {
            Dimensions::Xy => 0,
            Dimensions::Xyz => 1,
            Dimensions::Xym => 2,
            Dimensions::Xyzm => 3,
        }
    }
}

/// The seven geometry kinds of the specification's type list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GeometryKind {
    /// Code 1.
    Point,
    /// Code 2.
    LineString,
    /// Code 3.
    Polygon,
    /// Code 4.
    MultiPoint,
    /// Code 5.
    MultiLineString,
    /// Code 6.
    MultiPolygon,
    /// Code 7.
    GeometryCollection,
}

impl GeometryKind {
    fn from_base(base: u32) -> Option<GeometryKind> {
        Some(match base {
            1 => GeometryKind::Point,
            2 => GeometryKind::LineString,
            3 => GeometryKind::Polygon,
            4 => GeometryKind::MultiPoint,
            5 => GeometryKind::MultiLineString,
            6 => GeometryKind::MultiPolygon,
            7 => GeometryKind::GeometryCollection,
            _ => return None,
        })
    }

    /// The base type code (1..=7).
    pub fn base(self) -> u32 {
        match self {
            GeometryKind::Point => 1,
            GeometryKind::LineString => 2,
            GeometryKind::Polygon => 3,
            GeometryKind::MultiPoint => 4,
            GeometryKind::MultiLineString => 5,
            GeometryKind::MultiPolygon => 6,
            GeometryKind::GeometryCollection => 7,
        }
    }
}

/// A geometry's kind and dimensions: its ISO WKB type code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GeometryType {
    /// Point .. GeometryCollection.
    pub kind: GeometryKind,
    /// XY, XYZ, XYM or XYZM.
    pub dimensions: Dimensions,
}

impl GeometryType {
    /// The ISO WKB code, as `GeospatialStatistics::geospatial_types` lists it
    /// (`1001` is a Point Z).
    pub fn code(self) -> u32 {
        self.kind.base() + 1000 * self.dimensions.thousands()
    }

    /// The type of an ISO WKB code, `None` for any other number.
    pub fn from_code(code: u32) -> Option<GeometryType> {
        Some(GeometryType {
            kind: GeometryKind::from_base(code % 1000)?,
            dimensions: Dimensions::from_thousands(code / 1000)?,
        })
    }
}

/// Where a run of coordinates belongs: edges join consecutive coordinates of a
/// LineString or a Polygon ring, and nothing joins the coordinates of points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sequence {
    /// One point (of a Point or a MultiPoint).
    Point,
    /// The vertices of a LineString.
    LineString,
    /// The vertices of a Polygon ring (closed: the first vertex is repeated last).
    Ring,
}

/// One coordinate; `z` / `m` are NaN when the geometry has no such dimension.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Coord {
    /// X (easting, longitude).
    pub x: f64,
    /// Y (northing, latitude).
    pub y: f64,
    /// Z (elevation), NaN when absent.
    pub z: f64,
    /// M (measure), NaN when absent.
    pub m: f64,
}

/// Receives what a WKB value holds, in order.
pub trait WkbVisitor {
    /// A geometry starts; `depth` is 0 for the value itself, 1 for its parts, ...
    fn geometry(&mut self, geometry: GeometryType, depth: usize) {
        let _ = (geometry, depth);
    }

    /// A run of `len` coordinates starts (they follow through [`WkbVisitor::coord`]).
    fn begin(&mut self, sequence: Sequence, len: usize) {
        let _ = (sequence, len);
    }

    /// The next coordinate of the current run.
    fn coord(&mut self, coord: Coord);

    /// The current run ended.
    fn end(&mut self) {}
}

/// Why a value is not a WKB geometry, and where (byte offset in the value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WkbError {
    offset: usize,
    message: String,
}

impl WkbError {
    fn new(offset: usize, message: impl Into<String>) -> Self {
        WkbError {
            offset,
            message: message.into(),
        }
    }

    /// Byte offset in the value where the problem was found.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// What was wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for WkbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid WKB at byte {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for WkbError {}

/// Walks one WKB value, calling `visitor` for every geometry, run and coordinate;
/// returns the value's top-level geometry type.
///
/// ```
/// use herringbone_codec::geo::wkb::{Coord, WkbVisitor, scan};
/// struct Xs(Vec<f64>);
/// impl WkbVisitor for Xs {
///     fn coord(&mut self, c: Coord) { self.0.push(c.x) }
/// }
/// // POINT (1 2), little endian.
/// let mut wkb = vec![1u8, 1, 0, 0, 0];
/// wkb.extend_from_slice(&1.0f64.to_le_bytes());
/// wkb.extend_from_slice(&2.0f64.to_le_bytes());
/// let mut xs = Xs(Vec::new());
/// assert_eq!(scan(&wkb, &mut xs).unwrap().code(), 1);
/// assert_eq!(xs.0, [1.0]);
/// ```
pub fn scan<V: WkbVisitor + ?Sized>(
    value: &[u8],
    visitor: &mut V,
) -> Result<GeometryType, WkbError> {
    let mut scanner = Scanner {
        bytes: value,
        pos: 0,
    };
    let geometry = scanner.geometry(visitor, 0, None)?;
    if scanner.pos != value.len() {
        return Err(WkbError::new(
            scanner.pos,
            format!(
                "{} bytes after the end of the geometry",
                value.len() - scanner.pos
            ),
        ));
    }
    Ok(geometry)
}

struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
}

/// What a parent allows a nested geometry to be.
#[derive(Clone, Copy)]
struct Expect {
    kind: Option<GeometryKind>,
    dimensions: Dimensions,
}

impl Scanner<'_> {
    fn take<const N: usize>(&mut self, what: &str) -> Result<[u8; N], WkbError> {
        match self.bytes.get(self.pos..self.pos + N) {
            Some(b) => {
                self.pos += N;
                // The slice has length N.
                Ok(b.try_into().unwrap_or([0; N]))
            }
            None => Err(WkbError::new(
                self.pos,
                format!(
                    "{what} needs {N} bytes, {} left",
                    self.bytes.len() - self.pos
                ),
            )),
        }
    }

    fn u32(&mut self, little: bool, what: &str) -> Result<u32, WkbError> {
        let b = self.take::<4>(what)?;
        Ok(if little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    }

    /// A count of elements of at least `min_size` bytes each, checked against the
    /// bytes left (a hostile count cannot make the loop run long on a short value).
    fn count(&mut self, little: bool, min_size: usize, what: &str) -> Result<usize, WkbError> {
        let at = self.pos;
        let n = self.u32(little, what)? as usize;
        let left = self.bytes.len() - self.pos;
        if n.checked_mul(min_size).is_none_or(|need| need > left) {
            return Err(WkbError::new(
                at,
                format!("{what} {n} needs at least {min_size} bytes each, {left} bytes left"),
            ));
        }
        Ok(n)
    }

    fn geometry<V: WkbVisitor + ?Sized>(
        &mut self,
        visitor: &mut V,
        depth: usize,
        expect: Option<Expect>,
    ) -> Result<GeometryType, WkbError> {
        if depth > MAX_DEPTH {
            return Err(WkbError::new(
                self.pos,
                format!("geometries nested deeper than {MAX_DEPTH}"),
            ));
        }
        let start = self.pos;
        let little = match self.take::<1>("byte order")?[0] {
            0 => false,
            1 => true,
            b => {
                return Err(WkbError::new(
                    start,
                    format!("byte order {b} is neither 0 (big endian) nor 1 (little endian)"),
                ));
            }
        };
        let code = self.u32(little, "geometry type")?;
        let Some(geometry) = GeometryType::from_code(code) else {
            let why = if code & 0xE000_0000 != 0 {
                "an EWKB type (Z/M/SRID flag bits); Parquet holds ISO WKB"
            } else {
                "not an ISO WKB Point..GeometryCollection code"
            };
            return Err(WkbError::new(
                start + 1,
                format!("geometry type {code:#x} ({code}) is {why}"),
            ));
        };
        if let Some(expect) = expect {
            if expect.kind.is_some_and(|k| k != geometry.kind) {
                return Err(WkbError::new(
                    start + 1,
                    format!(
                        "a {:?} inside a multi-geometry of {:?}s",
                        geometry.kind, expect.kind
                    ),
                ));
            }
            if expect.dimensions != geometry.dimensions {
                return Err(WkbError::new(
                    start + 1,
                    format!(
                        "a {:?} part inside a {:?} geometry",
                        geometry.dimensions, expect.dimensions
                    ),
                ));
            }
        }
        visitor.geometry(geometry, depth);
        let dims = geometry.dimensions;
        let point_size = 8 * dims.values_per_point();
        match geometry.kind {
            GeometryKind::Point => self.coords(visitor, little, dims, 1, Sequence::Point)?,
            GeometryKind::LineString => {
                let n = self.count(little, point_size, "point count")?;
                self.coords(visitor, little, dims, n, Sequence::LineString)?;
            }
            GeometryKind::Polygon => {
                let rings = self.count(little, 4, "ring count")?;
                for _ in 0..rings {
                    let n = self.count(little, point_size, "point count")?;
                    self.coords(visitor, little, dims, n, Sequence::Ring)?;
                }
            }
            GeometryKind::MultiPoint
            | GeometryKind::MultiLineString
            | GeometryKind::MultiPolygon
            | GeometryKind::GeometryCollection => {
                let part = match geometry.kind {
                    GeometryKind::MultiPoint => Some(GeometryKind::Point),
                    GeometryKind::MultiLineString => Some(GeometryKind::LineString),
                    GeometryKind::MultiPolygon => Some(GeometryKind::Polygon),
                    _ => None,
                };
                // Smallest part: byte order, type and a count (or a Point's XY).
                let parts = self.count(little, 9, "part count")?;
                let expect = Expect {
                    kind: part,
                    dimensions: dims,
                };
                for _ in 0..parts {
                    self.geometry(visitor, depth + 1, Some(expect))?;
                }
            }
        }
        Ok(geometry)
    }

    fn coords<V: WkbVisitor + ?Sized>(
        &mut self,
        visitor: &mut V,
        little: bool,
        dims: Dimensions,
        n: usize,
        sequence: Sequence,
    ) -> Result<(), WkbError> {
        let size = 8 * dims.values_per_point();
        let Some(bytes) = n
            .checked_mul(size)
            .and_then(|len| self.bytes.get(self.pos..self.pos.checked_add(len)?))
        else {
            return Err(WkbError::new(
                self.pos,
                format!(
                    "{n} coordinates of {size} bytes, {} bytes left",
                    self.bytes.len() - self.pos
                ),
            ));
        };
        self.pos += bytes.len();
        visitor.begin(sequence, n);
        let read = |b: &[u8], i: usize| -> f64 {
            let mut word = [0u8; 8];
            word.copy_from_slice(&b[8 * i..8 * i + 8]);
            if little {
                f64::from_le_bytes(word)
            } else {
                f64::from_be_bytes(word)
            }
        };
        for point in bytes.chunks_exact(size) {
            let (x, y) = (read(point, 0), read(point, 1));
            let (z, m) = match dims {
                Dimensions::Xy => (f64::NAN, f64::NAN),
                Dimensions::Xyz => (read(point, 2), f64::NAN),
                Dimensions::Xym => (f64::NAN, read(point, 2)),
                Dimensions::Xyzm => (read(point, 2), read(point, 3)),
            };
            visitor.coord(Coord { x, y, z, m });
        }
        visitor.end();
        Ok(())
    }
}
