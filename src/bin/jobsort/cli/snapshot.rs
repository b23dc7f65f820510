//! `jobsort snapshot DIR`: what a snapshot folder holds — nodes by state, resources free and
//! busy, running jobs with their planned ends, reservations, how many jobs wait, what the
//! capture lacked, and where its parts disagree.

use super::output::{Out, write_json, write_table};
use super::report::{Failure, Outcome, warn};
use jobsort::input::units::utc_text;
use jobsort::model::snapshot::{NodeState, Snapshot};
use jobsort::sim::snapshot::{LoadedSnapshot, load_snapshot};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Readable sections and tables.
    Text,
    /// One JSON document (docs/cli.md describes its fields).
    Json,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The snapshot folder (made by contrib/capture/pbs.sh or slurm.sh).
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// Output: readable text, or one JSON document.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Refuse a snapshot whose parts disagree (a running job on a node the node list lacks)
    /// instead of counting the disagreements.
    #[arg(long)]
    strict: bool,
}

pub fn run(args: Args, out: &mut Out) -> Outcome {
    let loaded = load_snapshot(&args.dir, args.strict).map_err(Failure::invalid)?;
    for d in &loaded.disagreements {
        warn(&format!("{}: {d}", args.dir.display()));
    }
    match args.format {
        Format::Text => text(&loaded, out)?,
        Format::Json => write_json(out, &to_json(&loaded), true)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn time(t: Option<i64>) -> String {
    t.map_or_else(|| "-".into(), utc_text)
}

fn duration(s: Option<i64>) -> String {
    match s {
        None => "-".into(),
        Some(s) => format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60),
    }
}

fn unit(resource: &str) -> &'static str {
    if resource == "mem" { "kb" } else { "" }
}

fn text(l: &LoadedSnapshot, out: &mut Out) -> std::io::Result<()> {
    let s = &l.snapshot;
    writeln!(
        out,
        "{} snapshot taken {}",
        s.scheduler.name(),
        s.taken_at.map_or_else(
            || "at an unknown time".into(),
            |t| format!("at {}", utc_text(t))
        )
    )?;
    let by = s.nodes_by_state();
    let states: Vec<String> = NodeState::ALL
        .iter()
        .map(|st| format!("{} {}", st.name(), by.get(st).copied().unwrap_or(0)))
        .collect();
    writeln!(out, "\nnodes: {} ({})", s.nodes.len(), states.join(", "))?;
    if !s.nodes.is_empty() {
        let t = s.totals();
        let free = t.free();
        let rows: Vec<usize> = (0..s.resources.len())
            .filter(|&i| t.available[i] + t.unusable[i] > 0)
            .collect();
        write_table(
            out,
            &["resource", "available", "assigned", "free", "out of use"],
            &[false, true, true, true, true],
            rows.len(),
            |k| {
                let i = rows[k];
                let u = unit(&s.resources[i]);
                vec![
                    s.resources[i].clone(),
                    format!("{}{u}", t.available[i]),
                    format!("{}{u}", t.assigned[i]),
                    format!("{}{u}", free[i]),
                    format!("{}{u}", t.unusable[i]),
                ]
            },
        )?;
    }
    writeln!(out, "\nrunning jobs: {}", s.running.len())?;
    if !s.running.is_empty() {
        let mut order: Vec<usize> = (0..s.running.len()).collect();
        // Soonest planned end first; jobs without one last.
        order.sort_by_key(|&i| (s.running[i].planned_end().unwrap_or(i64::MAX), i));
        write_table(
            out,
            &[
                "id",
                "user",
                "queue",
                "nodes",
                "ncpus",
                "start",
                "walltime",
                "planned end",
            ],
            &[false, false, false, true, true, false, true, false],
            order.len(),
            |k| {
                let j = &s.running[order[k]];
                vec![
                    j.id.clone(),
                    j.user.clone().unwrap_or_else(|| "-".into()),
                    j.queue.clone().unwrap_or_else(|| "-".into()),
                    j.held.len().to_string(),
                    j.total.first().copied().unwrap_or(0).to_string(),
                    utc_text(j.start),
                    duration(j.walltime),
                    time(j.planned_end()),
                ]
            },
        )?;
    }
    let held = s.pending.iter().filter(|j| j.hold.is_some()).count();
    if held > 0 {
        writeln!(
            out,
            "\npending jobs: {} ({held} held: a hold, a dependency, a begin time or a limit)",
            s.pending.len()
        )?;
    } else {
        writeln!(out, "\npending jobs: {}", s.pending.len())?;
    }
    if !s.other_jobs.is_empty() {
        let mut counts: Vec<(String, usize)> = Vec::new();
        for (_, st) in &s.other_jobs {
            match counts.iter_mut().find(|(k, _)| k == st) {
                Some(c) => c.1 += 1,
                None => counts.push((st.clone(), 1)),
            }
        }
        let list: Vec<String> = counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
        writeln!(
            out,
            "other jobs: {} ({})",
            s.other_jobs.len(),
            list.join(", ")
        )?;
    }
    writeln!(out, "\nreservations: {}", s.reservations.len())?;
    if !s.reservations.is_empty() {
        write_table(
            out,
            &["id", "name", "start", "end", "nodes"],
            &[false, false, false, false, false],
            s.reservations.len(),
            |i| {
                let r = &s.reservations[i];
                vec![
                    r.id.clone(),
                    r.name.clone().unwrap_or_else(|| "-".into()),
                    utc_text(r.start),
                    utc_text(r.end),
                    r.nodes.join(","),
                ]
            },
        )?;
    }
    writeln!(out, "\nmissing: {}", s.missing.len())?;
    for m in &s.missing {
        writeln!(out, "  {m}")?;
    }
    writeln!(out, "\ndisagreements: {}", l.disagreements.len())?;
    for d in &l.disagreements {
        writeln!(out, "  {d}")?;
    }
    Ok(())
}

