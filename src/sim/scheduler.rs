//! The deterministic discrete-event scheduler (SPEC §5.2).
//!
//! Time is integer seconds. A round runs at each time that has an event; within a round:
//!
//! 1. apply events: ends first, then submits (ties by `(time, event kind, submit order, id)`;
//!    the job index *is* the submit order, ids break nothing further because indices are
//!    unique);
//! 2. fairshare: accrue the usage of the interval since the previous round (cores × seconds of
//!    every job that ran in it, including jobs ending now), then decay;
//! 3. account resources: the free-core state is kept incrementally and, in debug/test builds,
//!    checked every round against a reset-and-re-sum from the RUN jobs;
//! 4. evaluate the formula over the queued jobs (keywords below) and rank: value descending,
//!    then submit order (as [`crate::rank::rank`] with `submit` = submit order);
//! 5. limits: held jobs wait (decision `hold` with dependencies), they never block others;
//! 6. dispatch in rank order: `strict` stops at the first job that does not fit (every later
//!    job pends `resources`); `easy` gives the first job that does not fit a reservation at
//!    the earliest time it fits given the running jobs' requested end times, and a later job
//!    starts now only if it fits now and either ends (by its requested time) before that
//!    reservation or leaves the reserved job room at the reservation time (else it pends
//!    `reservation`). Jobs at or under `--threshold` pend `threshold` and never block.
//!
//! Formula keywords: `ncpus` = processors, `walltime` = requested time (s), `mem` = requested
//! memory (KB), `eligible_time` = seconds queued so far, `fairshare_perc`/`fair_share_perc`,
//! `fairshare_tree_usage`, `fairshare_factor` from the share tree, `queue_priority`,
//! `job_priority` = 0, `accrue_type` = 2 (eligible), `nodect` = nodes asked for; any other
//! name reads the job's resource of that name (0 when absent).

use super::cluster::{Allocation, Cluster, SizeSet, fits_in, place};
use super::heads::{self, Groups, InputKind};
use super::limit::{Admission, LimitState, LimitsSpec};
use super::priority::Priority;
use super::share::{FairshareConfig, ShareTree};
use super::workload::{Request, SimJob};
use sha2::{Digest, Sha256};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Dispatch policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// PBS `strict_ordering`: stop at the first job that does not fit.
    Strict,
    /// EASY backfilling: one reservation for the top blocked job.
    Easy,
}

impl Policy {
    /// Parse `strict` or `easy`.
    pub fn parse(s: &str) -> Option<Policy> {
        match s {
            "strict" => Some(Policy::Strict),
            "easy" => Some(Policy::Easy),
            _ => None,
        }
    }
    /// Name as on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Strict => "strict",
            Policy::Easy => "easy",
        }
    }
}

/// Everything that decides a simulation besides the jobs and the formula.
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

/// An EASY reservation's shadow time, free cores per node then (empty for a `procs`
/// request) and their sum.
type Shadow = (i64, Vec<u32>, u64);

/// The per-job fields the scheduling loop reads, packed (a `SimJob` is large, and the loop
/// touches these for every queued job every round).
#[derive(Debug, Clone, Copy)]
struct Hot {
    submit: i64,
    walltime: i64,
    /// [`SimJob::effective_run`].
    run: i64,
    request: Request,
}

/// Where a formula input comes from.
#[derive(Debug, Clone)]
enum Source {
    Ncpus,
    Walltime,
    Mem,
    EligibleTime,
    FsPerc,
    FsTreeUsage,
    FsFactor,
    QueuePriority,
    Const(f64),
    Nodect,
    Resource(String),
}

impl Source {
    fn of(name: &str) -> Source {
        match name {
            "ncpus" => Source::Ncpus,
            "walltime" => Source::Walltime,
            "mem" => Source::Mem,
            "eligible_time" => Source::EligibleTime,
            "fairshare_perc" | "fair_share_perc" => Source::FsPerc,
            "fairshare_tree_usage" => Source::FsTreeUsage,
            "fairshare_factor" => Source::FsFactor,
            "queue_priority" => Source::QueuePriority,
            "job_priority" => Source::Const(0.0),
            "accrue_type" => Source::Const(2.0),
            "nodect" => Source::Nodect,
            other => Source::Resource(other.to_string()),
        }
    }
    fn is_fairshare(&self) -> bool {
        matches!(
            self,
            Source::FsPerc | Source::FsTreeUsage | Source::FsFactor
        )
    }
}

/// An error setting up a simulation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("the cluster must have at least one node and one core (got {nodes} × {cores})")]
    EmptyCluster { nodes: u32, cores: u32 },
    #[error("fairshare tree: {0}")]
    Fairshare(String),
    #[error("limits: {0}")]
    Limits(String),
    #[error("the jobs must be sorted by submit time (job `{0}` is out of order)")]
    Unsorted(String),
    #[error("job `{id}` asks for more than the cluster has ({request})")]
    TooLarge { id: String, request: String },
}

