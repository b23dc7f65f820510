//! Hand-worked schedules: every job's start time under strict, EASY, deeper backfill,
//! conservative backfill and fill, checked exactly.

use jobsort::sim::run::{RunOptions, simulate};
use jobsort::sim::swf::parse_swf;
use jobsort::sim::{IrPriority, Policy, Priority, SimConfig, Workload};

fn cfg(policy: Policy, nodes: u32, cores: u32) -> SimConfig {
    SimConfig::new(policy, nodes, cores)
}

/// `id submit run procs req` rows → SWF text.
fn swf(rows: &[(u32, i64, i64, u32, i64)]) -> Workload {
    let mut s = String::from("; MaxNodes: 4\n; MaxProcs: 4\n");
    for &(id, submit, run, procs, req) in rows {
        s.push_str(&format!(
            "{id} {submit} -1 {run} {procs} -1 -1 {procs} {req} -1 1 1 1 -1 -1 -1 -1 -1\n"
        ));
    }
    parse_swf(&s, "fixture.swf").unwrap()
}

fn starts(w: &Workload, c: &SimConfig, f: Option<&dyn Priority>) -> Vec<(String, i64)> {
    let r = simulate(w, c, f, &RunOptions::default()).unwrap();
    w.jobs
        .iter()
        .zip(&r.outcome.start)
        .map(|(j, s)| (j.id.to_string(), s.expect("every job starts")))
        .collect()
}

fn ids(v: &[(&str, i64)]) -> Vec<(String, i64)> {
    v.iter().map(|(a, b)| (a.to_string(), *b)).collect()
}

// Cluster 4 × 1. Job 1: t=0, 2 cores, 10 s. Job 2: t=0, 4 cores, 5 s. Job 3: t=1, 2 cores, 3 s.
// Job 4: t=2, 1 core, 20 s. Requested = run for all.
const FIXTURE_A: &[(u32, i64, i64, u32, i64)] = &[
    (1, 0, 10, 2, 10),
    (2, 0, 5, 4, 5),
    (3, 1, 3, 2, 3),
    (4, 2, 20, 1, 20),
];

#[test]
fn strict_fcfs_stops_at_the_first_job_that_does_not_fit() {
    // t=0: 1 starts, 2 (4 cores) does not fit → everything behind it waits.
    // t=10: 1 ends, 2 starts.  t=15: 2 ends, 3 and 4 start.
    let w = swf(FIXTURE_A);
    assert_eq!(
        starts(&w, &cfg(Policy::Strict, 4, 1), None),
        ids(&[("1", 0), ("2", 10), ("3", 15), ("4", 15)])
    );
}

#[test]
fn easy_backfills_only_what_does_not_delay_the_reservation() {
    // t=0: 1 starts; 2 blocked, reservation at 10 (when 1's requested time is up).
    // t=1: 3 (2 cores, ends by 4 ≤ 10) backfills.
    // t=2: 4 does not fit (0 free).  t=4: 3 ends; 4 fits now but would hold a core at 10,
    // leaving 3 < 4 for job 2 → pends `reservation`.  t=10: 2 starts.  t=15: 4 starts.
    let w = swf(FIXTURE_A);
    assert_eq!(
        starts(&w, &cfg(Policy::Easy, 4, 1), None),
        ids(&[("1", 0), ("2", 10), ("3", 1), ("4", 15)])
    );
}

#[test]
fn fill_starts_every_job_that_fits_and_so_can_starve_the_wide_one() {
    // PBS with strict_ordering false: no top job, no reservation (scheduler_data.md §7.1).
    // t=0: 1 starts (2 free); 2 (4 cores) does not fit.  t=1: 3 fits → starts (0 free).
    // t=4: 3 ends; 2 still does not fit, 4 (1 core) does → starts.  t=10: 1 ends, 3 free:
    // 2 still waits.  t=24: 4 ends → 2 starts — 14 s later than under EASY.
    let w = swf(FIXTURE_A);
    assert_eq!(
        starts(&w, &cfg(Policy::Fill, 4, 1), None),
        ids(&[("1", 0), ("2", 24), ("3", 1), ("4", 4)])
    );
}

// Cluster 4 × 1, requested = run. 1: t=0, 3 cores, 5 s. 2: t=0, 2 cores, 5 s. 4: t=1, 4 cores,
// 10 s. 6: t=1, 2 cores, 3 s. 9: t=3, 1 core, 20 s. 10: t=4, 1 core, 3 s. 12: t=6, 3 cores, 10 s.
const FIXTURE_DEPTH: &[(u32, i64, i64, u32, i64)] = &[
    (1, 0, 5, 3, 5),
    (2, 0, 5, 2, 5),
    (4, 1, 10, 4, 10),
    (6, 1, 3, 2, 3),
    (9, 3, 20, 1, 20),
    (10, 4, 3, 1, 3),
    (12, 6, 10, 3, 10),
];

