//! `hb cat FILE`: the rows of a Parquet file as a table, CSV or JSON lines, every Arrow
//! type printed as [`super::render`] says (maps with any key type, nested lists and
//! structs, Variant as JSON, shredded or not, decimals, intervals, binaries).
//!
//! Output streams batch by batch. The table shows the first [`TABLE_ROWS`] rows unless
//! told otherwise (`--limit N`, `--all`) and says how many rows it left out; its column
//! widths come from the first [`TABLE_PAGE`] rows, so memory stays bounded however
//! many rows it prints (a longer cell further down widens only its own line).

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{ArrowError, DataType, Field, Schema};
use herringbone::metadata::LogicalType;

use super::reading::{Batches, ReadArgs, is_broken_pipe};
use super::render::{Row, variants_as_json};

/// Rows the table shows when neither `--limit` nor `--all` is given.
pub const TABLE_ROWS: usize = 20;
/// Rows whose cells size the table's columns.
const TABLE_PAGE: usize = 1000;

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// A table with aligned columns: the first 20 rows unless `--limit` or `--all`.
    #[default]
    Table,
    /// CSV with a header line; nested values as JSON text.
    Csv,
    /// One JSON object per row.
    Jsonl,
}

/// How many rows to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rows {
    /// The format's default: [`TABLE_ROWS`] for the table, every row otherwise.
    Default,
    /// At most this many.
    Limit(usize),
    /// Every row.
    All,
}

/// Prints the rows from `offset` on, as many as `rows` says.
pub fn run(
    path: &Path,
    args: &ReadArgs,
    offset: usize,
    rows: Rows,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), String> {
    let limit = match (rows, format) {
        (Rows::Limit(n), _) => Some(n),
        (Rows::Default, Format::Table) => Some(TABLE_ROWS),
        (Rows::Default, _) | (Rows::All, _) => None,
    };
    // The table reads one row past its limit to tell whether rows were left out.
    let read_limit = match format {
        Format::Table => limit.map(|n| n.saturating_add(1)),
        _ => limit,
    };
    let batches = Batches::open(path, args, |b| {
        let b = b.with_offset(offset);
        match read_limit {
            Some(limit) => b.with_limit(limit),
            None => b,
        }
    })?;
    let variants = variant_columns(&batches);
    let written = match format {
        Format::Table => write_table(batches, &variants, offset, limit, out),
        Format::Csv => write_csv(batches, &variants, out),
        Format::Jsonl => write_jsonl(batches, &variants, out),
    };
    match written {
        Err(Failure::Output(e)) if is_broken_pipe(&e) => Ok(()),
        Err(Failure::Output(e)) => Err(format!("writing output: {e}")),
        Err(Failure::Read(message)) => Err(message),
        Ok(()) => Ok(()),
    }
}

/// The top-level columns that are Variant groups in the Parquet schema.
pub fn variant_columns(batches: &Batches) -> Vec<String> {
    let schema = batches.parquet_schema();
    schema
        .children(schema.root())
        .filter(|node| matches!(node.logical_type(), Some(LogicalType::Variant { .. })))
        .map(|node| node.name().to_string())
        .collect()
}

/// Why printing stopped: the input (message ready to print) or the output.
enum Failure {
    Read(String),
    Output(ArrowError),
}

impl From<ArrowError> for Failure {
    fn from(e: ArrowError) -> Self {
        Failure::Output(e)
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::Output(ArrowError::IoError(e.to_string(), e))
    }
}

fn write_jsonl(batches: Batches, variants: &[String], out: &mut dyn Write) -> Result<(), Failure> {
    let mut line = String::new();
    for batch in batches {
        let batch = batch
            .and_then(|b| variants_as_json(&b))
            .map_err(Failure::Read)?;
        let row = Row::new(&batch, variants).map_err(Failure::Read)?;
        for i in 0..batch.num_rows() {
            line.clear();
            row.json(i, &mut line).map_err(Failure::Read)?;
            line.push('\n');
            out.write_all(line.as_bytes())?;
        }
    }
    Ok(())
}

fn write_csv(batches: Batches, variants: &[String], out: &mut dyn Write) -> Result<(), Failure> {
    let header = text_schema(&batches.schema());
    let mut writer = arrow_csv::WriterBuilder::new().with_header(true).build(out);
    let mut written = false;
    for batch in batches {
        let batch = batch
            .and_then(|b| variants_as_json(&b))
            .map_err(Failure::Read)?;
        writer.write(&as_text(&batch, variants).map_err(Failure::Read)?)?;
        written = true;
    }
    if !written {
        // A file without rows still has its header line.
        writer.write(&RecordBatch::new_empty(header))?;
    }
    Ok(())
}

/// `batch` with every column as its text (`Utf8`, nulls kept): what CSV holds. Nested
/// values become their JSON text.
pub fn as_text(batch: &RecordBatch, variants: &[String]) -> Result<RecordBatch, String> {
    let row = Row::new(batch, variants)?;
    let mut columns: Vec<Vec<Option<String>>> = vec![Vec::new(); batch.num_columns()];
    for i in 0..batch.num_rows() {
        for (column, cell) in columns.iter_mut().zip(row.cells(i)?) {
            column.push(cell);
        }
    }
    let arrays: Vec<ArrayRef> = columns
        .into_iter()
        .map(|c| Arc::new(StringArray::from(c)) as ArrayRef)
        .collect();
    RecordBatch::try_new(text_schema(&batch.schema()), arrays).map_err(|e| e.to_string())
}

