//! DataFusion over Herringbone: Parquet files as a DataFusion table whose scans read
//! through Herringbone, with projection, filter pushdown (translated to Herringbone's
//! predicate, pruning row groups and pages and filtering rows), limit, planner
//! statistics and partitioned parallel scans; and the `hb-sql` command.
//!
//! Files are local ([`HerringboneTable::try_new`]) or objects of an `object_store` 0.13
//! store ([`HerringboneTable::try_new_in_store`]). Either way each footer is read once,
//! when the table is made, and every scan starts from it.
//!
//! ```text
//! SQL ── DataFusion planner ── HerringboneTable::scan (filters -> Predicate, pruning)
//!                                 └─> HerringboneExec: N partitions of row groups
//!                                         └─> ScanBuilder per file (footer given), on
//!                                             blocking threads; for a store, each row
//!                                             group's ScanBuilder::byte_ranges fetched
//!                                             (coalesced) while the one before decodes
//! ```

mod exec;
pub mod expr;
mod ordering;
mod statistics;
mod store;
mod table;

pub use exec::HerringboneExec;
pub use store::FetchCounts;
pub use table::HerringboneTable;