#[test]
fn backfill_depth_0_1_2_and_conservative_give_four_schedules() {
    // PBS's backfill_depth with strict_ordering (scheduler_data.md §7.1): reservations for the
    // top N blocked jobs; a later job starts only if it delays none of them.
    let w = swf(FIXTURE_DEPTH);
    let run = |p| starts(&w, &cfg(p, 4, 1), None);
    // Depth 0 (strict): 1 at 0; 2 waits for 1 (5); 4 for 2 (10); at 20 6, 9, 10 start and 12
    // (3 cores, 1 free) waits for 6 and 10 (23).
    assert_eq!(
        run(Policy::Strict),
        ids(&[
            ("1", 0),
            ("2", 5),
            ("4", 10),
            ("6", 20),
            ("9", 20),
            ("10", 20),
            ("12", 23)
        ])
    );
    // Depth 1 (EASY): 2 is reserved at 5 with 2 extra cores: 9 (1 core to 23) takes one at 3;
    // at 5, 2 starts and 4 is reserved at 23 (when 9 ends), so 10 (5–8), 6 (10–13) and 12
    // (13–23) all fit before it.
    assert_eq!(
        run(Policy::Easy),
        ids(&[
            ("1", 0),
            ("2", 5),
            ("4", 23),
            ("6", 10),
            ("9", 3),
            ("10", 5),
            ("12", 13)
        ])
    );
    // Depth 2: at 3, 2 (at 5) and 4 (at 10, all 4 cores) are reserved; 9 would hold a core at
    // 10 → waits; 10 (4–7) ends before 10 → starts at 4. At 5: 2 starts, 4 at 10, 6 reserved
    // at 7 (when 10 ends) and started then. At 20: 9 and 12.
    assert_eq!(
        run(Policy::Backfill(2)),
        ids(&[
            ("1", 0),
            ("2", 5),
            ("4", 10),
            ("6", 7),
            ("9", 20),
            ("10", 4),
            ("12", 20)
        ])
    );
    // Conservative: at 1, 6 is reserved beside 2 at 5 (2 + 2 cores), so at 4 job 10 would
    // delay it and waits; at 5, 2 starts and 6 fits before 4's reservation at 10 → starts.
    // 9 and 10 are reserved at 20 (after 4), 12 at 23 (when 10 ends).
    assert_eq!(
        run(Policy::Conservative),
        ids(&[
            ("1", 0),
            ("2", 5),
            ("4", 10),
            ("6", 5),
            ("9", 20),
            ("10", 20),
            ("12", 23)
        ])
    );
}

#[test]
fn backfill_with_depth_0_and_1_is_strict_and_easy() {
    assert_eq!(Policy::with_depth(0), Policy::Strict);
    assert_eq!(Policy::with_depth(1), Policy::Easy);
    assert_eq!(Policy::with_depth(7), Policy::Backfill(7));
    assert_eq!(Policy::parse("backfill:7"), Some(Policy::Backfill(7)));
    assert_eq!(Policy::parse("backfill:1"), Some(Policy::Easy));
    assert_eq!(Policy::Backfill(7).name(), "backfill:7");
}

// Cluster 4 × 1. A: t=0, 3 cores, 10 s. B: t=0, 2 cores, 10 s. C: t=1, 1 core, 100 s.
// D: t=2, 1 core, 5 s.
const FIXTURE_B: &[(u32, i64, i64, u32, i64)] = &[
    (1, 0, 10, 3, 10),
    (2, 0, 10, 2, 10),
    (3, 1, 100, 1, 100),
    (4, 2, 5, 1, 5),
];

#[test]
fn easy_backfills_past_the_reservation_on_extra_cores() {
    // t=0: A starts; B blocked, reservation at 10 with 4 free then (2 extra).
    // t=1: C runs past 10 but takes one of the 2 extra cores → starts.
    // t=2: D: no core free.  t=10: A ends → B (2) and D (1) start.
    let w = swf(FIXTURE_B);
    assert_eq!(
        starts(&w, &cfg(Policy::Easy, 4, 1), None),
        ids(&[("1", 0), ("2", 10), ("3", 1), ("4", 10)])
    );
}

#[test]
fn strict_on_the_extra_cores_fixture() {
    // t=0: A starts, B blocked. t=10: B, C, D start in order (2 + 1 + 1 = 4 cores).
    let w = swf(FIXTURE_B);
    assert_eq!(
        starts(&w, &cfg(Policy::Strict, 4, 1), None),
        ids(&[("1", 0), ("2", 10), ("3", 10), ("4", 10)])
    );
}

// One core. X: t=0, 10 s. Y: t=1, runs 5 s, requests 50. Z: t=2, runs 5 s, requests 5.
const FIXTURE_C: &[(u32, i64, i64, u32, i64)] =
    &[(1, 0, 10, 1, 10), (2, 1, 5, 1, 50), (3, 2, 5, 1, 5)];

#[test]
fn formula_orders_the_queue_shortest_requested_first_or_fcfs() {
    let w = swf(FIXTURE_C);
    let c = cfg(Policy::Strict, 1, 1);
    // -walltime at t=10: Z (−5) before Y (−50): Z 10..15, Y 15.
    let sjf = IrPriority::negated_column("walltime");
    assert_eq!(
        starts(&w, &c, Some(&sjf)),
        ids(&[("1", 0), ("2", 15), ("3", 10)])
    );
    // eligible_time at t=10: Y (9) before Z (8): Y 10..15, Z 15.
    let fcfs = IrPriority::column("eligible_time");
    assert_eq!(
        starts(&w, &c, Some(&fcfs)),
        ids(&[("1", 0), ("2", 10), ("3", 15)])
    );
}

#[test]
fn a_job_is_killed_at_its_requested_time() {
    // Job 1 runs 100 s but requested 10: it ends at 10 and job 2 starts then.
    let w = swf(&[(1, 0, 100, 1, 10), (2, 0, 5, 1, 5)]);
    let r = simulate(&w, &cfg(Policy::Strict, 1, 1), None, &RunOptions::default()).unwrap();
    assert_eq!(r.outcome.end[0], Some(10));
    assert_eq!(r.outcome.start[1], Some(10));
}
