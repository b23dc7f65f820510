//! Hand-worked schedules under Slurm's backfill (`Policy::Slurm`): each of `bf_max_job_test`,
//! `bf_window` and `bf_resolution` changes the start of a job, as Slurm 22.05's
//! `src/plugins/sched/backfill/backfill.c` plans (`_attempt_backfill`, `_add_reservation`):
//!
//! - the pass breaks out after `bf_max_job_test` jobs ("bf_max_job_test: limit of %d
//!   reached"); below them only the main scheduler (`src/slurmctld/job_scheduler.c`) starts
//!   jobs, in priority order until one cannot start;
//! - a job whose expected start is after `sched_start + backfill_window` gets no reservation
//!   ("StartTime set to time after current backfill window. No reservation created"), and the
//!   plan (`node_space`) ends at `window_end`, `sched_start + backfill_window` rounded down to
//!   the resolution;
//! - a reservation ends at `end_reserve = (end / backfill_resolution) * backfill_resolution`,
//!   at least `start_time + backfill_resolution`.
//!
//! With a window of 30 days, a resolution of 1 s and no test limit the policy is
//! conservative backfilling, which the last test checks on generated workloads.

use crate::common;

use common::cli::{code, jobsort, json, stderr, stdout, write};
use jobsort::sim::record::parse_recording;
use jobsort::sim::replay::verify;
use jobsort::sim::run::{RunOptions, simulate};
use jobsort::sim::scheduler::SlurmBackfill;
use jobsort::sim::swf::parse_swf;
use jobsort::sim::{Policy, SimConfig, Workload};

/// `id submit run procs requested` rows → SWF text on 4 × 1 cores.
fn swf_text(rows: &[(u32, i64, i64, u32, i64)]) -> String {
    let mut s = String::from("; MaxNodes: 4\n; MaxProcs: 4\n");
    for &(id, submit, run, procs, req) in rows {
        s.push_str(&format!(
            "{id} {submit} -1 {run} {procs} -1 -1 {procs} {req} -1 1 1 1 -1 -1 -1 -1 -1\n"
        ));
    }
    s
}

fn cfg(policy: Policy) -> SimConfig {
    SimConfig::new(policy, 4, 1)
}

fn starts(w: &Workload, policy: Policy) -> Vec<i64> {
    let r = simulate(w, &cfg(policy), None, &RunOptions::default()).unwrap();
    r.outcome
        .start
        .iter()
        .map(|s| s.expect("every job starts"))
        .collect()
}

fn slurm(bf_max_job_test: u32, bf_window: u32, bf_resolution: u32) -> Policy {
    Policy::Slurm(SlurmBackfill {
        bf_max_job_test,
        bf_window,
        bf_resolution,
    })
}

const DEFAULTS: Policy = Policy::Slurm(SlurmBackfill {
    bf_max_job_test: 500,
    bf_window: 1440,
    bf_resolution: 60,
});

// 1: t=0, 2 cores, 10 s. 2: t=1, 4 cores, 10 s. 3: t=1, 1 core, 5 s. Requested = run.
const TEST_LIMIT: &[(u32, i64, i64, u32, i64)] =
    &[(1, 0, 10, 2, 10), (2, 1, 10, 4, 10), (3, 1, 5, 1, 5)];

#[test]
fn bf_max_job_test_leaves_the_jobs_past_it_to_the_main_scheduler() {
    let w = parse_swf(&swf_text(TEST_LIMIT), "limit.swf").unwrap();
    // At 1, 2 (4 cores) is reserved at 10; 3 (1 core, 1–6) tested next fits before it.
    assert_eq!(starts(&w, DEFAULTS), [0, 10, 1]);
    assert_eq!(starts(&w, Policy::Conservative), [0, 10, 1]);
    // One job tested: 2 only. The main scheduler stops at 2, which cannot start, so 3 waits;
    // at 10, 2 starts and 3 no longer fits: it starts when 2 ends (20).
    assert_eq!(starts(&w, slurm(1, 1440, 60)), [0, 10, 20]);
}

