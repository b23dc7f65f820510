//! Slurm's rules: its configuration, priority and jobs as jobsort models them.
//!
//! - [`conf`]: a `slurm.conf` reader with Slurm's syntax and typed priority, node,
//!   partition and backfill settings (reusable by the simulator).
//! - [`multifactor`]: `priority/multifactor`'s factors, integer priority and sprio view, and
//!   the slurm.conf weights as a formula in the Slurm catalog
//!   ([`Catalog::slurm`](crate::catalog::Catalog::slurm)).
//! - [`sacctmgr`]: the one reader of `sacctmgr`'s parsable (`-P`) tables.
//! - [`assoc`]: associations from `sacctmgr show assoc -P`: the tree, priorities (the assoc
//!   factor) and limits.
//! - [`qos`]: QOS from `sacctmgr show qos -P`: priorities, flags and limits.
//! - [`limits`]: the association and QOS limits slurmctld enforces, as
//!   [`model::limits::Limits`](crate::model::limits::Limits) of a snapshot.
//! - [`jobs`]: `squeue --json` and job-file fields as multifactor inputs; factor columns.
//! - [`share`]: the association tree's usage and each job's multifactor priority in
//!   simulated time.
//! - [`reasons`]: squeue's pending reasons in plain words, and which name a limit.
//! - [`snapshot`]: the site's state at one instant from `squeue`, `scontrol show nodes` and
//!   `scontrol show reservation` JSON (openapi/v0.0.38 and data_parser/v0.0.40+), with
//!   slurm.conf and the sacctmgr association and QOS tables.

pub mod assoc;
pub mod conf;
pub mod jobs;
pub mod limits;
pub mod multifactor;
pub mod qos;
pub mod reasons;
pub mod sacctmgr;
pub mod share;
pub mod snapshot;
