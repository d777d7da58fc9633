//! `hb cat --salvage` and `hb convert --salvage`: read on past damage (the reader's
//! salvage mode), print or convert what survives, and say on stderr what was lost.
//!
//! Exit status: 0 when no row was lost, [`ROWS_DROPPED`] (3) when rows were dropped and
//! others survived, [`NOTHING_READ`] (2) when the file could not be read at all or no
//! row survived.

use std::cell::RefCell;
use std::rc::Rc;

use herringbone::read::SalvageReport;

/// Exit status of a salvage read that dropped rows.
pub const ROWS_DROPPED: u8 = 3;
/// Exit status of a salvage read that read nothing.
pub const NOTHING_READ: u8 = 2;

/// Where a salvage read leaves its report and the rows it returned, for the command to
/// print once it is done.
#[derive(Debug, Clone, Default)]
pub struct SalvageLog(Rc<RefCell<Logged>>);

#[derive(Debug, Default)]
struct Logged {
    report: Option<SalvageReport>,
    rows: usize,
}

impl SalvageLog {
    /// Records the reader's report so far and `rows` more rows returned.
    pub fn update(&self, report: Option<&SalvageReport>, rows: usize) {
        let mut logged = self.0.borrow_mut();
        logged.rows += rows;
        let changed = match (&logged.report, report) {
            (Some(old), Some(new)) => old.losses().len() != new.losses().len(),
            (None, Some(_)) => true,
            _ => false,
        };
        if changed {
            logged.report = report.cloned();
        }
    }

    /// Prints the losses on stderr and turns the command's result into its exit status.
    pub fn finish(&self, result: Result<(), String>) -> u8 {
        let logged = self.0.borrow();
        let report = logged.report.clone().unwrap_or_default();
        for loss in report.losses() {
            eprintln!("hb: salvage: {loss}");
        }
        if let Err(message) = result {
            let first_line = message.lines().next().unwrap_or("error");
            eprintln!("hb: {first_line}");
            return NOTHING_READ;
        }
        let dropped = report.rows_dropped();
        if dropped == 0 {
            return 0;
        }
        eprintln!(
            "hb: salvage: {dropped} rows dropped, {} rows read",
            logged.rows
        );
        if logged.rows == 0 {
            NOTHING_READ
        } else {
            ROWS_DROPPED
        }
    }
}
