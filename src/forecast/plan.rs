//! The planner: the site's state at one instant run forward, job by job, as its scheduler
//! would run it, to say when each waiting job starts, on which nodes, and what holds it now.
//!
//! Time moves from event to event (a job ends, a reservation's window opens or closes); at
//! each, one scheduling cycle takes the waiting jobs in priority order and, by the site's
//! [`Policy`]:
//! - starts every job whose request fits on the free nodes for its whole walltime without
//!   entering a window planned for a higher job (PBS's and Slurm's backfill rule; `Fill`
//!   plans no windows, `Strict` stops at the first job that does not fit);
//! - plans a window for each blocked job up to the policy's depth (PBS `backfill_depth`,
//!   Slurm's `bf_max_job_test` and `bf_window`): its earliest start on the plan, every
//!   running job ending at its start plus walltime. Under PBS's backfill policies a blocked
//!   job is also one a limit holds: its window is where its limits have room too.
//!
//! The scheduler plans with walltimes; the jobs end when the [`Runtimes`] say (their
//! walltime, or a model learned from history), and the next cycle replans from there. A job
//! that cannot start before `horizon` has no forecast.
//!
//! Placement is first fit in node order over the nodes that take jobs and serve the job's
//! queue or partition, each chunk on a node whose free amounts cover it — PBS's chunk rule
//! (`node_info.cpp`: `check_avail_resources`), the one the simulator's multi-resource
//! cluster follows: `free` stacks chunks, `pack` puts the request on one node, `scatter`
//! one chunk per node, `excl` takes nodes with nothing else on them.

use crate::model::limits::{Draw, Limits, Never};
use crate::model::place::{Arrangement, Sharing};
use crate::model::policy::Policy;
use crate::model::snapshot::{Ask, Hold, PendingJob, Snapshot};

/// What ends a running or waiting job, beyond what the scheduler plans with (its walltime).
pub trait Runtimes {
    /// When running job `i` of the snapshot ends, at the latest its planned end.
    fn running_end(&self, snap: &Snapshot, i: usize, now: i64) -> Option<i64>;
    /// How long waiting job `job` runs once started, at most its walltime.
    fn run_time(&self, job: &PendingJob, walltime: i64) -> i64;
}

/// Every job runs its whole walltime: the scheduler's own assumption.
pub struct FullWalltime;

impl Runtimes for FullWalltime {
    fn running_end(&self, snap: &Snapshot, i: usize, _now: i64) -> Option<i64> {
        snap.running[i].planned_end()
    }
    fn run_time(&self, _job: &PendingJob, walltime: i64) -> i64 {
        walltime
    }
}

/// How to run the plan.
#[derive(Debug, Clone, Copy)]
pub struct PlanOptions {
    pub policy: Policy,
    /// The walltime of a job that gives none (Slurm: the partition's `DefaultTime`, else its
    /// `MaxTime`); `None`: such a job runs until the horizon.
    pub default_walltime: Option<i64>,
    /// How far ahead to plan, in seconds from the snapshot.
    pub horizon: i64,
    /// Plan every window again at every event, as a scheduler does, even when no job ended
    /// before its walltime (the windows cannot move then). For tests: the plan must not
    /// change.
    #[doc(hidden)]
    pub always_replan: bool,
    /// Try every job at every cycle and work out every job's reason afresh, without the
    /// shortcuts (a shape that did not fit, an answer for the same request). For tests: the
    /// plan must not change.
    #[doc(hidden)]
    pub exhaustive: bool,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            policy: Policy::Easy,
            default_walltime: None,
            horizon: 30 * 86_400,
            always_replan: false,
            exhaustive: false,
        }
    }
}

/// A resource the job asks for more of than is free now.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Short {
    pub resource: String,
    pub asked: u64,
    pub free: u64,
}

/// What keeps a waiting job from starting at the instant of the snapshot.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Blocked {
    /// Nothing: it fits now and would start at the next scheduling cycle.
    Nothing,
    /// The free resources do not hold it now: the resources it asks more of than is free
    /// over its eligible nodes, how many of them could take one of its chunks now, and how
    /// many are eligible.
    Resources {
        short: Vec<Short>,
        nodes_fit: usize,
        nodes_eligible: usize,
    },
    /// It fits now, but would run into the window planned for a higher job.
    Reservation { job: String, at: i64 },
    /// It fits now, but would run into an advance reservation's window.
    AdvanceReservation { id: String, at: i64 },
    /// Strict order: a higher job that cannot start holds the queue.
    Order { behind: String },
    /// The nodes that can take it do not hold it even empty.
    NeverFits { why: String },
    /// A limit on running jobs holds it: the scheduler's words (PBS's comment, Slurm's reason
    /// name) and plain ones; what the jobs that count toward the limit hold now, what the job
    /// asks of it and the limit, in the limit's unit (jobs, CPUs, KB...). `never`: a
    /// per-job limit it exceeds, which no ended job clears (the counts are then 0).
    Limit {
        reason: String,
        plain: String,
        used: u64,
        asks: u64,
        limit: u64,
        never: bool,
    },
    /// The scheduler does not consider it now.
    Hold { hold: Hold },
}

impl Blocked {
    /// Its kind, the `kind` it serializes with: `none`, `resources`, `reservation`,
    /// `advance_reservation`, `order`, `never_fits`, `limit`, `hold`.
    pub fn kind(&self) -> &'static str {
        match self {
            Blocked::Nothing => "none",
            Blocked::Resources { .. } => "resources",
            Blocked::Reservation { .. } => "reservation",
            Blocked::AdvanceReservation { .. } => "advance_reservation",
            Blocked::Order { .. } => "order",
            Blocked::NeverFits { .. } => "never_fits",
            Blocked::Limit { .. } => "limit",
            Blocked::Hold { .. } => "hold",
        }
    }

    /// A per-job limit the job exceeds.
    pub fn of_never(never: &Never) -> Blocked {
        Blocked::Limit {
            reason: never.reason.clone(),
            plain: never.plain.clone(),
            used: 0,
            asks: 0,
            limit: 0,
            never: true,
        }
    }

    /// Cap `c` of `limits`, which has no room for a job checked by `checks` while `used` of
    /// each cap is taken ([`Limits::blocking`]).
    pub fn of_cap(limits: &Limits, c: usize, checks: &[Draw], used: &[u64]) -> Blocked {
        let cap = &limits.caps[c];
        Blocked::Limit {
            reason: cap.reason.clone(),
            plain: cap.plain.clone(),
            used: used[c],
            asks: checks.iter().filter(|d| d.cap == c).map(|d| d.amount).sum(),
            limit: cap.limit,
            never: false,
        }
    }

    /// What holds the job, in plain words (`jobsort why` prints them); `now` is the
    /// snapshot's instant, which a reservation's distance is counted from.
    pub fn plain(&self, now: i64) -> String {
        use crate::input::units::{span, utc_text};
        let unit = |r: &str| if r == "mem" { "kb" } else { "" };
        match self {
            Blocked::Nothing => "nothing: it fits on free nodes now and should start at the \
                                 scheduler's next cycle"
                .into(),
            Blocked::Resources {
                short,
                nodes_fit,
                nodes_eligible,
            } => {
                let what: Vec<String> = short
                    .iter()
                    .map(|s| {
                        format!(
                            "{} {}{u} asked, {}{u} free",
                            s.resource,
                            s.asked,
                            s.free,
                            u = unit(&s.resource)
                        )
                    })
                    .collect();
                if what.is_empty() {
                    format!(
                        "not enough free resources in the shape it asks for ({nodes_fit} of \
                         its {nodes_eligible} eligible nodes could take one of its chunks now)"
                    )
                } else {
                    format!(
                        "not enough free resources: {} ({nodes_fit} of its {nodes_eligible} \
                         eligible nodes could take one of its chunks now)",
                        what.join("; ")
                    )
                }
            }
            Blocked::Reservation { job, at } => format!(
                "it would fit now, but would run into the start the scheduler holds for \
                 higher-priority job {job} at {} ({} from now)",
                utc_text(*at),
                span(at - now)
            ),
            Blocked::AdvanceReservation { id, at } => format!(
                "it would fit now, but would run into reservation {id} from {}",
                utc_text(*at)
            ),
            Blocked::Order { behind } => format!(
                "strict order: job {behind}, ahead of it, cannot start, and no job passes it"
            ),
            Blocked::NeverFits { why } => format!("it can never start as asked: {why}"),
            Blocked::Limit {
                reason,
                plain,
                never: true,
                ..
            } => format!(
                "a per-job limit keeps it from ever starting as asked: {plain} (the scheduler \
                 says: {reason})"
            ),
            Blocked::Limit {
                reason,
                plain,
                used,
                asks,
                limit,
                ..
            } => format!(
                "a limit holds it until running jobs that count toward it end: {plain}; {used} \
                 of {limit} taken, it asks {asks} (the scheduler says: {reason})"
            ),
            Blocked::Hold { hold } => match hold {
                Hold::Held(w) => format!("held ({w}): the scheduler does not consider it"),
                Hold::Dependency(d) => format!("waiting for its dependency ({d})"),
                Hold::BeginTime(t) => format!("not to start before {}", utc_text(*t)),
                Hold::Limit(l) => format!(
                    "a limit holds it ({l}); the snapshot does not hold the scheduler's \
                     limits (PBS: qmgr.txt; Slurm: sacctmgr_assoc.txt, sacctmgr_qos.txt; \
                     Flux: mf_priority.json), so jobsort gives no start"
                ),
            },
        }
    }
}

/// One waiting job's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct JobPlan {
    /// Index in the snapshot's `pending`.
    pub index: usize,
    /// Its place in the order the plan took (1 = first).
    pub rank: usize,
    /// What holds it at the snapshot's instant.
    pub blocked: Blocked,
    /// The start the scheduler plans for it in the first cycle (a top job's window), if any.
    pub planned_at: Option<i64>,
    /// When it starts in the plan, `None` when not before the horizon.
    pub start: Option<i64>,
    /// When it ends (start + run time).
    pub end: Option<i64>,
    /// The nodes it starts on.
    pub nodes: Vec<String>,
    /// What it takes of each of them, over the snapshot's resources.
    pub amounts: Vec<Vec<u64>>,
}

/// The plan of a whole queue.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The instant it starts from.
    pub now: i64,
    /// One per job of the order given, in that order.
    pub jobs: Vec<JobPlan>,
    /// The running jobs' ends as the plan has them (index in the snapshot's `running`).
    pub running_ends: Vec<Option<i64>>,
    /// Scheduling cycles run.
    pub cycles: usize,
    /// Each pending job's place in `jobs` (by the snapshot's pending index; `usize::MAX` for a
    /// job the order left out).
    at: Vec<usize>,
}

impl Plan {
    /// The answer for the snapshot's pending job `index` (one the order listed).
    pub fn job(&self, index: usize) -> &JobPlan {
        &self.jobs[self.at[index]]
    }
}

/// Something occupying part of a node for a window.
#[derive(Debug, Clone)]
struct Alloc {
    start: i64,
    /// When the scheduler expects it to end (walltime).
    planned_end: i64,
    amounts: Vec<u64>,
    /// The whole node (exclusive jobs, advance reservations).
    whole: bool,
    owner: Owner,
}

/// Whose an allocation is: a running job (index in the snapshot), a job the plan started or a
/// window planned for it (index in the order), an advance reservation, or what a node has
/// assigned beyond the jobs it lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Owner {
    Running(usize),
    Started(usize),
    Plan(usize),
    Resv(usize),
    Unlisted,
}

