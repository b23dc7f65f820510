//! Associations, queues, their limits, updates of the limits, their counters, and the limit
//! predicates (flux-accounting `accounting.cpp`; reference `slurm_flux.md` §2.1, §2.5).

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};

/// flux's `INT_MAX` default for "unlimited" limits.
pub const INT_MAX: i64 = 2_147_483_647;

/// Limits of one association (user + bank), flux-accounting `association_table`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssocLimits {
    /// Soft: held with `max-running-jobs-user-limit` when `cur_run_jobs >= max` (default 5).
    pub max_running_jobs: i64,
    /// Hard: rejected at submit when `> 0 && cur_active_jobs >= max` (default 7).
    pub max_active_jobs: i64,
    /// Hard (job larger) and soft (`max-resources-user-limit`) node limit.
    pub max_nodes: i64,
    /// Hard (job larger) and soft (`max-resources-user-limit`) core limit.
    pub max_cores: i64,
    /// Soft: held with `max-sched-jobs-user-limit` when `cur_sched_jobs >= max`.
    pub max_sched_jobs: i64,
    /// Queues the association may use. Empty: no queue flux-accounting knows (a job
    /// naming one is rejected, as flux's `get_queue_info` does); a job without a queue or
    /// with a queue flux-accounting does not know is not affected.
    pub queues: Vec<String>,
    /// An inactive association's jobs are rejected.
    pub active: bool,
}

impl Default for AssocLimits {
    fn default() -> Self {
        AssocLimits {
            max_running_jobs: 5,
            max_active_jobs: 7,
            max_nodes: INT_MAX,
            max_cores: INT_MAX,
            max_sched_jobs: INT_MAX,
            queues: Vec::new(),
            active: true,
        }
    }
}

/// Per-association limits of one queue, flux-accounting `queue_table`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueLimits {
    /// The queue's integer priority (the `queue_factor` of the priority formula).
    pub priority: i64,
    /// Soft: `max-run-jobs-queue` when the association's running jobs in the queue reach it (default 100).
    pub max_running_jobs: i64,
    /// Hard (job larger) and soft (`max-resources-queue`, RUN + SCHED nodes).
    pub max_nodes_per_assoc: i64,
    /// Soft: `max-sched-jobs-queue-limit`.
    pub max_sched_jobs: i64,
    /// Soft: `max-sched-nodes-queue-limit`.
    pub max_sched_nodes_per_assoc: i64,
    /// Soft: `max-sched-cores-queue-limit`.
    pub max_sched_cores_per_assoc: i64,
}

impl Default for QueueLimits {
    fn default() -> Self {
        QueueLimits {
            priority: 0,
            max_running_jobs: 100,
            max_nodes_per_assoc: INT_MAX,
            max_sched_jobs: INT_MAX,
            max_sched_nodes_per_assoc: INT_MAX,
            max_sched_cores_per_assoc: INT_MAX,
        }
    }
}

/// A partial update of an association's limits: `None` keeps the value, `Some(-1)` resets
/// it to flux's default (as `flux account edit-user --X=-1`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AssocUpdate {
    /// New `max_running_jobs`.
    pub max_running_jobs: Option<i64>,
    /// New `max_active_jobs`.
    pub max_active_jobs: Option<i64>,
    /// New `max_nodes`.
    pub max_nodes: Option<i64>,
    /// New `max_cores`.
    pub max_cores: Option<i64>,
    /// New `max_sched_jobs`.
    pub max_sched_jobs: Option<i64>,
    /// New queue list.
    pub queues: Option<Vec<String>>,
    /// New active flag.
    pub active: Option<bool>,
}

/// A partial update of a queue's limits (`-1` resets to the default).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueUpdate {
    /// New priority.
    pub priority: Option<i64>,
    /// New `max_running_jobs`.
    pub max_running_jobs: Option<i64>,
    /// New `max_nodes_per_assoc`.
    pub max_nodes_per_assoc: Option<i64>,
    /// New `max_sched_jobs`.
    pub max_sched_jobs: Option<i64>,
    /// New `max_sched_nodes_per_assoc`.
    pub max_sched_nodes_per_assoc: Option<i64>,
    /// New `max_sched_cores_per_assoc`.
    pub max_sched_cores_per_assoc: Option<i64>,
}

/// `new` replaces `slot`; `-1` resets it to `default` (flux's reset); `None` keeps it.
fn set_or_reset(slot: &mut i64, new: Option<i64>, default: i64) {
    if let Some(v) = new {
        *slot = if v == -1 { default } else { v };
    }
}

