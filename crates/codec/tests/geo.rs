//! WKB scanning and geospatial statistics: hand-built values, property tests over random
//! geometries (planar boxes contain every coordinate and are tight; spherical boxes
//! contain every vertex and every point along every edge), antimeridian and pole cases,
//! and random or damaged bytes that must give an error, never a panic.

use herringbone_codec::geo::wkb::{Coord, Dimensions, WkbVisitor, scan};
use herringbone_codec::geo::{Edges, GeoStatisticsAccumulator, QueryBox, box_intersects};
use herringbone_format::metadata::BoundingBox;

/// One visited coordinate (x, y, z, m) and the dimensions it carries.
type Coordinate = ([f64; 4], Dimensions);
use proptest::prelude::*;

/// A geometry to encode, for tests.
#[derive(Debug, Clone)]
enum Geom {
    Point([f64; 4]),
    Line(Vec<[f64; 4]>),
    Polygon(Vec<Vec<[f64; 4]>>),
    Multi(u32, Vec<Geom>),
}

fn dims_code(d: Dimensions) -> u32 {
    match d {
        Dimensions::Xy => 0,
        Dimensions::Xyz => 1000,
        Dimensions::Xym => 2000,
        Dimensions::Xyzm => 3000,
    }
}

struct Enc {
    out: Vec<u8>,
    little: bool,
    dims: Dimensions,
}

impl Enc {
    fn u32(&mut self, v: u32) {
        let b = if self.little {
            v.to_le_bytes()
        } else {
            v.to_be_bytes()
        };
        self.out.extend_from_slice(&b);
    }
    fn f64(&mut self, v: f64) {
        let b = if self.little {
            v.to_le_bytes()
        } else {
            v.to_be_bytes()
        };
        self.out.extend_from_slice(&b);
    }
    fn coord(&mut self, c: [f64; 4]) {
        self.f64(c[0]);
        self.f64(c[1]);
        match self.dims {
            Dimensions::Xy => {}
            Dimensions::Xyz => self.f64(c[2]),
            Dimensions::Xym => self.f64(c[3]),
            Dimensions::Xyzm => {
                self.f64(c[2]);
                self.f64(c[3]);
            }
        }
    }
    fn geom(&mut self, g: &Geom) {
        self.out.push(u8::from(self.little));
        let dc = dims_code(self.dims);
        match g {
            Geom::Point(c) => {
                self.u32(1 + dc);
                self.coord(*c);
            }
            Geom::Line(cs) => {
                self.u32(2 + dc);
                self.u32(cs.len() as u32);
                cs.iter().for_each(|c| self.coord(*c));
            }
            Geom::Polygon(rings) => {
                self.u32(3 + dc);
                self.u32(rings.len() as u32);
                for r in rings {
                    self.u32(r.len() as u32);
                    r.iter().for_each(|c| self.coord(*c));
                }
            }
            Geom::Multi(base, parts) => {
                self.u32(base + dc);
                self.u32(parts.len() as u32);
                parts.iter().for_each(|p| self.geom(p));
            }
        }
    }
}

fn encode(g: &Geom, dims: Dimensions, little: bool) -> Vec<u8> {
    let mut e = Enc {
        out: Vec::new(),
        little,
        dims,
    };
    e.geom(g);
    e.out
}

fn base(g: &Geom) -> u32 {
    match g {
        Geom::Point(_) => 1,
        Geom::Line(_) => 2,
        Geom::Polygon(_) => 3,
        Geom::Multi(b, _) => *b,
    }
}

fn coords(g: &Geom, out: &mut Vec<[f64; 4]>) {
    match g {
        Geom::Point(c) => out.push(*c),
        Geom::Line(cs) => out.extend(cs),
        Geom::Polygon(rs) => rs.iter().for_each(|r| out.extend(r)),
        Geom::Multi(_, ps) => ps.iter().for_each(|p| coords(p, out)),
    }
}

fn point(x: f64, y: f64) -> Vec<u8> {
    encode(&Geom::Point([x, y, 0.0, 0.0]), Dimensions::Xy, true)
}

