//! Jobs: [`JobSet`], jobs by column as the loaders read them (one file format each, in
//! `load`) with the [`JobTable`](crate::table::JobTable) the evaluators read inside, and
//! [`Job`], one job as a row, for building a few jobs in code.

pub mod fairshare;
pub mod load;
mod set;
pub use crate::input::units;

pub use set::{JobSet, JobSetBuilder};

use std::collections::BTreeMap;

/// One job as a row: identity, fairshare entity fields, submission order, and numeric values
/// by name (resources in PBS units — seconds, kilobytes — and keywords). A [`JobSet`] is
/// collected from rows (`jobs.into_iter().collect()`); the loaders do not make rows.
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
