//! The simulated machine: `nodes × cores`, free cores, first-fit placement.
//!
//! Placement is deterministic: [`Request::Procs`] takes free cores from the lowest-numbered
//! nodes first (a job may span nodes); [`Request::Nodes`] takes the lowest-numbered nodes
//! that each have the cores free.
//!
//! # What is kept, and what it costs
//!
//! Nothing here grows with the number of nodes or cores; state and work grow with the
//! running jobs' allocations. A cluster is kept in one of two ways:
//!
//! - **by count** ([`Cluster::counted`]): the free cores in all, nothing per node. Exact when
//!   no decision depends on which nodes a job holds ([`Cluster::counts_suffice`]): a `procs`
//!   request fits when its cores are free, and so does a request for nodes of one core each
//!   (`k` such nodes are free when `k` cores are). Checks and placement are O(1).
//! - **by node** ([`Cluster::new`]): the nodes as *runs* of consecutive nodes with the same
//!   free cores (a run is a range of node ids; adjacent runs differ), and the *groups*: how
//!   many nodes have each free-core value. An idle cluster is one run and one group, however
//!   many nodes it has; a running allocation adds at most two runs per range it holds. A
//!   `procs` request fits when its cores are free (O(1)); a request for `k` nodes of `c`
//!   cores fits when the groups of `c` or more free cores hold `k` nodes (O(groups)).
//!   Placement walks the runs in node order and takes whole ranges: O(ranges taken) for
//!   `procs` (a busy run lies between two runs with free cores, so skipping them costs no
//!   more), O(runs visited) for a `nodes` request, which also passes the runs whose nodes
//!   have too few cores free. Taking and giving back cost O(log runs) per range.
//!
//! Why runs and not only the groups: first fit in node order is not a function of how many
//! nodes have each free-core value. Free cores `[2, 4]` and `[4, 2]` have the same counts, but
//! 3 processors first fit leave `[0, 3]` and `[1, 2]`, and only the first then fits a
//! 3-core node request. The groups answer "does it fit"; the runs say where it goes.
//!
//! For nodes that carry more than cores (memory, GPUs, custom resources; node types of
//! different sizes), [`machine`] describes the machine and [`nodes`] places PBS
//! chunk requests on it with the same structure: the free-core value becomes a vector of
//! free amounts, a run is a range of nodes of one type with equal free vectors, and a group
//! counts the nodes of one `(type, free vector)`.

pub use crate::model::machine;
pub mod nodes;
mod runs;

pub use crate::model::machine::{Machine, MachineError, NodeType};
pub use nodes::{Arrangement, Chunk, Nodes, NodesAllocation, Place, Shape, Sharing};

use crate::workload::Request;
use runs::{Run, Runs};
use std::sync::Arc;

/// Consecutive nodes `first .. first + count` that each hold (or have free) `cores` cores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeRange {
    pub first: u32,
    pub count: u32,
    pub cores: u32,
}

/// What a running job holds: its cores, and where they are (ranges of nodes in node order)
/// when the cluster is kept by node. A cluster kept by count places no job on a node.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Allocation {
    cores: u64,
    ranges: Vec<NodeRange>,
    /// Every resource held, on a multi-resource cluster.
    held: Option<NodesAllocation>,
}

impl Allocation {
    /// Total cores held.
    pub fn cores(&self) -> u64 {
        self.cores
    }

    /// The node ranges, in node order (none when placed by count).
    pub fn ranges(&self) -> &[NodeRange] {
        &self.ranges
    }

    /// `(node, cores)` for every node held, in node order.
    pub fn parts(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.ranges
            .iter()
            .flat_map(|r| (r.first..r.first + r.count).map(move |n| (n, r.cores)))
    }

    /// Every resource held per node, on a multi-resource cluster.
    pub fn held(&self) -> Option<&NodesAllocation> {
        self.held.as_ref()
    }

    /// The allocation of a multi-resource cluster: its cores per node as ranges.
    fn of_nodes(held: NodesAllocation) -> Allocation {
        let mut a = Allocation::default();
        for r in held.ranges() {
            // The cores are the machine's first resource, after the open flag.
            let cores = u32::try_from(r.held[1]).unwrap_or(u32::MAX);
            a.push(r.first, r.count, cores);
        }
        a.held = Some(held);
        a
    }

    /// The node indices.
    pub fn nodes(&self) -> Vec<u32> {
        self.parts().map(|(n, _)| n).collect()
    }