impl Owner {
    /// Whether it holds its nodes from the instant it is added (a job), rather than from a
    /// later start (a planned window, a reservation).
    fn is_job(self) -> bool {
        matches!(
            self,
            Owner::Running(_) | Owner::Started(_) | Owner::Unlisted
        )
    }
}

/// The nodes and what occupies them, with what is in use at the current instant `t` kept up
/// to date as jobs start and end (the plan asks "what is free now" of every node each cycle).
struct Nodes<'a> {
    snap: &'a Snapshot,
    r: usize,
    /// Whether each node takes jobs at all, and how many do.
    usable: Vec<bool>,
    usable_count: usize,
    allocs: Vec<Vec<Alloc>>,
    /// The current instant.
    t: i64,
    /// Counts every change of what occupies the nodes or of the instant.
    version: u64,
    /// Per node (`r` each): what its jobs use now.
    now: Vec<u64>,
    /// Per node: exclusive jobs on it now, and whether a reservation's window holds it now.
    excl_now: Vec<u32>,
    resv_now: Vec<bool>,
    /// Per node: allocations that start after `t` (windows, reservations ahead).
    ahead: Vec<u32>,
    /// The nodes each owner holds.
    held: std::collections::HashMap<Owner, Vec<usize>>,
    /// Per node (`r` each): what of it counts as in use now for the sum below (its capacity
    /// when something takes it whole), and that sum over the nodes that take jobs.
    counted: Vec<u64>,
    in_use: Vec<u64>,
    /// The nodes that take jobs with a core free now and nothing taking them whole: the only
    /// ones a job starting now can use (every chunk asks a core).
    open: std::collections::BTreeSet<usize>,
}

impl<'a> Nodes<'a> {
    fn new(snap: &'a Snapshot, usable: Vec<bool>, t: i64) -> Self {
        let n = snap.nodes.len();
        let r = snap.resources.len();
        let mut nodes = Nodes {
            snap,
            r,
            usable_count: usable.iter().filter(|&&u| u).count(),
            usable,
            allocs: vec![Vec::new(); n],
            t,
            version: 0,
            now: vec![0; n * r],
            excl_now: vec![0; n],
            resv_now: vec![false; n],
            ahead: vec![0; n],
            held: std::collections::HashMap::new(),
            counted: vec![0; n * r],
            in_use: vec![0; r],
            open: (0..n)
                .filter(|&i| snap.nodes[i].available.first().is_some_and(|&c| c > 0))
                .collect(),
        };
        nodes.open.retain(|&i| nodes.usable[i]);
        nodes
    }

    /// Bring node `n`'s share of [`Nodes::in_use`] up to date.
    fn recount(&mut self, n: usize) {
        if !self.usable[n] {
            return;
        }
        let r = self.r;
        let (whole, _) = self.occupied_now(n);
        let cap = &self.snap.nodes[n].available;
        for i in 0..r {
            let c = cap.get(i).copied().unwrap_or(0);
            let u = if whole { c } else { self.now[n * r + i].min(c) };
            let old = std::mem::replace(&mut self.counted[n * r + i], u);
            self.in_use[i] = self.in_use[i] - old + u;
        }
        let cores = self.snap.nodes[n].available.first().copied().unwrap_or(0);
        if !whole && self.counted[n * r] < cores {
            self.open.insert(n);
        } else {
            self.open.remove(&n);
        }
    }

    /// What is free now over every node that takes jobs.
    fn free_now(&self, total: &[u64]) -> Vec<u64> {
        total
            .iter()
            .zip(&self.in_use)
            .map(|(t, u)| t.saturating_sub(*u))
            .collect()
    }

    fn add(&mut self, n: usize, a: Alloc) {
        self.version += 1;
        if a.owner.is_job() {
            let now = &mut self.now[n * self.r..(n + 1) * self.r];
            for (x, y) in now.iter_mut().zip(&a.amounts) {
                *x = x.saturating_add(*y);
            }
            if a.whole {
                self.excl_now[n] += 1;
            }
        } else if a.start > self.t {
            self.ahead[n] += 1;
        }
        let job = a.owner.is_job();
        self.held.entry(a.owner).or_default().push(n);
        self.allocs[n].push(a);
        if job {
            self.recount(n);
        }
    }

    /// Take away everything `owner` holds.
    fn remove(&mut self, owner: Owner) {
        self.version += 1;
        let Some(nodes) = self.held.remove(&owner) else {
            return;
        };
        for n in nodes {
            let (mut i, t, r) = (0, self.t, self.r);
            while i < self.allocs[n].len() {
                if self.allocs[n][i].owner != owner {
                    i += 1;
                    continue;
                }
                let a = self.allocs[n].swap_remove(i);
                if owner.is_job() {
                    let now = &mut self.now[n * r..(n + 1) * r];
                    for (x, y) in now.iter_mut().zip(&a.amounts) {
                        *x = x.saturating_sub(*y);
                    }
                    if a.whole {
                        self.excl_now[n] -= 1;
                    }
                } else if a.start > t {
                    self.ahead[n] -= 1;
                }
            }
            if owner.is_job() {
                self.recount(n);
            }
        }
    }

    /// Move the current instant to `t`: reservations' windows open and close.
    fn advance(&mut self, t: i64) {
        self.version += 1;
        self.t = t;
        for (k, resv) in self.snap.reservations.iter().enumerate() {
            let Some(nodes) = self.held.get(&Owner::Resv(k)) else {
                continue;
            };
            let open = resv.start <= t && t < resv.end;
            for n in nodes.clone() {
                self.resv_now[n] = open;
                self.ahead[n] = self.allocs[n]
                    .iter()
                    .filter(|a| !a.owner.is_job() && a.start > t)
                    .count() as u32;
                self.recount(n);
            }
        }
    }

    /// Whether node `n` has anything on it now, and whether something takes it whole.
    fn occupied_now(&self, n: usize) -> (bool, bool) {
        let whole = self.excl_now[n] > 0 || self.resv_now[n];
        let any = whole
            || self.now[n * self.r..(n + 1) * self.r]
                .iter()
                .any(|&x| x > 0);
        (whole, any)
    }

    /// Whether node `n` has `need` free at instant `p` (nothing takes it whole then).
    fn room_at(&self, n: usize, p: i64, need: &[u64]) -> bool {
        let r = self.r;
        let cap = &self.snap.nodes[n].available;
        if p == self.t {
            if self.excl_now[n] > 0 || self.resv_now[n] {
                return false;
            }
            let now = &self.now[n * r..(n + 1) * r];
            return (0..r)
                .all(|i| cap.get(i).copied().unwrap_or(0).saturating_sub(now[i]) >= need[i]);
        }
        let mut at = [0u64; 16];
        if r > 16 {
            return true;
        }
        for a in self.allocs[n]
            .iter()
            .filter(|a| a.start <= p && a.planned_end > p)
        {
            if a.whole {
                return false;
            }
            for (x, y) in at.iter_mut().zip(&a.amounts) {
                *x = x.saturating_add(*y);
            }
        }
        (0..r).all(|i| cap.get(i).copied().unwrap_or(0).saturating_sub(at[i]) >= need[i])
    }

    /// The most of each resource used on node `n` during `[from, to)` (into `out`), whether
    /// anything takes it whole then, and whether anything is on it then.
    fn used(&self, n: usize, from: i64, to: i64, out: &mut [u64], now_only: bool) -> (bool, bool) {
        let r = self.r;
        if from == self.t && (self.ahead[n] == 0 || now_only) {
            out.copy_from_slice(&self.now[n * r..(n + 1) * r]);
            let (whole, any) = self.occupied_now(n);
            return (whole, any);
        }
        out.iter_mut().for_each(|x| *x = 0);
        let allocs = &self.allocs[n];
        let mut whole = false;
        let mut any = false;
        // The usage is constant between the starts of allocations: its most over the window
        // is at `from` or at a start inside it.
        let mut at = [0u64; 16];
        let mut big = Vec::new();
        let at: &mut [u64] = if r <= 16 {
            &mut at[..r]
        } else {
            big.resize(r, 0);
            &mut big
        };
        let points = std::iter::once(from).chain(
            allocs
                .iter()
                .map(|a| a.start)
                .filter(|&s| s > from && s < to),
        );
        for p in points {
            at.iter_mut().for_each(|x| *x = 0);
            for a in allocs.iter().filter(|a| a.start <= p && a.planned_end > p) {
                any = true;
                whole |= a.whole;
                for (x, y) in at.iter_mut().zip(&a.amounts) {
                    *x = x.saturating_add(*y);
                }
            }
            for (o, x) in out.iter_mut().zip(at.iter()) {
                *o = (*o).max(*x);
            }
        }
        (whole, any)
    }
}

/// Where a job's chunks go: each node with what it takes there.
type Placed = Vec<(usize, Vec<u64>)>;

/// The nodes a job may run on, in node order, and a lookup of them by node.
struct NodeSet {
    list: Vec<usize>,
    member: Vec<bool>,
}

impl NodeSet {
    fn new(list: Vec<usize>, n_nodes: usize) -> NodeSet {
        let mut member = vec![false; n_nodes];
        for &n in &list {
            member[n] = true;
        }
        NodeSet { list, member }
    }
}

/// Where a job's chunks go on `eligible` nodes for `[from, to)`, or the least count of its
/// first part that does not fit ([`place_scan`]).
fn place(
    nodes: &Nodes<'_>,
    eligible: &NodeSet,
    ask: &Ask,
    from: i64,
    to: i64,
) -> Result<Placed, u32> {
    place_as(nodes, eligible, ask, from, to, false)
}

/// [`place`]; with `now_only`, at the current instant ignoring what starts later (windows,
/// reservations ahead).
fn place_as(
    nodes: &Nodes<'_>,
    eligible: &NodeSet,
    ask: &Ask,
    from: i64,
    to: i64,
    now_only: bool,
) -> Result<Placed, u32> {
    let r = nodes.r;
    let smallest = smallest_chunk(ask, r);
    // Starting now, only the nodes with a core free can take a chunk: scan those when they
    // are fewer (node order kept: both ascend), as the scan reaches them (first fit mostly
    // stops early).
    if from == nodes.t
        && smallest.first().is_some_and(|&c| c >= 1)
        && nodes.open.len() < eligible.list.len()
    {
        let open = nodes.open.iter().copied();
        return if eligible.list.len() == nodes.usable_count {
            place_scan(nodes, open, ask, from, to, now_only)
        } else {
            let open = open.filter(|&n| eligible.member[n]);
            place_scan(nodes, open, ask, from, to, now_only)
        };
    }
    place_scan(
        nodes,
        eligible.list.iter().copied(),
        ask,
        from,
        to,
        now_only,
    )
}

/// The smallest chunk in each resource: a node whose capacity lacks it holds no chunk.
fn smallest_chunk(ask: &Ask, r: usize) -> Vec<u64> {
    (0..r)
        .map(|i| {
            ask.parts
                .iter()
                .map(|(_, a)| a.get(i).copied().unwrap_or(0))
                .min()
                .unwrap_or(0)
        })
        .collect()
}

