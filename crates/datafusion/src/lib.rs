//! DataFusion over Herringbone: Parquet files as a DataFusion table whose scans read
//! through Herringbone, with projection, filter pushdown (translated to Herringbone's
//! predicate, pruning row groups and pages and filtering rows), limit, planner
//! statistics and partitioned parallel scans; and the `hb-sql` command.
//!
//! ```text
//! SQL ── DataFusion planner ── HerringboneTable::scan (filters -> Predicate, pruning)
//!                                 └─> HerringboneExec: N partitions of row groups
//!                                         └─> ScanBuilder per file, on blocking threads
//! ```

mod exec;
pub mod expr;
mod ordering;
mod statistics;
mod table;

pub use exec::HerringboneExec;
pub use table::HerringboneTable;
