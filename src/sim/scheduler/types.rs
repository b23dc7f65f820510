//! The scheduler's vocabulary: settings, events, decisions, rounds and the outcome.

use crate::flux::limit::LimitsSpec;
use crate::pbs::share::{FairshareConfig, UsageTree};
use crate::rank::JobKey;
use crate::sim::cluster::Allocation;
use crate::workload::SimJob;
use std::collections::BTreeMap;

pub use crate::model::policy::{Policy, SlurmBackfill};

/// Everything that decides a simulation besides the jobs and the formula: the specification,
/// recorded in a recording's header; [`crate::sim::setup::Setup`] is what a run builds from it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SimConfig {
    pub policy: Policy,
    pub nodes: u32,
    pub cores: u32,
    /// `job_sort_formula_threshold`: jobs with value ≤ this are not run.
    pub threshold: Option<f64>,
    pub fairshare: Option<FairshareConfig>,
    /// flux-accounting limits (the limits file text).
    pub limits: Option<LimitsSpec>,
    /// Queues (PBS `by_queue`) or partitions (Slurm `PriorityTier`) ordered before the
    /// formula's order; `None`: one queue, the formula's order alone. Recorded in a
    /// recording's header only when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_order: Option<QueueOrder>,
}

impl SimConfig {
    /// `policy` on `nodes × cores`, with nothing else: no threshold, fairshare, limits or
    /// queue order (set the fields for those).
    pub fn new(policy: Policy, nodes: u32, cores: u32) -> SimConfig {
        SimConfig {
            policy,
            nodes,
            cores,
            threshold: None,
            fairshare: None,
            limits: None,
            queue_order: None,
        }
    }
}

/// How the queues a job may be in order it before the formula does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QueueOrderKind {
    /// PBS `by_queue`: the scheduler takes the queues one after another, by queue
    /// `Priority`, high first (`sort.cpp: cmp_queue_prio_dsc`), and each queue's jobs in the
    /// formula's order (`fifo.cpp: next_job`, `sort.cpp: sort_jobs`). Queues of equal priority
    /// are still taken one after another: PBS's `qsort` leaves their order unspecified, here
    /// it is by name. A queue without a `Priority` has 0.
    Pbs,
    /// Slurm `PriorityTier`: partitions of a higher tier first, and within a tier (the jobs
    /// of all its partitions together) the job priority (`slurm.conf.5`, PriorityType: "can
    /// preempt → has a reservation → partition PriorityTier → job priority → submit time").
    /// A partition the configuration does not list has the default tier, 1.
    Slurm,
    /// PBS `round_robin` (`fifo.cpp` `next_job`, which takes it before `by_queue`): the queues
    /// grouped by `Priority`, higher first, and within a group one job from each queue in
    /// turn (queues by name; PBS keeps the server's order), each queue in the formula's
    /// order ([`crate::pbs::order::interleave`]).
    #[serde(rename = "pbs_round_robin")]
    PbsRoundRobin,
}

/// Queue or partition priorities, ordered before the formula's order.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct QueueOrder {
    pub kind: QueueOrderKind,
    /// Each queue's `Priority` (PBS) or partition's `PriorityTier` (Slurm), by name; higher
    /// first.
    pub priorities: BTreeMap<String, i64>,
}

impl QueueOrder {
    /// The priority of a queue the settings do not list (PBS: unset, 0; Slurm's default
    /// `PriorityTier`, 1).
    pub fn unlisted(&self) -> i64 {
        match self.kind {
            QueueOrderKind::Pbs | QueueOrderKind::PbsRoundRobin => 0,
            QueueOrderKind::Slurm => 1,
        }
    }

    /// With `round_robin`, each tier's turn group (the queues of one `Priority`, numbered from
    /// 0, higher first), by tier; `None` for the other kinds.
    pub fn round_robin_levels(&self, job_queues: &[&str]) -> Option<Vec<u32>> {
        if self.kind != QueueOrderKind::PbsRoundRobin {
            return None;
        }
        let queues = self.queues(job_queues);
        let mut levels = Vec::with_capacity(queues.len());
        let mut level = 0;
        for (i, &(p, _)) in queues.iter().enumerate() {
            level += u32::from(i > 0 && p != queues[i - 1].0);
            levels.push(level);
        }
        Some(levels)
    }

