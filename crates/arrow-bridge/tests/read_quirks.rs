//! Files other engines write, read as those engines read them: one test per quirk,
//! naming the writer and its version. The files are the writers' own output, a few
//! hundred bytes each, in `tests/data/`.

use std::sync::Arc;

use arrow_array::builder::{Float64Builder, ListBuilder};
use arrow_array::{Array, ArrayRef, Int32Array, RecordBatch};
use bytes::Bytes;
use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder;

fn data(name: &str) -> Bytes {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    Bytes::from(std::fs::read(&path).unwrap())
}

/// DuckDB 2.0.0 writes a NULL row of a fixed-size `ARRAY` column (`DOUBLE[3]`) as the
/// null list's entry followed by two entries that continue it below the element level
/// (15 values for 5 rows here), padding its own reader skips. pyarrow refuses the file;
/// Herringbone reads it as DuckDB does. Written by
///
/// ```sql
/// CREATE TABLE t AS SELECT * FROM (VALUES (1, [1.0,2.0,3.0]::DOUBLE[3]), (2, NULL),
///   (3, [4.0,NULL,6.0]::DOUBLE[3]), (4, NULL), (5, [7.0,8.0,9.0]::DOUBLE[3])) v(id, a);
/// COPY t TO 'duckdb_2_0_fixed_array_nulls.parquet' (FORMAT parquet);
/// ```
#[test]
fn duckdb_2_0_fixed_size_array_with_null_rows_reads_as_duckdb_reads_it() {
    let file = data("duckdb_2_0_fixed_array_nulls.parquet");
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    let meta = &builder.metadata().row_groups[0].columns[1];
    assert_eq!(
        meta.meta_data.as_ref().unwrap().num_values,
        15,
        "the padding entries are in the file"
    );
    for batch_size in [1, 2, 3, 8192] {
        let file = data("duckdb_2_0_fixed_array_nulls.parquet");
        let batches: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .with_batch_size(batch_size)
            .build()
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let schema = batches[0].schema();
        let batch = arrow_select::concat::concat_batches(&schema, &batches).unwrap();

        let ids: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3, 4, 5]));
        let mut lists = ListBuilder::new(Float64Builder::new());
        for row in [
            Some(vec![Some(1.0), Some(2.0), Some(3.0)]),
            None,
            Some(vec![Some(4.0), None, Some(6.0)]),
            None,
            Some(vec![Some(7.0), Some(8.0), Some(9.0)]),
        ] {
            match row {
                Some(values) => {
                    for v in values {
                        lists.values().append_option(v);
                    }
                    lists.append(true);
                }
                None => lists.append(false),
            }
        }
        let lists = lists.finish();
        assert_eq!(batch.num_rows(), 5, "batch size {batch_size}");
        assert_eq!(batch.column(0), &ids, "batch size {batch_size}");
        let got = batch.column(1).as_any();
        let got = got
            .downcast_ref::<arrow_array::ListArray>()
            .unwrap_or_else(|| panic!("a list, got {:?}", batch.column(1).data_type()));
        assert_eq!(got.len(), 5);
        for row in 0..5 {
            assert_eq!(got.is_valid(row), lists.is_valid(row), "row {row}");
            if lists.is_valid(row) {
                assert_eq!(&got.value(row), &lists.value(row), "row {row}");
            }
        }
    }
}
