//! A big machine and a long trace (issue 19): a generated trace of `JOBS` jobs (default
//! 1,000,000) on `NODES` nodes of `CORES` cores (default 10,000 × 1), simulated strict and
//! EASY without a formula; prints the simulation core's jobs/s (best of `RUNS`, default 3).
//! With `--swf OUT`, writes the trace as SWF instead, for the whole process under
//! `/usr/bin/time -v jobsort sim --trace OUT` (its max RSS is the memory per job):
//!
//! ```sh
//! cargo run --release --example sim_big -- 1000000 10000 1
//! cargo run --release --example sim_big -- 1000000 10000 1 --swf /tmp/big.swf
//! ```
//!
//! The jobs (a fixed pseudo-random sequence): sizes 2^k cores for k uniform in 0..=10,
//! run times log-uniform in 1 min .. 10 h, requested times 1–3 × the run time, 500 users,
//! arrivals every `mean size × mean run / (0.85 × capacity)` seconds on average
//! (exponential), so the machine runs at about 85% of its capacity with a queue.
//!
//! With `--resources` (issue 15), the machine is `NODES` nodes of 32 cores in two types —
//! nine in ten with 128 GB, one in ten with 256 GB and 4 GPUs — and each job asks for chunks
//! (`Request::Select`): its cores as chunks of up to 32 cores with 4 GB per core (1–7 GB
//! per core for one job in four, so some are memory-bound), one GPU per chunk for one job
//! in ten, placed `free` (one job in eight `scatter`, one in sixteen `excl`):
//!
//! ```sh
//! cargo run --release --example sim_big -- 1000000 10000 --resources
//! ```
//!
//! `--policy P` (a `jobsort sim --policy` name: `easy`, `slurm`, `backfill:4`, ...) runs that
//! policy alone.

use jobsort::sim::cluster::{Arrangement, Machine, Place, Sharing};
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
    if machine.is_some() {
        with_chunks(&mut w);
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
    if let Some(out) = swf {
        write_swf(&w, nodes, cores, &out);
        println!("written to {out}");
        return;
    }
    for policy in policies {
        let cfg = SimConfig::new(policy, nodes, cores);
        let mut best = f64::INFINITY;
        let mut rounds = 0;
        for _ in 0..runs {
            let t = Instant::now();
            let r = match &machine {
                Some(m) => {
                    let setup = Setup::on_machine(&cfg, &w.jobs, Some(m.clone())).expect("setup");
                    simulate_setup(&w, &setup, None, &RunOptions::default())
                }
                None => simulate(&w, &cfg, None, &RunOptions::default()),
            }
            .expect("simulate");
            best = best.min(t.elapsed().as_secs_f64());
            rounds = r.outcome.rounds;
        }
        println!(
            "{:<7} {rounds:>9} rounds {best:>8.3} s {:>12.0} jobs/s (core)",
            policy.name(),
            jobs as f64 / best
        );
    }
}