    /// The queues that matter, once each, in tier order: those listed and those the jobs are
    /// in, by priority (high first), then name.
    fn queues<'a>(&'a self, job_queues: &[&'a str]) -> Vec<(i64, &'a str)> {
        let mut queues: Vec<(i64, &str)> = self
            .priorities
            .iter()
            .map(|(q, &p)| (p, q.as_str()))
            .collect();
        queues.extend(
            job_queues
                .iter()
                .filter(|q| !self.priorities.contains_key(**q))
                .map(|q| (self.unlisted(), *q)),
        );
        queues.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        queues.dedup();
        queues
    }

    /// Each job's tier: 0 is taken first. PBS: one tier per queue, by priority (high
    /// first), then name; Slurm: one tier per distinct `PriorityTier`, high first.
    pub fn tiers(&self, jobs: &[SimJob]) -> Vec<u32> {
        let queues: Vec<&str> = jobs.iter().map(|j| j.queue.as_str()).collect();
        self.tiers_of(&queues)
    }

    /// [`QueueOrder::tiers`] of jobs given by their queues' names.
    pub fn tiers_of(&self, job_queues: &[&str]) -> Vec<u32> {
        let queues = self.queues(job_queues);
        let mut tier: BTreeMap<&str, u32> = BTreeMap::new();
        let mut t = 0;
        for (i, &(p, q)) in queues.iter().enumerate() {
            let next = match self.kind {
                QueueOrderKind::Pbs | QueueOrderKind::PbsRoundRobin => i > 0,
                QueueOrderKind::Slurm => i > 0 && p != queues[i - 1].0,
            };
            t += u32::from(next);
            tier.insert(q, t);
        }
        job_queues.iter().map(|q| tier[q]).collect()
    }
}

/// The first `top` jobs (all when `None`) of the order with queue tiers: tier ascending
/// (`tier_of(position)`, [`QueueOrder::tiers`]), then [`crate::rank`]'s order (value
/// descending, then position), as positions in `out`. `keys` is scratch. The one definition
/// of the tiered order: the simulator ranks with it, and replay's reconciliation too.
pub fn tiered_top_into(
    values: &[f64],
    tier_of: impl Fn(usize) -> u32,
    top: Option<usize>,
    keys: &mut Vec<(u32, JobKey)>,
    out: &mut Vec<u32>,
) {
    tiered_turns_into(values, tier_of, None, top, keys, out)
}

/// [`tiered_top_into`], with `round_robin`'s turns when `levels` gives each tier's turn group
/// ([`QueueOrder::round_robin_levels`]): within a group, one job of each tier (queue) in
/// turn, each tier in the tiered order ([`crate::pbs::order::interleave`]).
pub fn tiered_turns_into(
    values: &[f64],
    tier_of: impl Fn(usize) -> u32,
    levels: Option<&[u32]>,
    top: Option<usize>,
    keys: &mut Vec<(u32, JobKey)>,
    out: &mut Vec<u32>,
) {
    let n = values.len().min(u32::MAX as usize);
    if let Some(levels) = levels {
        tiered_top_into(values, tier_of, None, keys, out);
        let mut turns: Vec<Vec<std::collections::VecDeque<u32>>> = Vec::new();
        let mut last: Option<(u32, u32)> = None;
        for (&(tier, _), &position) in keys.iter().zip(out.iter()) {
            let level = levels.get(tier as usize).copied().unwrap_or(u32::MAX);
            match last {
                Some((l, t)) if l == level && t == tier => {}
                Some((l, _)) if l == level => turns.last_mut().into_iter().for_each(|g| {
                    g.push(std::collections::VecDeque::new());
                }),
                _ => turns.push(vec![std::collections::VecDeque::new()]),
            }
            last = Some((level, tier));
            if let Some(q) = turns.last_mut().and_then(|g| g.last_mut()) {
                q.push_back(position);
            }
        }
        *out = crate::pbs::order::interleave(turns);
        out.truncate(top.unwrap_or(n));
        return;
    }
    let k = top.unwrap_or(n).min(n);
    keys.clear();
    out.clear();
    keys.extend(
        values[..n]
            .iter()
            .enumerate()
            .map(|(i, &v)| (tier_of(i), JobKey::new(v, i as u32))),
    );
    if k < n {
        if k > 0 {
            keys.select_nth_unstable(k - 1);
        }
        keys.truncate(k);
    }
    keys.sort_unstable();
    out.extend(keys.iter().map(|(_, key)| key.position()));
}

