//! Limit engine throughput: 1M events (submit, run, end) over 10k associations and four
//! queues. The event stream is generated once (valid by construction: it is recorded
//! while driving an engine) and replayed on a fresh engine per iteration.
//!
//! `cargo bench --bench limits` — reports elements (events) per second.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use jobsort::flux::limits::{
    AssocConfig, AssocLimits, JobSpec, JobState, LimitEngine, LimitsConfig, Options, QueueConfig,
    QueueLimits, SubmitOutcome,
};

const ASSOCS: usize = 10_000;
const EVENTS: usize = 1_000_000;
const QUEUES: [&str; 4] = ["q0", "q1", "q2", "q3"];

enum Op {
    Submit(JobSpec),
    Run(String),
    End(String),
}

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

fn config() -> LimitsConfig {
    LimitsConfig {
        options: Options::default(),
        associations: (0..ASSOCS)
            .map(|i| AssocConfig {
                user: format!("u{i}"),
                bank: "b".into(),
                userid: i as i64,
                fairshare: 0.5,
                default_bank: true,
                limits: AssocLimits {
                    max_running_jobs: 2,
                    max_active_jobs: 8,
                    max_nodes: 6,
                    max_cores: 24,
                    max_sched_jobs: 3,
                    ..AssocLimits::default()
                },
            })
            .collect(),
        queues: QUEUES
            .iter()
            .map(|q| QueueConfig {
                name: q.to_string(),
                limits: QueueLimits {
                    max_running_jobs: 1,
                    ..QueueLimits::default()
                },
            })
            .collect(),
    }
}

fn generate(cfg: &LimitsConfig) -> Vec<Op> {
    let mut e = LimitEngine::from_config(cfg).unwrap();
    let mut rng = Lcg(42);
    let mut live: Vec<Vec<String>> = vec![Vec::new(); ASSOCS];
    let mut ops = Vec::with_capacity(EVENTS);
    let mut next = 0u64;
    while ops.len() < EVENTS {
        let a = rng.next() as usize % ASSOCS;
        let r = rng.next() % 10;
        let sched: Vec<usize> = (0..live[a].len())
            .filter(|&k| e.job(&live[a][k]).unwrap().state == JobState::Sched)
            .collect();
        if r < 4 || live[a].is_empty() {
            next += 1;
            let nnodes = (rng.next() % 3 + 1) as i64;
            let spec = JobSpec {
                id: format!("j{next}"),
                user: format!("u{a}"),
                bank: None,
                queue: Some(QUEUES[rng.next() as usize % 4].to_string()),
                nnodes,
                ncores: nnodes * 4,
            };
            if !matches!(e.submit(spec.clone()).unwrap(), SubmitOutcome::Rejected(_)) {
                live[a].push(spec.id.clone());
            }
            ops.push(Op::Submit(spec));
        } else if r < 7 && !sched.is_empty() {
            let k = sched[rng.next() as usize % sched.len()];
            let id = live[a][k].clone();
            e.run(&id).unwrap();
            ops.push(Op::Run(id));
        } else {
            let k = rng.next() as usize % live[a].len();
            let id = live[a].swap_remove(k);
            e.end(&id).unwrap();
            ops.push(Op::End(id));
        }
    }
    ops
}

fn replay(cfg: &LimitsConfig, ops: &[Op]) -> usize {
    let mut e = LimitEngine::from_config(cfg).unwrap();
    let mut changes = 0;
    for op in ops {
        changes += match op {
            Op::Submit(s) => e.submit(s.clone()).map(|_| 1).unwrap(),
            Op::Run(id) => e.run(id).unwrap().len(),
            Op::End(id) => e.end(id).unwrap().len(),
        };
    }
    changes
}

fn bench(c: &mut Criterion) {
    let cfg = config();
    let ops = generate(&cfg);
    let mut g = c.benchmark_group("limits");
    g.sample_size(10);
    g.throughput(Throughput::Elements(ops.len() as u64));
    g.bench_function("replay_1M_events_10k_assocs", |b| {
        b.iter_batched(|| (), |()| replay(&cfg, &ops), BatchSize::PerIteration)
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