fn stats(edges: Edges, values: &[Vec<u8>]) -> Option<(Option<BoundingBox>, Vec<i32>)> {
    let mut acc = GeoStatisticsAccumulator::new(edges);
    values.iter().for_each(|v| acc.add(v));
    acc.finish()
        .map(|s| (s.bbox, s.geospatial_types.unwrap_or_default()))
}

// ------------------------------------------------------------------------------------
// Strategies

fn coord(lo: f64, hi: f64) -> impl Strategy<Value = [f64; 4]> {
    (lo..hi, lo..hi, -1e3..1e3f64, -1e3..1e3f64).prop_map(|(x, y, z, m)| [x, y, z, m])
}

fn leaf(lo: f64, hi: f64) -> impl Strategy<Value = Geom> {
    prop_oneof![
        coord(lo, hi).prop_map(Geom::Point),
        prop::collection::vec(coord(lo, hi), 0..6).prop_map(Geom::Line),
        prop::collection::vec(prop::collection::vec(coord(lo, hi), 0..6), 0..3)
            .prop_map(Geom::Polygon),
    ]
}

fn geom(lo: f64, hi: f64) -> impl Strategy<Value = Geom> {
    leaf(lo, hi).prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(coord(-1e6, 1e6).prop_map(Geom::Point), 0..4)
                .prop_map(|p| Geom::Multi(4, p)),
            prop::collection::vec(inner.clone(), 0..4).prop_map(|p| Geom::Multi(7, p)),
        ]
    })
}

fn dims() -> impl Strategy<Value = Dimensions> {
    prop_oneof![
        Just(Dimensions::Xy),
        Just(Dimensions::Xyz),
        Just(Dimensions::Xym),
        Just(Dimensions::Xyzm),
    ]
}

proptest! {
    #[test]
    fn planar_box_is_tight(
        values in prop::collection::vec((geom(-1e6, 1e6), dims(), any::<bool>()), 1..8)
    ) {
        let mut acc = GeoStatisticsAccumulator::new(Edges::Planar);
        let mut all = Vec::new();
        let mut codes = Vec::new();
        for (g, d, little) in &values {
            let wkb = encode(g, *d, *little);
            acc.add(&wkb);
            let mut cs = Vec::new();
            coords(g, &mut cs);
            all.extend(cs.into_iter().map(|c| (c, *d)));
            codes.push((base(g) + dims_code(*d)) as i32);
        }
        prop_assert!(acc.error().is_none(), "{:?}", acc.error());
        let s = acc.finish().unwrap();
        codes.sort_unstable();
        codes.dedup();
        prop_assert_eq!(s.geospatial_types.as_deref(), Some(codes.as_slice()));
        let fold = |f: &dyn Fn(&Coordinate) -> Option<f64>| {
            all.iter().filter_map(f).fold(None, |acc: Option<(f64, f64)>, v| {
                Some(acc.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))))
            })
        };
        let x = fold(&|c| Some(c.0[0]));
        let y = fold(&|c| Some(c.0[1]));
        let z = fold(&|c| c.1.has_z().then_some(c.0[2]));
        let m = fold(&|c| c.1.has_m().then_some(c.0[3]));
        match (x, y) {
            (Some(x), Some(y)) => {
                let b = s.bbox.unwrap();
                prop_assert_eq!((b.xmin, b.xmax, b.ymin, b.ymax), (x.0, x.1, y.0, y.1));
                prop_assert_eq!((b.zmin, b.zmax), (z.map(|z| z.0), z.map(|z| z.1)));
                prop_assert_eq!((b.mmin, b.mmax), (m.map(|m| m.0), m.map(|m| m.1)));
            }
            _ => prop_assert!(s.bbox.is_none()),
        }
    }

    #[test]
    fn both_byte_orders_scan_alike(g in geom(-1e3, 1e3), d in dims()) {
        struct All(Vec<Coord>);
        impl WkbVisitor for All {
            fn coord(&mut self, c: Coord) {
                self.0.push(c)
            }
        }
        let (mut le, mut be) = (All(Vec::new()), All(Vec::new()));
        let t1 = scan(&encode(&g, d, true), &mut le).unwrap();
        let t2 = scan(&encode(&g, d, false), &mut be).unwrap();
        prop_assert_eq!(t1, t2);
        prop_assert_eq!(format!("{:?}", le.0), format!("{:?}", be.0));
        let mut expected = Vec::new();
        coords(&g, &mut expected);
        prop_assert_eq!(le.0.len(), expected.len());
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let mut acc = GeoStatisticsAccumulator::new(Edges::Spherical);
        acc.add(&bytes);
        let _ = acc.finish();
        let mut acc = GeoStatisticsAccumulator::new(Edges::Planar);
        acc.add(&bytes);
        let _ = acc.finish();
    }

    #[test]
    fn damaged_wkb_is_an_error_or_scans(
        g in geom(-1e3, 1e3),
        d in dims(),
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let wkb = encode(&g, d, true);
        // Truncated anywhere: always an error.
        let n = cut.index(wkb.len());
        let mut acc = GeoStatisticsAccumulator::new(Edges::Planar);
        acc.add(&wkb[..n]);
        prop_assert!(acc.error().is_some());
        prop_assert!(acc.finish().is_none());
        // One byte changed: an error, or a valid value that still scans.
        let mut damaged = wkb.clone();
        damaged[flip.index(wkb.len())] = byte;
        let mut acc = GeoStatisticsAccumulator::new(Edges::Spherical);
        acc.add(&damaged);
        let _ = acc.finish();
    }

    #[test]
    fn spherical_box_covers_edges(
        lines in prop::collection::vec(
            prop::collection::vec((-180.0..180.0f64, -89.0..89.0f64), 1..6), 1..4)
    ) {
        let mut acc = GeoStatisticsAccumulator::new(Edges::Spherical);
        for line in &lines {
            let g = Geom::Line(line.iter().map(|&(x, y)| [x, y, 0.0, 0.0]).collect());
            acc.add(&encode(&g, Dimensions::Xy, true));
        }
        let Some(s) = acc.finish() else { return Ok(()) };
        let b = s.bbox.unwrap();
        for line in &lines {
            for w in line.windows(2) {
                for i in 0..=20 {
                    let Some((x, y)) = slerp(w[0], w[1], f64::from(i) / 20.0) else { continue };
                    prop_assert!(covers(&b, x, y, 1e-9), "{b:?} misses ({x}, {y}) on {w:?}");
                }
            }
            for &(x, y) in line {
                prop_assert!(covers(&b, x, y, 0.0), "{b:?} misses vertex ({x}, {y})");
            }
        }
    }
}

