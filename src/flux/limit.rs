//! Limits inside the simulation: the crate's flux-accounting engine
//! ([`crate::flux::limits::LimitEngine`]) driven by the simulated job life cycle.
//!
//! - submit → [`LimitEngine::submit`]: `Rejected` (hard limit) jobs never queue; `Held` jobs
//!   wait in DEPEND with named dependencies (decision `hold`), never blocking others; `Ready`
//!   jobs are ranked and dispatched normally;
//! - dispatch → [`LimitEngine::run`]; end → [`LimitEngine::end`], whose release pass may
//!   release held jobs (they take part from the next round on);
//! - job size: `ncores` = total cores, `nnodes` = nodes asked for (`procs` requests: the
//!   fewest nodes that hold them);
//! - the association is the job's user with its default bank; the queue is the trace's queue
//!   name. Users the limits file does not list get an unlimited association (flux would
//!   reject their jobs; a trace replay wants them scheduled), unless
//!   [`LimitsSpec::reject_unknown_users`] is set.
//!
//! The file is parsed once per workload, by [`crate::sim::setup::Setup`].

use crate::flux::limits::{
    AssocConfig, AssocLimits, INT_MAX, JobSpec, JobState, LimitEngine, LimitError, SubmitOutcome,
};
use crate::workload::{Request, SimJob};
use std::collections::BTreeSet;

/// The limits of a simulation as recorded: the limits file text (TOML or JSON, the format
/// of `jobsort limits`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LimitsSpec {
    /// File name (for messages).
    pub name: String,
    pub text: String,
    /// Reject jobs of users with no association (flux behaviour) instead of giving them an
    /// unlimited one.
    #[serde(default)]
    pub reject_unknown_users: bool,
}

/// What the engine said at submit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    Ready,
    Held,
    Rejected(String),
}

/// The engine plus the simulation's view of it.
#[derive(Debug, Clone)]
pub struct LimitState {
    engine: LimitEngine,
    cores_per_node: u32,
}

/// A user the limits file does not list, whose unlimited association the engine refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("user {user}: {source}")]
pub struct UnlistedUserError {
    pub user: String,
    pub source: LimitError,
}

impl LimitState {
    /// The engine of a limits file for a workload: users it does not list get an unlimited
    /// association allowed every configured queue, unless `reject_unknown_users`.
    pub fn new(
        mut engine: LimitEngine,
        jobs: &[SimJob],
        cores_per_node: u32,
        reject_unknown_users: bool,
    ) -> Result<LimitState, UnlistedUserError> {
        if !reject_unknown_users {
            let users: BTreeSet<&str> = jobs.iter().map(|j| j.user.as_str()).collect();
            for u in users {
                if engine.find_association(u, None).is_none() {
                    let a = AssocConfig {
                        user: u.to_string(),
                        bank: "sim".into(),
                        userid: 65534,
                        fairshare: 0.5,
                        default_bank: true,
                        limits: AssocLimits {
                            max_running_jobs: INT_MAX,
                            max_active_jobs: 0,
                            max_nodes: INT_MAX,
                            max_cores: INT_MAX,
                            max_sched_jobs: INT_MAX,
                            // Every configured queue: an empty list permits none.
                            queues: engine.queues().iter().map(|q| q.name.clone()).collect(),
                            ..AssocLimits::default()
                        },
                    };
                    engine
                        .add_association(&a)
                        .map_err(|source| UnlistedUserError {
                            user: u.to_string(),
                            source,
                        })?;
                }
            }
        }
        Ok(LimitState {
            engine,
            cores_per_node: cores_per_node.max(1),
        })
    }

    /// A job was submitted.
    pub fn submit(&mut self, job: &SimJob) -> Admission {
        let nnodes = match &job.request {
            Request::Nodes { nodes, .. } => *nodes as i64,
            Request::Procs(p) => p.div_ceil(self.cores_per_node) as i64,
            // Its chunks' nodes when it names them, else as for processors.
            Request::Select(s) => match s.node_count() {
                0 => (s.total("ncpus") as u32).div_ceil(self.cores_per_node) as i64,
                n => n as i64,
            },
        };
        let spec = JobSpec {
            id: job.id.to_string(),
            user: job.user.to_string(),
            bank: None,
            queue: Some(job.queue.to_string()),
            nnodes,
            ncores: job.request.total_cores() as i64,
        };
        match self.engine.submit(spec) {
            Ok(SubmitOutcome::Ready) => Admission::Ready,
            Ok(SubmitOutcome::Held(_)) => Admission::Held,
            Ok(SubmitOutcome::Rejected(m)) => Admission::Rejected(m),
            Err(e) => Admission::Rejected(e.to_string()),
        }
    }

    /// The dependencies holding a job (empty = may run).
    pub fn holds(&self, id: &str) -> Vec<&'static str> {
        match self.engine.job(id) {
            Some(j) if j.state == JobState::Depend => j.deps.iter().map(|d| d.name()).collect(),
            _ => vec![],
        }
    }

    /// A job started.
    pub fn on_start(&mut self, id: &str) {
        let _ = self.engine.run(id);
    }

    /// A job ended.
    pub fn on_end(&mut self, id: &str) {
        let _ = self.engine.end(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: &str, user: &str) -> SimJob {
        SimJob::from(crate::sim::JobSpec {
            user: user.into(),
            queue: "default".into(),
            ..crate::sim::JobSpec::test(id)
        })
    }

    #[test]
    fn flux_limits_hold_and_release_and_unlisted_users_are_unlimited() {
        let spec = LimitsSpec {
            name: "l.toml".into(),
            text: "[[association]]\nuser = \"a\"\nbank = \"A\"\nmax_running_jobs = 1\n".into(),
            reject_unknown_users: false,
        };
        let jobs = [job("1", "a"), job("2", "a"), job("3", "b")];
        let state = |spec: &LimitsSpec| {
            let file = crate::flux::limits::LimitsConfig::parse(&spec.name, &spec.text).unwrap();
            let engine = LimitEngine::from_config(&file).unwrap();
            LimitState::new(engine, &jobs, 1, spec.reject_unknown_users).unwrap()
        };
        let mut s = state(&spec);
        assert_eq!(s.submit(&jobs[0]), Admission::Ready);
        s.on_start("1");
        assert_eq!(s.submit(&jobs[1]), Admission::Held);
        assert_eq!(s.holds("2"), vec!["max-running-jobs-user-limit"]);
        assert_eq!(s.submit(&jobs[2]), Admission::Ready);
        s.on_end("1");
        assert!(s.holds("2").is_empty());
        let strict = LimitsSpec {
            reject_unknown_users: true,
            ..spec
        };
        let mut s = state(&strict);
        assert!(matches!(s.submit(&jobs[2]), Admission::Rejected(_)));
    }
}