    /// Append `count` nodes from `first` with `cores` each.
    fn push(&mut self, first: u32, count: u32, cores: u32) {
        self.ranges.push(NodeRange {
            first,
            count,
            cores,
        });
        self.cores += u64::from(count) * u64::from(cores);
    }
}

/// The free cores of a cluster: in all, and per node when decisions or a recording read them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    pub nodes: u32,
    /// Cores per node (the largest node's on a multi-resource cluster).
    pub cores_per_node: u32,
    /// Cores in all (a multi-resource machine's sum over its node types, which may be less
    /// than `nodes × cores_per_node`), kept by a copy kept by count.
    capacity: u64,
    free_total: u64,
    /// Free cores per node, as runs and groups; `None` when kept by count.
    layout: Option<Layout>,
    /// A multi-resource machine's nodes: every request is placed there (`layout` is then
    /// `None`).
    multi: Option<Box<Multi>>,
}

/// The nodes of a multi-resource cluster and the machine they come from.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Multi {
    machine: Arc<Machine>,
    nodes: Nodes,
}

impl Multi {
    /// A request as chunks on this machine: `procs` are that many 1-core chunks placed
    /// freely (first fit takes each node's free cores in turn, as a cores-only cluster
    /// does), `k` nodes of `c` cores are `k` chunks of `c` cores scattered (one per node).
    fn shape(&self, r: &Request) -> Shape {
        let width = self.machine.names().len();
        let cores = |count: u32, c: u32, arrangement| {
            let mut amounts = vec![0; width];
            amounts[0] = u64::from(c);
            Shape {
                chunks: vec![Chunk { count, amounts }],
                place: Place {
                    arrangement,
                    sharing: Sharing::Shared,
                },
            }
        };
        match r {
            Request::Procs(p) => cores(*p, 1, Arrangement::Free),
            Request::Nodes { nodes, cores: c } => cores(*nodes, *c, Arrangement::Scatter),
            Request::Select(s) => Shape::on(&self.machine, s),
        }
    }
}

impl Cluster {
    /// An idle cluster kept by node: every placement says which nodes it takes.
    pub fn new(nodes: u32, cores_per_node: u32) -> Cluster {
        Cluster {
            layout: Some(Layout::idle(nodes, cores_per_node)),
            ..Cluster::counted(nodes, cores_per_node)
        }
    }

    /// An idle multi-resource cluster: every request is placed on `machine`'s nodes, each
    /// of its resources checked ([`nodes`]).
    pub fn on_machine(machine: Arc<Machine>) -> Cluster {
        let most = machine
            .types()
            .iter()
            .map(|t| t.amounts[0])
            .max()
            .unwrap_or(0);
        Cluster {
            nodes: machine.nodes(),
            cores_per_node: u32::try_from(most).unwrap_or(u32::MAX),
            capacity: machine.total(0),
            free_total: machine.total(0),
            layout: None,
            multi: Some(Box::new(Multi {
                nodes: Nodes::idle(&machine),
                machine,
            })),
        }
    }

    /// The machine of a multi-resource cluster.
    pub fn machine(&self) -> Option<&Arc<Machine>> {
        self.multi.as_ref().map(|m| &m.machine)
    }

