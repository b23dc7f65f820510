//! The scheduler's vocabulary: settings, events, decisions, rounds and the outcome.

use crate::rank::JobKey;
use crate::sim::cluster::Allocation;
use crate::sim::limit::LimitsSpec;
use crate::sim::share::{FairshareConfig, UsageTree};
use crate::sim::workload::SimJob;
use std::collections::BTreeMap;

/// Dispatch policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// PBS `strict_ordering`: stop at the first job that does not fit.
    Strict,
    /// EASY backfilling: one reservation for the top blocked job.
    Easy,
    /// PBS with `strict_ordering` false (its default): no reservation, every job that fits
    /// starts, in sorted order (`fifo.cpp`: without strict ordering there are no top jobs).
    Fill,
    /// PBS `strict_ordering` with `backfill_depth` N ≥ 2: reservations for the top N blocked
    /// jobs, and a later job starts only if it delays none of them.
    Backfill(u32),
    /// Conservative backfilling: every blocked job gets a reservation (the limit of
    /// [`Policy::Backfill`]).
    Conservative,
    /// Slurm's `sched/backfill`: conservative backfilling within its knobs
    /// ([`SlurmBackfill`]).
    Slurm(SlurmBackfill),
}

/// The knobs of Slurm's backfill scheduler the simulation honours (`SchedulerParameters`;
/// `src/plugins/sched/backfill/backfill.c`, `_load_config` and `_attempt_backfill`):
///
/// - `bf_max_job_test`: a pass tests at most this many jobs, in priority order; below them
///   only Slurm's main scheduler starts jobs, in order until the first that cannot start.
/// - `bf_window` (minutes): a job that cannot start within it gets no reservation ("StartTime
///   set to time after current backfill window. No reservation created"), and the plan ends
///   at `now + bf_window` rounded down to `bf_resolution` (`window_end`): no reservation is
///   held past it.
/// - `bf_resolution` (seconds): a reservation ends at its job's requested end rounded down to
///   the resolution, and holds at least one slot (`_add_reservation`: `end_reserve =
///   (end_reserve / backfill_resolution) * backfill_resolution`, at least `start_time +
///   backfill_resolution`). Slurm also rounds the planned start down; here it is not (the
///   job's resources are busy until then in the plan: only a job of another node could end in
///   the hole that leaves).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SlurmBackfill {
    pub bf_max_job_test: u32,
    /// Minutes.
    pub bf_window: u32,
    /// Seconds.
    pub bf_resolution: u32,
}

impl Default for SlurmBackfill {
    /// Slurm's defaults: 500 jobs, 1440 minutes, 60 seconds (`DEF_BF_MAX_JOB_TEST`,
    /// `BACKFILL_WINDOW`, `BACKFILL_RESOLUTION`).
    fn default() -> SlurmBackfill {
        SlurmBackfill {
            bf_max_job_test: 500,
            bf_window: 1440,
            bf_resolution: 60,
        }
    }
}

impl SlurmBackfill {
    /// Slurm's bounds (`_load_config`): `bf_max_job_test` 1 to 1,000,000
    /// (`MAX_BF_MAX_JOB_TEST`), `bf_window` 1 minute to 30 days (`MAX_BACKFILL_WINDOW`),
    /// `bf_resolution` 1 to 3600 seconds (`MAX_BACKFILL_RESOLUTION`). The first knob out of
    /// range, with why.
    pub fn check(&self) -> Result<(), String> {
        let bad = |name: &str, v: u32, range: &str| Err(format!("{name}={v}: must be {range}"));
        if !(1..=1_000_000).contains(&self.bf_max_job_test) {
            return bad("bf_max_job_test", self.bf_max_job_test, "1 to 1000000");
        }
        if !(1..=43_200).contains(&self.bf_window) {
            return bad("bf_window", self.bf_window, "1 to 43200 minutes");
        }
        if !(1..=3600).contains(&self.bf_resolution) {
            return bad("bf_resolution", self.bf_resolution, "1 to 3600 seconds");
        }
        Ok(())
    }

