//! `forecast` and `why` speed on a large site: a 10,000-job queue on a 5,000-node cluster of
//! two node types (4,000 × 64 cores / 256 GB; 1,000 × 32 cores / 512 GB / 4 GPUs), 4,000
//! jobs running, under EASY, Slurm's backfill (500 tested jobs) and strict order.
//!
//! `cargo bench --bench forecast` — the time of one whole-queue plan, and of `why` for one
//! job: the plan run until that job starts (a lower job's backfill can move a job without a
//! reservation, so the plan up to its start is needed; nothing after it is).
//!
//! `FORECAST_ONCE=1 cargo bench --bench forecast [-- POLICY]` — instead, one plan per policy
//! (or the policies whose name holds POLICY), timed and printed with its cycle count: a plan
//! too slow for criterion's samples, or a quick look.

use criterion::{Criterion, criterion_group, criterion_main};
use jobsort::forecast::{FullWalltime, PlanOptions, plan, plan_for};
use jobsort::model::limits::Limits;
use jobsort::model::place::{Arrangement, Place, Sharing};
use jobsort::model::policy::{Policy, SlurmBackfill};
use jobsort::model::snapshot::{
    Ask, Held, Node, NodeState, PendingJob, RunningJob, Scheduler, Snapshot,
};
use std::time::Duration;

const NOW: i64 = 1_764_590_400;

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The site: nodes, running jobs filling most of them, and the queue.
pub fn site(nodes: usize, running: usize, pending: usize) -> Snapshot {
    let mut r = Lcg(42);
    let mut s = Snapshot::new(Scheduler::Slurm);
    s.taken_at = Some(NOW);
    let gb = 1024 * 1024;
    for i in 0..nodes {
        let gpu = i % 5 == 4;
        s.nodes.push(Node {
            name: format!("n{i:05}"),
            state: NodeState::Free,
            state_text: "idle".into(),
            available: if gpu {
                vec![32, 512 * gb, 4]
            } else {
                vec![64, 256 * gb, 0]
            },
            assigned: vec![0, 0, 0],
            jobs: Vec::new(),
            partitions: Vec::new(),
        });
    }
    // Running jobs: whole nodes or parts of one, ending over the next day.
    let mut node = 0;
    for k in 0..running {
        if node >= nodes {
            break;
        }
        let n = &s.nodes[node];
        let cores = if r.below(3) == 0 {
            n.available[0]
        } else {
            n.available[0] / 2
        };
        let wall = 3600 * (1 + r.below(24) as i64);
        let start = NOW - r.below(wall as u64) as i64;
        s.running.push(RunningJob {
            id: format!("r{k}"),
            user: Some(format!("u{}", r.below(200))),
            group: None,
            account: None,
            project: None,
            qos: None,
            queue: None,
            start,
            walltime: Some(wall),
            held: vec![Held {
                node: n.name.clone(),
                amounts: vec![cores, 4 * gb, 0],
            }],
            total: vec![cores, 4 * gb, 0],
            elapsed: None,
        });
        s.nodes[node].assigned = vec![cores, 4 * gb, 0];
        if cores == s.nodes[node].available[0] || r.below(2) == 0 {
            node += 1;
        }
    }
    for k in 0..pending {
        let (parts, arrangement) = match r.below(10) {
            // Multi-node: N × 64 cores.
            0 => (
                vec![(1 + r.below(16) as u32, vec![64, 64 * gb, 0])],
                Arrangement::Scatter,
            ),
            // GPU chunks.
            1 | 2 => (
                vec![(1 + r.below(4) as u32, vec![8, 32 * gb, 1])],
                Arrangement::Free,
            ),
            // Cores anywhere.
            _ => (
                vec![(1 + r.below(32) as u32, vec![1, 2 * gb, 0])],
                Arrangement::Free,
            ),
        };
        s.pending.push(PendingJob {
            id: format!("p{k}"),
            user: Some(format!("u{}", r.below(200))),
            group: None,
            account: None,
            project: None,
            qos: None,
            queue: Vec::new(),
            submit: Some(NOW - r.below(86_400) as i64),
            walltime: Some(600 * (1 + r.below(48) as i64)),
            ask: Ask {
                parts,
                place: Place {
                    arrangement,
                    sharing: Sharing::Shared,
                },
            },
            priority: Some(r.below(100_000) as f64),
            reason: None,
            hold: None,
        });
    }
    s
}

fn bench(c: &mut Criterion) {
    // FORECAST_SIZE=nodes,running,pending to try other sizes.
    let size: Vec<usize> = std::env::var("FORECAST_SIZE")
        .ok()
        .map(|v| v.split(',').filter_map(|x| x.parse().ok()).collect())
        .filter(|v: &Vec<usize>| v.len() == 3)
        .unwrap_or_else(|| vec![5_000, 4_000, 10_000]);
    let s = site(size[0], size[1], size[2]);
    let order: Vec<usize> = (0..s.pending.len()).collect();
    let limits = Limits::none(s.running.len(), s.pending.len());
    let policies = [
        ("easy", Policy::Easy),
        ("slurm", Policy::Slurm(SlurmBackfill::default())),
        ("strict", Policy::Strict),
    ];
    if std::env::var_os("FORECAST_ONCE").is_some() {
        let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
        for (name, policy) in policies {
            if filter.as_deref().is_some_and(|f| !name.contains(f)) {
                continue;
            }
            let options = PlanOptions {
                policy,
                ..PlanOptions::default()
            };
            let t = std::time::Instant::now();
            let p = plan(&s, &limits, &order, NOW, &options, &FullWalltime);
            let started = p.jobs.iter().filter(|j| j.start.is_some()).count();
            println!(
                "{name} {}/{}/{}: {:.3} s, {} cycles, {started} jobs started",
                size[0],
                size[1],
                size[2],
                t.elapsed().as_secs_f64(),
                p.cycles
            );
        }
        return;
    }
    let mut g = c.benchmark_group("forecast");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    for (name, policy) in policies {
        let options = PlanOptions {
            policy,
            ..PlanOptions::default()
        };
        g.bench_function(format!("10k_jobs_5k_nodes_{name}"), |b| {
            b.iter(|| plan(&s, &limits, &order, NOW, &options, &FullWalltime))
        });
    }
    // `why` for one job: the plan runs until that job starts (`plan_for`), so its time
    // depends on how far down the queue it waits — the 100th job, and the 5,000th.
    let options = PlanOptions {
        policy: Policy::Easy,
        ..PlanOptions::default()
    };
    for rank in [100usize, 5_000] {
        let j = order[(rank - 1).min(order.len() - 1)];
        g.bench_function(format!("why_rank_{rank}_easy"), |b| {
            b.iter(|| {
                plan_for(
                    &s,
                    &limits,
                    &order,
                    NOW,
                    &options,
                    &FullWalltime,
                    Some(&[j]),
                )
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
