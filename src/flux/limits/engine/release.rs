//! Release passes (flux `check_and_release_held_jobs`): held jobs whose dependencies are
//! satisfied enter SCHED, with pass-local headroom so one pass cannot hand the same
//! `max_running_jobs` slot to two jobs it released from that limit.

use super::{LimitEngine, enter_sched};
use crate::flux::limits::assoc::{CheckContext, Dependency, Pending, QueueUsage};
use crate::flux::limits::job::{Change, JobState};

impl LimitEngine {
    /// A release pass over every association with held jobs, in flux's order: by user id,
    /// then bank name (the plugin's `users` map is keyed by uid and each user's banks by
    /// name, and `reprior_cb` walks both in key order); configuration order among equal
    /// keys.
    pub fn release_all(&mut self) -> Vec<Change> {
        let mut changes = Vec::new();
        let mut order: Vec<usize> = (0..self.assocs.len())
            .filter(|&a| !self.assocs[a].held.is_empty())
            .collect();
        order.sort_by(|&x, &y| {
            let (x, y) = (&self.assocs[x], &self.assocs[y]);
            (x.userid, &x.bank).cmp(&(y.userid, &y.bank))
        });
        for a in order {
            self.release_pass(a, &mut changes);
        }
        changes
    }

    /// flux `check_and_release_held_jobs`: one pass over the held list in insertion order,
    /// no head-of-line blocking; each satisfied dependency is removed at once; a job left
    /// with none enters SCHED, and if this pass removed its `max-running-jobs-user-limit`
    /// (`max-run-jobs-queue`) its slot is reserved in the pass-local association (queue)
    /// run counter, as flux's `released_assoc_run` / `released_queue_run`.
    pub(super) fn release_pass(&mut self, a: usize, changes: &mut Vec<Change>) {
        let held = std::mem::take(&mut self.assocs[a].held);
        let mut still_held = Vec::with_capacity(held.len());
        let mut pending_run = 0i64;
        // (queue index, released jobs): a handful of queues at most, a Vec beats a map.
        let mut pending_queue_run: Vec<(usize, i64)> = Vec::new();
        let count_sched = self.options.count_sched_in_resources;
        for id in held {
            let Some(job) = self.jobs.get_mut(&id) else {
                continue; // unreachable: held ids are always known jobs
            };
            let assoc = &mut self.assocs[a];
            let empty = QueueUsage::default();
            let ctx = CheckContext {
                limits: &assoc.limits,
                counters: &assoc.counters,
                queue: job.queue.map(|qi| {
                    (
                        &self.queues[qi].limits,
                        assoc.queue_usage.get(&qi).unwrap_or(&empty),
                    )
                }),
                nnodes: job.nnodes,
                ncores: job.ncores,
                pending: Pending {
                    run_jobs: pending_run,
                    queue_run_jobs: job
                        .queue
                        .and_then(|qi| pending_queue_run.iter().find(|p| p.0 == qi))
                        .map_or(0, |p| p.1),
                },
                count_sched_in_resources: count_sched,
            };
            let before = job.deps.len();
            let mut kept = Vec::with_capacity(before);
            // flux's `job_assoc_run` / `job_queue_run`: this pass removed the job's
            // running-jobs dependency (association / queue).
            let (mut removed_assoc_run, mut removed_queue_run) = (false, false);
            for &dep in &job.deps {
                if ctx.hits(dep) {
                    kept.push(dep);
                } else {
                    match dep {
                        Dependency::MaxRunningJobsUser => removed_assoc_run = true,
                        Dependency::MaxRunJobsQueue => removed_queue_run = true,
                        _ => {}
                    }
                    changes.push(Change::DependencyRemove {
                        job: id.clone(),
                        dependency_remove: dep,
                    });
                }
            }
            // Under count_sched_in_resources a job leaves DEPEND only if it passes every
            // check a new submission would, not only the dependencies it was held by: it
            // may have been held by one limit while another still had room that jobs
            // released since have taken. flux re-checks only the held dependencies, which
            // is how its run-job and node/core overshoots happen.
            if kept.is_empty() && count_sched {
                for dep in ctx.all_hits() {
                    kept.push(dep);
                    changes.push(Change::DependencyAdd {
                        job: id.clone(),
                        dependency_add: dep,
                    });
                }
            }
            job.deps = kept;
            if job.deps.is_empty() {
                enter_sched(assoc, job);
                changes.push(Change::State {
                    job: id.clone(),
                    state: JobState::Sched,
                });
                // flux adds a released job to `released_assoc_run` / `released_queue_run`
                // only when this pass removed its running-jobs dependency: a job held by
                // another limit alone reserves no running-jobs headroom.
                if removed_assoc_run {
                    pending_run += 1;
                }
                if let Some(qi) = job.queue.filter(|_| removed_queue_run) {
                    match pending_queue_run.iter_mut().find(|p| p.0 == qi) {
                        Some(p) => p.1 += 1,
                        None => pending_queue_run.push((qi, 1)),
                    }
                }
            } else {
                still_held.push(id);
            }
        }
        self.assocs[a].held = still_held;
    }
}
