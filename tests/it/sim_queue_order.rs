//! Hand-worked schedules with queues ordered before the formula: PBS `by_queue` with queue
//! `Priority`, and Slurm partitions' `PriorityTier`; recorded, verified and reconciled with
//! the same order; and from the command line.
//!
//! PBS (OpenPBS `src/scheduler/fifo.cpp: next_job`): with `by_queue` the cycle walks
//! `sinfo->queues` one after another, each queue's jobs sorted by `cmp_sort` (the formula)
//! in `sort.cpp: sort_jobs`; the queues are sorted by `cmp_queue_prio_dsc` (priority, high
//! first), whose ties `qsort` leaves in no defined order (here: by name). Without `by_queue`
//! (and without `round_robin`) the whole complex is one list sorted by `cmp_sort`.
//! Slurm (`slurm.conf.5`, PriorityType; `src/slurmctld/job_scheduler.c: sort_job_queue2`):
//! jobs of a higher partition PriorityTier first, then job priority, then submit time: the
//! partitions of one tier make one list.

use crate::common;

use common::cli::{code, jobsort, json, stderr, write};
use jobsort::sim::record::parse_recording;
use jobsort::sim::replay::{reconcile, verify};
use jobsort::sim::run::{RunOptions, simulate};
use jobsort::sim::scheduler::{QueueOrder, QueueOrderKind};
use jobsort::sim::swf::parse_swf;
use jobsort::sim::{Policy, Priority, SimConfig, Workload};

/// `id submit run procs queue` rows (requested time = run) → SWF text on 4 × 1 cores.
fn swf_text(rows: &[(u32, i64, i64, u32, i64)]) -> String {
    let mut s = String::from("; MaxNodes: 4\n; MaxProcs: 4\n");
    for &(id, submit, run, procs, queue) in rows {
        s.push_str(&format!(
            "{id} {submit} -1 {run} {procs} -1 -1 {procs} {run} -1 1 1 1 -1 {queue} -1 -1 -1\n"
        ));
    }
    s
}

// Cluster 4 × 1. Job 1: t=0, 4 cores, 10 s, queue q1. 2: t=1, 2 cores, 5 s, q1.
// 3: t=2, 2 cores, 5 s, q2. 4: t=3, 4 cores, 5 s, q2. 5: t=3, 2 cores, 5 s, q1.
// SWF queue N is the queue `qN`.
const FIXTURE: &[(u32, i64, i64, u32, i64)] = &[
    (1, 0, 10, 4, 1),
    (2, 1, 5, 2, 1),
    (3, 2, 5, 2, 2),
    (4, 3, 5, 4, 2),
    (5, 3, 5, 2, 1),
];

fn workload() -> Workload {
    parse_swf(&swf_text(FIXTURE), "fixture.swf").unwrap()
}

fn order(kind: QueueOrderKind, priorities: &[(&str, i64)]) -> Option<QueueOrder> {
    Some(QueueOrder {
        kind,
        priorities: priorities.iter().map(|&(q, p)| (q.into(), p)).collect(),
    })
}

fn cfg(policy: Policy, queue_order: Option<QueueOrder>) -> SimConfig {
    SimConfig {
        policy,
        nodes: 4,
        cores: 1,
        threshold: None,
        fairshare: None,
        limits: None,
        queue_order,
    }
}

fn starts(c: &SimConfig, f: Option<&dyn Priority>) -> Vec<i64> {
    let w = workload();
    let r = simulate(&w, c, f, &RunOptions::default()).unwrap();
    r.outcome.start.iter().map(|s| s.unwrap()).collect()
}

#[test]
fn strict_ordering_takes_the_higher_queue_first() {
    // One order (no by_queue), FCFS: at 10 (1 ends), 2 and 3 start (4 cores); 4 (4 cores)
    // blocks; at 15 4 starts, 5 waits for it (20).
    assert_eq!(
        starts(&cfg(Policy::Strict, None), None),
        [0, 10, 10, 15, 20]
    );
    // by_queue, q2 at Priority 10 above q1 at 0: at 10 the order is 3, 4 | 2, 5: 3 starts,
    // 4 does not fit and blocks everything; at 15 (3 ends) 4 starts; at 20 2 and 5.
    let pbs = order(QueueOrderKind::Pbs, &[("q1", 0), ("q2", 10)]);
    assert_eq!(starts(&cfg(Policy::Strict, pbs), None), [0, 20, 10, 15, 20]);
    // The same as Slurm tiers (q2 tier 2 above q1 tier 1).
    let slurm = order(QueueOrderKind::Slurm, &[("q1", 1), ("q2", 2)]);
    assert_eq!(
        starts(&cfg(Policy::Strict, slurm), None),
        [0, 20, 10, 15, 20]
    );
}

