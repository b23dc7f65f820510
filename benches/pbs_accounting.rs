//! Parsing PBS accounting records: a generated log (`pbs_log.rs`: 100 000 jobs, Q/S/E each,
//! interleaved as a server writes them) read from memory into a workload. Throughput in
//! records/s. `cargo bench --bench pbs_accounting` (add `-- --quick` on a shared machine);
//! `cargo run --release -p jobsort-tools --bin pbs_accounting_year` reads a generated year from disk and
//! gives records/s and the peak memory. Measured numbers are in `docs/perf.md`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use jobsort::sim::workload::{ReadOptions, parse_pbs_accounting};
use std::time::Duration;

#[path = "pbs_log.rs"]
mod pbs_log;

fn bench(c: &mut Criterion) {
    let mut log = Vec::new();
    let records = pbs_log::generate(100_000, 10, |_, line| {
        log.extend_from_slice(line.as_bytes());
        Ok(())
    })
    .expect("generate the log");
    let mut g = c.benchmark_group("pbs_accounting");
    g.throughput(Throughput::Elements(records))
        .measurement_time(Duration::from_secs(10))
        .sample_size(10);
    g.bench_function("parse_100k_jobs", |b| {
        b.iter(|| {
            let w = parse_pbs_accounting(&log, "generated", ReadOptions::default())
                .expect("the generated log reads");
            assert_eq!(w.jobs.len(), 100_000);
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
