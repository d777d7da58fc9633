//! The DataFusion table provider: SQL results over files written by Herringbone equal
//! the same SQL over the data in memory (DataFusion's `MemTable`), with filters pushed
//! down (and pruning row groups), projections in any order, limits, several files,
//! several partitions, exact row counts for the planner; and `hb-sql`'s output.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, Date32Array, Float64Array, Int64Array, RecordBatch, StringArray,
};
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::datasource::MemTable;
use datafusion::prelude::{SessionConfig, SessionContext};
use herringbone::{ArrowWriter, WriterProperties};
use herringbone_datafusion::HerringboneTable;

fn data(start: i64, rows: i64) -> RecordBatch {
    let id: ArrayRef = Arc::new(Int64Array::from((start..start + rows).collect::<Vec<_>>()));
    let kind: ArrayRef = Arc::new(StringArray::from(
        (start..start + rows)
            .map(|i| {
                if i % 7 == 0 {
                    None
                } else {
                    Some(["a", "b", "c"][(i % 3) as usize])
                }
            })
            .collect::<Vec<_>>(),
    ));
    let day: ArrayRef = Arc::new(Date32Array::from(
        (start..start + rows)
            .map(|i| 10_000 + (i / 10) as i32)
            .collect::<Vec<_>>(),
    ));
    let price: ArrayRef = Arc::new(Float64Array::from(
        (start..start + rows)
            .map(|i| (i % 100) as f64 / 4.0)
            .collect::<Vec<_>>(),
    ));
    RecordBatch::try_from_iter([("id", id), ("kind", kind), ("day", day), ("price", price)])
        .unwrap()
}

fn write(path: &Path, batch: &RecordBatch, group_rows: usize) {
    let props = WriterProperties::builder()
        .set_max_row_group_rows(group_rows)
        .set_data_page_row_limit(50)
        .build();
    let mut writer = ArrowWriter::try_new(
        std::fs::File::create(path).unwrap(),
        batch.schema(),
        Some(props),
    )
    .unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
}

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hb-datafusion-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn run(ctx: &SessionContext, sql: &str) -> String {
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    pretty_format_batches(&batches).unwrap().to_string()
}

const QUERIES: &[&str] = &[
    "SELECT count(*) FROM t",
    "SELECT count(*) FROM t WHERE id >= 1500",
    "SELECT kind, count(*), sum(price) FROM t WHERE day >= '1997-06-01' GROUP BY kind ORDER BY kind",
    "SELECT price, id FROM t WHERE id BETWEEN 990 AND 1010 AND kind = 'b' ORDER BY id",
    "SELECT id FROM t WHERE kind IS NULL AND id < 100 ORDER BY id",
    "SELECT id, kind FROM t WHERE kind IN ('a', 'c') AND NOT id > 20 ORDER BY id",
    "SELECT id FROM t WHERE kind LIKE 'b%' AND price > 24 ORDER BY id LIMIT 5",
    "SELECT day, max(price) FROM t WHERE id % 2 = 0 AND day < DATE '1997-05-01' GROUP BY day ORDER BY day",
    "SELECT * FROM t WHERE id = 1234",
    "SELECT * FROM t ORDER BY id DESC LIMIT 3",
    "SELECT count(*) FROM t WHERE id > 100000",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sql_over_herringbone_equals_sql_over_memory() {
    let dir = folder("sql");
    let first = data(0, 1200);
    let second = data(1200, 800);
    write(&dir.join("part-0.parquet"), &first, 100);
    write(&dir.join("part-1.parquet"), &second, 300);
    for partitions in [1, 3, 8] {
        let config = SessionConfig::new()
            .with_target_partitions(partitions)
            .with_batch_size(64);
        let ours = SessionContext::new_with_config(config.clone());
        ours.register_table(
            "t",
            Arc::new(HerringboneTable::try_new(vec![dir.clone()]).unwrap()),
        )
        .unwrap();
        let memory = SessionContext::new_with_config(config);
        let table = MemTable::try_new(
            first.schema(),
            vec![vec![first.clone()], vec![second.clone()]],
        )
        .unwrap();
        memory.register_table("t", Arc::new(table)).unwrap();
        for sql in QUERIES {
            assert_eq!(
                run(&ours, sql).await,
                run(&memory, sql).await,
                "{sql} ({partitions} partitions)"
            );
        }
    }
}

#[tokio::test]
async fn filters_pushed_down_and_statistics_reported() {
    let dir = folder("plan");
    write(&dir.join("t.parquet"), &data(0, 1000), 100);
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(4));
    let table = HerringboneTable::try_new(vec![dir.join("t.parquet")]).unwrap();
    ctx.register_table("t", Arc::new(table)).unwrap();
    let plan = run(
        &ctx,
        "EXPLAIN SELECT id FROM t WHERE id >= 950 AND kind = 'a'",
    )
    .await;
    assert!(plan.contains("HerringboneExec"), "{plan}");
    assert!(
        plan.contains("predicate=id >= 950 AND kind = 'a'"),
        "{plan}"
    );
    // Statistics pruned 9 of the 10 row groups at planning time.
    assert!(plan.contains("row_groups=1,"), "{plan}");
    // An exact row count answers count(*) without a scan.
    let plan = run(&ctx, "EXPLAIN SELECT count(*) FROM t").await;
    assert!(!plan.contains("HerringboneExec"), "{plan}");
    // A filter Herringbone cannot evaluate is left to DataFusion.
    let plan = run(&ctx, "EXPLAIN SELECT id FROM t WHERE id + 1 > 5").await;
    assert!(
        plan.contains("HerringboneExec") && !plan.contains("predicate="),
        "{plan}"
    );
}