#[test]
fn equal_priorities_are_separate_queues_in_pbs_and_one_tier_in_slurm() {
    // PBS, q1 and q2 both at 5: still one queue after the other (by name): 2, 5 | 3, 4. At
    // 10, 2 and 5 start; at 15, 3 starts and 4 waits for it (20).
    let pbs = order(QueueOrderKind::Pbs, &[("q1", 5), ("q2", 5)]);
    assert_eq!(starts(&cfg(Policy::Strict, pbs), None), [0, 10, 15, 20, 10]);
    // Slurm, both in tier 5: one list in job order, as with no tiers.
    let slurm = order(QueueOrderKind::Slurm, &[("q1", 5), ("q2", 5)]);
    assert_eq!(
        starts(&cfg(Policy::Strict, slurm), None),
        [0, 10, 10, 15, 20]
    );
    // A queue not listed has Priority 0 (PBS) or the default tier 1 (Slurm): q1 at 3 is
    // above the unlisted q2 in both.
    let pbs = order(QueueOrderKind::Pbs, &[("q1", 3)]);
    assert_eq!(starts(&cfg(Policy::Strict, pbs), None), [0, 10, 15, 20, 10]);
    let slurm = order(QueueOrderKind::Slurm, &[("q1", 3)]);
    assert_eq!(
        starts(&cfg(Policy::Strict, slurm), None),
        [0, 10, 15, 20, 10]
    );
}

#[test]
fn the_formula_orders_within_a_queue() {
    // Formula: ncpus (wide jobs first). One order at 10: 4 (4 cores), then 2, 3, 5: 4 starts;
    // at 15, 2 and 3; 5 waits for them (20).
    let wide = jobsort::sim::IrPriority::column("ncpus");
    assert_eq!(
        starts(&cfg(Policy::Strict, None), Some(&wide)),
        [0, 15, 15, 10, 20]
    );
    // q1 above q2: q1's 2 and 5 (a tie: submit order) start at 10; then q2 in the formula's
    // order, 4 before 3: 4 starts at 15, and 3 waits for it (20).
    let q1 = order(QueueOrderKind::Pbs, &[("q1", 10), ("q2", 0)]);
    assert_eq!(
        starts(&cfg(Policy::Strict, q1), Some(&wide)),
        [0, 10, 20, 15, 10]
    );
}

#[test]
fn easy_reserves_for_the_top_job_of_the_top_queue() {
    // EASY without queues: at 10, 2 and 3 start; 4 is reserved at 15 (when both end), 5
    // (to 20) would delay it → 20.
    assert_eq!(starts(&cfg(Policy::Easy, None), None), [0, 10, 10, 15, 20]);
    // q2 first: at 10, 3 starts; 4 reserved at 15 (when 3 ends); 2 (10–15) ends by then →
    // starts; 5 then does not fit (0 free). At 15 4 starts; at 20 5.
    let pbs = order(QueueOrderKind::Pbs, &[("q1", 0), ("q2", 10)]);
    assert_eq!(starts(&cfg(Policy::Easy, pbs), None), [0, 10, 10, 15, 20]);
    // q1 first: at 10, 2 and 5 start (2 + 2 cores); 3 and 4 wait: at 15, 3 starts, 4 is
    // reserved at 20.
    let q1 = order(QueueOrderKind::Pbs, &[("q1", 10), ("q2", 0)]);
    assert_eq!(starts(&cfg(Policy::Easy, q1), None), [0, 10, 15, 20, 10]);
}

/// PBS `round_robin` (`fifo.cpp` `next_job`: taken before `by_queue`): the queues of one
/// Priority give one job each in turn, a higher Priority's queues first. q1 and q2 both at 5,
/// FCFS within each: at 10 the order is 2 (q1), 3 (q2), 5 (q1), 4 (q2): 2 and 3 start, 5
/// does not fit and strict ordering stops; at 15 (2 and 3 end) the order is 5, 4: 5 starts,
/// 4 (4 cores) waits for it (20). With q2 above q1 each level is one queue: by_queue's order.
/// A recording carries it and verifies; reconciling FCFS against it agrees fully.
#[test]
fn round_robin_takes_one_job_from_each_queue_of_a_priority_in_turn() {
    let rr = order(QueueOrderKind::PbsRoundRobin, &[("q1", 5), ("q2", 5)]);
    assert_eq!(
        starts(&cfg(Policy::Strict, rr.clone()), None),
        [0, 10, 10, 20, 15]
    );
    let levels = order(QueueOrderKind::PbsRoundRobin, &[("q1", 0), ("q2", 10)]);
    assert_eq!(
        starts(&cfg(Policy::Strict, levels), None),
        [0, 20, 10, 15, 20]
    );
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("rr.jsonl");
    let opts = RunOptions {
        record: Some(&p),
        record_queue: true,
        ..Default::default()
    };
    simulate(&workload(), &cfg(Policy::Strict, rr), None, &opts).unwrap();
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains(r#""kind":"pbs_round_robin""#)
    );
    let rec = parse_recording(&text, "rr.jsonl").unwrap();
    let v = verify(&rec, None).unwrap();
    assert_eq!((v.mismatches, v.input_mismatches), (0, 0));
    let r = reconcile(&rec, None).unwrap();
    assert!(r.per_round.iter().all(|x| x.instead.is_empty()), "{r:?}");
}

