//! jobsort: HPC batch-scheduler priorities, compiled.
//!
//! - [`formula`]: PBS `job_sort_formula` compiler — lexer, parser, checker, reference
//!   interpreter and Cranelift JIT.
//! - [`jobs`]: job inputs (JSON, CSV, `qstat -f -F json`) and the columnar [`jobs::table::JobTable`].
//! - [`rank`]: ordering by formula value with PBS's tie-breaks, thresholds and top-k.
//! - [`fairshare`]: PBS, Slurm and flux-accounting fairshare trees.
//! - [`limits`]: flux-accounting per-association limits with held jobs.
//! - [`sim`]: trace-driven scheduling simulation, recording and replay.
//!
//! The library never prints; the `jobsort` binary does.

pub mod fairshare;
pub mod formula;
pub mod jobs;
pub mod limits;
pub mod rank;
pub mod sim;

pub mod capi;

pub use formula::catalog::{Catalog, ResourceType};
pub use formula::diag::{Diagnostic, Diagnostics, Severity};
pub use formula::pymath::EvalError;
pub use formula::{CompileOptions, CompiledFormula, Engine, Evaluation, Formula};
pub use jobs::table::JobTable;
