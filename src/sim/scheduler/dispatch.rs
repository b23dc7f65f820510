//! Dispatch in rank order: strict ordering, EASY backfilling (one reservation), backfilling
//! with reservations for the top N blocked jobs or for all of them (conservative, and
//! Slurm's backfill within its knobs), and filling (PBS without strict ordering: every job
//! that fits).

use super::state::Simulator;
use super::types::SlurmBackfill;
use super::{Decision, PendReason, Policy, Round};
use crate::sim::cluster::{Allocation, Cluster};
use crate::workload::Request;

/// An EASY reservation's shadow time, and the free cores then (kept by count for a `procs`
/// request, where only the sum matters).
type Shadow = (i64, Cluster);

impl<'a> Simulator<'a> {
    /// Dispatch over `round.queue`; returns whether it stopped early at a job that does not
    /// fit (strict ordering without full rounds). Jobs already started are skipped.
    pub(super) fn dispatch(&mut self, t: i64, round: &mut Round) -> bool {
        self.dispatch_over(t, round.queue.iter().copied(), &mut round.decisions)
    }

    /// Dispatch over `queue` (jobs with their values, in rank order), deciding into
    /// `decisions`; as [`Simulator::dispatch`].
    pub(super) fn dispatch_over(
        &mut self,
        t: i64,
        queue: impl Iterator<Item = (u32, f64)>,
        decisions: &mut Vec<Decision>,
    ) -> bool {
        let full = self.full;
        let min_cores = self.queued_cores.min().unwrap_or(0);
        let policy = self.config.policy;
        let threshold = self.config.threshold;
        let mut blocked = false;
        // EASY reservation: the top blocked job's request, and (computed when a later job
        // first needs it) the shadow time with the free cores then.
        let mut reservation: Option<(Request, Option<Shadow>)> = None;
        // Deeper backfill: the plan of reservations, built when a job first blocks.
        let mut plan: Option<Plan> = None;
        let depth = policy.depth();
        // Slurm: jobs the backfill pass has tested, and whether the main scheduler, which
        // alone takes the jobs past `bf_max_job_test`, has met one that cannot start.
        let (mut tested, mut main_blocked) = (0usize, false);
        self.no_fit.clear();
        for (j, value) in queue {
            if self.start[j as usize].is_some() {
                continue; // started earlier in this round (a widened strict prefix)
            }
            let job = &self.jobs[j as usize];
            let h = self.hot[j as usize].clone();
            if threshold.is_some_and(|th| value <= th) {
                if full {
                    decisions.push(Decision::Pend {
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
                        decisions.push(Decision::Hold {
                            job: j,
                            dependencies: deps,
                        });
                    }
                    continue;
                }
            }
            let fits = self.fits_now(&h.request);
            if let Policy::Slurm(bf) = policy {
                // `backfill.c`: the pass stops after `bf_max_job_test` jobs; past them
                // `job_scheduler.c: schedule` starts jobs in priority order until the first
                // that cannot start (a blocked job above, with a plan, is one).
                if tested >= bf.bf_max_job_test as usize {
                    main_blocked = main_blocked || plan.is_some() || !fits;
                    if main_blocked {
                        if !full {
                            break;
                        }
                        decisions.push(Decision::Pend {
                            job: j,
                            reason: PendReason::Resources,
                        });
                        continue;
                    }
                }
                tested += 1;
            }
            match policy {
                Policy::Strict => {
                    if blocked || !fits {
                        blocked = true;
                        if !full {
                            return true;
                        }
                        decisions.push(Decision::Pend {
                            job: j,
                            reason: PendReason::Resources,
                        });
                        continue;
                    }
                }
                Policy::Backfill(_) | Policy::Conservative | Policy::Slurm(_) => {
                    let reserved = plan.as_ref().map_or(0, Plan::reservations);
                    // Where it would start: first fit now, or, with reservations made, first
                    // fit over what stays free until its requested end.
                    let placed = match (&plan, fits) {
                        (_, false) => None,
                        (None, true) => self.cluster.place(&h.request),
                        (Some(p), true) => p.admits(&h.request, t + h.walltime),
                    };
                    let admitted = placed.is_some();
                    if !admitted {
                        if depth.is_none_or(|d| reserved < d as usize) {
                            plan.get_or_insert_with(|| self.plan(t))
                                .reserve(&h.request, h.walltime);
                        } else if !full && self.cluster.free_total() < min_cores {
                            break; // nothing later can start either
                        }
                        if full {
                            decisions.push(Decision::Pend {
                                job: j,
                                reason: if fits {
                                    PendReason::Reservation
                                } else {
                                    PendReason::Resources
                                },
                            });
                        }
                        continue;
                    }
                    let Some(a) = placed else { continue };
                    if let Some(p) = &mut plan {
                        // It holds `a` until its requested end: later checks see that.
                        p.run(&a, t + h.walltime);
                    }
                    if !self.start_on(t, j, a, decisions) {
                        decisions.push(Decision::Pend {
                            job: j,
                            reason: PendReason::Resources,
                        });
                    }
                    continue;
                }
                Policy::Fill if !fits => {
                    if self.unplaced(full, min_cores, j, decisions) {
                        break;
                    }
                    continue;
                }
                Policy::Fill => {}
                Policy::Easy => match &mut reservation {
                    None if !fits => {
                        reservation = Some((h.request.clone(), None));
                        if full {
                            decisions.push(Decision::Pend {
                                job: j,
                                reason: PendReason::Resources,
                            });
                        }
                        continue;
                    }
                    None => {}
                    Some(_) if !fits => {
                        if self.unplaced(full, min_cores, j, decisions) {
                            break;
                        }
                        continue;
                    }
                    Some((top, at)) => {
                        let (shadow, then) = at.get_or_insert_with(|| self.shadow(top));
                        if t + h.walltime <= *shadow {
                            // Ends (by its requested time) before the reservation.
                        } else if !self.leaves_room(&h.request, top, then) {
                            if full {
                                decisions.push(Decision::Pend {
                                    job: j,
                                    reason: PendReason::Reservation,
                                });
                            }
                            continue;
                        }
                    }
                },
            }
            if !self.start_job(t, j, decisions) {
                // `fits` said yes; placement cannot fail. Treat defensively as resources.
                decisions.push(Decision::Pend {
                    job: j,
                    reason: PendReason::Resources,
                });
            }
        }
        false
    }

    /// Whether `req` fits the free resources now. Within a dispatch resources are only taken,
    /// so a request that did not fit, when that "no" lasts ([`Cluster::no_fit_lasts`]), is
    /// answered from `no_fit` for the jobs after it: a long queue of like jobs on a
    /// multi-resource machine is placed once per round, not once per job.
    fn fits_now(&mut self, req: &Request) -> bool {
        if !self.no_fit.is_empty() && self.no_fit.contains(req) {
            return false;
        }
        let fits = self.cluster.fits(req);
        if !fits && self.cluster.no_fit_lasts(req) {
            self.no_fit.insert(req.clone());
        }
        fits
    }

    /// Whether starting `req` now leaves the reserved job (`top`) room at the shadow time,
    /// whose free cores (`then`) it then takes.
    fn leaves_room(&self, req: &Request, top: &Request, then: &mut Cluster) -> bool {
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

    /// A job that does not fit and gets no reservation: it pends (recorded with full rounds);
    /// without them, `true` when no later job can fit either, so the scan may stop.
    fn unplaced(&self, full: bool, min_cores: u64, j: u32, decisions: &mut Vec<Decision>) -> bool {
        if full {
            decisions.push(Decision::Pend {
                job: j,
                reason: PendReason::Resources,
            });
            return false;
        }
        self.cluster.free_total() < min_cores
    }

    /// The plan of a round at `t` with no reservation yet: the free resources from now on if
    /// every running job ends at its requested time.
    fn plan(&self, t: i64) -> Plan {
        let ends = self
            .by_requested_end
            .iter()
            .filter_map(|&(e, j)| self.held_by(j).map(|a| (e, a)));
        Plan::releasing(t, self.cluster.clone(), ends).with_rules(self.config.policy)
    }

    /// The earliest time `top` fits given the running jobs' requested end times, and the free
    /// cores at that time (kept by count for a `procs` request, where only the sum matters).
    fn shadow(&self, top: &Request) -> Shadow {
        let mut then = match top {
            Request::Procs(_) => self.cluster.counted_copy(),
            Request::Nodes { .. } | Request::Select(_) => self.cluster.clone(),
        };
        // Running jobs by requested end (start + requested time), then submit order.
        for &(e, j) in &self.by_requested_end {
            if let Some(a) = self.held_by(j) {
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

/// The reservations of one round (`Policy::Backfill`, `Policy::Conservative`), as the free
/// resources over time: `free[i]` holds from `times[i]` to `times[i + 1]` (`times[0]` is now)
/// if every running job ends at its requested time, with the jobs started this round and the
/// reservations taken out. A reservation is placed when it is made (first fit at its start,
/// on resources that stay free for its whole span, as PBS puts a top job on the calendar) and
/// keeps its place; a later job starts only if its resources are free in every state up to
/// its requested end.
#[derive(Debug)]
pub(crate) struct Plan {
    times: Vec<i64>,
    free: Vec<Cluster>,
    reserved: usize,
    /// Slurm's window and resolution for reservations ([`SlurmBackfill`]), under
    /// [`Policy::Slurm`].
    slurm: Option<SlurmBackfill>,
}

impl Plan {
    /// The plan on pooled cores (replay's reconciliation): `nodes × cores` kept by count at
    /// `now`, with running jobs of `(requested end, cores)`.
    pub(crate) fn pooled(nodes: u32, cores: u32, now: i64, running: &[(i64, u64)]) -> Plan {
        let mut c = Cluster::counted(nodes, cores);
        let mut held: Vec<(i64, Allocation)> = Vec::with_capacity(running.len());
        for &(end, n) in running {
            let r = Request::Procs(u32::try_from(n).unwrap_or(u32::MAX));
            if let Some(a) = c.allocate(&r) {
                held.push((end, a));
            }
        }
        held.sort_by_key(|(e, _)| *e);
        Plan::releasing(now, c, held.iter().map(|(e, a)| (*e, a)))
    }

    /// The plan at `now` on `c`, whose running jobs release their allocations at the given
    /// requested ends (in time order): a breakpoint at each distinct end.
    fn releasing<'a>(
        now: i64,
        mut c: Cluster,
        ends: impl Iterator<Item = (i64, &'a Allocation)>,
    ) -> Plan {
        let mut times = vec![now];
        let mut free = vec![c.clone()];
        for (e, a) in ends {
            c.release(a);
            if e > *times.last().unwrap_or(&now) {
                times.push(e);
                free.push(c.clone());
            } else if let Some(last) = free.last_mut() {
                *last = c.clone(); // the same time as the breakpoint before
            }
        }
        Plan {
            times,
            free,
            reserved: 0,
            slurm: None,
        }
    }

    /// The plan with `policy`'s rules for reservations: Slurm's window and resolution under
    /// [`Policy::Slurm`], none else.
    pub(crate) fn with_rules(mut self, policy: Policy) -> Plan {
        self.slurm = match policy {
            Policy::Slurm(bf) => Some(bf),
            _ => None,
        };
        self
    }

    /// How many reservations it holds.
    pub(crate) fn reservations(&self) -> usize {
        self.reserved
    }

    /// What stays free in every state from breakpoint `from` up to `end`.
    fn free_through(&self, from: usize, end: i64) -> Cluster {
        let mut c = self.free[from].clone();
        for (_, s) in self.times[from..]
            .iter()
            .zip(&self.free[from..])
            .skip(1)
            .take_while(|(t, _)| **t < end)
        {
            c.keep_min(s);
        }
        c
    }

    /// Whether a request for `cores` may fit what stays free from breakpoint `from` up to
    /// `end`: every state there has that many cores free. What stays free through the
    /// states has no more cores than the least of them, so `false` means no placement
    /// there, found without building it ([`Plan::free_through`]).
    fn may_fit_through(&self, from: usize, end: i64, cores: u64) -> bool {
        self.free[from].free_total() >= cores
            && self.times[from..]
                .iter()
                .zip(&self.free[from..])
                .skip(1)
                .take_while(|(t, _)| **t < end)
                .all(|(_, s)| s.free_total() >= cores)
    }

    /// The breakpoint at `tau` (≥ now), made if there is none: the state in force goes on.
    fn breakpoint(&mut self, tau: i64) -> usize {
        let i = self.times.partition_point(|&x| x < tau);
        if i < self.times.len() && self.times[i] == tau {
            return i;
        }
        let state = self.free[i.saturating_sub(1)].clone();
        self.times.insert(i, tau);
        self.free.insert(i, state);
        i
    }

    /// Take `a` from `start` to `end`.
    fn hold(&mut self, a: &Allocation, start: i64, end: i64) {
        let (i, j) = (self.breakpoint(start), self.breakpoint(end));
        for c in &mut self.free[i..j] {
            c.take(a);
        }
    }

    /// Where a job asking for `request` can start now and run to `end` without delaying a
    /// reservation: first fit over what stays free until then (`None`: nowhere).
    fn admits(&self, request: &Request, end: i64) -> Option<Allocation> {
        if !self.may_fit_through(0, end, request.total_cores()) {
            return None;
        }
        self.free_through(0, end).place(request)
    }

    /// A job started now on `a` holds it until `end`.
    fn run(&mut self, a: &Allocation, end: i64) {
        if end > self.times[0] {
            self.hold(a, self.times[0], end);
        }
    }

    /// Whether a job asking for `request` for `walltime` can start now; if so it holds its
    /// placement until its requested end, and later checks see that.
    pub(crate) fn try_start(&mut self, request: &Request, walltime: i64) -> bool {
        let end = self.times[0].saturating_add(walltime);
        let Some(a) = self.admits(request, end) else {
            return false;
        };
        self.run(&a, end);
        true
    }

    /// Reserve the earliest span for a job asking for `request` for `walltime`: the first
    /// breakpoint where it fits on resources that stay free for its whole span. Under
    /// Slurm's rules ([`SlurmBackfill`]) a job that cannot start within the window gets no
    /// reservation, and one that can holds its resources to its end rounded down to the
    /// resolution (at least one slot), at most to the window's end.
    pub(crate) fn reserve(&mut self, request: &Request, walltime: i64) {
        self.reserved += 1;
        let now = self.times[0];
        for i in 0..self.times.len() {
            if !self.free[i].fits(request) {
                continue;
            }
            let start = self.times[i];
            let end = start.saturating_add(walltime);
            // Slurm: held at most to the plan's end, `window_end` (≤ now + bf_window), so a job
            // that cannot start before it holds nothing: Slurm's "no reservation created".
            let held = match self.slurm {
                None => end,
                Some(bf) => bf.reserved_end(start, end).min(bf.window_end(now)),
            };
            // Placed on what stays free while it runs and while it is held.
            if !self.may_fit_through(i, end.max(held), request.total_cores()) {
                continue;
            }
            if let Some(a) = self.free_through(i, end.max(held)).place(request) {
                if held > start {
                    self.hold(&a, start, held);
                }
                return;
            }
        }
        // Cannot happen for a job that fits the idle cluster: nothing is held.
    }
}

#[cfg(test)]
mod tests {
    use crate::sim::cluster::Machine;
    use crate::sim::scheduler::{Policy, SimConfig, Simulator};
    use crate::sim::setup::Setup;
    use crate::workload::parse_json_jobs;

    /// The every-round check (debug builds) finds a node whose resources were given back
    /// while its job still runs: the free amounts no longer match the running allocations.
    #[test]
    fn the_round_check_finds_resources_out_of_step_with_the_jobs() {
        let w = parse_json_jobs(
            r#"[{"id": "a", "submit": 0, "run": 100, "select": "1:ncpus=2:mem=4gb"},
                {"id": "b", "submit": 5, "run": 10, "select": "1:ncpus=2:ngpus=1"}]"#,
            "j.json",
        )
        .unwrap();
        let config = SimConfig::new(Policy::Strict, 1, 1);
        let m = Machine::parse("count=2 ncpus=4 mem=8gb ngpus=1", "m").unwrap();
        let setup = Setup::on_machine(&config, &w.jobs, Some(m)).unwrap();
        let mut sim = Simulator::new(&w.jobs, &setup, None).unwrap();
        sim.step().unwrap();
        assert_eq!(sim.check_invariants(0), Ok(()));
        let a = sim.held_by(0).cloned().unwrap();
        sim.cluster.release(&a);
        assert_eq!(
            sim.check_invariants(0),
            Err("incremental free-core state differs from the re-summed one".into())
        );
        sim.cluster.take(&a);
        sim.cluster.take(&a); // node 0 now holds job a twice
        assert!(sim.check_invariants(0).is_err());
        // Three times job a's 2 cores on a 4-core node.
        assert_eq!(
            sim.cluster.check([&a, &a, &a]),
            Err("node 0 over-allocated".into())
        );
    }
}
