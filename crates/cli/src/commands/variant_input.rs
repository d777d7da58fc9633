//! `hb convert --variant COL`: input columns turned into Variant columns.
//!
//! From JSON lines, the member `COL` of each line, whatever JSON it holds (an object, an
//! array, a number, ...), becomes that row's Variant: the line is split before Arrow
//! sees it, so its types need not agree from row to row, and numbers stay exact. A line
//! without the member is a null row; a JSON `null` is a Variant null. From CSV, Parquet
//! or Arrow IPC, `COL` must be a text column of JSON values (or already a Variant).

use std::io::{BufRead, Cursor};
use std::sync::Arc;

use arrow_array::builder::BinaryBuilder;
use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions, StructArray};
use arrow_buffer::NullBufferBuilder;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use herringbone::variant::{JsonValue, VariantValue};
use herringbone::variant::{is_variant_field, json_to_variant, unshredded_type, variant_field};

/// The schema with each of `names` as a Variant field, and their indices; errors for a
/// missing column or one that is neither text nor a Variant.
pub fn variant_schema(
    schema: &SchemaRef,
    names: &[String],
) -> Result<(SchemaRef, Vec<usize>), String> {
    let mut fields: Vec<Arc<Field>> = schema.fields().iter().cloned().collect();
    let mut indices = Vec::with_capacity(names.len());
    for name in names {
        let index = schema.index_of(name).map_err(|_| {
            format!(
                "--variant {name}: no such column (columns: {})",
                schema
                    .fields()
                    .iter()
                    .map(|f| f.name().as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
        let field = &fields[index];
        if is_variant_field(field) {
            continue;
        }
        if !matches!(
            field.data_type(),
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
        ) {
            return Err(format!(
                "--variant {name}: the column is {}, not JSON text",
                field.data_type()
            ));
        }
        fields[index] = Arc::new(variant_field(name).with_nullable(field.is_nullable()));
        indices.push(index);
    }
    let schema = Schema::new(fields).with_metadata(schema.metadata().clone());
    Ok((Arc::new(schema), indices))
}

/// `batch` with the text columns at `indices` parsed as JSON into Variants.
pub fn variant_batch(
    batch: &RecordBatch,
    indices: &[usize],
    schema: &SchemaRef,
) -> Result<RecordBatch, String> {
    let mut columns = batch.columns().to_vec();
    for &index in indices {
        let name = schema.field(index).name();
        let variants = json_to_variant(columns[index].as_ref())
            .map_err(|e| format!("--variant {name}: {e}"))?;
        columns[index] = Arc::new(variants);
    }
    RecordBatch::try_new(schema.clone(), columns).map_err(|e| e.to_string())
}

/// Where an output column comes from.
#[derive(Debug, Clone, Copy)]
enum Slot {
    /// Column `j` of what arrow-json reads from the rest of each line.
    Rest(usize),
    /// Variant column `k` of `--variant`.
    Variant(usize),
}

/// JSON lines read with some members taken out as Variants.
pub struct VariantJsonLines<R> {
    lines: R,
    names: Vec<String>,
    rest_schema: SchemaRef,
    schema: SchemaRef,
    slots: Vec<Slot>,
    batch_rows: usize,
    line_number: usize,
    done: bool,
}

/// A Variant's metadata and value bytes.
type Encoded = (Vec<u8>, Vec<u8>);

/// One line split: the text of the other members (a JSON object) and each Variant
/// member's encoding (`None` when absent).
fn split_line(
    line: &str,
    names: &[String],
    keys: Option<&mut Vec<String>>,
) -> Result<(String, Vec<Option<Encoded>>), String> {
    let JsonValue::Object(members) = JsonValue::parse(line).map_err(|e| e.to_string())? else {
        return Err("not a JSON object".to_string());
    };
    let mut variants = vec![None; names.len()];
    let mut rest = String::from("{");
    let mut keys = keys;
    for (key, value) in &members {
        if let Some(keys) = keys.as_deref_mut()
            && !keys.contains(key)
        {
            keys.push(key.clone());
        }
        if let Some(k) = names.iter().position(|n| n == key) {
            if variants[k].is_some() {
                return Err(format!("member {key:?} appears twice"));
            }
            let encoded = VariantValue::from_json_value(value)
                .and_then(|v| v.encode())
                .map_err(|e| format!("member {key:?}: {e}"))?;
            variants[k] = Some((encoded.metadata, encoded.value));
            continue;
        }
        if rest.len() > 1 {
            rest.push(',');
        }
        write_json_string(&mut rest, key);
        rest.push(':');
        write_json(&mut rest, value);
    }
    rest.push('}');
    Ok((rest, variants))
}

fn write_json_string(out: &mut String, text: &str) {
    out.push_str(&serde_json::Value::from(text).to_string());
}

fn write_json(out: &mut String, value: &JsonValue) {
    match value {
        JsonValue::Null => out.push_str("null"),
        JsonValue::Bool(v) => out.push_str(if *v { "true" } else { "false" }),
        JsonValue::Number(text) => out.push_str(text),
        JsonValue::String(text) => write_json_string(out, text),
        JsonValue::Array(elements) => {
            out.push('[');
            for (i, element) in elements.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(out, element);
            }
            out.push(']');
        }
        JsonValue::Object(members) => {
            out.push('{');
            for (i, (key, value)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(out, key);
                out.push(':');
                write_json(out, value);
            }
            out.push('}');
        }
    }
}

/// The next non-blank line, with its number.
fn next_line<R: BufRead>(lines: &mut R, number: &mut usize) -> Result<Option<String>, String> {
    loop {
        let mut line = String::new();
        let read = lines.read_line(&mut line).map_err(|e| e.to_string())?;
        if read == 0 {
            return Ok(None);
        }
        *number += 1;
        if !line.trim().is_empty() {
            return Ok(Some(line));
        }
    }
}

impl<R: BufRead> VariantJsonLines<R> {
    /// Infers the schema from the first `infer_rows` lines of `sample` (the members of
    /// `names` as Variants, in the order members first appear), to read `lines` (the
    /// same input from its start) in batches of `batch_rows`.
    pub fn try_new<S: BufRead>(
        mut sample: S,
        lines: R,
        names: &[String],
        infer_rows: usize,
        batch_rows: usize,
    ) -> Result<Self, String> {
        let mut keys = Vec::new();
        let mut rest = String::new();
        let mut number = 0;
        let mut rows = 0;
        while rows < infer_rows {
            let Some(line) = next_line(&mut sample, &mut number)? else {
                break;
            };
            let (text, _) = split_line(&line, names, Some(&mut keys))
                .map_err(|e| format!("line {number}: {e}"))?;
            rest.push_str(&text);
            rest.push('\n');
            rows += 1;
        }
        // A misspelt --variant name is the likelier mistake than the other members'
        // types, so it is reported first.
        if let Some(name) = names.iter().find(|name| !keys.contains(name)) {
            return Err(format!(
                "--variant {name}: no line of the first {rows} has this member"
            ));
        }
        let (rest_schema, _) = arrow_json::reader::infer_json_schema(Cursor::new(rest), None)
            .map_err(|e| format!("inferring the schema: {e}"))?;
        let mut fields = Vec::new();
        let mut slots = Vec::new();
        for key in &keys {
            if let Some(k) = names.iter().position(|n| n == key) {
                fields.push(Arc::new(variant_field(key)));
                slots.push(Slot::Variant(k));
            } else if let Ok(j) = rest_schema.index_of(key) {
                fields.push(Arc::new(rest_schema.field(j).clone()));
                slots.push(Slot::Rest(j));
            }
        }
        Ok(Self {
            lines,
            names: names.to_vec(),
            rest_schema: Arc::new(rest_schema),
            schema: Arc::new(Schema::new(fields)),
            slots,
            batch_rows,
            line_number: 0,
            done: false,
        })
    }

    /// The schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>, String> {
        let mut rest = String::new();
        let mut rows = 0;
        let mut builders: Vec<(BinaryBuilder, BinaryBuilder, NullBufferBuilder)> = self
            .names
            .iter()
            .map(|_| {
                (
                    BinaryBuilder::new(),
                    BinaryBuilder::new(),
                    NullBufferBuilder::new(self.batch_rows),
                )
            })
            .collect();
        while rows < self.batch_rows {
            let Some(line) = next_line(&mut self.lines, &mut self.line_number)? else {
                self.done = true;
                break;
            };
            let (text, variants) = split_line(&line, &self.names, None)
                .map_err(|e| format!("line {}: {e}", self.line_number))?;
            rest.push_str(&text);
            rest.push('\n');
            for ((metadata, value, nulls), variant) in builders.iter_mut().zip(variants) {
                match variant {
                    Some((m, v)) => {
                        metadata.append_value(m);
                        value.append_value(v);
                        nulls.append_non_null();
                    }
                    None => {
                        metadata.append_value([0x01, 0x00, 0x00]);
                        value.append_null();
                        nulls.append_null();
                    }
                }
            }
            rows += 1;
        }
        if rows == 0 {
            return Ok(None);
        }
        let rest_columns = self.read_rest(rest, rows)?;
        let DataType::Struct(variant_fields) = unshredded_type() else {
            return Err("the unshredded Variant type is a struct".to_string());
        };
        let variants: Vec<ArrayRef> = builders
            .into_iter()
            .map(|(mut m, mut v, mut n)| {
                StructArray::try_new(
                    variant_fields.clone(),
                    vec![Arc::new(m.finish()), Arc::new(v.finish())],
                    n.finish(),
                )
                .map(|s| Arc::new(s) as ArrayRef)
                .map_err(|e| e.to_string())
            })
            .collect::<Result<_, _>>()?;
        let columns = self
            .slots
            .iter()
            .map(|slot| match slot {
                Slot::Rest(j) => rest_columns[*j].clone(),
                Slot::Variant(k) => variants[*k].clone(),
            })
            .collect();
        let options = RecordBatchOptions::new().with_row_count(Some(rows));
        RecordBatch::try_new_with_options(self.schema.clone(), columns, &options)
            .map(Some)
            .map_err(|e| e.to_string())
    }

    /// The other members of `rows` lines, read by arrow-json with the inferred schema.
    fn read_rest(&self, text: String, rows: usize) -> Result<Vec<ArrayRef>, String> {
        if self.rest_schema.fields().is_empty() {
            return Ok(Vec::new());
        }
        let reader = arrow_json::ReaderBuilder::new(self.rest_schema.clone())
            .with_batch_size(rows.max(1))
            .build(Cursor::new(text))
            .map_err(|e| e.to_string())?;
        let batches = reader
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("near line {}: {e}", self.line_number))?;
        let batch = arrow_select::concat::concat_batches(&self.rest_schema, &batches)
            .map_err(|e| e.to_string())?;
        if batch.num_rows() != rows {
            return Err(format!(
                "near line {}: {} rows read from {rows} lines",
                self.line_number,
                batch.num_rows()
            ));
        }
        Ok(batch.columns().to_vec())
    }
}

impl<R: BufRead> Iterator for VariantJsonLines<R> {
    type Item = Result<RecordBatch, String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_batch() {
            Ok(Some(batch)) => Some(Ok(batch)),
            Ok(None) => None,
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
