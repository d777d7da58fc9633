//! `hb convert IN OUT`: rows from Parquet, an Arrow IPC file, CSV or JSON lines, written
//! as any of the four; each file's extension picks its format. Batches stream from the
//! input to the output one at a time, so memory stays bounded by a batch (and, for
//! Parquet output, by the row group in progress).
//!
//! CSV and JSON lines carry no schema: it is inferred from the first rows of the input
//! ([`INFER_ROWS`]). CSV and JSON lines output hold the very text `hb cat --format csv`
//! and `--format jsonl` print (nested values in CSV as JSON text).

use std::cell::Cell;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_ipc::writer::{DictionaryHandling, FileWriter, IpcWriteOptions};
use arrow_schema::{ArrowError, SchemaRef};

use herringbone::ArrowWriter;

use super::cat::as_text;
use super::ipc_dictionaries::GrowingDictionaries;
use super::progress::Progress;
use super::reading::{Batches, ReadArgs};
use super::render::{Row, variants_as_json};
use super::variant_input::{VariantJsonLines, variant_batch, variant_schema};
use super::writing::WriteArgs;

/// Rows read to infer the schema of a CSV or JSON lines input.
pub const INFER_ROWS: usize = 10_000;
/// Rows per batch read from CSV, JSON lines (Parquet uses the reader's default).
const BATCH_ROWS: usize = 8192;

/// The formats `hb convert` reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Parquet,
    Ipc,
    Csv,
    Jsonl,
}

/// Extensions and the format each names; Feather v2 is the Arrow IPC file format.
const EXTENSIONS: &[(&str, Kind)] = &[
    ("parquet", Kind::Parquet),
    ("arrow", Kind::Ipc),
    ("ipc", Kind::Ipc),
    ("feather", Kind::Ipc),
    ("csv", Kind::Csv),
    ("jsonl", Kind::Jsonl),
    ("ndjson", Kind::Jsonl),
];

/// Options of `hb convert` that concern the input's columns.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CsvArgs {
    /// The CSV input has no header line (columns are named column_1, column_2, ...).
    #[arg(long)]
    pub no_header: bool,
    /// Read a column as a Variant: from JSON lines, the member's whole JSON value; from
    /// CSV, Parquet or Arrow IPC, a text column of JSON; repeatable.
    #[arg(long = "variant", value_name = "COL")]
    pub variant: Vec<String>,
}