impl AssocLimits {
    /// Applies an update (the queue names are checked by the engine, which knows the
    /// queues).
    pub fn apply(&mut self, update: &AssocUpdate) {
        let d = AssocLimits::default();
        set_or_reset(
            &mut self.max_running_jobs,
            update.max_running_jobs,
            d.max_running_jobs,
        );
        set_or_reset(
            &mut self.max_active_jobs,
            update.max_active_jobs,
            d.max_active_jobs,
        );
        set_or_reset(&mut self.max_nodes, update.max_nodes, d.max_nodes);
        set_or_reset(&mut self.max_cores, update.max_cores, d.max_cores);
        set_or_reset(
            &mut self.max_sched_jobs,
            update.max_sched_jobs,
            d.max_sched_jobs,
        );
        if let Some(queues) = &update.queues {
            self.queues = queues.clone();
        }
        if let Some(active) = update.active {
            self.active = active;
        }
    }
}

impl QueueLimits {
    /// Applies an update.
    pub fn apply(&mut self, update: &QueueUpdate) {
        let d = QueueLimits::default();
        set_or_reset(&mut self.priority, update.priority, d.priority);
        set_or_reset(
            &mut self.max_running_jobs,
            update.max_running_jobs,
            d.max_running_jobs,
        );
        set_or_reset(
            &mut self.max_nodes_per_assoc,
            update.max_nodes_per_assoc,
            d.max_nodes_per_assoc,
        );
        set_or_reset(
            &mut self.max_sched_jobs,
            update.max_sched_jobs,
            d.max_sched_jobs,
        );
        set_or_reset(
            &mut self.max_sched_nodes_per_assoc,
            update.max_sched_nodes_per_assoc,
            d.max_sched_nodes_per_assoc,
        );
        set_or_reset(
            &mut self.max_sched_cores_per_assoc,
            update.max_sched_cores_per_assoc,
            d.max_sched_cores_per_assoc,
        );
    }
}

/// An association's usage of one queue (flux `QueueUsage`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct QueueUsage {
    /// Running jobs in the queue.
    pub cur_run_jobs: i64,
    /// Nodes of running jobs in the queue.
    pub cur_nodes: i64,
    /// Jobs in SCHED in the queue.
    pub cur_sched_jobs: i64,
    /// Nodes of jobs in SCHED in the queue.
    pub cur_sched_nodes: i64,
    /// Cores of jobs in SCHED in the queue.
    pub cur_sched_cores: i64,
}

/// An association's counters. `cur_sched_nodes`/`cur_sched_cores` are not in flux's
/// association (only per queue); they feed the `count_sched_in_resources` option.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Jobs in RUN.
    pub cur_run_jobs: i64,
    /// Jobs submitted and not yet inactive (held, SCHED or RUN).
    pub cur_active_jobs: i64,
    /// Jobs in SCHED.
    pub cur_sched_jobs: i64,
    /// Nodes of jobs in RUN.
    pub cur_nodes: i64,
    /// Cores of jobs in RUN.
    pub cur_cores: i64,
    /// Nodes of jobs in SCHED (all queues).
    pub cur_sched_nodes: i64,
    /// Cores of jobs in SCHED (all queues).
    pub cur_sched_cores: i64,
}

/// An association with its limits, counters and held list.
#[derive(Clone, Debug)]
pub struct Association {
    /// User name.
    pub user: String,
    /// Bank name.
    pub bank: String,
    /// Numeric user id (flux `userid`; 65534 when unknown).
    pub userid: i64,
    /// Fairshare value (shown in the query only).
    pub fairshare: f64,
    /// Limits.
    pub limits: AssocLimits,
    /// Counters.
    pub counters: Counters,
    /// Usage per known queue (by queue index), created on first use as flux does.
    pub queue_usage: BTreeMap<usize, QueueUsage>,
    /// Usage by the jobs without a queue: flux keeps it under the queue name `""`
    /// (`queue_usage[""]` in its query), created by the first such job.
    pub no_queue_usage: Option<QueueUsage>,
    /// The queue factor of the association's last accepted job (flux's `new_cb` stores
    /// the job's queue priority on the association; 0 for no or an unknown queue).
    pub queue_factor: i64,
    /// SCHED counts flux added again when an urgency change sent a SCHED job through
    /// PRIORITY → SCHED and never takes back (see [`LimitEngine::urgency`]); kept apart
    /// so the recount can tell them from jobs in SCHED.
    ///
    /// [`LimitEngine::urgency`]: crate::flux::limits::LimitEngine::urgency
    pub sched_leak: SchedLeak,
    /// Held jobs in FIFO order.
    pub held: Vec<String>,
}