/// [`place_as`] over the nodes of `eligible`, in its order. When the job does not fit: the
/// least count of its first part that does not fit either (with its other parts as asked) —
/// first fit places as many identical chunks as the nodes hold, so a scan that runs out of
/// nodes after `n` chunks of the first part says `n + 1`.
fn place_scan(
    nodes: &Nodes<'_>,
    mut eligible: impl Iterator<Item = usize>,
    ask: &Ask,
    from: i64,
    to: i64,
    now_only: bool,
) -> Result<Placed, u32> {
    let r = nodes.r;
    let excl = ask.place.sharing != Sharing::Shared;
    let mut used = vec![0u64; r];
    let covers = |f: &[u64], a: &[u64]| f.iter().zip(a).all(|(x, y)| x >= y);
    let smallest = smallest_chunk(ask, r);
    // Each eligible node's free amounts over the window (into `used`), as the scan reaches
    // it; `false` when it takes none of the job.
    let free_of = |n: usize, used: &mut Vec<u64>| -> bool {
        let cap = &nodes.snap.nodes[n].available;
        if !covers(cap, &smallest) {
            return false;
        }
        // What it has free at `from` bounds what it has over the window: a node without
        // room for the smallest chunk then is passed over before the window is looked at.
        if !nodes.room_at(n, from, &smallest) {
            return false;
        }
        let (whole, any) = nodes.used(n, from, to, used, now_only);
        if whole || (excl && any) {
            return false;
        }
        for (i, u) in used.iter_mut().enumerate() {
            *u = cap.get(i).copied().unwrap_or(0).saturating_sub(*u);
        }
        true
    };
    let mut out: Vec<(usize, Vec<u64>)> = Vec::new();
    match ask.place.arrangement {
        Arrangement::Pack => {
            let mut sum = vec![0u64; r];
            for (c, a) in &ask.parts {
                for (s, x) in sum.iter_mut().zip(a) {
                    *s = s.saturating_add(x.saturating_mul(u64::from(*c)));
                }
            }
            let first = ask.parts.first().map_or(0, |p| p.0);
            let n = eligible
                .find(|&n| free_of(n, &mut used) && covers(&used, &sum))
                .ok_or(first)?;
            out.push((n, sum));
        }
        Arrangement::Scatter | Arrangement::VScatter => {
            for (p, (c, a)) in ask.parts.iter().enumerate() {
                for placed in 0..*c {
                    let n = eligible
                        .by_ref()
                        .find(|&n| free_of(n, &mut used) && covers(&used, a))
                        .ok_or(if p == 0 { placed + 1 } else { ask.parts[0].0 })?;
                    out.push((n, a.clone()));
                }
            }
        }
        Arrangement::Free => {
            // Nodes met so far, with what is still free on them.
            let mut seen: Vec<(usize, Vec<u64>)> = Vec::new();
            for (p, (c, a)) in ask.parts.iter().enumerate() {
                let mut left = *c;
                let nothing = a.iter().all(|&x| x == 0);
                let mut k = 0;
                while left > 0 {
                    if k == seen.len() {
                        // Reach the next node that takes jobs now.
                        loop {
                            let n = eligible.next().ok_or(if p == 0 {
                                c - left + 1
                            } else {
                                ask.parts[0].0
                            })?;
                            if free_of(n, &mut used) && covers(&used, &smallest) {
                                seen.push((n, used.clone()));
                                break;
                            }
                        }
                    }
                    let (n, f) = &mut seen[k];
                    while left > 0 && covers(f, a) {
                        f.iter_mut().zip(a).for_each(|(x, y)| *x -= *y);
                        match out.iter_mut().find(|(m, _)| m == n) {
                            Some((_, v)) => v.iter_mut().zip(a).for_each(|(x, y)| *x += *y),
                            None => out.push((*n, a.clone())),
                        }
                        // A chunk of nothing fits everywhere: one node holds them all.
                        left = if nothing { 0 } else { left - 1 };
                    }
                    k += 1;
                }
            }
        }
    }
    if excl {
        // Exclusive: the nodes are the job's, whole.
        for (n, a) in out.iter_mut() {
            *a = nodes.snap.nodes[*n].available.clone();
        }
    }
    Ok(out)
}

/// Plan the queue: `order` lists indices into `snap.pending` in the order the scheduler takes
/// them (its priority order). `now` is the snapshot's instant.
pub fn plan(
    snap: &Snapshot,
    limits: &Limits,
    order: &[usize],
    now: i64,
    options: &PlanOptions,
    runtimes: &dyn Runtimes,
) -> Plan {
    plan_for(snap, limits, order, now, options, runtimes, None)
}

