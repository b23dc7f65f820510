//! `jobsort sim --snapshot DIR`: formulas compared on a site's queue now. The snapshot is
//! loaded and ordered as `why` and `forecast` do (`queue::load`, `queue::order`: the site's
//! priority, then each formula's order), each order planned forward by one policy with one
//! set of run times (`jobsort::forecast::compare`), and the figures printed as `sim --trace`
//! prints a simulated run's, with each user's and queue's mean-wait change against the first
//! row.
//!
//! The first row is always the site's own priority (what the queue runs by today: PBS's
//! `job_sort_formula`, else submission order; Slurm's and Flux's captured priority), so each
//! formula reads as a change from today.

use super::formula_args::read_formula_arg;
use super::input::InputPath;
use super::output::{
    Out, ReportFormat, clip, per_job_format, span, write_json, write_table, write_wait_changes,
};
use super::queue;
use super::report::{Failure, Outcome, note, warn};
use super::schedule_args::SlurmBackfillArgs;
use jobsort::files::write_atomic;
use jobsort::forecast::compare::{Compared, compare, not_started};
use jobsort::forecast::{FullWalltime, PlanOptions, RuntimeModel, Runtimes, site_policy};
use jobsort::input::units::utc_text;
use jobsort::sim::Policy;
use jobsort::sim::metrics::WaitChanges;
use jobsort::sim::settings;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The flags of `sim --snapshot`.
#[derive(clap::Args, Debug)]
pub struct SnapshotArgs {
    /// Compare the formulas on a site's queue now instead of on a trace: the snapshot folder
    /// (contrib/capture/pbs.sh, slurm.sh or flux.sh make one). Its waiting jobs are ordered by
    /// the site's priority (the first row) and by each formula, each order planned forward
    /// as `jobsort forecast` plans (the site's policy unless --policy; the site's limits);
    /// nothing new arrives.
    #[arg(
        long,
        value_name = "DIR",
        conflicts_with_all = [
            "trace", "lenient", "record", "plot", "fidelity", "first", "threshold",
            "slurm_conf", "machine_file", "nodes", "cores", "mem", "gpus", "limits",
            "pbs_home", "sched_config", "qmgr", "resource_group", "auto_tree",
            "explain_config", "entity", "decay_time", "decay_factor", "unknown_shares",
            "usage_res", "reject_unknown_users", "queue_priorities", "partition_tiers",
            "by_queue", "resources", "resourcedef", "fields",
        ]
    )]
    pub snapshot: Option<PathBuf>,
    /// With --snapshot: each job's run time, one `id,seconds` line per job (running or
    /// waiting; its real or expected run time). A job the file does not list runs its whole
    /// walltime.
    #[arg(
        long,
        value_name = "FILE",
        requires = "snapshot",
        conflicts_with = "history",
        value_parser = crate::cli::input::path_or_stdin
    )]
    pub runtimes: Option<PathBuf>,
    /// With --snapshot: the site's history (PBS accounting logs, a sacct dump, a Flux job
    /// list, SWF): jobs run the share of their walltime their user's finished jobs ran (the
    /// model `forecast --history` learns) instead of their whole walltime.
    #[arg(
        long,
        value_name = "FILE",
        requires = "snapshot",
        value_parser = crate::cli::input::path_or_stdin
    )]
    pub history: Option<PathBuf>,
}

/// One row: what ordered the queue and its plan.
struct Row {
    label: String,
    formula: Option<String>,
    ordered_by: String,
}

/// What `sim`'s other flags say to `--snapshot`: the formulas, the policy, the outputs.
pub struct Given<'a> {
    /// FORMULA arguments, `--formula`s (each `-` for stdin, or a qmgr line) and `--file`s.
    pub formula_args: &'a [String],
    pub formulas: &'a [String],
    pub formula_files: &'a [InputPath],
    pub policy: Option<Policy>,
    pub backfill_depth: Option<u32>,
    pub slurm_backfill: &'a SlurmBackfillArgs,
    pub per_job: Option<&'a Path>,
    pub format: ReportFormat,
}

