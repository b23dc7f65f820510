//! A big machine and a long trace: a generated trace of `JOBS` jobs (default
//! 1,000,000) on `NODES` nodes of `CORES` cores (default 10,000 × 1), simulated strict and
//! EASY without a formula; prints the simulation core's jobs/s (best of `RUNS`, default 3),
//! by the wall clock and by the thread's time on a CPU (what a loaded machine does not move).
//! With `--swf OUT`, writes the trace as SWF instead, for the whole process under
//! `/usr/bin/time -v jobsort sim --trace OUT` (its max RSS is the memory per job):
//!
//! ```sh
//! cargo run --release -p jobsort-tools --bin sim_big -- 1000000 10000 1
//! cargo run --release -p jobsort-tools --bin sim_big -- 1000000 10000 1 --swf /tmp/big.swf
//! ```
//!
//! The jobs (a fixed pseudo-random sequence): sizes 2^k cores for k uniform in 0..=10,
//! run times log-uniform in 1 min .. 10 h, requested times 1–3 × the run time, 500 users,
//! arrivals every `mean size × mean run / (0.85 × capacity)` seconds on average
//! (exponential), so the machine runs at about 85% of its capacity with a queue.
//!
//! With `--resources`, the machine is `NODES` nodes of 32 cores in two types —
//! nine in ten with 128 GB, one in ten with 256 GB and 4 GPUs — and each job asks for chunks
//! (`Request::Select`): its cores as chunks of up to 32 cores with 4 GB per core (1–7 GB
//! per core for one job in four, so some are memory-bound), one GPU per chunk for one job
//! in ten, placed `free` (one job in eight `scatter`, one in sixteen `excl`). Their
//! arrivals are then spread so that the busiest resource runs at about 85%: for every
//! resource and set of node types, the work of the jobs that fit only those types against
//! their capacity (GPU jobs and chunks of more than 128 GB fit only the GPU nodes, whose
//! cores are the bottleneck: at the cores' spacing they are offered 168% of them on
//! 100,000 jobs and 1,000 nodes, and the queue grows without bound). It prints the
//! busiest share before and after:
//!
//! ```sh
//! cargo run --release -p jobsort-tools --bin sim_big -- 1000000 10000 --resources
//! ```
//!
//! `--policy P` (a `jobsort sim --policy` name: `easy`, `slurm`, `backfill:4`, ...) runs that
//! policy alone.

use jobsort::sim::cluster::{Arrangement, Machine, NodeType, Place, Sharing};
use jobsort::sim::run::{RunOptions, simulate, simulate_setup};
use jobsort::sim::workload::{Names, Request, Select, SelectPart, SimJob, Workload};
use jobsort::sim::{Policy, Setup, SimConfig};
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

/// A 64-bit LCG's next value in `[0, 1)`.
fn uniform(x: &mut u64) -> f64 {
    *x = x
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (*x >> 11) as f64 / (1u64 << 53) as f64
}

fn generate(jobs: usize, capacity: u64) -> Workload {
    let (run_lo, run_hi) = (60f64, 36_000f64);
    let mean_size = (0..=10).map(|k| f64::from(1u32 << k)).sum::<f64>() / 11.0;
    let mean_run = (run_hi - run_lo) / (run_hi / run_lo).ln();
    let gap = mean_size * mean_run / (0.85 * capacity as f64);
    let mut x = 19;
    let mut t = 0f64;
    let mut w = Workload::default();
    let mut names = Names::default();
    for i in 1..=jobs {
        t += -gap * (1.0 - uniform(&mut x)).ln();
        let size = (1u64 << (uniform(&mut x) * 11.0) as u32).min(capacity) as u32;
        let run = (run_lo * (run_hi / run_lo).powf(uniform(&mut x))).round() as i64;
        let walltime = (run as f64 * (1.0 + 2.0 * uniform(&mut x))).round() as i64;
        w.push_kept(SimJob::from(jobsort::sim::JobSpec {
            id: i.to_string().into(),
            submit: t as i64,
            run,
            walltime,
            walltime_given: true,
            request: Request::Procs(size),
            mem: 0.0,
            user: names.get_owned(format!("u{}", (uniform(&mut x) * 500.0) as u32)),
            group: names.get("g"),
            account: names.get(""),
            qos: names.get(""),
            queue: names.get("default"),
            queue_priority: 0.0,
            resources: Default::default(),
            recorded_start: None,
        }));
    }
    w.finish();
    w
}