    /// Check the nodes against the running jobs' allocations ([`Nodes::check`]): no
    /// resource of any node over-allocated and the runs and groups as a recount gives them.
    /// A cluster that is not multi-resource has nothing more to check.
    pub fn check<'a>(
        &self,
        running: impl IntoIterator<Item = &'a Allocation>,
    ) -> Result<(), String> {
        match &self.multi {
            Some(m) => m
                .nodes
                .check(running.into_iter().filter_map(|a| a.held.as_ref())),
            None => Ok(()),
        }
    }

    /// An idle cluster kept by count: exact only where [`Cluster::counts_suffice`] says so.
    pub fn counted(nodes: u32, cores_per_node: u32) -> Cluster {
        Cluster {
            nodes,
            cores_per_node,
            capacity: u64::from(nodes) * u64::from(cores_per_node),
            free_total: u64::from(nodes) * u64::from(cores_per_node),
            layout: None,
            multi: None,
        }
    }

    /// Whether a cluster kept by count decides every request as a cluster kept by node does:
    /// every request is for processors (it fits when its cores are free), for nodes with no
    /// cores (they always fit), or the nodes have one core each (`k` one-core nodes are free
    /// when `k` cores are).
    /// A request of chunks (`Select`) is never decided by counts.
    pub fn counts_suffice<'r>(
        cores_per_node: u32,
        requests: impl Iterator<Item = &'r Request>,
    ) -> bool {
        let mut one_core = true;
        for r in requests {
            match r {
                Request::Select(_) => return false,
                Request::Procs(_) | Request::Nodes { cores: 0, .. } => {}
                Request::Nodes { .. } => one_core = cores_per_node == 1,
            }
            if !one_core {
                return false;
            }
        }
        true
    }

    /// Whether placements say which nodes they take.
    pub fn by_node(&self) -> bool {
        self.layout.is_some() || self.multi.is_some()
    }

    /// The same free cores, kept by count.
    pub fn counted_copy(&self) -> Cluster {
        Cluster {
            nodes: self.nodes,
            cores_per_node: self.cores_per_node,
            capacity: self.capacity,
            free_total: self.free_total,
            layout: None,
            multi: None,
        }
    }

    /// An idle cluster of the same shape, kept by node: the same machine when
    /// multi-resource.
    pub fn idle_by_node(&self) -> Cluster {
        match &self.multi {
            Some(m) => Cluster::on_machine(m.machine.clone()),
            None => Cluster::new(self.nodes, self.cores_per_node),
        }
    }

    /// An idle cluster of the same shape, kept the same way.
    pub fn idle_like(&self) -> Cluster {
        if self.by_node() {
            self.idle_by_node()
        } else {
            // A counted copy of a machine of node types keeps the machine's cores.
            Cluster {
                free_total: self.capacity,
                ..self.counted_copy()
            }
        }
    }

    /// Total cores.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Free cores in all.
    pub fn free_total(&self) -> u64 {
        self.free_total
    }

    /// Free cores per node in node order, as `(nodes, free cores)` runs: `None` when kept by
    /// count.
    /// (On a multi-resource cluster: the free cores of its runs, which may repeat a value
    /// where another resource differs.)
    pub fn free_runs(&self) -> Option<FreeRuns<'_>> {
        if let Some(m) = &self.multi {
            return Some(FreeRuns(RunsOf::Nodes(m.nodes.free_runs())));
        }
        let l = self.layout.as_ref()?;
        Some(FreeRuns(RunsOf::Cores(l.runs.iter())))
    }

    /// Whether a request could ever run on an idle cluster of this shape.
    pub fn can_ever_fit(&self, r: &Request) -> bool {
        match self.ever_fits_by_count(r) {
            Some(fits) => fits,
            None => self.ever_fits_placed(r),
        }
    }

    /// [`can_ever_fit`](Self::can_ever_fit) where a count decides it, without a placement:
    /// cores or whole nodes on a cluster of cores alone. `None` for a request the idle
    /// machine must place (a multi-resource cluster's, or chunks).
    #[inline]
    pub fn ever_fits_by_count(&self, r: &Request) -> Option<bool> {
        if self.multi.is_some() {
            return None;
        }
        match *r {
            Request::Procs(p) => Some(u64::from(p) <= self.capacity()),
            Request::Nodes { nodes, cores } => {
                Some(nodes <= self.nodes && cores <= self.cores_per_node)
            }
            Request::Select(_) => None,
        }
    }

    /// [`can_ever_fit`](Self::can_ever_fit) by a placement on the idle machine.
    fn ever_fits_placed(&self, r: &Request) -> bool {
        match &self.multi {
            Some(m) => Nodes::idle(&m.machine).fits(&m.shape(r)),
            // A cluster of cores alone takes chunks as a cluster on its machine would.
            None => self.idle_on_machine().can_ever_fit(r),
        }
    }

    /// The same cluster, idle, as a multi-resource cluster of one node type with cores.
    fn idle_on_machine(&self) -> Cluster {
        Cluster::on_machine(Arc::new(Machine::uniform(self.nodes, self.cores_per_node)))
    }

    /// Whether `r` fits in the free cores now (on a multi-resource cluster: in every free
    /// resource, as placed).
    pub fn fits(&self, r: &Request) -> bool {
        if r.total_cores() > self.free_total {
            return false;
        }
        if let Some(m) = &self.multi {
            return m.nodes.fits(&m.shape(r));
        }
        match (r, &self.layout) {
            (Request::Procs(_), _) | (_, None) => true,
            (&Request::Nodes { nodes, cores }, Some(l)) => l.nodes_with(cores) >= u64::from(nodes),
            (Request::Select(_), Some(_)) => false,
        }
    }

    /// Whether a `false` from [`Cluster::fits`] for `r` stays `false` while resources are
    /// only taken, so that a round may remember it. On a multi-resource cluster, a request of
    /// one part (or packed on one node) is placed first fit node by node, which finds a place
    /// whenever one exists, and with less free there is none either; a request of several
    /// parts is placed part after part, and an earlier part's first fit can take what a later
    /// part needed where less free would have sent it elsewhere. Without per-resource nodes
    /// `fits` is a count and answers at once: nothing to remember.
    pub fn no_fit_lasts(&self, r: &Request) -> bool {
        // Read off the request (the parts its shape would have), not a shape built for it.
        self.multi.is_some()
            && match r {
                Request::Procs(_) | Request::Nodes { .. } => true,
                Request::Select(s) => {
                    s.parts.len() <= 1 || s.place.arrangement == Arrangement::Pack
                }
            }
    }

    /// Where `r` goes now (first fit), without taking it; `None` if it does not fit.
    pub fn place(&self, r: &Request) -> Option<Allocation> {
        if let Some(m) = &self.multi {
            if r.total_cores() > self.free_total {
                return None;
            }
            return m.nodes.place(&m.shape(r)).map(Allocation::of_nodes);
        }
        if !self.fits(r) {
            return None;
        }
        let Some(l) = &self.layout else {
            return Some(Allocation {
                cores: r.total_cores(),
                ranges: Vec::new(),
                held: None,
            });
        };
        let mut a = Allocation::default();
        match *r {
            // Not placed by a cluster of cores alone (`fits` says no).
            Request::Select(_) => return None,
            Request::Procs(p) => {
                let mut left = u64::from(p);
                for (&s, run) in &l.runs {
                    if left == 0 {
                        break;
                    }
                    if run.free == 0 {
                        continue;
                    }
                    let f = u64::from(run.free);
                    let len = run.end - s;
                    let whole = (left / f).min(u64::from(len)) as u32;
                    if whole > 0 {
                        a.push(s, whole, run.free);
                        left -= u64::from(whole) * f;
                    }
                    if whole < len && left > 0 {
                        // Less than a node's free cores left: part of the next node.
                        a.push(s + whole, 1, left as u32);
                        left = 0;
                    }
                }
            }
            // The lowest-numbered nodes, full ones too.
            Request::Nodes { nodes: 0, .. } => {}
            Request::Nodes { nodes, cores: 0 } => a.push(0, nodes, 0),
            Request::Nodes { nodes, cores } => {
                let mut left = nodes;
                for (&s, run) in &l.runs {
                    if left == 0 {
                        break;
                    }
                    if run.free >= cores {
                        let n = left.min(run.end - s);
                        a.push(s, n, cores);
                        left -= n;
                    }
                }
            }
        }
        Some(a)
    }

    /// Place `r` (first fit, as [`Cluster::place`]) and take its cores; `None` if it does
    /// not fit.
    pub fn allocate(&mut self, r: &Request) -> Option<Allocation> {
        let a = self.place(r)?;
        self.take(&a);
        Some(a)
    }

    /// Take the cores of an allocation (they must be free).
    pub fn take(&mut self, a: &Allocation) {
        debug_assert!(a.cores <= self.free_total, "cluster over-allocated");
        self.free_total = self.free_total.saturating_sub(a.cores);
        if let (Some(m), Some(h)) = (&mut self.multi, &a.held) {
            m.nodes.take(h);
        }
        if let Some(l) = &mut self.layout {
            for r in &a.ranges {
                l.change(r.first, r.count, |&f| {
                    debug_assert!(f >= r.cores, "a node of {r:?} over-allocated");
                    f.saturating_sub(r.cores)
                });
            }
        }
    }

    /// Whether the cores of an allocation are free (so [`Cluster::take`] may take them).
    pub fn can_take(&self, a: &Allocation) -> bool {
        if a.cores > self.free_total {
            return false;
        }
        if let (Some(m), Some(h)) = (&self.multi, &a.held) {
            return m.nodes.can_take(h);
        }
        match &self.layout {
            None => true,
            Some(l) => a
                .ranges
                .iter()
                .all(|r| l.first_below(r.first, r.count, r.cores).is_none()),
        }
    }

    /// Keep, node by node, the fewer free cores of this and `other` (a cluster of the same
    /// shape, kept the same way): what stays free through both.
    pub fn keep_min(&mut self, other: &Cluster) {
        self.free_total = self.free_total.min(other.free_total);
        if let (Some(m), Some(o)) = (&mut self.multi, &other.multi) {
            m.nodes.keep_min(&o.nodes);
            self.free_total = m.nodes.free_runs().map(|(n, f)| u64::from(n) * f[0]).sum();
        }
        if let (Some(l), Some(o)) = (&mut self.layout, &other.layout) {
            for (&s, run) in &o.runs {
                let f = run.free;
                l.change(s, run.end - s, |&x| x.min(f));
            }
            self.free_total = l
                .runs
                .iter()
                .map(|(&s, r)| u64::from(r.end - s) * u64::from(r.free))
                .sum();
        }
    }

    /// Give back the cores of an allocation.
    pub fn release(&mut self, a: &Allocation) {
        self.free_total += a.cores;
        debug_assert!(
            self.free_total <= self.capacity(),
            "released beyond capacity"
        );
        if let (Some(m), Some(h)) = (&mut self.multi, &a.held) {
            m.nodes.release(h);
        }
        if let Some(l) = &mut self.layout {
            let most = self.cores_per_node;
            for r in &a.ranges {
                l.change(r.first, r.count, |&f| {
                    debug_assert!(
                        f + r.cores <= most,
                        "a node of {r:?} released beyond its size"
                    );
                    f + r.cores
                });
            }
        }
    }

    /// Reset to idle and re-sum from the given allocations (the "account resources" step);
    /// returns an error naming the first node that does not exist or is over-allocated.
    pub fn reset_and_resum<'a>(
        &mut self,
        running: impl IntoIterator<Item = &'a Allocation>,
    ) -> Result<(), String> {
        *self = self.idle_like();
        for a in running {
            if a.cores > self.free_total {
                return Err("cluster over-allocated".into());
            }
            if let (Some(m), Some(h)) = (&self.multi, &a.held) {
                m.nodes.check_take(h)?;
            }
            if let Some(l) = &self.layout {
                for r in &a.ranges {
                    let end = u64::from(r.first) + u64::from(r.count);
                    if end > u64::from(self.nodes) {
                        return Err(format!("node {} does not exist", end - 1));
                    }
                    if let Some(n) = l.first_below(r.first, r.count, r.cores) {
                        return Err(format!("node {n} over-allocated"));
                    }
                }
            }
            self.take(a);
        }
        Ok(())
    }
}

