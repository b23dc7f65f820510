//! Strict ordering without evaluating the whole queue.
//!
//! Under `--policy strict` a round starts jobs only while the top-ranked job fits, so all it
//! needs is the top job, again and again. When the formula is *non-decreasing in
//! `eligible_time`* ([`crate::formula::monotone`]) and every other input is fixed per job (a
//! resource) or per entity (a fairshare keyword), the queued jobs fall into groups that share
//! every input but `eligible_time` (same entity, same resources). Within a group the
//! earliest-submitted job has the largest `eligible_time`, hence a value at least as large as
//! every later one, and it wins ties by submission order: so the top job of the whole queue is
//! the top among the group *heads*, and a round evaluates the heads (and tails, see below)
//! instead of every job.
//!
//! Each round evaluates both ends of every group (head: largest `eligible_time`; tail:
//! smallest); if either errs (a non-finite final value, a zero divisor, ...) the round falls
//! back to evaluating the whole queue. With both ends finite, no member in between errs (the
//! proof's conditions, in [`crate::formula::monotone`]); the tails are skipped when the
//! formula provably never errs.
//!
//! Debug and test builds check every round decided this way against the full ranking.

use super::evaluate::{run_kernel, zeroed};
use super::{Round, Simulator};
use crate::formula::monotone::{self, InputKind};
use crate::rank::JobKey;
use crate::sim::inputs::{self, FairshareKeyword, Source};
use crate::sim::priority::Priority;
use crate::sim::workload::SimJob;

impl<'a> Simulator<'a> {
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
                (Source::EligibleTime, _) => col.extend(
                    jobs.iter()
                        .map(|&j| inputs::eligible_time(t, hot[j as usize].submit)),
                ),
                (Source::Fairshare(FairshareKeyword::Perc), Some(s)) => {
                    col.extend(self.cand_leaves.iter().map(|&l| s.perc(l)))
                }
                (Source::Fairshare(FairshareKeyword::TreeUsage), Some(s)) => {
                    s.tree_usages_into(&self.cand_leaves, col)
                }
                (Source::Fairshare(FairshareKeyword::Factor), Some(s)) => {
                    s.factors_into(&self.cand_leaves, col)
                }
                (Source::Fairshare(_), None) => col.resize(n, 0.0),
                _ => col.extend(groups.iter().map(|&g| statics[g as usize * width + k])),
            }
        }
        run_kernel(f, &self.columns, values, errors);
    }

    /// Strict ordering from the group heads (see the module docs): evaluate the head and
    /// tail of every group, then start the best head while it fits. Returns `false`, having
    /// changed nothing, when an evaluation erred (the caller then ranks the whole queue).
    pub(super) fn dispatch_heads(&mut self, t: i64, round: &mut Round) -> bool {
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
        // One key per head in the job order (value descending, then submit order, which is
        // the job index); the least key is the top job.
        let mut keys = std::mem::take(&mut self.head_keys);
        keys.clear();
        if ok {
            keys.extend(
                cand[..heads]
                    .iter()
                    .zip(&values)
                    .map(|(&j, &v)| JobKey::new(v, j)),
            );
            values.truncate(heads);
        }
        (self.cand, self.cand_values, self.cand_errors) = (cand, values, errors);
        if !ok {
            self.head_keys = keys;
            return false;
        }
        while let Some((at, &key)) = keys.iter().enumerate().min_by_key(|&(_, k)| k) {
            let j = key.position();
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
                (keys[at], self.cand_values[at]) = (JobKey::new(v, h), v);
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
        for (v, &e) in values.iter_mut().zip(&errors) {
            if e != 0 {
                *v = 0.0;
            }
        }
        let (mut keys, mut top) = (Vec::new(), Vec::new());
        crate::rank::top_into(&values, Some(1), &mut keys, &mut top);
        let best = top.first().map(|&p| (q[p as usize], values[p as usize]));
        assert_eq!(
            best.map(|(x, val)| (x, val.to_bits())),
            Some((j, v.to_bits())),
            "head path disagrees with the full ranking at t={t}"
        );
    }
}

/// What the jobs of one head group share: the share-tree node, and every input that does not
/// change while a job waits (`statics[g * inputs + k]` for input `k`; `eligible_time` and the
/// fairshare keywords are not stored).
#[derive(Debug, Clone, Default)]
pub(super) struct GroupInputs {
    leaf: Vec<u32>,
    statics: Vec<f64>,
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
    let first = jobs.iter().map(|j| j.submit).min().unwrap_or(0);
    let last = jobs.iter().map(|j| j.submit).max().unwrap_or(0);
    let span = (last - first) as f64 + jobs.iter().map(|j| j.effective_run() as f64).sum::<f64>();
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
    group_of: Vec<u32>,
    fifo: Vec<std::collections::VecDeque<u32>>,
    /// Each non-empty group's head (`fifo[g][0]`, kept at hand).
    head_of: Vec<u32>,
    queued: Vec<bool>,
    /// Groups with queued jobs, and each group's position in that list.
    nonempty: Vec<u32>,
    slot: Vec<u32>,
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