/// SCHED counts an association keeps for jobs no longer in SCHED (flux's urgency re-count).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SchedLeak {
    /// Extra `cur_sched_jobs` (and the jobsort-only `cur_sched_nodes`/`cur_sched_cores`).
    pub counters: Counters,
    /// Extra SCHED jobs, nodes and cores per known queue.
    pub queues: BTreeMap<usize, QueueUsage>,
    /// Extra SCHED jobs, nodes and cores of jobs without a queue (`queue_usage[""]`).
    pub no_queue: QueueUsage,
}

/// A queue known to the engine.
#[derive(Clone, Debug)]
pub struct Queue {
    /// Name.
    pub name: String,
    /// Limits.
    pub limits: QueueLimits,
}

/// A flux-accounting dependency: a soft limit holding a job in DEPEND.
/// The variants are in the order `depend_cb` checks them; `ALL` keeps that order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dependency {
    /// `max-run-jobs-queue`
    MaxRunJobsQueue,
    /// `max-sched-jobs-queue-limit`
    MaxSchedJobsQueue,
    /// `max-sched-nodes-queue-limit`
    MaxSchedNodesQueue,
    /// `max-sched-cores-queue-limit`
    MaxSchedCoresQueue,
    /// `max-resources-queue`
    MaxResourcesQueue,
    /// `max-running-jobs-user-limit`
    MaxRunningJobsUser,
    /// `max-sched-jobs-user-limit`
    MaxSchedJobsUser,
    /// `max-resources-user-limit`
    MaxResourcesUser,
}

impl Dependency {
    /// Every dependency, in flux's check order.
    pub const ALL: [Dependency; 8] = [
        Dependency::MaxRunJobsQueue,
        Dependency::MaxSchedJobsQueue,
        Dependency::MaxSchedNodesQueue,
        Dependency::MaxSchedCoresQueue,
        Dependency::MaxResourcesQueue,
        Dependency::MaxRunningJobsUser,
        Dependency::MaxSchedJobsUser,
        Dependency::MaxResourcesUser,
    ];

    /// flux's dependency name (the `description` of `dependency-add`).
    pub fn name(self) -> &'static str {
        match self {
            Dependency::MaxRunJobsQueue => "max-run-jobs-queue",
            Dependency::MaxSchedJobsQueue => "max-sched-jobs-queue-limit",
            Dependency::MaxSchedNodesQueue => "max-sched-nodes-queue-limit",
            Dependency::MaxSchedCoresQueue => "max-sched-cores-queue-limit",
            Dependency::MaxResourcesQueue => "max-resources-queue",
            Dependency::MaxRunningJobsUser => "max-running-jobs-user-limit",
            Dependency::MaxSchedJobsUser => "max-sched-jobs-user-limit",
            Dependency::MaxResourcesUser => "max-resources-user-limit",
        }
    }

    /// The dependency with this flux name.
    pub fn from_name(name: &str) -> Option<Dependency> {
        Dependency::ALL.into_iter().find(|d| d.name() == name)
    }

    /// Whether this is a per-queue limit (skipped for jobs without a known queue).
    pub fn is_queue_limit(self) -> bool {
        (self as u8) < (Dependency::MaxRunningJobsUser as u8)
    }
}

impl std::fmt::Display for Dependency {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Dependency {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Pass-local headroom already promised to jobs released earlier in the same release pass.
///
/// flux also keeps pending SCHED counters, but counts a job in them only when it did not
/// enter SCHED synchronously (it still waits on a non-accounting dependency such as
/// `afterany`). This engine has no non-accounting dependencies, so a released job always
/// enters SCHED at once and bumps the real SCHED counters; the pending SCHED counters are
/// therefore always zero and are not kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pending {
    /// Released jobs of the association (they will count in `cur_run_jobs` once they run).
    pub run_jobs: i64,
    /// Released jobs of the association in the held job's queue.
    pub queue_run_jobs: i64,
}

/// Everything a predicate looks at for one job.
#[derive(Clone, Copy, Debug)]
pub struct CheckContext<'a> {
    /// The association's limits.
    pub limits: &'a AssocLimits,
    /// The association's counters.
    pub counters: &'a Counters,
    /// The queue's limits and the association's usage of it, when the job's queue is known.
    pub queue: Option<(&'a QueueLimits, &'a QueueUsage)>,
    /// Nodes the job asks for.
    pub nnodes: i64,
    /// Cores the job asks for.
    pub ncores: i64,
    /// Pass-local pending counters (zero at DEPEND).
    pub pending: Pending,
    /// Count SCHED jobs in the run-job and node/core limits (the overshoot fix): RUN +
    /// SCHED jobs against `max_running_jobs` (association and queue) and RUN + SCHED
    /// nodes/cores against `max_nodes`/`max_cores`. The pass-local pending counters are then
    /// not needed (a released job is already counted as SCHED) and are ignored.
    pub count_sched_in_resources: bool,
}

