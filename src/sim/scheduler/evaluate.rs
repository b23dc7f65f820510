//! Evaluating the formula over queued jobs: one column per input, then one kernel call.

use super::state::Simulator;
use crate::sim::inputs::{self, FairshareKeyword, SlurmFactor, Source};
use crate::sim::priority::Priority;

impl<'a> Simulator<'a> {
    pub(super) fn evaluate(&mut self, t: i64) {
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
    pub(super) fn evaluate_jobs(
        &mut self,
        t: i64,
        jobs: &[u32],
        values: &mut Vec<f64>,
        errors: &mut Vec<u8>,
    ) {
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
        // One pass per column, each value as the binder ([`crate::sim::inputs`]) defines it;
        // the loop's hot fields stand in for the job's own where they are the same number.
        let all = self.jobs;
        let hot = &self.hot;
        for (k, src) in self.sources.iter().enumerate() {
            let col = &mut self.columns[k];
            col.clear();
            let each_hot = jobs.iter().map(|&j| &hot[j as usize]);
            match src {
                Source::Ncpus => col.extend(each_hot.map(|h| inputs::ncpus(&h.request))),
                Source::Walltime => col.extend(each_hot.map(|h| inputs::walltime(h.walltime))),
                Source::EligibleTime => {
                    col.extend(each_hot.map(|h| inputs::eligible_time(t, h.submit)))
                }
                Source::Fairshare(kw) => {
                    let leaf = &self.leaf;
                    let leaves = jobs.iter().map(|&j| leaf[j as usize]);
                    match (self.share.as_mut(), kw) {
                        (None, _) => col.resize(n, 0.0),
                        (Some(s), FairshareKeyword::Perc) => col.extend(leaves.map(|l| s.perc(l))),
                        (Some(s), FairshareKeyword::TreeUsage) => {
                            col.extend(leaves.map(|l| s.tree_usage_cached(l)))
                        }
                        (Some(s), FairshareKeyword::Factor) => {
                            col.extend(leaves.map(|l| s.factor_cached(l)))
                        }
                    }
                }
                Source::Slurm(factor) => match (self.slurm.as_mut(), factor) {
                    (None, _) => col.resize(n, 0.0),
                    (Some(s), SlurmFactor::Age) => col.extend(each_hot.map(|h| s.age(h.submit))),
                    (Some(s), SlurmFactor::Fairshare) => {
                        col.extend(jobs.iter().map(|&j| s.fairshare(j)))
                    }
                    (Some(s), fixed) => col.extend(
                        jobs.iter()
                            .map(|&j| fixed.fixed(&s.fixed[j as usize]).unwrap_or(0.0)),
                    ),
                },
                fixed => col.extend(
                    jobs.iter()
                        .map(|&j| fixed.fixed(&all[j as usize]).unwrap_or(0.0)),
                ),
            }
        }
        run_kernel(f, &self.columns, values, errors);
    }
}

/// `values` and `errors` made `n` long, all zero (the outputs without a formula).
pub(super) fn zeroed(n: usize, values: &mut Vec<f64>, errors: &mut Vec<u8>) {
    values.clear();
    values.resize(n, 0.0);
    errors.clear();
    errors.resize(n, 0);
}

/// Evaluate `f` over `columns` (one per input) into `values` and `errors`.
pub(super) fn run_kernel(
    f: &dyn Priority,
    columns: &[Vec<f64>],
    values: &mut [f64],
    errors: &mut [u8],
) {
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
