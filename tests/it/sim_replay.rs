//! Recording determinism, `replay --verify` (fresh, other formula, tampered, truncated) and
//! recording parse errors.

use jobsort::sim::record::parse_recording;
use jobsort::sim::replay::verify;
use jobsort::sim::run::{RunOptions, simulate};
use jobsort::sim::share::{AutoTree, FairshareConfig};
use jobsort::sim::swf::parse_swf;
use jobsort::sim::{IrPriority, Policy, Priority, SimConfig, Workload};

fn workload() -> Workload {
    // One core. X: t=0, 10 s. Y: t=1, runs 5, requests 50. Z: t=2, runs 5, requests 5.
    // Users differ so the fairshare tree has several leaves.
    let s = "; MaxNodes: 1\n; MaxProcs: 1\n\
1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n\
2 1 -1 5 1 -1 -1 1 50 -1 1 2 1 -1 -1 -1 -1 -1\n\
3 2 -1 5 1 -1 -1 1 5 -1 1 3 2 -1 -1 -1 -1 -1\n";
    let mut w = parse_swf(s, "fixture.swf").unwrap();
    w.name = "fixture.swf".into();
    w
}

fn config() -> SimConfig {
    SimConfig {
        policy: Policy::Strict,
        nodes: 1,
        cores: 1,
        threshold: None,
        fairshare: Some(FairshareConfig::auto(AutoTree::User)),
        limits: None,
        queue_order: None,
    }
}

fn record(w: &Workload, f: &dyn Priority) -> String {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("rec.jsonl");
    simulate(
        w,
        &config(),
        Some(f),
        &RunOptions {
            record: Some(&p),
            // The ranked queue in every round: the tests below edit and compare it.
            record_queue: true,
            ..Default::default()
        },
    )
    .unwrap();
    std::fs::read_to_string(&p).unwrap()
}