/// A point `t` of the way along the great circle from `a` to `b` (lon/lat degrees);
/// `None` for (nearly) antipodal endpoints.
fn slerp(a: (f64, f64), b: (f64, f64), t: f64) -> Option<(f64, f64)> {
    let v = |(lon, lat): (f64, f64)| {
        let (lon, lat) = (f64::to_radians(lon), f64::to_radians(lat));
        [lat.cos() * lon.cos(), lat.cos() * lon.sin(), lat.sin()]
    };
    let (p, q) = (v(a), v(b));
    let d = (p[0] * q[0] + p[1] * q[1] + p[2] * q[2]).clamp(-1.0, 1.0);
    let omega = d.acos();
    if omega.sin().abs() < 1e-6 {
        return (omega < 1.0).then_some(a);
    }
    let (s0, s1) = (
        ((1.0 - t) * omega).sin() / omega.sin(),
        (t * omega).sin() / omega.sin(),
    );
    let r = [
        s0 * p[0] + s1 * q[0],
        s0 * p[1] + s1 * q[1],
        s0 * p[2] + s1 * q[2],
    ];
    Some((
        r[1].atan2(r[0]).to_degrees(),
        r[2].clamp(-1.0, 1.0).asin().to_degrees(),
    ))
}

fn covers(b: &BoundingBox, x: f64, y: f64, tol: f64) -> bool {
    let in_x = if b.xmin <= b.xmax {
        x >= b.xmin - tol && x <= b.xmax + tol
    } else {
        x >= b.xmin - tol || x <= b.xmax + tol
    };
    let in_x = in_x || y.abs() > 90.0 - 1e-7; // at a pole every longitude is the same point
    in_x && y >= b.ymin - tol && y <= b.ymax + tol
}

// ------------------------------------------------------------------------------------
// Hand-built cases