/// `schema` with every field as nullable `Utf8`: the schema of CSV text.
fn text_schema(schema: &Schema) -> Arc<Schema> {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| Field::new(f.name(), DataType::Utf8, true))
        .collect();
    Arc::new(Schema::new(fields))
}

/// The table of at most `limit` rows (the reader was asked for one more, to know
/// whether rows were left out), then how many were left out: exact without a filter
/// (the file's rows past `offset`), else only that more rows match.
fn write_table(
    batches: Batches,
    variants: &[String],
    offset: usize,
    limit: Option<usize>,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let header: Vec<String> = batches
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let available = (!batches.filtered()).then(|| batches.selected_rows().saturating_sub(offset));
    let mut table = TableWriter::new(header);
    let mut shown = 0usize;
    let mut left_out = false;
    'batches: for batch in batches {
        let batch = batch
            .and_then(|b| variants_as_json(&b))
            .map_err(Failure::Read)?;
        let row = Row::new(&batch, variants).map_err(Failure::Read)?;
        for i in 0..batch.num_rows() {
            if limit.is_some_and(|limit| shown >= limit) {
                left_out = true;
                break 'batches;
            }
            let cells = row.cells(i).map_err(Failure::Read)?;
            table.push(cells, out)?;
            shown += 1;
        }
    }
    table.finish(out)?;
    let hint = "(--limit N or --all to print more)";
    match available {
        Some(total) if total > shown => {
            let more = total - shown;
            let s = if more == 1 { "" } else { "s" };
            writeln!(out, "... {more} more row{s} {hint}")?;
        }
        None if left_out => writeln!(out, "... more matching rows {hint}")?,
        _ => {}
    }
    Ok(())
}

/// An aligned table written as rows arrive: the first [`TABLE_PAGE`] rows are held to
/// size the columns, later rows are written at once.
struct TableWriter {
    header: Vec<String>,
    widths: Option<Vec<usize>>,
    held: Vec<Vec<String>>,
}

impl TableWriter {
    fn new(header: Vec<String>) -> Self {
        Self {
            header,
            widths: None,
            held: Vec::new(),
        }
    }

    fn push(&mut self, cells: Vec<Option<String>>, out: &mut dyn Write) -> std::io::Result<()> {
        let cells: Vec<String> = cells.into_iter().map(cell_text).collect();
        match &self.widths {
            Some(widths) => write_line(&cells, widths, out),
            None => {
                self.held.push(cells);
                if self.held.len() >= TABLE_PAGE {
                    self.start(out)?;
                }
                Ok(())
            }
        }
    }

    /// Sizes the columns from the header and the held rows, writes them.
    fn start(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        let mut widths: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for row in &self.held {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.chars().count());
            }
        }
        write_border(&widths, out)?;
        write_line(&self.header, &widths, out)?;
        write_border(&widths, out)?;
        for row in self.held.drain(..) {
            write_line(&row, &widths, out)?;
        }
        self.widths = Some(widths);
        Ok(())
    }

    fn finish(mut self, out: &mut dyn Write) -> std::io::Result<()> {
        if self.widths.is_none() {
            self.start(out)?;
        }
        if let Some(widths) = &self.widths {
            write_border(widths, out)?;
        }
        Ok(())
    }
}

/// A cell as the table shows it: `null` for a null, line breaks escaped so a row stays
/// on one line.
fn cell_text(cell: Option<String>) -> String {
    match cell {
        None => "null".to_string(),
        Some(text) if text.contains(['\n', '\r']) => text.replace('\n', "\\n").replace('\r', "\\r"),
        Some(text) => text,
    }
}

fn write_border(widths: &[usize], out: &mut dyn Write) -> std::io::Result<()> {
    let mut line = String::from("+");
    for &width in widths {
        line.push_str(&"-".repeat(width + 2));
        line.push('+');
    }
    writeln!(out, "{line}")
}

fn write_line(cells: &[String], widths: &[usize], out: &mut dyn Write) -> std::io::Result<()> {
    let mut line = String::from("|");
    for (cell, &width) in cells.iter().zip(widths) {
        let pad = width.saturating_sub(cell.chars().count());
        line.push(' ');
        line.push_str(cell);
        line.push_str(&" ".repeat(pad + 1));
        line.push('|');
    }
    writeln!(out, "{line}")
}

/// The table of `batches` as `hb cat` prints it (for the demo's preview).
pub fn render_table(batches: &[RecordBatch]) -> Result<String, String> {
    let Some(first) = batches.first() else {
        return Ok(String::new());
    };
    let header: Vec<String> = first
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let mut table = TableWriter::new(header);
    let mut out = Vec::new();
    let io = |e: std::io::Error| e.to_string();
    for batch in batches {
        let row = Row::new(batch, &[])?;
        for i in 0..batch.num_rows() {
            table.push(row.cells(i)?, &mut out).map_err(io)?;
        }
    }
    table.finish(&mut out).map_err(io)?;
    let text = String::from_utf8(out).map_err(|e| e.to_string())?;
    Ok(text.trim_end().to_string())
}
