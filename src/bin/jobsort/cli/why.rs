//! `jobsort why JOBID... --snapshot DIR`: for each job, one screen — its rank and priority
//! term by term, what holds it now (in plain words and the scheduler's own), and when it
//! starts: as the scheduler plans (full walltimes, nothing new arrives) and, with
//! `--history`, with run times learned from the site's history.
//!
//! `jobsort forecast --snapshot DIR`: the same forecast for the whole queue, as a table, CSV
//! or JSON.

use super::fairshare::json::pbs_entities;
use super::output::{Out, span, write_csv, write_json, write_table};
use super::page;
use super::queue::{Queue, QueueArgs};
use super::report::{Failure, Outcome, note};
use jobsort::fairshare::inputs::load_pbs;
use jobsort::fairshare::pbs::ParseOptions;
use jobsort::files::write_atomic;
use jobsort::forecast::report::{Document, find_waiting, says_plain};
use jobsort::forecast::{Blocked, JobPlan};
use jobsort::input::units::utc_text;
use jobsort::model::snapshot::{Hold, Scheduler};
use jobsort::sim::settings::site_unknown_shares;
use jobsort::sim::snapshot::SiteConfig;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhyFormat {
    /// One screen per job.
    Text,
    /// One JSON document.
    Json,
}

#[derive(clap::Args, Debug)]
pub struct WhyArgs {
    /// The jobs to explain (as the scheduler names them: `1234.server`, `1234`, `fA1b3`).
    #[arg(value_name = "JOBID", required = true)]
    pub jobs: Vec<String>,
    #[command(flatten)]
    pub queue: QueueArgs,
    /// Output: one screen per job, or one JSON document.
    #[arg(long, value_enum, default_value = "text")]
    pub format: WhyFormat,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForecastFormat {
    /// An aligned table.
    Table,
    /// CSV with a header row.
    Csv,
    /// One JSON document.
    Json,
    /// One static HTML page (inline CSS and SVG, no network): the header, the queue as a
    /// sortable table, a Gantt chart of nodes × time, each user's expected wait, the
    /// fairshare tree.
    Html,
}

#[derive(clap::Args, Debug)]
pub struct ForecastArgs {
    #[command(flatten)]
    pub queue: QueueArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: ForecastFormat,
    /// Write the output to FILE instead of stdout, atomically (a temporary file in FILE's
    /// folder, renamed over it): a web server publishing FILE never serves half a page.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write the Gantt chart of the forecast (nodes × time) to FILE.svg or FILE.png.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
}

/// The `--plot` file and whether it is a PNG (`.png`) rather than an SVG (`.svg`).
fn plot_format(p: &Path) -> Result<bool, Failure> {
    match p.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("svg") => Ok(false),
        Some(e) if e.eq_ignore_ascii_case("png") => Ok(true),
        _ => Err(Failure::usage(format!(
            "{}: --plot writes FILE.svg or FILE.png",
            p.display()
        ))),
    }
}

/// What holds a job, in a table cell: the kind and its main figure.
fn short(b: &Blocked) -> String {
    match b {
        Blocked::Resources { short, .. } => match short.first() {
            Some(s) => format!("resources: {} {}>{} free", s.resource, s.asked, s.free),
            None => "resources: shape".into(),
        },
        Blocked::Reservation { job, .. } => format!("window of {job}"),
        Blocked::AdvanceReservation { id, .. } => format!("reservation {id}"),
        Blocked::Order { behind } => format!("behind {behind}"),
        Blocked::Limit { reason, never, .. } => {
            let said = reason.strip_prefix("Not Running: ").unwrap_or(reason);
            if *never {
                format!("limit, never: {said}")
            } else {
                format!("limit: {said}")
            }
        }
        Blocked::Hold { hold } => match hold {
            Hold::Held(_) => "held".into(),
            Hold::Dependency(_) => "dependency".into(),
            Hold::BeginTime(_) => "begin time".into(),
            Hold::Limit(_) => "limit".into(),
        },
        other => other.kind().replace('_', " "),
    }
}

fn start_text(j: &JobPlan, now: i64) -> String {
    match j.start {
        Some(s) if s <= now => "now (at the next scheduling cycle)".to_string(),
        Some(s) => format!("{} (in {})", utc_text(s), span(s - now)),
        None => "not within the next 30 days, as things stand".to_string(),
    }
}

fn value_text(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), super::output::show_value)
}

/// The values the order sorts by, by pending index.
fn values(q: &Queue) -> Vec<Option<f64>> {
    q.priority.iter().map(|p| p.value).collect()
}

