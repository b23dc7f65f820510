//! How close the forecasts come to what happened: for each trace given, the state at 200
//! instants over the middle 80 % of its time rebuilt from its recorded schedule, the
//! queue planned forward first come first served (EASY unless told), and each waiting job's
//! forecast start, with full walltimes and with the runtime model learned from the jobs
//! ended by then, set against its recorded start (`jobsort::forecast::history`). Prints one
//! markdown table of the errors, then one of what each trace gave. Not part of `cargo test`:
//!
//! ```sh
//! cargo run --release -p jobsort-tools --bin forecast_accuracy -- ../shared/data/traces/*.swf.gz
//! cargo run --release -p jobsort-tools --bin forecast_accuracy -- --instants 50 --policy strict T.swf
//! ```
//!
//! `--instants N` and `--policy easy|strict|fill|conservative` apply to the traces after
//! them. The machine is the trace's (an SWF header's `MaxNodes`/`MaxProcs`, an AleaNG
//! `.machines` file beside it); a trace that gives none is skipped.

use jobsort::forecast::history::{AccuracyReport, Errors, accuracy, instants};
use jobsort::model::policy::Policy;
use jobsort::workload::load_workload;
use std::path::Path;
use std::time::Instant;

/// One trace's run, for the tables.
struct Run {
    name: String,
    policy: Policy,
    nodes: usize,
    cores: u64,
    jobs: usize,
    with_start: usize,
    report: AccuracyReport,
    load_s: f64,
    run_s: f64,
}

fn policy_of(s: &str) -> Policy {
    match s {
        "easy" => Policy::Easy,
        "strict" => Policy::Strict,
        "fill" => Policy::Fill,
        "conservative" => Policy::Conservative,
        _ => panic!("--policy {s}: easy, strict, fill or conservative"),
    }
}

fn policy_name(p: Policy) -> String {
    match p {
        Policy::Easy => "EASY".into(),
        Policy::Strict => "strict".into(),
        Policy::Fill => "fill".into(),
        Policy::Conservative => "conservative".into(),
        p => format!("{p:?}"),
    }
}

fn pct(x: f64) -> String {
    format!("{:.0} %", 100.0 * x)
}

/// The columns of one assumption: compared, median, p90, median signed, ≤ 10 min, ≤ 1 h,
/// none.
fn cells(e: &Errors) -> String {
    if e.compared == 0 {
        return format!("0 | | | | | | {}", e.no_forecast);
    }
    format!(
        "{} | {:.0} | {:.0} | {:+.0} | {} | {} | {}",
        e.compared,
        e.median,
        e.p90,
        e.median_signed,
        pct(e.within_10_min),
        pct(e.within_1_h),
        e.no_forecast
    )
}

fn main() {
    let mut n = 200usize;
    let mut policy = Policy::Easy;
    let mut runs = Vec::new();
    let mut args = std::env::args().skip(1);
    let total = Instant::now();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--instants" => {
                n = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--instants N")
            }
            "--policy" => policy = policy_of(&args.next().expect("--policy NAME")),
            path => {
                let t0 = Instant::now();
                let w = match load_workload(Path::new(path)) {
                    Ok(w) => w,
                    Err(e) => {
                        eprintln!("{path}: {e}");
                        continue;
                    }
                };
                let load_s = t0.elapsed().as_secs_f64();
                let Some((nodes, cores)) = w.machine.resolve(None, None) else {
                    eprintln!("{path}: the trace gives no machine size: skipped");
                    continue;
                };
                let t1 = Instant::now();
                let at = instants(&w, n);
                let report = accuracy(&w, nodes as usize, u64::from(cores), &at, policy);
                let run_s = t1.elapsed().as_secs_f64();
                eprintln!(
                    "{}: {} instants in {run_s:.1} s (loaded in {load_s:.1} s)",
                    w.name, report.instants
                );
                runs.push(Run {
                    name: w.name.clone(),
                    policy,
                    nodes: nodes as usize,
                    cores: u64::from(cores),
                    jobs: w.jobs.len(),
                    with_start: w
                        .jobs
                        .iter()
                        .filter(|j| j.recorded_start().is_some())
                        .count(),
                    report,
                    load_s,
                    run_s,
                });
            }
        }
    }

    println!(
        "| Trace | Policy | Size | Wait left: median s | Full walltime: n | median s | p90 s | bias s | ≤ 10 min \
         | ≤ 1 h | no forecast | Model: n | median s | p90 s | bias s | ≤ 10 min | ≤ 1 h \
         | no forecast |"
    );
    println!("|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    for r in &runs {
        let name = r.name.trim_end_matches(".gz").trim_end_matches(".swf");
        for c in std::iter::once(&r.report.all).chain(&r.report.classes) {
            if c.label != "all" && c.walltime.compared + c.walltime.no_forecast == 0 {
                continue;
            }
            println!(
                "| {name} | {} | {} | {} | {} | {} |",
                policy_name(r.policy),
                c.label,
                if c.now.compared == 0 {
                    String::new()
                } else {
                    format!("{:.0}", c.now.median)
                },
                cells(&c.walltime),
                cells(&c.model)
            );
        }
    }
    println!();
    println!(
        "| Trace | Machine | Jobs | With a recorded start | Instants (with a queue) | \
         Waiting (job × instant) | Fit at once (of them waited > 10 min) | \
         Skipped (no start) | Overcommitted | Walltime assumed | Load s | Forecast s |"
    );
    println!("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    for r in &runs {
        let a = &r.report;
        println!(
            "| {} | {} × {} | {} | {} | {} ({}) | {} | {} ({}) | {} | {} | {} | {:.1} | {:.1} |",
            r.name,
            r.nodes,
            r.cores,
            r.jobs,
            r.with_start,
            a.instants,
            a.with_queue,
            a.waiting,
            a.fit_now,
            a.fit_now_waited,
            a.skipped,
            a.overcommitted,
            a.walltime_assumed,
            r.load_s,
            r.run_s
        );
    }
    eprintln!("total {:.1} s", total.elapsed().as_secs_f64());
}
