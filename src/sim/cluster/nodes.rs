//! Placement of PBS-style chunk requests on nodes that carry several resources.
//!
//! The cores-only structure of [`super::Cluster`] with the free-core value replaced by a
//! vector: a *run* is a range of consecutive nodes of one type with equal free vectors
//! (runs never join across types, and adjacent runs differ), and the *groups* count the
//! nodes of each `(type, free vector)`. An idle machine is one run per node type.
//!
//! A free vector has one coordinate before the machine's resources: whether the node is
//! *open* (1) or held by an exclusive job (0). Every chunk needs an open node and does not
//! consume the flag; an exclusive job takes the whole node, the flag with it.
//!
//! Placement is PBS's chunk placement (`[OPBS] src/scheduler/node_info.cpp`,
//! `eval_selspec` / `eval_simple_selspec`; `doc/man1/qsub.1B` for `place`) on one vnode per
//! host, first fit in node order, each `+` part of the select in its order:
//! - `free`: each node in turn takes as many of the part's chunks as its free amounts hold
//!   (`check_avail_resources` counts the chunks a vnode fits), so chunks stack;
//! - `pack`: the whole request on the first node that holds the sum of its chunks;
//! - `scatter` / `vscatter`: at most one chunk per node, and no node twice for one job (a
//!   host is one vnode here, so the two are the same);
//! - `excl` / `exclhost`: only nodes with nothing running, taken whole (nothing else runs
//!   there until the job ends); `shared` (PBS's default, with `free`): nodes may be shared.
//!
//! A node fits a chunk when its free amounts cover the chunk's (`check_avail_resources`);
//! a resource the machine does not name is not in the chunk (see [`super::machine`]).

use super::machine::Machine;
use super::runs::{Run, Runs};
use crate::workload::Select;
use std::collections::BTreeMap;

pub use crate::model::place::{Arrangement, Place, Sharing};

/// `count` chunks of `amounts` (in the machine's resource order).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Chunk {
    pub count: u32,
    pub amounts: Vec<u64>,
}

/// A job's request: its `select` parts in order and its `place`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Shape {
    pub chunks: Vec<Chunk>,
    pub place: Place,
}

impl Shape {
    /// A request's shape on `machine`: resources the machine does not name are left out
    /// (not scheduled).
    pub fn on(machine: &Machine, select: &Select) -> Shape {
        let chunks = select
            .parts
            .iter()
            .map(|p| {
                let mut amounts = vec![0u64; machine.names().len()];
                for (r, v) in &p.resources {
                    if let Some(i) = machine.index(r) {
                        amounts[i] = amounts[i].saturating_add(*v);
                    }
                }
                Chunk {
                    count: p.count,
                    amounts,
                }
            })
            .collect();
        Shape {
            chunks,
            place: select.place,
        }
    }
}

/// Consecutive nodes `first .. first + count` that each hold `held` (the open flag first,
/// then the machine's resources).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held {
    pub first: u32,
    pub count: u32,
    pub held: Box<[u64]>,
}

/// What a running job holds, as node ranges in node order (no node twice).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodesAllocation {
    ranges: Vec<Held>,
}

impl NodesAllocation {
    /// The ranges, in node order.
    pub fn ranges(&self) -> &[Held] {
        &self.ranges
    }

    /// `(node, amounts of the machine's resources)` for every node held, in node order.
    pub fn parts(&self) -> impl Iterator<Item = (u32, &[u64])> + '_ {
        self.ranges
            .iter()
            .flat_map(|r| (r.first..r.first + r.count).map(move |n| (n, &r.held[1..])))
    }

    /// Merge per-part ranges (which may overlap where chunks of two parts share a node)
    /// into node order, summing where they overlap.
    fn merged(parts: Vec<Held>, width: usize) -> NodesAllocation {
        if parts
            .windows(2)
            .all(|w| w[0].first + w[0].count <= w[1].first)
        {
            let mut ranges: Vec<Held> = Vec::with_capacity(parts.len());
            for r in parts {
                match ranges.last_mut() {
                    Some(l) if l.first + l.count == r.first && l.held == r.held => {
                        l.count += r.count
                    }
                    _ => ranges.push(r),
                }
            }
            return NodesAllocation { ranges };
        }
        let mut cuts: Vec<u32> = parts
            .iter()
            .flat_map(|r| [r.first, r.first + r.count])
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        let mut ranges: Vec<Held> = Vec::new();
        for w in cuts.windows(2) {
            let (a, b) = (w[0], w[1]);
            let mut held = vec![0; width].into_boxed_slice();
            let mut any = false;
            for r in parts
                .iter()
                .filter(|r| r.first <= a && r.first + r.count >= b)
            {
                any = true;
                for (h, x) in held.iter_mut().zip(&r.held) {
                    *h += x;
                }
            }
            if !any {
                continue;
            }
            match ranges.last_mut() {
                Some(last) if last.first + last.count == a && last.held == held => {
                    last.count += b - a
                }
                _ => ranges.push(Held {
                    first: a,
                    count: b - a,
                    held,
                }),
            }
        }
        NodesAllocation { ranges }
    }
}

