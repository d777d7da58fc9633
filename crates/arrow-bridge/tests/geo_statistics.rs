//! Geospatial statistics: the corpus's geospatial files read with the statistics pyarrow
//! 26 reads from them (`tests/data/geospatial_statistics.json`, made by
//! `scripts/geo_interop.py oracle`), the same statistics recomputed from their WKB values,
//! and GEOMETRY / GEOGRAPHY columns written by Herringbone with their bounding boxes and
//! type lists, CRS and edges kept.

use crate::common;

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int8Type;
use arrow_array::{
    Array, ArrayRef, BinaryArray, BinaryViewArray, DictionaryArray, Int8Array, RecordBatch,
};
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder;
use herringbone_arrow_bridge::write::{StatisticsLevel, WriterProperties};
use herringbone_codec::geo::{Edges, GeoStatisticsAccumulator};
use herringbone_format::metadata::{
    BoundingBox, EdgeInterpolationAlgorithm, GeospatialStatistics, LogicalType,
};
use serde_json::Value;

fn oracle() -> serde_json::Map<String, Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/geospatial_statistics.json"
    );
    match serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap() {
        Value::Object(map) => map,
        _ => panic!("{path}: not an object"),
    }
}

fn corpus_file(relative: &str) -> Bytes {
    let path = format!("data/{relative}");
    Bytes::from(herringbone_testkit::read_corpus_file(std::path::Path::new(
        &path,
    )))
}

/// A bound of pyarrow's `GeoStatistics.to_dict()`: a number or null.
/// (The oracle spells numbers as Python's `repr`, which Rust parses exactly.)
fn bound(v: &Value, key: &str) -> Option<f64> {
    v.get(key)
        .and_then(Value::as_str)
        .map(|s| s.parse().unwrap())
}

fn assert_matches_pyarrow(ours: Option<&GeospatialStatistics>, theirs: &Value, at: &str) {
    let ours = ours.unwrap_or_else(|| panic!("{at}: no geospatial statistics"));
    // pyarrow's null list: the file has none (or an empty one: types not known).
    let types: Vec<i64> = theirs["geospatial_types"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t.as_i64().unwrap())
        .collect();
    let our_types: Vec<i64> = ours
        .geospatial_types
        .iter()
        .flatten()
        .map(|&t| i64::from(t))
        .collect();
    assert_eq!(our_types, types, "{at}: types");
    match (&ours.bbox, bound(theirs, "xmin")) {
        (None, None) => {}
        (Some(b), Some(_)) => {
            let got = [
                Some(b.xmin),
                Some(b.xmax),
                Some(b.ymin),
                Some(b.ymax),
                b.zmin,
                b.zmax,
                b.mmin,
                b.mmax,
            ];
            let want = [
                "xmin", "xmax", "ymin", "ymax", "zmin", "zmax", "mmin", "mmax",
            ]
            .map(|k| bound(theirs, k));
            assert_eq!(got, want, "{at}: bounding box");
        }
        (b, x) => panic!("{at}: box {b:?}, pyarrow's xmin {x:?}"),
    }
}

#[test]
fn corpus_files_read_with_pyarrows_statistics() {
    let oracle = oracle();
    assert_eq!(oracle.len(), 10, "every data/geospatial file has an entry");
    let mut compared = 0;
    for (relative, expected) in &oracle {
        let file = corpus_file(relative);
        let (metadata, descriptor, _) = common::open(&file);
        let groups = expected["row_groups"].as_array().unwrap();
        assert_eq!(metadata.row_groups.len(), groups.len(), "{relative}");
        for (g, (rg, want)) in metadata.row_groups.iter().zip(groups).enumerate() {
            for (c, chunk) in rg.columns.iter().enumerate() {
                let path = descriptor.column(c).unwrap().path().dotted();
                let ours = chunk
                    .meta_data
                    .as_ref()
                    .and_then(|m| m.geospatial_statistics.as_deref());
                match want.get(&path) {
                    Some(theirs) => {
                        assert_matches_pyarrow(ours, theirs, &format!("{relative} rg {g} {path}"));
                        compared += 1;
                    }
                    None => assert!(ours.is_none(), "{relative} rg {g} {path}: {ours:?}"),
                }
            }
        }
    }
    // 4 single-chunk GEOMETRY files, geospatial-with-nan, 31 + 3 x 50 row groups.
    assert_eq!(compared, 5 + 31 + 150);
}