/// The simulator: feed it jobs (sorted by submit time) and step it round by round.
pub struct Simulator<'a> {
    jobs: &'a [SimJob],
    hot: Vec<Hot>,
    config: SimConfig,
    formula: Option<&'a dyn Priority>,
    cluster: Cluster,
    next_submit: usize,
    ends: BinaryHeap<Reverse<(i64, u32)>>,
    /// Queued jobs in submit order; may still hold jobs started since the last
    /// [`Simulator::compact_queue`] (`queue_stale`), `queued` counts the real ones.
    queue: Vec<u32>,
    queue_stale: bool,
    queued: usize,
    running: Vec<u32>,
    /// Each job's index in `running` (`u32::MAX`: not running), for O(1) removal.
    running_at: Vec<u32>,
    alloc: Vec<Option<Allocation>>,
    start: Vec<Option<i64>>,
    end: Vec<Option<i64>>,
    finished: Vec<u8>,
    round: Round,
    rounds_done: u64,
    last_time: Option<i64>,
    share: Option<ShareTree>,
    leaf: Vec<u32>,
    /// Cores running per share-tree node, and the nodes with any (accrual per entity).
    leaf_cores: Vec<u64>,
    active_leaves: Vec<u32>,
    limits: Option<LimitState>,
    /// Jobs rejected at submit by a hard limit.
    rejected: Vec<bool>,
    sources: Vec<Source>,
    needs_share: bool,
    columns: Vec<Vec<f64>>,
    values: Vec<f64>,
    errors: Vec<u8>,
    order: Vec<u32>,
    rank_keys: Vec<(u64, u32, u32)>,
    hashing: bool,
    /// Record every decision and the ranked queue (else only dispatches, and rounds where
    /// nothing can start skip evaluation).
    full: bool,
    /// Queued jobs by total cores asked (multiset), for the "nothing can start" shortcut.
    queued_cores: SizeSet,
    eval_errors: u64,
    /// Strict ordering by group heads (see [`super::heads`]), when the formula allows it,
    /// with each group's inputs.
    groups: Option<Groups>,
    group_inputs: GroupInputs,
    /// The groups of `cand`'s jobs, and their share-tree nodes.
    cand_groups: Vec<u32>,
    cand_leaves: Vec<u32>,
    /// Jobs evaluated by the head path (heads, then tails), their values and errors.
    cand: Vec<u32>,
    cand_values: Vec<f64>,
    cand_errors: Vec<u8>,
    /// The head path's candidates as [`head_key`]s, and scratch space for one evaluation.
    head_keys: Vec<u128>,
    scratch_values: Vec<f64>,
    scratch_errors: Vec<u8>,
    series: Vec<QueuePoint>,
    keep_series: bool,
}

