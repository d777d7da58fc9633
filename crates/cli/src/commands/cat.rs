//! `hb cat FILE`: the rows of a Parquet file as a table, CSV or JSON lines. Variant
//! columns print as their JSON text (in JSON lines, as a JSON value).

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use arrow_array::temporal_conversions::as_datetime;
use arrow_array::types::{
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType,
};
use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow_cast::display::FormatOptions;
use arrow_schema::{ArrowError, Field, Schema};

use super::json_text::{EmbedJsonText, with_variants_as_json};
use super::reading::{Batches, ReadArgs, is_broken_pipe};

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// A table with aligned columns (every row is held in memory to size the columns).
    #[default]
    Table,
    /// CSV with a header line; nested values as JSON text.
    Csv,
    /// One JSON object per row.
    Jsonl,
}

/// Prints the rows from `offset` on, at most `limit` of them.
pub fn run(
    path: &Path,
    args: &ReadArgs,
    offset: usize,
    limit: Option<usize>,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), String> {
    let batches = Batches::open(path, args, |b| {
        let b = b.with_offset(offset);
        match limit {
            Some(limit) => b.with_limit(limit),
            None => b,
        }
    })?;
    let written = match format {
        Format::Table => write_table(batches, out),
        Format::Csv => write_csv(batches, out),
        Format::Jsonl => write_jsonl(batches, out),
    };
    match written {
        Err(Failure::Output(e)) if is_broken_pipe(&e) => Ok(()),
        Err(Failure::Output(e)) => Err(format!("writing output: {e}")),
        Err(Failure::Read(message)) => Err(message),
        Ok(()) => Ok(()),
    }
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

fn write_table(batches: Batches, out: &mut dyn Write) -> Result<(), Failure> {
    let schema = batches.schema();
    let mut all = batches
        .map(|b| {
            b.and_then(|b| with_variants_as_json(&b))
                .map(|b| displayable_timestamps(&b))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(Failure::Read)?;
    if all.is_empty() {
        // Still show the header.
        all.push(with_variants_as_json(&RecordBatch::new_empty(schema)).map_err(Failure::Read)?);
    }
    writeln!(out, "{}", render_table(&all)?)?;
    Ok(())
}

/// The aligned table `hb cat` prints (nulls as `null`) for `batches` (at least one).
pub fn render_table(batches: &[RecordBatch]) -> Result<String, ArrowError> {
    let options = FormatOptions::default().with_null("null");
    arrow_cast::pretty::pretty_format_batches_with_options(batches, &options).map(|t| t.to_string())
}

fn write_csv(batches: Batches, out: &mut dyn Write) -> Result<(), Failure> {
    let mut writer = arrow_csv::WriterBuilder::new().with_header(true).build(out);
    for batch in batches {
        let batch = batch
            .and_then(|b| with_variants_as_json(&b))
            .map_err(Failure::Read)?;
        writer.write(&nested_as_json(&displayable_timestamps(&batch))?)?;
    }
    Ok(())
}

fn write_jsonl(batches: Batches, out: &mut dyn Write) -> Result<(), Failure> {
    let mut writer = arrow_json::WriterBuilder::new()
        .with_explicit_nulls(true)
        .with_encoder_factory(EmbedJsonText::shared())
        .build::<_, arrow_json::writer::LineDelimited>(out);
    for batch in batches {
        let batch = batch
            .and_then(|b| with_variants_as_json(&b))
            .map_err(Failure::Read)?;
        writer.write(&displayable_timestamps(&batch))?;
    }
    writer.finish()?;
    Ok(())
}

/// CSV has no nested values: structs, lists and maps become their JSON text (as `hb cat
/// --format jsonl` prints them); a null stays an empty field.
pub fn nested_as_json(batch: &RecordBatch) -> Result<RecordBatch, ArrowError> {
    if !batch.columns().iter().any(|c| c.data_type().is_nested()) {
        return Ok(batch.clone());
    }
    let options = arrow_json::writer::EncoderOptions::default()
        .with_explicit_nulls(true)
        .with_encoder_factory(EmbedJsonText::shared());
    let mut fields = Vec::with_capacity(batch.num_columns());
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(batch.num_columns());
    for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
        if !column.data_type().is_nested() {
            fields.push(field.clone());
            columns.push(column.clone());
            continue;
        }
        let mut encoder = arrow_json::writer::make_encoder(field, column.as_ref(), &options)?;
        let mut text = Vec::new();
        let values: Vec<Option<String>> = (0..column.len())
            .map(|row| {
                if encoder.is_null(row) {
                    return Ok(None);
                }
                text.clear();
                encoder.encode(row, &mut text);
                String::from_utf8(text.clone())
                    .map(Some)
                    .map_err(|e| ArrowError::JsonError(e.to_string()))
            })
            .collect::<Result<_, ArrowError>>()?;
        fields.push(Arc::new(Field::new(
            field.name(),
            arrow_schema::DataType::Utf8,
            true,
        )));
        columns.push(Arc::new(StringArray::from(values)));
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
}

/// Timestamps beyond the calendar range of Arrow's formatters (about ±262,000 years: an
/// INT96 `9999-12-31` read as seconds can land there) would print as an error text (table,
/// JSON) or stop the output (CSV). A top-level timestamp column holding such a value is
/// printed as text instead: the usual form where it exists, else the raw count of units
/// since the epoch.
pub fn displayable_timestamps(batch: &RecordBatch) -> RecordBatch {
    let mut columns = batch.columns().to_vec();
    let mut fields: Vec<arrow_schema::FieldRef> = batch.schema().fields().iter().cloned().collect();
    let mut changed = false;
    for (column, field) in columns.iter_mut().zip(fields.iter_mut()) {
        let arrow_schema::DataType::Timestamp(unit, _) = column.data_type() else {
            continue;
        };
        let unit = *unit;
        // Every timestamp array holds i64 values; reinterpret to read them uniformly.
        let Ok(raw) = arrow_cast::cast(column.as_ref(), &arrow_schema::DataType::Int64) else {
            continue;
        };
        let raw = raw
            .as_any()
            .downcast_ref::<arrow_array::Int64Array>()
            .cloned()
            .unwrap_or_else(|| arrow_array::Int64Array::from(Vec::<i64>::new()));
        let fits = |v: i64| match unit {
            arrow_schema::TimeUnit::Second => as_datetime::<TimestampSecondType>(v).is_some(),
            arrow_schema::TimeUnit::Millisecond => {
                as_datetime::<TimestampMillisecondType>(v).is_some()
            }
            arrow_schema::TimeUnit::Microsecond => {
                as_datetime::<TimestampMicrosecondType>(v).is_some()
            }
            arrow_schema::TimeUnit::Nanosecond => {
                as_datetime::<TimestampNanosecondType>(v).is_some()
            }
        };
        if raw.len() != column.len() || raw.iter().flatten().all(fits) {
            continue;
        }
        let options = FormatOptions::default();
        let original = column.clone();
        let Ok(formatter) =
            arrow_cast::display::ArrayFormatter::try_new(original.as_ref(), &options)
        else {
            continue;
        };
        let suffix = match unit {
            arrow_schema::TimeUnit::Second => "s",
            arrow_schema::TimeUnit::Millisecond => "ms",
            arrow_schema::TimeUnit::Microsecond => "us",
            arrow_schema::TimeUnit::Nanosecond => "ns",
        };
        let text: StringArray = (0..raw.len())
            .map(|i| {
                raw.is_valid(i).then(|| {
                    let v = raw.value(i);
                    if fits(v) {
                        formatter.value(i).to_string()
                    } else {
                        format!("{v} {suffix} since 1970-01-01 (beyond the printable calendar)")
                    }
                })
            })
            .collect();
        *column = Arc::new(text);
        *field = Arc::new(Field::new(
            field.name(),
            arrow_schema::DataType::Utf8,
            field.is_nullable(),
        ));
        changed = true;
    }
    if !changed {
        return batch.clone();
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap_or_else(|_| batch.clone())
}
