//! What `hb cat`, `hb scan` and `hb convert` share: the reading options (`--columns`,
//! `--int96-unit`, `--filter`) and opening a file as a stream of Arrow batches; and
//! reading a file's footer alone (`hb meta`, `hb schema`).

use std::path::Path;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{ArrowError, SchemaRef, TimeUnit};
use herringbone::encryption::read_metadata_with_decryption;
use herringbone::metadata::FileMetaData;
use herringbone::predicate::Predicate;
use herringbone::read::DirectoryFiles;
use herringbone::scan::{Scan, ScanBuilder, ScanMetrics};
use herringbone::schema::SchemaDescriptor;
use herringbone::schema::parquet_to_arrow;
use herringbone::{Projection, SchemaOptions};

/// A file's footer read alone: the leading magic, the tail and the metadata, a few small
/// reads whatever the file's size (`hb meta`, `hb schema`).
pub struct FileFooter {
    /// The file's size in bytes.
    pub file_len: u64,
    /// The decoded metadata.
    pub metadata: FileMetaData,
    /// The schema tree.
    pub schema: SchemaDescriptor,
}

impl FileFooter {
    /// Reads the footer of `path` (decrypting it, and the metadata of columns under
    /// their own keys, with `keys`); errors name the file.
    pub fn open(path: &Path, keys: &super::keys::KeyArgs) -> Result<Self, String> {
        let named = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        let decryption = keys.decryption().map_err(|e| named(&e))?;
        let file = std::fs::File::open(path).map_err(|e| named(&e))?;
        let file_len = file.metadata().map_err(|e| named(&e))?.len();
        let (metadata, _) =
            read_metadata_with_decryption(&file, decryption.as_ref()).map_err(|e| named(&e))?;
        let schema = SchemaDescriptor::new(&metadata.schema).map_err(|e| named(&e))?;
        Ok(Self {
            file_len,
            metadata,
            schema,
        })
    }

    /// The file's Variant columns (dotted Arrow path) and how each is shredded (empty
    /// when the schema does not map to Arrow).
    pub fn variant_columns(&self) -> Vec<(String, String)> {
        parquet_to_arrow(
            &self.schema,
            self.metadata.key_value_metadata.as_deref(),
            &SchemaOptions::default(),
        )
        .map(|mapping| herringbone::variant::describe_variant_columns(mapping.schema()))
        .unwrap_or_default()
    }
}

/// Options of every command that reads rows.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ReadArgs {
    /// Columns to read, comma-separated: top-level field names (`a,b`) or dotted leaf
    /// paths (`s.x`); printed in the order first named. Default: every column.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub columns: Option<Vec<String>>,
    /// Unit of INT96 timestamps. The default, ns, holds the years 1677..2262 only; older
    /// or later dates (Spark writes them) need a coarser unit.
    #[arg(long, value_enum, value_name = "UNIT")]
    pub int96_unit: Option<Int96Unit>,
    /// Keys of an encrypted file.
    #[command(flatten)]
    pub keys: super::keys::KeyArgs,
    /// Only the rows where EXPR is true, e.g. "l_shipdate >= '1998-09-01' AND
    /// l_returnflag = 'R'": comparisons, IN, IS [NOT] NULL, LIKE, BETWEEN, AND/OR/NOT,
    /// dotted paths for struct fields, literals read as the column's type. Row groups
    /// and pages that cannot match are skipped by their statistics, Bloom filters and
    /// page index.
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
    /// Set by the commands that take `--salvage`: read on past damage and log the
    /// losses here.
    #[arg(skip)]
    pub salvage: Option<super::salvage::SalvageLog>,
}

/// `--int96-unit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Int96Unit {
    /// Seconds.
    S,
    /// Milliseconds.
    Ms,
    /// Microseconds.
    Us,
    /// Nanoseconds.
    Ns,
}

impl From<Int96Unit> for TimeUnit {
    fn from(unit: Int96Unit) -> Self {
        match unit {
            Int96Unit::S => TimeUnit::Second,
            Int96Unit::Ms => TimeUnit::Millisecond,
            Int96Unit::Us => TimeUnit::Microsecond,
            Int96Unit::Ns => TimeUnit::Nanosecond,
        }
    }
}

