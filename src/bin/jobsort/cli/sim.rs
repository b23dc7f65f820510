//! `jobsort sim`: simulate a trace under one or more formulas, side by side.

use jobsort::catalog::{Catalog, ResourceType};
use jobsort::sim::limit::LimitsSpec;
use jobsort::sim::plot::{PlotRun, render_png, render_svg};
use jobsort::sim::run::{RunOptions, RunResult, simulate};
use jobsort::sim::scheduler::drop_oversized;
use jobsort::sim::share::{AutoTree, EntityKind, FairshareConfig};
use jobsort::sim::{Policy, SimConfig, workload};
use jobsort::{CompiledFormula, Formula};
use rayon::prelude::*;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::{EXIT_INVALID, EXIT_USAGE};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Workload: SWF (plain or .gz) or a JSON job list (.json / .jsonl).
    #[arg(long)]
    pub trace: PathBuf,
    /// A job_sort_formula (repeat to compare several side by side; none = first come, first
    /// served). `-` reads stdin; a qmgr line `set server job_sort_formula="..."` is accepted.
    #[arg(long = "formula", allow_hyphen_values = true)]
    pub formulas: Vec<String>,
    /// Dispatch policy.
    #[arg(long, default_value = "easy", value_parser = ["strict", "easy"])]
    pub policy: String,
    /// Nodes (default: from the trace header / .machines file).
    #[arg(long)]
    pub nodes: Option<u32>,
    /// Cores per node (default: from the trace header / .machines file).
    #[arg(long)]
    pub cores: Option<u32>,
    /// job_sort_formula_threshold: jobs with value <= T are not run.
    #[arg(long)]
    pub threshold: Option<f64>,
    /// PBS resource_group file for the fairshare tree.
    #[arg(long = "resource-group", alias = "fairshare-tree")]
    pub resource_group: Option<PathBuf>,
    /// Build an equal-share tree from the trace's entities.
    #[arg(long = "auto-tree", value_parser = ["user", "group", "group:user"])]
    pub auto_tree: Option<String>,
    /// Fairshare entity with --resource-group: euser, egroup, queue, egroup:euser.
    #[arg(long, default_value = "euser")]
    pub entity: String,
    /// fairshare_decay_time in seconds.
    #[arg(long = "decay-time", default_value_t = 86_400)]
    pub decay_time: i64,
    /// fairshare_decay_factor (0 < f < 1).
    #[arg(long = "decay-factor", default_value_t = 0.5)]
    pub decay_factor: f64,
    /// Shares of `unknown` in a resource_group tree.
    #[arg(long = "unknown-shares", default_value_t = 0)]
    pub unknown_shares: u32,
    /// flux-accounting limits file (TOML or JSON, as `jobsort limits`). Users it does not
    /// list get an unlimited association unless --reject-unknown-users.
    #[arg(long)]
    pub limits: Option<PathBuf>,
    /// With --limits: reject jobs of users without an association (flux behaviour).
    #[arg(long = "reject-unknown-users")]
    pub reject_unknown_users: bool,
    /// Write a recording (JSON lines). With several formulas, FILE gets `.1`, `.2`, ...
    /// before its extension.
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Write comparison plots: wait CDF per formula, queue length over time, delivered vs
    /// target share. The format follows the extension: FILE.svg or FILE.png.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = ["table", "json"])]
    pub format: String,
    /// Simulate only the first N jobs (in submit order).
    #[arg(long)]
    pub first: Option<usize>,
    /// Declare a custom resource for formulas (NAME:TYPE).
    #[arg(long = "resource")]
    pub resources: Vec<String>,
}

/// Formula text as given: `-` reads stdin, a qmgr line is unquoted.
pub fn formula_text(arg: &str) -> Result<String, String> {
    let raw = if arg == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| format!("stdin: {e}"))?;
        s
    } else {
        arg.to_string()
    };
    Ok(match jobsort::formula::check::formula_from_qmgr(&raw) {
        Some(f) => f,
        None => raw.trim().to_string(),
    })
}