fn vector(s: &Snapshot, v: &[u64]) -> Value {
    Value::Object(
        s.resources
            .iter()
            .zip(v)
            .map(|(r, a)| (r.clone(), json!(a)))
            .collect(),
    )
}

fn to_json(l: &LoadedSnapshot) -> Value {
    let s = &l.snapshot;
    let t = s.totals();
    let by = s.nodes_by_state();
    json!({
        "scheduler": s.scheduler.name(),
        "taken_at": s.taken_at,
        "resources": s.resources,
        "nodes_by_state": NodeState::ALL.iter()
            .map(|st| (st.name().to_string(), json!(by.get(st).copied().unwrap_or(0))))
            .collect::<serde_json::Map<_, _>>(),
        "totals": {
            "available": vector(s, &t.available),
            "assigned": vector(s, &t.assigned),
            "free": vector(s, &t.free()),
            "out_of_use": vector(s, &t.unusable),
        },
        "nodes": s.nodes.iter().map(|n| json!({
            "name": n.name,
            "state": n.state.name(),
            "state_text": n.state_text,
            "available": vector(s, &n.available),
            "assigned": vector(s, &n.assigned),
            "jobs": n.jobs,
        })).collect::<Vec<_>>(),
        "running": s.running.iter().map(|j| json!({
            "id": j.id,
            "user": j.user,
            "group": j.group,
            "account": j.account,
            "queue": j.queue,
            "start": j.start,
            "walltime": j.walltime,
            "planned_end": j.planned_end(),
            "elapsed": j.elapsed,
            "nodes": j.held.iter().map(|h| h.node.clone()).collect::<Vec<_>>(),
            "total": vector(s, &j.total),
        })).collect::<Vec<_>>(),
        "pending": s.pending.iter().map(|j| j.id.clone()).collect::<Vec<_>>(),
        "other_jobs": s.other_jobs.iter()
            .map(|(id, st)| json!({"id": id, "state": st}))
            .collect::<Vec<_>>(),
        "reservations": s.reservations.iter().map(|r| json!({
            "id": r.id,
            "name": r.name,
            "start": r.start,
            "end": r.end,
            "nodes": r.nodes,
            "state": r.state,
        })).collect::<Vec<_>>(),
        "missing": s.missing.iter()
            .map(|m| json!({"part": m.part, "changes": m.changes}))
            .collect::<Vec<_>>(),
        "disagreements": l.disagreements.iter().map(|d| d.to_string()).collect::<Vec<_>>(),
    })
}
