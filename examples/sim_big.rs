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

use jobsort::sim::run::{RunOptions, simulate};
use jobsort::sim::workload::{Names, Request, SimJob, Workload};
use jobsort::sim::{Policy, SimConfig};
use std::io::Write;
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
        w.push_kept(SimJob {
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
        });
    }
    w.finish();
    w
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
    let numbers: Vec<u64> = args
        .iter()
        .take_while(|a| *a != "--swf")
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
    let w = generate(jobs, u64::from(nodes) * u64::from(cores));
    println!(
        "{jobs} jobs generated in {:.2} s, on {nodes} x {cores}",
        t.elapsed().as_secs_f64()
    );
    if let Some(out) = swf {
        write_swf(&w, nodes, cores, &out);
        println!("written to {out}");
        return;
    }
    for policy in [Policy::Strict, Policy::Easy] {
        let cfg = SimConfig {
            policy,
            nodes,
            cores,
            threshold: None,
            fairshare: None,
            limits: None,
            queue_order: None,
        };
        let mut best = f64::INFINITY;
        let mut rounds = 0;
        for _ in 0..runs {
            let t = Instant::now();
            let r = simulate(&w, &cfg, None, &RunOptions::default()).expect("simulate");
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