/// Compile formula text for the simulator (keywords of SPEC §5.2 plus custom resources).
pub fn compile(text: &str, catalog: &Catalog) -> Result<CompiledFormula, String> {
    Formula::compile(text, catalog).map_err(|d| format!("formula `{text}`: {d}"))
}

pub fn catalog(resources: &[String]) -> Result<Catalog, String> {
    let mut c = Catalog::pbs();
    for r in resources {
        let (name, ty) = r
            .split_once(':')
            .ok_or_else(|| format!("--resource {r}: expected NAME:TYPE"))?;
        let ty: ResourceType = ty.parse().map_err(|e| format!("--resource {r}: {e}"))?;
        c.add_resource(name, ty);
    }
    Ok(c)
}

fn nth_path(p: &Path, k: usize, n: usize) -> PathBuf {
    if n <= 1 {
        return p.to_path_buf();
    }
    let stem = p
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match p.extension() {
        Some(e) => format!("{stem}.{k}.{}", e.to_string_lossy()),
        None => format!("{stem}.{k}"),
    };
    p.with_file_name(name)
}

/// Write a file atomically: temp file beside it, fsync, rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut tmp = tempfile_in(dir, path)?;
    tmp.1.write_all(bytes)?;
    tmp.1.sync_all()?;
    std::fs::rename(&tmp.0, path)
}

