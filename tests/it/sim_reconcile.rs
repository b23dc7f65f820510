//! Reconciliation (SPEC §5.4), each behaviour its own test, on a hand-written recording with
//! resource contention: one node of 2 cores.
//!
//! ```text
//! round 0 t=0   submit A (2 cores, req 100), B (1, req 10); dispatch A  ← A still pending
//! round 1 t=5   submit C (1, req 10); pend B, C
//! round 2 t=8   submit D (1, req 5)
//! round 3 t=10  RUN A (the confirmation, three rounds after the dispatch)
//! round 4 t=50  end A; dispatch B, C
//! round 5 t=55  dispatch B again (a duplicate)
//! round 6 t=60  end B, C
//! ```
//! D never has a recorded dispatch.

use jobsort::sim::record::parse_recording;
use jobsort::sim::replay::{ReconcileReport, reconcile, recording_from_trace};
use jobsort::sim::swf::parse_swf;
use jobsort::sim::{IrPriority, Policy, Priority, SimConfig};

const HEADER: &str = r#"{"format":"jobsort-recording","version":1,"trace":{"name":"hand","sha256":"","jobs":4,"dropped":{}},"formula":null,"policy":"strict","cluster":{"nodes":1,"cores":2},"threshold":null,"fairshare":null,"limits":null}"#;

fn recording() -> String {
    let rounds = [
        r#"{"round":0,"time":0,"events":[{"submit":"A","procs":2,"walltime":100,"run":50},{"submit":"B","procs":1,"walltime":10,"run":10}],"queue":[],"decisions":[{"dispatch":"A","nodes":[0],"cores":2},{"pend":"B","reason":"resources"}],"hash":null}"#,
        r#"{"round":1,"time":5,"events":[{"submit":"C","procs":1,"walltime":10,"run":10}],"queue":[],"decisions":[{"pend":"B","reason":"resources"},{"pend":"C","reason":"resources"}],"hash":null}"#,
        r#"{"round":2,"time":8,"events":[{"submit":"D","procs":1,"walltime":5,"run":5}],"queue":[],"decisions":[],"hash":null}"#,
        r#"{"round":3,"time":10,"events":[{"run":"A"}],"queue":[],"decisions":[],"hash":null}"#,
        r#"{"round":4,"time":50,"events":[{"end":"A"}],"queue":[],"decisions":[{"dispatch":"B","nodes":[0],"cores":1},{"dispatch":"C","nodes":[0],"cores":1}],"hash":null}"#,
        r#"{"round":5,"time":55,"events":[],"queue":[],"decisions":[{"dispatch":"B","nodes":[0],"cores":1}],"hash":null}"#,
        r#"{"round":6,"time":60,"events":[{"end":"B"},{"end":"C"}],"queue":[],"decisions":[],"hash":null}"#,
    ];
    let mut s = String::from(HEADER);
    s.push('\n');
    for r in rounds {
        s.push_str(r);
        s.push('\n');
    }
    s
}

fn run(f: Option<&dyn Priority>) -> ReconcileReport {
    reconcile(&parse_recording(&recording(), "hand.jsonl").unwrap(), f).unwrap()
}

#[test]
fn a_job_is_captured_while_still_pending_at_its_dispatch_round() {
    let r = run(None);
    assert_eq!(r.per_round[0].captured, ["A"]);
    // A was queued (pending) when its dispatch was recorded, well before its RUN event.
    assert_eq!(r.per_round[0].queued, 2);
}

#[test]
fn resources_are_charged_from_the_capture_round() {
    // Capacity 2, A holds both cores from round 0. Were A charged only from its RUN
    // confirmation (round 3), rounds 1 and 2 would see 2 free cores and start B and C.
    let r = run(None);
    assert_eq!(r.per_round[1].free_cores, 0);
    assert!(r.per_round[1].would_start.is_empty());
    assert_eq!(r.per_round[2].free_cores, 0);
    assert!(r.per_round[2].would_start.is_empty());
}

#[test]
fn the_later_run_event_is_a_no_op() {
    let r = run(None);
    assert!(r.per_round[3].captured.is_empty());
    assert_eq!(r.per_round[3].free_cores, 0);
    assert!(r.per_round[3].would_start.is_empty());
    // A's RUN and B's duplicate dispatch.
    assert_eq!(r.noops, 2);
}

#[test]
fn a_job_is_never_captured_twice() {
    let r = run(None);
    assert_eq!(r.captured, 3);
    assert!(r.per_round[5].captured.is_empty());
    // Were B charged twice, one core would stay charged after B and C end.
    assert_eq!(r.per_round[6].free_cores, 2);
}