/// [`Cluster::free_runs`]: `(nodes, free cores)` in node order.
pub struct FreeRuns<'a>(RunsOf<'a>);

enum RunsOf<'a> {
    Cores(std::collections::btree_map::Iter<'a, u32, Run<u32>>),
    Nodes(nodes::FreeRunsIter<'a>),
}

impl Iterator for FreeRuns<'_> {
    type Item = (u32, u32);

    fn next(&mut self) -> Option<(u32, u32)> {
        match &mut self.0 {
            RunsOf::Cores(it) => it.next().map(|(&s, r)| (r.end - s, r.free)),
            RunsOf::Nodes(it) => it
                .next()
                .map(|(n, f)| (n, u32::try_from(f[0]).unwrap_or(u32::MAX))),
        }
    }
}

/// Free cores per node: runs of consecutive nodes with equal free cores, and how many nodes
/// have each free-core value (the groups).
type Layout = Runs<u32>;

impl Runs<u32> {
    fn idle(nodes: u32, cores: u32) -> Layout {
        let mut l = Runs::new();
        l.push(0, nodes, cores);
        l
    }

    /// Nodes with at least `cores` free.
    fn nodes_with(&self, cores: u32) -> u64 {
        self.groups.range(cores..).map(|(_, &n)| n).sum()
    }

