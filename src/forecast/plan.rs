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
//!   running job ending at its start plus walltime.
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
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            policy: Policy::Easy,
            default_walltime: None,
            horizon: 30 * 86_400,
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
    /// The scheduler does not consider it now.
    Hold { hold: Hold },
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
    /// Which: a running or started job (`Job`), a window planned this cycle (`Plan`), an
    /// advance reservation (`Resv`).
    owner: Owner,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    Running(usize),
    Started(usize),
    Plan(usize),
    Resv(usize),
}

struct Nodes<'a> {
    snap: &'a Snapshot,
    /// Per node: taken jobs at all.
    usable: Vec<bool>,
    allocs: Vec<Vec<Alloc>>,
}

impl Nodes<'_> {
    /// The most of each resource used on node `n` during `[from, to)`, and whether anything
    /// whole-node overlaps.
    fn used(&self, n: usize, from: i64, to: i64, out: &mut [u64]) -> (bool, bool) {
        out.iter_mut().for_each(|x| *x = 0);
        let allocs = &self.allocs[n];
        let mut whole = false;
        let mut any = false;
        // The usage is constant between the starts of allocations: its most over the window
        // is at `from` or at a start inside it.
        let mut points: Vec<i64> = vec![from];
        points.extend(
            allocs
                .iter()
                .map(|a| a.start)
                .filter(|&s| s > from && s < to),
        );
        let mut at = vec![0u64; out.len()];
        for &p in &points {
            at.iter_mut().for_each(|x| *x = 0);
            for a in allocs.iter().filter(|a| a.start <= p && a.planned_end > p) {
                any = true;
                whole |= a.whole;
                for (x, y) in at.iter_mut().zip(&a.amounts) {
                    *x = x.saturating_add(*y);
                }
            }
            for (o, x) in out.iter_mut().zip(&at) {
                *o = (*o).max(*x);
            }
        }
        (whole, any)
    }
}

