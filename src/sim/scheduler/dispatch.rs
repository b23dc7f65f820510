//! Dispatch in rank order: strict ordering, EASY backfilling (one reservation), and filling
//! (PBS without strict ordering: every job that fits).

use super::state::Simulator;
use super::{Decision, PendReason, Policy, Round};
use crate::sim::cluster::Cluster;
use crate::sim::workload::Request;

/// An EASY reservation's shadow time, and the free cores then (kept by count for a `procs`
/// request, where only the sum matters).
type Shadow = (i64, Cluster);

impl<'a> Simulator<'a> {
    /// Dispatch over `round.queue`; returns whether it stopped early at a job that does not
    /// fit (strict ordering without full rounds). Jobs already started are skipped.
    pub(super) fn dispatch(&mut self, t: i64, round: &mut Round) -> bool {
        let full = self.full;
        let min_cores = self.queued_cores.min().unwrap_or(0);
        let policy = self.config.policy;
        let threshold = self.config.threshold;
        let mut blocked = false;
        // EASY reservation: the top blocked job's request, and (computed when a later job
        // first needs it) the shadow time with the free cores then.
        let mut reservation: Option<(Request, Option<Shadow>)> = None;
        for &(j, value) in &round.queue {
            if self.start[j as usize].is_some() {
                continue; // started earlier in this round (a widened strict prefix)
            }
            let job = &self.jobs[j as usize];
            let h = self.hot[j as usize];
            if threshold.is_some_and(|th| value <= th) {
                if full {
                    round.decisions.push(Decision::Pend {
                        job: j,
                        reason: PendReason::Threshold,
                    });
                }
                continue;
            }
            if let Some(l) = &self.limits {
                let deps = l.holds(&job.id);
                if !deps.is_empty() {
                    if full {
                        round.decisions.push(Decision::Hold {
                            job: j,
                            dependencies: deps,
                        });
                    }
                    continue;
                }
            }
            let fits = self.cluster.fits(h.request);
            match policy {
                Policy::Strict => {
                    if blocked || !fits {
                        blocked = true;
                        if !full {
                            return true;
                        }
                        round.decisions.push(Decision::Pend {
                            job: j,
                            reason: PendReason::Resources,
                        });
                        continue;
                    }
                }
                Policy::Fill if !fits => {
                    if full {
                        round.decisions.push(Decision::Pend {
                            job: j,
                            reason: PendReason::Resources,
                        });
                    } else if self.cluster.free_total() < min_cores {
                        break; // nothing later can fit either
                    }
                    continue;
                }
                Policy::Fill => {}
                Policy::Easy => match &mut reservation {
                    None if !fits => {
                        reservation = Some((h.request, None));
                        if full {
                            round.decisions.push(Decision::Pend {
                                job: j,
                                reason: PendReason::Resources,
                            });
                        }
                        continue;
                    }
                    None => {}
                    Some(_) if !fits => {
                        if full {
                            round.decisions.push(Decision::Pend {
                                job: j,
                                reason: PendReason::Resources,
                            });
                        } else if self.cluster.free_total() < min_cores {
                            break; // nothing later can fit either
                        }
                        continue;
                    }
                    Some((top, at)) => {
                        let (shadow, then) = at.get_or_insert_with(|| self.shadow(*top));
                        if t + h.walltime <= *shadow {
                            // Ends (by its requested time) before the reservation.
                        } else if !self.leaves_room(h.request, *top, then) {
                            if full {
                                round.decisions.push(Decision::Pend {
                                    job: j,
                                    reason: PendReason::Reservation,
                                });
                            }
                            continue;
                        }
                    }
                },
            }
            if !self.start_job(t, j, &mut round.decisions) {
                // `fits` said yes; placement cannot fail. Treat defensively as resources.
                round.decisions.push(Decision::Pend {
                    job: j,
                    reason: PendReason::Resources,
                });
            }
        }
        false
    }

    /// Whether starting `req` now leaves the reserved job (`top`) room at the shadow time,
    /// whose free cores (`then`) it then takes.
    fn leaves_room(&self, req: Request, top: Request, then: &mut Cluster) -> bool {
        // Where `req` goes now is where it is at the shadow time (it runs past it); only the
        // sum matters to a `procs` reservation.
        let a = if then.by_node() {
            self.cluster.place(req)
        } else {
            self.cluster.counted_copy().place(req)
        };
        let Some(a) = a else {
            return false;
        };
        if a.cores() > then.free_total() {
            return false;
        }
        then.take(&a);
        if then.fits(top) {
            true
        } else {
            then.release(&a);
            false
        }
    }

    /// The earliest time `top` fits given the running jobs' requested end times, and the free
    /// cores at that time (kept by count for a `procs` request, where only the sum matters).
    fn shadow(&self, top: Request) -> Shadow {
        let mut then = match top {
            Request::Procs(_) => self.cluster.counted_copy(),
            Request::Nodes { .. } => self.cluster.clone(),
        };
        // Running jobs by requested end (start + requested time), then submit order.
        for &(e, j) in &self.by_requested_end {
            if let Some(a) = &self.alloc[j as usize] {
                then.release(a);
            }
            if then.fits(top) {
                return (e, then);
            }
        }
        // Cannot happen for a job that fits the idle cluster; reserve at the end of time.
        (i64::MAX, then)
    }
}