/// A file opened for reading: the batches in the order `--columns` asked for, and what
/// the scan statistics need.
pub struct Batches {
    reader: Scan,
    /// Positions of the reader's top-level columns in output order (`None`: as read).
    order: Option<Vec<usize>>,
    schema: SchemaRef,
    path: String,
    metadata: Arc<FileMetaData>,
    parquet_schema: Arc<SchemaDescriptor>,
    leaf_columns: Vec<usize>,
    filtered: bool,
    salvage: Option<super::salvage::SalvageLog>,
}

impl Batches {
    /// Opens `path` with `args`; `configure` sets batch size, limit and the like. Errors
    /// name the file.
    pub fn open(
        path: &Path,
        args: &ReadArgs,
        configure: impl FnOnce(ScanBuilder<std::fs::File>) -> ScanBuilder<std::fs::File>,
    ) -> Result<Self, String> {
        let name = path.display().to_string();
        let named = |e: &dyn std::fmt::Display| format!("{name}: {}", with_hint(&e.to_string()));
        let file = std::fs::File::open(path).map_err(|e| named(&e))?;
        if file.metadata().map(|m| m.is_dir()).unwrap_or(false) {
            return Err(format!("{name}: is a directory"));
        }
        let mut options = SchemaOptions::new();
        if let Some(unit) = args.int96_unit {
            options = options.with_int96_unit(unit.into());
        }
        let mut builder = match args.keys.decryption().map_err(|e| format!("{name}: {e}"))? {
            Some(keys) => ScanBuilder::try_new_with_decryption(file, &keys),
            None => ScanBuilder::try_new(file),
        }
        .map_err(|e| named(&e))?
        .with_schema_options(options.clone())
        .with_salvage(args.salvage.is_some())
        // Chunks a `_metadata` file keeps in its data files, found beside it.
        .with_external_files(Arc::new(DirectoryFiles::beside(path)));
        if let Some(filter) = &args.filter {
            let predicate = Predicate::parse(filter).map_err(|e| format!("--{e}"))?;
            builder = builder.with_predicate(predicate);
        }
        // The one mapping of the schema the CLI makes (the scan makes its own): the file's
        // Arrow schema and the leaf columns a projection reads.
        let mapping = builder.mapping().map_err(|e| named(&e))?;
        let file_schema = mapping.schema().clone();
        let (projection, wanted) = match &args.columns {
            None => (Projection::All, Vec::new()),
            Some(names) => {
                let names = clean_names(names).map_err(|e| named(&e))?;
                let projection = projection_for(builder.parquet_schema(), &file_schema, &names)
                    .map_err(|e| format!("{name}: {e}"))?;
                (projection, names)
            }
        };
        let metadata = builder.metadata().clone();
        let parquet_schema = builder.parquet_schema().clone();
        let leaf_columns = mapping
            .project(&projection)
            .map_err(|e| named(&e))?
            .leaf_columns();
        let reader = configure(builder.with_projection(projection))
            .build()
            .map_err(|e| match &args.filter {
                Some(_) if e.to_string().starts_with("filter: ") => format!("--{e}"),
                _ => named(&e),
            })?;
        let read_schema = arrow_array::RecordBatchReader::schema(&reader);
        let order = output_order(&read_schema, &wanted);
        let schema = match &order {
            Some(order) => Arc::new(read_schema.project(order).map_err(|e| named(&e))?),
            None => read_schema,
        };
        Ok(Self {
            reader,
            order,
            schema,
            path: name,
            metadata,
            parquet_schema,
            leaf_columns,
            filtered: args.filter.is_some(),
            salvage: args.salvage.clone(),
        })
    }

    /// The schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The file's metadata.
    pub fn metadata(&self) -> &Arc<FileMetaData> {
        &self.metadata
    }

    /// The file's Parquet schema.
    pub fn parquet_schema(&self) -> &Arc<SchemaDescriptor> {
        &self.parquet_schema
    }

    /// The leaf columns the projection reads (indexes into the Parquet schema's
    /// columns; a filter's own columns are not counted).
    pub fn leaf_columns(&self) -> &[usize] {
        &self.leaf_columns
    }

    /// The rows of the file's row groups (before any offset, limit or filter): what a
    /// full read returns.
    pub fn selected_rows(&self) -> usize {
        self.metadata
            .row_groups
            .iter()
            .map(|g| usize::try_from(g.num_rows).unwrap_or(0))
            .sum()
    }

