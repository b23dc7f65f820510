//! Text formulas through the front end, threshold, limits (held jobs) and fairshare in the
//! simulation.

use jobsort::sim::limit::LimitsSpec;
use jobsort::sim::run::{RunOptions, simulate};
use jobsort::sim::scheduler::{Decision, PendReason, Simulator};
use jobsort::sim::share::{AutoTree, FairshareConfig};
use jobsort::sim::swf::parse_swf;
use jobsort::sim::{Policy, Priority, Setup, SimConfig, Workload};
use jobsort::{Catalog, Formula};

fn cfg(policy: Policy, nodes: u32) -> SimConfig {
    SimConfig::new(policy, nodes, 1)
}

/// `id submit run procs req user` rows.
fn swf(rows: &[(u32, i64, i64, u32, i64, u32)]) -> Workload {
    let mut s = String::new();
    for &(id, submit, run, procs, req, user) in rows {
        s.push_str(&format!(
            "{id} {submit} -1 {run} {procs} -1 -1 {procs} {req} -1 1 {user} 1 -1 -1 -1 -1 -1\n"
        ));
    }
    parse_swf(&s, "p.swf").unwrap()
}

fn starts(w: &Workload, c: &SimConfig, f: Option<&dyn Priority>) -> Vec<Option<i64>> {
    simulate(w, c, f, &RunOptions::default())
        .unwrap()
        .outcome
        .start
}

// One core. X: t=0, 10 s. Y: t=1, runs 5, requests 50. Z: t=2, runs 5, requests 5.
const C: &[(u32, i64, i64, u32, i64, u32)] = &[
    (1, 0, 10, 1, 10, 1),
    (2, 1, 5, 1, 50, 1),
    (3, 2, 5, 1, 5, 1),
];

#[test]
fn text_formulas_eligible_time_is_fcfs_and_minus_walltime_is_sjf() {
    let w = swf(C);
    let c = cfg(Policy::Strict, 1);
    let fcfs = Formula::compile("eligible_time", &Catalog::pbs()).unwrap();
    let sjf = Formula::compile("-walltime", &Catalog::pbs()).unwrap();
    assert_eq!(starts(&w, &c, Some(&fcfs)), [Some(0), Some(10), Some(15)]);
    assert_eq!(starts(&w, &c, Some(&sjf)), [Some(0), Some(15), Some(10)]);
    // FCFS by formula equals the no-formula order.
    assert_eq!(starts(&w, &c, Some(&fcfs)), starts(&w, &c, None));
}

#[test]
fn jobs_at_or_under_the_threshold_pend_and_do_not_block() {
    // Formula = requested time; threshold 5: X (10) runs at 0, Y (50) at 10, Z (5) never.
    let w = swf(C);
    let c = SimConfig {
        threshold: Some(5.0),
        ..cfg(Policy::Strict, 1)
    };
    let f = Formula::compile("walltime", &Catalog::pbs()).unwrap();
    let setup = Setup::new(&c, &w.jobs).unwrap();
    let mut sim = Simulator::new(&w.jobs, &setup, Some(&f)).unwrap();
    let mut threshold_pends = 0;
    while let Some(r) = sim.step() {
        threshold_pends += r
            .decisions
            .iter()
            .filter(|d| {
                matches!(
                    d,
                    Decision::Pend {
                        reason: PendReason::Threshold,
                        ..
                    }
                )
            })
            .count();
    }
    let out = sim.finish();
    assert_eq!(out.start, [Some(0), Some(10), None]);
    // Z pends `threshold` in every round after its submit: t=2, 10, 15.
    assert_eq!(threshold_pends, 3);
}

#[test]
fn limits_hold_jobs_with_named_dependencies_without_blocking_others() {
    // 4 cores; flux-accounting limits: u1 may run one job at a time (u2 is not listed: it
    // gets an unlimited association). Job 1 (u1) at t=0; jobs 2 (u1) and 3 (u2) at t=1, when
    // job 1 runs: 2 is held at submit with `max-running-jobs-user-limit`, 3 starts. Job 1
    // ends at 10; the release pass frees 2, which starts then.
    let w = swf(&[
        (1, 0, 10, 1, 10, 1),
        (2, 1, 10, 1, 10, 1),
        (3, 1, 10, 1, 10, 2),
    ]);
    let limits = LimitsSpec {
        name: "limits.toml".into(),
        text: "[[association]]\nuser = \"u1\"\nbank = \"A\"\nmax_running_jobs = 1\n".into(),
        reject_unknown_users: false,
    };
    let c = SimConfig {
        limits: Some(limits.clone()),
        ..cfg(Policy::Strict, 4)
    };
    let setup = Setup::new(&c, &w.jobs).unwrap();
    let mut sim = Simulator::new(&w.jobs, &setup, None).unwrap();
    sim.step().unwrap();
    let second = sim.step().unwrap().decisions.clone();
    assert_eq!(
        second[0],
        Decision::Hold {
            job: 1,
            dependencies: vec!["max-running-jobs-user-limit"]
        }
    );
    assert!(matches!(second[1], Decision::Dispatch { job: 2, .. }));
    while sim.step().is_some() {}
    assert_eq!(sim.finish().start, [Some(0), Some(10), Some(1)]);
    // flux behaviour for unlisted users: their jobs are rejected and never run.
    let c = SimConfig {
        limits: Some(LimitsSpec {
            reject_unknown_users: true,
            ..limits
        }),
        ..cfg(Policy::Strict, 4)
    };
    assert_eq!(starts(&w, &c, None), [Some(0), Some(10), None]);
}

#[test]
fn fairshare_factor_favours_the_user_with_less_usage() {
    // 1 core. u1 runs a long job first (0..1000); then at t=10 u1 and u2 each submit one job.
    // With fairshare_factor, u2's job (no usage) goes first at t=1000 though submitted later.
    let w = swf(&[
        (1, 0, 1000, 1, 1000, 1),
        (2, 10, 10, 1, 10, 1),
        (3, 20, 10, 1, 10, 2),
    ]);
    let c = SimConfig {
        fairshare: Some(FairshareConfig::auto(AutoTree::User)),
        ..cfg(Policy::Strict, 1)
    };
    let f = Formula::compile("fairshare_factor", &Catalog::pbs()).unwrap();
    assert_eq!(starts(&w, &c, Some(&f)), [Some(0), Some(1010), Some(1000)]);
    // Without fairshare the tie goes by submit order.
    assert_eq!(
        starts(&w, &cfg(Policy::Strict, 1), None),
        [Some(0), Some(1000), Some(1010)]
    );
}