pub fn run(args: &SnapshotArgs, given: Given<'_>, out: &mut Out) -> Outcome {
    let Some(dir) = args.snapshot.clone() else {
        return Err(Failure::usage("sim needs --trace FILE or --snapshot DIR"));
    };
    let per_job = given.per_job.map(per_job_format).transpose()?;
    let mut formulas: Vec<String> = Vec::new();
    for f in given.formula_args {
        formulas.push(read_formula_arg(f, "FORMULA")?.0);
    }
    for f in given.formulas {
        formulas.push(read_formula_arg(f, "--formula")?.0);
    }
    for path in given.formula_files {
        formulas.push(jobsort::formula::check::formula_text(&path.read_text()?));
    }
    let loaded = queue::load(&dir, false)?;
    let snap = &loaded.snapshot;
    let folder = dir.display().to_string();
    let now = snap.taken_at.ok_or_else(|| {
        Failure::invalid(format!(
            "{folder}: {}",
            jobsort::forecast::ForecastError::NoTime
        ))
    })?;
    if snap.nodes.is_empty() {
        return Err(Failure::invalid(format!(
            "{folder}: {}",
            jobsort::forecast::ForecastError::NoNodes
        )));
    }
    let policy = if given.policy.is_some() || given.backfill_depth.is_some() {
        let (p, warnings) = settings::sim_policy(given.policy, given.backfill_depth, None, None)?;
        for w in &warnings {
            warn(w);
        }
        p.value
    } else {
        site_policy(&loaded).map_err(|e| Failure::invalid(format!("{folder}: {e}")))?
    };
    let policy = given.slurm_backfill.apply(policy)?;
    // The run times every order is planned with.
    let known;
    let model;
    let (runtimes, run_times): (&(dyn Runtimes + Sync), String) =
        match (&args.runtimes, &args.history) {
            (Some(path), _) => {
                known = queue::known_runtimes(path, snap)?;
                (
                    &known,
                    format!(
                        "from {} ({} jobs; the others their full walltime)",
                        path.display(),
                        known.by_id.len()
                    ),
                )
            }
            (None, Some(path)) => {
                let w = jobsort::workload::load_workload(path)
                    .map_err(|e| Failure::invalid(format!("--history: {e}")))?;
                model = RuntimeModel::learn(&w);
                if model.jobs == 0 {
                    return Err(Failure::invalid(format!(
                        "--history {}: no finished job with a requested walltime to learn \
                         run times from",
                        path.display()
                    )));
                }
                (
                    &model,
                    format!(
                        "each user's median share of the walltime, from {} ({} jobs)",
                        path.display(),
                        model.jobs
                    ),
                )
            }
            (None, None) => (
                &FullWalltime,
                "full walltimes (the scheduler's assumption)".to_string(),
            ),
        };
    // The site's priority first, then each formula's order: one definition of the order,
    // `why`'s and `forecast`'s.
    let mut rows = Vec::with_capacity(formulas.len() + 1);
    let mut orders = Vec::with_capacity(formulas.len() + 1);
    let site = queue::order(&loaded, &dir, None)?;
    rows.push(Row {
        label: "site".into(),
        formula: None,
        ordered_by: site.ordered_by,
    });
    orders.push(site.order);
    for f in &formulas {
        let o = queue::order(&loaded, &dir, Some(f))?;
        rows.push(Row {
            label: f.clone(),
            formula: Some(f.clone()),
            ordered_by: o.ordered_by,
        });
        orders.push(o.order);
    }
    let options = PlanOptions {
        policy,
        ..PlanOptions::default()
    };
    let (runs, changes) = compare(&loaded, &orders, now, &options, runtimes);
    if let Some((p, csv)) = per_job {
        let bytes = per_job_bytes(&loaded.snapshot, &rows, &runs, csv)?;
        write_atomic(p, &bytes)
            .map_err(|e| Failure::invalid(format!("{}: cannot write: {e}", p.display())))?;
        note(&format!(
            "each waiting job's start and wait written to {}",
            p.display()
        ));
    }
    match given.format {
        ReportFormat::Json => {
            let doc = json!({
                "snapshot": {
                    "folder": folder,
                    "scheduler": snap.scheduler.name(),
                    "taken_at": now,
                    "waiting": snap.pending.len(),
                    "running": snap.running.len(),
                    "missing": snap.missing.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
                },
                "policy": policy.name(),
                "run_times": run_times,
                "runs": rows.iter().zip(&runs).enumerate().map(|(k, (r, c))| {
                    let mut v = json!({
                        "label": r.label,
                        "formula": r.formula,
                        "ordered_by": r.ordered_by,
                        "metrics": c.metrics,
                    });
                    if k > 0 {
                        v["wait_change_by_user"] = json!(changes.users[k - 1]);
                        if let Some(q) = changes.queues.get(k - 1) {
                            v["wait_change_by_queue"] = json!(q);
                        }
                    }
                    v
                }).collect::<Vec<_>>(),
            });
            write_json(out, &doc, true)?;
        }
        ReportFormat::Table => {
            for m in &snap.missing {
                note(&format!("{folder}: {m}"));
            }
            write_report(
                out,
                &loaded.snapshot,
                policy,
                &run_times,
                &rows,
                &runs,
                &changes,
            )?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The table: a row per order, what never starts and why, the limits' waits, the changes.
fn write_report(
    out: &mut Out,
    snap: &jobsort::model::snapshot::Snapshot,
    policy: Policy,
    run_times: &str,
    rows: &[Row],
    runs: &[Compared],
    changes: &WaitChanges,
) -> std::io::Result<()> {
    let now = snap.taken_at.unwrap_or_default();
    writeln!(
        out,
        "{} snapshot at {}: {} waiting, {} running; {} policy; run times: {run_times}; \
         nothing new arrives",
        snap.scheduler.name(),
        utc_text(now),
        snap.pending.len(),
        snap.running.len(),
        policy.name(),
    )?;
    writeln!(out, "site: {}\n", rows[0].ordered_by)?;
    let header = [
        "order",
        "waiting",
        "started",
        "never",
        "mean_wait",
        "median",
        "p95_wait",
        "mean_bsld",
        "last_start",
    ];
    let right = [false, true, true, true, true, true, true, true, true];
    write_table(out, &header, &right, runs.len(), |k| {
        let m = &runs[k].metrics;
        vec![
            clip(&rows[k].label, 48),
            m.waiting.to_string(),
            m.started.to_string(),
            (m.waiting - m.started).to_string(),
            format!("{:.1}", m.mean_wait),
            format!("{:.1}", m.median_wait),
            format!("{:.1}", m.p95_wait),
            format!("{:.2}", m.mean_bsld),
            m.last_start
                .map_or_else(|| "-".into(), |s| format!("+{}", span(s - now))),
        ]
    })?;
    writeln!(
        out,
        "(waits from submission, in seconds, over the jobs that start; bounded slowdown tau = 10 s; \
         percentiles by linear interpolation; last_start: from the snapshot)"
    )?;
    // What never starts is the same in every order (holds, shapes and per-job limits do
    // not depend on it) but for the horizon: once, unless the orders differ.
    let same = runs
        .iter()
        .all(|r| r.metrics.not_started == runs[0].metrics.not_started);
    for (k, r) in runs.iter().enumerate() {
        if r.metrics.not_started.is_empty() || (same && k > 0) {
            continue;
        }
        let what: Vec<String> = r
            .metrics
            .not_started
            .iter()
            .map(|n| format!("{} {}", n.jobs, n.why))
            .collect();
        let whose = if same {
            String::new()
        } else {
            format!(", `{}`", clip(&rows[k].label, 48))
        };
        writeln!(out, "never started{whose}: {}", what.join("; "))?;
    }
    if r_no_submit(runs) > 0 {
        writeln!(
            out,
            "{} waiting jobs give no submission time: their waits count from the snapshot",
            r_no_submit(runs)
        )?;
    }
    for (k, r) in runs.iter().enumerate() {
        if r.metrics.limits.is_empty() {
            continue;
        }
        writeln!(
            out,
            "\njobs a limit holds now, `{}` (their mean wait from submission and from the \
             snapshot, over those that start; s):",
            clip(&rows[k].label, 48)
        )?;
        for l in &r.metrics.limits {
            writeln!(
                out,
                "  {}: jobs {}, started {}; mean wait {:.1}, {:.1} from now ({})",
                l.reason, l.jobs, l.started, l.mean_wait, l.mean_left, l.plain
            )?;
        }
    }
    let labels: Vec<String> = rows.iter().map(|r| r.label.clone()).collect();
    write_wait_changes(out, changes, &labels)
}

fn r_no_submit(runs: &[Compared]) -> usize {
    runs.first().map_or(0, |r| r.metrics.no_submit)
}

/// The `--per-job` file: each waiting job under each order, in the order's rank order.
fn per_job_bytes(
    snap: &jobsort::model::snapshot::Snapshot,
    rows: &[Row],
    runs: &[Compared],
    csv: bool,
) -> Result<Vec<u8>, Failure> {
    let fail = |e: String| Failure::invalid(format!("--per-job: {e}"));
    let header = [
        "formula", "id", "user", "group", "queue", "submit", "rank", "start", "end", "wait",
        "never",
    ];
    let mut records: Vec<[String; 11]> = Vec::new();
    for (row, run) in rows.iter().zip(runs) {
        for j in &run.plan.jobs {
            let p = &snap.pending[j.index];
            let opt = |v: Option<i64>| v.map_or(String::new(), |v| v.to_string());
            records.push([
                row.label.clone(),
                p.id.clone(),
                p.user.clone().unwrap_or_default(),
                p.group.clone().unwrap_or_default(),
                p.queue.join(","),
                opt(p.submit),
                j.rank.to_string(),
                opt(j.start),
                opt(j.end),
                run.waits[j.index].map_or(String::new(), |w| format!("{w}")),
                if j.start.is_some() {
                    String::new()
                } else {
                    not_started(&j.blocked)
                },
            ]);
        }
    }
    let mut buf: Vec<u8> = Vec::new();
    if csv {
        let mut w = ::csv::Writer::from_writer(&mut buf);
        w.write_record(header).map_err(|e| fail(e.to_string()))?;
        for r in &records {
            w.write_record(r).map_err(|e| fail(e.to_string()))?;
        }
        w.flush().map_err(|e| fail(e.to_string()))?;
    } else {
        use std::io::Write as _;
        for r in &records {
            let num = |s: &str| -> Value { s.parse::<i64>().map_or(Value::Null, Value::from) };
            let text = |s: &str| -> Value { if s.is_empty() { Value::Null } else { s.into() } };
            let v = json!({
                "formula": r[0], "id": r[1], "user": text(&r[2]), "group": text(&r[3]),
                "queue": text(&r[4]), "submit": num(&r[5]), "rank": num(&r[6]),
                "start": num(&r[7]), "end": num(&r[8]), "wait": num(&r[9]), "never": text(&r[10]),
            });
            serde_json::to_writer(&mut buf, &v).map_err(|e| fail(e.to_string()))?;
            buf.write_all(b"\n").map_err(|e| fail(e.to_string()))?;
        }
    }
    Ok(buf)
}
