//! A filtered read: a [`Predicate`](crate::predicate::Predicate) prunes row groups (chunk
//! statistics, Bloom filters) and pages (the page index) before anything is decoded,
//! then the matching rows of every batch are selected.
//!
//! ```
//! # use std::sync::Arc;
//! # use arrow_array::{ArrayRef, Int32Array, RecordBatch, cast::AsArray, types::Int32Type};
//! # let x: ArrayRef = Arc::new(Int32Array::from((0..100).collect::<Vec<i32>>()));
//! # let batch = RecordBatch::try_from_iter([("x", x)])?;
//! # let props = herringbone::WriterProperties::builder().set_max_row_group_rows(10).build();
//! # let mut file = Vec::new();
//! # let mut writer = herringbone::ArrowWriter::try_new(&mut file, batch.schema(), Some(props))?;
//! # writer.write(&batch)?;
//! # writer.close()?;
//! use herringbone::predicate::Predicate;
//! use herringbone::scan::ScanBuilder;
//!
//! // `file`: x = 0..100 in ten row groups.
//! let mut scan = ScanBuilder::try_new(bytes::Bytes::from(file))?
//!     .with_predicate(Predicate::parse("x >= 35 AND x < 40")?)
//!     .build()?;
//! let batches = scan.by_ref().collect::<Result<Vec<RecordBatch>, _>>()?;
//! let x = batches[0].column(0).as_primitive::<Int32Type>();
//! assert_eq!(x.values().to_vec(), [35, 36, 37, 38, 39]);
//! assert_eq!(scan.metrics().row_groups_read, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use herringbone_arrow_bridge::scan::{PruningOptions, Scan, ScanBuilder, ScanMetrics};
