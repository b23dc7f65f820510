//! The forecast as one JSON document, field for field what `jobsort forecast --format json`
//! prints and Python's `jobsort.forecast` returns: one definition for both (the CLI adds
//! `rank`'s terms to each job).

use super::{Fit, Forecast, RuntimeModel};
use crate::model::snapshot::Scheduler;
use crate::sim::snapshot::LoadedSnapshot;
use serde_json::{Value, json};

/// What the document is made of.
pub struct Document<'a> {
    pub loaded: &'a LoadedSnapshot,
    pub forecast: &'a Forecast,
    /// Indices into the snapshot's pending jobs, in priority order.
    pub order: &'a [usize],
    /// What ordered the queue, in words.
    pub ordered_by: &'a str,
    /// Each pending job's priority value, by pending index.
    pub values: &'a [Option<f64>],
    /// The history's run-time model and its fit, when one was given.
    pub model: Option<(&'a RuntimeModel, &'a Fit)>,
}

/// The scheduler's own reason in plain words, where jobsort knows it (Slurm's reason codes).
pub fn says_plain(scheduler: Scheduler, reason: &str) -> Option<String> {
    match scheduler {
        Scheduler::Slurm => crate::slurm::reasons::plain(reason),
        _ => None,
    }
}

/// The waiting job `id` names (as written, else the id before the server suffix: `1234` for
/// `1234.srv`), or why there is none, in `jobsort why`'s words: running since when, its
/// state, or not in the snapshot.
pub fn find_waiting(snap: &crate::model::snapshot::Snapshot, id: &str) -> Result<usize, String> {
    use crate::input::units::utc_text;
    let named = |j: &str| j == id || j.split('.').next() == Some(id);
    if let Some(i) = snap.pending.iter().position(|j| j.id == id) {
        return Ok(i);
    }
    if let Some(i) = snap.pending.iter().position(|j| named(&j.id)) {
        return Ok(i);
    }
    if let Some(r) = snap.running.iter().find(|j| named(&j.id)) {
        return Err(format!(
            "job {} is running since {}{}",
            r.id,
            utc_text(r.start),
            r.planned_end()
                .map(|e| format!(", until {} at the latest", utc_text(e)))
                .unwrap_or_default()
        ));
    }
    if let Some((j, st)) = snap.other_jobs.iter().find(|(j, _)| named(j)) {
        return Err(format!("job {j} is not waiting: its state is {st}"));
    }
    Err(format!(
        "job {id} is not in the snapshot ({} waiting, {} running)",
        snap.pending.len(),
        snap.running.len()
    ))
}

impl Document<'_> {
    /// The header: the snapshot, the policy, the order, the assumption, the model.
    pub fn header(&self) -> Value {
        json!({
            "scheduler": self.loaded.snapshot.scheduler.name(),
            "taken_at": self.forecast.walltime.now,
            "policy": self.forecast.policy.name(),
            "ordered_by": self.ordered_by,
            "assumption": "running jobs use their full walltime and nothing new arrives",
            "model": self.model.map(|(m, fit)| json!({
                "what": "each user's median share of the walltime their jobs ran, from the history",
                "jobs": m.jobs,
                "users": m.users.len(),
                "overall_ratio": m.overall,
                "fit": fit,
            })),
            "missing": self.loaded.snapshot.missing.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
        })
    }

    /// One waiting job (pending index `index`).
    pub fn job(&self, index: usize) -> Value {
        let s = &self.loaded.snapshot;
        let job = &s.pending[index];
        let w = self.forecast.walltime.job(index);
        let m = self.forecast.model.as_ref().map(|m| m.job(index));
        let ahead = (w.rank > 1).then(|| s.pending[self.order[w.rank - 2]].id.clone());
        json!({
            "id": job.id,
            "user": job.user,
            "queue": job.queue,
            "rank": w.rank,
            "of": self.order.len(),
            "value": self.values[index],
            "ahead": ahead,
            "blocked": w.blocked,
            "blocked_kind": w.blocked.kind(),
            "plain": w.blocked.plain(self.forecast.walltime.now),
            "scheduler_says": job.reason,
            "scheduler_says_plain": job.reason.as_deref().and_then(|r| says_plain(s.scheduler, r)),
            "planned_at": w.planned_at,
            "start": w.start,
            "end": w.end,
            "nodes": w.nodes,
            "model_start": m.and_then(|m| m.start),
            "model_end": m.and_then(|m| m.end),
            "walltime": job.walltime,
            "submit": job.submit,
        })
    }
}
