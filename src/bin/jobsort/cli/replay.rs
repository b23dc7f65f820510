//! `jobsort replay`: verify a recording, or reconcile another formula against it (or against
//! a real schedule from an SWF trace).

use jobsort::sim::record::parse_recording;
use jobsort::sim::replay::{
    ReconcileReport, VerifyReport, reconcile, recorded_metrics, recording_from_trace, verify,
};
use jobsort::sim::scheduler::drop_oversized;
use jobsort::sim::{Policy, Priority, SimConfig, load_workload};
use std::path::PathBuf;
use std::process::ExitCode;

use super::sim::{catalog, compile, formula_text};
use super::{EXIT_INVALID, EXIT_USAGE};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A recording made by `jobsort sim --record` (JSON lines).
    pub recording: Option<PathBuf>,
    /// Re-run the recording with its settings and compare every decision.
    #[arg(long)]
    pub verify: bool,
    /// Another formula: reconcile it against the recording (or, with --verify, run the live
    /// scheduler with it instead of the recorded one).
    #[arg(long, allow_hyphen_values = true)]
    pub formula: Option<String>,
    /// Use an SWF trace's real schedule (start = submit + wait) as the recording.
    #[arg(long, conflicts_with = "recording")]
    pub trace: Option<PathBuf>,
    /// Policy for "jobs it would have started" with --trace.
    #[arg(long, default_value = "easy", value_parser = ["strict", "easy"])]
    pub policy: String,
    /// Nodes with --trace (default from the header).
    #[arg(long)]
    pub nodes: Option<u32>,
    /// Cores per node with --trace (default from the header).
    #[arg(long)]
    pub cores: Option<u32>,
    /// Print every round of a reconciliation.
    #[arg(long = "per-round")]
    pub per_round: bool,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = ["table", "json"])]
    pub format: String,
    /// Declare a custom resource for formulas (NAME:TYPE).
    #[arg(long = "resource")]
    pub resources: Vec<String>,
}

fn fail(code: u8, msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("jobsort replay: {msg}");
    ExitCode::from(code)
}

pub fn run(args: Args) -> ExitCode {
    let catalog = match catalog(&args.resources) {
        Ok(c) => c,
        Err(e) => return fail(EXIT_USAGE, e),
    };
    let other = match args.formula.as_deref().map(formula_text).transpose() {
        Ok(t) => t,
        Err(e) => return fail(EXIT_INVALID, e),
    };
    let other = match other.map(|t| compile(&t, &catalog)).transpose() {
        Ok(f) => f,
        Err(e) => return fail(EXIT_INVALID, e),
    };
    let (rec, recorded_waits) = match (&args.recording, &args.trace) {
        (Some(p), None) => {
            let text = match std::fs::read_to_string(p) {
                Ok(t) => t,
                Err(e) => return fail(EXIT_INVALID, format!("{}: {e}", p.display())),
            };
            match parse_recording(&text, &p.display().to_string()) {
                Ok(r) => (r, None),
                Err(e) => return fail(EXIT_INVALID, e),
            }
        }
        (None, Some(t)) => {
            if args.verify {
                return fail(
                    EXIT_USAGE,
                    "--verify needs a recording made by `jobsort sim --record`, not --trace",
                );
            }
            let mut w = match load_workload(t) {
                Ok(w) => w,
                Err(e) => return fail(EXIT_INVALID, e),
            };
            let (Some(nodes), Some(cores)) = (
                args.nodes.or(w.machine.nodes),
                args.cores.or(w.machine.cores),
            ) else {
                return fail(
                    EXIT_USAGE,
                    "no machine size in the trace; give --nodes and --cores",
                );
            };
            drop_oversized(&mut w, nodes, cores);
            let config = SimConfig {
                policy: Policy::parse(&args.policy).unwrap_or(Policy::Easy),
                nodes,
                cores,
                threshold: None,
                fairshare: None,
                limits: None,
            };
            let m = recorded_metrics(&w, nodes as u64 * cores as u64);
            (recording_from_trace(&w, &config), Some(m))
        }
        _ => return fail(EXIT_USAGE, "give a RECORDING or --trace FILE"),
    };
    if args.verify || other.is_none() && args.trace.is_none() {
        // The live scheduler uses --formula, else the recorded formula.
        let recorded = match rec
            .header
            .formula
            .as_deref()
            .map(|t| compile(t, &catalog))
            .transpose()
        {
            Ok(f) => f,
            Err(e) => return fail(EXIT_INVALID, format!("the recorded {e}")),
        };
        let f: Option<&dyn Priority> = other
            .as_ref()
            .or(recorded.as_ref())
            .map(|f| f as &dyn Priority);
        let report = match verify(&rec, f) {
            Ok(r) => r,
            Err(e) => return fail(EXIT_INVALID, e),
        };
        print_verify(&report, &args.format);
        return if report.mismatches == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(EXIT_INVALID)
        };
    }
    let report = match reconcile(&rec, other.as_ref().map(|f| f as &dyn Priority)) {
        Ok(r) => r,
        Err(e) => return fail(EXIT_INVALID, e),
    };
    print_reconcile(&report, &args, recorded_waits.as_ref());
    ExitCode::SUCCESS
}

