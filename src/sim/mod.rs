//! Trace-driven scheduling simulation, recording and replay (SPEC §5).
//!
//! - the jobs it runs come from [`crate::workload`] (re-exported here as [`workload`],
//!   [`swf`], [`load_workload`]);
//! - [`cluster`]: nodes × cores and first-fit placement;
//! - [`scheduler`]: the deterministic discrete-event scheduler (rounds, strict and EASY);
//! - [`setup`]: the run-time state built once from the settings ([`SimConfig`]);
//! - [`priority`]: the formula adapter; each scheduler's own model in simulated time lives in
//!   its folder: PBS's fairshare usage (`pbs::share`, here [`share`]), Slurm's multifactor
//!   priority and its usage (`slurm::share`, here [`slurm_share`]), flux-accounting's limits
//!   (`flux::limit`, here [`limit`]);
//! - [`record`]: the JSON-lines recording (`docs/recording.md`);
//! - [`replay`]: `--verify` and reconciliation;
//! - [`metrics`], [`plot`]: SPEC §5.5 metrics and SVG plots; [`fidelity`]: a run against the
//!   trace's recorded schedule;
//! - [`run`]: one-call helpers that tie them together;
//! - [`snapshot`]: a site's state at one instant from a folder of any scheduler's captures.
//!
//! Architecture invariant: same jobs + same settings + same formula ⇒ the same rounds and a
//! byte-identical recording.

pub mod cluster;
pub mod fidelity;
pub mod inputs;
pub mod job_rows;
pub mod metrics;
#[cfg(feature = "plot")]
pub mod plot;
pub mod priority;
pub mod record;
pub mod replay;
pub mod run;
pub mod scheduler;
pub mod settings;
pub mod setup;
pub mod snapshot;

/// Each scheduler's model in simulated time lives in its folder; here under the names the
/// simulator's users know.
pub use crate::flux::limit;
pub use crate::pbs::share;
pub use crate::slurm::share as slurm_share;
/// The workloads a simulation runs, read from every trace and site log (`crate::workload`),
/// under the names they had when they lived here.
pub use crate::workload::{
    self as workload, TraceFormat, TraceOptions, load_workload, load_workload_with, read_workload,
    read_workload_with, swf, trace_format,
};
pub use priority::{IrPriority, Priority};
pub use scheduler::{Policy, SimConfig, Simulator};
pub use setup::{Setup, SetupError};
pub use workload::{JobSpec, Request, SimJob, Workload};
