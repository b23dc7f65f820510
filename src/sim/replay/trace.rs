//! A trace's real schedule (SWF `submit + wait`) as a recording, and its metrics.

use crate::sim::metrics;
use crate::sim::record::{Header, RecDecision, RecEvent, RecRound, Recording};
use crate::sim::scheduler::SimConfig;
use crate::sim::workload::Workload;
use std::collections::BTreeMap;

/// A real schedule as a recording: rounds at every submit, start and end time of an SWF
/// trace with recorded waits. Jobs without a recorded start are never dispatched (they show
/// up as uncaptured). Ends use the trace's run time.
pub fn recording_from_trace(w: &Workload, config: &SimConfig) -> Recording {
    // Per time: (ends, submits, starts) as job indices.
    type AtTime = (Vec<usize>, Vec<usize>, Vec<usize>);
    let mut at: BTreeMap<i64, AtTime> = BTreeMap::new();
    for (i, j) in w.jobs.iter().enumerate() {
        at.entry(j.submit).or_default().1.push(i);
        if let Some(s) = j.recorded_start {
            at.entry(s).or_default().2.push(i);
            at.entry(s + j.run).or_default().0.push(i);
        }
    }
    let mut rounds = Vec::with_capacity(at.len());
    for (k, (t, (ends, submits, starts))) in at.into_iter().enumerate() {
        let mut events: Vec<RecEvent> = ends
            .iter()
            .map(|&i| RecEvent::End(w.jobs[i].id.clone()))
            .collect();
        events.extend(
            submits
                .iter()
                .map(|&i| RecEvent::Submit(Box::new(w.jobs[i].clone()))),
        );
        let decisions = starts
            .iter()
            .map(|&i| RecDecision::Dispatch {
                job: w.jobs[i].id.clone(),
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
    let start: Vec<Option<i64>> = w.jobs.iter().map(|j| j.recorded_start).collect();
    let end: Vec<Option<i64>> = w
        .jobs
        .iter()
        .map(|j| j.recorded_start.map(|s| s + j.run))
        .collect();
    metrics::compute(&w.jobs, &start, &end, capacity)
}