/// Kinds of events, in tie order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum EventKind {
    /// A running job ended.
    End,
    /// A job was submitted.
    Submit,
}

/// An event applied in a round (`job` = index in the job list = submit order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    pub kind: EventKind,
    pub job: u32,
}

/// Why a queued job did not start this round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PendReason {
    Resources,
    Reservation,
    Threshold,
}

impl PendReason {
    /// Name used in recordings.
    pub fn name(self) -> &'static str {
        match self {
            PendReason::Resources => "resources",
            PendReason::Reservation => "reservation",
            PendReason::Threshold => "threshold",
        }
    }
    /// Parse a recorded name.
    pub fn parse(s: &str) -> Option<PendReason> {
        match s {
            "resources" => Some(PendReason::Resources),
            "reservation" => Some(PendReason::Reservation),
            "threshold" => Some(PendReason::Threshold),
            _ => None,
        }
    }
}

/// A scheduling decision about one queued job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Dispatch {
        job: u32,
        alloc: Allocation,
    },
    Pend {
        job: u32,
        reason: PendReason,
    },
    Hold {
        job: u32,
        dependencies: Vec<&'static str>,
    },
}

impl Decision {
    /// The job decided about.
    pub fn job(&self) -> u32 {
        match self {
            Decision::Dispatch { job, .. }
            | Decision::Pend { job, .. }
            | Decision::Hold { job, .. } => *job,
        }
    }
}

/// One round as it happened.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Round {
    /// 0-based round number.
    pub number: u64,
    pub time: i64,
    pub events: Vec<Event>,
    /// Queued jobs in rank order with their formula values.
    pub queue: Vec<(u32, f64)>,
    pub decisions: Vec<Decision>,
    /// SHA-256 (first 16 bytes, hex) of the round's inputs: number, time, events, ranked
    /// queue with value bits, free cores per node before dispatch. Only when hashing is on.
    pub hash: Option<String>,
}

/// Per-round statistics kept for plots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueuePoint {
    pub time: i64,
    /// Jobs still queued after the round's dispatch.
    pub queued: u32,
    /// Cores busy after dispatch.
    pub busy_cores: u64,
}

/// Jobs a simulator cannot take (the settings are checked by
/// [`Setup::new`](crate::sim::setup::Setup::new)).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("the setup was built for {setup} jobs, not for these {jobs}")]
    OtherJobs { setup: usize, jobs: usize },
    #[error("the jobs must be sorted by submit time (job `{0}` is out of order)")]
    Unsorted(String),
    #[error("job `{id}` asks for more than the cluster has ({request})")]
    TooLarge { id: String, request: String },
}

/// What a finished simulation produced.
#[derive(Debug, Clone)]
pub struct SimOutcome {
    /// Start time per job (`None`: never started, e.g. under the threshold).
    pub start: Vec<Option<i64>>,
    pub end: Vec<Option<i64>>,
    pub rounds: u64,
    pub eval_errors: u64,
    pub series: Vec<QueuePoint>,
    /// Each job's share-tree node, with fairshare on.
    pub leaves: Option<Vec<u32>>,
    /// The share tree at the end, with fairshare on.
    pub tree: Option<UsageTree>,
    /// The machine's cores in all (what utilization divides by; a machine of node types
    /// may have fewer than `nodes × cores`).
    pub capacity: u64,
}
