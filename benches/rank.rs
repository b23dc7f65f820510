//! Ranking 1M jobs (evaluate + order) against sorting 1M precomputed f64 keys.
//! `cargo bench --bench rank`. Evaluation goes through the public API, which splits tables
//! of 65,536 jobs or more across threads; `tools/src/bin/bench_report.rs` measures the same
//! ranking with evaluation on one thread.

use criterion::{Criterion, criterion_group, criterion_main};
use jobsort::formula::Engine;
use jobsort::rank::{RankOptions, TieBreak, rank};
use std::hint::black_box;

#[path = "common.rs"]
mod common;

fn ranking(c: &mut Criterion) {
    let n = 1_000_000;
    let f = &common::formulas()[0];
    let (cf, _) = common::compile(f, Engine::Jit);
    let cols = common::columns_for(&cf, n);
    let refs: Vec<&[f64]> = cols.iter().map(Vec::as_slice).collect();
    let keys = cf.evaluate_columns(&refs, n).values;
    let ties = TieBreak::default();
    let mut group = c.benchmark_group("rank_1M");
    group.sample_size(10);
    group.bench_function("std_sort_unstable_precomputed_f64", |b| {
        b.iter(|| {
            let mut k = keys.clone();
            k.sort_unstable_by(|a, b| b.total_cmp(a));
            black_box(k)
        })
    });
    group.bench_function("std_sort_precomputed_f64", |b| {
        b.iter(|| {
            let mut k = keys.clone();
            k.sort_by(|a, b| b.partial_cmp(a).unwrap_or(std::cmp::Ordering::Equal));
            black_box(k)
        })
    });
    group.bench_function("evaluate_and_rank", |b| {
        b.iter(|| {
            let ev = cf.evaluate_columns(&refs, n);
            black_box(rank(&ev.values, ties, &RankOptions::default()))
        })
    });
    group.bench_function("evaluate_and_top100", |b| {
        b.iter(|| {
            let ev = cf.evaluate_columns(&refs, n);
            black_box(rank(
                &ev.values,
                ties,
                &RankOptions {
                    threshold: None,
                    top: Some(100),
                },
            ))
        })
    });
    group.finish();
}

criterion_group!(benches, ranking);
criterion_main!(benches);