#[test]
fn captures_at_different_rounds_do_not_interfere() {
    let r = run(None);
    // A ends at 50, freeing its 2 cores for B and C captured then.
    assert_eq!(r.per_round[4].free_cores, 2);
    assert_eq!(r.per_round[4].captured, ["B", "C"]);
    assert_eq!(r.per_round[5].free_cores, 0);
    // FCFS would have started exactly B and C.
    assert_eq!(r.per_round[4].would_start, ["B", "C"]);
    assert!(r.per_round[4].instead.is_empty());
}

#[test]
fn a_job_without_a_recorded_dispatch_stays_uncaptured_and_is_reported() {
    let r = run(None);
    assert_eq!(r.uncaptured, ["D"]);
    assert!(
        r.per_round
            .iter()
            .all(|p| !p.captured.contains(&"D".to_string()))
    );
    assert_eq!(r.rounds, 7); // the replay went on to the end
}

#[test]
fn another_formula_reports_jobs_it_would_have_started_and_rank_agreement() {
    // Shortest requested first: at t=50, D (req 5) before B and C (req 10).
    let sjf = IrPriority::negated_column("walltime");
    let r = run(Some(&sjf));
    assert_eq!(r.per_round[4].would_start, ["D", "B"]);
    assert_eq!(r.per_round[4].instead, ["D"]);
    // t=0: B (req 10) ranks before A and fits, A does not (strict stops): [B] instead of A.
    // t=60: D would start on the idle node; the recording never starts it.
    assert_eq!(r.per_round[0].instead, ["B"]);
    assert_eq!(r.per_round[6].instead, ["D"]);
    // Jobs, not job-rounds: B and D, D once though it was one in two rounds (it said 3).
    assert_eq!(r.instead_total, 2);
    // Recorded order at t=50 (no ranked queue recorded): dispatched B, C, then D.
    // SJF order: D, B, C → 2 discordant pairs of 3 → tau = 1 − 4/3.
    let tau = r.per_round[4].kendall_tau.unwrap();
    assert!((tau - (-1.0 / 3.0)).abs() < 1e-12, "{tau}");
    // Recorded dispatches of queued jobs: A (t=0, SJF would not), B and C (t=50, SJF would
    // start B only) → 1 of 3.
    assert_eq!(r.agreement, Some(1.0 / 3.0));
}

#[test]
fn a_real_swf_schedule_is_a_recording() {
    // Job 3 has no recorded wait: never dispatched, reported uncaptured.
    let w = parse_swf(
        "; MaxNodes: 2\n; MaxProcs: 2\n\
1 0 0 10 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1\n\
2 1 9 5 1 -1 -1 1 5 -1 1 2 1 -1 -1 -1 -1 -1\n\
3 2 -1 5 1 -1 -1 1 5 -1 1 2 1 -1 -1 -1 -1 -1\n",
        "real.swf",
    )
    .unwrap();
    let cfg = SimConfig::new(Policy::Easy, 2, 1);
    let rec = recording_from_trace(&w, &cfg);
    let times: Vec<i64> = rec.rounds.iter().map(|r| r.time).collect();
    assert_eq!(times, [0, 1, 2, 10, 15]);
    let r = reconcile(&rec, None).unwrap();
    assert_eq!(r.captured, 2);
    assert_eq!(r.uncaptured, ["3"]);
    // t=10: job 1 ends; the recording starts 2, FCFS would also start 3 on the other core.
    let p = &r.per_round[3];
    assert_eq!(p.captured, ["2"]);
    assert_eq!(p.would_start, ["2", "3"]);
    assert_eq!(p.instead, ["3"]);
}

#[test]
fn fairshare_usage_over_a_long_gap_accrues_in_f64_without_overflow() {
    // 4 cores for 2^62 s is 2^64 core-seconds: past u64 (it panicked in debug builds). The
    // decay time is longer than the gap (PBS decays once per decay time elapsed).
    let header = HEADER.replace(
        r#""fairshare":null"#,
        r#""fairshare":{"auto_tree":"user","resource_group":null,"entity":"euser","decay_time":9000000000000000000,"decay_factor":0.5,"unknown_shares":0}"#,
    );
    let text = format!(
        "{header}\n{}\n{}\n",
        r#"{"round":0,"time":0,"events":[{"submit":"A","procs":4,"walltime":10,"run":10,"user":"u1"}],"queue":[],"decisions":[{"dispatch":"A","nodes":[0],"cores":4}],"hash":null}"#,
        r#"{"round":1,"time":4611686018427387904,"events":[{"end":"A"}],"queue":[],"decisions":[],"hash":null}"#,
    );
    let rec = parse_recording(&text, "gap.jsonl").unwrap();
    let r = reconcile(&rec, Some(&IrPriority::column("fairshare_tree_usage"))).unwrap();
    assert_eq!((r.rounds, r.captured), (2, 1));
}
