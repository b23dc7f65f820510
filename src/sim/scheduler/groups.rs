//! Head groups: queued jobs that share every formula input but `eligible_time`, each a FIFO
//! in submit order, and the inputs each group's jobs share (the data of the strict head path
//! in `heads.rs`).

use crate::formula::monotone::{self, InputKind};
use crate::sim::inputs::Source;
use crate::sim::priority::Priority;
use crate::workload::SimJob;

/// What the jobs of one head group share: the share-tree node, and every input that does not
/// change while a job waits (`statics[g * inputs + k]` for input `k`; `eligible_time` and the
/// fairshare keywords are not stored).
#[derive(Debug, Clone, Default)]
pub(super) struct GroupInputs {
    pub(super) leaf: Vec<u32>,
    pub(super) statics: Vec<f64>,
}

/// Groups for strict ordering by heads, when the formula is monotone in `eligible_time`
/// (see the module docs): jobs sharing every other input (entity, resources) share a group.
pub(super) fn head_groups(
    jobs: &[SimJob],
    f: &dyn Priority,
    sources: &[Source],
    leaf: &[u32],
) -> Option<(Groups, GroupInputs)> {
    let ir = f.ir()?;
    // The longest any job can wait: from the first submit to the last, plus every run (one
    // pass; the runs summed in job order).
    let (mut first, mut last, mut runs) = (i64::MAX, i64::MIN, 0.0);
    for j in jobs {
        (first, last) = (first.min(j.submit), last.max(j.submit));
        runs += j.effective_run() as f64;
    }
    if jobs.is_empty() {
        (first, last) = (0, 0);
    }
    let span = (last - first) as f64 + runs;
    let fixed = |k: usize| -> (f64, f64) {
        let vals = jobs.iter().map(|j| sources[k].fixed(j).unwrap_or(0.0));
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
            s => {
                let (min, max) = s.constant().map_or_else(|| fixed(k), |c| (c, c));
                InputKind::Fixed { min, max }
            }
        })
        .collect();
    let analysis = monotone::analyze(ir, &kinds);
    if !analysis.monotone {
        return None;
    }
    // Without a share tree the fairshare keywords are 0 for every job: no grouping by entity.
    let uses_share = !leaf.is_empty() && sources.iter().any(Source::is_fairshare);
    let statics: Vec<usize> = (0..sources.len())
        .filter(|&k| {
            let s = &sources[k];
            !(*s == Source::EligibleTime || s.is_fairshare() || s.constant().is_some())
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
                    .map(|&k| sources[k].fixed(j).unwrap_or(0.0).to_bits()),
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
            inputs.statics[g * width + k] = src.fixed(job).unwrap_or(0.0);
        }
    }
    Some((groups, inputs))
}

/// Queued jobs in groups that share every formula input but `eligible_time`, each group a
/// FIFO in submit order (its head is the earliest-submitted queued job).
#[derive(Debug, Clone)]
pub struct Groups {
    pub(super) group_of: Vec<u32>,
    pub(super) fifo: Vec<std::collections::VecDeque<u32>>,
    /// Each non-empty group's head (`fifo[g][0]`, kept at hand).
    pub(super) head_of: Vec<u32>,
    pub(super) queued: Vec<bool>,
    /// Groups with queued jobs, and each group's position in that list.
    pub(super) nonempty: Vec<u32>,
    pub(super) slot: Vec<u32>,
    /// Evaluate each group's tail as well as its head every round (off when the formula
    /// provably never errs).
    pub check_tails: bool,
}

const ABSENT: u32 = u32::MAX;

impl Groups {
    /// `group_of[j]`: job `j`'s group, numbered from 0.
    pub fn new(group_of: Vec<u32>) -> Groups {
        let n = group_of.iter().map(|&g| g as usize + 1).max().unwrap_or(0);
        let jobs = group_of.len();
        Groups {
            group_of,
            fifo: vec![Default::default(); n],
            head_of: vec![ABSENT; n],
            queued: vec![false; jobs],
            nonempty: Vec::new(),
            slot: vec![ABSENT; n],
            check_tails: true,
        }
    }

    /// Group ids from per-job keys: jobs with equal keys share a group.
    pub fn from_keys<K: std::hash::Hash + Eq>(keys: impl Iterator<Item = K>) -> Groups {
        let mut ids: std::collections::HashMap<K, u32> = Default::default();
        let group_of = keys
            .map(|k| {
                let next = ids.len() as u32;
                *ids.entry(k).or_insert(next)
            })
            .collect();
        Groups::new(group_of)
    }

    /// Queue job `j` (jobs arrive in submit order).
    pub fn push(&mut self, j: u32) {
        let g = self.group_of[j as usize];
        self.queued[j as usize] = true;
        let q = &mut self.fifo[g as usize];
        q.push_back(j);
        if q.len() == 1 {
            self.head_of[g as usize] = j;
            self.slot[g as usize] = self.nonempty.len() as u32;
            self.nonempty.push(g);
        }
    }

    /// Job `j` left the queue (a no-op when it is not queued).
    pub fn remove(&mut self, j: u32) {
        if !std::mem::replace(&mut self.queued[j as usize], false) {
            return;
        }
        let g = self.group_of[j as usize];
        let q = &mut self.fifo[g as usize];
        if q.front() == Some(&j) {
            q.pop_front();
            self.head_of[g as usize] = q.front().copied().unwrap_or(ABSENT);
        } else if let Some(p) = q.iter().position(|&x| x == j) {
            q.remove(p);
        }
        if q.is_empty() {
            let s = std::mem::replace(&mut self.slot[g as usize], ABSENT) as usize;
            self.nonempty.swap_remove(s);
            if let Some(&moved) = self.nonempty.get(s) {
                self.slot[moved as usize] = s as u32;
            }
        }
    }

    /// Groups with queued jobs (in no particular order).
    pub fn nonempty(&self) -> &[u32] {
        &self.nonempty
    }

    /// The earliest-submitted queued job of a non-empty group.
    pub fn head(&self, g: u32) -> u32 {
        self.head_of[g as usize]
    }

    /// The latest-submitted queued job of a non-empty group.
    pub fn tail(&self, g: u32) -> u32 {
        let q = &self.fifo[g as usize];
        q[q.len() - 1]
    }

    /// Whether group `g` has queued jobs.
    pub fn is_queued(&self, g: u32) -> bool {
        self.slot[g as usize] != ABSENT
    }

    /// Number of groups.
    pub fn count(&self) -> usize {
        self.fifo.len()
    }

    /// Job `j`'s group.
    pub fn group_of(&self, j: u32) -> u32 {
        self.group_of[j as usize]
    }
}
