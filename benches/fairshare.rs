//! Fairshare recompute for a 100k-entity tree, per algorithm (SPEC §8: O(n), a few ms).
//! Needs `[[bench]] name = "fairshare" harness = false` in Cargo.toml; run with
//! `cargo bench --bench fairshare`.
//!
//! Measured 2026-11-30 on the shared 2-core CI box (100 groups × 1000 users, medians):
//! pbs_recompute 1.60 ms, slurm_classic 8.2 ms, slurm_fairtree 14.2 ms, flux_weighted_tree
//! 36.8 ms; building: pbs_parse_resource_group 84 ms, share_tree_build 87 ms.

use criterion::{Criterion, black_box, criterion_group, criterion_main};
use jobsort::fairshare::pbs::{ParseOptions, PbsTree};
use jobsort::fairshare::tree::{ShareTree, Shares};
use jobsort::fairshare::{flux, slurm};

/// 100 groups × 1000 users, each user with some usage.
fn resource_group(groups: usize, users: usize) -> String {
    let mut s = String::new();
    for g in 0..groups {
        s.push_str(&format!("g{g} {} root {}\n", 100 + g, 1 + g % 7));
        for u in 0..users {
            s.push_str(&format!(
                "u{g}_{u} {} g{g} {}\n",
                1_000_000 + g * users + u,
                1 + u % 5
            ));
        }
    }
    s
}

fn share_tree(groups: usize, users: usize) -> ShareTree {
    let mut t = ShareTree::new(1.0);
    for g in 0..groups {
        let gn = format!("g{g}");
        t.add(
            &gn,
            "root",
            Shares::Value((1 + g % 7) as f64),
            0.0,
            false,
            None,
        )
        .unwrap();
        for u in 0..users {
            let usage = ((g * 31 + u * 17) % 1000) as f64;
            t.add(
                &format!("u{g}_{u}"),
                &gn,
                Shares::Value((1 + u % 5) as f64),
                usage,
                true,
                None,
            )
            .unwrap();
        }
    }
    t.finish();
    t
}

fn bench(c: &mut Criterion) {
    let text = resource_group(100, 1000);
    let (mut pbs, _) =
        PbsTree::parse_resource_group(&text, "rg", &ParseOptions::default()).unwrap();
    for g in 0..100 {
        for u in (0..1000).step_by(3) {
            pbs.apply_usage_record(
                &format!("u{g}_{u}"),
                ((g * 31 + u * 17) % 1000) as f64,
                false,
            );
        }
    }
    let mut grp = c.benchmark_group("fairshare_100k");
    grp.sample_size(20);
    grp.bench_function("pbs_parse_resource_group", |b| {
        b.iter(|| {
            PbsTree::parse_resource_group(black_box(&text), "rg", &ParseOptions::default()).unwrap()
        })
    });
    grp.bench_function("pbs_recompute", |b| {
        b.iter(|| black_box(&mut pbs).recompute())
    });
    let t = share_tree(100, 1000);
    grp.bench_function("share_tree_build", |b| {
        b.iter(|| share_tree(black_box(100), 1000))
    });
    grp.bench_function("slurm_classic", |b| {
        b.iter(|| slurm::classic(black_box(&t), 1.0))
    });
    grp.bench_function("slurm_fairtree", |b| {
        b.iter(|| slurm::fair_tree(black_box(&t)))
    });
    grp.bench_function("flux_weighted_tree", |b| {
        b.iter(|| flux::weighted_tree(black_box(&t)))
    });
    grp.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
