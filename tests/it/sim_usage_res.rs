//! `fairshare_usage_res`: what a running job adds to its entity's usage, and so who goes
//! first. PBS adds, between cycles, the increase of the formula over each running job's
//! `resources_used` (OpenPBS `src/scheduler/fifo.cpp: init_scheduling_cycle`, the formula
//! evaluated by `formula_evaluate`, which reads `resources_used` then `Resource_List`): a time
//! resource grows with the run, a fixed one does not.

use crate::common;

use common::cli::{code, jobsort, stderr, stdout, write};
use jobsort::sim::record::parse_recording;
use jobsort::sim::replay::verify;
use jobsort::sim::run::{RunOptions, simulate};
use jobsort::sim::share::{AutoTree, FairshareConfig};
use jobsort::sim::workload::parse_json_jobs;
use jobsort::sim::{IrPriority, Policy, SimConfig, Workload};

// Cluster 4 × 1, equal shares by user. u1's job 1 (3 cores, 1000 KB) runs 0–100 and u2's job
// 2 (1 core, 100 KB) 0–200. At 150, u1's 3 and u2's 4 (4 cores each) arrive; at 200 the
// cluster is free and fairshare decides which goes first: 3 runs 10 s, 4 runs 30 s.
const JOBS: &str = r#"[
  {"id": "1", "submit": 0, "run": 100, "procs": 3, "mem": 1000, "user": "u1"},
  {"id": "2", "submit": 0, "run": 200, "procs": 1, "mem": 100, "user": "u2"},
  {"id": "3", "submit": 150, "run": 10, "procs": 4, "user": "u1"},
  {"id": "4", "submit": 150, "run": 30, "procs": 4, "user": "u2"}
]"#;

fn workload() -> Workload {
    parse_json_jobs(JOBS, "jobs.json").unwrap()
}

fn cfg(usage_res: Option<&str>) -> SimConfig {
    SimConfig {
        policy: Policy::Strict,
        nodes: 4,
        cores: 1,
        threshold: None,
        fairshare: Some(FairshareConfig {
            usage_res: usage_res.map(str::to_string),
            ..FairshareConfig::auto(AutoTree::User)
        }),
        limits: None,
        queue_order: None,
    }
}

/// The starts of jobs 3 and 4 under `fairshare_factor` (less usage first).
fn last_two(usage_res: Option<&str>) -> (i64, i64) {
    let f = IrPriority::column("fairshare_factor");
    let r = simulate(
        &workload(),
        &cfg(usage_res),
        Some(&f),
        &RunOptions::default(),
    )
    .unwrap();
    (r.outcome.start[2].unwrap(), r.outcome.start[3].unwrap())
}

#[test]
fn the_usage_resource_decides_who_goes_first() {
    // cput (PBS's default; cores × seconds here): u1 used 3 × 100 = 300, u2 1 × 200 = 200:
    // u2's 4 first (200), then 3 (230).
    assert_eq!(last_two(None), (230, 200));
    assert_eq!(last_two(Some("cput")), (230, 200));
    assert_eq!(last_two(Some("ncpus*walltime")), (230, 200));
    // walltime: 100 against 200 seconds: u1's 3 first (200), then 4 (210).
    assert_eq!(last_two(Some("walltime")), (200, 210));
    // mem*walltime: 1000 × 100 against 100 × 200: u2 first.
    assert_eq!(last_two(Some("mem * walltime")), (230, 200));
    assert_eq!(last_two(Some("walltime*mem*0.001")), (230, 200));
    // ncpus alone does not grow while a job runs: no usage, equal factors, submit order.
    assert_eq!(last_two(Some("ncpus")), (200, 210));
}

#[test]
fn a_usage_that_is_not_a_rate_is_refused() {
    for bad in [
        "walltime*cput",
        "ncpus+walltime",
        "sqrt(walltime)",
        "walltime*inf",
    ] {
        let err = jobsort::sim::setup::Setup::new(&cfg(Some(bad)), &workload().jobs).unwrap_err();
        assert!(
            err.to_string().starts_with("fairshare `usage_res` "),
            "{bad}: {err}"
        );
    }
}

#[test]
fn recordings_name_a_usage_other_than_cput() {
    let w = workload();
    let f = IrPriority::column("fairshare_factor");
    let dir = tempfile::tempdir().unwrap();
    let record = |u: Option<&str>| {
        let p = dir.path().join("rec.jsonl");
        let opts = RunOptions {
            record: Some(&p),
            ..Default::default()
        };
        simulate(&w, &cfg(u), Some(&f), &opts).unwrap();
        std::fs::read_to_string(&p).unwrap()
    };
    assert!(!record(None).lines().next().unwrap().contains("usage_res"));
    let text = record(Some("walltime"));
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains(r#""usage_res":"walltime""#)
    );
    let rec = parse_recording(&text, "rec.jsonl").unwrap();
    let v = verify(&rec, Some(&f)).unwrap();
    assert_eq!((v.mismatches, v.input_mismatches), (0, 0));
    // Without it the replay accrues cput and diverges.
    let edited = text.replacen(r#","usage_res":"walltime""#, "", 1);
    let v = verify(&parse_recording(&edited, "e.jsonl").unwrap(), Some(&f)).unwrap();
    assert!(v.mismatches + v.input_mismatches > 0, "{v:?}");
}

#[test]
fn from_sched_config_and_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "jobs.json", JOBS);
    let sc = write(
        dir.path(),
        "sched_config",
        "fair_share: true ALL\nfairshare_usage_res: walltime\nstrict_ordering: true ALL\n",
    );
    let mean_wait = |args: &[&str]| -> f64 {
        let mut a = vec![
            "--trace",
            &jobs,
            "--nodes",
            "4",
            "--policy",
            "strict",
            "--formula",
            "fairshare_factor",
            "--auto-tree",
            "user",
        ];
        a.extend_from_slice(args);
        common::cli::sim_mean_wait(&a)
    };
    // cput: waits 0, 0, 80 (3), 50 (4); walltime: 0, 0, 50, 60.
    assert_eq!(mean_wait(&[]), 32.5);
    assert_eq!(mean_wait(&["--usage-res", "walltime"]), 27.5);
    assert_eq!(mean_wait(&["--sched-config", &sc]), 27.5);
    assert_eq!(
        mean_wait(&["--sched-config", &sc, "--usage-res", "cput"]),
        32.5
    );
    // --explain-config says what it is and where it came from.
    let out = jobsort([
        "sim",
        "--trace",
        &jobs,
        "--nodes",
        "4",
        "--auto-tree",
        "user",
        "--sched-config",
        &sc,
        "--explain-config",
    ]);
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.starts_with("fairshare_usage_res"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("walltime (usage: its increase while a job runs)")
            && line.contains("sched_config:2"),
        "{line}"
    );
    // A value that is not simulated names the line.
    let bad = write(
        dir.path(),
        "bad",
        "fair_share: true ALL\nfairshare_usage_res: a+b\n",
    );
    let out = jobsort([
        "sim",
        "--trace",
        &jobs,
        "--nodes",
        "4",
        "--auto-tree",
        "user",
        "--sched-config",
        &bad,
    ]);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("bad:2: fairshare_usage_res `a+b`: not simulated"),
        "{}",
        stderr(&out)
    );
}
