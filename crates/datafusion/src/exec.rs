//! [`HerringboneExec`]: the physical scan of a [`HerringboneTable`](crate::HerringboneTable).
//!
//! Each partition reads its row groups with a Herringbone [`ScanBuilder`] on a blocking
//! thread and hands the batches to DataFusion through a bounded channel (two batches
//! in flight), so a slow consumer holds the reader back instead of buffering the file.

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{Result, Statistics};
use datafusion::execution::TaskContext;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr, PhysicalSortExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::statistics::StatisticsArgs;
use datafusion::physical_plan::stream::RecordBatchReceiverStreamBuilder;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
    SendableRecordBatchStream,
};
use herringbone::predicate::Predicate;
use herringbone::read::{ChunkReader, Projection};
use herringbone::scan::ScanBuilder;
use tokio::runtime::Handle;

use crate::store::{FetchCounts, Prefetch, StoreFile};
use crate::table::{FileEntry, Location, external};

/// Row groups of one file that a partition reads, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Part {
    pub file: usize,
    pub row_groups: Vec<usize>,
}

/// The physical scan of Parquet files through Herringbone (see the module docs).
pub struct HerringboneExec {
    files: Vec<Arc<FileEntry>>,
    schema: SchemaRef,
    projection: Option<Vec<usize>>,
    predicate: Option<Predicate>,
    limit: Option<usize>,
    partitions: Arc<Vec<Vec<Part>>>,
    statistics: Arc<Statistics>,
    batch_size: usize,
    properties: Arc<PlanProperties>,
    fetch_counts: Arc<FetchCounts>,
}

impl HerringboneExec {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        files: Vec<Arc<FileEntry>>,
        schema: SchemaRef,
        projection: Option<Vec<usize>>,
        predicate: Option<Predicate>,
        limit: Option<usize>,
        partitions: Vec<Vec<Part>>,
        statistics: Statistics,
        ordering: Vec<PhysicalSortExpr>,
        batch_size: usize,
        fetch_counts: Arc<FetchCounts>,
    ) -> Self {
        let orderings = if ordering.is_empty() {
            vec![]
        } else {
            vec![ordering]
        };
        let properties = PlanProperties::new(
            EquivalenceProperties::new_with_orderings(schema.clone(), orderings),
            Partitioning::UnknownPartitioning(partitions.len()),
            EmissionType::Incremental,
            Boundedness::Bounded,
        );
        Self {
            files,
            schema,
            projection,
            predicate,
            limit,
            partitions: Arc::new(partitions),
            statistics: Arc::new(statistics),
            batch_size,
            properties: Arc::new(properties),
            fetch_counts,
        }
    }

    /// The predicate pushed down, if any.
    pub fn predicate(&self) -> Option<&Predicate> {
        self.predicate.as_ref()
    }
}

impl fmt::Debug for HerringboneExec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HerringboneExec")
            .field("files", &self.files.len())
            .field("projection", &self.projection)
            .field("predicate", &self.predicate.as_ref().map(|p| p.to_string()))
            .field("limit", &self.limit)
            .field("partitions", &self.partitions.len())
            .finish()
    }
}

impl DisplayAs for HerringboneExec {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        match t {
            DisplayFormatType::Default | DisplayFormatType::Verbose => {
                let groups: usize = self
                    .partitions
                    .iter()
                    .flat_map(|p| p.iter().map(|x| x.row_groups.len()))
                    .sum();
                write!(
                    f,
                    "HerringboneExec: files={}, row_groups={groups}, partitions={}",
                    self.files.len(),
                    self.partitions.len()
                )?;
                if let Some(p) = &self.projection {
                    let names: Vec<&str> = self
                        .schema
                        .fields()
                        .iter()
                        .map(|f| f.name().as_str())
                        .collect();
                    write!(f, ", projection=[{}]", names.join(", "))?;
                    let _ = p;
                }
                if let Some(p) = &self.predicate {
                    write!(f, ", predicate={p}")?;
                }
                if let Some(l) = self.limit {
                    write!(f, ", limit={l}")?;
                }
                Ok(())
            }
            DisplayFormatType::TreeRender => write!(f, "files={}", self.files.len()),
        }
    }
}

