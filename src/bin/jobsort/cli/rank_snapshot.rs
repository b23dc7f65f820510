//! `jobsort rank --snapshot DIR [FORMULA]`: the waiting jobs of a snapshot folder in the order
//! `why` and `forecast` take them (`queue::order`, one definition: the site's priority, or
//! FORMULA), each with what holds it now.
//!
//! A job's `reason` is the scheduler's words: a limit's when one holds it now (the cap's
//! reason, or the per-job limit's it exceeds), else what the scheduler itself said of the job
//! when the snapshot was taken (PBS's `comment`, Slurm's `state_reason`), else nothing. A
//! limit holds a job now when the running jobs leave no room for it under a cap it is checked
//! against ([`Limits::blocking`] over [`Limits::usage`]): the queue is walked in order as the
//! scheduler walks it, and PBS and Slurm count no waiting job toward a limit before it
//! starts, so what is taken is the running jobs' alone. As the planner does
//! (`forecast::plan`), a job the scheduler does not consider (held, a dependency, a begin
//! time) is not checked against the limits, and the `limit` column says the limit in plain
//! words with what is taken, what the job asks and what is allowed.

use super::output::{Out, OutputFormat, show_value, write_csv, write_json, write_table};
use super::queue::{self, Ordered};
use super::rank::Args;
use super::report::Outcome;
use jobsort::forecast::Blocked;
use jobsort::input::units::utc_text;
use jobsort::sim::snapshot::LoadedSnapshot;
use serde_json::json;
use std::path::Path;
use std::process::ExitCode;

/// What holds waiting job `j` (a pending index) now by the scheduler's limits, `used` being
/// what the running jobs take of each cap: the planner's `Blocked::Limit` (a per-job limit it
/// exceeds, `never`; else the first cap in the scheduler's check order without room for it),
/// or `None`.
fn limit_now(loaded: &LoadedSnapshot, j: usize, used: &[u64]) -> Option<Blocked> {
    let limits = &loaded.limits;
    // With the scheduler's limits known, a job it says a limit holds is checked.
    if !limits.plans(loaded.snapshot.pending[j].hold.as_ref()) {
        return None;
    }
    match limits.pending.get(j)? {
        Err(never) => Some(Blocked::of_never(never)),
        Ok(checks) => limits
            .blocking(checks, used)
            .map(|c| Blocked::of_cap(limits, c, checks, used)),
    }
}

/// A limit in plain words, with what is taken, what the job asks and what is allowed.
fn limit_text(b: &Blocked) -> String {
    match b {
        Blocked::Limit {
            plain, never: true, ..
        } => format!("{plain}; a per-job limit: it never starts as asked"),
        Blocked::Limit {
            plain,
            used,
            asks,
            limit,
            ..
        } => format!("{plain}; {used} of {limit} taken, it asks {asks}"),
        _ => String::new(),
    }
}

/// One waiting job's row: its pending index and what holds it.
struct Row {
    index: usize,
    /// The scheduler's words: the limit's, else the job's captured reason, else empty.
    reason: String,
    limit: Option<Blocked>,
}

pub fn run(args: Args, dir: &Path, out: &mut Out) -> Outcome {
    let formula = if args.input.formula.given() {
        Some(args.input.formula.read()?.0)
    } else {
        None
    };
    let loaded = queue::load(dir, false)?;
    let Ordered {
        order,
        priority,
        ordered_by,
    } = queue::order(&loaded, dir, formula.as_deref())?;
    let snap = &loaded.snapshot;
    // What the running jobs take of each cap; no waiting job adds to it before it starts.
    let used = loaded.limits.usage();
    let mut rows: Vec<Row> = order
        .iter()
        .map(|&j| {
            let limit = limit_now(&loaded, j, &used);
            let reason = match &limit {
                Some(Blocked::Limit { reason, .. }) => reason.clone(),
                _ => snap.pending[j].reason.clone().unwrap_or_default(),
            };
            Row {
                index: j,
                reason,
                limit,
            }
        })
        .collect();
    rows.truncate(args.top.unwrap_or(usize::MAX));

    let value_text = |v: Option<f64>| v.map_or_else(|| "-".to_string(), show_value);
    match args.format {
        OutputFormat::Json => {
            let order: Vec<serde_json::Value> = rows
                .iter()
                .enumerate()
                .map(|(r, row)| {
                    let job = &snap.pending[row.index];
                    let p = &priority[row.index];
                    json!({
                        "rank": r + 1,
                        "id": job.id,
                        "user": job.user,
                        "queue": job.queue,
                        "value": p.value,
                        "computed_value": p.computed,
                        "terms": p
                            .terms
                            .iter()
                            .map(|(t, x)| json!({"term": t, "value": x}))
                            .collect::<Vec<_>>(),
                        "reason": (!row.reason.is_empty()).then_some(&row.reason),
                        "limit": row.limit,
                        "limit_text": row.limit.as_ref().map(limit_text),
                        "scheduler_says": job.reason,
                    })
                })
                .collect();
            let doc = json!({
                "scheduler": snap.scheduler.name(),
                "taken_at": snap.taken_at,
                "ordered_by": ordered_by,
                "order": order,
            });
            write_json(out, &doc, false)?;
        }
        OutputFormat::Table | OutputFormat::Csv => {
            // With --explain, the terms' columns, in the order the jobs name them.
            let mut terms: Vec<&str> = Vec::new();
            if args.explain {
                for row in &rows {
                    for (t, _) in &priority[row.index].terms {
                        if !terms.contains(&t.as_str()) {
                            terms.push(t);
                        }
                    }
                }
            }
            let mut header = vec!["rank", "id", "user", "queue", "value", "reason", "limit"];
            header.extend(&terms);
            let mut right = vec![true, false, false, false, true, false, false];
            right.extend(terms.iter().map(|_| true));
            let cells = |r: usize| -> Vec<String> {
                let row = &rows[r];
                let job = &snap.pending[row.index];
                let p = &priority[row.index];
                let mut cells = vec![
                    (r + 1).to_string(),
                    job.id.clone(),
                    job.user.clone().unwrap_or_else(|| "-".into()),
                    job.queue.join(","),
                    value_text(p.value),
                    row.reason.clone(),
                    row.limit.as_ref().map(limit_text).unwrap_or_default(),
                ];
                cells.extend(terms.iter().map(|t| {
                    p.terms
                        .iter()
                        .find(|(name, _)| name == t)
                        .map(|(_, x)| x.clone())
                        .unwrap_or_default()
                }));
                cells
            };
            if args.format == OutputFormat::Csv {
                write_csv(out, &header, rows.len(), cells)?;
            } else {
                let at = snap
                    .taken_at
                    .map(|t| format!(" at {}", utc_text(t)))
                    .unwrap_or_default();
                writeln!(
                    out,
                    "{} snapshot{at}: {} waiting, {} running; ordered by {}\n",
                    snap.scheduler.name(),
                    snap.pending.len(),
                    snap.running.len(),
                    ordered_by
                )?;
                write_table(out, &header, &right, rows.len(), cells)?;
            }
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
