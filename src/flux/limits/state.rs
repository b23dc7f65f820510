//! The engine state as JSON: the shape of `flux jobtap query mf_priority.so`
//! (`Association::to_json`, reference §2.1) and the compact per-association summary the
//! CLI prints after each event.

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};

use super::assoc::{Association, Dependency, QueueUsage};
use super::engine::LimitEngine;

/// A list of pairs serialized as a JSON object in list order (flux's `held_jobs` object
/// keeps the FIFO order this way).
#[derive(Clone, Debug, PartialEq)]
pub struct OrderedMap<V>(pub Vec<(String, V)>);

impl<V: Serialize> Serialize for OrderedMap<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// `flux jobtap query mf_priority.so` output.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QueryState {
    /// Per user, its banks.
    pub mf_priority_map: Vec<UserEntry>,
    /// Queues by name.
    pub queues: BTreeMap<String, QueueEntry>,
    /// Projects (this engine knows only flux's default `*`).
    pub projects: Vec<String>,
}

/// One user of the map.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UserEntry {
    /// Numeric user id.
    pub userid: i64,
    /// User name (not in flux's output, which keys by uid only).
    pub username: String,
    /// The user's associations.
    pub banks: Vec<BankEntry>,
}

/// One association, as `Association::to_json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BankEntry {
    /// Bank.
    pub bank_name: String,
    /// Fairshare.
    pub fairshare: f64,
    /// `max_running_jobs`.
    pub max_run_jobs: i64,
    /// Running jobs.
    pub cur_run_jobs: i64,
    /// `max_active_jobs`.
    pub max_active_jobs: i64,
    /// Active jobs.
    pub cur_active_jobs: i64,
    /// Permitted queues, comma separated.
    pub queues: String,
    /// Queue factor: the queue priority of the association's last accepted job, as flux's
    /// `new_cb` stores it (0 for no or an unknown queue).
    pub queue_factor: i64,
    /// Projects.
    pub projects: String,
    /// Default project.
    pub def_project: String,
    /// `max_nodes`.
    pub max_nodes: i64,
    /// `max_cores`.
    pub max_cores: i64,
    /// Nodes of running jobs.
    pub cur_nodes: i64,
    /// Cores of running jobs.
    pub cur_cores: i64,
    /// 1 if active.
    pub active: i64,
    /// Jobs in SCHED.
    pub cur_sched_jobs: i64,
    /// `max_sched_jobs`.
    pub max_sched_jobs: i64,
    /// Usage per queue; `""` for the jobs without a queue, as flux keys them.
    pub queue_usage: BTreeMap<String, QueueUsage>,
    /// Held jobs in FIFO order.
    pub held_jobs: OrderedMap<HeldJobEntry>,
}

/// One held job in the query.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HeldJobEntry {
    /// Nodes.
    pub nnodes: i64,
    /// Cores.
    pub ncores: i64,
    /// Queue name, empty if none.
    pub queue: String,
    /// Remaining dependencies.
    pub deps: Vec<Dependency>,
}

/// One queue in the query.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QueueEntry {
    /// Priority.
    pub priority: i64,
    /// `max_running_jobs`.
    pub max_running_jobs: i64,
    /// `max_nodes_per_assoc`.
    pub max_nodes_per_assoc: i64,
    /// `max_sched_jobs`.
    pub max_sched_jobs: i64,
    /// `max_sched_nodes_per_assoc`.
    pub max_sched_nodes_per_assoc: i64,
    /// `max_sched_cores_per_assoc`.
    pub max_sched_cores_per_assoc: i64,
}

/// A held job in the CLI summary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeldJobSummary {
    /// Job id.
    pub job: String,
    /// Remaining dependencies.
    pub dependencies: Vec<Dependency>,
}

/// An association's counters and held jobs (one element of the CLI's `associations`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AssocSummary {
    /// User.
    pub user: String,
    /// Bank.
    pub bank: String,
    /// Running jobs.
    pub cur_run_jobs: i64,
    /// Active jobs.
    pub cur_active_jobs: i64,
    /// Jobs in SCHED.
    pub cur_sched_jobs: i64,
    /// Nodes of running jobs.
    pub cur_nodes: i64,
    /// Cores of running jobs.
    pub cur_cores: i64,
    /// Held jobs, FIFO.
    pub held_jobs: Vec<HeldJobSummary>,
}

