//! `sorting_columns`: recorded on every row group when the writer is told the rows are
//! sorted, and checked: rows out of order are an error naming the column and the row,
//! within a batch and across batches of one row group (not across row groups).

use std::sync::Arc;

use arrow_array::*;
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use bytes::Bytes;
use herringbone_arrow_bridge::write::{ArrowWriter, WriterProperties};
use herringbone_format::metadata::SortingColumn;
use parquet::file::reader::{FileReader, SerializedFileReader};

fn sorting(column_idx: i32, descending: bool, nulls_first: bool) -> SortingColumn {
    SortingColumn {
        column_idx,
        descending,
        nulls_first,
    }
}

/// `k` (Int32, nullable), `s` (Utf8), `st` (struct { x: Int64 }, nullable): leaves 0, 1, 2.
fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int32, true),
        Field::new("s", DataType::Utf8, false),
        Field::new(
            "st",
            DataType::Struct(Fields::from(vec![Field::new("x", DataType::Int64, true)])),
            true,
        ),
    ]))
}

fn batch(
    k: Vec<Option<i32>>,
    s: Vec<&str>,
    x: Vec<Option<i64>>,
    st_valid: Vec<bool>,
) -> RecordBatch {
    let st = StructArray::new(
        Fields::from(vec![Field::new("x", DataType::Int64, true)]),
        vec![Arc::new(Int64Array::from(x))],
        Some(NullBuffer::from(st_valid)),
    );
    RecordBatch::try_new(
        schema(),
        vec![
            Arc::new(Int32Array::from(k)),
            Arc::new(StringArray::from(s)),
            Arc::new(st),
        ],
    )
    .unwrap()
}

fn writer(columns: Vec<SortingColumn>, group_rows: usize) -> ArrowWriter<Vec<u8>> {
    let props = WriterProperties::builder()
        .set_sorting_columns(Some(columns))
        .set_max_row_group_rows(group_rows)
        .build();
    ArrowWriter::try_new(Vec::new(), schema(), Some(props)).unwrap()
}

#[test]
fn sorted_rows_are_written_and_every_row_group_says_so() {
    // k ascending with nulls last, ties broken by s descending.
    let columns = vec![sorting(0, false, false), sorting(1, true, false)];
    let mut w = writer(columns.clone(), 4);
    let b1 = batch(
        vec![Some(1), Some(1), Some(2), Some(2), Some(2)],
        vec!["b", "a", "z", "z", "y"],
        vec![None; 5],
        vec![true; 5],
    );
    // Continues the order across the batch boundary (2/"y" then 2/"x"), then nulls.
    let b2 = batch(
        vec![Some(2), Some(7), None, None],
        vec!["x", "q", "b", "a"],
        vec![None; 4],
        vec![true; 4],
    );
    w.write(&b1).unwrap();
    w.write(&b2).unwrap();
    let metadata = w.finish().unwrap();
    assert_eq!(metadata.row_groups.len(), 3);
    for group in &metadata.row_groups {
        assert_eq!(group.sorting_columns.as_deref(), Some(&columns[..]));
    }
    // arrow-rs reads them back.
    let file = w.into_inner();
    let reader = SerializedFileReader::new(Bytes::from(file)).unwrap();
    for g in 0..3 {
        let sorting = reader.metadata().row_group(g).sorting_columns().unwrap();
        assert_eq!(sorting.len(), 2);
        assert_eq!(
            (
                sorting[0].column_idx,
                sorting[0].descending,
                sorting[0].nulls_first
            ),
            (0, false, false)
        );
        assert_eq!(
            (
                sorting[1].column_idx,
                sorting[1].descending,
                sorting[1].nulls_first
            ),
            (1, true, false)
        );
    }
}

#[test]
fn rows_out_of_order_in_a_batch_name_the_column_and_the_row() {
    let mut w = writer(
        vec![sorting(0, false, false), sorting(1, false, false)],
        1000,
    );
    w.write(&batch(
        vec![Some(1), Some(2)],
        vec!["a", "b"],
        vec![None; 2],
        vec![true; 2],
    ))
    .unwrap();
    // Rows 2..5 of the file: (3, "m"), (3, "n"), (3, "c"): the tie on k is broken by s,
    // which goes back at row 4.
    let bad = batch(
        vec![Some(3), Some(3), Some(3)],
        vec!["m", "n", "c"],
        vec![None; 3],
        vec![true; 3],
    );
    let err = w.write(&bad).unwrap_err().to_string();
    assert!(err.contains("column s"), "{err}");
    assert!(err.contains("row 4 (c) comes after row 3 (n)"), "{err}");
    assert!(err.contains("ascending"), "{err}");
    // Nothing of the rejected batch was taken.
    assert_eq!(w.in_progress_rows(), 2);
}