    /// The first node of `first .. first + count` with fewer than `cores` free.
    fn first_below(&self, first: u32, count: u32, cores: u32) -> Option<u32> {
        self.overlapping(first, count)
            .find(|(_, r)| r.free < cores)
            .map(|(s, _)| s.max(first))
    }
}

/// A multiset of job sizes (cores) up to a bound, with the smallest at hand: counts per size
/// and a bitset of the sizes present (the smallest is found by a word scan). Sizes above the
/// bound are counted at the bound.
#[derive(Debug, Clone, Default)]
pub struct SizeSet {
    counts: Vec<u32>,
    present: Vec<u64>,
    len: usize,
}

impl SizeSet {
    /// An empty set for sizes `0 ..= max`.
    pub fn new(max: u64) -> SizeSet {
        let n = max as usize + 1;
        SizeSet {
            counts: vec![0; n],
            present: vec![0; n.div_ceil(64)],
            len: 0,
        }
    }

    /// Add one job of `size` cores (sizes above the bound are counted at the bound).
    pub fn insert(&mut self, size: u64) {
        let s = (size as usize).min(self.counts.len() - 1);
        self.counts[s] += 1;
        self.present[s / 64] |= 1 << (s % 64);
        self.len += 1;
    }

    /// Remove one job of `size` cores (a no-op when there is none).
    pub fn remove(&mut self, size: u64) {
        let s = (size as usize).min(self.counts.len() - 1);
        if self.counts[s] == 0 {
            return;
        }
        self.counts[s] -= 1;
        self.len -= 1;
        if self.counts[s] == 0 {
            self.present[s / 64] &= !(1 << (s % 64));
        }
    }