#[test]
fn points_across_the_antimeridian_wrap() {
    let (bbox, types) = stats(
        Edges::Spherical,
        &[point(170.0, 10.0), point(-170.0, 20.0), point(179.0, 15.0)],
    )
    .unwrap();
    let b = bbox.unwrap();
    assert_eq!(
        (b.xmin, b.xmax, b.ymin, b.ymax),
        (170.0, -170.0, 10.0, 20.0)
    );
    assert_eq!(types, [1]);
    // The same points in a GEOMETRY column: a planar box.
    let (bbox, _) = stats(
        Edges::Planar,
        &[point(170.0, 10.0), point(-170.0, 20.0), point(179.0, 15.0)],
    )
    .unwrap();
    let b = bbox.unwrap();
    assert_eq!((b.xmin, b.xmax), (-170.0, 179.0));
}

#[test]
fn line_across_the_antimeridian_wraps() {
    let line = Geom::Line(vec![[175.0, 0.0, 0.0, 0.0], [-175.0, 0.0, 0.0, 0.0]]);
    let (bbox, types) = stats(Edges::Spherical, &[encode(&line, Dimensions::Xy, true)]).unwrap();
    let b = bbox.unwrap();
    assert_eq!((b.xmin, b.xmax, b.ymin, b.ymax), (175.0, -175.0, 0.0, 0.0));
    assert_eq!(types, [2]);
    let q = |xmin, xmax| QueryBox {
        xmin,
        ymin: -1.0,
        xmax,
        ymax: 1.0,
    };
    assert!(box_intersects(&b, &q(178.0, 179.0)));
    assert!(!box_intersects(&b, &q(-170.0, 170.0)));
}

#[test]
fn ring_around_a_pole_covers_it() {
    // A ring at latitude 80 around the north pole.
    let ring: Vec<[f64; 4]> = [0.0, 90.0, 180.0, -90.0, 0.0]
        .iter()
        .map(|&lon| [lon, 80.0, 0.0, 0.0])
        .collect();
    let polygon = Geom::Polygon(vec![ring.clone()]);
    let (bbox, types) =
        stats(Edges::Spherical, &[encode(&polygon, Dimensions::Xy, false)]).unwrap();
    let b = bbox.unwrap();
    assert_eq!(
        (b.xmin, b.xmax, b.ymin, b.ymax),
        (-180.0, 180.0, 80.0, 90.0)
    );
    assert_eq!(types, [3]);
    // Mirrored in the south.
    let south: Vec<[f64; 4]> = ring.iter().map(|c| [c[0], -c[1], 0.0, 0.0]).collect();
    let (bbox, _) = stats(
        Edges::Spherical,
        &[encode(&Geom::Polygon(vec![south]), Dimensions::Xy, true)],
    )
    .unwrap();
    let b = bbox.unwrap();
    assert_eq!((b.ymin, b.ymax), (-90.0, -80.0));
    // The same ring as a LineString bounds no area: it does not reach the pole, but its
    // edges bulge north of 80.
    let (bbox, _) = stats(
        Edges::Spherical,
        &[encode(&Geom::Line(ring), Dimensions::Xy, true)],
    )
    .unwrap();
    let b = bbox.unwrap();
    assert!(b.ymax > 80.0 && b.ymax < 90.0, "{b:?}");
}

#[test]
fn nan_and_empty_geometries() {
    // POINT EMPTY (NaN, NaN) has a type but no box.
    let (bbox, types) = stats(Edges::Planar, &[point(f64::NAN, f64::NAN)]).unwrap();
    assert!(bbox.is_none());
    assert_eq!(types, [1]);
    // POINT (1 NaN) gives X but no Y: no box.
    let (bbox, _) = stats(Edges::Planar, &[point(1.0, f64::NAN)]).unwrap();
    assert!(bbox.is_none());
    // NaN skipped among other values; empty LINESTRING adds its type only.
    let empty_line = encode(&Geom::Line(vec![]), Dimensions::Xyz, true);
    let (bbox, types) = stats(
        Edges::Planar,
        &[point(1.0, f64::NAN), point(f64::NAN, 2.0), empty_line],
    )
    .unwrap();
    let b = bbox.unwrap();
    assert_eq!((b.xmin, b.xmax, b.ymin, b.ymax), (1.0, 1.0, 2.0, 2.0));
    assert_eq!((b.zmin, b.zmax), (None, None), "no Z value was seen");
    assert_eq!(types, [1, 1002]);
}

