//! Dispatch in rank order: strict ordering and EASY backfilling (one reservation).

use super::state::Simulator;
use super::{Decision, PendReason, Policy, Round};
use crate::sim::cluster::{fits_in, place};
use crate::sim::workload::Request;

/// An EASY reservation's shadow time, free cores per node then (empty for a `procs`
/// request) and their sum.
type Shadow = (i64, Vec<u32>, u64);

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
        // first needs it) the shadow time with the free cores per node then and their sum.
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
                        let (shadow, sfree, stotal) = at.get_or_insert_with(|| self.shadow(*top));
                        if t + h.walltime <= *shadow {
                            // Ends (by its requested time) before the reservation.
                        } else if !self.leaves_room(h.request, *top, sfree, stotal) {
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
    /// whose free cores (`sfree` per node, `stotal` in all) it then takes.
    fn leaves_room(&self, req: Request, top: Request, sfree: &mut [u32], stotal: &mut u64) -> bool {
        if let Request::Procs(p) = top {
            // Only the total matters to a `procs` request: no placement.
            let c = req.total_cores();
            if *stotal >= c && *stotal - c >= p as u64 {
                *stotal -= c;
                return true;
            }
            return false;
        }
        let Some(a) = place(self.cluster.free(), self.cluster.free_total(), req) else {
            return false;
        };
        let mut trial = sfree.to_vec();
        for &(n, c) in &a.parts {
            trial[n as usize] -= c;
        }
        let tt = *stotal - a.cores();
        if fits_in(&trial, tt, top) {
            sfree.copy_from_slice(&trial);
            *stotal = tt;
            true
        } else {
            false
        }
    }

    /// The earliest time `req` fits given the running jobs' requested end times, and the
    /// free cores at that time (per node, left empty for a `procs` request, where only the
    /// sum matters; and in all).
    fn shadow(&self, req: Request) -> Shadow {
        // Running jobs by requested end (start + requested time), then submit order.
        let mut by_req_end: Vec<(i64, u32)> = self
            .running
            .iter()
            .map(|&j| {
                (
                    self.start[j as usize].unwrap_or(0) + self.hot[j as usize].walltime,
                    j,
                )
            })
            .collect();
        by_req_end.sort_unstable();
        let mut total = self.cluster.free_total();
        if let Request::Procs(p) = req {
            for &(e, j) in &by_req_end {
                total += self.hot[j as usize].request.total_cores();
                if total >= p as u64 {
                    return (e, Vec::new(), total);
                }
            }
            return (i64::MAX, Vec::new(), total);
        }
        let mut free = self.cluster.free().to_vec();
        for &(e, j) in &by_req_end {
            if let Some(a) = &self.alloc[j as usize] {
                for &(n, c) in &a.parts {
                    free[n as usize] += c;
                }
                total += a.cores();
            }
            if fits_in(&free, total, req) {
                return (e, free, total);
            }
        }
        // Cannot happen for a job that fits the idle cluster; reserve at the end of time.
        (i64::MAX, free, total)
    }
}
