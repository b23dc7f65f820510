//! Event files (JSON lines) and applying them to an engine.
//!
//! One JSON object per line; blank lines are ignored:
//! ```text
//! {"op":"submit","job":"job1","user":"user1","bank":"A","queue":"bronze","nnodes":1,"ncores":4}
//! {"op":"run","job":"job1"}
//! {"op":"end","job":"job1"}                      ("cancel" is an alias)
//! {"op":"urgency","job":"job1","urgency":20}     (flux job urgency, 0..=31)
//! {"op":"update","association":{"user":"user1","bank":"A","max_running_jobs":1}}
//! {"op":"update","queue":{"name":"bronze","max_running_jobs":-1}}
//! ```
//! `bank` defaults to the user's default bank, `queue` is optional, `nnodes` defaults to
//! 1 and `ncores` to `nnodes` (flux's `-N n` gives n cores). A limit of -1 resets it to
//! flux's default. Unknown keys are errors.
//!
//! In an event file a submit naming an unknown association is an input error (almost
//! always a typo), unlike [`LimitEngine::submit`], which rejects such a job as flux does.

use serde::{Deserialize, Serialize};

use super::assoc::{AssocUpdate, QueueUpdate};
use super::config::strip_position;
use super::engine::LimitEngine;
use super::error::{LimitError, LimitsFileError};
use super::job::{Change, JobSpec};
use super::state::AssocSummary;

/// One operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Submit a job.
    Submit(JobSpec),
    /// A SCHED job starts running.
    Run(String),
    /// A job ends (completion or cancel).
    End(String),
    /// A job's urgency changes (`flux job urgency`), see [`LimitEngine::urgency`].
    Urgency {
        /// The job.
        job: String,
        /// The new urgency, 0…31.
        urgency: i64,
    },
    /// An association's limits change.
    UpdateAssociation {
        /// User.
        user: String,
        /// Bank.
        bank: String,
        /// The new values.
        update: AssocUpdate,
    },
    /// A queue's limits change.
    UpdateQueue {
        /// Queue name.
        name: String,
        /// The new values.
        update: QueueUpdate,
    },
}

impl Op {
    /// The `op` name.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Submit(_) => "submit",
            Op::Run(_) => "run",
            Op::End(_) => "end",
            Op::Urgency { .. } => "urgency",
            Op::UpdateAssociation { .. } | Op::UpdateQueue { .. } => "update",
        }
    }

    /// The job the op is about, if any.
    pub fn job(&self) -> Option<&str> {
        match self {
            Op::Submit(s) => Some(&s.id),
            Op::Run(j) | Op::End(j) | Op::Urgency { job: j, .. } => Some(j),
            _ => None,
        }
    }
}

/// An op with the line it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// 1-based line number in the file.
    pub line: usize,
    /// The operation.
    pub op: Op,
}