#[test]
fn hb_sql_prints_tables_csv_and_json_lines() {
    let dir = folder("cli");
    let path = dir.join("t.parquet");
    write(&path, &data(0, 50), 10);
    let table = format!("t={}", path.display());
    let run = |format: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_hb-sql"))
            .args([
                "--table",
                &table,
                "--format",
                format,
                "SELECT id, kind FROM t WHERE id < 3 ORDER BY id",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(run("csv"), "id,kind\n0,\n1,b\n2,c\n");
    assert_eq!(
        run("jsonl"),
        "{\"id\":0}\n{\"id\":1,\"kind\":\"b\"}\n{\"id\":2,\"kind\":\"c\"}\n"
    );
    let table_text = run("table");
    assert!(table_text.contains("| id | kind |"), "{table_text}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hb-sql"))
        .args(["--table", "t", "SELECT 1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--table takes NAME=PATH"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hb-sql"))
        .args(["--table", &table, "SELECT nope FROM t"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

fn write_sorted(path: &Path, batch: &RecordBatch, group_rows: usize, sorted_by: &[(i32, bool)]) {
    let columns = sorted_by
        .iter()
        .map(
            |&(column_idx, descending)| herringbone::metadata::SortingColumn {
                column_idx,
                descending,
                nulls_first: false,
            },
        )
        .collect();
    let props = WriterProperties::builder()
        .set_max_row_group_rows(group_rows)
        .set_sorting_columns(Some(columns))
        .build();
    let mut writer = ArrowWriter::try_new(
        std::fs::File::create(path).unwrap(),
        batch.schema(),
        Some(props),
    )
    .unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sorting_columns_give_the_scan_its_output_ordering() {
    let dir = folder("sorted");
    // Sorted by id (leaf 0) then day (leaf 2): row groups of 100 rows follow each other.
    let sorted = dir.join("sorted.parquet");
    write_sorted(&sorted, &data(0, 1000), 100, &[(0, false), (2, false)]);
    let plain = dir.join("plain.parquet");
    write(&plain, &data(0, 1000), 100);
    for partitions in [1, 4] {
        let ctx = SessionContext::new_with_config(
            SessionConfig::new().with_target_partitions(partitions),
        );
        let table = HerringboneTable::try_new(vec![sorted.clone()]).unwrap();
        assert_eq!(table.declared_order(), ["id", "day"]);
        ctx.register_table("t", Arc::new(table)).unwrap();
        let plain_table = HerringboneTable::try_new(vec![plain.clone()]).unwrap();
        assert!(plain_table.declared_order().is_empty());
        ctx.register_table("p", Arc::new(plain_table)).unwrap();
        ctx.register_table(
            "untrusted",
            Arc::new(
                HerringboneTable::try_new(vec![sorted.clone()])
                    .unwrap()
                    .with_sorting_columns(false),
            ),
        )
        .unwrap();

        // The declared order makes the sort unnecessary (a merge of sorted partitions at most).
        let query = "SELECT id, kind FROM t WHERE id >= 420 ORDER BY id LIMIT 5";
        let plan = run(&ctx, &format!("EXPLAIN {query}")).await;
        assert!(
            !plan.contains("SortExec"),
            "{partitions} partitions:\n{plan}"
        );
        assert_eq!(
            run(&ctx, query).await,
            run(&ctx, &query.replace("FROM t", "FROM p")).await
        );
        let plan = run(&ctx, "EXPLAIN SELECT id FROM t ORDER BY id, day").await;
        assert!(!plan.contains("SortExec"), "{plan}");
        // Not the declared order, or no declared order: DataFusion sorts.
        for sql in [
            "EXPLAIN SELECT id FROM t ORDER BY id DESC",
            "EXPLAIN SELECT id FROM t ORDER BY day",
            "EXPLAIN SELECT id FROM p ORDER BY id",
            "EXPLAIN SELECT id FROM untrusted ORDER BY id",
        ] {
            let plan = run(&ctx, sql).await;
            assert!(plan.contains("SortExec"), "{sql}:\n{plan}");
        }
    }

    // Row groups each sorted inside but not following each other (ids 250..349, then
    // 50..149, then 150..249): one partition of them is not sorted, so DataFusion sorts.
    let unordered = dir.join("unordered.parquet");
    let parts = [data(250, 100), data(50, 100), data(150, 100)];
    let batch = datafusion::arrow::compute::concat_batches(&parts[0].schema(), &parts).unwrap();
    write_sorted(&unordered, &batch, 100, &[(0, false)]);
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(1));
    let table = HerringboneTable::try_new(vec![unordered]).unwrap();
    assert_eq!(table.declared_order(), ["id"]);
    ctx.register_table("u", Arc::new(table)).unwrap();
    let plan = run(&ctx, "EXPLAIN SELECT id FROM u ORDER BY id").await;
    assert!(plan.contains("SortExec"), "{plan}");
    let ids = run(&ctx, "SELECT id FROM u ORDER BY id LIMIT 2").await;
    assert!(ids.contains("| 50 |") && ids.contains("| 51 |"), "{ids}");
}
