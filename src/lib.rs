//! jobsort: HPC batch-scheduler priorities, compiled.
//!
//! - [`catalog`]: the names formulas and job loaders share — PBS keywords, built-in and custom
//!   resources, and the resolved formula [`Input`].
//! - [`formula`]: PBS `job_sort_formula` compiler — lexer, parser, checker, reference
//!   interpreter and Cranelift JIT.
//! - [`table`]: the columnar [`JobTable`] the evaluators stream over.
//! - [`jobs`]: job inputs (JSON, CSV, `qstat -f -F json`) and their tables.
//! - [`rank`]: ordering by formula value with PBS's tie-breaks, thresholds and top-k.
//! - [`fairshare`]: PBS, Slurm and flux-accounting fairshare trees.
//! - [`limits`]: flux-accounting per-association limits with held jobs.
//! - [`pbs`]: a PBS site's configuration (`sched_config`, `qmgr` output, `PBS_HOME`).
//! - [`sim`]: trace-driven scheduling simulation, recording and replay.
//! - [`slurm`]: `slurm.conf`, Slurm's multifactor priority and flux-accounting's
//!   `mf_priority` as formulas in their catalogs.
//! - [`capi`]: the C ABI (`include/jobsort.h`).
//!
//! The library never prints; the `jobsort` binary does.
//!
//! # Example: compile once, evaluate every cycle
//!
//! ```
//! use jobsort::rank::{RankOptions, TieBreak, rank};
//! use jobsort::{Catalog, EvalError, Formula, JobTable, ResourceType};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let catalog = Catalog::pbs().with_resource("gpu_hours", ResourceType::Float);
//! // Compile once (parse, check, optimise, JIT); the result is Send + Sync.
//! let formula = Formula::compile("ncpus + 10 * gpu_hours / walltime", &catalog)?;
//! assert_eq!(formula.inputs(), ["ncpus", "gpu_hours", "walltime"]);
//!
//! let mut jobs = JobTable::new(3)
//!     .with_column("ncpus", vec![4.0, 16.0, 1.0])?
//!     .with_column("gpu_hours", vec![2.0, 0.0, 8.0])?
//!     .with_column("walltime", vec![10.0, 7200.0, 0.0])?;
//! let evaluation = formula.evaluate(&jobs);
//! assert_eq!(evaluation.values, [6.0, 16.0, 0.0]);
//! // Job 2 divides by zero: it gets 0 and Python's error, as in PBS.
//! assert_eq!(evaluation.error(2), Some(EvalError::FloatDivisionByZero));
//!
//! let order = rank(&evaluation.values, TieBreak::default(), &RankOptions::default());
//! assert_eq!(order.iter().map(|r| r.index).collect::<Vec<_>>(), [1, 0, 2]);
//!
//! // Next cycle: update a column in place and evaluate again with the same formula.
//! jobs.column_mut("walltime").unwrap()[2] = 80.0;
//! assert_eq!(formula.evaluate(&jobs).values[2], 2.0);
//!
//! // Errors are data: code, message and byte span.
//! let err = Formula::compile("ncpu * 2", &catalog).unwrap_err();
//! assert_eq!(err.0[0].code, "E0201");
//! assert_eq!((err.0[0].span.start, err.0[0].span.end), (0, 4));
//! # Ok(())
//! # }
//! ```

pub mod catalog;
pub mod fairshare;
pub mod files;
pub mod flux;
pub mod forecast;
pub mod formula;
pub mod input;
pub mod jobs;
pub mod model;
pub mod pbs;
pub mod rank;
pub mod sim;
pub mod slurm;
pub mod table;
pub mod workload;

pub mod capi;

pub use catalog::{Catalog, Input, Keyword, ResourceType};
pub use formula::diag::{Diagnostic, Diagnostics, Severity};
pub use formula::pymath::EvalError;
pub use formula::{CompileOptions, CompiledFormula, Engine, Evaluation, Formula};
pub use table::JobTable;
