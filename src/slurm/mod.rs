//! Slurm's rules: its configuration, priority and jobs as jobsort models them.
//!
//! - [`conf`]: a `slurm.conf` reader with Slurm's syntax and typed priority, node,
//!   partition and backfill settings (reusable by the simulator).
//! - [`multifactor`]: `priority/multifactor`'s factors, integer priority and sprio view, and
//!   the slurm.conf weights as a formula in the Slurm catalog
//!   ([`Catalog::slurm`](crate::catalog::Catalog::slurm)).
//! - [`assoc`]: association priorities from `sacctmgr show assoc -P`, the assoc factor.
//! - [`jobs`]: `squeue --json` and job-file fields as multifactor inputs; factor columns.
//! - [`share`]: the association tree's usage and each job's multifactor priority in
//!   simulated time.
//! - [`snapshot`]: the site's state at one instant from `squeue`, `scontrol show nodes` and
//!   `scontrol show reservation` JSON (openapi/v0.0.38 and data_parser/v0.0.40+).

pub mod assoc;
pub mod conf;
pub mod jobs;
pub mod multifactor;
pub mod reasons;
pub mod share;
pub mod snapshot;
