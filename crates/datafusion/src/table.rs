//! [`HerringboneTable`]: Parquet files as a DataFusion table, scanned by Herringbone.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::{DataFusionError, Result, Statistics};
use datafusion::datasource::TableType;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;
use futures::{TryStreamExt, future};
use herringbone::async_read::{DEFAULT_FOOTER_SIZE_HINT, ObjectStoreReader, read_metadata_async};
use herringbone::metadata::FileMetaData;
use herringbone::predicate::Predicate;
use herringbone::prune::Pruner;
use herringbone::read::ReaderMetadata;
use herringbone::schema::SchemaDescriptor;
use herringbone::schema::{ArrowSchemaMapping, SchemaOptions, parquet_to_arrow};
use object_store::{ObjectStore, ObjectStoreExt};

use crate::exec::{HerringboneExec, Part};
use crate::expr::to_predicate;
use crate::ordering::DeclaredOrder;
use crate::store::{FetchCounts, StoreFile};

/// Where a file of a table is.
#[derive(Debug, Clone)]
pub(crate) enum Location {
    /// A local file, read with positioned reads.
    Local(PathBuf),
    /// An object of an `object_store`, read by ranges fetched ahead.
    Store(StoreFile),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Local(path) => write!(f, "{}", path.display()),
            Location::Store(file) => write!(f, "{}", file.reader.path()),
        }
    }
}

/// One Parquet file of a table, its footer read once: the scans of every partition
/// start from it.
#[derive(Debug)]
pub(crate) struct FileEntry {
    pub location: Location,
    pub footer: ReaderMetadata,
    pub mapping: ArrowSchemaMapping,
}

impl FileEntry {
    fn new(location: Location, footer: ReaderMetadata) -> Result<Self> {
        let mapping = parquet_to_arrow(
            footer.parquet_schema(),
            footer.metadata().key_value_metadata.as_deref(),
            &SchemaOptions::default(),
        )
        .map_err(|e| external(format!("{location}: {e}")))?;
        Ok(Self {
            location,
            footer,
            mapping,
        })
    }

    pub fn metadata(&self) -> &Arc<FileMetaData> {
        self.footer.metadata()
    }

    pub fn descriptor(&self) -> &Arc<SchemaDescriptor> {
        self.footer.parquet_schema()
    }
}

/// Parquet files with one schema, as a DataFusion table scanned by Herringbone.
///
/// The scan reads the projected columns of the row groups left after pruning by the
/// pushed-down filters (chunk statistics, Bloom filters, the page index), in as many
/// partitions as the session's `target_partitions` (consecutive row groups each);
/// filters are pushed down as `Inexact` (DataFusion applies them again). The planner
/// gets exact row counts and the columns' bounds and null counts, and the scan's output
/// ordering from the files' `sorting_columns` where the row groups of each partition
/// follow one another in that order (see [`HerringboneTable::with_sorting_columns`]).
///
/// ```no_run
/// # async fn example() -> datafusion::common::Result<()> {
/// use std::sync::Arc;
/// use datafusion::prelude::SessionContext;
/// use herringbone_datafusion::HerringboneTable;
/// let ctx = SessionContext::new();
/// let table = HerringboneTable::try_new(vec!["lineitem.parquet".into()])?;
/// ctx.register_table("lineitem", Arc::new(table))?;
/// let batches = ctx.sql("SELECT count(*) FROM lineitem WHERE l_quantity > 45").await?.collect().await?;
/// # Ok(()) }
/// ```
pub struct HerringboneTable {
    files: Vec<Arc<FileEntry>>,
    schema: SchemaRef,
    statistics: Statistics,
    order: DeclaredOrder,
    fetch_counts: Arc<FetchCounts>,
}

impl HerringboneTable {
    /// A table of `paths`: Parquet files, or folders whose `*.parquet` files (sorted by
    /// name) are read. Every file must have the same Arrow schema.
    pub fn try_new(paths: Vec<PathBuf>) -> Result<Self> {
        let mut files = Vec::new();
        for path in paths {
            if path.is_dir() {
                let mut inside: Vec<PathBuf> = std::fs::read_dir(&path)
                    .map_err(|e| external(format!("{}: {e}", path.display())))?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
                    .collect();
                inside.sort();
                files.extend(inside);
            } else {
                files.push(path);
            }
        }
        let mut entries = Vec::with_capacity(files.len());
        for path in files {
            entries.push(open(&path)?);
        }
        Self::from_files(entries)
    }