/// A run's value: its nodes' type and their free amounts (the open flag first). Runs
/// never join across types; groups count the nodes of one type and vector.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Free {
    ty: u32,
    amounts: Box<[u64]>,
}

/// A multi-resource machine's free amounts per node: runs and groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nodes {
    /// Each type's capacity vector (the open flag, 1, first).
    capacity: Vec<Box<[u64]>>,
    /// Each type's first node, in node order, and the end of the last.
    starts: Vec<u32>,
    runs: Runs<Free>,
}

impl Nodes {
    /// An idle machine.
    pub fn idle(machine: &Machine) -> Nodes {
        let mut n = Nodes {
            capacity: Vec::new(),
            starts: Vec::new(),
            runs: Runs::new(),
        };
        let mut at = 0u32;
        for (ty, t) in machine.types().iter().enumerate() {
            let cap: Box<[u64]> = std::iter::once(1)
                .chain(t.amounts.iter().copied())
                .collect();
            n.starts.push(at);
            let free = Free {
                ty: ty as u32,
                amounts: cap.clone(),
            };
            n.runs.push(at, t.count, free);
            n.capacity.push(cap);
            at += t.count;
        }
        n.starts.push(at);
        n
    }

    /// Nodes in all.
    pub fn len(&self) -> u32 {
        self.starts.last().copied().unwrap_or(0)
    }

