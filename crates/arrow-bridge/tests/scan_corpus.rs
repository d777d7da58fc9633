//! Filtered reads over the parquet-testing corpus equal a brute-force filter of the whole
//! file: for every file that reads, every column outside lists (top-level or in
//! structs), comparisons, IN, IS NULL and LIKE against values taken from the data, with
//! every pruning source on (statistics, Bloom filters, page index).

use std::path::Path;

use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field};
use bytes::Bytes;
use herringbone_arrow_bridge::predicate::{ColumnRef, CompareOp, Literal, Predicate};
use herringbone_arrow_bridge::read::ParquetRecordBatchReaderBuilder;
use herringbone_arrow_bridge::scan::ScanBuilder;

/// Files larger than this are left to the reader's own corpus test.
const MAX_FILE_BYTES: usize = 8 << 20;

fn read_whole(file: &Bytes) -> Option<RecordBatch> {
    let reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .ok()?
        .build()
        .ok()?;
    let schema = arrow_array::RecordBatchReader::schema(&reader);
    let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().ok()?;
    arrow_select::concat::concat_batches(&schema, &batches).ok()
}

/// `(path, array)` of every column outside lists and maps: top-level fields and struct
/// fields, with nulls of the enclosing structs.
fn columns(batch: &RecordBatch) -> Vec<(Vec<String>, ArrayRef)> {
    fn walk(
        prefix: &[String],
        field: &Field,
        array: &ArrayRef,
        out: &mut Vec<(Vec<String>, ArrayRef)>,
    ) {
        let mut path = prefix.to_vec();
        path.push(field.name().clone());
        match field.data_type() {
            DataType::Struct(children) => {
                let s = array
                    .as_any()
                    .downcast_ref::<arrow_array::StructArray>()
                    .unwrap();
                for (child, column) in children.iter().zip(s.columns()) {
                    let column = match s.nulls() {
                        Some(n) => {
                            let nulls = arrow_buffer::NullBuffer::union(Some(n), column.nulls());
                            arrow_array::make_array(
                                column
                                    .to_data()
                                    .into_builder()
                                    .nulls(nulls)
                                    .build()
                                    .unwrap(),
                            )
                        }
                        None => column.clone(),
                    };
                    walk(&path, child, &column, out);
                }
            }
            DataType::List(_)
            | DataType::LargeList(_)
            | DataType::ListView(_)
            | DataType::LargeListView(_)
            | DataType::FixedSizeList(_, _)
            | DataType::Map(_, _)
            | DataType::Union(_, _)
            | DataType::Null
            | DataType::RunEndEncoded(_, _) => {}
            _ => out.push((path, array.clone())),
        }
    }
    let mut out = Vec::new();
    for (field, array) in batch.schema().fields().iter().zip(batch.columns()) {
        walk(&[], field, array, &mut out);
    }
    out
}

fn literal(array: &ArrayRef, row: usize) -> Literal {
    let value = array.slice(row, 1);
    match array.data_type() {
        DataType::Dictionary(_, v) => Literal::new(arrow_cast::cast(&value, v).unwrap()),
        _ => Literal::new(value),
    }
}

fn predicates(path: &[String], array: &ArrayRef) -> Vec<Predicate> {
    let column = ColumnRef::from_parts(path.to_vec());
    let mut out = vec![
        Predicate::IsNull {
            column: column.clone(),
            negated: false,
        },
        Predicate::IsNull {
            column: column.clone(),
            negated: true,
        },
    ];
    let valid: Vec<usize> = (0..array.len()).filter(|&i| array.is_valid(i)).collect();
    if valid.is_empty() {
        return out;
    }
    let pick = [valid[0], valid[valid.len() / 2], valid[valid.len() - 1]];
    for &row in &pick {
        for op in [
            CompareOp::Eq,
            CompareOp::NotEq,
            CompareOp::Lt,
            CompareOp::GtEq,
        ] {
            out.push(Predicate::Compare {
                column: column.clone(),
                op,
                value: literal(array, row),
            });
        }
    }
    out.push(Predicate::In {
        column: column.clone(),
        values: pick.iter().map(|&r| literal(array, r)).collect(),
        negated: false,
    });
    let value_type = match array.data_type() {
        DataType::Dictionary(_, v) => v.as_ref().clone(),
        t => t.clone(),
    };
    if matches!(
        value_type,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    ) {
        let text = arrow_cast::display::array_value_to_string(array, pick[1]).unwrap();
        let prefix: String = text.chars().take(2).collect();
        out.push(ColumnRef::from_parts(path.to_vec()).starts_with(&prefix));
    }
    out
}

