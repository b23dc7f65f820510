//! One meaning per input: `jobsort rank --jobs F.swf` binds every formula input of a trace's
//! jobs as `jobsort sim --trace F.swf` does when each job is submitted (the value recorded for
//! the job in its submit round, where `eligible_time` is 0).

use jobsort::sim::record::{RecEvent, parse_recording};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;

use crate::common;

/// Jobs of several sizes, requested times (one missing: the run time stands in), memory (one
/// missing), users, groups and queues.
const TRACE: &str = "\
; MaxNodes: 4
; MaxProcs: 32
1 0 0 100 4 -1 -1 4 200 1000 1 1 1 -1 1 -1 -1 -1
2 10 0 50 8 -1 -1 8 100 -1 1 2 1 -1 2 -1 -1 -1
3 10 0 500 16 -1 -1 16 3600 512 1 1 2 -1 1 -1 -1 -1
4 20 0 30 2 -1 -1 2 -1 -1 1 3 2 -1 3 -1 -1 -1
5 25 0 60 32 -1 -1 32 120 64 1 2 1 -1 1 -1 -1 -1
";

const INPUTS: [&str; 8] = [
    "ncpus",
    "walltime",
    "mem",
    "nodect",
    "queue_priority",
    "job_priority",
    "accrue_type",
    "eligible_time",
];

/// `jobsort ARGS`, which must succeed.
fn jobsort(args: &[&str]) -> Output {
    let out = common::cli::jobsort(args);
    assert!(
        out.status.success(),
        "jobsort {args:?} failed: {}",
        common::cli::stderr(&out)
    );
    out
}

/// Each job's value of `formula` from `rank --jobs`.
fn ranked(trace: &str, formula: &str) -> BTreeMap<String, f64> {
    let out = jobsort(&["rank", formula, "--jobs", trace, "--format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("rank prints JSON");
    v["order"]
        .as_array()
        .expect("an order")
        .iter()
        .map(|j| {
            let id = j["id"].as_str().expect("an id").to_string();
            (id, j["value"].as_f64().expect("a value"))
        })
        .collect()
}

/// Each job's value of `formula` in the round it was submitted, from a `sim` recording.
fn simulated(trace: &str, formula: &str, record: &Path) -> BTreeMap<String, f64> {
    let rec = record.to_str().expect("a UTF-8 path");
    jobsort(&[
        "sim",
        "--trace",
        trace,
        "--formula",
        formula,
        "--policy",
        "strict",
        "--nodes",
        "4",
        "--cores",
        "8",
        "--record",
        rec,
        "--record-queue",
        "--format",
        "json",
    ]);
    let text = std::fs::read_to_string(record).expect("a recording");
    let recording = parse_recording(&text, rec).expect("a valid recording");
    let mut values = BTreeMap::new();
    for round in &recording.rounds {
        for event in &round.events {
            let RecEvent::Submit(job) = event else {
                continue;
            };
            let (_, v) = round
                .queue
                .iter()
                .find(|(id, _)| *id == job.id)
                .expect("a submitted job is ranked in its submit round");
            values.insert(job.id.to_string(), *v);
        }
    }
    values
}

#[test]
fn rank_on_a_trace_binds_what_the_simulator_binds_at_submit() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.swf");
    std::fs::write(&trace, TRACE).unwrap();
    let trace = trace.to_str().unwrap();
    for (k, input) in INPUTS.iter().enumerate() {
        let record = dir.path().join(format!("rec{k}.jsonl"));
        let sim = simulated(trace, input, &record);
        let rank = ranked(trace, input);
        assert_eq!(sim.len(), 5, "{input}: every job is simulated");
        assert_eq!(rank, sim, "{input}: rank --jobs and sim --trace disagree");
    }
    // What PBS gives a queued job that accrues eligible time (see `sim::inputs`).
    let rank = ranked(trace, "accrue_type * 10 + job_priority");
    assert!(rank.values().all(|&v| v == 20.0), "{rank:?}");
    // The trace's own numbers come through: processors, requested time (the run time when
    // missing), memory per processor times processors.
    let rank = ranked(trace, "ncpus * 1e9 + walltime * 1e4 + mem");
    assert_eq!(rank["1"], 4e9 + 200e4 + 4000.0);
    assert_eq!(rank["4"], 2e9 + 30e4);
}