#[test]
fn two_runs_give_byte_identical_recordings() {
    let w = workload();
    let f = IrPriority::column("eligible_time");
    let a = record(&w, &f);
    let b = record(&w, &f);
    assert_eq!(a, b);
    // Header, then one line per round: t = 0, 1, 2, 10, 15, 20.
    assert_eq!(a.lines().count(), 7);
    let round3 = a.lines().nth(4).unwrap();
    // Z (3) pended for resources at t=2 already: version 2 does not repeat it.
    assert!(round3.starts_with(r#"{"round":3,"time":10,"events":[{"end":"1"}],"queue":[["2",9.0],["3",8.0]],"decisions":[{"dispatch":"2","nodes":"0","cores":1}],"hash":""#), "{round3}");
}

#[test]
fn verify_of_a_fresh_recording_has_no_mismatch() {
    let w = workload();
    let f = IrPriority::column("eligible_time");
    let rec = parse_recording(&record(&w, &f), "rec.jsonl").unwrap();
    assert!(!rec.truncated);
    let r = verify(&rec, Some(&f)).unwrap();
    assert_eq!((r.rounds, r.mismatches, r.input_mismatches), (6, 0, 0));
    assert_eq!(r.first_divergence, None);
}

#[test]
fn verify_with_another_formula_reports_the_first_divergence() {
    let w = workload();
    let rec = parse_recording(
        &record(&w, &IrPriority::column("eligible_time")),
        "rec.jsonl",
    )
    .unwrap();
    // The values differ from the first round on: X's eligible time 0 is -10 (its walltime).
    let r = verify(&rec, Some(&IrPriority::negated_column("walltime"))).unwrap();
    let d = r.first_divergence.expect("diverges");
    assert_eq!((d.round, d.time, d.job.as_deref()), (0, 0, Some("1")));
    assert_eq!(d.recorded, r#"["1",0.0]"#);
    assert_eq!(d.live, r#"["1",-10.0]"#);
    // Shortest requested first ranks Z (3) before Y (2) as soon as both queue (t=2, both
    // pend: decisions are listed in rank order), then starts Z at t=10 where FCFS started Y.
    // Queues differ at t=0, 1, 2, 10, 15 (one each). Decisions, as version 2 keeps them
    // (a pend only when new): t=2 keeps Z's new pend on both sides; t=10: dispatch 2 vs 3
    // (Y's and Z's repeated pends are not kept); t=15: dispatch 3 vs 2. Events: Y ends at
    // t=15 and Z at t=20 as recorded, the other way round live: each end on one side only
    // counts once, two in each of those rounds.
    assert_eq!(r.mismatches, 5 + 2 + 4);
    assert!(r.input_mismatches >= 1);
}

#[test]
fn a_tampered_recording_fails_at_the_tampered_decision() {
    let w = workload();
    let f = IrPriority::column("eligible_time");
    let text = record(&w, &f);
    // Round 4 (t=15) dispatches job 3; claim it pended instead.
    let tampered = text.replace(
        r#"{"dispatch":"3","nodes":"0","cores":1}"#,
        r#"{"pend":"3","reason":"reservation"}"#,
    );
    assert_ne!(tampered, text);
    let r = verify(&parse_recording(&tampered, "t.jsonl").unwrap(), Some(&f)).unwrap();
    assert_eq!(r.mismatches, 1);
    let d = r.first_divergence.unwrap();
    assert_eq!((d.round, d.time, d.job.as_deref()), (4, 15, Some("3")));
    assert_eq!(d.recorded, r#"{"pend":"3","reason":"reservation"}"#);
    assert_eq!(d.live, r#"{"dispatch":"3","nodes":"0","cores":1}"#);
}

#[test]
fn a_truncated_recording_verifies_up_to_its_last_complete_round() {
    let w = workload();
    let f = IrPriority::column("eligible_time");
    let text = record(&w, &f);
    // Cut the file in the middle of round 4's line (as a crash while writing would).
    let cut = text.find(r#"{"round":4"#).unwrap() + 20;
    let rec = parse_recording(&text[..cut], "cut.jsonl").unwrap();
    assert!(rec.truncated);
    assert_eq!(rec.rounds.len(), 4);
    let r = verify(&rec, Some(&f)).unwrap();
    assert_eq!((r.rounds, r.mismatches, r.truncated), (4, 0, true));
    // Cut exactly after a newline: every line whole, but the schedule stops before its jobs
    // end (job 3, dispatched at t=15 in round 4, has not started; job 2 has no end):
    // truncated all the same.
    let clean = text.find(r#"{"round":4"#).unwrap();
    let rec = parse_recording(&text[..clean], "clean.jsonl").unwrap();
    assert!(!rec.truncated);
    let r = verify(&rec, Some(&f)).unwrap();
    assert_eq!((r.rounds, r.mismatches, r.truncated), (4, 0, true));
    assert_eq!(
        r.truncation.as_deref(),
        Some(
            "it ends before its jobs do: 3 of the header's 3 jobs submitted, 1 dispatched without an end"
        )
    );
    // Cut after round 1: two of the three jobs submitted.
    let early = text.find(r#"{"round":2"#).unwrap();
    let r = verify(
        &parse_recording(&text[..early], "early.jsonl").unwrap(),
        Some(&f),
    )
    .unwrap();
    assert_eq!((r.rounds, r.mismatches, r.truncated), (2, 0, true));
    assert_eq!(
        r.truncation.as_deref(),
        Some("it ends before its jobs do: 2 of the header's 3 jobs submitted")
    );
    // The whole recording: not truncated.
    let r = verify(&parse_recording(&text, "whole.jsonl").unwrap(), Some(&f)).unwrap();
    assert_eq!((r.rounds, r.truncated, r.truncation), (6, false, None));
    // Cut inside the header.
    let e = parse_recording(&text[..30], "h.jsonl").unwrap_err();
    assert_eq!(
        e.to_string(),
        "h.jsonl:1: truncated before the end of the header"
    );
}

/// The recorded events are compared with the live ones too: an end moved to the next round,
/// an end deleted, or an end of a job that has not started is a mismatch, never verified.
#[test]
fn an_end_moved_deleted_or_invented_is_a_mismatch() {
    let w = workload();
    let f = IrPriority::column("eligible_time");
    let text = record(&w, &f);
    let end1 = r#"{"round":3,"time":10,"events":[{"end":"1"}]"#;
    assert!(text.contains(end1), "{text}");
    let cases = [
        // X's end (t=10) moved one round later, to t=15 (beside Y's).
        (
            text.replace(end1, r#"{"round":3,"time":10,"events":[]"#)
                .replace(
                    r#"{"round":4,"time":15,"events":["#,
                    r#"{"round":4,"time":15,"events":[{"end":"1"},"#,
                ),
            2,
            (3, Some("1"), "null", r#"{"end":"1"}"#),
        ),
        // X's end deleted.
        (
            text.replace(end1, r#"{"round":3,"time":10,"events":[]"#),
            1,
            (3, Some("1"), "null", r#"{"end":"1"}"#),
        ),
        // An end at t=1 for Z, which is submitted at t=2.
        (
            text.replace(
                r#"{"round":1,"time":1,"events":["#,
                r#"{"round":1,"time":1,"events":[{"end":"3"},"#,
            ),
            1,
            (1, Some("3"), r#"{"end":"3"}"#, "null"),
        ),
    ];
    for (edited, mismatches, (round, job, recorded, live)) in cases {
        assert_ne!(edited, text);
        let r = verify(&parse_recording(&edited, "e.jsonl").unwrap(), Some(&f)).unwrap();
        assert_eq!(r.mismatches, mismatches, "{edited}");
        assert!(!r.truncated, "{edited}");
        let d = r.first_divergence.unwrap();
        assert_eq!(
            (
                d.round,
                d.job.as_deref(),
                d.recorded.as_str(),
                d.live.as_str()
            ),
            (round, job, recorded, live),
            "{edited}"
        );
    }
}

#[test]
fn malformed_recording_lines_say_file_and_line() {
    let w = workload();
    let text = record(&w, &IrPriority::column("eligible_time"));
    let mut lines: Vec<&str> = text.lines().collect();
    lines[2] = r#"{"round":1,"time":"soon","events":[],"queue":[],"decisions":[]}"#;
    let bad = lines.join("\n") + "\n";
    let e = parse_recording(&bad, "bad.jsonl").unwrap_err();
    assert_eq!(e.to_string(), "bad.jsonl:3: `time` must be an integer");
    lines[2] = r#"{"round":1,"time":1,"events":[],"queue":[],"decisions":[{"pend":"2","reason":"bored"}]}"#;
    let e = parse_recording(&(lines.join("\n") + "\n"), "bad.jsonl").unwrap_err();
    assert_eq!(
        e.to_string(),
        "bad.jsonl:3: decisions[0]: unknown pend reason `bored`"
    );
}

#[test]
fn an_edited_queue_value_is_a_mismatch_bit_for_bit() {
    let w = workload();
    let f = IrPriority::column("eligible_time");
    let text = record(&w, &f);
    // Round 3 (t=10) ranks Y (9.0) before Z (8.0); the decisions stay as recorded.
    let edited = text.replace(
        r#"["2",9.0],["3",8.0]"#,
        r#"["2",9.000000000000002],["3",8.0]"#,
    );
    assert_ne!(edited, text);
    let r = verify(&parse_recording(&edited, "q.jsonl").unwrap(), Some(&f)).unwrap();
    assert_eq!(r.mismatches, 1);
    let d = r.first_divergence.unwrap();
    assert_eq!((d.round, d.time, d.job.as_deref()), (3, 10, Some("2")));
    assert_eq!(d.recorded, r#"["2",9.000000000000002]"#);
    assert_eq!(d.live, r#"["2",9.0]"#);
    // A job missing from the recorded queue is a divergence too.
    let dropped = text.replace(r#"["2",9.0],["3",8.0]"#, r#"["2",9.0]"#);
    let r = verify(&parse_recording(&dropped, "q.jsonl").unwrap(), Some(&f)).unwrap();
    assert_eq!(r.mismatches, 1);
    let d = r.first_divergence.unwrap();
    assert_eq!((d.job.as_deref(), d.recorded.as_str()), (Some("3"), "null"));
    assert_eq!(d.live, r#"["3",8.0]"#);
}

#[test]
fn a_recording_is_read_with_the_rules_the_cli_and_the_trace_loaders_apply() {
    let w = workload();
    let text = record(&w, &IrPriority::column("eligible_time"));
    let err = |edited: String| {
        assert_ne!(edited, text);
        parse_recording(&edited, "r.jsonl").unwrap_err().to_string()
    };
    // Header settings `jobsort sim` refuses as flags.
    assert_eq!(
        err(text.replace(r#""decay_factor":0.5"#, r#""decay_factor":5.0"#)),
        "r.jsonl:1: `fairshare.decay_factor` 5: must be between 0 and 1"
    );
    assert_eq!(
        err(text.replace(r#""decay_time":86400"#, r#""decay_time":-1"#)),
        "r.jsonl:1: `fairshare.decay_time` -1: must be positive"
    );
    // Submit events the trace loaders would not have kept or could not have read: round 0
    // (line 2) submits job 1.
    let submit = r#"{"submit":"1","time":0,"procs":1,"walltime":10,"run":10"#;
    assert!(text.contains(submit));
    let with = |edit: &str| err(text.replace(submit, edit));
    assert_eq!(
        with(r#"{"submit":"1","time":0,"procs":-3,"walltime":10,"run":10"#),
        "r.jsonl:2: events[0]: `procs`: a submitted job needs at least one core"
    );
    // A job that ran 0 seconds is a job the loaders keep; less is not.
    assert_eq!(
        with(r#"{"submit":"1","time":0,"procs":1,"walltime":10,"run":-1"#),
        "r.jsonl:2: events[0]: `run`: -1 s is below 0"
    );
    assert_eq!(
        with(r#"{"submit":"1","time":-7,"procs":1,"walltime":10,"run":10"#),
        "r.jsonl:2: events[0]: `time`: -7 s is below 0"
    );
    assert_eq!(
        with(r#"{"submit":"1","time":0,"procs":1,"walltime":9e18,"run":10"#),
        "r.jsonl:2: events[0]: `walltime`: 9000000000000000000 s is more than 2^53 s (285 million years)"
    );
    assert_eq!(
        with(r#"{"submit":"1","time":0,"procs":1e10,"walltime":10,"run":10"#),
        "r.jsonl:2: events[0]: `procs`: 10000000000 is more than the 4294967295 a job may ask for"
    );
    // Round times and dispatched cores out of range.
    assert_eq!(
        err(text.replace(r#"{"round":1,"time":1,"#, r#"{"round":1,"time":-1,"#)),
        "r.jsonl:3: `time` -1: must be between 0 and 9214364837600034815 s"
    );
    assert_eq!(
        err(text.replacen(
            r#""nodes":"0","cores":1}"#,
            r#""nodes":"0","cores":18446744073709551615}"#,
            1
        )),
        "r.jsonl:2: decisions[0]: `cores` 18446744073709551615: more than the 4294967295 a job may hold"
    );
}