/// The statistics Herringbone's accumulator computes from the values of each row group.
fn recomputed(file: &Bytes, column: &str, edges: Edges) -> Vec<Option<GeospatialStatistics>> {
    let builder = ParquetRecordBatchReaderBuilder::try_new(file.clone()).unwrap();
    let groups = builder.metadata().row_groups.len();
    (0..groups)
        .map(|g| {
            let reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
                .unwrap()
                .with_row_groups(vec![g])
                .build()
                .unwrap();
            let mut acc = GeoStatisticsAccumulator::new(edges);
            for batch in reader {
                let batch = batch.unwrap();
                let values = batch.column_by_name(column).unwrap().as_binary::<i32>();
                values.iter().flatten().for_each(|v| acc.add(v));
            }
            acc.finish()
        })
        .collect()
}

fn chunk_statistics(file: &Bytes, leaf: usize) -> Vec<Option<GeospatialStatistics>> {
    let (metadata, _, _) = common::open(file);
    metadata
        .row_groups
        .iter()
        .map(|rg| {
            rg.columns[leaf]
                .meta_data
                .as_ref()
                .and_then(|m| m.geospatial_statistics.as_deref().cloned())
        })
        .collect()
}

#[test]
fn geometry_statistics_recomputed_from_the_values_equal_the_files() {
    for name in [
        "geospatial.parquet",
        "geospatial-with-nan.parquet",
        "crs-default.parquet",
        "crs-srid.parquet",
        "crs-projjson.parquet",
        "crs-arbitrary-value.parquet",
    ] {
        let file = corpus_file(&format!("geospatial/{name}"));
        let leaf = common::open(&file).1.num_columns() - 1;
        assert_eq!(
            recomputed(&file, "geometry", Edges::Planar),
            chunk_statistics(&file, leaf),
            "{name}"
        );
    }
}

/// The box `b` covers the box `inner` (both may wrap the antimeridian), within `tol`
/// degrees.
fn covers(b: &BoundingBox, inner: &BoundingBox, tol: f64) -> bool {
    let span = |lo: f64, hi: f64| if lo <= hi { hi - lo } else { 360.0 - (lo - hi) };
    let east = |from: f64, to: f64| (to - from).rem_euclid(360.0);
    let x_ok = span(b.xmin, b.xmax) >= 360.0 - tol
        || (east(b.xmin - tol, inner.xmin) <= span(b.xmin, b.xmax) + 2.0 * tol
            && east(b.xmin - tol, inner.xmin) + span(inner.xmin, inner.xmax)
                <= span(b.xmin, b.xmax) + 2.0 * tol);
    x_ok && b.ymin <= inner.ymin + tol && b.ymax >= inner.ymax - tol
}

#[test]
fn geography_boxes_recomputed_agree_with_the_files() {
    // The files were written by DataFusion (S2 bounds). Herringbone's spherical boxes
    // have the same type lists and, row group by row group, the same box to within a
    // hundredth of a degree (S2 pads its latitude bounds; both union longitude arcs the
    // same way).
    for name in [
        "geography-points.parquet",
        "geography-lines.parquet",
        "geography-polygons.parquet",
    ] {
        let file = corpus_file(&format!("geospatial/{name}"));
        let ours = recomputed(&file, "geometry", Edges::Spherical);
        let theirs = chunk_statistics(&file, 1);
        let mut differ = Vec::new();
        for (g, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            let (a, b) = (a.as_ref().unwrap(), b.as_ref().unwrap());
            assert_eq!(a.geospatial_types, b.geospatial_types, "{name} rg {g}");
            let (ab, bb) = (a.bbox.as_ref().unwrap(), b.bbox.as_ref().unwrap());
            if !(covers(ab, bb, 1e-2) && covers(bb, ab, 1e-2)) {
                differ.push(g);
            }
        }
        // Where they differ, one box covers the other, for a stated reason:
        // - polygons 28 holds a buffer crossing the antimeridian whose ring runs
        //   clockwise: S2 reads oriented rings and bounds the complement (the rest of
        //   the globe, north pole included); Herringbone bounds the smaller region the
        //   ring encloses, which is the 500 km buffer the file describes.
        let expected: &[usize] = match name {
            "geography-polygons.parquet" => &[28],
            _ => &[],
        };
        assert_eq!(differ, expected, "{name}");
        for &g in expected {
            let (a, b) = (ours[g].as_ref().unwrap(), theirs[g].as_ref().unwrap());
            let (ab, bb) = (a.bbox.as_ref().unwrap(), b.bbox.as_ref().unwrap());
            assert!(
                covers(ab, bb, 1e-9) || covers(bb, ab, 1e-9),
                "{name} rg {g}"
            );
        }
    }
}