/// The `--resources` machine: `nodes` nodes of 32 cores, one in ten with GPUs.
fn resources_machine(nodes: u32) -> Machine {
    const GB: u64 = 1024 * 1024;
    let gpu = (nodes / 10).max(1);
    Machine::parse(
        &format!(
            "count={} ncpus=32 mem={}kb name=cpu\ncount={gpu} ncpus=32 mem={}kb ngpus=4 name=gpu\n",
            nodes - gpu,
            128 * GB,
            256 * GB
        ),
        "--resources",
    )
    .expect("machine")
}

/// The busiest resource's share of what the machine offers over the arrivals' span: for
/// every resource and every set of node types, the work (run time × amount held) of the
/// jobs that can run only on nodes of those types, over those nodes' capacity × the span.
/// A chunk holds its amounts, a whole node when exclusive (of the first type it fits:
/// first fit tries the lower-numbered nodes first). Jobs that fit no node type (never
/// start) offer nothing.
fn bottleneck(w: &Workload, m: &Machine) -> f64 {
    let types = m.types();
    let width = m.names().len();
    let subsets = 1usize << types.len();
    // demand[subset][resource]: the work of the jobs whose node types are that subset.
    let mut demand = vec![vec![0f64; width]; subsets];
    for j in &w.jobs {
        let Request::Select(s) = &j.request else {
            continue;
        };
        let mut amounts = vec![0u64; width];
        for (r, v) in &s.parts[0].resources {
            if let Some(i) = m.index(r) {
                amounts[i] += v;
            }
        }
        let on = |t: &NodeType| t.amounts.iter().zip(&amounts).all(|(c, a)| c >= a);
        let set = (0..types.len())
            .filter(|&k| on(&types[k]))
            .fold(0usize, |set, k| set | 1 << k);
        let Some(first) = (0..types.len()).find(|&k| set & 1 << k != 0) else {
            continue;
        };
        let held = if s.place.sharing == Sharing::Shared {
            &amounts
        } else {
            &types[first].amounts
        };
        let chunks = f64::from(s.parts[0].count) * j.run as f64;
        for (d, &h) in demand[set].iter_mut().zip(held) {
            *d += chunks * h as f64;
        }
    }
    let span = (w.jobs.last().map_or(0, |j| j.submit) - w.jobs.first().map_or(0, |j| j.submit))
        .max(1) as f64;
    let mut most = 0f64;
    for subset in 1..subsets {
        #[allow(clippy::needless_range_loop)] // `r` indexes every set's demand and every type
        for r in 0..width {
            let offered: f64 = (0..subsets)
                .filter(|&s| s & !subset == 0)
                .map(|s| demand[s][r])
                .sum();
            let capacity: f64 = (0..types.len())
                .filter(|&k| subset & 1 << k != 0)
                .map(|k| f64::from(types[k].count) * types[k].amounts[r] as f64)
                .sum();
            if capacity > 0.0 {
                most = most.max(offered / (capacity * span));
            }
        }
    }
    most
}

/// The jobs of [`generate`] as chunk requests for [`resources_machine`].
fn with_chunks(w: &mut Workload) {
    const GB: u64 = 1024 * 1024;
    let mut x = 23;
    for j in &mut w.jobs {
        let cores = j.request.total_cores() as u32;
        let per_chunk = cores.min(32);
        let per_core = if uniform(&mut x) < 0.25 {
            1 + (uniform(&mut x) * 7.0) as u64
        } else {
            4
        };
        let mut resources = vec![
            ("ncpus".to_string(), u64::from(per_chunk)),
            ("mem".to_string(), u64::from(per_chunk) * per_core * GB),
        ];
        if uniform(&mut x) < 0.1 {
            resources.push(("ngpus".to_string(), 1));
        }
        let draw = uniform(&mut x);
        let place = Place {
            arrangement: if draw < 0.125 {
                Arrangement::Scatter
            } else {
                Arrangement::Free
            },
            sharing: if (0.125..0.1875).contains(&draw) {
                Sharing::Excl
            } else {
                Sharing::Shared
            },
        };
        j.request = Request::Select(Arc::new(Select {
            parts: vec![SelectPart {
                count: cores.div_ceil(per_chunk),
                resources,
            }],
            place,
        }));
    }
}