    /// Whether the machine has no nodes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The free amounts of the machine's resources per node, as `(nodes, free)` runs in
    /// node order (a node held exclusively reads as all zero).
    pub fn free_runs(&self) -> FreeRunsIter<'_> {
        FreeRunsIter(self.runs.runs.iter())
    }

    /// Whether what an allocation holds is free (so [`Nodes::take`] may take it).
    pub fn can_take(&self, a: &NodesAllocation) -> bool {
        self.check_take(a).is_ok()
    }

    /// [`Nodes::can_take`], with the first node at fault.
    pub fn check_take(&self, a: &NodesAllocation) -> Result<(), String> {
        for r in &a.ranges {
            let end = u64::from(r.first) + u64::from(r.count);
            if end > u64::from(self.len()) {
                return Err(format!("node {} does not exist", end - 1));
            }
            if let Some(n) = self.first_short(r.first, r.count, &r.held) {
                return Err(format!("node {n} over-allocated"));
            }
        }
        Ok(())
    }

    /// Keep, node by node and resource by resource, the smaller free amount of this and
    /// `other` (the same machine): what stays free through both.
    pub fn keep_min(&mut self, other: &Nodes) {
        for (&s, run) in &other.runs.runs {
            self.change(s, run.end - s, |f| {
                f.iter()
                    .zip(run.free.amounts.iter())
                    .map(|(a, b)| *a.min(b))
                    .collect()
            });
        }
    }

    /// Whether `shape` could ever run on the idle machine.
    pub fn can_ever_fit(&self, machine: &Machine, shape: &Shape) -> bool {
        Nodes::idle(machine).place(shape).is_some()
    }

    /// Whether `shape` fits now. A request of one part not packed on one node fits when
    /// the nodes can hold its chunks between them, at most `per_node` each: first fit
    /// ([`Nodes::place`]) takes chunks from every node that holds any until the part is
    /// placed, so that is a sum over the groups (the nodes of one free vector), O(groups)
    /// instead of O(runs). Other shapes are placed to find out.
    pub fn fits(&self, shape: &Shape) -> bool {
        let place = shape.place;
        match &shape.chunks[..] {
            [c] if place.arrangement != Arrangement::Pack => {
                let need = need_of(c);
                let per_node = per_node(place.arrangement);
                let only_idle = place.sharing.exclusive();
                let mut left = u64::from(c.count);
                for (free, &nodes) in &self.runs.groups {
                    if left == 0 {
                        break;
                    }
                    if only_idle && !self.is_idle(free) {
                        continue;
                    }
                    let k = chunks_fit(&free.amounts, &need).min(per_node);
                    left = left.saturating_sub(k.saturating_mul(nodes));
                }
                left == 0
            }
            _ => self.place(shape).is_some(),
        }
    }

    /// Where `shape` goes now (first fit in node order), without taking it; `None` when it
    /// does not fit. O(runs) per part; an exclusive request, or one of several parts, works
    /// on a copy of the runs.
    pub fn place(&self, shape: &Shape) -> Option<NodesAllocation> {
        if shape.chunks.is_empty() {
            return Some(NodesAllocation::default());
        }
        let arrangement = shape.place.arrangement;
        if !shape.place.sharing.exclusive() {
            return self.place_shared(&shape.chunks, arrangement, false);
        }
        // Exclusive: first fit over the nodes with nothing running, then each node chosen is
        // held whole. One part (or one packed node) passes over the busy nodes in place; the
        // parts of a longer request are placed on a copy with the busy nodes closed, where a
        // node an earlier part took stays open to the later ones.
        let a = if shape.chunks.len() == 1 || arrangement == Arrangement::Pack {
            self.place_shared(&shape.chunks, arrangement, true)?
        } else {
            let mut idle = self.clone();
            let busy: Vec<(u32, u32)> = self
                .runs
                .runs
                .iter()
                .filter(|(_, r)| !self.is_idle(&r.free))
                .map(|(&s, r)| (s, r.end - s))
                .collect();
            for (first, count) in busy {
                idle.change(first, count, |f| {
                    std::iter::once(0).chain(f[1..].iter().copied()).collect()
                });
            }
            idle.place_shared(&shape.chunks, arrangement, false)?
        };
        let mut ranges: Vec<Held> = Vec::with_capacity(a.ranges.len());
        for r in a.ranges {
            let mut first = r.first;
            let end = r.first + r.count;
            while first < end {
                let ty = self.starts.partition_point(|&s| s <= first) - 1;
                let stop = end.min(self.starts[ty + 1]);
                let held = self.capacity[ty].clone();
                match ranges.last_mut() {
                    Some(l) if l.first + l.count == first && l.held == held => {
                        l.count += stop - first
                    }
                    _ => ranges.push(Held {
                        first,
                        count: stop - first,
                        held,
                    }),
                }
                first = stop;
            }
        }
        Some(NodesAllocation { ranges })
    }

    /// Whether a run's nodes have nothing running (every resource free).
    fn is_idle(&self, free: &Free) -> bool {
        free.amounts == self.capacity[free.ty as usize]
    }

    /// First fit of shared chunks (`chunks` not empty), with `only_idle` on the nodes with
    /// nothing running alone (one part, or packed: the parts of a longer request would see
    /// the nodes the earlier parts took as busy).
    fn place_shared(
        &self,
        chunks: &[Chunk],
        arrangement: Arrangement,
        only_idle: bool,
    ) -> Option<NodesAllocation> {
        debug_assert!(!only_idle || chunks.len() == 1 || arrangement == Arrangement::Pack);
        let width = self.capacity.first().map_or(1, |c| c.len());
        let need = need_of;
        if arrangement == Arrangement::Pack {
            let mut sum = vec![0u64; width - 1];
            for c in chunks {
                for (s, a) in sum.iter_mut().zip(&c.amounts) {
                    *s = s.saturating_add(a.saturating_mul(u64::from(c.count)));
                }
            }
            let one = Chunk {
                count: 1,
                amounts: sum,
            };
            let part = self.place_part(&one, &need(&one), 1, only_idle)?;
            return Some(NodesAllocation::merged(part, width));
        }
        let per_node = per_node(arrangement);
        if let [c] = chunks {
            let part = self.place_part(c, &need(c), per_node, only_idle)?;
            return Some(NodesAllocation::merged(part, width));
        }
        // Later parts see what earlier ones took; under scatter a node used once is closed
        // to the job's other parts (its open flag taken on the copy only).
        let mut scratch = self.clone();
        let mut all = Vec::new();
        for c in chunks {
            let part = scratch.place_part(c, &need(c), per_node, false)?;
            for h in &part {
                let mut held = h.held.clone();
                if per_node == 1 {
                    held[0] = 1;
                }
                scratch.change(h.first, h.count, |f| sub(f, &held));
            }
            all.extend(part);
        }
        Some(NodesAllocation::merged(all, width))
    }

    /// First fit of one part: `c.count` chunks of `need` (open flag first), at most
    /// `per_node` on a node, with `only_idle` on nodes with nothing running alone.
    fn place_part(
        &self,
        c: &Chunk,
        need: &[u64],
        per_node: u64,
        only_idle: bool,
    ) -> Option<Vec<Held>> {
        let mut left = u64::from(c.count);
        let mut out = Vec::new();
        for (&s, run) in &self.runs.runs {
            if left == 0 {
                break;
            }
            if only_idle && !self.is_idle(&run.free) {
                continue;
            }
            let k = chunks_fit(&run.free.amounts, need).min(per_node);
            if k == 0 {
                continue;
            }
            let len = u64::from(run.end - s);
            let whole = (left / k).min(len) as u32;
            let held = |chunks: u64| -> Box<[u64]> {
                std::iter::once(0)
                    .chain(need[1..].iter().map(|a| a.saturating_mul(chunks)))
                    .collect()
            };
            if whole > 0 {
                out.push(Held {
                    first: s,
                    count: whole,
                    held: held(k),
                });
                left -= u64::from(whole) * k;
            }
            if u64::from(whole) < len && left > 0 {
                // Fewer than a node's chunks left: part of the next node.
                out.push(Held {
                    first: s + whole,
                    count: 1,
                    held: held(left),
                });
                left = 0;
            }
        }
        (left == 0).then_some(out)
    }

    /// Place `shape` and take it; `None` if it does not fit.
    pub fn allocate(&mut self, shape: &Shape) -> Option<NodesAllocation> {
        let a = self.place(shape)?;
        self.take(&a);
        Some(a)
    }

    /// Take what an allocation holds (it must be free).
    pub fn take(&mut self, a: &NodesAllocation) {
        for r in &a.ranges {
            self.change(r.first, r.count, |f| {
                debug_assert!(covers(f, &r.held), "a node of {r:?} over-allocated");
                sub(f, &r.held)
            });
        }
    }

    /// Give back what an allocation holds.
    pub fn release(&mut self, a: &NodesAllocation) {
        for r in &a.ranges {
            self.change(r.first, r.count, |f| {
                f.iter().zip(&r.held).map(|(x, h)| x + h).collect()
            });
            debug_assert!(
                self.first_over_capacity(r.first, r.count).is_none(),
                "a node of {r:?} released beyond its size"
            );
        }
    }

    /// Check the state against the allocations of the running jobs: every node's free
    /// amounts plus what the jobs hold there are its capacity (no resource of any node over-
    /// allocated, none lost), the runs are canonical (cover every node, one type each,
    /// adjacent runs differ) and the groups count the nodes of each free vector. The error
    /// names the first node or group at fault.
    pub fn check<'a>(
        &self,
        running: impl IntoIterator<Item = &'a NodesAllocation>,
    ) -> Result<(), String> {
        let mut recount = self.idle_like();
        for a in running {
            for r in &a.ranges {
                recount.check_take(&NodesAllocation {
                    ranges: vec![r.clone()],
                })?;
                recount.change(r.first, r.count, |f| sub(f, &r.held));
            }
        }
        let mut at = 0u32;
        let mut groups: BTreeMap<Free, u64> = BTreeMap::new();
        let mut prev: Option<&Run<Free>> = None;
        for (&s, run) in &self.runs.runs {
            if s != at || run.end <= s {
                return Err(format!("the runs do not cover node {at}"));
            }
            let ty = run.free.ty as usize;
            if s < self.starts[ty] || run.end > self.starts[ty + 1] {
                return Err(format!("the run from node {s} crosses a node type"));
            }
            if prev.is_some_and(|p| p.free == run.free) {
                return Err(format!("the run from node {s} equals the one before"));
            }
            *groups.entry(run.free.clone()).or_insert(0) += u64::from(run.end - s);
            prev = Some(run);
            at = run.end;
        }
        if at != self.len() {
            return Err(format!("the runs do not cover node {at}"));
        }
        if groups != self.runs.groups {
            return Err("the groups disagree with a recount of the nodes".into());
        }
        if recount.runs.runs != self.runs.runs {
            let n = self
                .runs
                .runs
                .iter()
                .zip(&recount.runs.runs)
                .find(|(a, b)| a != b)
                .map_or(0, |((&s, _), (&t, _))| s.min(t));
            return Err(format!(
                "free amounts disagree with the running jobs' allocations from node {n}"
            ));
        }
        Ok(())
    }

    fn idle_like(&self) -> Nodes {
        let mut n = Nodes {
            capacity: self.capacity.clone(),
            starts: self.starts.clone(),
            runs: Runs::new(),
        };
        for (ty, w) in self.starts.windows(2).enumerate() {
            let free = Free {
                ty: ty as u32,
                amounts: self.capacity[ty].clone(),
            };
            n.runs.push(w[0], w[1] - w[0], free);
        }
        n
    }

    /// The first node of `first .. first + count` whose free amounts do not cover `held`.
    fn first_short(&self, first: u32, count: u32, held: &[u64]) -> Option<u32> {
        self.runs
            .overlapping(first, count)
            .find(|(_, r)| !covers(&r.free.amounts, held))
            .map(|(s, _)| s.max(first))
    }

    /// The first node of `first .. first + count` with more free than its capacity.
    fn first_over_capacity(&self, first: u32, count: u32) -> Option<u32> {
        self.runs
            .overlapping(first, count)
            .find(|(_, r)| !covers(&self.capacity[r.free.ty as usize], &r.free.amounts))
            .map(|(s, _)| s.max(first))
    }

    /// Set the free amounts of every node in `first .. first + count` to `new(old)`.
    fn change(&mut self, first: u32, count: u32, new: impl Fn(&[u64]) -> Box<[u64]>) {
        self.runs.change(first, count, |f| Free {
            ty: f.ty,
            amounts: new(&f.amounts),
        });
    }
}