/// [`plan`], run only until the snapshot's pending jobs `only` (indices into
/// `snap.pending`) have their answers: each has started, or is not planned (held, never
/// fits). Their answers are the whole plan's (a job's start depends on nothing after it);
/// the other jobs' starts are left where the plan stopped, and their reason for waiting
/// (resources or a window) is not worked out (`Blocked::Nothing`). `None`: every job.
pub fn plan_for(
    snap: &Snapshot,
    limits: &Limits,
    order: &[usize],
    now: i64,
    options: &PlanOptions,
    runtimes: &dyn Runtimes,
    only: Option<&[usize]>,
) -> Plan {
    use std::cmp::Reverse;
    use std::collections::{BinaryHeap, HashMap};
    let n_nodes = snap.nodes.len();
    let r = snap.resources.len();
    let horizon = now.saturating_add(options.horizon);
    let forever = horizon.saturating_add(1);
    let index: HashMap<&str, usize> = snap
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.as_str(), i))
        .collect();
    let mut usable: Vec<bool> = snap.nodes.iter().map(|n| n.state.takes_jobs()).collect();
    // A node held for a reservation whose window is known takes jobs outside the window;
    // one held for a reservation the capture does not list is out for the whole plan.
    for resv in &snap.reservations {
        for n in resv.nodes.iter().filter_map(|n| index.get(n.as_str())) {
            if snap.nodes[*n].state == crate::model::snapshot::NodeState::Reserved {
                usable[*n] = true;
            }
        }
    }
    let mut nodes = Nodes::new(snap, usable, now);
    for (k, resv) in snap.reservations.iter().enumerate() {
        for &n in resv.nodes.iter().filter_map(|n| index.get(n.as_str())) {
            nodes.add(
                n,
                Alloc {
                    start: resv.start,
                    planned_end: resv.end,
                    amounts: vec![0; r],
                    whole: true,
                    owner: Owner::Resv(k),
                },
            );
        }
    }
    nodes.advance(now);
    // Every job holding nodes, by its real end (soonest first).
    let mut ends: BinaryHeap<Reverse<(i64, usize)>> = BinaryHeap::new();
    let mut end_owner: Vec<(Owner, i64)> = Vec::new();
    // Whether each of them (by its index in `end_owner`) still holds its nodes.
    let mut live: Vec<bool> = Vec::new();
    // Running jobs: what they hold until their planned end (forever without a walltime).
    let mut running_ends: Vec<Option<i64>> = Vec::with_capacity(snap.running.len());
    for (k, job) in snap.running.iter().enumerate() {
        let planned = job.planned_end().unwrap_or(forever).max(now + 1);
        let actual = runtimes
            .running_end(snap, k, now)
            .unwrap_or(forever)
            .clamp(now + 1, planned);
        running_ends.push((actual <= horizon).then_some(actual));
        ends.push(Reverse((actual, end_owner.len())));
        end_owner.push((Owner::Running(k), planned));
        live.push(true);
        let held: Vec<(usize, Vec<u64>)> = job
            .held
            .iter()
            .filter_map(|h| index.get(h.node.as_str()).map(|&n| (n, h.amounts.clone())))
            .collect();
        let count = held.len().max(1) as u64;
        for (n, amounts) in held {
            // A node without per-node amounts takes the job's share of its total.
            let amounts = if amounts.iter().any(|&a| a > 0) {
                amounts
            } else {
                job.total.iter().map(|t| t.div_ceil(count)).collect()
            };
            nodes.add(
                n,
                Alloc {
                    start: job.start.min(now),
                    planned_end: planned,
                    amounts,
                    whole: false,
                    owner: Owner::Running(k),
                },
            );
        }
    }
    // Nodes whose assigned resources are more than their listed jobs hold (jobs the capture
    // does not list, or a node list without jobs): that much stays busy for the plan.
    for (n, node) in snap.nodes.iter().enumerate() {
        let held = &nodes.now[n * r..(n + 1) * r];
        let extra: Vec<u64> = (0..r)
            .map(|i| {
                node.assigned
                    .get(i)
                    .copied()
                    .unwrap_or(0)
                    .saturating_sub(held[i])
            })
            .collect();
        if extra.iter().any(|&x| x > 0) {
            nodes.add(
                n,
                Alloc {
                    start: now,
                    planned_end: forever,
                    amounts: extra,
                    whole: false,
                    owner: Owner::Unlisted,
                },
            );
        }
    }

    // The nodes each job may run on: usable, serving its queue or partition. Jobs of the
    // same queues share one list.
    let mut lists: Vec<NodeSet> = Vec::new();
    let mut list_of_queues: HashMap<&[String], usize> = HashMap::new();
    let eligible_of: Vec<usize> = order
        .iter()
        .map(|&j| {
            let q = snap.pending[j].queue.as_slice();
            *list_of_queues.entry(q).or_insert_with(|| {
                let list = (0..n_nodes)
                    .filter(|&n| nodes.usable[n])
                    .filter(|&n| {
                        let parts = &snap.nodes[n].partitions;
                        parts.is_empty() || q.is_empty() || q.iter().any(|x| parts.contains(x))
                    })
                    .collect();
                lists.push(NodeSet::new(list, n_nodes));
                lists.len() - 1
            })
        })
        .collect();
    let eligible = |k: usize| -> &NodeSet { &lists[eligible_of[k]] };
    let walltime = |j: usize| -> i64 {
        snap.pending[j]
            .walltime
            .or(options.default_walltime)
            .unwrap_or(options.horizon)
            .max(1)
    };

    let mut out: Vec<JobPlan> = order
        .iter()
        .enumerate()
        .map(|(k, &j)| JobPlan {
            index: j,
            rank: k + 1,
            blocked: Blocked::Nothing,
            planned_at: None,
            start: None,
            end: None,
            nodes: Vec::new(),
            amounts: Vec::new(),
        })
        .collect();
    // Jobs never considered: held ones, and those no eligible node holds even empty.
    let mut waiting: Vec<usize> = Vec::new();
    let empty = Nodes::new(snap, vec![true; n_nodes], 0);
    let mut never_of: HashMap<(usize, &Ask), Option<String>> = HashMap::new();
    for (k, &j) in order.iter().enumerate() {
        let job = &snap.pending[j];
        // With the scheduler's limits known, a job it says a limit holds waits for them.
        if let Some(h) = job.hold.as_ref().filter(|h| !limits.plans(Some(h))) {
            out[k].blocked = Blocked::Hold { hold: h.clone() };
            continue;
        }
        if let Some(Err(never)) = limits.pending.get(j) {
            out[k].blocked = Blocked::of_never(never);
            continue;
        }
        // Jobs that ask the same on the same nodes share the answer.
        let never = never_of
            .entry((eligible_of[k], &job.ask))
            .or_insert_with(|| never_fits(&empty, eligible(k), &job.ask))
            .clone();
        if let Some(why) = never {
            out[k].blocked = Blocked::NeverFits { why };
            continue;
        }
        waiting.push(k);
    }

    let (depth, window) = match options.policy {
        Policy::Slurm(bf) => (
            Some(bf.bf_max_job_test as usize),
            Some(i64::from(bf.bf_window) * 60),
        ),
        p => (p.depth().map(|d| d as usize), None),
    };
    let strict = options.policy == Policy::Strict;
    // PBS with backfill plans a window for a top job a limit holds, as for one that does not
    // fit (`fifo.cpp: main_sched_loop` sends any job that fails to run to
    // `should_backfill_with_job`, which looks at the depth, not at why it failed, and
    // `add_job_to_calendar` starts it where `calc_run_time`'s simulation first finds
    // `is_ok_to_run`, limits included, true). Slurm's backfill passes over a job its limits
    // hold (`acct_policy_job_runnable_pre_select`); Flux's fcfs plans no windows.
    let limit_windows = matches!(
        options.policy,
        Policy::Easy | Policy::Backfill(_) | Policy::Conservative
    );
    // What each job asks in all (`r` per job, by order index), and its shape: jobs of one
    // shape differ only in their first part's count.
    let totals: Vec<u64> = order
        .iter()
        .flat_map(|&j| {
            let ask = &snap.pending[j].ask;
            (0..r).map(move |i| ask.total(i))
        })
        .collect();
    let asks = |k: usize| &totals[k * r..(k + 1) * r];
    let mut shapes: HashMap<Shape<'_>, usize> = HashMap::new();
    let shape_of: Vec<Option<(usize, u32)>> = order
        .iter()
        .enumerate()
        .map(|(k, &j)| {
            let (key, count) = shape(eligible_of[k], &snap.pending[j].ask)?;
            let next = shapes.len();
            Some((*shapes.entry(key).or_insert(next), count))
        })
        .collect();
    // The least any waiting job asks of each resource.
    let least: Vec<u64> = (0..r)
        .map(|i| waiting.iter().map(|&k| asks(k)[i]).min().unwrap_or(0))
        .collect();
    // Per shape, the (count, walltime) of its jobs that did not fit in this cycle, and the
    // shapes with any.
    let mut failed: Vec<Vec<(u32, i64)>> = vec![Vec::new(); shapes.len()];
    let mut failed_shapes: Vec<usize> = Vec::new();
    // The planned start of each job with a window (by order index).
    let mut planned: Vec<Option<i64>> = vec![None; order.len()];
    // Slurm's backfill holds a planned job's nodes whole for its window (`backfill.c:
    // _add_reservation` takes the nodes out of its map of free nodes); PBS holds the
    // resources the job's chunks take.
    let whole_windows = matches!(options.policy, Policy::Slurm(_));
    let mut why_of: HashMap<(usize, &Ask, i64), (u64, Blocked)> = HashMap::new();
    // The jobs asked about (order indices), and which jobs the plan considers at all.
    let mut in_plan = vec![false; order.len()];
    for &k in &waiting {
        in_plan[k] = true;
    }
    // Each pending job's place in the order (`usize::MAX`: the order leaves it out).
    let mut at = vec![usize::MAX; snap.pending.len()];
    for (k, &j) in order.iter().enumerate() {
        at[j] = k;
    }
    let wanted: Option<Vec<usize>> = only.map(|only| {
        only.iter()
            .filter_map(|&j| at.get(j).copied().filter(|&k| k != usize::MAX))
            .collect()
    });
    // Whose resources-or-window reason to work out: every job's, or the jobs asked about.
    let explain: Vec<bool> = match &wanted {
        None => vec![true; order.len()],
        Some(w) => {
            let mut e = vec![false; order.len()];
            for &k in w {
                e[k] = true;
            }
            e
        }
    };
    // What the running jobs count toward each limit now, and the jobs a limit held when
    // last looked at.
    let mut cap_used = limits.usage();
    let mut limit_held = vec![false; order.len()];
    let mut t = now;
    let mut first = true;
    let mut cycles = 0;
    let mut used = vec![0u64; r];
    let total_cap: Vec<u64> = (0..r)
        .map(|i| {
            (0..n_nodes)
                .filter(|&n| nodes.usable[n])
                .map(|n| snap.nodes[n].available.get(i).copied().unwrap_or(0))
                .sum()
        })
        .collect();
    loop {
        cycles += 1;
        nodes.advance(t);
        // Jobs that end by t free their nodes; one that ends before its planned end moves
        // every planned window (the scheduler plans again).
        let mut early = false;
        let mut freed = false;
        while let Some(&Reverse((e, i))) = ends.peek() {
            if e > t {
                break;
            }
            ends.pop();
            live[i] = false;
            let (owner, planned_end) = end_owner[i];
            early |= e < planned_end;
            nodes.remove(owner);
            // What it counted toward the limits is free again.
            let drew = match owner {
                Owner::Running(k) => limits.running.get(k),
                Owner::Started(k) => limits.started.get(order[k]),
                _ => None,
            };
            for d in drew.into_iter().flatten() {
                cap_used[d.cap] = cap_used[d.cap].saturating_sub(d.amount);
                freed = true;
            }
        }
        // Under Slurm's rule a window holds its nodes whole, and the job that starts in it
        // holds only what it takes: the nodes it leaves let lower windows move, so they are
        // planned again (from the first that opens: the windows above it were planned
        // without it, and cannot move for it).
        let opening = if whole_windows {
            waiting.iter().copied().find(|&k| planned[k] == Some(t))
        } else {
            None
        };
        // A limit that had no room for a job may have room now: that job goes before the
        // windows planned below it while it waited, so they are planned again from it.
        let limit_freed = if freed {
            waiting.iter().copied().find(|&k| limit_held[k])
        } else {
            None
        };
        let from = if early || options.always_replan {
            Some(0)
        } else {
            match (opening, limit_freed) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        };
        if let Some(from) = from {
            for (k, p) in planned.iter_mut().enumerate().skip(from) {
                if p.take().is_some() {
                    nodes.remove(Owner::Plan(k));
                }
            }
        }
        // Windows that open now: their jobs start in this cycle.
        for &k in &waiting {
            if planned[k] == Some(t) {
                planned[k] = None;
                nodes.remove(Owner::Plan(k));
            }
        }
        // What is free now over every node that takes jobs: a job asking more of a
        // resource cannot start this cycle, whatever its nodes (a quick no before placing).
        let mut free_now = nodes.free_now(&total_cap);
        // Shapes that did not fit this cycle: a job asking as many or more of the same
        // chunks (its first part's count; the other parts the same), for as long or longer,
        // on the same nodes, does not fit either (the cycle only fills the nodes further,
        // and a first fit that cannot place n chunks cannot place n + 1).
        for s in failed_shapes.drain(..) {
            failed[s].clear();
        }
        let mut reserved = 0usize;
        let mut held_up: Option<usize> = None;
        let mut still: Vec<usize> = Vec::new();
        for (pos, &k) in waiting.iter().enumerate() {
            let j = order[k];
            let job = &snap.pending[j];
            let w = walltime(j);
            if let Some(b) = held_up {
                if !first {
                    still.extend_from_slice(&waiting[pos..]);
                    break;
                }
                {
                    out[k].blocked = Blocked::Order {
                        behind: snap.pending[order[b]].id.clone(),
                    };
                }
                still.push(k);
                continue;
            }
            // Past the windows it must plan, with no room left for any job, the rest of the
            // queue waits for the next event.
            if !first
                && depth.is_some_and(|d| reserved >= d)
                && (0..r).any(|i| free_now[i] < least[i])
            {
                still.extend_from_slice(&waiting[pos..]);
                break;
            }
            // A limit with no room for it: it waits for jobs that count toward it to end,
            // holding no job behind it. Under PBS with backfill a top job gets a window at
            // the first instant both its resources and its limits have room (`limit_windows`);
            // lower jobs keep out of that window's resources, but their own limits are
            // checked against the running jobs only (`check.cpp: is_ok_to_run` calls
            // `check_limits` on the server's counts of running jobs, which calendar entries
            // do not enter), so one of the same user may still take the limit's room now.
            let checks: &[Draw] = match limits.pending.get(j) {
                Some(Ok(d)) => d,
                _ => &[],
            };
            limit_held[k] = false;
            if let Some(c) = limits.blocking(checks, &cap_used) {
                limit_held[k] = true;
                if first {
                    out[k].blocked = Blocked::of_cap(limits, c, checks, &cap_used);
                }
                still.push(k);
                if !limit_windows {
                    continue;
                }
                if planned[k].is_some() {
                    reserved += 1;
                } else if depth.is_none_or(|d| reserved < d) {
                    let usage = CapUsage {
                        limits,
                        order,
                        end_owner: &end_owner,
                        live: &live,
                        planned: &planned,
                        walltime: &walltime,
                    };
                    let found =
                        limit_window(&nodes, eligible(k), &job.ask, checks, &usage, t, w, horizon);
                    if let Some((s, placed)) = found {
                        for (n, amounts) in placed {
                            nodes.add(
                                n,
                                Alloc {
                                    start: s,
                                    planned_end: s.saturating_add(w),
                                    amounts,
                                    whole: job.ask.place.sharing != Sharing::Shared,
                                    owner: Owner::Plan(k),
                                },
                            );
                        }
                        planned[k] = Some(s);
                        if first {
                            out[k].planned_at = Some(s);
                        }
                    }
                    reserved += 1;
                }
                continue;
            }
            let may = planned[k].is_none()
                && asks(k).iter().zip(&free_now).all(|(a, f)| a <= f)
                && (options.exhaustive
                    || !shape_of[k].is_some_and(|(s, count)| {
                        failed[s].iter().any(|&(c, f)| c <= count && f <= w)
                    }));
            let placed = if may {
                place(&nodes, eligible(k), &job.ask, t, t.saturating_add(w))
            } else {
                Err(0)
            };
            if let Ok(placed) = placed {
                let run = runtimes.run_time(job, w).clamp(1, w);
                let end = t.saturating_add(run);
                for (n, amounts) in &placed {
                    for i in 0..r {
                        free_now[i] = free_now[i].saturating_sub(amounts[i]);
                    }
                    nodes.add(
                        *n,
                        Alloc {
                            start: t,
                            planned_end: t.saturating_add(w),
                            amounts: amounts.clone(),
                            whole: job.ask.place.sharing != Sharing::Shared,
                            owner: Owner::Started(k),
                        },
                    );
                }
                ends.push(Reverse((end, end_owner.len())));
                end_owner.push((Owner::Started(k), t.saturating_add(w)));
                live.push(true);
                for d in limits.started.get(j).into_iter().flatten() {
                    cap_used[d.cap] = cap_used[d.cap].saturating_add(d.amount);
                }
                out[k].start = Some(t);
                out[k].end = Some(end);
                out[k].nodes = placed
                    .iter()
                    .map(|(n, _)| snap.nodes[*n].name.clone())
                    .collect();
                out[k].amounts = placed.into_iter().map(|(_, a)| a).collect();
                continue;
            }
            if let (true, Err(least), Some((s, _))) = (may, placed, shape_of[k]) {
                if failed[s].is_empty() {
                    failed_shapes.push(s);
                }
                failed[s].push((least, w));
            }
            if first && explain[k] {
                // Jobs that ask the same for as long on the same nodes, with the nodes as
                // they were, share the answer.
                let key = (eligible_of[k], &job.ask, w);
                out[k].blocked = match why_of.get(&key) {
                    Some((v, b)) if *v == nodes.version && !options.exhaustive => b.clone(),
                    _ => {
                        let b = why_now(&nodes, eligible(k), &job.ask, t, w, &mut used, &|k| {
                            snap.pending[order[k]].id.clone()
                        });
                        why_of.insert(key, (nodes.version, b.clone()));
                        b
                    }
                };
            }
            still.push(k);
            if planned[k].is_some() {
                reserved += 1;
            } else if depth.is_none_or(|d| reserved < d) {
                if let Some((s, placed)) = earliest(&nodes, eligible(k), &job.ask, t, w, horizon)
                    && window.is_none_or(|win| s < t.saturating_add(win))
                {
                    for (n, amounts) in placed {
                        nodes.add(
                            n,
                            Alloc {
                                start: s,
                                planned_end: s.saturating_add(w),
                                amounts,
                                whole: whole_windows || job.ask.place.sharing != Sharing::Shared,
                                owner: Owner::Plan(k),
                            },
                        );
                    }
                    planned[k] = Some(s);
                    if first {
                        out[k].planned_at = Some(s);
                    }
                }
                reserved += 1;
            }
            if strict {
                held_up = Some(k);
            }
        }
        waiting = still;
        first = false;
        if waiting.is_empty() {
            break;
        }
        // The jobs asked about all have their starts: nothing later changes them.
        if let Some(wanted) = &wanted
            && wanted
                .iter()
                .all(|&k| out[k].start.is_some() || !in_plan[k])
        {
            break;
        }
        // Next event: an end, a planned window opening, a reservation's window opening or
        // closing.
        let next = ends
            .peek()
            .map(|Reverse((e, _))| *e)
            .into_iter()
            .chain(planned.iter().flatten().copied())
            .chain(snap.reservations.iter().flat_map(|r| [r.start, r.end]))
            .filter(|&x| x > t)
            .min();
        match next {
            Some(x) if x <= horizon => t = x,
            _ => break,
        }
    }
    Plan {
        now,
        jobs: out,
        running_ends,
        cycles,
        at,
    }
}