impl CheckContext<'_> {
    /// Whether the job hits `dep` (would be held by it). Queue limits are never hit by a
    /// job whose queue is unknown to the engine.
    pub fn hits(&self, dep: Dependency) -> bool {
        let c = self.counters;
        let l = self.limits;
        let p = self.pending;
        if dep.is_queue_limit() {
            let Some((ql, qu)) = self.queue else {
                return false;
            };
            return match dep {
                Dependency::MaxRunJobsQueue => {
                    let released = if self.count_sched_in_resources {
                        qu.cur_sched_jobs
                    } else {
                        p.queue_run_jobs
                    };
                    qu.cur_run_jobs + released >= ql.max_running_jobs
                }
                Dependency::MaxSchedJobsQueue => qu.cur_sched_jobs >= ql.max_sched_jobs,
                Dependency::MaxSchedNodesQueue => {
                    qu.cur_sched_nodes + self.nnodes > ql.max_sched_nodes_per_assoc
                }
                Dependency::MaxSchedCoresQueue => {
                    qu.cur_sched_cores + self.ncores > ql.max_sched_cores_per_assoc
                }
                Dependency::MaxResourcesQueue => {
                    qu.cur_nodes + qu.cur_sched_nodes + self.nnodes > ql.max_nodes_per_assoc
                }
                _ => false,
            };
        }
        match dep {
            Dependency::MaxRunningJobsUser => {
                let released = if self.count_sched_in_resources {
                    c.cur_sched_jobs
                } else {
                    p.run_jobs
                };
                c.cur_run_jobs + released >= l.max_running_jobs
            }
            Dependency::MaxSchedJobsUser => c.cur_sched_jobs >= l.max_sched_jobs,
            Dependency::MaxResourcesUser => !self.under_max_resources(),
            _ => false,
        }
    }

    /// flux's `under_max_resources`: `max_nodes > 0 && max_cores > 0 &&
    /// cur_nodes + nnodes <= max_nodes && cur_cores + ncores <= max_cores`, where the
    /// current usage also counts SCHED jobs under `count_sched_in_resources`.
    pub fn under_max_resources(&self) -> bool {
        let c = self.counters;
        let l = self.limits;
        let (nodes, cores) = if self.count_sched_in_resources {
            (
                c.cur_nodes + c.cur_sched_nodes,
                c.cur_cores + c.cur_sched_cores,
            )
        } else {
            (c.cur_nodes, c.cur_cores)
        };
        l.max_nodes > 0
            && l.max_cores > 0
            && nodes + self.nnodes <= l.max_nodes
            && cores + self.ncores <= l.max_cores
    }

    /// The dependencies the job hits, in flux's order (what `depend_cb` adds).
    pub fn all_hits(&self) -> Vec<Dependency> {
        Dependency::ALL
            .into_iter()
            .filter(|d| self.hits(*d))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_order() {
        for d in Dependency::ALL {
            assert_eq!(Dependency::from_name(d.name()), Some(d));
        }
        assert!(Dependency::MaxResourcesQueue.is_queue_limit());
        assert!(!Dependency::MaxRunningJobsUser.is_queue_limit());
        assert_eq!(Dependency::from_name("afterany"), None);
    }

    #[test]
    fn non_positive_max_nodes_never_fits() {
        let limits = AssocLimits {
            max_nodes: 0,
            ..AssocLimits::default()
        };
        let counters = Counters::default();
        let ctx = CheckContext {
            limits: &limits,
            counters: &counters,
            queue: None,
            nnodes: 0,
            ncores: 0,
            pending: Pending::default(),
            count_sched_in_resources: false,
        };
        assert!(ctx.hits(Dependency::MaxResourcesUser));
        assert!(!ctx.hits(Dependency::MaxRunJobsQueue));
    }
}
