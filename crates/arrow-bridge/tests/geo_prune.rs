//! Spatial predicates: `bbox_intersects` and `geometry_type_in` parsed, evaluated per
//! row, and pruning row groups by geospatial statistics (wrap-around boxes included)
//! without ever dropping a row group that holds a matching row.

use crate::common;

use std::sync::Arc;

use arrow_array::{ArrayRef, BinaryArray, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use herringbone_arrow_bridge::predicate::{Predicate, QueryBox, SpatialFilter, col};
use herringbone_arrow_bridge::prune::Pruner;
use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder;
use herringbone_arrow_bridge::write::WriterProperties;

fn corpus_file(relative: &str) -> Bytes {
    let path = format!("data/{relative}");
    Bytes::from(herringbone_testkit::read_corpus_file(std::path::Path::new(
        &path,
    )))
}

/// Per row group: kept by pruning, and the number of rows the filter keeps.
fn prune_and_count(file: &Bytes, filter: &str) -> Vec<(bool, usize)> {
    let (metadata, descriptor, mapping) = common::open(file);
    let predicate = Predicate::parse(filter).unwrap();
    let bound = predicate.bind(mapping.schema()).unwrap();
    let pruner = Pruner::try_new(&bound, &metadata, &descriptor, &mapping).unwrap();
    let groups: Vec<usize> = (0..metadata.row_groups.len()).collect();
    let kept = pruner.row_groups(&metadata, &groups).unwrap();
    groups
        .iter()
        .map(|&g| {
            let reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
                .unwrap()
                .with_row_groups(vec![g])
                .build()
                .unwrap();
            let rows: usize = reader
                .map(|b| bound.filter(&b.unwrap()).unwrap().num_rows())
                .sum();
            (kept[g], rows)
        })
        .collect()
}

/// Pruning is sound (no pruned group holds a match) and returns (kept, groups with a
/// match, matching rows).
fn check(file: &Bytes, filter: &str) -> (usize, usize, usize) {
    let per_group = prune_and_count(file, filter);
    for (g, (kept, rows)) in per_group.iter().enumerate() {
        assert!(
            *kept || *rows == 0,
            "{filter}: row group {g} pruned with {rows} matches"
        );
    }
    (
        per_group.iter().filter(|(k, _)| *k).count(),
        per_group.iter().filter(|(_, r)| *r > 0).count(),
        per_group.iter().map(|(_, r)| r).sum(),
    )
}

#[test]
fn parse_and_display() {
    let p = Predicate::parse("bbox_intersects(geometry, -10, -5.5, 10, 5) AND id > 3").unwrap();
    assert_eq!(
        p.to_string(),
        "bbox_intersects(geometry, -10.0, -5.5, 10.0, 5.0) AND id > 3"
    );
    let Predicate::And(list) = &p else {
        panic!("{p:?}")
    };
    assert_eq!(
        list[0],
        Predicate::Spatial {
            column: col("geometry"),
            filter: SpatialFilter::BboxIntersects(QueryBox {
                xmin: -10.0,
                ymin: -5.5,
                xmax: 10.0,
                ymax: 5.0
            }),
        }
    );
    let t = Predicate::parse("NOT geometry_type_in(g, 3, 1006)").unwrap();
    assert_eq!(t.to_string(), "NOT geometry_type_in(g, 3, 1006)");
    for (bad, why) in [
        ("bbox_intersects(g, 1, 2, 3)", "4 numbers"),
        ("bbox_intersects(g, 0, 5, 1, 2)", "ymin 5 above ymax 2"),
        ("geometry_type_in(g)", "at least one"),
        ("geometry_type_in(g, 3.5)", "not a WKB type code"),
        ("nearest(g, 1)", "unknown function"),
    ] {
        let e = Predicate::parse(bad).unwrap_err().to_string();
        assert!(e.contains(why), "{bad}: {e}");
    }
}

#[test]
fn geography_points_prune_by_box_and_wrapping_box() {
    let file = corpus_file("geospatial/geography-points.parquet");
    // Southern Africa: a few of the 50 row groups.
    let (kept, matching, rows) = check(&file, "bbox_intersects(geometry, 10, -35, 40, -15)");
    assert!(
        rows > 0 && matching <= kept && kept < 50,
        "{kept} {matching} {rows}"
    );
    // A box across the antimeridian (170E to 170W).
    let (kept, matching, rows) = check(&file, "bbox_intersects(geometry, 170, -90, -170, 90)");
    assert!(
        rows > 0 && matching <= kept && kept < 50,
        "{kept} {matching} {rows}"
    );
    // Nothing north of 89.99 except the pole's group(s).
    let (kept, _, rows) = check(&file, "bbox_intersects(geometry, -180, 89.99, 180, 90)");
    assert!(rows >= 1 && kept <= 2, "{kept} {rows}");
    // Negated: no pruning, still sound.
    let (kept, _, _) = check(&file, "NOT bbox_intersects(geometry, 10, -35, 40, -15)");
    assert_eq!(kept, 50);
}

#[test]
fn geography_lines_and_polygons_prune_soundly() {
    for name in ["geography-lines.parquet", "geography-polygons.parquet"] {
        let file = corpus_file(&format!("geospatial/{name}"));
        for filter in [
            "bbox_intersects(geometry, 10, -35, 40, -15)",
            "bbox_intersects(geometry, 175, -60, -175, 60)",
            "bbox_intersects(geometry, -100, 30, -80, 50) OR id < 20",
        ] {
            let (kept, matching, _) = check(&file, filter);
            assert!(matching <= kept, "{name} {filter}");
        }
    }
}

fn wkb_point(x: f64, y: f64) -> Vec<u8> {
    let mut v = vec![1u8, 1, 0, 0, 0];
    v.extend_from_slice(&x.to_le_bytes());
    v.extend_from_slice(&y.to_le_bytes());
    v
}

fn wkb_square(x: f64, y: f64) -> Vec<u8> {
    let mut v = vec![1u8, 3, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0];
    for (px, py) in [
        (x, y),
        (x + 1.0, y),
        (x + 1.0, y + 1.0),
        (x, y + 1.0),
        (x, y),
    ] {
        v.extend_from_slice(&px.to_le_bytes());
        v.extend_from_slice(&py.to_le_bytes());
    }
    v
}

#[test]
fn type_lists_prune_point_only_row_groups() {
    // Row group 0: points; 1: squares; 2: both; 3: nulls only.
    let values: Vec<Option<Vec<u8>>> = vec![
        Some(wkb_point(0.0, 0.0)),
        Some(wkb_point(5.0, 5.0)),
        Some(wkb_square(0.0, 0.0)),
        Some(wkb_square(5.0, 5.0)),
        Some(wkb_point(50.0, 50.0)),
        Some(wkb_square(50.0, 50.0)),
        None,
        None,
    ];
    let array: ArrayRef = Arc::new(BinaryArray::from_iter(values.iter().map(|v| v.as_deref())));
    let field = Field::new("g", DataType::Binary, true).with_metadata(
        [(
            "ARROW:extension:name".to_string(),
            "geoarrow.wkb".to_string(),
        )]
        .into(),
    );
    let batch = RecordBatch::try_new(Arc::new(Schema::new(vec![field])), vec![array]).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_rows(2)
        .build();
    let file = common::write(&[batch], props);
    let kept = |filter: &str| -> Vec<bool> {
        prune_and_count(&file, filter)
            .into_iter()
            .map(|(k, _)| k)
            .collect()
    };
    assert_eq!(kept("geometry_type_in(g, 3)"), [false, true, true, false]);
    assert_eq!(
        kept("geometry_type_in(g, 1, 1001)"),
        [true, false, true, false]
    );
    assert_eq!(
        kept("bbox_intersects(g, 40, 40, 60, 60)"),
        [false, false, true, false]
    );
    assert_eq!(
        kept("bbox_intersects(g, 40, 40, 60, 60) AND geometry_type_in(g, 3)"),
        [false, false, true, false]
    );
    // Row level: the square at (5, 5) meets the box 5.5..7; the point at (5, 5) does not.
    let counts = prune_and_count(&file, "bbox_intersects(g, 5.5, 5.5, 7, 7)");
    assert_eq!(counts.iter().map(|c| c.1).collect::<Vec<_>>(), [0, 1, 0, 0]);
    check(
        &file,
        "geometry_type_in(g, 3) OR bbox_intersects(g, -1, -1, 1, 1)",
    );
}

#[test]
fn spatial_filters_need_a_binary_column() {
    let file = corpus_file("geospatial/geography-points.parquet");
    let (_, _, mapping) = common::open(&file);
    let e = Predicate::parse("bbox_intersects(id, 0, 0, 1, 1)")
        .unwrap()
        .bind(mapping.schema())
        .unwrap_err()
        .to_string();
    assert!(e.contains("need a WKB (binary) column, id is Int64"), "{e}");
}