/// What the plan's jobs count toward the caps later on: the running and started jobs until
/// their planned ends, the planned windows over theirs.
struct CapUsage<'a> {
    limits: &'a Limits,
    order: &'a [usize],
    end_owner: &'a [(Owner, i64)],
    live: &'a [bool],
    planned: &'a [Option<i64>],
    walltime: &'a dyn Fn(usize) -> i64,
}

impl CapUsage<'_> {
    /// Whether the caps among `checks` have room for them, from `t` on: the instants where
    /// that may change (the live jobs' planned ends, the windows' starts and ends, of those
    /// that draw on them), ascending from `t`, each with the answer from then on.
    fn room(&self, checks: &[Draw], t: i64) -> Vec<(i64, bool)> {
        let limits = self.limits;
        let mut used = vec![0u64; limits.caps.len()];
        let mut checked = vec![false; limits.caps.len()];
        for d in checks {
            checked[d.cap] = true;
        }
        // (instant, cap, amount, whether it starts drawing then).
        let mut changes: Vec<(i64, usize, u64, bool)> = Vec::new();
        let mut draw = |draws: Option<&Vec<Draw>>, from: i64, to: i64| {
            for d in draws.into_iter().flatten().filter(|d| checked[d.cap]) {
                if from <= t {
                    used[d.cap] = used[d.cap].saturating_add(d.amount);
                } else {
                    changes.push((from, d.cap, d.amount, true));
                }
                changes.push((to, d.cap, d.amount, false));
            }
        };
        for (i, &(owner, planned_end)) in self.end_owner.iter().enumerate() {
            if !self.live[i] || planned_end <= t {
                continue;
            }
            match owner {
                Owner::Running(k) => draw(limits.running.get(k), t, planned_end),
                Owner::Started(k) => draw(limits.started.get(self.order[k]), t, planned_end),
                _ => {}
            }
        }
        for (k, p) in self.planned.iter().enumerate() {
            let j = self.order[k];
            if let Some(s) = *p {
                let e = s.saturating_add((self.walltime)(j));
                if e > t {
                    draw(limits.started.get(j), s, e);
                }
            }
        }
        changes.sort_unstable_by_key(|c| c.0);
        let mut out = vec![(t, limits.blocking(checks, &used).is_none())];
        let mut i = 0;
        while i < changes.len() {
            let x = changes[i].0;
            while i < changes.len() && changes[i].0 == x {
                let (_, c, amount, on) = changes[i];
                // An end only takes back what was counted before it: never below 0.
                used[c] = if on {
                    used[c].saturating_add(amount)
                } else {
                    used[c].saturating_sub(amount)
                };
                i += 1;
            }
            out.push((x, limits.blocking(checks, &used).is_none()));
        }
        out
    }
}

/// The window of a job whose limits have no room at `t`: the first instant after `t`, by
/// the plan's own events, where every cap among `checks` has room for it ([`CapUsage`]) and
/// its resources fit for `w` ([`earliest`]), and where; `None` past `horizon`.
#[allow(clippy::too_many_arguments)]
fn limit_window(
    nodes: &Nodes<'_>,
    eligible: &NodeSet,
    ask: &Ask,
    checks: &[Draw],
    usage: &CapUsage<'_>,
    t: i64,
    w: i64,
    horizon: i64,
) -> Option<(i64, Placed)> {
    let steps = usage.room(checks, t);
    // Whether the limits have room at instant x ≥ t: the answer of the last change by x.
    let room = |x: i64| steps[steps.partition_point(|s| s.0 <= x) - 1].1;
    let mut c = t;
    loop {
        // The first change after c where the limits have room (they have none at c).
        let from = steps.partition_point(|s| s.0 <= c);
        c = steps[from..]
            .iter()
            .take_while(|s| s.0 <= horizon)
            .find(|s| s.1)?
            .0;
        if let Ok(placed) = place(nodes, eligible, ask, c, c.saturating_add(w)) {
            return Some((c, placed));
        }
        // The resources fit later: there, if the limits have room then too.
        let (s, placed) = earliest(nodes, eligible, ask, c, w, horizon)?;
        if room(s) {
            return Some((s, placed));
        }
        c = s;
    }
}

/// A request on a list of nodes without its first part's count (the count beside it).
type Shape<'a> = (
    usize,
    &'a crate::model::place::Place,
    &'a [u64],
    &'a [(u32, Vec<u64>)],
);

fn shape(list: usize, ask: &Ask) -> Option<(Shape<'_>, u32)> {
    let ((count, first), rest) = ask.parts.split_first()?;
    Some(((list, &ask.place, first.as_slice(), rest), *count))
}

/// A job's earliest start on the plan after `t` (at a planned end, when nodes free), and
/// where: the candidates are the planned ends of what its eligible nodes hold; one where what
/// is in use on them in all leaves too little of a resource is passed over before placing.
fn earliest(
    nodes: &Nodes<'_>,
    eligible: &NodeSet,
    ask: &Ask,
    t: i64,
    w: i64,
    horizon: i64,
) -> Option<(i64, Placed)> {
    let r = nodes.r;
    let snap = nodes.snap;
    // (time, amounts, +1 start / -1 end) of every allocation on the eligible nodes.
    let mut times: Vec<i64> = Vec::new();
    let mut deltas: Vec<(i64, usize, usize, bool)> = Vec::new();
    let mut cap = vec![0u64; r];
    for &n in &eligible.list {
        for (i, c) in cap.iter_mut().enumerate() {
            *c += snap.nodes[n].available.get(i).copied().unwrap_or(0);
        }
        for (ai, a) in nodes.allocs[n].iter().enumerate() {
            if a.planned_end > t && a.planned_end <= horizon {
                times.push(a.planned_end);
            }
            if a.planned_end > t {
                deltas.push((a.start.max(t), n, ai, true));
                deltas.push((a.planned_end, n, ai, false));
            }
        }
    }
    times.sort_unstable();
    times.dedup();
    // Ends before starts at one instant: a window may open as another closes.
    deltas.sort_unstable_by_key(|d| (d.0, d.3));
    let need: Vec<u64> = (0..r).map(|i| ask.total(i)).collect();
    // What is in use over the eligible nodes after each instant where it changes (the
    // allocations' starts and ends): a step function, `r` values per instant. A window
    // `[s, s + w)` needs room at every step inside it: the most in use over those steps, a
    // sliding maximum as the candidates ascend (one deque per resource).
    let mut at: Vec<i64> = Vec::new();
    let mut steps: Vec<i128> = Vec::new();
    {
        let mut in_use = vec![0i128; r];
        let mut k = 0;
        while k < deltas.len() {
            let x = deltas[k].0;
            while k < deltas.len() && deltas[k].0 == x {
                let (_, n, ai, on) = deltas[k];
                // What it takes itself (a window that holds its nodes whole counts only its
                // chunks: the node's other jobs are counted already, and the sum must stay a
                // lower bound of what is in use).
                let a = &nodes.allocs[n][ai];
                for (i, u) in in_use.iter_mut().enumerate() {
                    let v = a.amounts.get(i).copied().unwrap_or(0) as i128;
                    *u += if on { v } else { -v };
                }
                k += 1;
            }
            at.push(x);
            steps.extend(in_use.iter().map(|u| (*u).max(0)));
        }
    }
    // The eligible nodes with room for the job's smallest chunk at the candidate start,
    // kept as the sweep passes starts and ends: only they can take a chunk then.
    let smallest = smallest_chunk(ask, r);
    let roomy_at_t = |n: &usize| covers_cap(snap, *n, &smallest) && nodes.room_at(*n, t, &smallest);
    // A chunk asks a core: only the nodes with one free now can have room now.
    let mut roomy: std::collections::BTreeSet<usize> =
        if t == nodes.t && smallest.first().is_some_and(|&c| c >= 1) {
            nodes
                .open
                .iter()
                .copied()
                .filter(|&n| eligible.member[n])
                .filter(roomy_at_t)
                .collect()
        } else {
            eligible.list.iter().copied().filter(roomy_at_t).collect()
        };
    let mut most: Vec<std::collections::VecDeque<usize>> =
        vec![std::collections::VecDeque::new(); r];
    let (mut lo, mut hi) = (0usize, 0usize);
    let mut d = 0;
    let mut touched: Vec<usize> = Vec::new();
    for s in times {
        // The eligible nodes with room for the smallest chunk at s.
        touched.clear();
        while d < deltas.len() && deltas[d].0 <= s {
            touched.push(deltas[d].1);
            d += 1;
        }
        for &n in &touched {
            if covers_cap(snap, n, &smallest) && nodes.room_at(n, s, &smallest) {
                roomy.insert(n);
            } else {
                roomy.remove(&n);
            }
        }
        // The steps in [s, s + w): from the last at or before s (what is in use at s).
        while lo + 1 < at.len() && at[lo + 1] <= s {
            lo += 1;
        }
        let to = s.saturating_add(w);
        while hi < at.len() && (hi <= lo || at[hi] < to) {
            for (i, q) in most.iter_mut().enumerate() {
                while q
                    .back()
                    .is_some_and(|&b| steps[b * r + i] <= steps[hi * r + i])
                {
                    q.pop_back();
                }
                q.push_back(hi);
            }
            hi += 1;
        }
        let short = most.iter_mut().enumerate().any(|(i, q)| {
            while q.front().is_some_and(|&f| f < lo) {
                q.pop_front();
            }
            let used = q.front().map_or(0, |&f| steps[f * r + i]);
            (cap[i] as i128 - used) < need[i] as i128
        });
        if short {
            continue;
        }
        let scan = roomy.iter().copied();
        if let Ok(p) = place_scan(nodes, scan.into_iter(), ask, s, s.saturating_add(w), false) {
            return Some((s, p));
        }
    }
    None
}

/// Whether node `n`'s capacity holds `need`.
fn covers_cap(snap: &Snapshot, n: usize, need: &[u64]) -> bool {
    let cap = &snap.nodes[n].available;
    need.iter()
        .enumerate()
        .all(|(i, x)| cap.get(i).copied().unwrap_or(0) >= *x)
}

