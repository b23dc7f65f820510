//! First come, first served on cores alone, when nothing reads the rounds: the same schedule
//! as the general rounds (`mod.rs`, `dispatch.rs`) in a loop of counts.
//!
//! The general loop carries what a formula, fairshare, limits, queue tiers, a threshold, a
//! recording or a machine of nodes needs: events and decisions per round, the queue's
//! groups, placements, the running set by requested end as a tree. Without any of them —
//! no formula (submit order), no fairshare tree, limits, Slurm priority, queue order or
//! threshold, strict or EASY, a cluster whose free cores decide every fit as its nodes
//! would ([`Cluster::counts_suffice`]), no recording or series — a round is a count of free
//! cores, and [`run`] decides it so:
//!
//! - strict: the queue is the jobs submitted and not started, in submit order, and a job
//!   starts only when every earlier one has: it is the range `[started, submitted)`, and a
//!   round starts its head while the head fits;
//! - EASY: the queue in submit order; the first job that does not fit is the reservation,
//!   its shadow time the requested end of the running job (by requested end, then submit
//!   order) whose cores make it fit, and the free cores then; a later job that fits now
//!   starts if it ends by its requested time at the shadow time, or if it leaves the reserved
//!   job its cores at the shadow time (then it takes them from the cores free then).
//!
//! The two give the general rounds' starts, ends and round count, job for job: the tests at
//! the end compare them on random workloads, and `tests/it/sim_plain.rs` on the traces.

use super::ends::{Buckets, Ends, Heap, MANY};
use super::types::{Policy, SimConfig, SimError, SimOutcome};
use crate::sim::cluster::{Cluster, SizeSet};
use crate::sim::priority::Priority;
use crate::sim::setup::Setup;
use crate::workload::SimJob;

/// Whether a run of `setup` under `formula` is decided by [`run`]: see the module's notes.
/// `rounds_read`: a recording, a verification or a series reads the rounds.
pub fn applies(setup: &Setup, formula: Option<&dyn Priority>, rounds_read: bool) -> bool {
    let c: &SimConfig = setup.config();
    !rounds_read
        && formula.is_none()
        && matches!(c.policy, Policy::Strict | Policy::Easy)
        && c.threshold.is_none()
        && c.queue_order.is_none()
        && setup.share_tree().is_none()
        && setup.limits().is_none()
        && setup.slurm_priority().is_none()
        && setup.machine().is_none()
}

/// The per-job fields the loop reads, packed.
#[derive(Clone, Copy)]
struct Job {
    run: i64,
    walltime: i64,
    cores: u64,
}

/// Simulate `jobs` from `setup` (for which [`applies`] holds): `None` when a job's request
/// is not decided by a count of cores on this cluster (the general rounds take it then).
pub fn run(jobs: &[SimJob], setup: &Setup) -> Result<Option<SimOutcome>, SimError> {
    let config = setup.config();
    // First: a run the general rounds take then checks its jobs once, there.
    if !Cluster::counts_suffice(config.cores, jobs.iter().map(|j| &j.request)) {
        return Ok(None);
    }
    let cluster = setup.cluster();
    super::check_jobs(jobs, setup, &cluster)?;
    // EASY reads queued and running jobs out of order: their fields packed. Strict reads
    // each job once, in order, as it starts (its cores go into the queue of ends with it).
    let packed: Vec<Job> = match config.policy {
        Policy::Strict => Vec::new(),
        _ => jobs
            .iter()
            .map(|j| Job {
                run: j.effective_run(),
                walltime: j.walltime,
                cores: j.request.total_cores(),
            })
            .collect(),
    };
    let capacity = cluster.capacity();
    let outcome = if capacity > MANY {
        State::<Buckets<u64>>::new(jobs, packed, capacity).run(config.policy)
    } else {
        State::<Heap<u64>>::new(jobs, packed, capacity).run(config.policy)
    };
    Ok(Some(outcome))
}

