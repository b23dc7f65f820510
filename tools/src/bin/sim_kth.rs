//! Simulate the full KTH-SP2 trace (and the AleaNG real-PBS validation runs) and print
//! jobs/s and fidelity numbers. Not part of `cargo test`:
//!
//! ```sh
//! cargo run --release -p jobsort-tools --bin sim_kth
//! ```
//!
//! With a trace (and optionally the machine, the number of runs and one policy), only the
//! speed table, for that trace: the best of `runs` (default 3) per row, the rows interleaved.
//! Per row, the simulation core's jobs/s (`simulate`) and the whole run's (loading the trace,
//! dropping the jobs too large for the machine, then `simulate`: what `jobsort sim` does
//! before it prints); the load is timed once per run, shared by the rows.
//!
//! ```sh
//! cargo run --release -p jobsort-tools --bin sim_kth -- ../shared/data/traces/LLNL-Atlas-2006-2.1-cln.swf.gz 9216 1 5
//! cargo run --release -p jobsort-tools --bin sim_kth -- ../shared/data/traces/KTH-SP2-1996-2.1-cln.swf.gz 100 1 20 strict
//! ```

use jobsort::sim::load_workload;
use jobsort::sim::metrics::Metrics;
use jobsort::sim::replay::recorded_metrics;
use jobsort::sim::run::{RunOptions, simulate};
use jobsort::sim::scheduler::drop_oversized;
use jobsort::sim::share::{AutoTree, FairshareConfig};
use jobsort::sim::{Policy, Priority, SimConfig};
use jobsort::{Catalog, Formula};
use std::path::Path;
use std::time::Instant;