/// A recording with a queue order names it in its header, verifies without mismatch, and
/// reconciliation ranks the recorded queue with it; without one the header has no such field.
#[test]
fn recordings_carry_the_queue_order_and_replay_honours_it() {
    let w = workload();
    let dir = tempfile::tempdir().unwrap();
    let record = |c: &SimConfig, name: &str| {
        let p = dir.path().join(name);
        let opts = RunOptions {
            record: Some(&p),
            record_queue: true,
            ..Default::default()
        };
        simulate(&w, c, None, &opts).unwrap();
        std::fs::read_to_string(&p).unwrap()
    };
    let plain = record(&cfg(Policy::Strict, None), "plain.jsonl");
    assert!(!plain.lines().next().unwrap().contains("queue_order"));
    let pbs = order(QueueOrderKind::Pbs, &[("q1", 0), ("q2", 10)]);
    let text = record(&cfg(Policy::Strict, pbs), "tiers.jsonl");
    let header = text.lines().next().unwrap();
    assert!(
        header.contains(r#""queue_order":{"kind":"pbs","priorities":{"q1":0,"q2":10}}"#),
        "{header}"
    );
    let rec = parse_recording(&text, "tiers.jsonl").unwrap();
    let v = verify(&rec, None).unwrap();
    assert_eq!((v.mismatches, v.input_mismatches), (0, 0));
    // The recorded order is the tiered one, so reconciling FCFS against it agrees fully.
    let r = reconcile(&rec, None).unwrap();
    assert!(r.per_round.iter().all(|x| x.instead.is_empty()), "{r:?}");
    assert!(
        r.per_round
            .iter()
            .filter_map(|x| x.kendall_tau)
            .all(|t| t == 1.0)
    );
    // The same recording with its order taken out of the header no longer verifies.
    let edited = text.replacen(
        r#","queue_order":{"kind":"pbs","priorities":{"q1":0,"q2":10}}"#,
        "",
        1,
    );
    let rec = parse_recording(&edited, "edited.jsonl").unwrap();
    let v = verify(&rec, None).unwrap();
    assert!(v.mismatches + v.input_mismatches > 0, "{v:?}");
}

fn sim(args: &[&str]) -> serde_json::Value {
    let mut a = vec!["sim", "--format", "json", "--policy", "strict"];
    a.extend_from_slice(args);
    let out = jobsort(&a);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    json(&out)
}

#[test]
fn queue_priorities_from_flags_a_pbs_site_and_slurm_conf() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "t.swf", &swf_text(FIXTURE));
    // Mean wait: FCFS (0 + 9 + 8 + 12 + 17) / 5 = 9.2; q2 first (0 + 19 + 8 + 12 + 17) / 5.
    let wait = |v: &serde_json::Value| v["runs"][0]["metrics"]["mean_wait"].as_f64().unwrap();
    assert_eq!(wait(&sim(&["--trace", &trace])), 9.2);
    let flags = sim(&["--trace", &trace, "--queue-priority", "q2=10"]);
    assert_eq!(wait(&flags), 11.2);
    // A PBS site: the shipped sched_config turns by_queue on, qmgr gives the priorities.
    let sc = write(dir.path(), "sched_config", "by_queue: True ALL\n");
    let qmgr = write(
        dir.path(),
        "qmgr.txt",
        "create queue q1\nset queue q1 Priority = 1\ncreate queue q2\nset queue q2 Priority = 7\n",
    );
    let site = ["--trace", &trace, "--sched-config", &sc, "--qmgr", &qmgr];
    assert_eq!(wait(&sim(&site)), 11.2);
    // by_queue false there (or by flag): one order.
    let mut off = site.to_vec();
    off.extend(["--by-queue", "false"]);
    assert_eq!(wait(&sim(&off)), 9.2);
    // --explain-config says where by_queue came from and that it is simulated.
    let mut explain = site.to_vec();
    explain.push("--explain-config");
    let out = jobsort([&["sim"], &explain[..]].concat());
    let text = common::cli::stdout(&out);
    let line = text.lines().find(|l| l.starts_with("by_queue")).unwrap();
    assert!(
        line.contains("true (queues one after another") && line.contains("sched_config:1"),
        "{text}"
    );
    assert!(!text.contains("by_queue true (not simulated)"), "{text}");
    // Slurm: q2's partition in a higher PriorityTier.
    let conf = write(
        dir.path(),
        "slurm.conf",
        "SchedulerType=sched/builtin\nNodeName=n[1-4] CPUs=1\n\
         PartitionName=q1 Nodes=ALL PriorityTier=1\nPartitionName=q2 Nodes=ALL PriorityTier=4\n",
    );
    assert_eq!(
        wait(&sim(&["--trace", &trace, "--slurm-conf", &conf])),
        11.2
    );
    // A flag puts q1 above: q1 first (0 + 9 + 13 + 17 + 7) / 5.
    let q1 = sim(&[
        "--trace",
        &trace,
        "--slurm-conf",
        &conf,
        "--partition-tier",
        "q1=9",
    ]);
    assert_eq!(wait(&q1), 9.2);
}
