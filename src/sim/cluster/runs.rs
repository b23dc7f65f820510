//! Runs of consecutive nodes with equal free values, and the groups (how many nodes hold
//! each value): what the cores-only cluster keeps with a `u32` of free cores and the
//! multi-resource nodes with a node type and a vector of free amounts.

use std::collections::BTreeMap;

/// First node of each run → the run; the runs cover every node, adjacent runs differ; and
/// free value → nodes with it (no empty group kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Runs<V> {
    pub(super) runs: BTreeMap<u32, Run<V>>,
    pub(super) groups: BTreeMap<V, u64>,
}

/// Nodes from the run's key up to `end` (exclusive), each with `free`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Run<V> {
    pub(super) end: u32,
    pub(super) free: V,
}

impl<V: Ord + Clone> Runs<V> {
    pub(super) fn new() -> Runs<V> {
        Runs {
            runs: BTreeMap::new(),
            groups: BTreeMap::new(),
        }
    }

    /// Add `count` nodes from `first`, each with `free`, after the last run (no-op for
    /// none). The caller keeps adjacent runs different.
    pub(super) fn push(&mut self, first: u32, count: u32, free: V) {
        if count == 0 {
            return;
        }
        *self.groups.entry(free.clone()).or_insert(0) += u64::from(count);
        self.runs.insert(
            first,
            Run {
                end: first + count,
                free,
            },
        );
    }

    /// The runs that overlap `first .. first + count`, with their first nodes.
    pub(super) fn overlapping(
        &self,
        first: u32,
        count: u32,
    ) -> impl Iterator<Item = (u32, &Run<V>)> + '_ {
        let end = first + count;
        let from = self
            .runs
            .range(..=first)
            .next_back()
            .map_or(first, |(&s, _)| s);
        self.runs
            .range(from..end)
            .filter(move |(_, r)| r.end > first)
            .map(|(&s, r)| (s, r))
    }

    /// Set the free value of every node in `first .. first + count` to `new(old)`, keeping
    /// the runs canonical and the groups in step.
    pub(super) fn change(&mut self, first: u32, count: u32, new: impl Fn(&V) -> V) {
        if count == 0 {
            return;
        }
        let end = first + count;
        self.split_at(first);
        self.split_at(end);
        for (&s, run) in self.runs.range_mut(first..end) {
            let len = u64::from(run.end - s);
            let to = new(&run.free);
            let old = std::mem::replace(&mut run.free, to);
            if let Some(n) = self.groups.get_mut(&old) {
                *n -= len;
                if *n == 0 {
                    self.groups.remove(&old);
                }
            }
            *self.groups.entry(run.free.clone()).or_insert(0) += len;
        }
        // Merge equal neighbours, from the run before `first` to the one at `end`.
        let mut at = self
            .runs
            .range(..first)
            .next_back()
            .map_or(first, |(&s, _)| s);
        while let Some(run) = self.runs.get(&at) {
            let next = run.end;
            match self.runs.get(&next).map(|r| r.free == run.free) {
                Some(true) => {
                    let joined = self.runs.remove(&next).map_or(next, |r| r.end);
                    if let Some(run) = self.runs.get_mut(&at) {
                        run.end = joined;
                    }
                }
                Some(false) if next < end => at = next,
                _ => break,
            }
        }
    }

    /// Make `node` the first node of a run (a no-op at a run's start or past the end).
    fn split_at(&mut self, node: u32) {
        let Some((&s, run)) = self.runs.range_mut(..=node).next_back() else {
            return;
        };
        if s == node || run.end <= node {
            return;
        }
        let tail = Run {
            end: run.end,
            free: run.free.clone(),
        };
        run.end = node;
        self.runs.insert(node, tail);
    }
}
