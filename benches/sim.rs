//! Jobs simulated per second (SPEC §8): `cargo bench --bench sim`. Criterion reports
//! throughput in jobs/s (elements/s).
//!
//! - `sim_kth`: the full KTH-SP2 trace (28,467 jobs, 100 × 1 cores), strict and EASY, FCFS and
//!   a formula with fairshare;
//! - `sim_machines`: FCFS, strict and EASY, on LANL-CM5 (1024 × 1) and on LLNL-Atlas as the
//!   machine it was (1152 × 8) and as 9216 one-core nodes: the cost of placement as the
//!   machine's shape changes;
//! - `sim_whole`: the same traces and policies (KTH-SP2 on 100 × 1 too) from the file:
//!   loading the trace (gunzip and parse), dropping the jobs too large for the machine, and
//!   simulating, what `jobsort sim` does before it prints.
//!
//! The same numbers, interleaved and for any trace and machine, come from `cargo run --release
//! -p jobsort-tools --bin sim_kth`; measured numbers and what limits them are in `docs/perf.md`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use jobsort::sim::load_workload;
use jobsort::sim::run::{RunOptions, simulate};
use jobsort::sim::scheduler::drop_oversized;
use jobsort::sim::share::{AutoTree, FairshareConfig};
use jobsort::sim::{Policy, Priority, SimConfig};
use jobsort::{Catalog, Formula};
use std::time::Duration;

const TRACES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/traces");

fn config(policy: Policy, nodes: u32, cores: u32, fairshare: Option<FairshareConfig>) -> SimConfig {
    SimConfig {
        policy,
        nodes,
        cores,
        threshold: None,
        fairshare,
        limits: None,
        queue_order: None,
    }
}

fn kth(c: &mut Criterion) {
    let path = format!("{TRACES}/KTH-SP2-1996-2.1-cln.swf.gz");
    let w = load_workload(std::path::Path::new(&path)).expect("KTH-SP2 trace");
    let f = Formula::compile(
        "fairshare_factor * 1000 + eligible_time / 3600",
        &Catalog::pbs(),
    )
    .expect("formula");
    let mut g = c.benchmark_group("sim_kth");
    g.throughput(Throughput::Elements(w.jobs.len() as u64));
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(5));
    for policy in [Policy::Easy, Policy::Strict] {
        for (name, formula, fairshare) in [
            ("fcfs", None, None),
            (
                "formula_fairshare",
                Some(&f),
                Some(FairshareConfig::auto(AutoTree::User)),
            ),
        ] {
            let cfg = config(policy, 100, 1, fairshare);
            g.bench_function(format!("{}_{name}", policy.name()), |b| {
                b.iter(|| {
                    simulate(
                        &w,
                        &cfg,
                        formula.map(|f| f as &dyn Priority),
                        &RunOptions::default(),
                    )
                    .expect("simulate")
                })
            });
        }
    }
    g.finish();
}

/// The traces and machines of `sim_machines` and `sim_whole`: (file, name, nodes, cores).
const MACHINES: [(&str, &str, u32, u32); 4] = [
    ("KTH-SP2-1996-2.1-cln.swf.gz", "kth_100x1", 100, 1),
    ("LANL-CM5-1994-4.1-cln.swf.gz", "lanl_1024x1", 1024, 1),
    ("LLNL-Atlas-2006-2.1-cln.swf.gz", "llnl_1152x8", 1152, 8),
    ("LLNL-Atlas-2006-2.1-cln.swf.gz", "llnl_9216x1", 9216, 1),
];

/// `sim_machines` (the core, from the loaded jobs; KTH-SP2 is `sim_kth`'s) and `sim_whole`
/// (from the file), per machine and policy.
fn machines(c: &mut Criterion) {
    for (group, from_file) in [("sim_machines", false), ("sim_whole", true)] {
        let mut g = c.benchmark_group(group);
        g.sample_size(10);
        g.warm_up_time(Duration::from_secs(1));
        g.measurement_time(Duration::from_secs(5));
        for (trace, name, nodes, cores) in MACHINES {
            if !from_file && name.starts_with("kth") {
                continue;
            }
            let path = format!("{TRACES}/{trace}");
            let path = std::path::Path::new(&path);
            let load = || {
                let mut w = load_workload(path).expect("trace");
                drop_oversized(&mut w, nodes, cores);
                w
            };
            let w = load();
            g.throughput(Throughput::Elements(w.jobs.len() as u64));
            for policy in [Policy::Easy, Policy::Strict] {
                let cfg = config(policy, nodes, cores, None);
                let run =
                    |w: &_| simulate(w, &cfg, None, &RunOptions::default()).expect("simulate");
                g.bench_function(format!("{name}_{}_fcfs", policy.name()), |b| {
                    if from_file {
                        b.iter(|| run(&load()))
                    } else {
                        b.iter(|| run(&w))
                    }
                });
            }
        }
        g.finish();
    }
}

criterion_group!(benches, kth, machines);
criterion_main!(benches);