/// The format of `path` by its extension; an input without a known one (a `_metadata`
/// summary file, say) by its first bytes: `PAR1` / `PARE` Parquet, `ARROW1` Arrow IPC.
fn kind_of(path: &Path, role: &str) -> Result<Kind, String> {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    extension
        .and_then(|e| EXTENSIONS.iter().find(|(x, _)| *x == e).map(|(_, k)| *k))
        .or_else(|| (role == "input").then(|| kind_by_magic(path)).flatten())
        .ok_or_else(|| {
            format!(
                "{}: unsupported {role} format; supported: {}",
                path.display(),
                EXTENSIONS
                    .iter()
                    .map(|(e, _)| format!(".{e}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

fn kind_by_magic(path: &Path) -> Option<Kind> {
    use std::io::Read;
    let mut head = [0u8; 6];
    let mut file = std::fs::File::open(path).ok()?;
    let n = file.read(&mut head).ok()?;
    match &head[..n] {
        [b'P', b'A', b'R', b'1' | b'E', ..] => Some(Kind::Parquet),
        b"ARROW1" => Some(Kind::Ipc),
        _ => None,
    }
}

pub fn run(
    input: &Path,
    output: &Path,
    args: &ReadArgs,
    write_args: &WriteArgs,
    encrypt: &super::keys::EncryptArgs,
    csv: &CsvArgs,
    out: &mut dyn Write,
) -> Result<(), String> {
    let in_kind = kind_of(input, "input")?;
    let out_kind = kind_of(output, "output")?;
    if in_kind != Kind::Parquet {
        if args.columns.is_some() {
            return Err("--columns applies only to Parquet input".to_string());
        }
        if args.int96_unit.is_some() {
            return Err("--int96-unit applies only to Parquet input".to_string());
        }
        if args.salvage.is_some() {
            return Err("--salvage applies only to Parquet input".to_string());
        }
    }
    // The key options decrypt a Parquet input and encrypt a Parquet output.
    if args.keys.any() && in_kind != Kind::Parquet && out_kind != Kind::Parquet {
        return Err(
            "--footer-key, --column-key and --aad-prefix apply only to Parquet files".to_string(),
        );
    }
    let encryption = if out_kind == Kind::Parquet {
        args.keys.encryption(encrypt)?
    } else {
        if encrypt.encryption_algorithm.is_some()
            || encrypt.plaintext_footer
            || encrypt.store_aad_prefix
        {
            return Err("--encryption-algorithm, --plaintext-footer and --store-aad-prefix apply only to Parquet output".to_string());
        }
        None
    };
    if csv.no_header && in_kind != Kind::Csv {
        return Err("--no-header applies only to CSV input".to_string());
    }
    if same_file(input, output) {
        return Err(format!(
            "{}: the output would overwrite the input",
            output.display()
        ));
    }
    // The input is opened (footer or schema inference, projection checked) before the
    // output is created, so a bad input leaves no empty output behind.
    let source = Source::open(input, in_kind, args, csv)?.with_variants(&csv.variant)?;
    let properties = if out_kind == Kind::Parquet {
        Some(write_args.properties(source.rows_hint.max(1), encryption)?)
    } else {
        None
    };
    let file = File::create(output).map_err(|e| format!("{}: {e}", output.display()))?;
    let written = copy(source, file, output, out_kind, properties);
    if written.is_err() {
        // A partial file (an IPC or Parquet file without its footer) is unreadable: do
        // not leave it behind.
        let _ = std::fs::remove_file(output);
    }
    let (rows, count) = written?;
    writeln!(
        out,
        "wrote {rows} rows in {count} batches to {}",
        output.display()
    )
    .map_err(|e| format!("writing output: {e}"))
}

/// Reads every batch of `source` into a writer of `kind` on `file`; returns rows and
/// batches written.
fn copy(
    mut source: Source,
    file: File,
    output: &Path,
    kind: Kind,
    properties: Option<herringbone::WriterProperties>,
) -> Result<(usize, usize), String> {
    let failed = |e: ArrowError| format!("{}: {e}", output.display());
    let mut sink = Sink::new(
        kind,
        BufWriter::new(file),
        source.schema.clone(),
        source.variants.clone(),
        properties,
    )
    .map_err(failed)?;
    let mut progress = Progress::on_stderr();
    let (mut rows, mut count) = (0usize, 0usize);
    for batch in &mut source.batches {
        let batch = batch?;
        rows += batch.num_rows();
        count += 1;
        sink.write(&batch).map_err(failed)?;
        progress.update(rows as u64, (source.fraction)(rows as u64));
    }
    sink.finish().map_err(failed)?;
    progress.finish();
    Ok((rows, count))
}

/// An input opened as a stream of batches.
struct Source {
    schema: SchemaRef,
    /// The top-level Variant columns (Parquet input), printed as JSON in text outputs.
    variants: Vec<String>,
    batches: Box<dyn Iterator<Item = Result<RecordBatch, String>>>,
    /// The rows expected (exact for Parquet, an estimate otherwise): sizes Bloom filters.
    rows_hint: u64,
    /// The fraction of the input done, given the rows read so far.
    fraction: Box<dyn Fn(u64) -> Option<f64>>,
}

impl Source {
    /// The source with the `--variant` text columns parsed into Variants (JSON lines
    /// inputs have them already).
    fn with_variants(self, names: &[String]) -> Result<Self, String> {
        if names.is_empty() {
            return Ok(self);
        }
        let (schema, indices) = variant_schema(&self.schema, names)?;
        if indices.is_empty() {
            return Ok(self);
        }
        let output = schema.clone();
        let batches = self
            .batches
            .map(move |b| b.and_then(|b| variant_batch(&b, &indices, &output)));
        Ok(Self {
            schema,
            batches: Box::new(batches),
            ..self
        })
    }

    fn open(path: &Path, kind: Kind, args: &ReadArgs, csv: &CsvArgs) -> Result<Self, String> {
        let name = path.display().to_string();
        let named = move |e: &dyn std::fmt::Display| format!("{name}: {e}");
        if kind == Kind::Parquet {
            let batches = Batches::open(path, args, |b| b)?;
            let total = batches.selected_rows() as u64;
            return Ok(Self {
                variants: super::cat::variant_columns(&batches),
                schema: batches.schema(),
                batches: Box::new(batches),
                rows_hint: total,
                fraction: Box::new(move |rows| (total > 0).then(|| rows as f64 / total as f64)),
            });
        }
        let mut file = File::open(path).map_err(|e| named(&e))?;
        let meta = file.metadata().map_err(|e| named(&e))?;
        if meta.is_dir() {
            return Err(named(&"is a directory"));
        }
        let size = meta.len();
        if kind == Kind::Ipc {
            let reader = arrow_ipc::reader::FileReader::try_new_buffered(file, None)
                .map_err(|e| named(&e))?;
            let schema = reader.schema();
            let total = reader.num_batches();
            let done = Rc::new(Cell::new(0usize));
            let seen = done.clone();
            let named = named.clone();
            let batches = reader.map(move |b| {
                seen.set(seen.get() + 1);
                b.map_err(|e| named(&e))
            });
            return Ok(Self {
                schema,
                variants: Vec::new(),
                batches: Box::new(batches),
                // Unknown without reading every block; a typical batch size stands in.
                rows_hint: total as u64 * BATCH_ROWS as u64,
                fraction: Box::new(move |_| (total > 0).then(|| done.get() as f64 / total as f64)),
            });
        }
        let rows_hint = estimate_lines(&mut file, size).map_err(|e| named(&e))?;
        if kind == Kind::Jsonl && !csv.variant.is_empty() {
            let sample = BufReader::new(File::open(path).map_err(|e| named(&e))?);
            let consumed = Rc::new(Cell::new(0u64));
            let counting = Counting {
                inner: file,
                count: consumed.clone(),
            };
            let reader = VariantJsonLines::try_new(
                sample,
                BufReader::new(counting),
                &csv.variant,
                INFER_ROWS,
                BATCH_ROWS,
            )
            .map_err(|e| named(&e))?;
            let named = named.clone();
            return Ok(Self {
                schema: reader.schema(),
                variants: Vec::new(),
                batches: Box::new(reader.map(move |b| b.map_err(|e| named(&e)))),
                rows_hint,
                fraction: Box::new(move |_| {
                    (size > 0).then(|| consumed.get() as f64 / size as f64)
                }),
            });
        }
        let schema = match kind {
            Kind::Csv => csv_format(csv)
                .infer_schema(BufReader::new(&mut file), Some(INFER_ROWS))
                .map(|(schema, _)| schema),
            _ => arrow_json::reader::infer_json_schema(BufReader::new(&mut file), Some(INFER_ROWS))
                .map(|(schema, _)| schema),
        }
        .map_err(|e| named(&format!("inferring the schema: {e}")))?;
        if schema.fields().is_empty() {
            return Err(named(&"no columns found"));
        }
        // A --variant column of a CSV is JSON text, whatever it looks like.
        let schema = match kind {
            Kind::Csv => arrow_schema::Schema::new(
                schema
                    .fields()
                    .iter()
                    .map(|f| {
                        if csv.variant.contains(f.name()) {
                            Arc::new(
                                f.as_ref()
                                    .clone()
                                    .with_data_type(arrow_schema::DataType::Utf8),
                            )
                        } else {
                            f.clone()
                        }
                    })
                    .collect::<Vec<_>>(),
            ),
            _ => schema,
        };
        let schema = Arc::new(schema);
        file.seek(SeekFrom::Start(0)).map_err(|e| named(&e))?;
        let consumed = Rc::new(Cell::new(0u64));
        let counting = Counting {
            inner: file,
            count: consumed.clone(),
        };
        let batches: Box<dyn Iterator<Item = Result<RecordBatch, String>>> = match kind {
            Kind::Csv => {
                let reader = arrow_csv::ReaderBuilder::new(schema.clone())
                    .with_format(csv_format(csv))
                    .with_batch_size(BATCH_ROWS)
                    .build(counting)
                    .map_err(|e| named(&e))?;
                let named = named.clone();
                Box::new(reader.map(move |b| b.map_err(|e| named(&e))))
            }
            _ => {
                let reader = arrow_json::ReaderBuilder::new(schema.clone())
                    .with_batch_size(BATCH_ROWS)
                    .build(BufReader::new(counting))
                    .map_err(|e| named(&e))?;
                let named = named.clone();
                Box::new(reader.map(move |b| b.map_err(|e| named(&e))))
            }
        };
        Ok(Self {
            schema,
            variants: Vec::new(),
            batches,
            rows_hint,
            fraction: Box::new(move |_| (size > 0).then(|| consumed.get() as f64 / size as f64)),
        })
    }
}

fn csv_format(csv: &CsvArgs) -> arrow_csv::reader::Format {
    arrow_csv::reader::Format::default().with_header(!csv.no_header)
}

/// The number of lines of a text file, estimated from its first MiB (exact when the
/// file is smaller); leaves the file at its start.
fn estimate_lines(file: &mut File, size: u64) -> std::io::Result<u64> {
    let mut prefix = Vec::new();
    Read::by_ref(file).take(1 << 20).read_to_end(&mut prefix)?;
    file.seek(SeekFrom::Start(0))?;
    let lines = prefix.iter().filter(|&&b| b == b'\n').count() as u64;
    if prefix.is_empty() || size <= prefix.len() as u64 {
        return Ok(lines.max(1));
    }
    Ok((size as f64 * lines.max(1) as f64 / prefix.len() as f64) as u64)
}

/// A reader that counts the bytes it hands out (the progress of a text input).
struct Counting<R> {
    inner: R,
    count: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.set(self.count.get() + n as u64);
        Ok(n)
    }
}

/// An output being written.
enum Sink {
    Parquet(Box<ArrowWriter<BufWriter<File>>>),
    Ipc(FileWriter<BufWriter<File>>, GrowingDictionaries),
    Csv(arrow_csv::Writer<BufWriter<File>>, Vec<String>),
    Jsonl(BufWriter<File>, Vec<String>),
}

impl Sink {
    fn new(
        kind: Kind,
        file: BufWriter<File>,
        schema: SchemaRef,
        variants: Vec<String>,
        properties: Option<herringbone::WriterProperties>,
    ) -> Result<Self, ArrowError> {
        Ok(match kind {
            Kind::Parquet => Sink::Parquet(Box::new(
                ArrowWriter::try_new(file, schema, properties)
                    .map_err(|e| ArrowError::ExternalError(Box::new(e)))?,
            )),
            // Each Parquet row group brings its own dictionaries; the file keeps one per
            // column and extends it.
            Kind::Ipc => Sink::Ipc(
                FileWriter::try_new_with_options(
                    file,
                    &schema,
                    IpcWriteOptions::default().with_dictionary_handling(DictionaryHandling::Delta),
                )?,
                GrowingDictionaries::default(),
            ),
            Kind::Csv => Sink::Csv(
                arrow_csv::WriterBuilder::new()
                    .with_header(true)
                    .build(file),
                variants,
            ),
            Kind::Jsonl => Sink::Jsonl(file, variants),
        })
    }

    fn write(&mut self, batch: &RecordBatch) -> Result<(), ArrowError> {
        match self {
            Sink::Parquet(w) => w
                .write(batch)
                .map_err(|e| ArrowError::ExternalError(Box::new(e))),
            Sink::Ipc(w, dictionaries) => w.write(&dictionaries.rebase(batch)?),
            // The same text `hb cat --format csv|jsonl` prints.
            Sink::Csv(w, variants) => {
                let batch = as_json(batch)?;
                w.write(&as_text(&batch, variants).map_err(ArrowError::ComputeError)?)
            }
            Sink::Jsonl(w, variants) => {
                let batch = as_json(batch)?;
                let row = Row::new(&batch, variants).map_err(ArrowError::ComputeError)?;
                let mut line = String::new();
                for i in 0..batch.num_rows() {
                    line.clear();
                    row.json(i, &mut line).map_err(ArrowError::ComputeError)?;
                    line.push('\n');
                    w.write_all(line.as_bytes())
                        .map_err(|e| ArrowError::IoError(e.to_string(), e))?;
                }
                Ok(())
            }
        }
    }

    fn finish(self) -> Result<(), ArrowError> {
        let io = |e: std::io::Error| ArrowError::IoError(e.to_string(), e);
        let mut file = match self {
            Sink::Parquet(w) => {
                let mut w = *w;
                w.finish()
                    .map_err(|e| ArrowError::ExternalError(Box::new(e)))?;
                w.into_inner()
            }
            Sink::Ipc(mut w, _) => {
                w.finish()?;
                w.into_inner()?
            }
            Sink::Csv(w, _) => w.into_inner(),
            Sink::Jsonl(w, _) => w,
        };
        file.flush().map_err(io)
    }
}

/// Variant columns as JSON text, for the text outputs.
fn as_json(batch: &RecordBatch) -> Result<RecordBatch, ArrowError> {
    variants_as_json(batch).map_err(ArrowError::ComputeError)
}

/// Whether both paths name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