impl<'a> Simulator<'a> {
    /// Set up a simulation. `jobs` must be sorted by submit time and every job must fit the
    /// idle cluster (use [`drop_oversized`] first).
    pub fn new(
        jobs: &'a [SimJob],
        config: SimConfig,
        formula: Option<&'a dyn Priority>,
    ) -> Result<Simulator<'a>, SimError> {
        if config.nodes == 0 || config.cores == 0 {
            return Err(SimError::EmptyCluster {
                nodes: config.nodes,
                cores: config.cores,
            });
        }
        let cluster = Cluster::new(config.nodes, config.cores);
        for w in jobs.windows(2) {
            if w[1].submit < w[0].submit {
                return Err(SimError::Unsorted(w[1].id.clone()));
            }
        }
        if let Some(j) = jobs.iter().find(|j| !cluster.can_ever_fit(j.request)) {
            return Err(SimError::TooLarge {
                id: j.id.clone(),
                request: format!("{:?}", j.request),
            });
        }
        let (share, leaf) = match &config.fairshare {
            Some(cfg) => {
                let (t, l) = ShareTree::build(cfg, jobs).map_err(SimError::Fairshare)?;
                (Some(t), l)
            }
            None => (None, vec![]),
        };
        let limits = match &config.limits {
            Some(spec) => {
                Some(LimitState::new(spec, jobs, config.cores).map_err(SimError::Limits)?)
            }
            None => None,
        };
        let sources: Vec<Source> = formula
            .map(|f| f.inputs().iter().map(|i| Source::of(i.column())).collect())
            .unwrap_or_default();
        let needs_share = sources.iter().any(Source::is_fairshare);
        let n = jobs.len();
        let groups = match formula {
            Some(f)
                if config.policy == Policy::Strict
                    && config.threshold.is_none()
                    && limits.is_none() =>
            {
                head_groups(jobs, f, &sources, &leaf)
            }
            _ => None,
        };
        let (groups, group_inputs) = match groups {
            Some((g, i)) => (Some(g), i),
            None => (None, GroupInputs::default()),
        };
        Ok(Simulator {
            jobs,
            hot: jobs
                .iter()
                .map(|j| Hot {
                    submit: j.submit,
                    walltime: j.walltime,
                    run: j.effective_run(),
                    request: j.request,
                })
                .collect(),
            formula,
            cluster,
            next_submit: 0,
            ends: BinaryHeap::new(),
            queue: Vec::new(),
            queue_stale: false,
            queued: 0,
            running: Vec::new(),
            running_at: vec![u32::MAX; n],
            alloc: vec![None; n],
            start: vec![None; n],
            end: vec![None; n],
            finished: vec![0; n],
            round: Round::default(),
            rounds_done: 0,
            last_time: None,
            leaf_cores: vec![0; share.as_ref().map_or(0, |s| s.len())],
            active_leaves: Vec::new(),
            share,
            leaf,
            limits,
            rejected: vec![false; n],
            columns: vec![Vec::new(); sources.len()],
            sources,
            needs_share,
            values: Vec::new(),
            errors: Vec::new(),
            order: Vec::new(),
            rank_keys: Vec::new(),
            hashing: false,
            full: true,
            // Sized by the largest job (not the cluster, which may be huge), at most 2^20:
            // larger sizes count at the bound, which keeps `min` a lower bound.
            queued_cores: SizeSet::new(
                jobs.iter()
                    .map(|j| j.request.total_cores())
                    .max()
                    .unwrap_or(0)
                    .min(1 << 20),
            ),
            eval_errors: 0,
            head_keys: Vec::new(),
            scratch_values: Vec::new(),
            scratch_errors: Vec::new(),
            groups,
            cand: Vec::new(),
            group_inputs,
            cand_groups: Vec::new(),
            cand_leaves: Vec::new(),
            cand_values: Vec::new(),
            cand_errors: Vec::new(),
            series: Vec::new(),
            keep_series: false,
            config,
        })
    }

    /// Compute each round's input hash (needed for recording and verification).
    pub fn with_hashing(mut self, on: bool) -> Self {
        self.hashing = on;
        self
    }

    /// Whether rounds list every queued job and decision (default on; needed for recording
    /// and verification). Off, a round lists only its dispatches (with empty allocations),
    /// and a round in which no queued job can fit the free cores skips evaluation and
    /// ranking (its queue is empty).
    /// The schedule is the same either way.
    pub fn with_full_rounds(mut self, on: bool) -> Self {
        self.full = on;
        self
    }

    /// Whether strict rounds without a recording are decided from group heads
    /// ([`super::heads`]): strict policy, no threshold or limits, and a formula non-decreasing
    /// in `eligible_time`.
    pub fn orders_by_heads(&self) -> bool {
        self.groups.is_some() && !self.full && !self.hashing
    }

    /// Keep the queue-length series (for plots).
    pub fn with_series(mut self, on: bool) -> Self {
        self.keep_series = on;
        self
    }

    /// The jobs simulated.
    pub fn jobs(&self) -> &'a [SimJob] {
        self.jobs
    }
    /// The settings.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }
    /// Rounds run so far.
    pub fn rounds(&self) -> u64 {
        self.rounds_done
    }
    /// Jobs submitted so far.
    pub fn submitted(&self) -> usize {
        self.next_submit
    }
    /// Formula evaluations that erred (the job's value was taken as 0).
    pub fn eval_errors(&self) -> u64 {
        self.eval_errors
    }
    /// The fairshare tree, when fairshare is on.
    pub fn share_tree(&self) -> Option<&ShareTree> {
        self.share.as_ref()
    }
    /// Each job's leaf in the share tree (empty without fairshare).
    pub fn leaves(&self) -> &[u32] {
        &self.leaf
    }

    /// Run one round; `None` when no event is left. The round is valid until the next call.
    pub fn step(&mut self) -> Option<&Round> {
        let next_end = self.ends.peek().map(|Reverse((t, _))| *t);
        let next_sub = self.jobs.get(self.next_submit).map(|j| j.submit);
        let t = match (next_end, next_sub) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (None, None) => return None,
        };
        let mut round = std::mem::take(&mut self.round);
        round.number = self.rounds_done;
        round.time = t;
        round.events.clear();
        round.queue.clear();
        round.decisions.clear();
        round.hash = None;

        // Fairshare accrual for [last_time, t] over the jobs that ran in it: per entity,
        // (cores running) × seconds.
        if let (Some(share), Some(last)) = (self.share.as_mut(), self.last_time) {
            let dt = (t - last) as f64;
            if dt > 0.0 {
                for &l in &self.active_leaves {
                    share.accrue(l, self.leaf_cores[l as usize] as f64 * dt);
                }
            }
        }

        // Events: ends (by submit order), then submits.
        while let Some(&Reverse((e, j))) = self.ends.peek() {
            if e != t {
                break;
            }
            self.ends.pop();
            round.events.push(Event {
                kind: EventKind::End,
                job: j,
            });
            if let Some(a) = self.alloc[j as usize].take() {
                self.cluster.release(&a);
            }
            if self.stop_running(j) {
                self.charge(j, false);
            }
            if let Some(l) = self.limits.as_mut() {
                l.on_end(&self.jobs[j as usize].id);
            }
            self.finished[j as usize] += 1;
        }
        while let Some(job) = self.jobs.get(self.next_submit) {
            if job.submit != t {
                break;
            }
            let j = self.next_submit as u32;
            round.events.push(Event {
                kind: EventKind::Submit,
                job: j,
            });
            if let Some(l) = self.limits.as_mut()
                && let Admission::Rejected(_) = l.submit(job)
            {
                self.rejected[j as usize] = true;
                self.next_submit += 1;
                continue;
            }
            self.queue.push(j);
            self.queued += 1;
            if let Some(g) = self.groups.as_mut() {
                g.push(j);
            }
            self.queued_cores.insert(job.request.total_cores());
            self.next_submit += 1;
        }

        if let Some(share) = self.share.as_mut() {
            share.decay_to(t);
            // `fairshare_tree_usage` is recomputed lazily, when the formula is evaluated.
        }

        #[cfg(debug_assertions)]
        if let Err(e) = self.check_invariants(t) {
            panic!("simulator invariant broken at t={t}: {e}");
        }

        // Nothing can start when the smallest queued job needs more cores than are free.
        let may_start = self
            .queued_cores
            .min()
            .is_some_and(|m| m <= self.cluster.free_total());
        let by_heads = !self.full && !self.hashing && self.groups.is_some();
        if may_start && by_heads && self.dispatch_heads(t, &mut round) {
            // Decided from the group heads.
        } else if self.full || self.hashing || may_start {
            self.compact_queue();
            self.evaluate(t);
            // Strict ordering without a recording needs only the ranked prefix up to the first
            // job that does not fit: rank the top k, widen only if all of them started. The
            // first try is the top job alone (one linear scan): in a long queue it usually
            // does not fit and the round is over.
            let lazy = !self.full && !self.hashing && self.config.policy == Policy::Strict;
            let mut k = if lazy { 1 } else { usize::MAX };
            loop {
                let n = self.queue.len();
                self.rank((k < n).then_some(k));
                round.queue.clear();
                round.queue.extend(
                    self.order
                        .iter()
                        .map(|&k| (self.queue[k as usize], self.values[k as usize])),
                );
                if self.hashing {
                    round.hash = Some(self.hash_inputs(&round));
                }
                let stopped = self.dispatch(t, &mut round);
                if stopped || k >= n {
                    break;
                }
                k = if k == 1 { 32 } else { k.saturating_mul(8) };
            }
        }
        let mut started = round.decisions.iter().filter_map(|d| match d {
            Decision::Dispatch { job, .. } => Some(*job),
            _ => None,
        });
        if let Some(first) = started.next() {
            // Started jobs leave `queue` when it is next needed (the head path never needs it).
            self.queue_stale = true;
            for j in std::iter::once(first).chain(started) {
                self.queued -= 1;
                if let Some(g) = self.groups.as_mut() {
                    g.remove(j);
                }
                let c = self.hot[j as usize].request.total_cores();
                self.queued_cores.remove(c);
            }
        }
        if !self.full {
            round.queue.clear();
        }
        if self.keep_series {
            self.series.push(QueuePoint {
                time: t,
                queued: self.queued as u32,
                busy_cores: self.cluster.capacity() - self.cluster.free_total(),
            });
        }
        self.last_time = Some(t);
        self.rounds_done += 1;
        self.round = round;
        Some(&self.round)
    }

    /// Drop started jobs from `queue`.
    fn compact_queue(&mut self) {
        if std::mem::replace(&mut self.queue_stale, false) {
            let start = &self.start;
            self.queue.retain(|j| start[*j as usize].is_none());
        }
    }

    fn evaluate(&mut self, t: i64) {
        let n = self.queue.len();
        self.values.clear();
        if self.formula.is_none() {
            self.values.resize(n, 0.0);
            return;
        }
        let queue = std::mem::take(&mut self.queue);
        let mut values = std::mem::take(&mut self.values);
        let mut errors = std::mem::take(&mut self.errors);
        self.evaluate_jobs(t, &queue, &mut values, &mut errors);
        self.eval_errors += errors.iter().filter(|&&e| e != 0).count() as u64;
        (self.queue, self.values, self.errors) = (queue, values, errors);
    }

    /// Evaluate the formula for `jobs` at time `t` into `values` and `errors` (resized).
    fn evaluate_jobs(&mut self, t: i64, jobs: &[u32], values: &mut Vec<f64>, errors: &mut Vec<u8>) {
        let n = jobs.len();
        zeroed(n, values, errors);
        let Some(f) = self.formula else {
            return;
        };
        if self.needs_share
            && let Some(share) = self.share.as_mut()
        {
            share.refresh();
        }
        // One pass per column with the source matched once (not once per job).
        let all = self.jobs;
        let hot = &self.hot;
        for (k, src) in self.sources.iter().enumerate() {
            let col = &mut self.columns[k];
            col.clear();
            let each = jobs.iter().map(|&j| &all[j as usize]);
            let each_hot = jobs.iter().map(|&j| &hot[j as usize]);
            match src {
                Source::Ncpus => col.extend(each_hot.map(|h| h.request.total_cores() as f64)),
                Source::Walltime => col.extend(each_hot.map(|h| h.walltime as f64)),
                Source::Mem => col.extend(each.map(|job| job.mem)),
                Source::EligibleTime => col.extend(each_hot.map(|h| (t - h.submit) as f64)),
                Source::FsPerc | Source::FsTreeUsage | Source::FsFactor => {
                    let leaf = &self.leaf;
                    let leaves = jobs.iter().map(|&j| leaf[j as usize]);
                    match (self.share.as_mut(), src) {
                        (None, _) => col.resize(n, 0.0),
                        (Some(s), Source::FsPerc) => col.extend(leaves.map(|l| s.perc(l))),
                        (Some(s), Source::FsTreeUsage) => {
                            col.extend(leaves.map(|l| s.tree_usage_cached(l)))
                        }
                        (Some(s), _) => col.extend(leaves.map(|l| s.factor_cached(l))),
                    }
                }
                Source::QueuePriority => col.extend(each.map(|job| job.queue_priority)),
                Source::Const(c) => col.resize(n, *c),
                Source::Nodect => col.extend(each.map(|job| job.request.node_count() as f64)),
                Source::Resource(name) => {
                    col.extend(each.map(|job| job.resources.get(name).copied().unwrap_or(0.0)))
                }
            }
        }
        run_kernel(f, &self.columns, values, errors);
    }

    /// [`Simulator::evaluate_jobs`] for group-path rows: job `jobs[r]` of group `groups[r]`.
    /// The inputs fixed per group come from [`GroupInputs`], the fairshare keywords are
    /// computed fresh per row from the group's node (a new usage generation every round
    /// makes a per-node cache useless here), the factors together. The values are those of
    /// `evaluate_jobs`, bit for bit: debug builds compare the two every round (`check_top`).
    fn evaluate_rows(
        &mut self,
        t: i64,
        jobs: &[u32],
        groups: &[u32],
        values: &mut Vec<f64>,
        errors: &mut Vec<u8>,
    ) {
        let n = jobs.len();
        zeroed(n, values, errors);
        let Some(f) = self.formula else {
            return;
        };
        let needs_share = self.needs_share;
        let mut share = self.share.as_mut().filter(|_| needs_share);
        if let Some(s) = share.as_mut() {
            s.refresh();
            let leaf = &self.group_inputs.leaf;
            self.cand_leaves.clear();
            self.cand_leaves
                .extend(groups.iter().map(|&g| leaf[g as usize]));
        }
        let width = self.sources.len();
        let (hot, statics) = (&self.hot, &self.group_inputs.statics);
        for (k, src) in self.sources.iter().enumerate() {
            let col = &mut self.columns[k];
            col.clear();
            match (src, share.as_mut()) {
                (Source::EligibleTime, _) => {
                    col.extend(jobs.iter().map(|&j| (t - hot[j as usize].submit) as f64))
                }
                (Source::FsPerc, Some(s)) => {
                    col.extend(self.cand_leaves.iter().map(|&l| s.perc(l)))
                }
                (Source::FsTreeUsage, Some(s)) => s.tree_usages_into(&self.cand_leaves, col),
                (Source::FsFactor, Some(s)) => s.factors_into(&self.cand_leaves, col),
                (Source::FsPerc | Source::FsTreeUsage | Source::FsFactor, None) => {
                    col.resize(n, 0.0)
                }
                _ => col.extend(groups.iter().map(|&g| statics[g as usize * width + k])),
            }
        }
        run_kernel(f, &self.columns, values, errors);
    }

    /// Strict ordering from the group heads (module [`super::heads`]): evaluate the head and
    /// tail of every group, then start the best head while it fits. Returns `false`, having
    /// changed nothing, when an evaluation erred (the caller then ranks the whole queue).
    fn dispatch_heads(&mut self, t: i64, round: &mut Round) -> bool {
        let Some(groups) = self.groups.as_ref() else {
            return false;
        };
        // Heads in `nonempty` order, then the tails that differ from their heads.
        let mut cand = std::mem::take(&mut self.cand);
        let mut cand_groups = std::mem::take(&mut self.cand_groups);
        cand.clear();
        cand_groups.clear();
        cand.extend(groups.nonempty().iter().map(|&g| groups.head(g)));
        cand_groups.extend_from_slice(groups.nonempty());
        let heads = cand.len();
        if groups.check_tails {
            for &g in groups.nonempty() {
                let l = groups.tail(g);
                if l != groups.head(g) {
                    cand.push(l);
                    cand_groups.push(g);
                }
            }
        }
        let (mut values, mut errors) = (
            std::mem::take(&mut self.cand_values),
            std::mem::take(&mut self.cand_errors),
        );
        self.evaluate_rows(t, &cand, &cand_groups, &mut values, &mut errors);
        self.cand_groups = cand_groups;
        let ok = errors.iter().all(|&e| e == 0);
        // One integer key per head: value descending (`-0.0` as `0.0`), then submit order;
        // the least key is the top job.
        let mut keys = std::mem::take(&mut self.head_keys);
        keys.clear();
        if ok {
            keys.extend(
                cand[..heads]
                    .iter()
                    .zip(&values)
                    .map(|(&j, &v)| head_key(j, v)),
            );
            values.truncate(heads);
        }
        (self.cand, self.cand_values, self.cand_errors) = (cand, values, errors);
        if !ok {
            self.head_keys = keys;
            return false;
        }
        while let Some((at, &key)) = keys.iter().enumerate().min_by_key(|&(_, k)| k) {
            let j = (key & u128::from(u32::MAX)) as u32;
            #[cfg(debug_assertions)]
            self.check_top(t, j, self.cand_values[at]);
            // Strict, no threshold, no limits (else no head path): the top job starts if
            // it fits, and the round is over if not.
            if !self.start_job(t, j, &mut round.decisions) {
                break;
            }
            let Some(groups) = self.groups.as_mut() else {
                break;
            };
            let g = groups.group_of(j);
            groups.remove(j);
            if groups.is_queued(g) {
                let h = groups.head(g);
                let v = self.evaluate_one(t, h, g);
                (keys[at], self.cand_values[at]) = (head_key(h, v), v);
            } else {
                keys.swap_remove(at);
                self.cand_values.swap_remove(at);
            }
        }
        self.head_keys = keys;
        round.queue.clear();
        true
    }

    /// The value of job `j` of group `g`, known not to err (a group head between a head and a
    /// tail that were both fine).
    fn evaluate_one(&mut self, t: i64, j: u32, g: u32) -> f64 {
        let (mut values, mut errors) = (
            std::mem::take(&mut self.scratch_values),
            std::mem::take(&mut self.scratch_errors),
        );
        self.evaluate_rows(t, &[j], &[g], &mut values, &mut errors);
        debug_assert_eq!(errors[0], 0, "job {j} erred on the head path");
        let v = values[0];
        (self.scratch_values, self.scratch_errors) = (values, errors);
        v
    }

    /// Debug builds: the head path's top job is the full ranking's top job.
    #[cfg(debug_assertions)]
    fn check_top(&mut self, t: i64, j: u32, v: f64) {
        self.compact_queue();
        let mut q: Vec<u32> = self.queue.clone();
        q.retain(|&x| self.start[x as usize].is_none());
        let (mut values, mut errors) = (Vec::new(), Vec::new());
        self.evaluate_jobs(t, &q, &mut values, &mut errors);
        let best = q
            .iter()
            .zip(&values)
            .zip(&errors)
            .map(|((&x, &val), &e)| (x, if e == 0 { val } else { 0.0 }))
            .min_by(|a, b| (b.1 + 0.0).total_cmp(&(a.1 + 0.0)).then(a.0.cmp(&b.0)));
        assert_eq!(
            best.map(|b| (b.0, b.1.to_bits())),
            Some((j, v.to_bits())),
            "head path disagrees with the full ranking at t={t}"
        );
    }

    /// Rank the queue into `order`; with `top = Some(k)` only the first `k` (selected, then
    /// sorted: the same prefix a full sort gives, the order being total).
    fn rank(&mut self, top: Option<usize>) {
        let n = self.queue.len();
        let k = top.unwrap_or(n).min(n);
        self.order.clear();
        if self.formula.is_none() {
            self.order.extend(0..k as u32); // all values equal: submit order
            return;
        }
        let values = &self.values;
        let queue = &self.queue;
        let cmp = |a: &u32, b: &u32| {
            let (va, vb) = (values[*a as usize] + 0.0, values[*b as usize] + 0.0);
            vb.total_cmp(&va)
                .then(queue[*a as usize].cmp(&queue[*b as usize]))
        };
        if k < n && k <= 64 {
            // A short prefix: one pass keeping the best k sorted (most jobs lose to the k-th
            // with one comparison). The order is total, so this is the prefix a full sort gives.
            for i in 0..n as u32 {
                if self.order.len() == k {
                    match self.order.last() {
                        Some(w) if cmp(&i, w) == std::cmp::Ordering::Less => {
                            self.order.pop();
                        }
                        _ => continue,
                    }
                }
                let at = self
                    .order
                    .partition_point(|x| cmp(x, &i) == std::cmp::Ordering::Less);
                self.order.insert(at, i);
            }
            return;
        }
        if k < n {
            self.order.extend(0..n as u32);
            if k > 0 {
                self.order.select_nth_unstable_by(k - 1, cmp);
            }
            self.order.truncate(k);
            self.order.sort_unstable_by(cmp);
            return;
        }
        // A full ranking: sort plain integer keys (value order, then submit order = job
        // index, then queue position), the same total order as `cmp`.
        let mut keys = std::mem::take(&mut self.rank_keys);
        keys.clear();
        keys.extend(
            values
                .iter()
                .zip(queue)
                .enumerate()
                .map(|(i, (&v, &j))| (descending_bits(v), j, i as u32)),
        );
        keys.sort_unstable();
        self.order.extend(keys.iter().map(|&(_, _, i)| i));
        self.rank_keys = keys;
    }

    /// Dispatch over `round.queue`; returns whether it stopped early at a job that does not
    /// fit (strict ordering without full rounds). Jobs already started are skipped.
    fn dispatch(&mut self, t: i64, round: &mut Round) -> bool {
        let full = self.full;
        let min_cores = self.queued_cores.min().unwrap_or(0);
        let policy = self.config.policy;
        let threshold = self.config.threshold;
        let mut blocked = false;
        // EASY reservation: the top blocked job's request, and (computed when a later job
        // first needs it) the shadow time with the free cores per node then and their sum.
        let mut reservation: Option<(Request, Option<Shadow>)> = None;
        for &(j, value) in &round.queue {
            if self.start[j as usize].is_some() {
                continue; // started earlier in this round (a widened strict prefix)
            }
            let job = &self.jobs[j as usize];
            let h = self.hot[j as usize];
            if threshold.is_some_and(|th| value <= th) {
                if full {
                    round.decisions.push(Decision::Pend {
                        job: j,
                        reason: PendReason::Threshold,
                    });
                }
                continue;
            }
            if let Some(l) = &self.limits {
                let deps = l.holds(&job.id);
                if !deps.is_empty() {
                    if full {
                        round.decisions.push(Decision::Hold {
                            job: j,
                            dependencies: deps,
                        });
                    }
                    continue;
                }
            }
            let fits = self.cluster.fits(h.request);
            match policy {
                Policy::Strict => {
                    if blocked || !fits {
                        blocked = true;
                        if !full {
                            return true;
                        }
                        round.decisions.push(Decision::Pend {
                            job: j,
                            reason: PendReason::Resources,
                        });
                        continue;
                    }
                }
                Policy::Easy => match &mut reservation {
                    None if !fits => {
                        reservation = Some((h.request, None));
                        if full {
                            round.decisions.push(Decision::Pend {
                                job: j,
                                reason: PendReason::Resources,
                            });
                        }
                        continue;
                    }
                    None => {}
                    Some(_) if !fits => {
                        if full {
                            round.decisions.push(Decision::Pend {
                                job: j,
                                reason: PendReason::Resources,
                            });
                        } else if self.cluster.free_total() < min_cores {
                            break; // nothing later can fit either
                        }
                        continue;
                    }
                    Some((top, at)) => {
                        let (shadow, sfree, stotal) = at.get_or_insert_with(|| self.shadow(*top));
                        if t + h.walltime <= *shadow {
                            // Ends (by its requested time) before the reservation.
                        } else if !self.leaves_room(h.request, *top, sfree, stotal) {
                            if full {
                                round.decisions.push(Decision::Pend {
                                    job: j,
                                    reason: PendReason::Reservation,
                                });
                            }
                            continue;
                        }
                    }
                },
            }
            if !self.start_job(t, j, &mut round.decisions) {
                // `fits` said yes; placement cannot fail. Treat defensively as resources.
                round.decisions.push(Decision::Pend {
                    job: j,
                    reason: PendReason::Resources,
                });
            }
        }
        false
    }

    /// Start job `j` at `t` (placed first fit) and record the dispatch; `false`, changing
    /// nothing, when it does not fit.
    fn start_job(&mut self, t: i64, j: u32, decisions: &mut Vec<Decision>) -> bool {
        let h = self.hot[j as usize];
        let Some(a) = self.cluster.allocate(h.request) else {
            return false;
        };
        let e = t + h.run;
        self.start[j as usize] = Some(t);
        self.end[j as usize] = Some(e);
        self.ends.push(Reverse((e, j)));
        self.running_at[j as usize] = self.running.len() as u32;
        self.running.push(j);
        self.charge(j, true);
        if let Some(l) = self.limits.as_mut() {
            l.on_start(&self.jobs[j as usize].id);
        }
        // Without full rounds the decision does not repeat the allocation (no copy).
        let listed = if self.full {
            a.clone()
        } else {
            Allocation::default()
        };
        self.alloc[j as usize] = Some(a);
        decisions.push(Decision::Dispatch {
            job: j,
            alloc: listed,
        });
        true
    }

    /// Take job `j` out of `running`; `false` if it was not there.
    fn stop_running(&mut self, j: u32) -> bool {
        let p = std::mem::replace(&mut self.running_at[j as usize], u32::MAX);
        if p == u32::MAX {
            return false;
        }
        self.running.swap_remove(p as usize);
        if let Some(&moved) = self.running.get(p as usize) {
            self.running_at[moved as usize] = p;
        }
        true
    }

    /// Count job `j`'s cores as running (`on`) or no longer running for its share entity.
    fn charge(&mut self, j: u32, on: bool) {
        let Some(&l) = self.leaf.get(j as usize) else {
            return; // no fairshare
        };
        let cores = self.hot[j as usize].request.total_cores();
        let c = &mut self.leaf_cores[l as usize];
        if on {
            if *c == 0 {
                self.active_leaves.push(l);
            }
            *c += cores;
        } else {
            *c -= cores;
            if *c == 0
                && let Some(p) = self.active_leaves.iter().position(|&x| x == l)
            {
                self.active_leaves.remove(p);
            }
        }
    }

    /// Whether starting `req` now leaves the reserved job (`top`) room at the shadow time,
    /// whose free cores (`sfree` per node, `stotal` in all) it then takes.
    fn leaves_room(&self, req: Request, top: Request, sfree: &mut [u32], stotal: &mut u64) -> bool {
        if let Request::Procs(p) = top {
            // Only the total matters to a `procs` request: no placement.
            let c = req.total_cores();
            if *stotal >= c && *stotal - c >= p as u64 {
                *stotal -= c;
                return true;
            }
            return false;
        }
        let Some(a) = place(self.cluster.free(), self.cluster.free_total(), req) else {
            return false;
        };
        let mut trial = sfree.to_vec();
        for &(n, c) in &a.parts {
            trial[n as usize] -= c;
        }
        let tt = *stotal - a.cores();
        if fits_in(&trial, tt, top) {
            sfree.copy_from_slice(&trial);
            *stotal = tt;
            true
        } else {
            false
        }
    }

    /// The earliest time `req` fits given the running jobs' requested end times, and the
    /// free cores at that time (per node, left empty for a `procs` request, where only the
    /// sum matters; and in all).
    fn shadow(&self, req: Request) -> Shadow {
        // Running jobs by requested end (start + requested time), then submit order.
        let mut by_req_end: Vec<(i64, u32)> = self
            .running
            .iter()
            .map(|&j| {
                (
                    self.start[j as usize].unwrap_or(0) + self.hot[j as usize].walltime,
                    j,
                )
            })
            .collect();
        by_req_end.sort_unstable();
        let mut total = self.cluster.free_total();
        if let Request::Procs(p) = req {
            for &(e, j) in &by_req_end {
                total += self.hot[j as usize].request.total_cores();
                if total >= p as u64 {
                    return (e, Vec::new(), total);
                }
            }
            return (i64::MAX, Vec::new(), total);
        }
        let mut free = self.cluster.free().to_vec();
        for &(e, j) in &by_req_end {
            if let Some(a) = &self.alloc[j as usize] {
                for &(n, c) in &a.parts {
                    free[n as usize] += c;
                }
                total += a.cores();
            }
            if fits_in(&free, total, req) {
                return (e, free, total);
            }
        }
        // Cannot happen for a job that fits the idle cluster; reserve at the end of time.
        (i64::MAX, free, total)
    }

    fn hash_inputs(&self, round: &Round) -> String {
        let mut h = Sha256::new();
        h.update(round.number.to_le_bytes());
        h.update(round.time.to_le_bytes());
        for e in &round.events {
            h.update([e.kind as u8]);
            h.update(self.jobs[e.job as usize].id.as_bytes());
            h.update([0]);
        }
        h.update([0xff]);
        for &(j, v) in &round.queue {
            h.update(self.jobs[j as usize].id.as_bytes());
            h.update([0]);
            h.update(v.to_bits().to_le_bytes());
        }
        h.update([0xff]);
        for f in self.cluster.free() {
            h.update(f.to_le_bytes());
        }
        super::workload::hex(&h.finalize()[..16])
    }

    /// Reset-and-re-sum accounting check plus per-job sanity (debug/test builds).
    pub fn check_invariants(&self, _t: i64) -> Result<(), String> {
        let mut c = Cluster::new(self.config.nodes, self.config.cores);
        c.reset_and_resum(
            self.running
                .iter()
                .filter_map(|&j| self.alloc[j as usize].as_ref()),
        )?;
        if c != self.cluster {
            return Err("incremental free-core state differs from the re-summed one".into());
        }
        for &j in &self.running {
            let job = &self.jobs[j as usize];
            let (Some(s), Some(e)) = (self.start[j as usize], self.end[j as usize]) else {
                return Err(format!("running job {} has no start", job.id));
            };
            if s < job.submit {
                return Err(format!("job {} started before its submit", job.id));
            }
            if e != s + job.effective_run() {
                return Err(format!("job {} ends at {e}, not start + run", job.id));
            }
        }
        if self.finished.iter().any(|&f| f > 1) {
            return Err("a job finished twice".into());
        }
        Ok(())
    }

    /// Run to the end (no recording) and return the outcome.
    pub fn run_to_end(mut self) -> SimOutcome {
        while self.step().is_some() {}
        self.finish()
    }

    /// The outcome after the last round.
    pub fn finish(self) -> SimOutcome {
        debug_assert!(
            self.start
                .iter()
                .zip(&self.finished)
                .all(|(s, &f)| s.is_none() || f == 1),
            "every started job finishes exactly once"
        );
        let (shares, targets) = match &self.share {
            Some(t) => (Some(self.leaf.clone()), Some(t.clone())),
            None => (None, None),
        };
        SimOutcome {
            start: self.start,
            end: self.end,
            rounds: self.rounds_done,
            eval_errors: self.eval_errors,
            series: self.series,
            leaves: shares,
            tree: targets,
        }
    }
}

