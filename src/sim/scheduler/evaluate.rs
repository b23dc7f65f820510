//! Evaluating the formula over queued jobs: one column per input, then one kernel call.

use super::Simulator;
use crate::sim::inputs::Source;
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