/// This thread's time on a CPU so far (Linux `/proc/thread-self/schedstat`, in seconds;
/// `None` elsewhere): on a loaded machine the wall time of a run is mostly waiting.
fn cpu_time() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

fn write_swf(w: &Workload, nodes: u32, cores: u32, out: &str) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(out).expect("output file"));
    writeln!(
        f,
        "; MaxNodes: {nodes}\n; MaxProcs: {}",
        u64::from(nodes) * u64::from(cores)
    )
    .unwrap();
    for j in &w.jobs {
        let user = j.user.trim_start_matches('u');
        writeln!(
            f,
            "{} {} -1 {} {p} -1 -1 {p} {} -1 1 {user} 1 -1 1 -1 -1 -1",
            j.id,
            j.submit,
            j.run,
            j.walltime,
            p = j.request.total_cores()
        )
        .unwrap();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let swf = args
        .iter()
        .position(|a| a == "--swf")
        .map(|i| args[i + 1].clone());
    let resources = args.iter().any(|a| a == "--resources");
    // `--policy P` (any of `jobsort sim --policy`): that policy alone, else strict and EASY.
    let policies = match args.iter().position(|a| a == "--policy") {
        Some(i) => vec![Policy::parse(&args[i + 1]).expect("a policy")],
        None => vec![Policy::Strict, Policy::Easy],
    };
    let numbers: Vec<u64> = args
        .iter()
        .take_while(|a| !a.starts_with("--"))
        .map(|a| a.parse().expect("a number"))
        .collect();
    let arg = |k: usize, default: u64| numbers.get(k).copied().unwrap_or(default);
    let (jobs, nodes, cores, runs) = (
        arg(0, 1_000_000) as usize,
        arg(1, 10_000) as u32,
        arg(2, 1) as u32,
        arg(3, 3),
    );
    let t = Instant::now();
    let machine = resources.then(|| resources_machine(nodes));
    let capacity = machine
        .as_ref()
        .map_or(u64::from(nodes) * u64::from(cores), |m| m.total(0));
    let mut w = generate(jobs, capacity);
    let mut load = None;
    if let Some(m) = &machine {
        // Arrivals spaced so the busiest resource, not the cores in all, runs at 85%.
        with_chunks(&mut w);
        let before = bottleneck(&w, m);
        let stretch = before / 0.85;
        for j in &mut w.jobs {
            j.submit = (j.submit as f64 * stretch) as i64;
        }
        load = Some((before, bottleneck(&w, m)));
    }
    match &machine {
        Some(m) => println!(
            "{jobs} jobs generated in {:.2} s, on {}",
            t.elapsed().as_secs_f64(),
            m.to_text().trim_end().replace('\n', " + ")
        ),
        None => println!(
            "{jobs} jobs generated in {:.2} s, on {nodes} x {cores}",
            t.elapsed().as_secs_f64()
        ),
    }
    if let Some((before, after)) = load {
        println!(
            "busiest resource offered {:.0}% of its capacity at the cores' spacing, {:.0}% as spaced",
            before * 100.0,
            after * 100.0
        );
    }
    if let Some(out) = swf {
        write_swf(&w, nodes, cores, &out);
        println!("written to {out}");
        return;
    }
    for policy in policies {
        let cfg = SimConfig::new(policy, nodes, cores);
        let mut best = f64::INFINITY;
        let mut best_cpu = f64::INFINITY;
        let mut rounds = 0;
        for _ in 0..runs {
            let t = Instant::now();
            let cpu = cpu_time();
            let r = match &machine {
                Some(m) => {
                    let setup = Setup::on_machine(&cfg, &w.jobs, Some(m.clone())).expect("setup");
                    simulate_setup(&w, &setup, None, &RunOptions::default())
                }
                None => simulate(&w, &cfg, None, &RunOptions::default()),
            }
            .expect("simulate");
            best = best.min(t.elapsed().as_secs_f64());
            if let (Some(a), Some(b)) = (cpu, cpu_time()) {
                best_cpu = best_cpu.min(b - a);
            }
            rounds = r.outcome.rounds;
        }
        println!(
            "{:<7} {rounds:>9} rounds {best:>8.3} s {:>12.0} jobs/s (core); on a CPU {best_cpu:.3} s, {:.0} jobs/s",
            policy.name(),
            jobs as f64 / best,
            jobs as f64 / best_cpu
        );
    }
}