    /// The smallest size present (sizes above the bound read as the bound, so this is then a
    /// lower bound of the true smallest size).
    pub fn min(&self) -> Option<u64> {
        if self.len == 0 {
            return None;
        }
        let (w, bits) = self.present.iter().enumerate().find(|(_, b)| **b != 0)?;
        Some((w * 64) as u64 + u64::from(bits.trailing_zeros()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// First fit by scanning every node: the definition the runs must equal.
    fn first_fit(free: &[u32], r: &Request) -> Option<Vec<(u32, u32)>> {
        let total: u64 = free.iter().map(|&f| u64::from(f)).sum();
        if r.total_cores() > total {
            return None;
        }
        let mut parts = Vec::new();
        match *r {
            Request::Select(_) => unreachable!("cores-only requests"),
            Request::Procs(p) => {
                let mut left = p;
                for (n, &f) in free.iter().enumerate() {
                    let c = f.min(left);
                    if c > 0 {
                        parts.push((n as u32, c));
                        left -= c;
                    }
                }
            }
            Request::Nodes { nodes, cores } => {
                for (n, &f) in free.iter().enumerate() {
                    if parts.len() as u32 == nodes {
                        break;
                    }
                    if f >= cores {
                        parts.push((n as u32, cores));
                    }
                }
                if (parts.len() as u32) < nodes {
                    return None;
                }
            }
        }
        Some(parts)
    }

    /// Free cores per node, expanded from the runs.
    fn per_node(c: &Cluster) -> Vec<u32> {
        let runs = c.free_runs().expect("kept by node");
        runs.flat_map(|(n, f)| std::iter::repeat_n(f, n as usize))
            .collect()
    }

    /// A 64-bit LCG's next value in `0 .. m` (the placement tests' random requests).
    pub(super) fn next_random(x: &mut u64, m: u64) -> u64 {
        *x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*x >> 33) % m
    }

    #[test]
    fn size_set_keeps_the_smallest() {
        let mut s = SizeSet::new(200);
        assert_eq!(s.min(), None);
        for x in [130, 7, 64, 7, 200] {
            s.insert(x);
        }
        assert_eq!(s.min(), Some(7));
        s.remove(7);
        assert_eq!(s.min(), Some(7));
        s.remove(7);
        assert_eq!(s.min(), Some(64));
        s.remove(64);
        s.remove(64); // not present: no-op
        assert_eq!(s.min(), Some(130));
        s.remove(130);
        s.remove(200);
        assert_eq!(s.min(), None);
        // Above the bound: counted at the bound.
        s.insert(5_000);
        assert_eq!(s.min(), Some(200));
        s.remove(5_000);
        assert_eq!(s.min(), None);
    }

    /// Placement on runs is first fit over every node, the groups count the nodes of each
    /// free-core value, the runs stay canonical, and a cluster kept by count agrees on every
    /// decision where counts suffice.
    #[test]
    fn runs_place_as_first_fit_over_every_node() {
        let mut x: u64 = 11;
        for (nodes, cores) in [(1, 1), (100, 1), (70, 3), (130, 4), (64, 2), (9, 8)] {
            let mut c = Cluster::new(nodes, cores);
            let mut counted = Cluster::counted(nodes, cores);
            // The same machine as one node type of cores: the multi-resource placement.
            let mut multi = Cluster::on_machine(Arc::new(Machine::uniform(nodes, cores)));
            let mut multi_held: Vec<Allocation> = Vec::new();
            let mut held: Vec<Allocation> = Vec::new();
            for _ in 0..3000 {
                if !held.is_empty() && next_random(&mut x, 3) == 0 {
                    let k = next_random(&mut x, held.len() as u64) as usize;
                    let a = held.swap_remove(k);
                    c.release(&a);
                    counted.release(&a);
                    multi.release(&multi_held.swap_remove(k));
                } else {
                    let r = if next_random(&mut x, 2) == 0 {
                        Request::Procs(next_random(&mut x, u64::from(nodes * cores) / 3 + 1) as u32)
                    } else {
                        Request::Nodes {
                            nodes: next_random(&mut x, u64::from(nodes) / 4 + 1) as u32,
                            cores: next_random(&mut x, u64::from(cores) + 1) as u32,
                        }
                    };
                    let expected = first_fit(&per_node(&c), &r);
                    if Cluster::counts_suffice(cores, std::iter::once(&r)) {
                        assert_eq!(counted.fits(&r), expected.is_some(), "{r:?}");
                    }
                    let got = c.allocate(&r);
                    let parts = got.as_ref().map(|a| a.parts().collect::<Vec<_>>());
                    assert_eq!(parts, expected, "{nodes}x{cores} {r:?}");
                    let on_machine = multi.allocate(&r);
                    assert_eq!(
                        on_machine.as_ref().map(|a| a.parts().collect::<Vec<_>>()),
                        expected,
                        "{nodes}x{cores} {r:?} as chunks"
                    );
                    multi_held.extend(on_machine);
                    if let Some(a) = got {
                        assert_eq!(a.cores(), r.total_cores());
                        counted.take(&a);
                        held.push(a);
                    }
                }
                let free = per_node(&c);
                assert_eq!(
                    c.free_total(),
                    free.iter().map(|&f| u64::from(f)).sum::<u64>()
                );
                assert_eq!(counted.free_total(), c.free_total());
                assert_eq!(multi.free_total(), c.free_total());
                multi.check(&multi_held).unwrap();
                let l = c.layout.as_ref().unwrap();
                for k in 0..=cores {
                    let n = free.iter().filter(|&&f| f == k).count() as u64;
                    assert_eq!(l.groups.get(&k).copied().unwrap_or(0), n, "group {k}");
                }
                let runs: Vec<_> = c.free_runs().unwrap().collect();
                assert!(runs.windows(2).all(|w| w[0].1 != w[1].1), "{runs:?}");
                let mut resummed = Cluster::new(nodes, cores);
                resummed.reset_and_resum(&held).unwrap();
                assert_eq!(resummed, c);
            }
        }
    }

    #[test]
    fn first_fit_spans_nodes_and_node_requests_need_whole_slots() {
        let mut c = Cluster::new(3, 4);
        let a = c.allocate(&Request::Procs(6)).unwrap();
        assert_eq!(a.parts().collect::<Vec<_>>(), vec![(0, 4), (1, 2)]);
        assert!(!c.fits(&Request::Nodes { nodes: 2, cores: 3 }));
        let b = c.allocate(&Request::Nodes { nodes: 1, cores: 2 }).unwrap();
        assert_eq!(b.nodes(), vec![1]);
        assert_eq!(c.free_total(), 4);
        c.release(&a);
        assert_eq!(per_node(&c), vec![4, 2, 4]);
        c.reset_and_resum([&b]).unwrap();
        assert_eq!(per_node(&c), vec![4, 2, 4]);
        assert!(c.reset_and_resum([&b, &b]).is_ok());
        assert_eq!(
            c.reset_and_resum([&b, &b, &b]),
            Err("node 1 over-allocated".into())
        );
        // Zero-core node requests take the lowest nodes, full ones too.
        let mut c = Cluster::new(3, 1);
        c.allocate(&Request::Procs(3)).unwrap();
        let z = c.allocate(&Request::Nodes { nodes: 2, cores: 0 }).unwrap();
        assert_eq!(z.parts().collect::<Vec<_>>(), vec![(0, 0), (1, 0)]);
    }

    /// The state does not grow with the nodes: a cluster of 2^32 − 1 nodes is a run, and a
    /// job on it a range, whatever its size.
    #[test]
    fn huge_clusters_cost_what_the_jobs_take() {
        let mut c = Cluster::new(u32::MAX, 1);
        let a = c.allocate(&Request::Procs(u32::MAX - 1)).unwrap();
        assert_eq!(a.ranges().len(), 1);
        let b = c.allocate(&Request::Nodes { nodes: 1, cores: 1 }).unwrap();
        assert_eq!(b.nodes(), vec![u32::MAX - 1]);
        assert!(!c.fits(&Request::Procs(1)));
        c.release(&a);
        assert_eq!(c.free_runs().unwrap().count(), 2);
        c.release(&b);
        assert_eq!(
            c.free_runs().unwrap().collect::<Vec<_>>(),
            vec![(u32::MAX, 1)]
        );
    }

    #[test]
    fn counts_suffice_when_no_decision_reads_a_node() {
        let procs = [Request::Procs(5), Request::Nodes { nodes: 3, cores: 0 }];
        assert!(Cluster::counts_suffice(8, procs.iter()));
        let nodes = [Request::Procs(5), Request::Nodes { nodes: 3, cores: 1 }];
        assert!(!Cluster::counts_suffice(8, nodes.iter()));
        assert!(Cluster::counts_suffice(1, nodes.iter()));
        // Chunks are placed on nodes, whatever their size.
        let chunks = [Request::Select(Arc::new(crate::workload::Select {
            parts: Vec::new(),
            place: Place::default(),
        }))];
        assert!(!Cluster::counts_suffice(1, chunks.iter()));
    }
}

#[cfg(test)]
mod no_fit_tests {
    use super::*;
    use crate::workload::parse_json_jobs;

    /// The requests of `selects`, as a job file would give them.
    fn requests(selects: &[&str]) -> Vec<Request> {
        let text: Vec<String> = selects
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let (select, place) = s.split_once(" place=").unwrap_or((s, "free"));
                format!(
                    r#"{{"id": "j{i}", "submit": 0, "run": 1, "select": "{select}", "place": "{place}"}}"#
                )
            })
            .collect();
        let w = parse_json_jobs(&format!("[{}]", text.join(",")), "j.json").unwrap();
        w.jobs.into_iter().map(|j| j.request).collect()
    }