/// Where a job's chunks go, or why not.
fn place(
    nodes: &Nodes<'_>,
    eligible: &[usize],
    ask: &Ask,
    from: i64,
    to: i64,
) -> Option<Vec<(usize, Vec<u64>)>> {
    let r = nodes.snap.resources.len();
    let mut free: Vec<(usize, Vec<u64>)> = Vec::with_capacity(eligible.len());
    let mut used = vec![0u64; r];
    let excl = ask.place.sharing != Sharing::Shared;
    for &n in eligible {
        let (whole, any) = nodes.used(n, from, to, &mut used);
        if whole || (excl && any) {
            continue;
        }
        let cap = &nodes.snap.nodes[n].available;
        let f: Vec<u64> = (0..r)
            .map(|i| cap.get(i).copied().unwrap_or(0).saturating_sub(used[i]))
            .collect();
        free.push((n, f));
    }
    let covers = |f: &[u64], a: &[u64]| f.iter().zip(a).all(|(x, y)| x >= y);
    let take = |f: &mut [u64], a: &[u64]| f.iter_mut().zip(a).for_each(|(x, y)| *x -= *y);
    let mut out: Vec<(usize, Vec<u64>)> = Vec::new();
    let add = |out: &mut Vec<(usize, Vec<u64>)>, n: usize, a: &[u64]| match out
        .iter_mut()
        .find(|(m, _)| *m == n)
    {
        Some((_, v)) => v.iter_mut().zip(a).for_each(|(x, y)| *x += *y),
        None => out.push((n, a.to_vec())),
    };
    match ask.place.arrangement {
        Arrangement::Pack => {
            let mut sum = vec![0u64; r];
            for (c, a) in &ask.parts {
                for (s, x) in sum.iter_mut().zip(a) {
                    *s = s.saturating_add(x.saturating_mul(u64::from(*c)));
                }
            }
            let (n, _) = free.iter().find(|(_, f)| covers(f, &sum))?;
            out.push((*n, sum));
        }
        Arrangement::Scatter | Arrangement::VScatter => {
            let mut k = 0;
            for (c, a) in &ask.parts {
                for _ in 0..*c {
                    while k < free.len() && !covers(&free[k].1, a) {
                        k += 1;
                    }
                    let (n, _) = free.get(k)?;
                    out.push((*n, a.clone()));
                    k += 1;
                }
            }
        }
        Arrangement::Free => {
            for (c, a) in &ask.parts {
                let mut left = *c;
                for (n, f) in free.iter_mut() {
                    while left > 0 && covers(f, a) {
                        take(f, a);
                        add(&mut out, *n, a);
                        left -= 1;
                        if a.iter().all(|&x| x == 0) {
                            // A chunk of nothing fits everywhere: one node holds them all.
                            left = 0;
                        }
                    }
                    if left == 0 {
                        break;
                    }
                }
                if left > 0 {
                    return None;
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
    Some(out)
}

/// Plan the queue: `order` lists indices into `snap.pending` in the order the scheduler takes
/// them (its priority order). `now` is the snapshot's instant.
pub fn plan(
    snap: &Snapshot,
    order: &[usize],
    now: i64,
    options: &PlanOptions,
    runtimes: &dyn Runtimes,
) -> Plan {
    let n_nodes = snap.nodes.len();
    let r = snap.resources.len();
    let horizon = now.saturating_add(options.horizon);
    let forever = horizon.saturating_add(1);
    let index: std::collections::HashMap<&str, usize> = snap
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.as_str(), i))
        .collect();
    let mut nodes = Nodes {
        snap,
        usable: snap.nodes.iter().map(|n| n.state.takes_jobs()).collect(),
        allocs: vec![Vec::new(); n_nodes],
    };
    // Nodes held for a reservation with no window known: out for the whole plan.
    let in_resv: std::collections::HashSet<usize> = snap
        .reservations
        .iter()
        .flat_map(|r| {
            r.nodes
                .iter()
                .filter_map(|n| index.get(n.as_str()).copied())
        })
        .collect();
    for (i, node) in snap.nodes.iter().enumerate() {
        if node.state == crate::model::snapshot::NodeState::Reserved && in_resv.contains(&i) {
            nodes.usable[i] = true;
        }
    }
    for (k, resv) in snap.reservations.iter().enumerate() {
        for n in resv.nodes.iter().filter_map(|n| index.get(n.as_str())) {
            nodes.allocs[*n].push(Alloc {
                start: resv.start,
                planned_end: resv.end,
                amounts: vec![0; r],
                whole: true,
                owner: Owner::Resv(k),
            });
        }
    }
    // Running jobs: what they hold until their planned end (forever without a walltime).
    let mut running_ends: Vec<Option<i64>> = Vec::with_capacity(snap.running.len());
    // (actual end, node, owner) of every job holding nodes.
    let mut ends: Vec<(i64, Owner)> = Vec::new();
    for (k, job) in snap.running.iter().enumerate() {
        let planned = job.planned_end().unwrap_or(forever).max(now + 1);
        let actual = runtimes
            .running_end(snap, k, now)
            .unwrap_or(forever)
            .clamp(now + 1, planned);
        running_ends.push((actual <= horizon).then_some(actual));
        ends.push((actual, Owner::Running(k)));
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
            nodes.allocs[n].push(Alloc {
                start: job.start.min(now),
                planned_end: planned,
                amounts,
                whole: false,
                owner: Owner::Running(k),
            });
        }
    }
    // Nodes whose assigned resources are more than their listed jobs hold (jobs the capture
    // does not list, or a node list without jobs): that much stays busy for the plan.
    for (n, node) in snap.nodes.iter().enumerate() {
        let mut held = vec![0u64; r];
        for a in &nodes.allocs[n] {
            if matches!(a.owner, Owner::Running(_)) {
                for (x, y) in held.iter_mut().zip(&a.amounts) {
                    *x += *y;
                }
            }
        }
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
            nodes.allocs[n].push(Alloc {
                start: now,
                planned_end: forever,
                amounts: extra,
                whole: false,
                owner: Owner::Running(usize::MAX),
            });
        }
    }

    let eligible: Vec<Vec<usize>> = order
        .iter()
        .map(|&j| {
            let job = &snap.pending[j];
            (0..n_nodes)
                .filter(|&n| nodes.usable[n])
                .filter(|&n| {
                    let parts = &snap.nodes[n].partitions;
                    parts.is_empty()
                        || job.queue.is_empty()
                        || job.queue.iter().any(|q| parts.contains(q))
                })
                .collect()
        })
        .collect();
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
        })
        .collect();
    // Jobs never considered: held ones, and those no eligible node holds even empty.
    let mut waiting: Vec<usize> = Vec::new();
    for (k, &j) in order.iter().enumerate() {
        let job = &snap.pending[j];
        if let Some(h) = &job.hold {
            out[k].blocked = Blocked::Hold { hold: h.clone() };
            continue;
        }
        if let Some(why) = never_fits(snap, &eligible[k], &job.ask) {
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
    // Slurm's backfill holds a planned job's nodes whole for its window (`backfill.c:
    // _add_reservation` takes the nodes out of its map of free nodes); PBS holds the
    // resources the job's chunks take.
    let whole_windows = matches!(options.policy, Policy::Slurm(_));
    let mut t = now;
    let mut first = true;
    let mut cycles = 0;
    let mut used = vec![0u64; r];
    loop {
        cycles += 1;
        // Ends up to t free their nodes.
        let done: Vec<Owner> = ends
            .iter()
            .filter(|(e, _)| *e <= t)
            .map(|(_, o)| *o)
            .collect();
        if !done.is_empty() {
            ends.retain(|(e, _)| *e > t);
            for allocs in nodes.allocs.iter_mut() {
                allocs.retain(|a| !done.contains(&a.owner));
            }
        }
        for allocs in nodes.allocs.iter_mut() {
            allocs.retain(|a| a.planned_end > t || !matches!(a.owner, Owner::Resv(_)));
        }
        // What is free now over every node that takes jobs: a job asking more of a
        // resource cannot start this cycle, whatever its nodes (a quick no before placing).
        let mut free_now = vec![0u64; r];
        for n in (0..n_nodes).filter(|&n| nodes.usable[n]) {
            let (whole, _) = nodes.used(n, t, t + 1, &mut used);
            if !whole {
                let cap = &snap.nodes[n].available;
                for i in 0..r {
                    free_now[i] += cap.get(i).copied().unwrap_or(0).saturating_sub(used[i]);
                }
            }
        }
        let mut planned = 0usize;
        let mut held_up: Option<usize> = None;
        let mut still: Vec<usize> = Vec::new();
        for &k in &waiting {
            let j = order[k];
            let job = &snap.pending[j];
            let w = walltime(j);
            if let Some(b) = held_up {
                if first {
                    out[k].blocked = Blocked::Order {
                        behind: snap.pending[order[b]].id.clone(),
                    };
                }
                still.push(k);
                continue;
            }
            let may = (0..r).all(|i| job.ask.total(i) <= free_now[i]);
            if may
                && let Some(placed) = place(&nodes, &eligible[k], &job.ask, t, t.saturating_add(w))
            {
                for (_, amounts) in &placed {
                    for i in 0..r {
                        free_now[i] = free_now[i].saturating_sub(amounts[i]);
                    }
                }
                let run = runtimes.run_time(job, w).clamp(1, w);
                let end = t.saturating_add(run);
                for (n, amounts) in &placed {
                    nodes.allocs[*n].push(Alloc {
                        start: t,
                        planned_end: t.saturating_add(w),
                        amounts: amounts.clone(),
                        whole: job.ask.place.sharing != Sharing::Shared,
                        owner: Owner::Started(k),
                    });
                }
                ends.push((end, Owner::Started(k)));
                out[k].start = Some(t);
                out[k].end = Some(end);
                out[k].nodes = placed
                    .iter()
                    .map(|(n, _)| snap.nodes[*n].name.clone())
                    .collect();
                continue;
            }
            if first {
                out[k].blocked = why_now(&nodes, &eligible[k], &job.ask, t, w, &mut used, &|k| {
                    snap.pending[order[k]].id.clone()
                });
            }
            still.push(k);
            if depth.is_none_or(|d| planned < d) {
                // Its earliest start on the plan: at an end or a window's close.
                let mut times: Vec<i64> = nodes
                    .allocs
                    .iter()
                    .flatten()
                    .map(|a| a.planned_end)
                    .filter(|&e| e > t && e <= horizon)
                    .collect();
                times.sort_unstable();
                times.dedup();
                let at = times.into_iter().find_map(|s| {
                    place(&nodes, &eligible[k], &job.ask, s, s.saturating_add(w)).map(|p| (s, p))
                });
                if let Some((s, placed)) = at
                    && window.is_none_or(|win| s < t.saturating_add(win))
                {
                    for (n, amounts) in placed {
                        nodes.allocs[n].push(Alloc {
                            start: s,
                            planned_end: s.saturating_add(w),
                            amounts,
                            whole: whole_windows || job.ask.place.sharing != Sharing::Shared,
                            owner: Owner::Plan(k),
                        });
                    }
                    if first {
                        out[k].planned_at = Some(s);
                    }
                }
                planned += 1;
            }
            if strict {
                held_up = Some(k);
            }
        }
        // The windows planned this cycle are replanned the next.
        for allocs in nodes.allocs.iter_mut() {
            allocs.retain(|a| !matches!(a.owner, Owner::Plan(_)));
        }
        waiting = still;
        first = false;
        if waiting.is_empty() {
            break;
        }
        // Next event: an end, a reservation's window opening or closing.
        let next = ends
            .iter()
            .map(|(e, _)| *e)
            .chain(
                snap.reservations
                    .iter()
                    .flat_map(|r| [r.start, r.end])
                    .filter(|&x| x > t),
            )
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
    }
}

/// Why a job that does not fit now waits: the window of a higher job or a reservation that
/// it would run into, else the resources it asks more of than is free.
fn why_now(
    nodes: &Nodes<'_>,
    eligible: &[usize],
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
    for &n in eligible {
        let (whole, _) = nodes.used(n, t, t + 1, used);
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
    let now_only = Nodes {
        snap,
        usable: nodes.usable.clone(),
        allocs: nodes
            .allocs
            .iter()
            .map(|v| v.iter().filter(|a| a.start <= t).cloned().collect())
            .collect(),
    };
    if place(&now_only, eligible, ask, t, t + 1).is_some() {
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
        nodes_eligible: eligible.len(),
    }
}

/// Why the job's eligible nodes cannot hold it even with nothing running, `None` when they can.
fn never_fits(snap: &Snapshot, eligible: &[usize], ask: &Ask) -> Option<String> {
    if eligible.is_empty() {
        return Some("no node that takes jobs serves its queue or partition".into());
    }
    let empty = Nodes {
        snap,
        usable: vec![true; snap.nodes.len()],
        allocs: vec![Vec::new(); snap.nodes.len()],
    };
    if place(&empty, eligible, ask, 0, 1).is_some() {
        return None;
    }
    let r = snap.resources.len();
    for i in 0..r {
        let asked = ask.total(i);
        let all: u64 = eligible
            .iter()
            .map(|&n| snap.nodes[n].available.get(i).copied().unwrap_or(0))
            .sum();
        if asked > all {
            return Some(format!(
                "it asks {asked} {} and its {} eligible nodes have {all} in all",
                snap.resources[i],
                eligible.len()
            ));
        }
    }
    for (_, a) in &ask.parts {
        if let Some(i) = (0..r).find(|&i| {
            let most = eligible
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
        eligible.len(),
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
        plan(s, &[0, 1, 2], NOW, &options, rt)
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
        let p = plan(&s, &[0, 1], NOW, &PlanOptions::default(), &FullWalltime);
        assert_eq!(p.jobs[1].start, Some(NOW));
    }

    // A down node takes nothing; an advance reservation's window blocks what would run into it.
    #[test]
    fn down_nodes_and_advance_reservations_hold_their_nodes() {
        let mut s = site();
        s.nodes[1].state = NodeState::Down;
        s.running.pop();
        s.pending = vec![waiting("D", 4, 3600)];
        let p = plan(&s, &[0], NOW, &PlanOptions::default(), &FullWalltime);
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
        let p = plan(&s, &[0], NOW, &PlanOptions::default(), &FullWalltime);
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
}