/// The library's document of the forecast (`forecast::report`), over `values`.
fn document<'a>(q: &'a Queue, values: &'a [Option<f64>]) -> Document<'a> {
    Document {
        loaded: &q.loaded,
        forecast: &q.forecast,
        order: &q.order,
        ordered_by: &q.ordered_by,
        values,
        model: q.model.as_ref().zip(q.model_fit.as_ref()),
    }
}

/// One waiting job as the library's document has it, with `rank`'s terms and jobsort's own
/// value beside the scheduler's.
fn job_json(q: &Queue, doc: &Document<'_>, index: usize) -> Value {
    let mut v = doc.job(index);
    let p = &q.priority[index];
    v["computed_value"] = json!(p.computed);
    v["terms"] = p
        .terms
        .iter()
        .map(|(t, x)| json!({"term": t, "value": x}))
        .collect();
    v
}

/// The term that separates a job from the one just ahead: the term whose difference is the
/// largest share of the gap between their values.
fn separating_term(q: &Queue, a: usize, b: usize) -> Option<String> {
    let (pa, pb) = (&q.priority[a], &q.priority[b]);
    let num = |s: &str| s.parse::<f64>().ok();
    pa.terms
        .iter()
        .zip(&pb.terms)
        .filter_map(|((t, x), (_, y))| Some((t, num(x)?, num(y)?)))
        .filter(|(_, x, y)| x != y)
        .max_by(|l, r| (l.1 - l.2).abs().total_cmp(&(r.1 - r.2).abs()))
        .map(|(t, x, y)| {
            format!(
                "{t}: {} vs {} for the job ahead",
                super::output::show_value(x),
                super::output::show_value(y)
            )
        })
}

pub fn run_why(args: WhyArgs, out: &mut Out) -> Outcome {
    let q = args.queue.load_for(Some(&args.jobs))?;
    let s = &q.loaded.snapshot;
    let mut found = Vec::new();
    for id in &args.jobs {
        found.push(find_waiting(s, id));
    }
    let missing = found.iter().filter(|f| f.is_err()).count();
    match args.format {
        WhyFormat::Json => {
            let values = values(&q);
            let d = document(&q, &values);
            let jobs: Vec<Value> = found
                .iter()
                .zip(&args.jobs)
                .map(|(f, id)| match f {
                    Ok(i) => job_json(&q, &d, *i),
                    Err(m) => json!({"id": id, "error": m}),
                })
                .collect();
            let mut doc = d.header();
            doc["assumption"] = q.assumption.clone().into();
            doc["jobs"] = Value::Array(jobs);
            write_json(out, &doc, true)?;
        }
        WhyFormat::Text => {
            let now = q.forecast.walltime.now;
            for (k, f) in found.iter().enumerate() {
                if k > 0 {
                    writeln!(out)?;
                }
                let i = match f {
                    Ok(i) => *i,
                    Err(m) => {
                        writeln!(out, "{m}")?;
                        continue;
                    }
                };
                let job = &s.pending[i];
                let w = q.forecast.walltime.job(i);
                let p = &q.priority[i];
                writeln!(
                    out,
                    "job {} ({}{}): waiting, rank {} of {} ({} snapshot at {})",
                    job.id,
                    job.user.as_deref().unwrap_or("unknown user"),
                    if job.queue.is_empty() {
                        String::new()
                    } else {
                        format!(", {}", job.queue.join(","))
                    },
                    w.rank,
                    q.order.len(),
                    s.scheduler.name(),
                    utc_text(now)
                )?;
                writeln!(
                    out,
                    "\npriority: {} ({})",
                    value_text(p.value),
                    q.ordered_by
                )?;
                if let (Some(c), Some(v)) = (p.computed, p.value)
                    && (c - v).abs() > 0.5
                {
                    writeln!(
                        out,
                        "  jobsort computes {} from slurm.conf: the factors below are its",
                        super::output::show_value(c)
                    )?;
                }
                for (t, v) in &p.terms {
                    writeln!(out, "  {v:>12}  {t}")?;
                }
                if w.rank > 1 {
                    let a = q.order[w.rank - 2];
                    let ahead = &s.pending[a];
                    write!(
                        out,
                        "  just ahead: {} at {}",
                        ahead.id,
                        value_text(q.priority[a].value)
                    )?;
                    match separating_term(&q, i, a) {
                        Some(t) => writeln!(out, "; the term that separates them: {t}")?,
                        None => writeln!(out)?,
                    }
                }
                writeln!(out, "\nwhat holds it now: {}", w.blocked.plain(now))?;
                if let Some(r) = &job.reason {
                    match says_plain(s.scheduler, r) {
                        Some(p) => writeln!(out, "  {} says: {r} ({p})", s.scheduler.name())?,
                        None => writeln!(out, "  {} says: {r}", s.scheduler.name())?,
                    }
                }
                if let Some(at) = w.planned_at {
                    writeln!(
                        out,
                        "  it is a top job: the scheduler holds nodes for it from {}",
                        utc_text(at)
                    )?;
                }
                writeln!(out, "\nforecast start: {}", start_text(w, now))?;
                if !w.nodes.is_empty() {
                    writeln!(out, "  on {}", w.nodes.join(", "))?;
                }
                writeln!(
                    out,
                    "  assuming {} ({} policy)",
                    q.assumption,
                    q.forecast.policy.name()
                )?;
                if let (Some(m), Some(model)) = (&q.forecast.model, &q.model) {
                    let mj = m.job(i);
                    writeln!(
                        out,
                        "with run times from the site's history: {}",
                        start_text(mj, now)
                    )?;
                    writeln!(
                        out,
                        "  each user's median share of the walltime their jobs ran ({} jobs; \
                         {:.0}% overall)",
                        model.jobs,
                        model.overall * 100.0
                    )?;
                }
            }
            for m in &s.missing {
                super::report::note(&format!("{}: {m}", args.queue.snapshot.display()));
            }
        }
    }
    Ok(if missing > 0 {
        ExitCode::from(super::report::EXIT_INVALID)
    } else {
        ExitCode::SUCCESS
    })
}

