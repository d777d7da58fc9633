//! `hb-sql`: runs one SQL query over Parquet files read by Herringbone and prints the
//! result.
//!
//! ```text
//! hb-sql --table NAME=PATH [--table NAME=PATH ...] [--format table|csv|jsonl] "SQL"
//! ```
//!
//! `PATH` is a Parquet file or a folder of `*.parquet` files with one schema.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use datafusion::arrow::record_batch::RecordBatch;
use datafusion::prelude::SessionContext;
use herringbone_datafusion::HerringboneTable;

const USAGE: &str =
    "usage: hb-sql --table NAME=PATH [--table NAME=PATH ...] [--format table|csv|jsonl] \"SQL\"";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Table,
    Csv,
    Jsonl,
}

struct Args {
    tables: Vec<(String, PathBuf)>,
    format: Format,
    sql: String,
}

fn parse_args(args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut tables = Vec::new();
    let mut format = Format::Table;
    let mut sql = None;
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .ok_or_else(|| format!("{name} needs a value\n{USAGE}"))
        };
        match arg.as_str() {
            "--table" | "-t" => {
                let spec = value("--table")?;
                let (name, path) = spec
                    .split_once('=')
                    .filter(|(n, p)| !n.is_empty() && !p.is_empty())
                    .ok_or_else(|| format!("--table takes NAME=PATH, got `{spec}`\n{USAGE}"))?;
                tables.push((name.to_string(), PathBuf::from(path)));
            }
            "--format" | "-f" => {
                format = match value("--format")?.as_str() {
                    "table" => Format::Table,
                    "csv" => Format::Csv,
                    "jsonl" | "json" => Format::Jsonl,
                    other => {
                        return Err(format!(
                            "unknown format `{other}` (table, csv or jsonl)\n{USAGE}"
                        ));
                    }
                }
            }
            "--help" | "-h" => return Err(USAGE.to_string()),
            other if other.starts_with("--") => {
                return Err(format!("unknown option `{other}`\n{USAGE}"));
            }
            _ => {
                if sql.replace(arg).is_some() {
                    return Err(format!("one SQL statement, quoted\n{USAGE}"));
                }
            }
        }
    }
    let sql = sql.ok_or_else(|| format!("no SQL given\n{USAGE}"))?;
    Ok(Args {
        tables,
        format,
        sql,
    })
}

async fn run(args: Args) -> Result<(), String> {
    let ctx = SessionContext::new();
    for (name, path) in &args.tables {
        let table = HerringboneTable::try_new(vec![path.clone()])
            .map_err(|e| format!("table {name}: {e}"))?;
        ctx.register_table(name.as_str(), Arc::new(table))
            .map_err(|e| format!("table {name}: {e}"))?;
    }
    let frame = ctx.sql(&args.sql).await.map_err(|e| e.to_string())?;
    let schema = Arc::new(frame.schema().as_arrow().clone());
    let batches = frame.collect().await.map_err(|e| e.to_string())?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    print(&mut out, args.format, schema, &batches).map_err(|e| e.to_string())
}

fn print(
    out: &mut dyn Write,
    format: Format,
    schema: datafusion::arrow::datatypes::SchemaRef,
    batches: &[RecordBatch],
) -> Result<(), Box<dyn std::error::Error>> {
    match format {
        Format::Table => {
            if batches.iter().all(|b| b.num_rows() == 0) {
                let empty = RecordBatch::new_empty(schema);
                writeln!(
                    out,
                    "{}",
                    datafusion::arrow::util::pretty::pretty_format_batches(&[empty])?
                )?;
            } else {
                writeln!(
                    out,
                    "{}",
                    datafusion::arrow::util::pretty::pretty_format_batches(batches)?
                )?;
            }
        }
        Format::Csv => {
            let mut writer = datafusion::arrow::csv::WriterBuilder::new()
                .with_header(true)
                .build(&mut *out);
            if batches.is_empty() {
                writer.write(&RecordBatch::new_empty(schema))?;
            }
            for b in batches {
                writer.write(b)?;
            }
        }
        Format::Jsonl => {
            let mut writer = datafusion::arrow::json::LineDelimitedWriter::new(&mut *out);
            for b in batches {
                writer.write(b)?;
            }
            writer.finish()?;
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("hb-sql: {message}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("hb-sql: starting the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("hb-sql: {message}");
            ExitCode::FAILURE
        }
    }
}
