//! Jobs simulated per second on the full KTH-SP2 trace (28,467 jobs, 100 × 1 cores), strict
//! and EASY, with a formula and fairshare on (SPEC §8): `cargo bench --bench sim`. Criterion reports
//! throughput in jobs/s (elements/s). The same numbers, plus the fidelity checks, come from
//! `cargo run --release --example sim_kth`.
//!
//! Measured numbers, and what limits them, are in the README's "Speed" section.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use jobsort::sim::load_workload;
use jobsort::sim::run::{RunOptions, simulate};
use jobsort::sim::share::{AutoTree, FairshareConfig};
use jobsort::sim::{Policy, Priority, SimConfig};
use jobsort::{Catalog, Formula};
use std::time::Duration;

const KTH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/data/traces/KTH-SP2-1996-2.1-cln.swf.gz"
);

fn bench(c: &mut Criterion) {
    let w = load_workload(std::path::Path::new(KTH)).expect("KTH-SP2 trace");
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
            let cfg = SimConfig {
                policy,
                nodes: 100,
                cores: 1,
                threshold: None,
                fairshare,
                limits: None,
            };
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

criterion_group!(benches, bench);
criterion_main!(benches);
