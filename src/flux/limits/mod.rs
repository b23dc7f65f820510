//! flux-accounting association limits: hard limits that reject at submit, soft limits that
//! hold a job with named dependencies, a FIFO held list per association, and release
//! passes with pass-local headroom — the semantics of flux-accounting's `mf_priority`
//! jobtap plugin (`reference/slurm_flux.md` §2.1, §2.5; SPEC §4).
//!
//! # Engine API ([`LimitEngine`])
//! Jobs are keyed by a `String` id, unique for the engine's lifetime (ended and rejected
//! jobs stay known until [`LimitEngine::forget`], so a reused id is an error). Every
//! operation is deterministic and returns the observable [`Change`]s in the order they
//! happened; on `Err` the engine is unchanged.
//! - [`LimitEngine::submit`]`(JobSpec) -> Result<SubmitOutcome, LimitError>`:
//!   `Rejected(message)` (hard limit: `max_active_jobs`, a job larger than the
//!   association's `max_nodes`/`max_cores` or the queue's `max_nodes_per_assoc`, unknown or
//!   inactive association, queue not permitted), `Held(dependencies)` (appended to the
//!   association's held list, state DEPEND), or `Ready` (state SCHED at once: flux's
//!   DEPEND → PRIORITY → SCHED). [`SubmitOutcome::changes`] turns it into changes.
//! - [`LimitEngine::run`]`(id)`: SCHED → RUN, then a release pass over the association.
//! - [`LimitEngine::end`]`(id)`: cancel or completion from DEPEND, SCHED or RUN; a SCHED
//!   or RUN job gives its counters back and a release pass runs.
//! - [`LimitEngine::urgency`]`(id, urgency)`: `flux job urgency`; a SCHED job is counted
//!   in SCHED again, for good, as flux's `sched_cb` does (unless
//!   [`Options::sched_counted_once`]).
//! - [`LimitEngine::update_association`] / [`LimitEngine::update_queue`]: change limits
//!   (`-1` = flux default), then a release pass over every association with held jobs.
//! - [`LimitEngine::query`]: the state in the shape of `flux jobtap query mf_priority.so`.
//! - [`LimitEngine::forget`]`(id)`: drop an inactive job (bounds memory in long streams).
//!
//! Counters change exactly when flux changes them: active at submit/end; SCHED counters
//! (association jobs; queue jobs, nodes, cores) at SCHED, RUN and end; run counters
//! (association jobs, nodes, cores; queue jobs, nodes) at RUN and end.
//!
//! # Release pass
//! One walk over the held list in submission order with no head-of-line blocking. For
//! each held job each of its remaining dependencies is re-checked in flux's order and
//! removed at once if satisfied. A job left with none enters SCHED (bumping the real SCHED
//! counters); if the pass removed its `max-running-jobs-user-limit` (`max-run-jobs-queue`)
//! it also adds to the pass-local pending run counter of the association (queue), so later
//! jobs in the same pass cannot take the same `max_running_jobs` headroom. A job released
//! from other limits adds nothing there, as in flux (`released_assoc_run`,
//! `released_queue_run`).
//! `max-resources-user-limit` and `max-resources-queue` have no pending adjustment, as in
//! flux. Because the association node/core limits and both `max_running_jobs` limits count
//! only RUN jobs, a burst of releases or submissions can overshoot them once the jobs run
//! (jobs waiting in SCHED are not counted); [`Options::count_sched_in_resources`] (off by
//! default) makes them count SCHED jobs too (the pending counters are then not needed),
//! and re-checks every limit for a job about to leave DEPEND (adding the dependencies it
//! no longer passes: it may have been held by one limit while another had room), which
//! closes the overshoots: RUN + SCHED jobs never exceed either `max_running_jobs`, and RUN +
//! SCHED nodes/cores never exceed `max_nodes`/`max_cores` (unless an update lowers them).
//!
//! # Loading
//! [`LimitsConfig::parse`] (TOML or JSON, see [`config`]), `flux_db::load_flux_db` (a
//! flux-accounting SQLite database; feature `flux-db`), [`events::parse_events`]
//! (JSON-lines events). Their errors are [`LimitsFileError`]s, located `file:line`.

pub mod assoc;
pub mod config;
pub mod engine;
pub mod error;
pub mod events;
#[cfg(feature = "flux-db")]
pub mod flux_db;
pub mod job;
pub mod state;

pub use assoc::{
    AssocLimits, AssocUpdate, Association, Dependency, INT_MAX, Queue, QueueLimits, QueueUpdate,
};
pub use config::{AssocConfig, LimitsConfig, Options, QueueConfig};
pub use engine::LimitEngine;
pub use error::{LimitError, LimitsFileError};
pub use job::{Change, Job, JobSpec, JobState, MAX_JOB_SIZE, SubmitOutcome};
pub use state::QueryState;