    /// What a dispatch's memory of "does not fit" rests on: for a request of one part (or
    /// packed) a "no" stays a "no" however the free resources shrink; for one of several
    /// parts it need not, and it is not remembered. Random machine states, random takes.
    #[test]
    fn a_one_part_no_fit_lasts_while_resources_are_taken() {
        let m = Arc::new(
            Machine::parse(
                "count=6 ncpus=8 mem=32gb ngpus=0\ncount=2 ncpus=8 mem=64gb ngpus=2",
                "m",
            )
            .unwrap(),
        );
        let one = requests(&[
            "3:ncpus=4:mem=8gb",
            "1:ncpus=8:mem=40gb",
            "2:ncpus=2:ngpus=1",
            "5:ncpus=3:mem=10gb",
            "2:ncpus=8:mem=16gb place=excl",
            "4:ncpus=2:mem=4gb place=scatter",
            "3:ncpus=3:mem=6gb place=pack",
        ]);
        let several = requests(&["1:ncpus=6:mem=20gb+2:ncpus=4:ngpus=1"]);
        let c = Cluster::on_machine(m.clone());
        assert!(one.iter().all(|r| c.no_fit_lasts(r)));
        assert!(several.iter().all(|r| !c.no_fit_lasts(r)));
        assert!(!Cluster::new(4, 8).no_fit_lasts(&Request::Procs(3)));
        let fillers = requests(&[
            "1:ncpus=1:mem=2gb",
            "1:ncpus=3:mem=12gb",
            "1:ncpus=1:ngpus=1",
        ]);
        let mut x = 7u64;
        let (mut refusals, mut checked) = (0, 0);
        for _ in 0..300 {
            let mut c = Cluster::on_machine(m.clone());
            let mut no: Vec<&Request> = Vec::new();
            for _ in 0..40 {
                let f = &fillers[tests::next_random(&mut x, fillers.len() as u64) as usize];
                if c.allocate(f).is_none() {
                    continue;
                }
                for r in &no {
                    checked += 1;
                    assert!(!c.fits(r), "{r:?} fits after resources were taken");
                }
                for r in &one {
                    if !c.fits(r) && !no.contains(&r) {
                        refusals += 1;
                        no.push(r);
                    }
                }
            }
        }
        assert!(
            refusals > 100 && checked > 1000,
            "{refusals} refusals, {checked} checks"
        );
    }
}
