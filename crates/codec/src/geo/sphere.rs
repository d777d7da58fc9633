//! Bounds of GEOGRAPHY values with spherical edges: longitudes as an arc of the circle
//! (which may wrap the antimeridian), latitudes widened where a great-circle edge bulges
//! toward a pole, and rings that go around a pole covering that pole.
//!
//! Longitudes are combined the way S2's `S1Interval` does: adding an arc keeps the
//! smaller of the two arcs that cover both, so the result is a valid cover whatever the
//! order (though, as with any streaming union of arcs, not always the smallest one).

/// An arc of longitudes in degrees, `lo` to `hi` eastward; `lo > hi` wraps the
/// antimeridian.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum LonArc {
    /// No longitude yet.
    Empty,
    /// Every longitude.
    Full,
    /// From `lo` east to `hi`.
    Arc { lo: f64, hi: f64 },
}

/// Eastward distance from `from` to `to`, in `[0, 360)`.
fn east(from: f64, to: f64) -> f64 {
    (to - from).rem_euclid(360.0)
}

impl LonArc {
    /// The arc an edge from `a` to `b` sweeps (the shorter way; half a turn is taken
    /// eastward from `a`, which covers both endpoints).
    pub fn edge(a: f64, b: f64) -> LonArc {
        if east(a, b) <= 180.0 {
            LonArc::Arc { lo: a, hi: b }
        } else {
            LonArc::Arc { lo: b, hi: a }
        }
    }

    /// The smallest arc containing this one and `other`, choosing the shorter way
    /// around when they are apart.
    pub fn union(self, other: LonArc) -> LonArc {
        let (a_lo, a_hi, b_lo, b_hi) = match (self, other) {
            (LonArc::Full, _) | (_, LonArc::Full) => return LonArc::Full,
            (LonArc::Empty, x) | (x, LonArc::Empty) => return x,
            (LonArc::Arc { lo: al, hi: ah }, LonArc::Arc { lo: bl, hi: bh }) => (al, ah, bl, bh),
        };
        // Work eastward from `a_lo`: A = [0, la], B = [b, b + lb].
        let la = east(a_lo, a_hi);
        let b = east(a_lo, b_lo);
        let lb = east(b_lo, b_hi);
        let b_end = b + lb;
        if b <= la {
            // B starts inside A.
            if b_end >= 360.0 {
                return LonArc::Full;
            }
            return if b_end > la {
                LonArc::Arc { lo: a_lo, hi: b_hi }
            } else {
                LonArc::Arc { lo: a_lo, hi: a_hi }
            };
        }
        if b_end >= 360.0 {
            // B starts after A ends and wraps past A's start.
            if b_end - 360.0 >= la {
                return LonArc::Arc { lo: b_lo, hi: b_hi };
            }
            return LonArc::Arc { lo: b_lo, hi: a_hi };
        }
        // Apart: close the smaller gap.
        let after_a = b - la;
        let after_b = 360.0 - b_end;
        if after_a <= after_b {
            LonArc::Arc { lo: a_lo, hi: b_hi }
        } else {
            LonArc::Arc { lo: b_lo, hi: a_hi }
        }
    }

    /// Whether `x` lies on the arc.
    #[cfg(test)]
    pub fn contains(self, x: f64) -> bool {
        match self {
            LonArc::Empty => false,
            LonArc::Full => true,
            LonArc::Arc { lo, hi } => east(lo, x) <= east(lo, hi),
        }
    }
}

/// A unit vector for a longitude / latitude in degrees.
fn unit(lon: f64, lat: f64) -> [f64; 3] {
    let (lon, lat) = (lon.to_radians(), lat.to_radians());
    [lat.cos() * lon.cos(), lat.cos() * lon.sin(), lat.sin()]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// What an edge adds beyond its endpoints.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum EdgeExtent {
    /// Latitudes between the endpoints' (possibly widened to `lat_min..=lat_max`).
    Lat { lat_min: f64, lat_max: f64 },
    /// Antipodal endpoints: the edge could be any great half-circle between them.
    Anywhere,
}