/// `values` and `errors` made `n` long, all zero (the outputs without a formula).
fn zeroed(n: usize, values: &mut Vec<f64>, errors: &mut Vec<u8>) {
    values.clear();
    values.resize(n, 0.0);
    errors.clear();
    errors.resize(n, 0);
}

/// Evaluate `f` over `columns` (one per input) into `values` and `errors`.
fn run_kernel(f: &dyn Priority, columns: &[Vec<f64>], values: &mut [f64], errors: &mut [u8]) {
    // The column list without an allocation for the usual few inputs.
    let mut few: [&[f64]; 8] = [&[]; 8];
    let many: Vec<&[f64]>;
    let cols: &[&[f64]] = if columns.len() <= few.len() {
        for (slot, c) in few.iter_mut().zip(columns) {
            *slot = c;
        }
        &few[..columns.len()]
    } else {
        many = columns.iter().map(Vec::as_slice).collect();
        &many
    };
    f.evaluate_into(cols, values, errors);
}

/// What the jobs of one head group share: the share-tree node, and every input that does not
/// change while a job waits (`statics[g * inputs + k]` for input `k`; `eligible_time` and the
/// fairshare keywords are not stored).
#[derive(Debug, Clone, Default)]
struct GroupInputs {
    leaf: Vec<u32>,
    statics: Vec<f64>,
}