#[derive(Deserialize)]
#[serde(tag = "op", rename_all = "lowercase", deny_unknown_fields)]
enum RawEvent {
    Submit {
        job: String,
        user: String,
        bank: Option<String>,
        queue: Option<String>,
        nnodes: Option<i64>,
        ncores: Option<i64>,
    },
    Run {
        job: String,
    },
    #[serde(alias = "cancel")]
    End {
        job: String,
    },
    Urgency {
        job: String,
        urgency: i64,
    },
    Update {
        association: Option<RawAssocUpdate>,
        queue: Option<RawQueueUpdate>,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAssocUpdate {
    user: String,
    bank: String,
    max_running_jobs: Option<i64>,
    max_active_jobs: Option<i64>,
    max_nodes: Option<i64>,
    max_cores: Option<i64>,
    max_sched_jobs: Option<i64>,
    queues: Option<Vec<String>>,
    active: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawQueueUpdate {
    name: String,
    priority: Option<i64>,
    max_running_jobs: Option<i64>,
    max_nodes_per_assoc: Option<i64>,
    max_sched_jobs: Option<i64>,
    max_sched_nodes_per_assoc: Option<i64>,
    max_sched_cores_per_assoc: Option<i64>,
}

/// Parses one line (`name:line` is used in the error).
pub fn parse_event_line(name: &str, line: usize, text: &str) -> Result<Op, LimitsFileError> {
    let at = || format!("{name}:{line}");
    let raw: RawEvent = serde_json::from_str(text)
        .map_err(|e| LimitsFileError::new(at(), strip_position(&e.to_string())))?;
    Ok(match raw {
        RawEvent::Submit {
            job,
            user,
            bank,
            queue,
            nnodes,
            ncores,
        } => {
            let nnodes = nnodes.unwrap_or(1);
            let spec = JobSpec {
                id: job,
                user,
                bank,
                queue,
                nnodes,
                ncores: ncores.unwrap_or(nnodes),
            };
            if let Some(message) = spec.size_error() {
                return Err(LimitsFileError::new(at(), message));
            }
            Op::Submit(spec)
        }
        RawEvent::Run { job } => Op::Run(job),
        RawEvent::End { job } => Op::End(job),
        RawEvent::Urgency { job, urgency } => {
            if !(0..=31).contains(&urgency) {
                return Err(LimitsFileError::new(
                    at(),
                    format!("urgency {urgency} is out of range (0 to 31)"),
                ));
            }
            Op::Urgency { job, urgency }
        }
        RawEvent::Update {
            association: Some(a),
            queue: None,
        } => Op::UpdateAssociation {
            user: a.user,
            bank: a.bank,
            update: AssocUpdate {
                max_running_jobs: a.max_running_jobs,
                max_active_jobs: a.max_active_jobs,
                max_nodes: a.max_nodes,
                max_cores: a.max_cores,
                max_sched_jobs: a.max_sched_jobs,
                queues: a.queues,
                active: a.active,
            },
        },
        RawEvent::Update {
            association: None,
            queue: Some(q),
        } => Op::UpdateQueue {
            name: q.name,
            update: QueueUpdate {
                priority: q.priority,
                max_running_jobs: q.max_running_jobs,
                max_nodes_per_assoc: q.max_nodes_per_assoc,
                max_sched_jobs: q.max_sched_jobs,
                max_sched_nodes_per_assoc: q.max_sched_nodes_per_assoc,
                max_sched_cores_per_assoc: q.max_sched_cores_per_assoc,
            },
        },
        RawEvent::Update { .. } => {
            return Err(LimitsFileError::new(
                at(),
                "update needs exactly one of \"association\" or \"queue\"",
            ));
        }
    })
}

/// Parses a whole event file; the first bad line is the error.
pub fn parse_events(name: &str, text: &str) -> Result<Vec<Event>, LimitsFileError> {
    let mut out = Vec::new();
    for (i, l) in text.lines().enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        out.push(Event {
            line: i + 1,
            op: parse_event_line(name, i + 1, l)?,
        });
    }
    Ok(out)
}

/// What one event did: the CLI's JSON line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EventRecord {
    /// 1-based event number.
    pub event: usize,
    /// `submit`, `run`, `end`, `urgency` or `update`.
    pub op: &'static str,
    /// The job, for submit/run/end.
    pub job: Option<String>,
    /// What an update changed (`association user/bank`, `queue name`); text output only.
    #[serde(skip)]
    pub target: Option<String>,
    /// Changes in the order they happened.
    pub changes: Vec<Change>,
    /// The associations the event touched (the job's, the updated one, and every one
    /// whose jobs changed), in configuration order, after the event.
    pub associations: Vec<AssocSummary>,
}

/// Applies one op. On error the engine is unchanged.
pub fn apply(engine: &mut LimitEngine, number: usize, op: &Op) -> Result<EventRecord, LimitError> {
    let mut touched: Vec<usize> = Vec::new();
    let changes = match op {
        Op::Submit(spec) => {
            let a = engine
                .find_association(&spec.user, spec.bank.as_deref())
                .ok_or_else(|| LimitError::UnknownAssociation {
                    user: spec.user.clone(),
                    bank: spec.bank.clone(),
                })?;
            touched.push(a);
            engine.submit(spec.clone())?.changes(&spec.id)
        }
        Op::Run(j) => engine.run(j)?,
        Op::End(j) => engine.end(j)?,
        Op::Urgency { job, urgency } => {
            let ch = engine.urgency(job, *urgency)?;
            touched.extend(engine.job(job).map(|j| j.assoc));
            ch
        }
        Op::UpdateAssociation { user, bank, update } => {
            let ch = engine.update_association(user, bank, update)?;
            touched.extend(engine.find_association(user, Some(bank)));
            ch
        }
        Op::UpdateQueue { name, update } => engine.update_queue(name, update)?,
    };
    for c in &changes {
        if let Some(j) = engine.job(c.job()) {
            touched.push(j.assoc);
        }
    }
    touched.sort_unstable();
    touched.dedup();
    Ok(EventRecord {
        event: number,
        op: op.name(),
        job: op.job().map(str::to_string),
        target: match op {
            Op::UpdateAssociation { user, bank, .. } => Some(format!("association {user}/{bank}")),
            Op::UpdateQueue { name, .. } => Some(format!("queue {name}")),
            _ => None,
        },
        changes,
        associations: touched
            .into_iter()
            .filter_map(|a| engine.summary(a))
            .collect(),
    })
}