/// Why a job that does not fit now waits: the window of a higher job or a reservation that
/// it would run into, else the resources it asks more of than is free.
fn why_now(
    nodes: &Nodes<'_>,
    eligible: &NodeSet,
    ask: &Ask,
    t: i64,
    w: i64,
    used: &mut [u64],
    id_of: &dyn Fn(usize) -> String,
) -> Blocked {
    let snap = nodes.snap;
    let r = snap.resources.len();
    // Free now, ignoring what is only planned or reserved ahead.
    let mut free = vec![0u64; r];
    let mut fit = 0;
    let mut blockers: Vec<(i64, Owner)> = Vec::new();
    let chunk = ask.parts.first().map(|(_, a)| a.as_slice()).unwrap_or(&[]);
    for &n in &eligible.list {
        let (whole, _) = nodes.used(n, t, t + 1, used, true);
        let cap = &snap.nodes[n].available;
        let f: Vec<u64> = (0..r)
            .map(|i| cap.get(i).copied().unwrap_or(0).saturating_sub(used[i]))
            .collect();
        if !whole {
            for (x, y) in free.iter_mut().zip(&f) {
                *x += *y;
            }
            if f.iter().zip(chunk).all(|(x, y)| x >= y) {
                fit += 1;
            }
        }
        for a in &nodes.allocs[n] {
            if a.start > t && a.start < t.saturating_add(w) {
                blockers.push((a.start, a.owner));
            }
        }
    }
    // Does it fit now if nothing ahead is planned? Then what ahead stops it.
    if place_as(nodes, eligible, ask, t, t + 1, true).is_ok() {
        blockers.sort_by_key(|(s, _)| *s);
        for (s, o) in blockers {
            match o {
                Owner::Plan(k) => {
                    return Blocked::Reservation {
                        job: id_of(k),
                        at: s,
                    };
                }
                Owner::Resv(k) => {
                    return Blocked::AdvanceReservation {
                        id: snap.reservations[k].id.clone(),
                        at: s,
                    };
                }
                _ => {}
            }
        }
    }
    let short = (0..r)
        .filter_map(|i| {
            let asked = ask.total(i);
            (asked > free[i]).then(|| Short {
                resource: snap.resources[i].clone(),
                asked,
                free: free[i],
            })
        })
        .collect();
    Blocked::Resources {
        short,
        nodes_fit: fit,
        nodes_eligible: eligible.list.len(),
    }
}