/// Groups for strict ordering by heads, when the formula is monotone in `eligible_time`
/// (see [`super::heads`]): jobs sharing every other input (entity, resources) share a group.
fn head_groups(
    jobs: &[SimJob],
    f: &dyn Priority,
    sources: &[Source],
    leaf: &[u32],
) -> Option<(Groups, GroupInputs)> {
    let ir = f.ir()?;
    let first = jobs.iter().map(|j| j.submit).min().unwrap_or(0);
    let last = jobs.iter().map(|j| j.submit).max().unwrap_or(0);
    let span = (last - first) as f64 + jobs.iter().map(|j| j.effective_run() as f64).sum::<f64>();
    let fixed = |k: usize| -> (f64, f64) {
        let vals = jobs.iter().map(|j| static_input(&sources[k], j));
        vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        })
    };
    let kinds: Vec<InputKind> = sources
        .iter()
        .enumerate()
        .map(|(k, src)| match src {
            Source::EligibleTime => InputKind::EligibleTime { max: span },
            s if s.is_fairshare() => InputKind::Fixed { min: 0.0, max: 2.0 },
            Source::Const(c) => InputKind::Fixed { min: *c, max: *c },
            _ => {
                let (min, max) = fixed(k);
                InputKind::Fixed { min, max }
            }
        })
        .collect();
    let analysis = heads::analyze(ir, &kinds);
    if !analysis.monotone {
        return None;
    }
    // Without a share tree the fairshare keywords are 0 for every job: no grouping by entity.
    let uses_share = !leaf.is_empty() && sources.iter().any(Source::is_fairshare);
    let statics: Vec<usize> = (0..sources.len())
        .filter(|&k| {
            !matches!(
                sources[k],
                Source::EligibleTime
                    | Source::Const(_)
                    | Source::FsPerc
                    | Source::FsTreeUsage
                    | Source::FsFactor
            )
        })
        .collect();
    let mut groups = if statics.is_empty() {
        // Grouped by entity alone (or one group): the leaf index is the group.
        Groups::new(if uses_share {
            leaf.to_vec()
        } else {
            vec![0; jobs.len()]
        })
    } else {
        Groups::from_keys(jobs.iter().enumerate().map(|(i, j)| {
            let mut key = Vec::with_capacity(statics.len() + 1);
            key.push(if uses_share { u64::from(leaf[i]) } else { 0 });
            key.extend(
                statics
                    .iter()
                    .map(|&k| static_input(&sources[k], j).to_bits()),
            );
            key
        }))
    };
    groups.check_tails = !analysis.never_errs;
    // Every job of a group has the same node and static inputs (the group key): take the
    // first job's.
    let count = groups.count();
    let width = sources.len();
    let mut inputs = GroupInputs {
        leaf: vec![u32::MAX; count],
        statics: vec![0.0; count * width],
    };
    let mut seen = vec![false; count];
    for (i, job) in jobs.iter().enumerate() {
        let g = groups.group_of(i as u32) as usize;
        if std::mem::replace(&mut seen[g], true) {
            continue;
        }
        inputs.leaf[g] = leaf.get(i).copied().unwrap_or(u32::MAX);
        for (k, src) in sources.iter().enumerate() {
            inputs.statics[g * width + k] = static_input(src, job);
        }
    }
    Some((groups, inputs))
}