fn tempfile_in(dir: &Path, path: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    let base = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    for k in 0..1000 {
        let p = dir.join(format!(".{base}.tmp{}.{k}", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&p)
        {
            Ok(f) => return Ok((p, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("could not create a temporary file"))
}

/// Fairshare settings from the options (`None` without a tree).
pub fn fairshare_config(
    resource_group: Option<&Path>,
    auto_tree: Option<&str>,
    entity: &str,
    decay_time: i64,
    decay_factor: f64,
    unknown_shares: u32,
) -> Result<Option<FairshareConfig>, (u8, String)> {
    if !(decay_factor > 0.0 && decay_factor < 1.0) {
        return Err((
            EXIT_USAGE,
            format!("--decay-factor {decay_factor}: must be between 0 and 1"),
        ));
    }
    if decay_time <= 0 {
        return Err((EXIT_USAGE, "--decay-time must be positive".into()));
    }
    let base = match (resource_group, auto_tree) {
        (Some(_), Some(_)) => {
            return Err((
                EXIT_USAGE,
                "give --resource-group or --auto-tree, not both".into(),
            ));
        }
        (None, None) => return Ok(None),
        (None, Some(a)) => FairshareConfig::auto(
            AutoTree::parse(a).ok_or((EXIT_USAGE, format!("--auto-tree {a}: unknown")))?,
        ),
        (Some(p), None) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| (EXIT_INVALID, format!("{}: {e}", p.display())))?;
            let kind = EntityKind::parse(entity)
                .ok_or((EXIT_USAGE, format!("--entity {entity}: unknown")))?;
            FairshareConfig {
                auto_tree: None,
                resource_group: Some(text),
                entity: kind,
                ..FairshareConfig::auto(AutoTree::User)
            }
        }
    };
    Ok(Some(FairshareConfig {
        decay_time,
        decay_factor,
        unknown_shares,
        ..base
    }))
}

/// The `--plot` file and whether it is a PNG (`.png`) rather than an SVG (`.svg`, or no
/// extension). Any other extension is a usage error.
fn plot_format(p: &Path) -> Result<(&Path, bool), String> {
    let Some(ext) = p.extension() else {
        return Ok((p, false));
    };
    match ext.to_str() {
        Some(e) if e.eq_ignore_ascii_case("svg") => Ok((p, false)),
        Some(e) if e.eq_ignore_ascii_case("png") => Ok((p, true)),
        _ => Err(format!(
            "{}: --plot writes FILE.svg or FILE.png; unknown extension",
            p.display()
        )),
    }
}

fn fail(code: u8, msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("jobsort sim: {msg}");
    ExitCode::from(code)
}

pub fn run(args: Args) -> ExitCode {
    // Checked before simulating, so a bad name does not cost a whole run.
    let plot = match args.plot.as_deref().map(plot_format).transpose() {
        Ok(p) => p,
        Err(e) => return fail(EXIT_USAGE, e),
    };
    let catalog = match catalog(&args.resources) {
        Ok(c) => c,
        Err(e) => return fail(EXIT_USAGE, e),
    };
    let mut formulas: Vec<CompiledFormula> = Vec::new();
    for f in &args.formulas {
        let text = match formula_text(f) {
            Ok(t) => t,
            Err(e) => return fail(EXIT_INVALID, e),
        };
        match compile(&text, &catalog) {
            Ok(c) => formulas.push(c),
            Err(e) => return fail(EXIT_INVALID, e),
        }
    }
    let mut w = match jobsort::sim::load_workload(&args.trace) {
        Ok(w) => w,
        Err(e) => return fail(EXIT_INVALID, e),
    };
    if let Some(n) = args.first {
        w.truncate(n);
    }
    let (Some(nodes), Some(cores)) = (
        args.nodes.or(w.machine.nodes),
        args.cores.or(w.machine.cores).or(args.nodes.map(|_| 1)),
    ) else {
        return fail(
            EXIT_USAGE,
            format!(
                "{}: no machine size in the trace; give --nodes and --cores",
                args.trace.display()
            ),
        );
    };
    drop_oversized(&mut w, nodes, cores);
    let fairshare = match fairshare_config(
        args.resource_group.as_deref(),
        args.auto_tree.as_deref(),
        &args.entity,
        args.decay_time,
        args.decay_factor,
        args.unknown_shares,
    ) {
        Ok(f) => f,
        Err((code, e)) => return fail(code, e),
    };
    let limits = match &args.limits {
        None => None,
        Some(p) => match std::fs::read_to_string(p) {
            Ok(text) => {
                let spec = LimitsSpec {
                    name: p.display().to_string(),
                    text,
                    reject_unknown_users: args.reject_unknown_users,
                };
                // Check it now so a bad file is reported once, before any run.
                if let Err(e) = jobsort::limits::LimitsConfig::parse(&spec.name, &spec.text) {
                    return fail(EXIT_INVALID, e);
                }
                Some(spec)
            }
            Err(e) => return fail(EXIT_INVALID, format!("{}: {e}", p.display())),
        },
    };
    let config = SimConfig {
        policy: Policy::parse(&args.policy).unwrap_or(Policy::Easy),
        nodes,
        cores,
        threshold: args.threshold,
        fairshare,
        limits,
    };
    let specs: Vec<Option<&CompiledFormula>> = if formulas.is_empty() {
        vec![None]
    } else {
        formulas.iter().map(Some).collect()
    };
    let n = specs.len();
    let bars = std::io::stderr()
        .is_terminal()
        .then(indicatif::MultiProgress::new);
    let results: Vec<Result<RunResult, String>> = specs
        .par_iter()
        .enumerate()
        .map(|(k, f)| {
            let record = args.record.as_ref().map(|p| nth_path(p, k + 1, n));
            let bar = bars.as_ref().map(|m| {
                let b = m.add(indicatif::ProgressBar::new(w.jobs.len() as u64));
                b.set_style(
                    indicatif::ProgressStyle::with_template(
                        "{prefix:>24} [{bar:40}] {pos}/{len} jobs {elapsed}",
                    )
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                );
                b.set_prefix(
                    f.map(|f| f.source().chars().take(24).collect::<String>())
                        .unwrap_or_else(|| "fcfs".into()),
                );
                b
            });
            let cb = |done: usize, _total: usize| {
                if let Some(b) = &bar {
                    b.set_position(done as u64);
                }
            };
            let opts = RunOptions {
                record: record.as_deref(),
                series: args.plot.is_some(),
                progress: Some(&cb),
            };
            let r = simulate(
                &w,
                &config,
                f.map(|f| f as &dyn jobsort::sim::Priority),
                &opts,
            )
            .map_err(|e| e.to_string());
            if let Some(b) = bar {
                b.finish();
            }
            r
        })
        .collect();
    let mut runs = Vec::with_capacity(n);
    for r in results {
        match r {
            Ok(r) => runs.push(r),
            Err(e) => return fail(EXIT_INVALID, e),
        }
    }
    if let Some((p, png)) = &plot {
        let png = *png;
        let pr: Vec<PlotRun<'_>> = runs
            .iter()
            .map(|r| PlotRun {
                label: label(r),
                result: r,
            })
            .collect();
        let bytes = match render_svg(&pr, &w.jobs) {
            Ok(svg) if png => match render_png(&svg) {
                Ok(b) => b,
                Err(e) => return fail(EXIT_INVALID, format!("plot: {e}")),
            },
            Ok(svg) => svg.into_bytes(),
            Err(e) => return fail(EXIT_INVALID, format!("plot: {e}")),
        };
        if let Err(e) = write_atomic(p, &bytes) {
            return fail(EXIT_INVALID, format!("{}: {e}", p.display()));
        }
    }
    if args.format == "json" {
        let json = serde_json::json!({
            "trace": {
                "name": w.name,
                "sha256": w.sha256,
                "read": w.report.read,
                "kept": w.report.kept,
                "dropped": w.report.dropped,
                "walltime_from_runtime": w.report.walltime_from_runtime,
                "killed_at_walltime": w.report.killed_at_walltime,
                "nodes": nodes,
                "cores": cores,
            },
            "runs": runs.iter().map(|r| serde_json::json!({
                "formula": r.formula.clone().unwrap_or_default(),
                "policy": r.config.policy.name(),
                "jobs": r.jobs,
                "dropped": r.dropped,
                "never_started": r.never_started,
                "rounds": r.outcome.rounds,
                "eval_errors": r.outcome.eval_errors,
                "metrics": r.metrics,
                "shares": r.shares,
            })).collect::<Vec<_>>(),
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&json).unwrap_or_default()
        );
    } else {
        print_table(&w, nodes, cores, &runs);
    }
    ExitCode::SUCCESS
}

fn label(r: &RunResult) -> String {
    r.formula.clone().unwrap_or_else(|| "(fcfs)".into())
}

fn print_table(w: &workload::Workload, nodes: u32, cores: u32, runs: &[RunResult]) {
    let dropped: Vec<String> = w
        .report
        .dropped
        .iter()
        .map(|(k, v)| format!("{v} {k}"))
        .collect();
    println!(
        "trace {}: {} jobs read, {} simulated, {} dropped{}; cluster {} nodes x {} cores",
        w.name,
        w.report.read,
        w.jobs.len(),
        w.report.dropped_total(),
        if dropped.is_empty() {
            String::new()
        } else {
            format!(" ({})", dropped.join(", "))
        },
        nodes,
        cores
    );
    println!(
        "requested time missing (run time used): {}; killed at requested time: {}",
        w.report.walltime_from_runtime, w.report.killed_at_walltime
    );
    println!();
    let width = runs
        .iter()
        .map(|r| label(r).len())
        .max()
        .unwrap_or(8)
        .clamp(8, 48);
    println!(
        "{:<width$}  {:>6}  {:>10}  {:>10}  {:>10}  {:>9}  {:>9}  {:>6}  {:>10}  {:>6}",
        "formula",
        "policy",
        "mean_wait",
        "median",
        "p95_wait",
        "mean_bsld",
        "p95_bsld",
        "util",
        "makespan",
        "jain"
    );
    for r in runs {
        let m = &r.metrics;
        let mut l = label(r);
        if l.len() > width {
            l.truncate(width - 1);
            l.push('~');
        }
        println!(
            "{:<width$}  {:>6}  {:>10.1}  {:>10.1}  {:>10.1}  {:>9.2}  {:>9.2}  {:>6.3}  {:>10}  {:>6.3}",
            l,
            r.config.policy.name(),
            m.mean_wait,
            m.median_wait,
            m.p95_wait,
            m.mean_bsld,
            m.p95_bsld,
            m.utilization,
            m.makespan,
            m.jain_user_wait
        );
    }
    for r in runs {
        if r.never_started > 0 || r.outcome.eval_errors > 0 {
            println!(
                "{}: {} jobs never started, {} formula evaluation errors (value taken as 0)",
                label(r),
                r.never_started,
                r.outcome.eval_errors
            );
        }
    }
    println!(
        "(waits and makespan in seconds; bounded slowdown tau = 10 s; percentiles by linear interpolation)"
    );
}