#[test]
fn the_first_row_of_a_batch_is_checked_against_the_last_one() {
    let mut w = writer(vec![sorting(0, true, true)], 1000);
    // Descending, nulls first.
    w.write(&batch(
        vec![None, Some(9), Some(5)],
        vec!["a"; 3],
        vec![None; 3],
        vec![true; 3],
    ))
    .unwrap();
    let err = w
        .write(&batch(vec![Some(6)], vec!["a"], vec![None], vec![true]))
        .unwrap_err()
        .to_string();
    assert!(err.contains("column k"), "{err}");
    assert!(err.contains("row 3 (6) comes after row 2 (5)"), "{err}");
    assert!(err.contains("descending, nulls first"), "{err}");
    // A null after a value is out of order too (nulls first).
    let err = w
        .write(&batch(vec![None], vec!["a"], vec![None], vec![true]))
        .unwrap_err()
        .to_string();
    assert!(err.contains("row 3 (null) comes after row 2 (5)"), "{err}");
    // Equal keys are fine.
    w.write(&batch(
        vec![Some(5), Some(1)],
        vec!["a"; 2],
        vec![None; 2],
        vec![true; 2],
    ))
    .unwrap();
}

#[test]
fn each_row_group_is_sorted_on_its_own() {
    // Two rows per group: 5, 6 | 1, 2 | 0 is sorted within every group.
    let mut w = writer(vec![sorting(0, false, false)], 2);
    for k in [[5, 6], [1, 2]] {
        w.write(&batch(
            vec![Some(k[0]), Some(k[1])],
            vec!["a"; 2],
            vec![None; 2],
            vec![true; 2],
        ))
        .unwrap();
    }
    w.write(&batch(vec![Some(0)], vec!["a"], vec![None], vec![true]))
        .unwrap();
    assert_eq!(w.finish().unwrap().row_groups.len(), 3);
    // But within one batch that spans two groups, each group is checked: [3, 4 | 2, 1].
    let mut w = writer(vec![sorting(0, false, false)], 2);
    let err = w
        .write(&batch(
            vec![Some(3), Some(4), Some(2), Some(1)],
            vec!["a"; 4],
            vec![None; 4],
            vec![true; 4],
        ))
        .unwrap_err()
        .to_string();
    assert!(err.contains("row 3 (1) comes after row 2 (2)"), "{err}");
}

#[test]
fn a_struct_child_is_null_where_its_struct_is() {
    // st.x ascending, nulls first: the null struct in row 1 makes x null there, so
    // [null (x = 5 under a null struct), 1, 2] is sorted while [1, 5 hidden, 2] is not.
    let mut w = writer(vec![sorting(2, false, true)], 1000);
    w.write(&batch(
        vec![None; 3],
        vec!["a"; 3],
        vec![Some(5), Some(1), Some(2)],
        vec![false, true, true],
    ))
    .unwrap();
    let mut w = writer(vec![sorting(2, false, true)], 1000);
    let err = w
        .write(&batch(
            vec![None; 3],
            vec!["a"; 3],
            vec![Some(1), Some(5), Some(2)],
            vec![true, false, true],
        ))
        .unwrap_err()
        .to_string();
    assert!(err.contains("column st.x"), "{err}");
    assert!(err.contains("row 1 (null) comes after row 0 (1)"), "{err}");
}

#[test]
fn sorting_columns_that_cannot_hold_are_refused_up_front() {
    let props = |columns| {
        Some(
            WriterProperties::builder()
                .set_sorting_columns(Some(columns))
                .build(),
        )
    };
    let err = ArrowWriter::try_new(Vec::new(), schema(), props(vec![sorting(3, false, false)]))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("not a leaf column") && err.contains("3 leaves"),
        "{err}"
    );
    let listed = Arc::new(Schema::new(vec![Field::new(
        "l",
        DataType::List(Arc::new(Field::new_list_field(DataType::Int32, true))),
        true,
    )]));
    let err = ArrowWriter::try_new(Vec::new(), listed, props(vec![sorting(0, false, false)]))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("l.list.item") && err.contains("inside a list"),
        "{err}"
    );
}
