//! The simulator's state: every field the round loop (`mod.rs`), the formula evaluation
//! (`evaluate.rs`), the head path (`heads.rs`) and dispatch (`dispatch.rs`) share.

use super::groups::{GroupInputs, Groups};
use super::types::{QueuePoint, Round, SimConfig};
use crate::flux::limit::LimitState;
use crate::pbs::share::UsageTree;
use crate::rank::JobKey;
use crate::sim::cluster::{Allocation, Cluster, SizeSet};
use crate::sim::inputs::Source;
use crate::sim::priority::Priority;
use crate::slurm::share::SlurmPriority;
use crate::workload::{Request, SimJob};
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

/// The per-job fields the scheduling loop reads, packed (a `SimJob` is large, and the loop
/// touches these for every queued job every round).
#[derive(Debug, Clone)]
pub(super) struct Hot {
    pub(super) submit: i64,
    pub(super) walltime: i64,
    /// [`SimJob::effective_run`].
    pub(super) run: i64,
    pub(super) request: Request,
}

/// The simulator: feed it jobs (sorted by submit time) and step it round by round.
pub struct Simulator<'a> {
    pub(super) jobs: &'a [SimJob],
    pub(super) hot: Vec<Hot>,
    pub(super) config: SimConfig,
    pub(super) formula: Option<&'a dyn Priority>,
    pub(super) cluster: Cluster,
    /// Whether a cluster kept by count decides as one kept by node for these jobs
    /// ([`Cluster::counts_suffice`]).
    pub(super) counts_suffice: bool,
    pub(super) next_submit: usize,
    pub(super) ends: BinaryHeap<Reverse<(i64, u32)>>,
    /// Queued jobs in submit order; may still hold jobs started since the last
    /// [`Simulator::compact_queue`] (`queue_stale`), `queued` counts the real ones. When the
    /// queue is kept `ranked`, only the jobs submitted this round, until they are ranked.
    pub(super) queue: Vec<u32>,
    pub(super) queue_stale: bool,
    pub(super) queued: usize,
    pub(super) running: Vec<u32>,
    /// What each running job holds, beside it in `running` (kept per running job, not per
    /// job: an allocation is 56 bytes, and a million-job trace runs a few thousand at once).
    pub(super) held: Vec<Allocation>,
    /// Each job's index in `running` (`u32::MAX`: not running), for O(1) removal.
    pub(super) running_at: Vec<u32>,
    /// EASY: the running jobs by requested end (start + requested time), then submit order,
    /// kept as jobs start and end (the shadow time walks it in order).
    pub(super) by_requested_end: BTreeSet<(i64, u32)>,
    pub(super) start: Vec<Option<i64>>,
    pub(super) end: Vec<Option<i64>>,
    pub(super) finished: Vec<u8>,
    pub(super) round: Round,
    pub(super) rounds_done: u64,
    pub(super) last_time: Option<i64>,
    pub(super) share: Option<UsageTree>,
    pub(super) leaf: Vec<u32>,
    /// Jobs running per share-tree node, their summed usage rate (`fairshare_usage_res` per
    /// second), and the nodes with any (accrual per entity).
    pub(super) leaf_running: Vec<u32>,
    pub(super) leaf_rate: Vec<f64>,
    /// Each job's usage rate ([`crate::pbs::share::UsageRes::rate`]), with fairshare.
    pub(super) usage_rate: Vec<f64>,
    pub(super) active_leaves: Vec<u32>,
    pub(super) limits: Option<LimitState>,
    /// Slurm's multifactor priority, when it ranks the jobs.
    pub(super) slurm: Option<SlurmPriority>,
    /// Jobs rejected at submit by a hard limit.
    pub(super) rejected: Vec<bool>,
    pub(super) sources: Vec<Source>,
    pub(super) needs_share: bool,
    pub(super) columns: Vec<Vec<f64>>,
    pub(super) values: Vec<f64>,
    pub(super) errors: Vec<u8>,
    pub(super) order: Vec<u32>,
    pub(super) rank_keys: Vec<JobKey>,
    /// Each job's queue tier ([`super::QueueOrder::tiers`]), when queues order first, and
    /// scratch keys to rank by it.
    pub(super) tiers: Option<Vec<u32>>,
    /// With `round_robin`, each tier's turn group ([`super::QueueOrder::round_robin_levels`]).
    pub(super) tier_levels: Option<Vec<u32>>,
    pub(super) tier_keys: Vec<(u32, JobKey)>,
    pub(super) hashing: bool,
    /// Record every decision and the ranked queue (else only dispatches, and rounds where
    /// nothing can start skip evaluation).
    pub(super) full: bool,
    /// Queued jobs by total cores asked (multiset), for the "nothing can start" shortcut.
    pub(super) queued_cores: SizeSet,
    pub(super) eval_errors: u64,
    /// Strict ordering by group heads (see `heads.rs`), when the formula allows it,
    /// with each group's inputs.
    pub(super) groups: Option<Groups>,
    pub(super) group_inputs: GroupInputs,
    /// The groups of `cand`'s jobs, and their share-tree nodes.
    pub(super) cand_groups: Vec<u32>,
    pub(super) cand_leaves: Vec<u32>,
    /// Jobs evaluated by the head path (heads, then tails), their values and errors.
    pub(super) cand: Vec<u32>,
    pub(super) cand_values: Vec<f64>,
    pub(super) cand_errors: Vec<u8>,
    /// The head path's candidates as keys of the job order (position: the job), and scratch
    /// space for one evaluation.
    pub(super) head_keys: Vec<JobKey>,
    pub(super) scratch_values: Vec<f64>,
    pub(super) scratch_errors: Vec<u8>,
    pub(super) series: Vec<QueuePoint>,
    pub(super) keep_series: bool,
    /// The requests found not to fit in this dispatch whose "no" lasts while it only takes
    /// resources ([`Cluster::no_fit_lasts`]): a later job asking the same is not placed again.
    pub(super) no_fit: rustc_hash::FxHashSet<Request>,
    /// Whether every input the formula reads is fixed while a job waits (no
    /// `eligible_time`, fairshare or Slurm factor), with no queue tiers: a job's value is
    /// then the one it had at submit, and rounds without a recording keep the queue ranked
    /// ([`Simulator::ranked`]) instead of evaluating and sorting it every round.
    pub(super) values_fixed: bool,
    /// With fixed values and no recording: the queued jobs that may start, ranked (value,
    /// then submit order). A job at or under the threshold is set aside at submit, once:
    /// its value never rises.
    pub(super) ranked: BTreeSet<JobKey>,
    /// Each job's value at submit (with fixed values and no recording), and whether its
    /// evaluation erred; `erring` counts the queued jobs that err, which every round that
    /// would evaluate the queue counts again (as the evaluated rounds do).
    pub(super) fixed_value: Vec<f64>,
    pub(super) fixed_errs: Vec<bool>,
    pub(super) erring: u64,
}