    /// The plan's horizon at `now`: `now + bf_window` rounded down to the resolution.
    pub(crate) fn window_end(&self, now: i64) -> i64 {
        let r = i64::from(self.bf_resolution);
        now.saturating_add(i64::from(self.bf_window) * 60)
            .div_euclid(r)
            * r
    }

    /// The end of the reservation of a job planned from `start` to `end`: `end` rounded down
    /// to the resolution, at least one slot after `start`.
    pub(crate) fn reserved_end(&self, start: i64, end: i64) -> i64 {
        let r = i64::from(self.bf_resolution);
        (end.div_euclid(r) * r).max(start.saturating_add(r))
    }
}

impl Policy {
    /// What [`Policy::parse`] takes, for messages.
    pub const NAMES: &'static str =
        "strict, easy, fill, conservative, slurm or backfill:N (N a depth)";

    /// Parse `strict`, `easy`, `fill`, `conservative`, `slurm` (Slurm's backfill with its
    /// default knobs) or `backfill:N` (N ≥ 2; `backfill:0` is `strict` and `backfill:1` is
    /// `easy`).
    pub fn parse(s: &str) -> Option<Policy> {
        match s {
            "strict" => Some(Policy::Strict),
            "easy" => Some(Policy::Easy),
            "fill" => Some(Policy::Fill),
            "conservative" => Some(Policy::Conservative),
            "slurm" => Some(Policy::Slurm(SlurmBackfill::default())),
            _ => {
                let n: u32 = s.strip_prefix("backfill:")?.parse().ok()?;
                Some(Policy::with_depth(n))
            }
        }
    }
    /// The policy of PBS's `strict_ordering` with `backfill_depth` N.
    pub fn with_depth(n: u32) -> Policy {
        match n {
            0 => Policy::Strict,
            1 => Policy::Easy,
            n => Policy::Backfill(n),
        }
    }
    /// Name as on the command line (`backfill:N` for a depth of N).
    pub fn name(self) -> String {
        match self {
            Policy::Strict => "strict".into(),
            Policy::Easy => "easy".into(),
            Policy::Fill => "fill".into(),
            Policy::Backfill(n) => format!("backfill:{n}"),
            Policy::Conservative => "conservative".into(),
            Policy::Slurm(_) => "slurm".into(),
        }
    }
    /// How many blocked jobs get a reservation (`None`: no limit).
    pub fn depth(self) -> Option<u32> {
        match self {
            Policy::Strict | Policy::Fill => Some(0),
            Policy::Easy => Some(1),
            Policy::Backfill(n) => Some(n),
            Policy::Conservative | Policy::Slurm(_) => None,
        }
    }
    /// Whether dispatch plans reservations, and so needs the running jobs by requested end.
    pub fn reserves(self) -> bool {
        matches!(
            self,
            Policy::Easy | Policy::Backfill(_) | Policy::Conservative | Policy::Slurm(_)
        )
    }
}

impl std::fmt::Display for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

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
            QueueOrderKind::Pbs => 0,
            QueueOrderKind::Slurm => 1,
        }
    }

    /// Each job's tier: 0 is taken first. PBS: one tier per queue, by priority (high
    /// first), then name; Slurm: one tier per distinct `PriorityTier`, high first.
    pub fn tiers(&self, jobs: &[SimJob]) -> Vec<u32> {
        let queues: Vec<&str> = jobs.iter().map(|j| j.queue.as_str()).collect();
        self.tiers_of(&queues)
    }

    /// [`QueueOrder::tiers`] of jobs given by their queues' names.
    pub fn tiers_of(&self, job_queues: &[&str]) -> Vec<u32> {
        // The queues that matter, once each: those listed and those the jobs are in.
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
        let mut tier: BTreeMap<&str, u32> = BTreeMap::new();
        let mut t = 0;
        for (i, &(p, q)) in queues.iter().enumerate() {
            let next = match self.kind {
                QueueOrderKind::Pbs => i > 0,
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
    let n = values.len().min(u32::MAX as usize);
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