/// `forecast --format json`'s document: the header, the waiting jobs in order, and what a
/// picture of the plan needs besides (the nodes, the running jobs, the reservations, the
/// fairshare tree). The page (`--format html`) and the chart (`--plot`) are drawn from it.
fn forecast_json(q: &Queue, dir: &Path) -> Value {
    let s = &q.loaded.snapshot;
    let values = values(q);
    let d = document(q, &values);
    let mut doc = d.header();
    doc["assumption"] = q.assumption.clone().into();
    doc["jobs"] = Value::Array(q.order.iter().map(|&i| job_json(q, &d, i)).collect());
    doc["nodes"] = s
        .nodes
        .iter()
        .map(|n| json!({"name": n.name, "state": n.state.name(), "state_text": n.state_text}))
        .collect();
    let model_ends = q.forecast.model.as_ref().map(|m| &m.running_ends);
    doc["running"] = s
        .running
        .iter()
        .enumerate()
        .map(|(k, j)| {
            json!({
                "id": j.id,
                "user": j.user,
                "queue": j.queue,
                "start": j.start,
                "planned_end": j.planned_end(),
                "model_end": model_ends.and_then(|e| e[k]),
                "nodes": j.held.iter().map(|h| h.node.clone()).collect::<Vec<_>>(),
            })
        })
        .collect();
    doc["reservations"] = s
        .reservations
        .iter()
        .map(|r| json!({"id": r.id, "name": r.name, "start": r.start, "end": r.end, "nodes": r.nodes}))
        .collect();
    doc["fairshare"] = fairshare_json(q, dir);
    doc
}

/// The site's fairshare tree when the snapshot folder holds its files (PBS: copies of
/// `sched_priv/resource_group` and `usage`, the tree the formula's fairshare terms came
/// from), as `fairshare --format json` prints its entities; else a note of what is missing.
fn fairshare_json(q: &Queue, dir: &Path) -> Value {
    use jobsort::pbs::snapshot::{RESOURCE_GROUP, USAGE};
    let note = |n: String| json!({"algorithm": null, "files": [], "entities": [], "note": n});
    let SiteConfig::Pbs(site) = &q.loaded.config else {
        return note(format!(
            "a {} snapshot holds no fairshare data ({}): no tree to show",
            q.loaded.snapshot.scheduler.name(),
            match q.loaded.snapshot.scheduler {
                Scheduler::Slurm => "sshare's output is not part of one",
                _ => "flux-accounting's database is not part of one",
            }
        ));
    };
    let rg = dir.join(RESOURCE_GROUP);
    if !rg.is_file() {
        return note(format!(
            "the snapshot holds no {RESOURCE_GROUP} (a copy of \
             PBS_HOME/sched_priv/{RESOURCE_GROUP}, with {USAGE} beside it; \
             contrib/capture/pbs.sh copies them when it can read them): no tree to show"
        ));
    }
    let usage = dir.join(USAGE);
    let usage = usage.is_file().then_some(usage);
    let unknown_shares = site_unknown_shares(site.sched_config.as_ref(), i32::MAX)
        .ok()
        .flatten()
        .map_or(0, |s| s.value);
    let opts = ParseOptions {
        unknown_shares,
        lenient: false,
    };
    match load_pbs(&rg, usage.as_deref(), &opts, false) {
        Ok((tree, _)) => {
            let mut files = vec![RESOURCE_GROUP];
            if usage.is_some() {
                files.push(USAGE);
            }
            json!({
                "algorithm": "pbs",
                "files": files,
                "entities": pbs_entities(&tree, None),
                "note": usage.is_none().then(|| format!("no {USAGE} beside {RESOURCE_GROUP}: every usage is PBS's starting 1")),
            })
        }
        Err(e) => note(format!("the fairshare tree cannot be read: {e}")),
    }
}