impl LimitEngine {
    /// The summary of association `index` (see [`LimitEngine::associations`]).
    pub fn summary(&self, index: usize) -> Option<AssocSummary> {
        let a = self.associations().get(index)?;
        Some(AssocSummary {
            user: a.user.clone(),
            bank: a.bank.clone(),
            cur_run_jobs: a.counters.cur_run_jobs,
            cur_active_jobs: a.counters.cur_active_jobs,
            cur_sched_jobs: a.counters.cur_sched_jobs,
            cur_nodes: a.counters.cur_nodes,
            cur_cores: a.counters.cur_cores,
            held_jobs: a
                .held
                .iter()
                .map(|id| HeldJobSummary {
                    job: id.clone(),
                    dependencies: self.job(id).map(|j| j.deps.clone()).unwrap_or_default(),
                })
                .collect(),
        })
    }

    fn bank_entry(&self, a: &Association) -> BankEntry {
        let queues = self.queues();
        BankEntry {
            bank_name: a.bank.clone(),
            fairshare: a.fairshare,
            max_run_jobs: a.limits.max_running_jobs,
            cur_run_jobs: a.counters.cur_run_jobs,
            max_active_jobs: a.limits.max_active_jobs,
            cur_active_jobs: a.counters.cur_active_jobs,
            queues: a.limits.queues.join(","),
            queue_factor: a.queue_factor,
            projects: "*".to_string(),
            def_project: "*".to_string(),
            max_nodes: a.limits.max_nodes,
            max_cores: a.limits.max_cores,
            cur_nodes: a.counters.cur_nodes,
            cur_cores: a.counters.cur_cores,
            active: i64::from(a.limits.active),
            cur_sched_jobs: a.counters.cur_sched_jobs,
            max_sched_jobs: a.limits.max_sched_jobs,
            queue_usage: a
                .queue_usage
                .iter()
                .map(|(qi, u)| (queues[*qi].name.clone(), *u))
                .chain(a.no_queue_usage.map(|u| (String::new(), u)))
                .collect(),
            held_jobs: OrderedMap(
                a.held
                    .iter()
                    .filter_map(|id| {
                        let j = self.job(id)?;
                        Some((
                            id.clone(),
                            HeldJobEntry {
                                nnodes: j.nnodes,
                                ncores: j.ncores,
                                queue: j.queue_name.clone().unwrap_or_default(),
                                deps: j.deps.clone(),
                            },
                        ))
                    })
                    .collect(),
            ),
        }
    }

    /// The whole state in the shape of `flux jobtap query mf_priority.so`. Users appear in
    /// the order of their first association, banks in configuration order.
    pub fn query(&self) -> QueryState {
        let mut users: Vec<UserEntry> = Vec::new();
        let mut index: std::collections::HashMap<&str, usize> = Default::default();
        for a in self.associations() {
            let i = *index.entry(a.user.as_str()).or_insert_with(|| {
                users.push(UserEntry {
                    userid: a.userid,
                    username: a.user.clone(),
                    banks: Vec::new(),
                });
                users.len() - 1
            });
            users[i].banks.push(self.bank_entry(a));
        }
        QueryState {
            mf_priority_map: users,
            queues: self
                .queues()
                .iter()
                .map(|q| {
                    let l = &q.limits;
                    (
                        q.name.clone(),
                        QueueEntry {
                            priority: l.priority,
                            max_running_jobs: l.max_running_jobs,
                            max_nodes_per_assoc: l.max_nodes_per_assoc,
                            max_sched_jobs: l.max_sched_jobs,
                            max_sched_nodes_per_assoc: l.max_sched_nodes_per_assoc,
                            max_sched_cores_per_assoc: l.max_sched_cores_per_assoc,
                        },
                    )
                })
                .collect(),
            projects: vec!["*".to_string()],
        }
    }
}