/// The latitude range of the great-circle edge from `(lon_a, lat_a)` to
/// `(lon_b, lat_b)` (degrees), including where it bulges past its endpoints toward a
/// pole.
pub(crate) fn edge_latitudes(lon_a: f64, lat_a: f64, lon_b: f64, lat_b: f64) -> EdgeExtent {
    let (a, b) = (unit(lon_a, lat_a), unit(lon_b, lat_b));
    let (mut lat_min, mut lat_max) = (lat_a.min(lat_b), lat_a.max(lat_b));
    let n = cross(a, b);
    let norm = dot(n, n).sqrt();
    if norm < 1e-15 {
        // Same point, or antipodal.
        return if dot(a, b) < 0.0 {
            EdgeExtent::Anywhere
        } else {
            EdgeExtent::Lat { lat_min, lat_max }
        };
    }
    let n = [n[0] / norm, n[1] / norm, n[2] / norm];
    // The northernmost point of the great circle: the pole projected onto its plane.
    let v = [-n[2] * n[0], -n[2] * n[1], 1.0 - n[2] * n[2]];
    let len = dot(v, v).sqrt();
    if len < 1e-15 {
        // The equator: no bulge.
        return EdgeExtent::Lat { lat_min, lat_max };
    }
    let top = (len.min(1.0)).asin().to_degrees();
    let n_ab = cross(a, b);
    let on_arc = |p: [f64; 3]| dot(cross(a, p), n_ab) >= 0.0 && dot(cross(p, b), n_ab) >= 0.0;
    if on_arc(v) {
        lat_max = lat_max.max(top);
    }
    if on_arc([-v[0], -v[1], -v[2]]) {
        lat_min = lat_min.min(-top);
    }
    EdgeExtent::Lat { lat_min, lat_max }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_arcs_contain_the_antimeridian() {
        let arc = LonArc::edge(170.0, -175.0);
        assert!(arc.contains(180.0) && arc.contains(-176.0) && arc.contains(170.0));
        assert!(!arc.contains(0.0) && !arc.contains(-174.0) && !arc.contains(169.0));
        assert!(LonArc::Full.contains(0.0) && !LonArc::Empty.contains(0.0));
    }

    #[test]
    fn edges_take_the_short_way() {
        assert_eq!(
            LonArc::edge(170.0, -170.0),
            LonArc::Arc {
                lo: 170.0,
                hi: -170.0
            }
        );
        assert_eq!(
            LonArc::edge(-170.0, 170.0),
            LonArc::Arc {
                lo: 170.0,
                hi: -170.0
            }
        );
        assert_eq!(
            LonArc::edge(-10.0, 10.0),
            LonArc::Arc {
                lo: -10.0,
                hi: 10.0
            }
        );
    }

    #[test]
    fn unions_close_the_smaller_gap() {
        let a = LonArc::Arc {
            lo: 170.0,
            hi: 175.0,
        };
        let b = LonArc::Arc {
            lo: -178.0,
            hi: -175.0,
        };
        assert_eq!(
            a.union(b),
            LonArc::Arc {
                lo: 170.0,
                hi: -175.0
            }
        );
        assert_eq!(
            b.union(a),
            LonArc::Arc {
                lo: 170.0,
                hi: -175.0
            }
        );
        let c = LonArc::Arc { lo: -10.0, hi: 0.0 };
        let d = LonArc::Arc { lo: 20.0, hi: 30.0 };
        assert_eq!(
            c.union(d),
            LonArc::Arc {
                lo: -10.0,
                hi: 30.0
            }
        );
        assert_eq!(
            d.union(c),
            LonArc::Arc {
                lo: -10.0,
                hi: 30.0
            }
        );
        // Overlapping, and one containing the other.
        assert_eq!(
            c.union(LonArc::Arc { lo: -5.0, hi: 5.0 }),
            LonArc::Arc { lo: -10.0, hi: 5.0 }
        );
        assert_eq!(c.union(LonArc::Arc { lo: -8.0, hi: -2.0 }), c);
        // Two arcs that together go all the way round.
        assert_eq!(
            LonArc::Arc { lo: 0.0, hi: 190.0 }.union(LonArc::Arc {
                lo: 180.0,
                hi: 10.0
            }),
            LonArc::Full
        );
    }

    #[test]
    fn edges_bulge_toward_the_pole() {
        // Along the 60th parallel's endpoints 180 degrees of longitude apart... the
        // great circle between (0, 60) and (90, 60) peaks above 60.
        let EdgeExtent::Lat { lat_min, lat_max } = edge_latitudes(0.0, 60.0, 90.0, 60.0) else {
            panic!("not antipodal")
        };
        assert_eq!(lat_min, 60.0);
        // tan(peak) = tan(60) / cos(45).
        let expected = (60f64.to_radians().tan() / 45f64.to_radians().cos())
            .atan()
            .to_degrees();
        assert!((lat_max - expected).abs() < 1e-9, "{lat_max} vs {expected}");
        // Over the pole.
        let EdgeExtent::Lat { lat_max, .. } = edge_latitudes(0.0, 80.0, 180.0, 80.0) else {
            panic!("not antipodal")
        };
        assert!((lat_max - 90.0).abs() < 1e-9);
        // Along a meridian, no bulge.
        assert_eq!(
            edge_latitudes(10.0, -20.0, 10.0, 30.0),
            EdgeExtent::Lat {
                lat_min: -20.0,
                lat_max: 30.0
            }
        );
        assert_eq!(edge_latitudes(0.0, 0.0, 180.0, 0.0), EdgeExtent::Anywhere);
    }
}
