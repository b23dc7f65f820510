//! The plain first-come-first-served loop (`src/sim/scheduler/plain.rs`) against the general
//! rounds on the real traces: KTH-SP2, LANL-CM5 and LLNL-Atlas, strict and EASY, every
//! job's start and end and the round count the same, and `simulate` (which takes the plain
//! loop when nothing reads the rounds) giving the general rounds' metrics.

use jobsort::sim::run::{RunOptions, result, simulate};
use jobsort::sim::scheduler::plain;
use jobsort::sim::{Policy, Setup, SimConfig, Simulator, load_workload};

/// The whole traces are in `../shared/data/traces/`; without it, the comparison is skipped.
fn compare(name: &str, jobs: usize) {
    let Some(path) = crate::common::shared_or_skip(&format!("data/traces/{name}")) else {
        return;
    };
    let mut w = load_workload(&path).unwrap();
    w.truncate(jobs);
    let (nodes, cores) = (w.machine.nodes.unwrap(), w.machine.cores.unwrap_or(1));
    for policy in [Policy::Strict, Policy::Easy] {
        let config = SimConfig::new(policy, nodes, cores);
        let setup = Setup::new(&config, &w.jobs).unwrap();
        assert!(plain::applies(&setup, None, false));
        assert!(
            !plain::applies(&setup, None, true),
            "a recording reads the rounds"
        );
        let counted = plain::run(&w.jobs, &setup)
            .unwrap()
            .expect("a trace of processor counts is decided by counts");
        let general = Simulator::new(&w.jobs, &setup, None)
            .unwrap()
            .with_full_rounds(false)
            .run_to_end();
        let what = format!("{name} {policy:?}");
        assert_eq!(counted.start, general.start, "{what}");
        assert_eq!(counted.end, general.end, "{what}");
        assert_eq!(counted.rounds, general.rounds, "{what}");
        // `simulate` takes the plain loop, and its metrics are the general rounds'.
        let quick = simulate(&w, &config, None, &RunOptions::default()).unwrap();
        let rounds = result(&w, &config, None, general);
        assert_eq!(quick.outcome.start, rounds.outcome.start, "{what}");
        assert_eq!(quick.metrics, rounds.metrics, "{what}");
        assert_eq!(quick.shares, rounds.shares, "{what}");
        assert_eq!(quick.never_started, 0, "{what}");
    }
}

#[test]
fn kth_sp2_plain_is_the_general_rounds() {
    compare("KTH-SP2-1996-2.1-cln.swf.gz", usize::MAX);
}

/// The first 30,000 of LANL-CM5's 122,052 jobs (the whole trace takes two minutes in a debug
/// build, seconds in release: `JOBSORT_LONG_SIM=1 cargo test --release --test it sim_plain::`).
#[test]
fn lanl_cm5_plain_is_the_general_rounds() {
    let jobs = match std::env::var_os("JOBSORT_LONG_SIM") {
        Some(_) => usize::MAX,
        None => 30_000,
    };
    compare("LANL-CM5-1994-4.1-cln.swf.gz", jobs);
}

#[test]
fn llnl_atlas_plain_is_the_general_rounds() {
    compare("LLNL-Atlas-2006-2.1-cln.swf.gz", usize::MAX);
}