// 1: t=0, 2 cores, 200 s. 2: t=1, 4 cores, 100 s. 3: t=2, 2 cores, 300 s.
const WINDOW: &[(u32, i64, i64, u32, i64)] = &[
    (1, 0, 200, 2, 200),
    (2, 1, 100, 4, 100),
    (3, 2, 300, 2, 300),
];

#[test]
fn bf_window_gives_no_reservation_to_a_job_that_cannot_start_within_it() {
    let w = parse_swf(&swf_text(WINDOW), "window.swf").unwrap();
    // A day's window: 2 is reserved at 200 (when 1 ends); 3 (2–302) would delay it and is
    // reserved after it, at 300.
    assert_eq!(starts(&w, DEFAULTS), [0, 200, 300]);
    assert_eq!(starts(&w, slurm(500, 1440, 1)), [0, 200, 300]);
    // A 1-minute window: 2 could start at 200, after 1 + 60: no reservation, so 3 starts at
    // 2. At 200, 2 could start at 302 (when 3 ends), after 200 + 60: none again; it starts at
    // 302.
    assert_eq!(starts(&w, slurm(500, 1, 60)), [0, 302, 2]);
    assert_eq!(starts(&w, slurm(500, 1, 1)), [0, 302, 2]);
}

// 1: t=0, 3 cores, 150 s. 2: t=1, 2 cores, 100 s. 3: t=2, 4 cores, 100 s.
// 4: t=3, 1 core, 240 s.
const RESOLUTION: &[(u32, i64, i64, u32, i64)] = &[
    (1, 0, 150, 3, 150),
    (2, 1, 100, 2, 100),
    (3, 2, 100, 4, 100),
    (4, 3, 240, 1, 240),
];

#[test]
fn bf_resolution_ends_reservations_early_and_plans_the_next_into_the_gap() {
    let w = parse_swf(&swf_text(RESOLUTION), "resolution.swf").unwrap();
    // 1 s: 2 is reserved on two nodes for [150, 250), 3 on all four for [250, 350); 4 (one
    // core, 3–243) fits on the fourth node before 3's reservation and starts at 3.
    assert_eq!(starts(&w, slurm(500, 1440, 1)), [0, 150, 250, 3]);
    assert_eq!(starts(&w, Policy::Conservative), [0, 150, 250, 3]);
    // 60 s: 2's reservation ends at 250 rounded down, 240, so 3 is planned from 240
    // (held to 340 rounded down, 300), and 4 (to 243) would delay it: it waits. At 150, 2
    // starts; 3 is reserved at 250 (to 310: 350 → 300, at least one slot after 250), and 4
    // (150–390) still overlaps it; it starts when 3 ends, at 350.
    assert_eq!(starts(&w, slurm(500, 1440, 60)), [0, 150, 250, 350]);
    assert_eq!(starts(&w, DEFAULTS), [0, 150, 250, 350]);
}

/// Loose knobs (no test limit, a 30-day window, 1 s resolution) plan as conservative
/// backfilling does: the same start for every job of random workloads.
#[test]
fn loose_knobs_are_conservative_backfilling() {
    let mut x: u64 = 7;
    let mut next = |m: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    for _ in 0..4 {
        let mut t = 0;
        let rows: Vec<(u32, i64, i64, u32, i64)> = (1..=80)
            .map(|id| {
                t += next(5) as i64;
                let run = 1 + next(40) as i64;
                (id, t, run, 1 + next(4) as u32, run + next(30) as i64)
            })
            .collect();
        let w = parse_swf(&swf_text(&rows), "random.swf").unwrap();
        let loose = starts(&w, slurm(1_000_000, 43_200, 1));
        assert_eq!(loose, starts(&w, Policy::Conservative));
        // And the knobs are not idle: a one-job test limit changes some start.
        assert_ne!(starts(&w, slurm(1, 43_200, 1)), loose);
    }
}

