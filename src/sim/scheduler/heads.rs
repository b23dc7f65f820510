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

use super::Round;
use super::evaluate::{run_kernel, zeroed};
use super::state::Simulator;
use crate::rank::JobKey;
use crate::sim::inputs::{self, FairshareKeyword, Source};

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