impl ExecutionPlan for HerringboneExec {
    fn name(&self) -> &'static str {
        "HerringboneExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn statistics_from_inputs(
        &self,
        _input_stats: &[Arc<Statistics>],
        args: &StatisticsArgs,
    ) -> Result<Arc<Statistics>> {
        match args.partition() {
            None => Ok(self.statistics.clone()),
            Some(_) => Ok(Arc::new(Statistics::new_unknown(&self.schema))),
        }
    }

    fn execute(
        &self,
        partition: usize,
        _context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let parts = self
            .partitions
            .get(partition)
            .cloned()
            .ok_or_else(|| external(format!("partition {partition} out of range")))?;
        let mut builder = RecordBatchReceiverStreamBuilder::new(self.schema.clone(), 2);
        let tx = builder.tx();
        let task = ScanTask {
            files: self.files.clone(),
            schema: self.schema.clone(),
            projection: self.projection.clone(),
            predicate: self.predicate.clone(),
            limit: self.limit,
            batch_size: self.batch_size,
            runtime: Handle::try_current().ok(),
            fetch_counts: self.fetch_counts.clone(),
        };
        builder.spawn_blocking(move || {
            if let Err(e) = task.run(&parts, &mut |batch| tx.blocking_send(Ok(batch)).is_ok()) {
                // The receiver may be gone (the query ended early): nothing to tell.
                let _ = tx.blocking_send(Err(e));
            }
            Ok(())
        });
        Ok(builder.build())
    }
}

/// What a partition's blocking task needs to read its row groups.
struct ScanTask {
    files: Vec<Arc<FileEntry>>,
    schema: SchemaRef,
    projection: Option<Vec<usize>>,
    predicate: Option<Predicate>,
    limit: Option<usize>,
    batch_size: usize,
    /// The runtime that fetches from object stores while the task decodes (`execute`
    /// called outside one can read local files only).
    runtime: Option<Handle>,
    fetch_counts: Arc<FetchCounts>,
}

impl ScanTask {
    /// Reads the parts, handing each batch to `send` (which answers whether to go on).
    fn run(&self, parts: &[Part], send: &mut dyn FnMut(RecordBatch) -> bool) -> Result<()> {
        let mut left = self.limit;
        for part in parts {
            if left == Some(0) {
                break;
            }
            let entry = &self.files[part.file];
            let more = match &entry.location {
                Location::Local(path) => {
                    let file = std::fs::File::open(path)
                        .map_err(|e| external(format!("{}: {e}", path.display())))?;
                    let scan = self.scan(
                        ScanBuilder::new_with_metadata(file, entry.footer.clone()),
                        &part.row_groups,
                        left,
                    );
                    self.drain(entry, scan, &mut left, send)?
                }
                Location::Store(file) => {
                    self.run_in_store(entry, file, &part.row_groups, &mut left, send)?
                }
            };
            if !more {
                break;
            }
        }
        Ok(())
    }