#[test]
fn the_knobs_are_recorded_and_verified() {
    let w = parse_swf(&swf_text(RESOLUTION), "resolution.swf").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("rec.jsonl");
    let opts = RunOptions {
        record: Some(&p),
        ..Default::default()
    };
    simulate(&w, &cfg(slurm(7, 30, 60)), None, &opts).unwrap();
    let text = std::fs::read_to_string(&p).unwrap();
    let header = text.lines().next().unwrap();
    assert!(
        header.contains(
            r#""policy":{"slurm":{"bf_max_job_test":7,"bf_window":30,"bf_resolution":60}}"#
        ),
        "{header}"
    );
    let rec = parse_recording(&text, "rec.jsonl").unwrap();
    let v = verify(&rec, None).unwrap();
    assert_eq!((v.mismatches, v.input_mismatches), (0, 0));
    // The same recording with a resolution of 1 s no longer verifies: 4 starts at 3.
    let edited = text.replacen(r#""bf_resolution":60"#, r#""bf_resolution":1"#, 1);
    let v = verify(&parse_recording(&edited, "edited.jsonl").unwrap(), None).unwrap();
    assert!(v.mismatches > 0, "{v:?}");
    // A resolution of 0 is refused where the header is read.
    let zero = text.replacen(r#""bf_resolution":60"#, r#""bf_resolution":0"#, 1);
    let err = verify(&parse_recording(&zero, "zero.jsonl").unwrap(), None).unwrap_err();
    assert!(err.to_string().contains("bf_resolution=0"), "{err}");
}

#[test]
fn slurm_conf_and_flags_give_the_knobs() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "w.swf", &swf_text(WINDOW));
    let conf = write(
        dir.path(),
        "slurm.conf",
        "SchedulerType=sched/backfill\nSchedulerParameters=bf_window=1,bf_continue\n\
         NodeName=n[1-4] CPUs=1\nPartitionName=all Nodes=ALL\n",
    );
    let mean_wait = |args: &[&str]| -> f64 {
        let mut a = vec!["sim", "--format", "json", "--trace", &trace];
        a.extend_from_slice(args);
        let out = jobsort(&a);
        assert_eq!(code(&out), Some(0), "{}", stderr(&out));
        let v = json(&out);
        assert_eq!(v["runs"][0]["policy"], "slurm");
        v["runs"][0]["metrics"]["mean_wait"].as_f64().unwrap()
    };
    // bf_window=1 from the file: starts 0, 302, 2 → waits 0, 301, 0.
    assert_eq!(mean_wait(&["--slurm-conf", &conf]), 301.0 / 3.0);
    // The flag wins: a day's window, starts 0, 200, 300 → waits 0, 199, 298.
    assert_eq!(
        mean_wait(&["--slurm-conf", &conf, "--bf-window", "1440"]),
        497.0 / 3.0
    );
    // On a trace without a site: --policy slurm and the flags.
    assert_eq!(
        mean_wait(&["--policy", "slurm", "--bf-window", "1"]),
        301.0 / 3.0
    );
    // --explain-config names each knob and where it came from.
    let out = jobsort([
        "sim",
        "--trace",
        &trace,
        "--slurm-conf",
        &conf,
        "--bf-resolution",
        "30",
        "--explain-config",
    ]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let row = |name: &str| -> String {
        text.lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no {name} in\n{text}"))
            .split_whitespace()
            .skip(name.split_whitespace().count())
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(row("policy"), format!("slurm {conf}:1"));
    assert_eq!(row("SchedulerParameters bf_window"), format!("1 {conf}:2"));
    assert_eq!(
        row("SchedulerParameters bf_resolution"),
        "30 --bf-resolution"
    );
    assert_eq!(row("SchedulerParameters bf_max_job_test"), "500 default");
    assert_eq!(
        row("SchedulerParameters bf_*"),
        format!("bf_continue (not simulated) {conf}:2")
    );
    // A knob for another policy, or out of Slurm's range, is a usage error.
    let out = jobsort([
        "sim",
        "--trace",
        &trace,
        "--policy",
        "easy",
        "--bf-window",
        "5",
    ]);
    assert_eq!(code(&out), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--bf-window is a knob of Slurm's backfill"));
    let out = jobsort([
        "sim",
        "--trace",
        &trace,
        "--policy",
        "slurm",
        "--bf-resolution",
        "0",
    ]);
    assert_eq!(code(&out), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--bf-resolution=0: must be 1 to 3600 seconds"));
}
