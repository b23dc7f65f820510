//! Evaluation speed per engine (jit, interp) at 1k, 100k and 10M jobs, and compile time.
//! `cargo bench --bench eval`

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use jobsort::formula::Engine;
use std::hint::black_box;

#[path = "common.rs"]
mod common;

fn evaluation(c: &mut Criterion) {
    for f in common::formulas() {
        let mut group = c.benchmark_group(format!("eval/{}", f.name));
        for n in [1_000usize, 100_000, 10_000_000] {
            if n >= 10_000_000 {
                group.sample_size(10);
            }
            group.throughput(Throughput::Elements(n as u64));
            for engine in [Engine::Jit, Engine::Interp] {
                let (cf, _) = common::compile(&f, engine);
                let cols = common::columns_for(&cf, n);
                let refs: Vec<&[f64]> = cols.iter().map(Vec::as_slice).collect();
                let name = match engine {
                    Engine::Jit => "jit",
                    Engine::Interp => "interp",
                };
                group.bench_with_input(BenchmarkId::new(name, n), &n, |b, &n| {
                    b.iter(|| black_box(cf.evaluate_columns(&refs, n)))
                });
            }
        }
        group.finish();
    }
}

fn compile_time(c: &mut Criterion) {
    let mut group = c.benchmark_group("compile");
    for f in common::formulas() {
        group.bench_function(f.name, |b| {
            b.iter(|| black_box(common::compile(&f, Engine::Jit)))
        });
    }
    group.finish();
}

criterion_group!(benches, evaluation, compile_time);
criterion_main!(benches);