    /// A table of objects in `store`: each location is an object or a prefix whose
    /// `*.parquet` objects (sorted by path) are read. Every footer is read once, here,
    /// with one ranged request when it fits in the last 64 KiB; scans then fetch each
    /// row group's byte ranges, coalesced, one row group ahead of the decoding.
    ///
    /// ```no_run
    /// # async fn example() -> datafusion::common::Result<()> {
    /// use std::sync::Arc;
    /// use datafusion::prelude::SessionContext;
    /// use herringbone_datafusion::HerringboneTable;
    /// use object_store::{ObjectStore, local::LocalFileSystem, path::Path};
    /// let store: Arc<dyn ObjectStore> = Arc::new(LocalFileSystem::new_with_prefix("/data")?);
    /// let table = HerringboneTable::try_new_in_store(store, vec![Path::from("lineitem")]).await?;
    /// let ctx = SessionContext::new();
    /// ctx.register_table("lineitem", Arc::new(table))?;
    /// # Ok(()) }
    /// ```
    pub async fn try_new_in_store(
        store: Arc<dyn ObjectStore>,
        locations: Vec<object_store::path::Path>,
    ) -> Result<Self> {
        let mut objects = Vec::new();
        for location in locations {
            match store.head(&location).await {
                Ok(meta) => objects.push((meta.location, meta.size)),
                Err(object_store::Error::NotFound { .. }) => {
                    let mut inside: Vec<(object_store::path::Path, u64)> = store
                        .list(Some(&location))
                        .try_filter(|m| future::ready(m.location.extension() == Some("parquet")))
                        .map_ok(|m| (m.location, m.size))
                        .try_collect()
                        .await
                        .map_err(|e| external(format!("{location}: {e}")))?;
                    if inside.is_empty() {
                        return Err(external(format!(
                            "{location}: no such object, and no Parquet object under it"
                        )));
                    }
                    inside.sort();
                    objects.extend(inside);
                }
                Err(e) => return Err(external(format!("{location}: {e}"))),
            }
        }
        let mut entries = Vec::with_capacity(objects.len());
        for (path, size) in objects {
            let reader = ObjectStoreReader::new(store.clone(), path);
            let metadata = read_metadata_async(&reader, size, DEFAULT_FOOTER_SIZE_HINT)
                .await
                .and_then(|m| ReaderMetadata::try_new(Arc::new(m)))
                .map_err(|e| external(format!("{}: {e}", reader.path())))?;
            entries.push(FileEntry::new(
                Location::Store(StoreFile { reader, size }),
                metadata,
            )?);
        }
        Self::from_files(entries)
    }

    fn from_files(entries: Vec<FileEntry>) -> Result<Self> {
        if entries.is_empty() {
            return Err(external("a table needs at least one Parquet file"));
        }
        let entries: Vec<Arc<FileEntry>> = entries.into_iter().map(Arc::new).collect();
        let schema = entries[0].mapping.schema().clone();
        for e in &entries[1..] {
            if e.mapping.schema().fields() != schema.fields() {
                return Err(external(format!(
                    "{}: its schema differs from {}'s",
                    e.location, entries[0].location
                )));
            }
        }
        let statistics = crate::statistics::table_statistics(&entries, schema.fields().len());
        let order = DeclaredOrder::of(&entries);
        Ok(Self {
            files: entries,
            schema,
            statistics,
            order,
            fetch_counts: Arc::new(FetchCounts::default()),
        })
    }

    /// What this table's scans fetched from its store so far (zero for local files).
    pub fn fetch_counts(&self) -> &Arc<FetchCounts> {
        &self.fetch_counts
    }

    /// Whether scans report the order the files' `sorting_columns` declare (on by
    /// default). The order inside a row group is the file's claim, trusted as DataFusion
    /// trusts a declared file order; turn this off for files whose writer may be wrong.
    /// Across row groups the chunk statistics must show the order continues.
    pub fn with_sorting_columns(mut self, use_them: bool) -> Self {
        if !use_them {
            self.order = DeclaredOrder::default();
        }
        self
    }

    /// The top-level field names of the order the files declare (before checking that
    /// row groups follow one another), each with `DESC` when descending.
    pub fn declared_order(&self) -> Vec<String> {
        self.order
            .keys()
            .iter()
            .map(|k| {
                let name = self.schema.field(k.field).name();
                if k.descending {
                    format!("{name} DESC")
                } else {
                    name.clone()
                }
            })
            .collect()
    }

    /// The predicate of the filters Herringbone can evaluate, bound to the table.
    fn predicate(&self, filters: &[Expr]) -> Option<Predicate> {
        let translated: Vec<Predicate> = filters
            .iter()
            .filter_map(to_predicate)
            .filter(|p| p.bind(&self.schema).is_ok())
            .collect();
        match translated.len() {
            0 => None,
            1 => translated.into_iter().next(),
            _ => Some(Predicate::And(translated)),
        }
    }
}

fn open(path: &Path) -> Result<FileEntry> {
    let file =
        std::fs::File::open(path).map_err(|e| external(format!("{}: {e}", path.display())))?;
    let footer =
        ReaderMetadata::load(&file).map_err(|e| external(format!("{}: {e}", path.display())))?;
    FileEntry::new(Location::Local(path.to_path_buf()), footer)
}

pub(crate) fn external(message: impl Into<String>) -> DataFusionError {
    DataFusionError::External(message.into().into())
}