/// [`Nodes::free_runs`]: `(nodes, free amounts)` in node order.
pub struct FreeRunsIter<'a>(std::collections::btree_map::Iter<'a, u32, Run<Free>>);

impl<'a> Iterator for FreeRunsIter<'a> {
    type Item = (u32, &'a [u64]);

    fn next(&mut self) -> Option<Self::Item> {
        self.0
            .next()
            .map(|(&s, r)| (r.end - s, &r.free.amounts[1..]))
    }
}

/// How many chunks of `need` a node with `free` holds (the open flag must be set; it is not
/// consumed). `u64::MAX` for a chunk that needs nothing.
/// What one chunk takes of a node: its open flag, then its amounts.
fn need_of(c: &Chunk) -> Box<[u64]> {
    std::iter::once(1)
        .chain(c.amounts.iter().copied())
        .collect()
}

/// How many chunks of a part a node may hold under `arrangement` (scatter: one).
fn per_node(arrangement: Arrangement) -> u64 {
    match arrangement {
        Arrangement::Scatter | Arrangement::VScatter => 1,
        Arrangement::Free | Arrangement::Pack => u64::MAX,
    }
}

fn chunks_fit(free: &[u64], need: &[u64]) -> u64 {
    if free[0] < need[0] {
        return 0;
    }
    free[1..]
        .iter()
        .zip(&need[1..])
        .filter(|(_, n)| **n > 0)
        .map(|(f, n)| f / n)
        .min()
        .unwrap_or(u64::MAX)
}

fn covers(free: &[u64], held: &[u64]) -> bool {
    free.iter().zip(held).all(|(f, h)| f >= h)
}

fn sub(free: &[u64], held: &[u64]) -> Box<[u64]> {
    free.iter()
        .zip(held)
        .map(|(f, h)| f.saturating_sub(*h))
        .collect()
}

#[cfg(test)]
mod tests;