#[test]
fn z_and_m_ranges() {
    let zm = encode(&Geom::Point([1.0, 2.0, 3.0, 4.0]), Dimensions::Xyzm, false);
    let m = encode(&Geom::Point([0.0, 0.0, 9.0, -4.0]), Dimensions::Xym, true);
    let (bbox, types) = stats(Edges::Planar, &[zm, m]).unwrap();
    let b = bbox.unwrap();
    assert_eq!(
        (b.zmin, b.zmax, b.mmin, b.mmax),
        (Some(3.0), Some(3.0), Some(-4.0), Some(4.0))
    );
    assert_eq!(types, [2001, 3001]);
}

#[test]
fn malformed_values_omit_statistics() {
    let mut ewkb = point(1.0, 2.0);
    ewkb[1..5].copy_from_slice(&0x8000_0001u32.to_le_bytes());
    let cases: [(&[u8], &str); 7] = [
        (&[], "byte order needs 1 bytes"),
        (&[2, 1, 0, 0, 0], "byte order 2"),
        (&ewkb, "EWKB"),
        (&[1, 17, 0, 0, 0], "not an ISO WKB"),
        (
            &[1, 2, 0, 0, 0, 255, 255, 255, 255],
            "point count 4294967295",
        ),
        (&[1, 7, 0, 0, 0, 0, 0, 0, 0, 0], "1 bytes after the end"),
        (
            &point(1.0, 2.0)[..20],
            "1 coordinates of 16 bytes, 15 bytes left",
        ),
    ];
    for (wkb, expected) in cases {
        let mut acc = GeoStatisticsAccumulator::new(Edges::Planar);
        acc.add(&point(0.0, 0.0));
        acc.add(wkb);
        acc.add(&point(5.0, 5.0));
        let error = acc.error().expect("an error").to_string();
        assert!(error.contains(expected), "{error:?} lacks {expected:?}");
        assert!(acc.finish().is_none());
    }
    // A MultiPoint holding a LineString, and a Z part in an XY collection.
    let bad_part = encode(
        &Geom::Multi(4, vec![Geom::Line(vec![])]),
        Dimensions::Xy,
        true,
    );
    assert!(stats(Edges::Planar, &[bad_part]).is_none());
    let mut mixed = encode(
        &Geom::Multi(7, vec![Geom::Point([0.0; 4])]),
        Dimensions::Xy,
        true,
    );
    mixed[10..14].copy_from_slice(&1001u32.to_le_bytes());
    assert!(stats(Edges::Planar, &[mixed]).is_none());
    // Nesting beyond the limit.
    let mut deep = Vec::new();
    for _ in 0..100 {
        deep.extend_from_slice(&[1, 7, 0, 0, 0, 1, 0, 0, 0]);
    }
    deep.extend_from_slice(&[1, 7, 0, 0, 0, 0, 0, 0, 0]);
    let mut acc = GeoStatisticsAccumulator::new(Edges::Planar);
    acc.add(&deep);
    assert!(acc.error().unwrap().to_string().contains("nested deeper"));
    // Geography coordinates outside the canonical range.
    assert!(stats(Edges::Spherical, &[point(190.0, 0.0)]).is_none());
    assert!(stats(Edges::Spherical, &[point(0.0, -91.0)]).is_none());
}

#[test]
fn ellipsoidal_geography_has_types_only() {
    let (bbox, types) = stats(Edges::Ellipsoidal, &[point(1.0, 2.0)]).unwrap();
    assert!(bbox.is_none());
    assert_eq!(types, [1]);
}

#[test]
fn merge_combines_chunks() {
    let mut a = GeoStatisticsAccumulator::new(Edges::Spherical);
    a.add(&point(170.0, 1.0));
    let mut b = GeoStatisticsAccumulator::new(Edges::Spherical);
    b.add(&point(-170.0, 2.0));
    a.merge(&b);
    let bb = a.finish().unwrap().bbox.unwrap();
    assert_eq!(
        (bb.xmin, bb.xmax, bb.ymin, bb.ymax),
        (170.0, -170.0, 1.0, 2.0)
    );
    a.reset();
    assert_eq!(a.finish().unwrap().geospatial_types, Some(vec![]));
}