/// Why the job's eligible nodes cannot hold it even with nothing running, `None` when they can.
/// `empty` is the site with nothing on it.
fn never_fits(empty: &Nodes<'_>, eligible: &NodeSet, ask: &Ask) -> Option<String> {
    let snap = empty.snap;
    if eligible.list.is_empty() {
        return Some("no node that takes jobs serves its queue or partition".into());
    }
    if place(empty, eligible, ask, 0, 1).is_ok() {
        return None;
    }
    let r = snap.resources.len();
    for i in 0..r {
        let asked = ask.total(i);
        let all: u64 = eligible
            .list
            .iter()
            .map(|&n| snap.nodes[n].available.get(i).copied().unwrap_or(0))
            .sum();
        if asked > all {
            return Some(format!(
                "it asks {asked} {} and its {} eligible nodes have {all} in all",
                snap.resources[i],
                eligible.list.len()
            ));
        }
    }
    for (_, a) in &ask.parts {
        if let Some(i) = (0..r).find(|&i| {
            let most = eligible
                .list
                .iter()
                .map(|&n| snap.nodes[n].available.get(i).copied().unwrap_or(0))
                .max()
                .unwrap_or(0);
            a.get(i).copied().unwrap_or(0) > most
        }) {
            return Some(format!(
                "a chunk asks {} {} and no eligible node has that many",
                a[i], snap.resources[i]
            ));
        }
    }
    Some(format!(
        "its {} eligible nodes cannot hold its chunks as placed ({})",
        eligible.list.len(),
        ask.place
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::place::Place;
    use crate::model::snapshot::{Held, Node, NodeState, RunningJob, Scheduler};

    const NOW: i64 = 1_000_000;

    fn node(name: &str) -> Node {
        Node {
            name: name.into(),
            state: NodeState::Free,
            state_text: "free".into(),
            available: vec![8, 0, 0],
            assigned: vec![0, 0, 0],
            jobs: Vec::new(),
            partitions: Vec::new(),
        }
    }

    fn running(id: &str, node: &str, cpus: u64, start: i64, walltime: i64) -> RunningJob {
        RunningJob {
            id: id.into(),
            user: Some("u".into()),
            group: None,
            account: None,
            project: None,
            qos: None,
            queue: None,
            start,
            walltime: Some(walltime),
            held: vec![Held {
                node: node.into(),
                amounts: vec![cpus, 0, 0],
            }],
            total: vec![cpus, 0, 0],
            elapsed: None,
        }
    }

    fn waiting(id: &str, cpus: u64, walltime: i64) -> PendingJob {
        PendingJob {
            id: id.into(),
            user: Some("u".into()),
            group: None,
            account: None,
            project: None,
            qos: None,
            queue: Vec::new(),
            submit: Some(NOW - 100),
            walltime: Some(walltime),
            ask: Ask {
                parts: vec![(cpus as u32, vec![1, 0, 0])],
                place: Place::default(),
            },
            priority: None,
            reason: None,
            hold: None,
        }
    }

    /// Two 8-core nodes. R1 holds n1 until NOW+3600, R2 half of n2 until NOW+600. Waiting,
    /// in priority order: A (16 cores, 1 h), C (4 cores, 2 h), B (4 cores, 5 min).
    fn site() -> Snapshot {
        let mut s = Snapshot::new(Scheduler::Pbs);
        s.taken_at = Some(NOW);
        s.nodes = vec![node("n1"), node("n2")];
        s.running = vec![
            running("R1", "n1", 8, NOW - 600, 4200),
            running("R2", "n2", 4, NOW - 600, 1200),
        ];
        s.pending = vec![
            waiting("A", 16, 3600),
            waiting("C", 4, 7200),
            waiting("B", 4, 300),
        ];
        s
    }

    fn run(s: &Snapshot, policy: Policy, rt: &dyn Runtimes) -> Plan {
        let options = PlanOptions {
            policy,
            ..PlanOptions::default()
        };
        plan(s, &free(s), &[0, 1, 2], NOW, &options, rt)
    }

    /// No limits on the site's jobs.
    fn free(s: &Snapshot) -> Limits {
        Limits::none(s.running.len(), s.pending.len())
    }

    fn starts(p: &Plan) -> Vec<Option<i64>> {
        p.jobs.iter().map(|j| j.start.map(|t| t - NOW)).collect()
    }

    // Worked by hand. EASY: A is the top job; both nodes are free when R1 ends (n2 at +600,
    // n1 at +3600): its window opens at +3600. C fits on n2's 4 free cores now but would run
    // into A's window: it waits, and starts when A ends (+7200). B fits now and ends (+300)
    // before A's window: it starts now (backfilled).
    #[test]
    fn easy_reserves_the_top_job_and_backfills_what_does_not_delay_it() {
        let p = run(&site(), Policy::Easy, &FullWalltime);
        assert_eq!(starts(&p), [Some(3600), Some(7200), Some(0)]);
        assert_eq!(p.jobs[0].planned_at, Some(NOW + 3600));
        assert_eq!(
            p.jobs[0].blocked,
            Blocked::Resources {
                short: vec![Short {
                    resource: "ncpus".into(),
                    asked: 16,
                    free: 4
                }],
                nodes_fit: 1,
                nodes_eligible: 2,
            }
        );
        assert_eq!(
            p.jobs[1].blocked,
            Blocked::Reservation {
                job: "A".into(),
                at: NOW + 3600
            }
        );
        assert_eq!(p.jobs[2].blocked, Blocked::Nothing);
        assert_eq!(p.jobs[2].nodes, ["n2"]);
        assert_eq!(p.jobs[0].nodes, ["n1", "n2"]);
    }

    // Worked by hand. User u may run 2 jobs at once, and R1 and R2 are u's: at the snapshot
    // the cap is full, and every waiting job is held by it. A, the top job, gets a window
    // (PBS plans one for a top job a limit holds): the cap has room when R2 ends (+600), but
    // n1 is R1's until +3600, where both cores and cap have room: A's window is at +3600;
    // EASY plans no other. R2 ends at +600: A still does not fit; C fits on n2 but would run
    // into A's window; B fits before it and starts (+600), the cap full again. B ends at
    // +900, R1 at +3600: A starts in its window; C, within the cap, has no cores until A
    // ends (+7200). A fourth job asking more than its per-job limit never starts.
    #[test]
    fn a_limit_holds_a_job_until_jobs_that_count_toward_it_end() {
        use crate::model::limits::{Cap, Never};
        let mut s = site();
        s.pending.push(waiting("D", 1, 60));
        let one = || vec![Draw { cap: 0, amount: 1 }];
        let limits = Limits {
            caps: vec![Cap {
                reason: "Not Running: User has reached server running job limit.".into(),
                plain: "user u may run 2 jobs at once on the server".into(),
                limit: 2,
            }],
            running: vec![one(), one()],
            pending: vec![
                Ok(one()),
                Ok(one()),
                Ok(one()),
                Err(Never {
                    reason: "QOSMaxWallDurationPerJobLimit".into(),
                    plain: "asks 0:01:00; QOS normal allows 0:00:30 per job".into(),
                }),
            ],
            started: vec![one(), one(), one(), Vec::new()],
            known: true,
        };
        let options = PlanOptions {
            policy: Policy::Easy,
            ..PlanOptions::default()
        };
        let p = plan(&s, &limits, &[0, 1, 2, 3], NOW, &options, &FullWalltime);
        assert_eq!(starts(&p), [Some(3600), Some(7200), Some(600), None]);
        assert_eq!(p.jobs[0].planned_at, Some(NOW + 3600));
        for (k, j) in p.jobs[..3].iter().enumerate() {
            assert_eq!(
                j.blocked,
                Blocked::Limit {
                    reason: "Not Running: User has reached server running job limit.".into(),
                    plain: "user u may run 2 jobs at once on the server".into(),
                    used: 2,
                    asks: 1,
                    limit: 2,
                    never: false,
                }
            );
            if k > 0 {
                assert_eq!(j.planned_at, None);
            }
        }
        assert!(matches!(
            p.jobs[3].blocked,
            Blocked::Limit { never: true, .. }
        ));
        // Unknown limits: a job the scheduler says a limit holds is not planned.
        let mut held = site();
        held.pending[2].hold = Some(Hold::Limit("AssocMaxJobsLimit".into()));
        let unknown = Limits::unknown(2, 3);
        let p = plan(&held, &unknown, &[0, 1, 2], NOW, &options, &FullWalltime);
        assert_eq!(starts(&p)[2], None);
        let p = plan(
            &held,
            &free(&held),
            &[0, 1, 2],
            NOW,
            &options,
            &FullWalltime,
        );
        assert_eq!(starts(&p)[2], Some(0));
    }

    /// Two 8-core nodes. Alice may run one job at once (PBS `max_run = [u:alice=1]`). Her
    /// running job RA holds 4 cores of n2 until T1 = NOW+3600; bob's RB holds all of n1 until
    /// NOW+7200. Waiting, in priority order: alice's A (8 cores, 1 h), held by her limit, and
    /// bob's B (4 cores, `b_wall`).
    fn alice_and_bob(b_wall: i64) -> (Snapshot, Limits) {
        use crate::model::limits::Cap;
        let mut s = Snapshot::new(Scheduler::Pbs);
        s.taken_at = Some(NOW);
        s.nodes = vec![node("n1"), node("n2")];
        let mut ra = running("RA", "n2", 4, NOW - 600, 4200);
        ra.user = Some("alice".into());
        let mut rb = running("RB", "n1", 8, NOW - 600, 7800);
        rb.user = Some("bob".into());
        s.running = vec![ra, rb];
        let mut a = waiting("A", 8, 3600);
        a.user = Some("alice".into());
        let mut b = waiting("B", 4, b_wall);
        b.user = Some("bob".into());
        s.pending = vec![a, b];
        let alice = || vec![Draw { cap: 0, amount: 1 }];
        let limits = Limits {
            caps: vec![Cap {
                reason: "Not Running: User has reached server running job limit.".into(),
                plain: "user alice may run 1 job at once on the server".into(),
                limit: 1,
            }],
            running: vec![alice(), Vec::new()],
            pending: vec![Ok(alice()), Ok(Vec::new())],
            started: vec![alice(), Vec::new()],
            known: true,
        };
        (s, limits)
    }

    // Worked by hand (PBS `fifo.cpp: main_sched_loop`: A fails to run on its limit,
    // `should_backfill_with_job` admits it as the first top job, `add_job_to_calendar` puts
    // it where `calc_run_time`'s simulation first finds `is_ok_to_run` true). The simulation
    // steps through the running jobs' ends: at T1 = +3600 RA ends, alice's count drops to 0
    // (room under max_run) and n2 is empty: A fits there (n1 is RB's until +7200). A's window
    // is n2 at +3600. B (4 cores, 2 h) fits on n2's 4 free cores now, but would hold them
    // past +3600 and leave A 4 of the 8 it asks there: it would delay A, so it does not
    // start. A starts at +3600 on n2; B waits for RB to end and starts on n1 at +7200.
    // Without A's window, B would take n2 now and A would wait for n1 (+7200).
    // A shorter B (30 min) ends before T1: resources suffice, the cap is alice's alone, so it
    // backfills onto n2 now and A's window stays at +3600.
    #[test]
    fn pbs_plans_a_window_for_a_top_job_a_limit_holds() {
        let (s, limits) = alice_and_bob(7200);
        for policy in [Policy::Easy, Policy::Backfill(2), Policy::Conservative] {
            let options = PlanOptions {
                policy,
                ..PlanOptions::default()
            };
            let p = plan(&s, &limits, &[0, 1], NOW, &options, &FullWalltime);
            assert_eq!(starts(&p), [Some(3600), Some(7200)], "{policy:?}");
            assert_eq!(p.jobs[0].planned_at, Some(NOW + 3600), "{policy:?}");
            assert_eq!(p.jobs[0].nodes, ["n2"]);
            assert_eq!(p.jobs[1].nodes, ["n1"]);
            assert!(matches!(
                p.jobs[0].blocked,
                Blocked::Limit {
                    used: 1,
                    limit: 1,
                    ..
                }
            ));
            assert_eq!(
                p.jobs[1].blocked,
                Blocked::Reservation {
                    job: "A".into(),
                    at: NOW + 3600
                }
            );
        }
        let (short, limits) = alice_and_bob(1800);
        let options = PlanOptions {
            policy: Policy::Easy,
            ..PlanOptions::default()
        };
        let p = plan(&short, &limits, &[0, 1], NOW, &options, &FullWalltime);
        assert_eq!(starts(&p), [Some(3600), Some(0)]);
        assert_eq!(p.jobs[0].planned_at, Some(NOW + 3600));
        assert_eq!(p.jobs[1].nodes, ["n2"]);
    }

    // Worked by hand. One 8-core node; alice may run one job at once and RA (2 cores) runs
    // until +3600. Under backfill_depth 2 both of her waiting jobs (2 cores, 1 h each) are
    // top jobs. A1's window: her count has room at +3600. A2's: at +3600 A1's window counts
    // toward her limit (PBS's calendar simulation runs A1 there before A2 is tried), so the
    // first room is when A1's window ends, +7200 — though the node has cores for both.
    #[test]
    fn a_window_counts_toward_the_limits_of_the_windows_after_it() {
        use crate::model::limits::Cap;
        let mut s = Snapshot::new(Scheduler::Pbs);
        s.taken_at = Some(NOW);
        s.nodes = vec![node("n1")];
        s.running = vec![running("RA", "n1", 2, NOW - 600, 4200)];
        s.pending = vec![waiting("A1", 2, 3600), waiting("A2", 2, 3600)];
        let one = || vec![Draw { cap: 0, amount: 1 }];
        let limits = Limits {
            caps: vec![Cap {
                reason: "Not Running: User has reached server running job limit.".into(),
                plain: "user u may run 1 job at once on the server".into(),
                limit: 1,
            }],
            running: vec![one()],
            pending: vec![Ok(one()), Ok(one())],
            started: vec![one(), one()],
            known: true,
        };
        let options = PlanOptions {
            policy: Policy::Backfill(2),
            ..PlanOptions::default()
        };
        let p = plan(&s, &limits, &[0, 1], NOW, &options, &FullWalltime);
        assert_eq!(starts(&p), [Some(3600), Some(7200)]);
        let planned: Vec<Option<i64>> = p.jobs.iter().map(|j| j.planned_at).collect();
        assert_eq!(planned, [Some(NOW + 3600), Some(NOW + 7200)]);
    }

    // Worked by hand. Two 8-core nodes; alice may hold 8 cores of running jobs (PBS
    // `max_run_res.ncpus = [u:alice=8]`), and RA (6 cores on n1) runs until +3600. Her top
    // job A (8 cores, 1 h) is held by the limit; its window: her usage drops to 0 at +3600,
    // and n1 is whole then: n1 at +3600. Her lower job A2 (2 cores, 2 h) has room under the
    // limit now (6 + 2 = 8): PBS checks a job's limits against the running jobs only
    // (`check.cpp: is_ok_to_run` → `check_limits` on the server's counts, which the calendar
    // does not enter), and n2 is outside A's window, so A2 starts now on n2. At +3600 A's
    // window opens but A2's 2 cores leave A no room (2 + 8 > 8): it waits for A2 to end at
    // +7200, where PBS's next cycle would put it too.
    #[test]
    fn a_lower_job_of_the_same_user_may_take_the_limits_room_before_a_window() {
        use crate::model::limits::Cap;
        let mut s = Snapshot::new(Scheduler::Pbs);
        s.taken_at = Some(NOW);
        s.nodes = vec![node("n1"), node("n2")];
        s.running = vec![running("RA", "n1", 6, NOW - 600, 4200)];
        s.pending = vec![waiting("A", 8, 3600), waiting("A2", 2, 7200)];
        let cores = |n| vec![Draw { cap: 0, amount: n }];
        let limits = Limits {
            caps: vec![Cap {
                reason: "Not Running: would exceed user alice's limit on resource ncpus".into(),
                plain: "user alice may hold 8 ncpus of running jobs".into(),
                limit: 8,
            }],
            running: vec![cores(6)],
            pending: vec![Ok(cores(8)), Ok(cores(2))],
            started: vec![cores(8), cores(2)],
            known: true,
        };
        let options = PlanOptions {
            policy: Policy::Easy,
            ..PlanOptions::default()
        };
        let p = plan(&s, &limits, &[0, 1], NOW, &options, &FullWalltime);
        assert_eq!(p.jobs[0].planned_at, Some(NOW + 3600));
        assert_eq!(starts(&p), [Some(7200), Some(0)]);
        assert_eq!(p.jobs[1].nodes, ["n2"]);
    }

    // Slurm's backfill passes over a job its limits hold (`acct_policy.c:
    // acct_policy_job_runnable_pre_select` fails it before `_attempt_backfill` plans it), and
    // Flux's fcfs plans no windows: on the same site A gets no window, B takes n2 now, and A
    // waits for n1 (+7200: n2 keeps B's 4 cores until then).
    #[test]
    fn slurm_and_flux_plan_no_window_for_a_job_a_limit_holds() {
        let (s, limits) = alice_and_bob(7200);
        let slurm = Policy::Slurm(crate::model::policy::SlurmBackfill::default());
        for policy in [slurm, Policy::Strict] {
            let options = PlanOptions {
                policy,
                ..PlanOptions::default()
            };
            let p = plan(&s, &limits, &[0, 1], NOW, &options, &FullWalltime);
            assert_eq!(starts(&p), [Some(7200), Some(0)], "{policy:?}");
            assert_eq!(p.jobs[0].planned_at, None, "{policy:?}");
            assert_eq!(p.jobs[1].nodes, ["n2"]);
        }
    }

    // Strict order: nothing passes A. When A ends (+7200) C and B start together on n1.
    #[test]
    fn strict_order_holds_everything_behind_the_first_blocked_job() {
        let p = run(&site(), Policy::Strict, &FullWalltime);
        assert_eq!(starts(&p), [Some(3600), Some(7200), Some(7200)]);
        for j in &p.jobs[1..] {
            assert_eq!(j.blocked, Blocked::Order { behind: "A".into() });
        }
    }

    // PBS without strict ordering: no window for A; C takes n2's free cores now, B waits for
    // R2's end (+600); A waits until C ends (+7200) frees n2 whole.
    #[test]
    fn fill_starts_whatever_fits() {
        let p = run(&site(), Policy::Fill, &FullWalltime);
        assert_eq!(starts(&p), [Some(7200), Some(0), Some(600)]);
    }

    struct Half;
    impl Runtimes for Half {
        fn running_end(&self, snap: &Snapshot, i: usize, _now: i64) -> Option<i64> {
            let j = &snap.running[i];
            Some(j.start + j.walltime? / 2)
        }
        fn run_time(&self, _job: &PendingJob, walltime: i64) -> i64 {
            walltime / 2
        }
    }

    // Jobs that end at half their walltime: R1 ends at +1500, R2 at +0 → clamped to +1 s.
    // A starts at +1500 (the scheduler replans when R1 ends early) and ends at +3300.
    #[test]
    fn a_runtime_model_ends_jobs_early_and_the_plan_follows() {
        let p = run(&site(), Policy::Easy, &Half);
        assert_eq!(p.jobs[0].start, Some(NOW + 1500));
        assert_eq!(p.jobs[0].end, Some(NOW + 1500 + 1800));
        // What holds each job now is the same: the scheduler plans with walltimes.
        assert_eq!(p.jobs[0].planned_at, Some(NOW + 3600));
    }

    #[test]
    fn held_jobs_and_jobs_too_big_for_the_machine_say_so() {
        let mut s = site();
        s.pending[1].hold = Some(Hold::Held("Hold_Types = u".into()));
        s.pending[2].ask.parts[0].0 = 32;
        let p = run(&s, Policy::Easy, &FullWalltime);
        assert!(matches!(p.jobs[1].blocked, Blocked::Hold { .. }));
        assert_eq!(
            p.jobs[2].blocked,
            Blocked::NeverFits {
                why: "it asks 32 ncpus and its 2 eligible nodes have 16 in all".into()
            }
        );
        assert_eq!((p.jobs[1].start, p.jobs[2].start), (None, None));
    }

    // Slurm's backfill holds a blocked job's nodes whole for its window: it takes them out of
    // its map of free nodes (22.05 backfill.c: `_attempt_backfill` calls `_add_reservation`
    // with the job's node bitmap, which `bit_and`s them out of `node_space` from its start to
    // its end), and a lower job may only use nodes free in that map for its whole time limit.
    // Two 8-core nodes: R1 holds n1 until +600, R2 2 cores of n2 for 2 h. A (12 cores anywhere,
    // 1 h) waits for n1 and plans n1 and 4 cores of n2 from +600. B (2 cores, 2 h) fits on
    // n2's 6 free cores now, and the cores would last through A's window (2 + 4 + 2 = 8), but
    // n2 is A's from +600: B waits. Once A runs it holds its cores only, and B takes n2's
    // last 2 at +600.
    #[test]
    fn slurm_backfill_holds_a_planned_jobs_nodes_whole() {
        let mut s = site();
        s.running = vec![
            running("R1", "n1", 8, NOW - 600, 1200),
            running("R2", "n2", 2, NOW - 600, 7800),
        ];
        s.pending = vec![waiting("A", 12, 3600), waiting("B", 2, 7200)];
        let slurm = Policy::Slurm(crate::model::policy::SlurmBackfill::default());
        let p = plan(
            &s,
            &free(&s),
            &[0, 1],
            NOW,
            &PlanOptions {
                policy: slurm,
                ..PlanOptions::default()
            },
            &FullWalltime,
        );
        assert_eq!(p.jobs[0].planned_at, Some(NOW + 600));
        assert_eq!(p.jobs[0].start, Some(NOW + 600));
        assert_eq!(
            p.jobs[1].blocked,
            Blocked::Reservation {
                job: "A".into(),
                at: NOW + 600
            }
        );
        assert_eq!(p.jobs[1].start, Some(NOW + 600));
        assert_eq!(p.jobs[1].nodes, ["n2"]);
        // EASY backfill as PBS runs it holds only the cores: B starts now on n2.
        let p = plan(
            &s,
            &free(&s),
            &[0, 1],
            NOW,
            &PlanOptions::default(),
            &FullWalltime,
        );
        assert_eq!(p.jobs[1].start, Some(NOW));
    }

    // A down node takes nothing; an advance reservation's window blocks what would run into it.
    #[test]
    fn down_nodes_and_advance_reservations_hold_their_nodes() {
        let mut s = site();
        s.nodes[1].state = NodeState::Down;
        s.running.pop();
        s.pending = vec![waiting("D", 4, 3600)];
        let p = plan(
            &s,
            &free(&s),
            &[0],
            NOW,
            &PlanOptions::default(),
            &FullWalltime,
        );
        // Only n1, busy until +3600.
        assert_eq!(p.jobs[0].start, Some(NOW + 3600));
        s.nodes[1].state = NodeState::Free;
        s.reservations = vec![crate::model::snapshot::Reservation {
            id: "R9".into(),
            name: None,
            start: NOW + 600,
            end: NOW + 7200,
            nodes: vec!["n2".into()],
            state: None,
        }];
        let p = plan(
            &s,
            &free(&s),
            &[0],
            NOW,
            &PlanOptions::default(),
            &FullWalltime,
        );
        assert_eq!(
            p.jobs[0].blocked,
            Blocked::AdvanceReservation {
                id: "R9".into(),
                at: NOW + 600
            }
        );
        assert_eq!(p.jobs[0].start, Some(NOW + 3600));
        assert_eq!(p.jobs[0].nodes, ["n1"]);
    }

    // Found by the property test: under Slurm's whole-node windows, a window planned for a
    // lower job at the instant a running job ends must open then, kept or planned again.
    // n0 (4 cores) is free of r3 at +1; j0 (4 × (2 cores, 1 GPU)) plans n1–n4 whole from +654,
    // when r2 leaves n1 room; j1 (1 core, 655 s) plans n0 from +1 and starts then.
    #[test]
    fn a_window_opening_as_a_job_ends_opens_under_whole_node_windows() {
        let mut s = Snapshot::new(Scheduler::Slurm);
        s.taken_at = Some(NOW);
        for (i, gpus) in [0, 1, 1, 1, 1].into_iter().enumerate() {
            let mut n = node(&format!("n{i}"));
            n.available = vec![4, 0, gpus];
            s.nodes.push(n);
        }
        s.running = vec![
            running("r0", "n1", 2, NOW - 1, 2771),
            running("r1", "n0", 2, NOW - 1, 3251),
            running("r2", "n1", 1, NOW - 1, 655),
            running("r3", "n0", 2, NOW - 1, 2),
        ];
        let mut j0 = waiting("j0", 4, 1);
        j0.ask.parts = vec![(4, vec![2, 0, 1])];
        s.pending = vec![j0, waiting("j1", 1, 655)];
        let slurm = Policy::Slurm(crate::model::policy::SlurmBackfill::default());
        for always_replan in [false, true] {
            let options = PlanOptions {
                policy: slurm,
                always_replan,
                ..PlanOptions::default()
            };
            let p = plan(&s, &free(&s), &[0, 1], NOW, &options, &FullWalltime);
            let st: Vec<_> = p.jobs.iter().map(|j| j.start.map(|t| t - NOW)).collect();
            assert_eq!(st, [Some(654), Some(1)], "always_replan {always_replan}");
        }
    }

    /// A site, a policy, and maybe a cap on how many jobs its one user runs at once.
    fn arb_site() -> impl proptest::strategy::Strategy<Value = (Snapshot, Policy, Option<u64>)> {
        use proptest::prelude::*;
        let node_shape = (prop_oneof![Just(4u64), Just(8)], 0u64..3);
        let nodes = prop::collection::vec(node_shape, 1..6);
        let run = (0usize..6, 1u64..9, 1i64..4000, 1i64..7200);
        // Chunks of a few sizes, so that jobs share shapes (and the shortcuts for them).
        let ask = (
            1u32..5,
            prop_oneof![Just(1u64), Just(2), Just(4), 1u64..9],
            0u64..2,
            prop_oneof![
                Just(Arrangement::Free),
                Just(Arrangement::Pack),
                Just(Arrangement::Scatter)
            ],
            any::<bool>(),
            1i64..5000,
        );
        let policy = prop_oneof![
            Just(Policy::Strict),
            Just(Policy::Easy),
            Just(Policy::Fill),
            Just(Policy::Backfill(2)),
            Just(Policy::Conservative),
            Just(Policy::Slurm(Default::default())),
        ];
        (
            nodes,
            prop::collection::vec(run, 0..8),
            prop::collection::vec(ask, 1..16),
            policy,
            prop_oneof![Just(None), (1u64..4).prop_map(Some)],
        )
            .prop_map(|(nodes, runs, asks, policy, cap)| {
                let mut s = Snapshot::new(Scheduler::Slurm);
                s.taken_at = Some(NOW);
                for (i, (cpus, gpus)) in nodes.iter().enumerate() {
                    let mut n = node(&format!("n{i}"));
                    n.available = vec![*cpus, 0, *gpus];
                    s.nodes.push(n);
                }
                let mut free: Vec<u64> = nodes.iter().map(|n| n.0).collect();
                for (k, (at, cpus, elapsed, wall)) in runs.into_iter().enumerate() {
                    let n = at % nodes.len();
                    let cpus = cpus.min(free[n]);
                    if cpus == 0 {
                        continue;
                    }
                    free[n] -= cpus;
                    s.running.push(running(
                        &format!("r{k}"),
                        &format!("n{n}"),
                        cpus,
                        NOW - elapsed,
                        elapsed + wall,
                    ));
                }
                for (k, (count, cpus, gpus, arrangement, excl, wall)) in
                    asks.into_iter().enumerate()
                {
                    let mut j = waiting(&format!("j{k}"), 1, wall);
                    j.ask = Ask {
                        parts: vec![(count, vec![cpus, 0, gpus])],
                        place: Place {
                            arrangement,
                            sharing: if excl { Sharing::Excl } else { Sharing::Shared },
                        },
                    };
                    s.pending.push(j);
                }
                (s, policy, cap)
            })
    }

    /// The limits of a site of [`arb_site`]: its user runs at most `cap` jobs at once.
    fn cap_of(s: &Snapshot, cap: Option<u64>) -> Limits {
        use crate::model::limits::Cap;
        let Some(limit) = cap else {
            return free(s);
        };
        let one = || vec![Draw { cap: 0, amount: 1 }];
        Limits {
            caps: vec![Cap {
                reason: "UserMaxJobs".into(),
                plain: format!("u may run {limit} jobs at once"),
                limit,
            }],
            running: vec![one(); s.running.len()],
            pending: (0..s.pending.len()).map(|_| Ok(one())).collect(),
            started: vec![one(); s.pending.len()],
            known: true,
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

        // Planning every window again at every event gives the same starts as keeping the
        // windows while no job ends early; no node ever holds more than it has; every job
        // the machine can hold starts.
        #[test]
        fn plans_are_kept_exactly_and_never_overcommit((s, policy, cap) in arb_site()) {
            let order: Vec<usize> = (0..s.pending.len()).collect();
            let lim = cap_of(&s, cap);
            let free = |_: &Snapshot| lim.clone();
            let options = PlanOptions { policy, ..PlanOptions::default() };
            let kept = plan(&s, &free(&s), &order, NOW, &options, &FullWalltime);
            let again = plan(&s, &free(&s), &order, NOW, &PlanOptions { always_replan: true, ..options }, &FullWalltime);
            let st = |p: &Plan| p.jobs.iter().map(|j| j.start).collect::<Vec<_>>();
            proptest::prop_assert_eq!(st(&kept), st(&again));
            // The shortcuts change nothing: every job at every cycle, every reason afresh.
            let every = plan(&s, &free(&s), &order, NOW, &PlanOptions { exhaustive: true, ..options }, &FullWalltime);
            proptest::prop_assert_eq!(&kept.jobs, &every.jobs);
            // Planning only until one job has its answer gives that job the whole plan's.
            for j in 0..s.pending.len() {
                let part = plan_for(&s, &free(&s), &order, NOW, &options, &FullWalltime, Some(&[j]));
                proptest::prop_assert_eq!(part.job(j), kept.job(j));
            }
            // Intervals per node: running jobs and started ones.
            let mut spans: Vec<(usize, i64, i64, Vec<u64>, bool)> = Vec::new();
            for r in &s.running {
                let n = s.nodes.iter().position(|x| x.name == r.held[0].node).unwrap();
                spans.push((n, NOW, r.planned_end().unwrap().max(NOW + 1), r.held[0].amounts.clone(), false));
            }
            for j in &kept.jobs {
                let job = &s.pending[j.index];
                match j.start {
                    Some(st) => {
                        proptest::prop_assert!(st >= NOW);
                        for (name, a) in j.nodes.iter().zip(&j.amounts) {
                            let n = s.nodes.iter().position(|x| &x.name == name).unwrap();
                            spans.push((n, st, j.end.unwrap(), a.clone(), job.ask.place.sharing != Sharing::Shared));
                        }
                    }
                    None => proptest::prop_assert!(
                        matches!(j.blocked, Blocked::NeverFits { .. }),
                        "{} never starts: {:?}", job.id, j.blocked
                    ),
                }
            }
            // A job starts only with room under the cap: the jobs running then, itself counted,
            // are within it.
            if let Some(limit) = cap {
                let ends: Vec<(i64, i64)> = s
                    .running
                    .iter()
                    .map(|r| (NOW, r.planned_end().unwrap().max(NOW + 1)))
                    .chain(kept.jobs.iter().filter_map(|j| Some((j.start?, j.end?))))
                    .collect();
                for j in &kept.jobs {
                    let Some(st) = j.start else { continue };
                    let on = ends.iter().filter(|(a, b)| *a <= st && st < *b).count() as u64;
                    proptest::prop_assert!(on <= limit, "{} jobs run at {} under a cap of {}", on, st, limit);
                }
            }
            for (n, node) in s.nodes.iter().enumerate() {
                let mine: Vec<_> = spans.iter().filter(|x| x.0 == n).collect();
                for p in mine.iter().map(|x| x.1) {
                    let on: Vec<_> = mine.iter().filter(|x| x.1 <= p && p < x.2).collect();
                    for i in 0..3 {
                        let sum: u64 = on.iter().map(|x| x.3[i]).sum();
                        proptest::prop_assert!(sum <= node.available[i], "node {} over at {}", n, p);
                    }
                    if on.iter().any(|x| x.4) {
                        proptest::prop_assert_eq!(on.len(), 1, "an exclusive job shares node {}", n);
                    }
                }
            }
        }
    }
}
