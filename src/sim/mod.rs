//! Trace-driven scheduling simulation, recording and replay (SPEC §5).
//!
//! - [`workload`] / [`swf`] / [`load_workload`]: jobs from SWF traces (plain or gzip) and JSON
//!   job lists, with a report of what was dropped and why;
//! - [`cluster`]: nodes × cores and first-fit placement;
//! - [`scheduler`]: the deterministic discrete-event scheduler (rounds, strict and EASY);
//! - [`setup`]: the run-time state built once from the settings ([`SimConfig`]);
//! - [`priority`], [`share`], [`limit`]: the formula, fairshare and limits adapters;
//!   [`slurm_share`]: Slurm's multifactor priority and its usage in simulated time;
//! - [`record`]: the JSON-lines recording (`docs/recording.md`);
//! - [`replay`]: `--verify` and reconciliation;
//! - [`metrics`], [`plot`]: SPEC §5.5 metrics and SVG plots; [`fidelity`]: a run against the
//!   trace's recorded schedule;
//! - [`run`]: one-call helpers that tie them together.
//!
//! Architecture invariant: same jobs + same settings + same formula ⇒ the same rounds and a
//! byte-identical recording.

pub mod cluster;
pub mod fidelity;
pub mod inputs;
pub mod limit;
mod load;
pub mod metrics;
#[cfg(feature = "plot")]
pub mod plot;
pub mod priority;
pub mod record;
pub mod replay;
pub mod run;
pub mod scheduler;
pub mod setup;
pub mod share;
pub mod slurm_share;
pub mod swf;
pub mod workload;

pub use load::{
    TraceFormat, TraceOptions, load_workload, load_workload_with, read_workload,
    read_workload_with, trace_format,
};
pub use priority::{IrPriority, Priority};
pub use scheduler::{Policy, SimConfig, Simulator};
pub use setup::{Setup, SetupError};
pub use workload::{JobSpec, Request, SimJob, Workload};