/// The head path's ranking key of job `j` with value `v`: the least key is the top job (value
/// descending as [`descending_bits`], then submit order).
#[inline]
fn head_key(j: u32, v: f64) -> u128 {
    (u128::from(descending_bits(v)) << 32) | u128::from(j)
}

/// Ascending integer key for descending `f64` order: `-0.0` as `0.0`, as `total_cmp` of
/// `v + 0.0` orders them (NaN never occurs: errored jobs are 0).
#[inline]
fn descending_bits(v: f64) -> u64 {
    let b = (v + 0.0).to_bits();
    let asc = if b >> 63 == 1 { !b } else { b | (1 << 63) };
    !asc
}

/// A job's value of an input that does not change while it waits (0 for the others).
fn static_input(src: &Source, job: &SimJob) -> f64 {
    match src {
        Source::Ncpus => job.request.total_cores() as f64,
        Source::Walltime => job.walltime as f64,
        Source::Mem => job.mem,
        Source::QueuePriority => job.queue_priority,
        Source::Const(c) => *c,
        Source::Nodect => job.request.node_count() as f64,
        Source::Resource(name) => job.resources.get(name).copied().unwrap_or(0.0),
        _ => 0.0,
    }
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
    pub tree: Option<ShareTree>,
}

/// Remove jobs that can never fit the cluster, counting them as dropped
/// (`"larger than the cluster"`). Returns how many were dropped.
pub fn drop_oversized(w: &mut super::workload::Workload, nodes: u32, cores: u32) -> usize {
    let c = Cluster::new(nodes, cores);
    let before = w.jobs.len();
    w.jobs.retain(|j| c.can_ever_fit(j.request));
    let dropped = before - w.jobs.len();
    if dropped > 0 {
        *w.report
            .dropped
            .entry("larger than the cluster".into())
            .or_insert(0) += dropped;
        w.report.kept = w.jobs.len();
    }
    dropped
}