impl fmt::Debug for HerringboneTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HerringboneTable")
            .field(
                "files",
                &self
                    .files
                    .iter()
                    .map(|e| e.location.to_string())
                    .collect::<Vec<_>>(),
            )
            .field("schema", &self.schema)
            .finish()
    }
}

#[async_trait]
impl TableProvider for HerringboneTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        Ok(filters
            .iter()
            .map(|f| match to_predicate(f) {
                Some(p) if p.bind(&self.schema).is_ok() => TableProviderFilterPushDown::Inexact,
                _ => TableProviderFilterPushDown::Unsupported,
            })
            .collect())
    }

    fn statistics(&self) -> Option<Statistics> {
        Some(self.statistics.clone())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let predicate = self.predicate(filters);
        // Row groups left by the chunk statistics, in file order.
        let mut units: Vec<(usize, usize, u64)> = Vec::new();
        for (i, file) in self.files.iter().enumerate() {
            let groups: Vec<usize> = (0..file.metadata().row_groups.len()).collect();
            let keep = match &predicate {
                Some(p) => {
                    let bound = p
                        .bind(file.mapping.schema())
                        .map_err(|e| external(e.to_string()))?;
                    Pruner::try_new(&bound, file.metadata(), file.descriptor(), &file.mapping)
                        .and_then(|pruner| pruner.row_groups(file.metadata(), &groups))
                        .map_err(|e| external(format!("{}: {e}", file.location)))?
                }
                None => vec![true; groups.len()],
            };
            for (g, keep) in groups.into_iter().zip(keep) {
                let rows = u64::try_from(file.metadata().row_groups[g].num_rows).unwrap_or(0);
                if keep && rows > 0 {
                    units.push((i, g, rows));
                }
            }
        }
        let target = state.config().target_partitions().max(1);
        let partitions = split(&units, target);
        let projection = projection.cloned();
        let schema = match &projection {
            Some(p) => Arc::new(self.schema.project(p)?),
            None => self.schema.clone(),
        };
        let mut statistics = self.statistics.clone();
        if let Some(p) = &projection {
            statistics = statistics.project(Some(p));
        }
        if predicate.is_some() {
            statistics = statistics.to_inexact();
        }
        let kept = self.order.keys_kept(&partitions);
        let ordering = self.order.sort_exprs(kept, &schema, projection.as_deref());
        Ok(Arc::new(HerringboneExec::new(
            self.files.clone(),
            schema,
            projection,
            predicate,
            limit,
            partitions,
            statistics,
            ordering,
            state.config().batch_size(),
            self.fetch_counts.clone(),
        )))
    }
}

/// Consecutive units (file, row group, rows) cut into at most `target` partitions of
/// about the same number of rows.
fn split(units: &[(usize, usize, u64)], target: usize) -> Vec<Vec<Part>> {
    if units.is_empty() {
        return vec![Vec::new()];
    }
    let total: u64 = units.iter().map(|u| u.2).sum();
    let count = target.min(units.len());
    let per = total.div_ceil(count as u64).max(1);
    let mut partitions: Vec<Vec<Part>> = Vec::with_capacity(count);
    let mut current: Vec<Part> = Vec::new();
    let mut rows = 0u64;
    for (n, &(file, group, r)) in units.iter().enumerate() {
        match current.last_mut() {
            Some(part) if part.file == file => part.row_groups.push(group),
            _ => current.push(Part {
                file,
                row_groups: vec![group],
            }),
        }
        rows += r;
        // Close the partition when it has its share, or when every partition still to
        // open needs one of the units left.
        let units_left = units.len() - n - 1;
        let partitions_left = count - partitions.len() - 1;
        if partitions_left > 0 && (rows >= per || units_left == partitions_left) {
            partitions.push(std::mem::take(&mut current));
            rows = 0;
        }
    }
    if !current.is_empty() {
        partitions.push(current);
    }
    partitions
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(parts: &[Vec<Part>]) -> Vec<Vec<(usize, Vec<usize>)>> {
        parts
            .iter()
            .map(|p| p.iter().map(|x| (x.file, x.row_groups.clone())).collect())
            .collect()
    }

    #[test]
    fn partitions_are_balanced_and_consecutive() {
        let units = [(0, 0, 10), (0, 1, 10), (1, 0, 10), (1, 1, 10)];
        assert_eq!(
            shape(&split(&units, 2)),
            [vec![(0, vec![0, 1])], vec![(1, vec![0, 1])]]
        );
        assert_eq!(shape(&split(&units, 8)).len(), 4);
        assert_eq!(
            shape(&split(&units, 1)),
            [vec![(0, vec![0, 1]), (1, vec![0, 1])]]
        );
        let uneven = [(0, 0, 100), (0, 1, 1), (0, 2, 1), (0, 3, 1)];
        let parts = shape(&split(&uneven, 3));
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[0], [(0, vec![0])]);
        assert_eq!(split(&[], 4).len(), 1);
    }
}
