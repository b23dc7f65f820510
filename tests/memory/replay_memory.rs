//! `replay --verify` streams: the heap it needs is the recorded jobs and one round, not the
//! recording. A recording whose rounds list a long queue is many times the size of its jobs;
//! verifying it round by round ([`RecordingReader`], [`RecordedJobs`], [`Verifier`]) gives
//! the report `verify` gives for the recording read whole, in a small part of its size.
//! Measured with a counting allocator (this test binary's own), in bytes, not time.

use jobsort::sim::record::{RecordingReader, parse_recording};
use jobsort::sim::replay::{RecordedJobs, Verifier, recorded_setup, verify};
use jobsort::sim::run::{RunOptions, simulate};
use jobsort::sim::swf::parse_swf;
use jobsort::sim::{IrPriority, Policy, SimConfig};
use std::io::BufReader;

use crate::heap;

#[test]
fn verify_reads_a_recording_round_by_round_in_a_small_part_of_its_size() {
    let _alone = heap::alone();
    // 2000 two-second jobs on one core, one submitted every second: the queue grows by one
    // job every two seconds, to 1000, and every round lists it (`record_queue`).
    let jobs = 2000;
    let mut swf = String::from("; MaxNodes: 1\n; MaxProcs: 1\n");
    for i in 1..=jobs {
        swf.push_str(&format!(
            "{i} {i} -1 2 1 -1 -1 1 2 -1 1 {} 1 -1 -1 -1 -1 -1\n",
            i % 7
        ));
    }
    let w = parse_swf(&swf, "queue.swf").unwrap();
    let config = SimConfig::new(Policy::Strict, 1, 1);
    let f = IrPriority::negated_column("walltime");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rec.jsonl");
    // With the ranked queue listed in every round, as version 1 always did (version 2
    // without it writes 442 kB here).
    let record = RunOptions {
        record: Some(&path),
        record_queue: true,
        ..Default::default()
    };
    simulate(&w, &config, Some(&f), &record).unwrap();
    drop(w);
    let size = std::fs::metadata(&path).unwrap().len() as usize;
    let whole = verify(
        &parse_recording(&std::fs::read_to_string(&path).unwrap(), "rec.jsonl").unwrap(),
        Some(&f),
    )
    .unwrap();

    let (streamed, peak) = heap::peak_during(|| {
        let open = || {
            let file = std::fs::File::open(&path).unwrap();
            RecordingReader::new(BufReader::new(file), "rec.jsonl").unwrap()
        };
        let mut reader = open();
        let mut recorded = RecordedJobs::default();
        while let Some(r) = reader.next_round().unwrap() {
            recorded.add(r.round, r.events).unwrap();
        }
        let (header, truncated) = (reader.header.clone(), reader.truncated());
        let jobs = recorded.finish();
        let setup = recorded_setup(&header, &jobs).unwrap();
        let mut verifier = Verifier::new(&jobs, &setup, Some(&f), &header).unwrap();
        let mut reader = open();
        while let Some(r) = reader.next_round().unwrap() {
            verifier.round(&r);
        }
        verifier.finish(truncated)
    });

    assert_eq!(streamed, whole);
    assert_eq!((streamed.rounds, streamed.mismatches), (3001, 0));
    assert!(size > 10_000_000, "the recording is {size} bytes");
    // A round holds one submit and at most 1000 queue entries; the recording read whole
    // would be its text and every round parsed.
    assert!(
        peak < size / 8,
        "verifying a {size}-byte recording took {peak} bytes of heap"
    );
}

/// A recording header with 4,000,000,000 nodes (it allocated 16 GB) is refused by
/// the setup's node limit (`sim::setup::MAX_NODES`, checked first in `Setup::new`) before
/// anything is sized by it.
#[test]
fn a_header_of_four_billion_nodes_is_refused_without_allocating_for_them() {
    let _alone = heap::alone();
    use jobsort::sim::record::{Header, TraceInfo};
    let config = SimConfig::new(Policy::Strict, 4_000_000_000, 1);
    let header = serde_json::to_string(&Header::new(TraceInfo::default(), None, &config)).unwrap();
    let text = format!(
        "{header}\n{}\n",
        r#"{"round":0,"time":0,"events":[{"submit":"1","procs":1,"run":10}],"queue":[],"decisions":[]}"#
    );
    let rec = parse_recording(&text, "r.jsonl").unwrap();
    let e = verify(&rec, None).unwrap_err().to_string();
    assert!(
        e.starts_with("header: too many nodes to simulate (4000000000;"),
        "{e}"
    );
}
