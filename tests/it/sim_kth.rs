//! A CI-sized slice of the real KTH-SP2 trace: EASY with a formula and fairshare, invariants
//! (checked every round in debug builds), determinism, and `--verify` of the recording.

use jobsort::sim::load_workload;
use jobsort::sim::record::parse_recording;
use jobsort::sim::replay::verify;
use jobsort::sim::run::{RunOptions, simulate};
use jobsort::sim::share::{AutoTree, FairshareConfig};
use jobsort::sim::{Policy, SimConfig};
use jobsort::{Catalog, Formula};

/// The trace's first 5,000 jobs (`tests/data/traces/`): every slice here is a prefix of them.
const KTH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/traces/KTH-SP2-1996-2.1-cln-first5000.swf.gz"
);

#[test]
fn kth_slice_easy_with_formula_and_fairshare_is_deterministic_and_verifies() {
    // The whole trace's counts: `../shared/` has it.
    if let Some(whole) = crate::common::shared_or_skip("data/traces/KTH-SP2-1996-2.1-cln.swf.gz") {
        let w = load_workload(&whole).unwrap();
        assert_eq!(w.report.read, 28_476);
        assert_eq!(w.report.dropped.get("runtime <= 0"), Some(&8));
    }
    let mut w = load_workload(std::path::Path::new(KTH)).unwrap();
    assert_eq!((w.machine.nodes, w.machine.cores), (Some(100), Some(1)));
    w.truncate(1500);
    let cfg = SimConfig {
        policy: Policy::Easy,
        nodes: 100,
        cores: 1,
        threshold: None,
        fairshare: Some(FairshareConfig::auto(AutoTree::User)),
        limits: None,
        queue_order: None,
    };
    let f = Formula::compile(
        "fairshare_factor * 100 + eligible_time / 3600 - walltime / 86400",
        &Catalog::pbs(),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    let ra = simulate(
        &w,
        &cfg,
        Some(&f),
        &RunOptions {
            record: Some(&a),
            ..Default::default()
        },
    )
    .unwrap();
    simulate(
        &w,
        &cfg,
        Some(&f),
        &RunOptions {
            record: Some(&b),
            ..Default::default()
        },
    )
    .unwrap();
    let (ta, tb) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert_eq!(ta, tb, "recordings differ");
    // Every job ran, none before its submit, each exactly its (killed) run time.
    for (i, j) in w.jobs.iter().enumerate() {
        let (s, e) = (ra.outcome.start[i].unwrap(), ra.outcome.end[i].unwrap());
        assert!(s >= j.submit);
        assert_eq!(e - s, j.effective_run());
    }
    assert!(ra.metrics.utilization > 0.0 && ra.metrics.utilization <= 1.0);
    // Without recording, rounds where nothing can start skip evaluation: same schedule.
    let quick = simulate(&w, &cfg, Some(&f), &RunOptions::default()).unwrap();
    assert_eq!(quick.outcome.start, ra.outcome.start);
    assert_eq!(quick.outcome.rounds, ra.outcome.rounds);
    let rec = parse_recording(&String::from_utf8(ta).unwrap(), "a.jsonl").unwrap();
    let v = verify(&rec, Some(&f)).unwrap();
    assert_eq!(v.mismatches, 0);
    assert_eq!(v.rounds, ra.outcome.rounds);
}

#[test]
fn kth_slice_strict_lazy_ranking_gives_the_recorded_schedule() {
    // Unrecorded strict runs rank only the prefix they need; recorded runs rank everything.
    let mut w = load_workload(std::path::Path::new(KTH)).unwrap();
    w.truncate(1200);
    let cfg = strict_with_user_tree();
    let f = Formula::compile("fairshare_factor * 1000 - ncpus", &Catalog::pbs()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.jsonl");
    let (full, quick) = recorded_and_quick(&w, &cfg, &f, &p);
    assert_eq!(quick, full);
    assert!(full.iter().all(Option::is_some));
}

#[test]
fn kth_slice_strict_lazy_ranking_matches_full_ranking_for_several_orders() {
    // The lazy strict path tries the top job alone (one scan), then a bounded top-32 pass,
    // then partial selection; each must give the same schedule as ranking everything (the
    // recorded run). Orders with many ties (ncpus), reversed submit order (-eligible_time:
    // every new job is the best so far), and long queues (the first 2500 KTH jobs).
    let mut w = load_workload(std::path::Path::new(KTH)).unwrap();
    w.truncate(2500);
    let dir = tempfile::tempdir().unwrap();
    for (src, share) in [
        ("eligible_time", false),
        ("-eligible_time", false),
        ("-walltime", false),
        ("ncpus", false),
        ("fairshare_factor * 1000 + eligible_time / 3600", true),
        // Ordered by group heads (monotone in eligible_time): per-entity and per-resource
        // groups, min/max, a divisor input, and a formula that errs for some jobs.
        ("ncpus * 0.5 + eligible_time / 600", false),
        (
            "min(eligible_time, 7200) / 3600 + fairshare_factor * 10",
            true,
        ),
        (
            "pow(2, -(fairshare_tree_usage/fairshare_perc)) * 1000 + ncpus * 0.5 + eligible_time/3600",
            true,
        ),
        ("eligible_time / (ncpus - 1) - walltime / 100000", false),
        ("eligible_time * fairshare_factor", true),
    ] {
        let cfg = SimConfig {
            policy: Policy::Strict,
            nodes: 100,
            cores: 1,
            threshold: None,
            fairshare: share.then(|| FairshareConfig::auto(AutoTree::User)),
            limits: None,
            queue_order: None,
        };
        let f = Formula::compile(src, &Catalog::pbs()).unwrap();
        let p = dir.path().join("s.jsonl");
        let (full, quick) = recorded_and_quick(&w, &cfg, &f, &p);
        assert_eq!(quick, full, "{src}");
        assert!(full.iter().all(Option::is_some), "{src}");
    }
}

/// Start times of a recorded run (full rounds: every job ranked) and of an unrecorded one
/// (the fast paths), both of `f` under `cfg`; the recording goes to `p`.
fn recorded_and_quick(
    w: &jobsort::sim::Workload,
    cfg: &SimConfig,
    f: &jobsort::CompiledFormula,
    p: &std::path::Path,
) -> (Vec<Option<i64>>, Vec<Option<i64>>) {
    let full = simulate(
        w,
        cfg,
        Some(f),
        &RunOptions {
            record: Some(p),
            ..Default::default()
        },
    )
    .unwrap();
    let quick = simulate(w, cfg, Some(f), &RunOptions::default()).unwrap();
    (full.outcome.start, quick.outcome.start)
}

/// KTH's cluster (100 × 1 cores), strict ordering, an equal-share user tree.
fn strict_with_user_tree() -> SimConfig {
    SimConfig {
        policy: Policy::Strict,
        nodes: 100,
        cores: 1,
        threshold: None,
        fairshare: Some(FairshareConfig::auto(AutoTree::User)),
        limits: None,
        queue_order: None,
    }
}

#[test]
fn fairshare_keywords_without_a_tree_are_zero_on_every_path() {
    // No share tree: the keywords read 0 for every job (no entity groups); strict and EASY,
    // recorded and not, give the same schedule.
    let mut w = load_workload(std::path::Path::new(KTH)).unwrap();
    w.truncate(800);
    let f = Formula::compile(
        "fairshare_factor * 1000 + eligible_time / 3600",
        &Catalog::pbs(),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    for policy in [Policy::Strict, Policy::Easy, Policy::Fill] {
        let cfg = SimConfig {
            fairshare: None,
            policy,
            ..strict_with_user_tree()
        };
        let p = dir.path().join("s.jsonl");
        let (full, quick) = recorded_and_quick(&w, &cfg, &f, &p);
        assert_eq!(quick, full, "{policy:?}");
        assert!(quick.iter().all(Option::is_some));
    }
}

#[test]
fn head_path_is_used_and_agrees_with_every_full_round() {
    // Debug builds check every head-path round against the full ranking (a panic here means a
    // wrong top job); the simulator also says it takes that path for this formula.
    let mut w = load_workload(std::path::Path::new(KTH)).unwrap();
    w.truncate(2500);
    let cfg = strict_with_user_tree();
    let f = Formula::compile(
        "fairshare_factor * 1000 + eligible_time / 3600",
        &Catalog::pbs(),
    )
    .unwrap();
    let setup = jobsort::sim::Setup::new(&cfg, &w.jobs).unwrap();
    let full = jobsort::sim::Simulator::new(&w.jobs, &setup, Some(&f))
        .unwrap()
        .run_to_end();
    let sim = jobsort::sim::Simulator::new(&w.jobs, &setup, Some(&f))
        .unwrap()
        .with_full_rounds(false);
    assert!(
        sim.orders_by_heads(),
        "the formula is monotone in eligible_time"
    );
    let quick = sim.run_to_end();
    assert_eq!(quick.start, full.start);
}

/// The run loop checks `RunOptions::cancel` between rounds: set, the run stops with
/// `RunError::Cancelled` (the Python module sets it on Ctrl-C); left unset, it changes
/// nothing.
#[test]
fn a_set_cancel_flag_stops_the_run_between_rounds() {
    use jobsort::sim::run::RunError;
    use std::sync::atomic::{AtomicBool, Ordering};
    let mut w = load_workload(std::path::Path::new(KTH)).unwrap();
    w.truncate(3000);
    let cfg = SimConfig {
        policy: Policy::Easy,
        nodes: 100,
        cores: 1,
        threshold: None,
        fairshare: None,
        limits: None,
        queue_order: None,
    };
    let f = Formula::compile("eligible_time / 3600 - walltime / 86400", &Catalog::pbs()).unwrap();
    let flag = AtomicBool::new(false);
    let with_flag = |flag: &AtomicBool| {
        simulate(
            &w,
            &cfg,
            Some(&f),
            &RunOptions {
                cancel: Some(flag),
                ..Default::default()
            },
        )
    };
    let done = with_flag(&flag).unwrap();
    let plain = simulate(&w, &cfg, Some(&f), &RunOptions::default()).unwrap();
    assert_eq!(done.outcome.start, plain.outcome.start);
    // Set from another thread while the run goes (here: once it has started).
    let progress = |_: usize, _: usize| flag.store(true, Ordering::Relaxed);
    flag.store(false, Ordering::Relaxed);
    let r = simulate(
        &w,
        &cfg,
        Some(&f),
        &RunOptions {
            cancel: Some(&flag),
            progress: Some(&progress),
            ..Default::default()
        },
    );
    assert!(matches!(r, Err(RunError::Cancelled)), "{:?}", r.err());
}