fn wkb_point(x: f64, y: f64) -> Vec<u8> {
    let mut v = vec![1u8, 1, 0, 0, 0];
    v.extend_from_slice(&x.to_le_bytes());
    v.extend_from_slice(&y.to_le_bytes());
    v
}

fn wkb_line(points: &[(f64, f64)]) -> Vec<u8> {
    let mut v = vec![0u8, 0, 0, 0, 2];
    v.extend_from_slice(&(points.len() as u32).to_be_bytes());
    for (x, y) in points {
        v.extend_from_slice(&x.to_be_bytes());
        v.extend_from_slice(&y.to_be_bytes());
    }
    v
}

fn geo_field(name: &str, data_type: DataType, metadata: &str) -> Field {
    Field::new(name, data_type, true).with_metadata(
        [
            (
                "ARROW:extension:name".to_string(),
                "geoarrow.wkb".to_string(),
            ),
            ("ARROW:extension:metadata".to_string(), metadata.to_string()),
        ]
        .into(),
    )
}

fn bbox_of(stats: &Option<GeospatialStatistics>) -> (f64, f64, f64, f64) {
    let b = stats.as_ref().unwrap().bbox.as_ref().unwrap();
    (b.xmin, b.xmax, b.ymin, b.ymax)
}

#[test]
fn written_columns_carry_boxes_and_type_lists() {
    let values: Vec<Option<Vec<u8>>> = vec![
        Some(wkb_point(170.0, 10.0)),
        None,
        Some(wkb_line(&[(-175.0, -5.0), (-170.0, 20.0)])),
        Some(wkb_point(-1.0, 2.0)),
        Some(wkb_point(3.0, 4.0)),
        None,
    ];
    let binary = |vs: &[Option<Vec<u8>>]| -> ArrayRef {
        Arc::new(BinaryArray::from_iter(vs.iter().map(|v| v.as_deref())))
    };
    let view: ArrayRef = Arc::new(BinaryViewArray::from_iter(
        values.iter().map(|v| v.as_deref()),
    ));
    let schema = Arc::new(Schema::new(vec![
        geo_field("planar", DataType::Binary, r#"{"crs":"OGC:CRS84"}"#),
        geo_field("sphere", DataType::Binary, r#"{"edges":"spherical"}"#),
        geo_field("view", DataType::BinaryView, r#"{"crs":"EPSG:3857"}"#),
        geo_field("karney", DataType::Binary, r#"{"edges":"karney"}"#),
        geo_field(
            "keyed",
            DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Binary)),
            "{}",
        ),
    ]));
    // An Arrow dictionary of the same values, one value referenced twice.
    let keyed: ArrayRef = Arc::new(DictionaryArray::<Int8Type>::new(
        Int8Array::from(vec![Some(0), None, Some(1), Some(2), Some(3), None]),
        binary(&[
            Some(wkb_point(170.0, 10.0)),
            Some(wkb_line(&[(-175.0, -5.0), (-170.0, 20.0)])),
            Some(wkb_point(-1.0, 2.0)),
            Some(wkb_point(3.0, 4.0)),
        ]),
    ));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            binary(&values),
            binary(&values),
            view,
            binary(&values),
            keyed,
        ],
    )
    .unwrap();
    for dictionary in [true, false] {
        let props = WriterProperties::builder()
            .set_max_row_group_rows(3)
            .set_dictionary_enabled(dictionary)
            .build();
        let file = common::write(std::slice::from_ref(&batch), props);
        let planar = chunk_statistics(&file, 0);
        assert_eq!(bbox_of(&planar[0]), (-175.0, 170.0, -5.0, 20.0));
        assert_eq!(
            planar[0].as_ref().unwrap().geospatial_types,
            Some(vec![1, 2])
        );
        assert_eq!(bbox_of(&planar[1]), (-1.0, 3.0, 2.0, 4.0));
        assert_eq!(planar[1].as_ref().unwrap().geospatial_types, Some(vec![1]));
        assert_eq!(chunk_statistics(&file, 2), planar, "BinaryView like Binary");
        assert_eq!(
            chunk_statistics(&file, 4),
            planar,
            "a dictionary like Binary"
        );
        // Spherical: the first group wraps the antimeridian (170E to 170W).
        let sphere = chunk_statistics(&file, 1);
        let (xmin, xmax, ymin, ymax) = bbox_of(&sphere[0]);
        assert_eq!((xmin, xmax, ymin), (170.0, -170.0, -5.0));
        assert!((20.0..20.1).contains(&ymax), "{ymax}");
        assert_eq!(bbox_of(&sphere[1]), (-1.0, 3.0, 2.0, 4.0));
        // Ellipsoidal edges: the type list only.
        let karney = chunk_statistics(&file, 3);
        assert!(karney[0].as_ref().unwrap().bbox.is_none());
        assert_eq!(
            karney[0].as_ref().unwrap().geospatial_types,
            Some(vec![1, 2])
        );
    }
}