    /// Whether a filter selects rows (then [`Self::selected_rows`] is only an upper bound).
    pub fn filtered(&self) -> bool {
        self.filtered
    }

    /// What was pruned and read (rows matched so far).
    pub fn metrics(&self) -> &ScanMetrics {
        self.reader.metrics()
    }
}

impl Iterator for Batches {
    type Item = Result<RecordBatch, String>;

    fn next(&mut self) -> Option<Self::Item> {
        let batch = self.reader.next();
        if let Some(log) = &self.salvage {
            let rows = match &batch {
                Some(Ok(b)) => b.num_rows(),
                _ => 0,
            };
            log.update(self.reader.salvage_report(), rows);
        }
        let batch = batch?;
        Some(
            batch
                .and_then(|b| match &self.order {
                    Some(order) => b.project(order),
                    None => Ok(b),
                })
                .map_err(|e| format!("{}: {}", self.path, with_hint(&e.to_string()))),
        )
    }
}

/// The names of `--columns`, trimmed, without duplicates; an empty name is an error.
fn clean_names(names: &[String]) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for name in names {
        let name = name.trim();
        if name.is_empty() {
            return Err("--columns: empty column name".to_string());
        }
        if !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
    }
    Ok(out)
}

/// Top-level field names select whole fields (`Projection::Roots`); as soon as one name
/// is a dotted leaf path, every name is resolved as a Parquet path
/// (`Projection::Leaves`), where a top-level name selects all the leaves below it.
fn projection_for(
    descriptor: &SchemaDescriptor,
    schema: &SchemaRef,
    names: &[String],
) -> Result<Projection, String> {
    let root_index = |name: &str| schema.fields().iter().position(|f| f.name() == name);
    if let Some(roots) = names
        .iter()
        .map(|n| root_index(n))
        .collect::<Option<Vec<usize>>>()
    {
        return Ok(Projection::Roots(roots));
    }
    // Checked here (rather than relying on `Projection::from_paths`) to name the unknown
    // column and what the file has instead.
    for name in names {
        let wanted: Vec<&str> = name.split('.').collect();
        let known = descriptor.columns().iter().any(|c| {
            let parts = c.path().parts();
            parts.len() >= wanted.len() && parts.iter().zip(&wanted).all(|(a, b)| a == b)
        });
        if !known {
            let roots: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
            let more = roots.len().saturating_sub(12);
            let shown = &roots[..roots.len().min(12)];
            let suffix = if more > 0 {
                format!(", ... {more} more")
            } else {
                String::new()
            };
            return Err(format!(
                "--columns: no column `{name}` (top-level fields: {}{suffix})",
                shown.join(", ")
            ));
        }
    }
    let paths: Vec<&str> = names.iter().map(String::as_str).collect();
    Projection::from_paths(descriptor, &paths).map_err(|e| e.to_string())
}

/// The reader returns top-level fields in file order; this puts them in the order their
/// first mention in `--columns` (`None` when that is the file order already).
fn output_order(schema: &SchemaRef, wanted: &[String]) -> Option<Vec<usize>> {
    if wanted.is_empty() {
        return None;
    }
    let rank = |field: &str| {
        wanted
            .iter()
            .position(|w| w == field || w.split('.').next() == Some(field))
            .unwrap_or(usize::MAX)
    };
    let mut order: Vec<usize> = (0..schema.fields().len()).collect();
    order.sort_by_key(|&i| rank(schema.field(i).name()));
    (order.iter().enumerate().any(|(i, &o)| i != o)).then_some(order)
}

/// The reader's message as `hb` prints it: without the wrapper prefix Arrow adds to the
/// iterator's errors, and naming the command-line option where the library names its
/// Rust API.
fn with_hint(message: &str) -> String {
    let message = message.strip_prefix("External error: ").unwrap_or(message);
    message.replace(
        "(SchemaOptions::with_int96_unit)",
        "(--int96-unit, e.g. --int96-unit us)",
    )
}

/// Whether an Arrow writer error is a closed output pipe (`hb cat ... | head`), which
/// ends the command quietly rather than as a failure.
pub fn is_broken_pipe(error: &ArrowError) -> bool {
    match error {
        ArrowError::IoError(_, e) => e.kind() == std::io::ErrorKind::BrokenPipe,
        ArrowError::ExternalError(e) => e
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe),
        _ => false,
    }
}
