//! SPEC §5.5 metrics on a tiny schedule worked out by hand.

use jobsort::sim::metrics::{compute, percentile};
use jobsort::sim::run::{RunOptions, simulate};
use jobsort::sim::swf::parse_swf;
use jobsort::sim::{Policy, SimConfig};

#[test]
fn metrics_of_a_hand_worked_strict_schedule() {
    // 4 cores. Job (submit, run, procs, user): 1 (0, 10, 2, u1), 2 (0, 5, 4, u1),
    // 3 (1, 3, 2, u2), 4 (2, 20, 1, u2). Strict FCFS starts 0, 10, 15, 15.
    let w = parse_swf(
        "; MaxNodes: 4\n; MaxProcs: 4\n\
1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1\n\
2 0 -1 5 4 -1 -1 4 5 -1 1 1 1 -1 -1 -1 -1 -1\n\
3 1 -1 3 2 -1 -1 2 3 -1 1 2 1 -1 -1 -1 -1 -1\n\
4 2 -1 20 1 -1 -1 1 20 -1 1 2 1 -1 -1 -1 -1 -1\n",
        "m.swf",
    )
    .unwrap();
    let cfg = SimConfig::new(Policy::Strict, 4, 1);
    let r = simulate(&w, &cfg, None, &RunOptions::default()).unwrap();
    assert_eq!(r.outcome.start, [Some(0), Some(10), Some(15), Some(15)]);
    let m = r.metrics;
    // Waits 0, 10, 14, 13.
    assert_eq!(m.mean_wait, 9.25);
    assert_eq!(m.median_wait, 11.5); // (10 + 13) / 2
    assert!((m.p95_wait - 13.85).abs() < 1e-12); // h = 3·0.95 = 2.85 → 13 + 0.85·(14 − 13)
    // BSLD: 10/10 = 1, 15/10 = 1.5, 17/10 = 1.7, 33/20 = 1.65.
    assert!((m.mean_bsld - 1.4625).abs() < 1e-12);
    assert!((m.p95_bsld - (1.65 + 0.85 * 0.05)).abs() < 1e-12);
    // Σ p·r = 20 + 20 + 6 + 20 = 66 over 4 cores × (35 − 0).
    assert!((m.utilization - 66.0 / 140.0).abs() < 1e-12);
    assert_eq!(m.makespan, 35.0);
    // Per-user mean waits: u1 5, u2 13.5 → 18.5² / (2 · (25 + 182.25)).
    assert!((m.jain_user_wait - 342.25 / 414.5).abs() < 1e-12);
    // Delivered share per user (no tree: equal targets).
    let s: Vec<(String, f64, f64)> = r
        .shares
        .iter()
        .map(|s| (s.entity.clone(), s.target, s.delivered))
        .collect();
    assert_eq!(
        s,
        [
            ("u1".to_string(), 0.5, 40.0 / 66.0),
            ("u2".to_string(), 0.5, 26.0 / 66.0)
        ]
    );
}

#[test]
fn bounded_slowdown_uses_tau_10_and_a_floor_of_1() {
    // A 1-second job that waited 4 s: (4 + 1) / max(1, 10) = 0.5 → floored to 1.
    let w = parse_swf("1 0 -1 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n", "t.swf").unwrap();
    let m = compute(&w.jobs, &[Some(4)], &[Some(5)], 1);
    assert_eq!(m.mean_bsld, 1.0);
    // Waited 25 s: (25 + 1) / 10 = 2.6.
    let m = compute(&w.jobs, &[Some(25)], &[Some(26)], 1);
    assert!((m.mean_bsld - 2.6).abs() < 1e-12);
}

#[test]
fn percentile_is_numpy_linear() {
    let x = [0.0, 10.0, 13.0, 14.0, 100.0];
    assert_eq!(percentile(&x, 0.0), 0.0);
    assert_eq!(percentile(&x, 0.5), 13.0);
    assert!((percentile(&x, 0.95) - 82.8).abs() < 1e-9); // h = 3.8 → 14 + 0.8·86
    assert_eq!(percentile(&x, 1.0), 100.0);
}