const TRACES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/traces");

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let kth = format!("{TRACES}/KTH-SP2-1996-2.1-cln.swf.gz");
    let trace = args.first().unwrap_or(&kth);
    let t0 = Instant::now();
    let mut w = load_workload(Path::new(trace)).expect("trace");
    println!(
        "loaded {} jobs ({} dropped) in {:.3} s",
        w.jobs.len(),
        w.report.dropped_total(),
        t0.elapsed().as_secs_f64()
    );
    let arg = |k: usize| args.get(k).map(|a| a.parse::<u32>().expect("a number"));
    let nodes = arg(1).or(w.machine.nodes).unwrap_or(100);
    let cores = arg(2).or(w.machine.cores).unwrap_or(1);
    let runs = arg(3).unwrap_or(3);
    let only = args
        .get(4)
        .map(|p| Policy::parse(p).expect("strict or easy"));
    drop_oversized(&mut w, nodes, cores);
    println!("{} jobs on {nodes} x {cores}", w.jobs.len());
    let fs = Some(FairshareConfig::auto(AutoTree::User));
    let formula = Formula::compile(
        "fairshare_factor * 1000 + eligible_time / 3600",
        &Catalog::pbs(),
    )
    .expect("formula");
    let fcfs = Formula::compile("eligible_time", &Catalog::pbs()).expect("formula");
    println!(
        "\n{:<8} {:<48} {:>9} {:>8} {:>12} {:>12} {:>12}",
        "policy", "formula", "fairshare", "rounds", "seconds", "jobs/s", "with load"
    );
    let mut rows = Vec::new();
    for policy in [Policy::Strict, Policy::Easy] {
        if only.is_some_and(|p| p != policy) {
            continue;
        }
        for (label, f, share) in [
            ("(none: FCFS)", None, None),
            ("eligible_time", Some(&fcfs), None),
            (formula.source(), Some(&formula), fs.clone()),
        ] {
            let cfg = SimConfig {
                policy,
                nodes,
                cores,
                threshold: None,
                fairshare: share.clone(),
                limits: None,
                queue_order: None,
            };
            rows.push((label, f, cfg, f64::INFINITY, 0, None));
        }
    }
    // Interleaved: run k of every row, then run k + 1, so that a slow moment of a shared
    // machine does not fall on one row only.
    let mut load = f64::INFINITY;
    for _ in 0..runs {
        let t = Instant::now();
        let mut again = load_workload(Path::new(trace)).expect("trace");
        drop_oversized(&mut again, nodes, cores);
        load = load.min(t.elapsed().as_secs_f64());
        for (_, f, cfg, best, rounds, failed) in &mut rows {
            let t = Instant::now();
            match simulate(
                &w,
                cfg,
                f.map(|f| f as &dyn Priority),
                &RunOptions::default(),
            ) {
                Ok(r) => {
                    *best = best.min(t.elapsed().as_secs_f64());
                    *rounds = r.outcome.rounds;
                }
                Err(e) => *failed = Some(e.to_string()),
            }
        }
    }
    for (label, _, cfg, best, rounds, failed) in &rows {
        if let Some(e) = failed {
            println!("{:<8} {label:<48} error: {e}", cfg.policy.name());
            continue;
        }
        println!(
            "{:<8} {:<48} {:>9} {:>8} {:>12.4} {:>12.0} {:>12.0}",
            cfg.policy.name(),
            label,
            if cfg.fairshare.is_some() { "user" } else { "-" },
            rounds,
            best,
            w.jobs.len() as f64 / best,
            w.jobs.len() as f64 / (best + load)
        );
    }
    println!("(load and drop_oversized: best {load:.4} s)");
    if !args.is_empty() {
        return;
    }
    // Fidelity (a): EASY + FCFS-equivalent formula vs the recorded waits.
    let cfg = SimConfig::new(Policy::Easy, 100, 1);
    let sim = simulate(&w, &cfg, Some(&fcfs), &RunOptions::default()).expect("simulate");
    let rec = recorded_metrics(&w, 100);
    println!(
        "\nKTH-SP2, EASY, eligible_time: mean wait simulated {:.1} s vs recorded {:.1} s",
        sim.metrics.mean_wait, rec.mean_wait
    );
    print_pair("simulated", &sim.metrics);
    print_pair("recorded ", &rec);
    // Fidelity (b): AleaNG real-PBS runs.
    println!("\nAleaNG real-PBS validation runs: mean |our start − PBS start| (s)");
    for name in [
        "PBSeasy",
        "PBSeasy4",
        "PBSstrict",
        "PBSstrict3",
        "PBSstrict4",
    ] {
        let p = format!("{TRACES}/aleang-pbs-validation/NGI_CZ_journal_{name}.swf");
        let mut w = load_workload(Path::new(&p)).expect("AleaNG trace");
        let (nodes, cores) = (w.machine.nodes.unwrap_or(1), w.machine.cores.unwrap_or(1));
        drop_oversized(&mut w, nodes, cores);
        let policy = if name.contains("easy") {
            Policy::Easy
        } else {
            Policy::Strict
        };
        let mut line = format!("{name:<11} {nodes}x{cores} {} jobs:", w.jobs.len());
        for (label, f, share) in [("fcfs", &fcfs, None), ("fairshare", &formula, fs.clone())] {
            let cfg = SimConfig {
                policy,
                nodes,
                cores,
                threshold: None,
                fairshare: share,
                limits: None,
                queue_order: None,
            };
            let r = simulate(&w, &cfg, Some(f), &RunOptions::default()).expect("simulate");
            let diffs: Vec<f64> = w
                .jobs
                .iter()
                .zip(&r.outcome.start)
                .filter_map(|(j, s)| Some((s.as_ref()? - j.recorded_start()?).abs() as f64))
                .collect();
            let mad = diffs.iter().sum::<f64>() / diffs.len().max(1) as f64;
            line.push_str(&format!("  {}/{label}: {mad:.1}", policy.name()));
        }
        println!("{line}");
    }
}

fn print_pair(label: &str, m: &Metrics) {
    println!(
        "  {label}: mean wait {:.1}, median {:.1}, p95 {:.1}, mean bsld {:.2}, utilization {:.3}",
        m.mean_wait, m.median_wait, m.p95_wait, m.mean_bsld, m.utilization
    );
}