    /// Reads row groups of an object one at a time, each fetched while the one before
    /// it decodes.
    fn run_in_store(
        &self,
        entry: &FileEntry,
        file: &StoreFile,
        row_groups: &[usize],
        left: &mut Option<usize>,
        send: &mut dyn FnMut(RecordBatch) -> bool,
    ) -> Result<bool> {
        let wrap = |e: herringbone::Error| external(format!("{}: {e}", entry.location));
        let runtime = self.runtime.as_ref().ok_or_else(|| {
            external(format!(
                "{}: reading from an object store needs a tokio runtime",
                entry.location
            ))
        })?;
        let counts = || self.fetch_counts.clone();
        let plan = |group: usize| -> Result<Prefetch> {
            let nothing_fetched = file.nothing_fetched(runtime, counts());
            let planner = self.scan(
                ScanBuilder::new_with_metadata(nothing_fetched, entry.footer.clone()),
                &[group],
                None,
            );
            if self.predicate.is_none() {
                let ranges = planner.byte_ranges(group).map_err(wrap)?;
                return Ok(file.prefetch(runtime, ranges, Vec::new(), counts()));
            }
            // The indexes first, then only the pages that pruning with them keeps.
            let indexes = planner.index_ranges(group).map_err(wrap)?;
            let held = file
                .fetched(
                    runtime,
                    file.prefetch(runtime, indexes, Vec::new(), counts()),
                    counts(),
                )
                .map_err(wrap)?;
            let planner = self.scan(
                ScanBuilder::new_with_metadata(held.clone(), entry.footer.clone()),
                &[group],
                None,
            );
            let pages = planner.pruned_byte_ranges(group).map_err(wrap)?;
            Ok(file.prefetch(runtime, pages, held.into_blocks(), counts()))
        };
        let mut next = match row_groups.first() {
            Some(&g) => Some(plan(g)?),
            None => None,
        };
        for (i, &group) in row_groups.iter().enumerate() {
            let Some(current) = next.take() else { break };
            if *left == Some(0) {
                return Ok(false);
            }
            let fetched = file
                .fetched(runtime, current, self.fetch_counts.clone())
                .map_err(wrap)?;
            if let Some(&g) = row_groups.get(i + 1) {
                next = Some(plan(g)?);
            }
            let scan = self.scan(
                ScanBuilder::new_with_metadata(fetched, entry.footer.clone()),
                &[group],
                *left,
            );
            if !self.drain(entry, scan, left, send)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The scan of `row_groups` with the task's projection, predicate and limit.
    fn scan<T: ChunkReader + Sync + 'static>(
        &self,
        builder: ScanBuilder<T>,
        row_groups: &[usize],
        limit: Option<usize>,
    ) -> ScanBuilder<T> {
        let mut scan = builder
            .with_row_groups(row_groups.to_vec())
            .with_batch_size(self.batch_size);
        if let Some(p) = &self.projection {
            let mut roots = p.clone();
            roots.sort_unstable();
            roots.dedup();
            scan = scan.with_projection(Projection::Roots(roots));
        }
        if let Some(p) = &self.predicate {
            scan = scan.with_predicate(p.clone());
        }
        if let Some(l) = limit {
            scan = scan.with_limit(l);
        }
        scan
    }

    /// Runs a scan, sending its batches; answers whether to go on.
    fn drain<T: ChunkReader + Sync + 'static>(
        &self,
        entry: &FileEntry,
        scan: ScanBuilder<T>,
        left: &mut Option<usize>,
        send: &mut dyn FnMut(RecordBatch) -> bool,
    ) -> Result<bool> {
        let wrap = |e: herringbone::Error| external(format!("{}: {e}", entry.location));
        for batch in scan.build().map_err(wrap)? {
            let batch = batch.map_err(|e| external(format!("{}: {e}", entry.location)))?;
            let batch = self.reorder(batch)?;
            if let Some(l) = left {
                *l = l.saturating_sub(batch.num_rows());
            }
            if !send(batch) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The batch's columns in the projection's order (the reader returns file order).
    fn reorder(&self, batch: RecordBatch) -> Result<RecordBatch> {
        if batch.schema().fields() == self.schema.fields() {
            return Ok(batch);
        }
        let mut columns = Vec::with_capacity(self.schema.fields().len());
        for field in self.schema.fields() {
            let column = batch
                .column_by_name(field.name())
                .ok_or_else(|| external(format!("the scan returned no column {}", field.name())))?;
            columns.push(column.clone());
        }
        let options = datafusion::arrow::record_batch::RecordBatchOptions::new()
            .with_row_count(Some(batch.num_rows()));
        Ok(RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &options,
        )?)
    }
}
