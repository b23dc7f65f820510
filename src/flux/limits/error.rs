//! Errors of the limit engine and its loaders. Every error says what and where.

use super::job::JobState;

/// An operation the engine refuses; the engine state is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    /// No job with this id was submitted.
    #[error("unknown job \"{0}\" (never submitted)")]
    UnknownJob(String),
    /// A job with this id was already submitted.
    #[error("duplicate submit of job \"{0}\"")]
    DuplicateJob(String),
    /// `run` on a job that is not in SCHED.
    #[error("cannot run job \"{job}\": it is {state:?}, not in SCHED", state = StateName(*state))]
    NotSched {
        /// Job id.
        job: String,
        /// Its state.
        state: JobState,
    },
    /// `end` on a job that already ended.
    #[error("job \"{0}\" is already inactive")]
    AlreadyInactive(String),
    /// An unknown association.
    #[error("unknown association {user}/{}", bank.as_deref().unwrap_or("(default bank)"))]
    UnknownAssociation {
        /// User.
        user: String,
        /// Bank, if given.
        bank: Option<String>,
    },
    /// An unknown queue.
    #[error("unknown queue \"{0}\"")]
    UnknownQueue(String),
    /// A second association with the same user and bank.
    #[error("duplicate association {user}/{bank}")]
    DuplicateAssociation {
        /// User.
        user: String,
        /// Bank.
        bank: String,
    },
    /// A second queue with the same name.
    #[error("duplicate queue \"{0}\"")]
    DuplicateQueue(String),
    /// A job spec that cannot be submitted.
    #[error("invalid job \"{job}\": {reason}")]
    InvalidJob {
        /// Job id.
        job: String,
        /// Why.
        reason: String,
    },
}

struct StateName(JobState);

impl std::fmt::Debug for StateName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.0 {
            JobState::Depend => "held in DEPEND",
            JobState::Sched => "in SCHED",
            JobState::Run => "running",
            JobState::Inactive => "inactive",
        })
    }
}

/// A configuration, database or event file that cannot be loaded. `location` is
/// `file:line` (or `file` plus a path into the document when no line is known).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{location}: {message}")]
pub struct LimitsFileError {
    /// Where: `file:line`, `file: association[2]`, `file: queue_table`.
    pub location: String,
    /// What.
    pub message: String,
}

impl LimitsFileError {
    /// A new error.
    pub fn new(location: impl Into<String>, message: impl Into<String>) -> Self {
        LimitsFileError {
            location: location.into(),
            message: message.into(),
        }
    }
}