fn scan(file: &Bytes, predicate: &Predicate) -> herringbone_arrow_bridge::Result<RecordBatch> {
    let scan = ScanBuilder::try_new(file.clone())?
        .with_predicate(predicate.clone())
        .with_batch_size(1000)
        .build()?;
    let schema = arrow_array::RecordBatchReader::schema(&scan);
    let batches: Vec<RecordBatch> = scan
        .collect::<Result<_, _>>()
        .map_err(|e| herringbone_arrow_bridge::Error::corrupt(e.to_string()))?;
    Ok(arrow_select::concat::concat_batches(&schema, &batches)?)
}

#[test]
fn filtered_reads_equal_brute_force_over_the_corpus() {
    let mut files_checked = 0;
    let mut predicates_checked = 0;
    let mut failures = Vec::new();
    for path in herringbone_testkit::corpus_files(&["data"]) {
        let relative = path
            .strip_prefix(herringbone_testkit::corpus_root())
            .unwrap_or(&path)
            .to_path_buf();
        let bytes = herringbone_testkit::read_corpus_file(Path::new(&relative));
        if bytes.len() > MAX_FILE_BYTES {
            continue;
        }
        let file = Bytes::from(bytes);
        let Some(all) = read_whole(&file) else {
            continue;
        };
        files_checked += 1;
        for (column, array) in columns(&all) {
            for predicate in predicates(&column, &array) {
                let Ok(bound) = predicate.bind(&all.schema()) else {
                    continue;
                };
                let Ok(expected) = bound.filter(&all) else {
                    // Arrow cannot compare this type (e.g. intervals): nothing to check.
                    continue;
                };
                predicates_checked += 1;
                match scan(&file, &predicate) {
                    Ok(got) if got == expected => {}
                    Ok(got) => failures.push(format!(
                        "{}: {predicate}: {} rows, brute force {}",
                        relative.display(),
                        got.num_rows(),
                        expected.num_rows()
                    )),
                    Err(e) => failures.push(format!("{}: {predicate}: {e}", relative.display())),
                }
            }
        }
    }
    eprintln!("{files_checked} files, {predicates_checked} predicates");
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        files_checked >= 70,
        "only {files_checked} corpus files read"
    );
    assert!(
        predicates_checked >= 5_000,
        "only {predicates_checked} predicates checked"
    );
}

#[test]
fn corpus_page_index_and_bloom_filters_prune() {
    // Files with a page index and Bloom filters: a value absent from the data prunes
    // everything through the Bloom filter; a present one is found.
    let bytes = Bytes::from(herringbone_testkit::read_corpus_file(Path::new(
        "data/data_index_bloom_encoding_stats.parquet",
    )));
    let all = read_whole(&bytes).unwrap();
    let name = all.schema().field(0).name().clone();
    let value = arrow_cast::display::array_value_to_string(all.column(0), 3).unwrap();
    let hit = Predicate::parse(&format!("\"{name}\" = '{value}'")).unwrap();
    let mut s = ScanBuilder::try_new(bytes.clone())
        .unwrap()
        .with_predicate(hit)
        .build()
        .unwrap();
    let rows: usize = s.by_ref().map(|b| b.unwrap().num_rows()).sum();
    assert!(rows >= 1);
    let miss = Predicate::parse(&format!("\"{name}\" = 'no such value 123'")).unwrap();
    let mut s = ScanBuilder::try_new(bytes)
        .unwrap()
        .with_predicate(miss)
        .build()
        .unwrap();
    assert_eq!(s.by_ref().count(), 0);
    let m = s.metrics();
    assert_eq!(m.row_groups_read, 0, "{m:?}");
    assert_eq!(
        m.row_groups_pruned_by_statistics + m.row_groups_pruned_by_bloom_filter,
        m.row_groups_total
    );
}
