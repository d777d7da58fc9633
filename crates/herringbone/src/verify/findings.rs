//! Collecting findings for one scope (a file, a row group, a column chunk) with a cap
//! per check, so that a badly damaged chunk reports its first problems and a count,
//! not one line per page.

use std::collections::HashMap;

use super::report::{Check, Finding, Location, Report};

/// Findings of one kind reported in full per scope; the rest are counted.
const MAX_PER_CHECK: usize = 10;

/// Adds findings to a report under a base location.
pub(crate) struct Findings<'r> {
    report: &'r mut Report,
    base: Location,
    problems: HashMap<Check, usize>,
    warnings: HashMap<Check, usize>,
}

impl<'r> Findings<'r> {
    pub(crate) fn new(report: &'r mut Report, base: Location) -> Self {
        Self {
            report,
            base,
            problems: HashMap::new(),
            warnings: HashMap::new(),
        }
    }

    /// The base location.
    pub(crate) fn base(&self) -> &Location {
        &self.base
    }

    /// The base location at a page.
    pub(crate) fn at_page(&self, page: usize, offset: u64) -> Location {
        Location {
            page: Some(page),
            offset: Some(offset),
            ..self.base.clone()
        }
    }

    /// The base location at a file offset.
    pub(crate) fn at_offset(&self, offset: u64) -> Location {
        Location {
            offset: Some(offset),
            ..self.base.clone()
        }
    }

    /// Records a problem at the base location.
    pub(crate) fn problem(&mut self, check: Check, message: impl Into<String>) {
        let location = self.base.clone();
        self.problem_at(Finding::new(location, check, message));
    }

    /// Records a problem.
    pub(crate) fn problem_at(&mut self, finding: Finding) {
        let count = self.problems.entry(finding.check).or_default();
        *count += 1;
        if *count <= MAX_PER_CHECK {
            self.report.problems.push(finding);
        }
    }

    /// Records a warning at the base location.
    pub(crate) fn warning(&mut self, check: Check, message: impl Into<String>) {
        let location = self.base.clone();
        self.warning_at(Finding::new(location, check, message));
    }

    /// Records a warning.
    pub(crate) fn warning_at(&mut self, finding: Finding) {
        let count = self.warnings.entry(finding.check).or_default();
        *count += 1;
        if *count <= MAX_PER_CHECK {
            self.report.warnings.push(finding);
        }
    }

    /// The report, to count what was checked.
    pub(crate) fn report(&mut self) -> &mut Report {
        self.report
    }

    /// Adds a line for each check whose findings went over the cap.
    pub(crate) fn finish(self) {
        let mut over: Vec<(Check, usize, bool)> = self
            .problems
            .iter()
            .map(|(&c, &n)| (c, n, true))
            .chain(self.warnings.iter().map(|(&c, &n)| (c, n, false)))
            .filter(|&(_, n, _)| n > MAX_PER_CHECK)
            .collect();
        over.sort();
        for (check, n, is_problem) in over {
            let finding = Finding::new(
                self.base.clone(),
                check,
                format!("{} more like the above", n - MAX_PER_CHECK),
            );
            if is_problem {
                self.report.problems.push(finding);
            } else {
                self.report.warnings.push(finding);
            }
        }
    }
}