fn print_verify(r: &VerifyReport, format: &str) {
    if format == "json" {
        println!("{}", serde_json::to_string_pretty(r).unwrap_or_default());
        return;
    }
    println!(
        "verified {} rounds, {} decisions{}: {} mismatches",
        r.rounds,
        r.decisions,
        if r.truncated {
            " (recording truncated: verified up to its last complete round)"
        } else {
            ""
        },
        r.mismatches
    );
    if let Some(d) = &r.first_divergence {
        println!(
            "first divergence: round {}, time {}, job {}",
            d.round,
            d.time,
            d.job.as_deref().unwrap_or("-")
        );
        println!("  recorded: {}", d.recorded);
        println!("  live:     {}", d.live);
    }
    if r.input_mismatches > 0 {
        println!("rounds whose input hash differs: {}", r.input_mismatches);
    }
}

fn print_reconcile(
    r: &ReconcileReport,
    args: &Args,
    recorded: Option<&jobsort::sim::metrics::Metrics>,
) {
    if args.format == "json" {
        let mut v = serde_json::to_value(r).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            if !args.per_round {
                o.remove("per_round");
            }
            if let Some(m) = recorded {
                o.insert(
                    "recorded_metrics".into(),
                    serde_json::to_value(m).unwrap_or_default(),
                );
            }
        }
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return;
    }
    if args.per_round {
        println!(
            "{:>8}  {:>10}  {:>6}  {:>7}  captured / would start instead",
            "round", "time", "queued", "tau"
        );
        for p in &r.per_round {
            if p.captured.is_empty() && p.instead.is_empty() {
                continue;
            }
            println!(
                "{:>8}  {:>10}  {:>6}  {:>7}  [{}] / [{}]",
                p.round,
                p.time,
                p.queued,
                p.kendall_tau
                    .map(|t| format!("{t:.3}"))
                    .unwrap_or_else(|| "-".into()),
                p.captured.join(" "),
                p.instead.join(" ")
            );
        }
    }
    println!(
        "reconciled {} rounds{}: {} recorded dispatches, {} jobs captured, {} no-op RUN/duplicate dispatches",
        r.rounds,
        if r.truncated {
            " (recording truncated)"
        } else {
            ""
        },
        r.decisions,
        r.captured,
        r.noops
    );
    println!(
        "formula {}: mean Kendall tau {}, agreement with recorded dispatches {}, jobs it would have started instead {}",
        r.formula.as_deref().unwrap_or("(fcfs)"),
        r.mean_kendall_tau
            .map(|t| format!("{t:.4}"))
            .unwrap_or_else(|| "-".into()),
        r.agreement
            .map(|a| format!("{:.1}%", a * 100.0))
            .unwrap_or_else(|| "-".into()),
        r.instead_total
    );
    if !r.uncaptured.is_empty() {
        let shown: Vec<&str> = r.uncaptured.iter().take(10).map(String::as_str).collect();
        println!(
            "{} jobs without a recorded dispatch (usage unavailable): {}{}",
            r.uncaptured.len(),
            shown.join(" "),
            if r.uncaptured.len() > 10 { " ..." } else { "" }
        );
    }
    if r.overcommitted_rounds > 0 {
        println!(
            "rounds where recorded dispatches exceeded the free cores: {}",
            r.overcommitted_rounds
        );
    }
    if let Some(m) = recorded {
        println!(
            "recorded schedule: mean wait {:.1} s, median {:.1} s, p95 {:.1} s",
            m.mean_wait, m.median_wait, m.p95_wait
        );
    }
}
