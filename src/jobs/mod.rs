//! Jobs: the row form read from files ([`Job`]), the loaders for every input format, and
//! [`table_from_jobs`], which lays them out as the columnar [`JobTable`] the evaluators read.

pub mod fairshare;
pub mod load;
pub mod units;

use std::collections::BTreeMap;

use crate::catalog::Input;
use crate::table::JobTable;

/// One job as read from a file: identity, fairshare entity fields, submission order, and
/// numeric values by name (resources in PBS units — seconds, kilobytes — and keywords).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Job {
    pub id: String,
    pub user: Option<String>,
    pub group: Option<String>,
    pub account: Option<String>,
    pub queue: Option<String>,
    /// Submission time or queue rank (`submit` / `qrank`), used to break ties.
    pub submit: Option<f64>,
    /// Numeric values by name.
    pub values: BTreeMap<String, f64>,
}

impl Job {
    pub fn new(id: impl Into<String>) -> Job {
        Job {
            id: id.into(),
            ..Job::default()
        }
    }
    /// Builder: set a value.
    pub fn with(mut self, name: &str, value: f64) -> Job {
        self.values.insert(name.to_string(), value);
        self
    }
}

/// Build a table holding the columns of `inputs` (absent values are 0).
pub fn table_from_jobs(jobs: &[Job], inputs: &[Input]) -> JobTable {
    let mut t = JobTable::new(jobs.len());
    for name in inputs.iter().map(Input::column) {
        let col: Vec<f64> = jobs
            .iter()
            .map(|j| j.values.get(name).copied().unwrap_or(0.0))
            .collect();
        t.set_column(name, col)
            .expect("column built from the same jobs has the table's length");
    }
    t
}