#[test]
fn invalid_wkb_omits_statistics_but_writes_the_values() {
    let point = wkb_point(1.0, 1.0);
    let values: Vec<&[u8]> = vec![&[1, 1, 0, 0], &point];
    let array: ArrayRef = Arc::new(BinaryArray::from_iter_values(values.iter().copied()));
    let schema = Arc::new(Schema::new(vec![geo_field("g", DataType::Binary, "{}")]));
    let batch = RecordBatch::try_new(schema, vec![array.clone()]).unwrap();
    let file = common::write(&[batch], WriterProperties::default());
    assert_eq!(chunk_statistics(&file, 0), vec![None]);
    let back = common::read_all(&file);
    assert_eq!(back.column(0).to_data(), array.to_data());
}

#[test]
fn statistics_off_writes_none() {
    let array: ArrayRef = Arc::new(BinaryArray::from_iter_values([wkb_point(1.0, 1.0)]));
    let schema = Arc::new(Schema::new(vec![geo_field("g", DataType::Binary, "{}")]));
    let batch = RecordBatch::try_new(schema, vec![array]).unwrap();
    let props = WriterProperties::builder()
        .set_statistics(StatisticsLevel::None)
        .build();
    let file = common::write(&[batch], props);
    assert_eq!(chunk_statistics(&file, 0), vec![None]);
}

#[test]
fn crs_and_edges_survive_a_read_write_round_trip() {
    for name in [
        "crs-default.parquet",
        "crs-srid.parquet",
        "crs-projjson.parquet",
        "crs-arbitrary-value.parquet",
        "crs-geography.parquet",
        "geography-lines.parquet",
    ] {
        let file = corpus_file(&format!("geospatial/{name}"));
        let (metadata, descriptor, _) = common::open(&file);
        let batch = common::read_all(&file);
        let props = WriterProperties::builder()
            .set_key_value_metadata(metadata.key_value_metadata.clone().unwrap_or_default())
            .build();
        let written = common::write(&[batch], props);
        let (back_meta, back, _) = common::open(&written);
        let leaf = descriptor.num_columns() - 1;
        let logical = |d: &herringbone_format::schema::SchemaDescriptor| {
            d.column(leaf).unwrap().logical_type().cloned()
        };
        assert!(
            matches!(
                logical(&descriptor),
                Some(LogicalType::Geometry { .. } | LogicalType::Geography { .. })
            ),
            "{name}"
        );
        // An absent GEOGRAPHY algorithm (SPHERICAL by default) is read as GeoArrow's
        // `"edges": "spherical"` and written back explicitly: the same type, not the
        // same bytes.
        let expected = match logical(&descriptor) {
            Some(LogicalType::Geography {
                crs,
                algorithm: None,
            }) => Some(LogicalType::Geography {
                crs,
                algorithm: Some(EdgeInterpolationAlgorithm::SPHERICAL),
            }),
            other => other,
        };
        assert_eq!(logical(&back), expected, "{name}: CRS and edges");
        // Statistics are recomputed on write: equal to the file's for GEOMETRY.
        if matches!(logical(&descriptor), Some(LogicalType::Geometry { .. })) {
            assert_eq!(
                chunk_statistics(&written, leaf),
                chunk_statistics(&file, leaf),
                "{name}"
            );
        }
        let _ = back_meta;
    }
}
