//! A trace's real schedule (SWF `submit + wait`) as a recording, and its metrics.

use crate::sim::metrics;
use crate::sim::record::{Header, RecDecision, RecEvent, RecRound, Recording};
use crate::sim::scheduler::SimConfig;
use crate::workload::Workload;
use std::collections::BTreeMap;

/// A real schedule as a recording: rounds at every submit, start and end time of an SWF
/// trace with recorded waits. Jobs without a recorded start are never dispatched (they show
/// up as uncaptured). Ends use the trace's run time. A job that ran 0 seconds ends in a
/// round of its own right after the one that started it, at the same time (a round's ends
/// come before its dispatches; the job held its cores when that round decided).
pub fn recording_from_trace(w: &Workload, config: &SimConfig) -> Recording {
    // Per time: (ends, submits, starts) as job indices, then the ends of the jobs that
    // started then and ran 0 seconds.
    type AtTime = (Vec<usize>, Vec<usize>, Vec<usize>, Vec<usize>);
    let mut at: BTreeMap<i64, AtTime> = BTreeMap::new();
    for (i, j) in w.jobs.iter().enumerate() {
        at.entry(j.submit).or_default().1.push(i);
        if let Some(s) = j.recorded_start() {
            let t = at.entry(s).or_default();
            t.2.push(i);
            if j.run == 0 {
                t.3.push(i);
            } else {
                at.entry(s + j.run).or_default().0.push(i);
            }
        }
    }
    // (time, (ends, submits, starts)) of each instant.
    type Instant = (i64, (Vec<usize>, Vec<usize>, Vec<usize>));
    let mut times: Vec<Instant> = Vec::with_capacity(at.len());
    for (t, (ends, submits, starts, zero)) in at {
        times.push((t, (ends, submits, starts)));
        if !zero.is_empty() {
            times.push((t, (zero, vec![], vec![])));
        }
    }
    let mut rounds = Vec::with_capacity(times.len());
    for (k, (t, (ends, submits, starts))) in times.into_iter().enumerate() {
        let mut events: Vec<RecEvent> = ends
            .iter()
            .map(|&i| RecEvent::End(w.jobs[i].id.to_string()))
            .collect();
        events.extend(
            submits
                .iter()
                .map(|&i| RecEvent::Submit(Box::new(w.jobs[i].clone()))),
        );
        let decisions = starts
            .iter()
            .map(|&i| RecDecision::Dispatch {
                job: w.jobs[i].id.to_string(),
                nodes: vec![],
                cores: w.jobs[i].request.total_cores(),
            })
            .collect();
        rounds.push(RecRound {
            line: k + 2,
            round: k as u64,
            time: t,
            events,
            queue: vec![],
            decisions,
            hash: None,
        });
    }
    Recording {
        header: Header::new(crate::sim::run::trace_info(w), None, config),
        rounds,
        truncated: false,
    }
}

/// Metrics of the recorded schedule of a trace (start = submit + wait, end = start + run).
pub fn recorded_metrics(w: &Workload, capacity: u64) -> metrics::Metrics {
    let start: Vec<Option<i64>> = w.jobs.iter().map(|j| j.recorded_start()).collect();
    let end: Vec<Option<i64>> = w
        .jobs
        .iter()
        .map(|j| j.recorded_start().map(|s| s + j.run))
        .collect();
    metrics::compute(&w.jobs, &start, &end, capacity)
}

/// A moment when a real schedule's running jobs hold more cores than the cluster has.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Overcommit {
    /// The first such time (s).
    pub time: i64,
    /// Cores the recorded running jobs hold then, and the cluster's.
    pub cores: u64,
    pub capacity: u64,
    /// Jobs running then.
    pub running: usize,
}

/// Whether a trace's recorded schedule fits its cluster of `capacity` cores: the first
/// moment its running jobs (from their recorded start for their run time; a job ending at
/// `t` frees its cores for one starting at `t`) hold more, or `None`. Cores are counted in
/// aggregate, as [`super::reconcile`] charges them.
pub fn check_capacity(w: &Workload, capacity: u64) -> Option<Overcommit> {
    // At one time: the ends of jobs that started before it (phase 0), then the starts (1),
    // then the ends of jobs that ran 0 seconds (2), which hold their cores at that time.
    let mut events: Vec<(i64, u8, i64)> = Vec::with_capacity(2 * w.jobs.len());
    for j in &w.jobs {
        if let Some(s) = j.recorded_start() {
            let c = j.request.total_cores() as i64;
            events.push((s, 1, c));
            events.push((s + j.run, if j.run == 0 { 2 } else { 0 }, -c));
        }
    }
    events.sort_unstable();
    let (mut cores, mut running) = (0i64, 0usize);
    for (i, &(t, phase, d)) in events.iter().enumerate() {
        cores += d;
        if d > 0 {
            running += 1;
        } else {
            running -= 1;
        }
        // Judge a time once all its ends and starts are in (before its 0-second jobs end).
        let last_at_t = phase < 2
            && events
                .get(i + 1)
                .is_none_or(|&(next, next_phase, _)| next != t || next_phase == 2);
        if last_at_t && cores as u64 > capacity {
            return Some(Overcommit {
                time: t,
                cores: cores as u64,
                capacity,
                running,
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{Request, SimJob};

    fn job(id: &str, start: i64, run: i64, procs: u32) -> SimJob {
        SimJob::from(crate::sim::JobSpec {
            run,
            walltime: run,
            walltime_given: false,
            request: Request::Procs(procs),
            recorded_start: Some(start),
            ..crate::sim::JobSpec::test(id)
        })
    }

    #[test]
    fn a_real_schedule_must_fit_its_cluster() {
        // a ends at 10 as b starts there: 4 cores at most, never 8.
        let w = Workload {
            jobs: vec![job("a", 0, 10, 4), job("b", 10, 5, 4), job("c", 12, 5, 2)],
            ..Default::default()
        };
        assert_eq!(check_capacity(&w, 6), None);
        assert_eq!(
            check_capacity(&w, 5),
            Some(Overcommit {
                time: 12,
                cores: 6,
                capacity: 5,
                running: 2
            })
        );
        assert_eq!(check_capacity(&w, 3).map(|o| o.time), Some(0));
    }

    /// A job that ran 0 seconds (sacct `Elapsed 00:00:00`) holds its cores at the time it
    /// started, alongside the jobs that start then, after those that end then.
    #[test]
    fn a_job_that_ran_0_seconds_holds_its_cores_at_its_start() {
        let w = Workload {
            jobs: vec![job("a", 0, 10, 4), job("b", 10, 5, 4), job("z", 10, 0, 4)],
            ..Default::default()
        };
        assert_eq!(check_capacity(&w, 8), None);
        assert_eq!(
            check_capacity(&w, 7),
            Some(Overcommit {
                time: 10,
                cores: 8,
                capacity: 7,
                running: 2
            })
        );
        let alone = Workload {
            jobs: vec![job("z", 3, 0, 2)],
            ..Default::default()
        };
        assert_eq!(check_capacity(&alone, 2), None);
        assert_eq!(check_capacity(&alone, 1).map(|o| o.time), Some(3));
    }
}
