//! Jobs as the limit engine sees them: what is submitted ([`JobSpec`]), the state flux's
//! plugin tracks ([`JobState`]), the engine's record of a job ([`Job`]), and what an
//! operation reports ([`SubmitOutcome`], [`Change`]).

use serde::Serialize;

use super::assoc::{Dependency, INT_MAX};

/// A job as submitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobSpec {
    /// Unique job id.
    pub id: String,
    /// The submitting user.
    pub user: String,
    /// The bank; `None` uses the user's default bank.
    pub bank: Option<String>,
    /// The queue, if any.
    pub queue: Option<String>,
    /// Nodes (flux `nnodes`), `0..=`[`MAX_JOB_SIZE`].
    pub nnodes: i64,
    /// Cores (flux `ncores`), `0..=`[`MAX_JOB_SIZE`].
    pub ncores: i64,
}

/// The largest `nnodes` or `ncores` a job may have: flux-accounting's plugin keeps job sizes
/// in a C `int`. The bound also keeps every counter exact: a counter is a sum of sizes over
/// live jobs, below `i64::MAX` unless more than 2^32 jobs are live at once.
pub const MAX_JOB_SIZE: i64 = INT_MAX;

impl JobSpec {
    /// Why the job's sizes are invalid (the first of `nnodes`, `ncores` outside
    /// `0..=`[`MAX_JOB_SIZE`]), or `None`.
    pub fn size_error(&self) -> Option<String> {
        [("nnodes", self.nnodes), ("ncores", self.ncores)]
            .into_iter()
            .find(|(_, v)| !(0..=MAX_JOB_SIZE).contains(v))
            .map(|(field, v)| {
                format!("{field} = {v} is out of range (0 to {MAX_JOB_SIZE}, flux's C int)")
            })
    }
}

/// The result of [`LimitEngine::submit`](super::LimitEngine::submit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SubmitOutcome {
    /// A hard limit rejected the job (flux's message). The job is recorded as inactive.
    Rejected(String),
    /// Soft limits hold the job in DEPEND with these dependencies, in flux's order; it is
    /// appended to its association's held list.
    Held(Vec<Dependency>),
    /// The job passed every limit and is in SCHED.
    Ready,
}

impl SubmitOutcome {
    /// The changes this outcome stands for (what the CLI prints for a submit).
    pub fn changes(&self, job: &str) -> Vec<Change> {
        match self {
            SubmitOutcome::Rejected(m) => vec![Change::Rejected {
                job: job.to_string(),
                rejected: m.clone(),
            }],
            SubmitOutcome::Held(deps) => deps
                .iter()
                .map(|d| Change::DependencyAdd {
                    job: job.to_string(),
                    dependency_add: *d,
                })
                .collect(),
            SubmitOutcome::Ready => vec![Change::State {
                job: job.to_string(),
                state: JobState::Sched,
            }],
        }
    }
}

/// A job's state as the limit plugin sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JobState {
    /// Held in DEPEND by at least one accounting dependency.
    Depend,
    /// Waiting for the scheduler (flux PRIORITY/SCHED).
    Sched,
    /// Running.
    Run,
    /// Ended, cancelled or rejected.
    Inactive,
}

/// One observable change, in the order it happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Change {
    /// A submit was rejected.
    Rejected {
        /// Job id.
        job: String,
        /// flux's message.
        rejected: String,
    },
    /// A dependency was added (at submit, or at release under `count_sched_in_resources`).
    DependencyAdd {
        /// Job id.
        job: String,
        /// The dependency.
        dependency_add: Dependency,
    },
    /// A dependency was removed in a release pass.
    DependencyRemove {
        /// Job id.
        job: String,
        /// The dependency.
        dependency_remove: Dependency,
    },
    /// A job changed state.
    State {
        /// Job id.
        job: String,
        /// The new state.
        state: JobState,
    },
}

impl Change {
    /// The job the change is about.
    pub fn job(&self) -> &str {
        match self {
            Change::Rejected { job, .. }
            | Change::DependencyAdd { job, .. }
            | Change::DependencyRemove { job, .. }
            | Change::State { job, .. } => job,
        }
    }

    /// The job this change moved into SCHED (released from DEPEND or newly submitted):
    /// what a scheduler adds to its queue.
    pub fn entered_sched(&self) -> Option<&str> {
        match self {
            Change::State {
                job,
                state: JobState::Sched,
            } => Some(job),
            _ => None,
        }
    }
}

/// A job known to the engine.
#[derive(Clone, Debug)]
pub struct Job {
    /// Association index.
    pub assoc: usize,
    /// Queue name as submitted.
    pub queue_name: Option<String>,
    /// Queue index when the queue is known.
    pub queue: Option<usize>,
    /// Nodes.
    pub nnodes: i64,
    /// Cores.
    pub ncores: i64,
    /// State.
    pub state: JobState,
    /// Remaining accounting dependencies (non-empty exactly when `state == Depend`).
    pub deps: Vec<Dependency>,
}