pub fn run_forecast(args: ForecastArgs, out: &mut Out) -> Outcome {
    // Checked before planning, so a bad name does not cost a whole run.
    let png = args.plot.as_deref().map(plot_format).transpose()?;
    let q = args.queue.load()?;
    let dir = args.queue.snapshot.as_path();
    // What the capture lacked, as `why` says it (the JSON and the page carry it as `missing`).
    if matches!(args.format, ForecastFormat::Table | ForecastFormat::Csv) {
        for m in &q.loaded.snapshot.missing {
            note(&format!("{}: {m}", dir.display()));
        }
    }
    let drawn =
        args.plot.is_some() || matches!(args.format, ForecastFormat::Json | ForecastFormat::Html);
    let doc = if drawn {
        forecast_json(&q, dir)
    } else {
        Value::Null
    };
    if let (Some(p), Some(png)) = (&args.plot, png) {
        let svg = page::gantt_svg(&doc, false);
        let bytes = if png {
            jobsort::sim::plot::render_png(&svg)
                .map_err(|e| Failure::invalid(format!("plot: {e}")))?
        } else {
            svg.into_bytes()
        };
        write_atomic(p, &bytes)
            .map_err(|e| Failure::invalid(format!("{}: cannot write: {e}", p.display())))?;
        note(&format!("plot written to {}", p.display()));
    }
    // With --output, everything goes to a buffer, written at the end in one rename.
    let mut buffer: Vec<u8> = Vec::new();
    let out: &mut Out = if args.output.is_some() {
        &mut buffer
    } else {
        out
    };
    let s = &q.loaded.snapshot;
    let now = q.forecast.walltime.now;
    let rows = q.order.len();
    let model = q.forecast.model.is_some();
    let row = |r: usize, iso: bool| -> Vec<String> {
        let i = q.order[r];
        let job = &s.pending[i];
        let w = q.forecast.walltime.job(i);
        let t = |x: Option<i64>| match x {
            None => "-".to_string(),
            Some(x) if iso => utc_text(x),
            Some(x) => format!("+{}", span(x - now)),
        };
        let mut v = vec![
            w.rank.to_string(),
            job.id.clone(),
            job.user.clone().unwrap_or_else(|| "-".into()),
            value_text(q.priority[i].value),
            t(w.start),
        ];
        if let Some(m) = &q.forecast.model {
            v.push(t(m.job(i).start));
        }
        v.push(if w.planned_at.is_some() {
            format!("{} (top job)", short(&w.blocked))
        } else {
            short(&w.blocked)
        });
        v.push(w.nodes.len().to_string());
        v
    };
    let mut header = vec!["rank", "id", "user", "priority", "start"];
    if model {
        header.push("start (history)");
    }
    header.extend(["held by", "nodes"]);
    match args.format {
        ForecastFormat::Json => write_json(out, &doc, true)?,
        ForecastFormat::Html => out.write_all(page::page(&doc).as_bytes())?,
        ForecastFormat::Csv => write_csv(out, &header, rows, |r| row(r, true))?,
        ForecastFormat::Table => {
            writeln!(
                out,
                "{} snapshot at {}: {} waiting, {} running; {} policy; ordered by {}",
                s.scheduler.name(),
                utc_text(now),
                s.pending.len(),
                s.running.len(),
                q.forecast.policy.name(),
                q.ordered_by
            )?;
            writeln!(
                out,
                "starts assume {}{}\n",
                q.assumption,
                if model {
                    "; `start (history)` uses run times learned from --history"
                } else {
                    ""
                }
            )?;
            let mut right = vec![true, false, false, true, false];
            if model {
                right.push(false);
            }
            right.extend([false, true]);
            write_table(out, &header, &right, rows, |r| row(r, false))?;
        }
    }
    if let Err(e) = out.flush() {
        return Err(Failure::Output(e));
    }
    if let Some(p) = &args.output {
        write_atomic(p, &buffer)
            .map_err(|e| Failure::invalid(format!("{}: cannot write: {e}", p.display())))?;
    }
    Ok(ExitCode::SUCCESS)
}