struct State<'a, Q> {
    jobs: &'a [SimJob],
    packed: Vec<Job>,
    free: u64,
    /// Running jobs by end time, with their index (EASY) or cores (strict): the order of
    /// equal ends does not matter to a count (a heap, or buckets on a big machine).
    ends: Q,
    start: Vec<Option<i64>>,
    end: Vec<Option<i64>>,
    rounds: u64,
    /// The next job to submit.
    submitted: usize,
}

impl<'a, Q: Ends<u64>> State<'a, Q> {
    fn new(jobs: &'a [SimJob], packed: Vec<Job>, capacity: u64) -> State<'a, Q> {
        let n = jobs.len();
        State {
            jobs,
            packed,
            free: capacity,
            ends: Q::new(),
            start: vec![None; n],
            end: vec![None; n],
            rounds: 0,
            submitted: 0,
        }
    }

    /// The schedule under `policy` (strict, or EASY), on the idle machine of `self.free` cores.
    fn run(mut self, policy: Policy) -> SimOutcome {
        let capacity = self.free;
        match policy {
            Policy::Strict => self.strict(),
            _ => self.easy(),
        }
        SimOutcome {
            start: self.start,
            end: self.end,
            rounds: self.rounds,
            eval_errors: 0,
            series: Vec::new(),
            leaves: None,
            tree: None,
            capacity,
        }
    }

    /// The next round's time: the first end or submit left.
    fn next_time(&self) -> Option<i64> {
        let end = self.ends.earliest();
        let sub = self.jobs.get(self.submitted).map(|j| j.submit);
        match (end, sub) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Jobs submitted at `t`, from the next one on: how many.
    #[inline]
    fn submits(&mut self, t: i64) -> usize {
        let first = self.submitted;
        while self.jobs.get(self.submitted).is_some_and(|j| j.submit == t) {
            self.submitted += 1;
        }
        self.submitted - first
    }

    /// Strict ordering: the queue is `[head, submitted)`; the queue of ends holds each
    /// running job's cores (not its index).
    fn strict(&mut self) {
        let mut head = 0usize;
        while let Some(t) = self.next_time() {
            self.ends.advance(t);
            while let Some(cores) = self.ends.take_now() {
                self.free += cores;
            }
            self.submits(t);
            while head < self.submitted {
                let job = &self.jobs[head];
                let cores = job.request.total_cores();
                if cores > self.free {
                    break;
                }
                self.free -= cores;
                let e = t + job.effective_run();
                self.start[head] = Some(t);
                self.end[head] = Some(e);
                self.ends.push(e, cores);
                head += 1;
            }
            self.rounds += 1;
        }
    }

    /// A started job's key in EASY's running list: its requested end, then its index.
    fn requested_end(&self, j: u32) -> (i64, u32) {
        let j = j as usize;
        (
            self.start[j].unwrap_or(0) + self.packed[j].walltime,
            j as u32,
        )
    }

    /// EASY: start job `j` at `t` (it fits the free cores).
    #[inline]
    fn start_now(&mut self, j: u32, t: i64) {
        let p = self.packed[j as usize];
        self.free -= p.cores;
        let e = t + p.run;
        self.start[j as usize] = Some(t);
        self.end[j as usize] = Some(e);
        self.ends.push(e, u64::from(j));
    }

    /// EASY backfilling with one reservation.
    fn easy(&mut self) {
        let largest = self.packed.iter().map(|p| p.cores).max().unwrap_or(0);
        // Queued jobs' cores (the smallest: whether anything can start, and when a scan may
        // stop), as the general rounds keep them.
        let mut sizes = SizeSet::new(largest.min(1 << 20));
        // Queued jobs in submit order; a started one leaves it as its round's scan passes it.
        let mut queue: Vec<u32> = Vec::new();
        // Running jobs by requested end, then submit order (sorted), for the shadow time:
        // kept only while something is queued (`tracked`), made again from the queue of ends
        // when a shadow time is next needed. Most jobs of a lightly loaded machine start as
        // they come, and keeping the list for them was most of what EASY cost beyond strict.
        let mut by_end: Vec<(i64, u32)> = Vec::new();
        let mut tracked = false;
        while let Some(t) = self.next_time() {
            self.ends.advance(t);
            while let Some(j) = self.ends.take_now() {
                let j = j as u32; // an index (EASY's queue of ends holds indices)
                let p = self.packed[j as usize];
                self.free += p.cores;
                if tracked && let Ok(k) = by_end.binary_search(&self.requested_end(j)) {
                    by_end.remove(k);
                }
            }
            let first = self.submitted;
            self.submits(t);
            let mut j = first;
            // To an empty queue, the jobs that come in a row and fit start as the scan below
            // would start them (each fits, no reservation yet), without entering the queue.
            if queue.is_empty() {
                while j < self.submitted && self.packed[j].cores <= self.free {
                    self.start_now(j as u32, t);
                    j += 1;
                }
            }
            for j in j..self.submitted {
                queue.push(j as u32);
                sizes.insert(self.packed[j].cores);
            }
            self.rounds += 1;
            let Some(min_cores) = sizes.min().filter(|&m| m <= self.free) else {
                continue; // nothing queued can start
            };
            // The reservation: the top blocked job's cores, and (when a later job first
            // needs it) the shadow time with the cores free then.
            let mut top: Option<u64> = None;
            let mut shadow: Option<(i64, u64)> = None;
            // The queue is compacted as it is scanned: `queue[..kept]` the jobs looked at and
            // left queued (a second pass over the queue for the started ones, reading their
            // starts, was 6–8% of EASY's core on KTH-SP2 and LANL-CM5).
            let (mut kept, mut looked) = (0, 0);
            while looked < queue.len() {
                let j = queue[looked];
                looked += 1;
                let p = self.packed[j as usize];
                let starts = if p.cores > self.free {
                    if top.is_none() {
                        top = Some(p.cores);
                    } else if self.free < min_cores {
                        queue[kept] = j;
                        kept += 1;
                        break; // no later job fits either
                    }
                    false
                } else if let Some(need) = top {
                    let (at, then) = shadow.get_or_insert_with(|| {
                        if !tracked {
                            by_end.clear();
                            self.ends
                                .for_each(|_, r| by_end.push(self.requested_end(r as u32)));
                            by_end.sort_unstable();
                            tracked = true;
                        }
                        let mut then = self.free;
                        for &(e, r) in &by_end {
                            then += self.packed[r as usize].cores;
                            if then >= need {
                                return (e, then);
                            }
                        }
                        (i64::MAX, then)
                    });
                    if t + p.walltime <= *at {
                        true // ends (by its requested time) before the reservation
                    } else if p.cores <= *then && *then - p.cores >= need {
                        *then -= p.cores; // runs past it on cores the reserved job leaves
                        true
                    } else {
                        false
                    }
                } else {
                    true
                };
                if !starts {
                    queue[kept] = j;
                    kept += 1;
                    continue;
                }
                self.start_now(j, t);
                // The scan read the queue's smallest size before it began.
                sizes.remove(p.cores);
                if tracked {
                    let key = self.requested_end(j);
                    let k = by_end.partition_point(|x| *x < key);
                    by_end.insert(k, key);
                }
            }
            // The jobs after the last one looked at stay queued, after those left.
            queue.drain(kept..looked);
            if queue.is_empty() {
                tracked = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scheduler::Simulator;
    use crate::workload::Request;

    fn job(
        i: usize,
        submit: i64,
        run: i64,
        walltime: i64,
        given: bool,
        request: Request,
    ) -> SimJob {
        SimJob::from(crate::sim::JobSpec {
            submit,
            run,
            walltime,
            walltime_given: given,
            request,
            ..crate::sim::JobSpec::test(&i.to_string())
        })
    }

    /// A random workload: bursts of submits at one time, runs past and short of their
    /// requested times, zero-core node requests, runs of no length.
    fn workload(nodes: u32, cores: u32, seed: u64, n: usize) -> Vec<SimJob> {
        let mut x = seed;
        let mut next = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let mut t = 0;
        (0..n)
            .map(|i| {
                t += next(5).saturating_sub(2) as i64;
                let run = next(40) as i64;
                let walltime = (run + next(30) as i64 - 8).max(0);
                let request = match next(10) {
                    0 if cores == 1 => Request::Nodes {
                        nodes: 1 + next(u64::from(nodes)) as u32,
                        cores: 1,
                    },
                    1 => Request::Nodes {
                        nodes: 1 + next(u64::from(nodes)) as u32,
                        cores: 0,
                    },
                    2 => Request::Procs(1 + next(u64::from(nodes * cores)) as u32),
                    _ => Request::Procs(1 + next(u64::from(nodes * cores) / 4 + 1) as u32),
                };
                job(i, t, run, walltime, next(4) != 0, request)
            })
            .collect()
    }

    /// The plain loop gives the general rounds' schedule and round count, strict and EASY,
    /// with the general rounds full (every job ranked and decided, the cluster by node) and
    /// quick (the head path, counted cores).
    #[test]
    fn the_plain_loop_schedules_as_the_general_rounds() {
        for (nodes, cores) in [(1, 1), (8, 1), (6, 4), (32, 1), (3, 16)] {
            for policy in [Policy::Strict, Policy::Easy] {
                for seed in 0..12 {
                    let jobs = workload(nodes, cores, seed, 300);
                    let config = SimConfig::new(policy, nodes, cores);
                    let setup = Setup::new(&config, &jobs).unwrap();
                    assert!(applies(&setup, None, false));
                    let plain = run(&jobs, &setup).unwrap().expect("decided by counts");
                    let full = Simulator::new(&jobs, &setup, None).unwrap().run_to_end();
                    let quick = Simulator::new(&jobs, &setup, None)
                        .unwrap()
                        .with_full_rounds(false)
                        .run_to_end();
                    let what = format!("{nodes}x{cores} {policy:?} seed {seed}");
                    assert_eq!(plain.start, full.start, "{what}");
                    assert_eq!(plain.end, full.end, "{what}");
                    assert_eq!(plain.rounds, full.rounds, "{what}");
                    assert_eq!(plain.start, quick.start, "{what}");
                    assert_eq!(plain.capacity, full.capacity, "{what}");
                    assert!(plain.start.iter().all(Option::is_some), "{what}");
                }
            }
        }
    }

    /// A job that can never fit, and jobs out of submit order, are refused as the general
    /// rounds refuse them; a request of nodes of several cores goes to the general rounds.
    #[test]
    fn refusals_are_the_general_rounds_and_nodes_of_cores_are_not_counted() {
        let config = SimConfig::new(Policy::Easy, 4, 2);
        let big = vec![job(0, 0, 5, 5, true, Request::Procs(9))];
        let setup = Setup::new(&config, &big).unwrap();
        assert_eq!(
            run(&big, &setup).unwrap_err().to_string(),
            Simulator::new(&big, &setup, None)
                .err()
                .unwrap()
                .to_string()
        );
        let unsorted = vec![
            job(0, 5, 5, 5, true, Request::Procs(1)),
            job(1, 2, 5, 5, true, Request::Procs(1)),
        ];
        let setup = Setup::new(&config, &unsorted).unwrap();
        assert_eq!(
            run(&unsorted, &setup).unwrap_err().to_string(),
            Simulator::new(&unsorted, &setup, None)
                .err()
                .unwrap()
                .to_string()
        );
        let nodes = vec![job(0, 0, 5, 5, true, Request::Nodes { nodes: 2, cores: 2 })];
        let setup = Setup::new(&config, &nodes).unwrap();
        assert!(run(&nodes, &setup).unwrap().is_none());
    }
}
