//! `jobsort limits`: run a JSON-lines event file through the flux-accounting limit engine.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use jobsort::limits::events::{self, EventRecord};
use jobsort::limits::{Change, LimitEngine, LimitsConfig, flux_db};

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Limits configuration (TOML, or JSON when the file starts with `{`).
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "flux_db",
        required_unless_present = "flux_db"
    )]
    config: Option<PathBuf>,
    /// A flux-accounting SQLite database (association_table, queue_table).
    #[arg(long, value_name = "PATH")]
    flux_db: Option<PathBuf>,
    /// Events, one JSON object per line (submit, run, end, update).
    #[arg(long, value_name = "FILE")]
    events: PathBuf,
    /// Output: a readable log, or one JSON object per event.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Print only the final state, as `flux jobtap query mf_priority.so` (JSON).
    #[arg(long)]
    state: bool,
    /// Report a bad event line and go on with the next (exit status 1 at the end).
    #[arg(long)]
    keep_going: bool,
    /// Count SCHED jobs in max_nodes/max_cores (closes flux's overshoot); also settable
    /// as `count_sched_in_resources` in the configuration's [options].
    #[arg(long)]
    count_sched_in_resources: bool,
}

pub fn run(args: Args) -> ExitCode {
    let config = match (&args.config, &args.flux_db) {
        (Some(c), _) => LimitsConfig::load(c),
        (None, Some(db)) => flux_db::load_flux_db(db),
        (None, None) => {
            eprintln!("jobsort limits: give --config FILE or --flux-db PATH");
            return ExitCode::from(super::EXIT_USAGE);
        }
    };
    let mut config = match config {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(super::EXIT_INVALID);
        }
    };
    config.options.count_sched_in_resources |= args.count_sched_in_resources;
    let mut engine = match LimitEngine::from_config(&config) {
        Ok(e) => e,
        Err(e) => {
            eprintln!(
                "{}: {e}",
                args.config
                    .as_ref()
                    .or(args.flux_db.as_ref())
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            );
            return ExitCode::from(super::EXIT_INVALID);
        }
    };
    let name = args.events.display().to_string();
    let text = match std::fs::read_to_string(&args.events) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{name}: cannot read: {e}");
            return ExitCode::from(super::EXIT_INVALID);
        }
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut failed = false;
    let mut number = 0usize;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let result = events::parse_event_line(&name, i + 1, line)
            .map_err(|e| e.to_string())
            .and_then(|op| {
                events::apply(&mut engine, number + 1, &op)
                    .map_err(|e| format!("{name}:{}: {e}", i + 1))
            });
        match result {
            Ok(record) => {
                number += 1;
                if !args.state {
                    let written = match args.format {
                        Format::Json => serde_json::to_string(&record)
                            .map_err(std::io::Error::other)
                            .and_then(|s| writeln!(out, "{s}")),
                        Format::Text => write_text(&mut out, &record),
                    };
                    if let Err(e) = written {
                        eprintln!("jobsort limits: cannot write output: {e}");
                        return ExitCode::from(super::EXIT_INVALID);
                    }
                }
            }
            Err(msg) => {
                failed = true;
                let _ = out.flush();
                eprintln!("{msg}");
                if !args.keep_going {
                    break;
                }
            }
        }
    }
    if args.state {
        let s = serde_json::to_string_pretty(&engine.query()).unwrap_or_default();
        let _ = writeln!(out, "{s}");
    }
    if let Err(e) = out.flush() {
        eprintln!("jobsort limits: cannot write output: {e}");
        return ExitCode::from(super::EXIT_INVALID);
    }
    if failed {
        ExitCode::from(super::EXIT_INVALID)
    } else {
        ExitCode::SUCCESS
    }
}

fn write_text(out: &mut impl Write, r: &EventRecord) -> std::io::Result<()> {
    write!(out, "#{} {}", r.event, r.op)?;
    if let Some(j) = r.job.as_ref().or(r.target.as_ref()) {
        write!(out, " {j}")?;
    }
    writeln!(out)?;
    for c in &r.changes {
        match c {
            Change::Rejected { job, rejected } => writeln!(out, "    {job}: rejected: {rejected}")?,
            Change::DependencyAdd {
                job,
                dependency_add,
            } => writeln!(out, "    {job}: dependency-add {dependency_add}")?,
            Change::DependencyRemove {
                job,
                dependency_remove,
            } => writeln!(out, "    {job}: dependency-remove {dependency_remove}")?,
            Change::State { job, state } => {
                let s = serde_json::to_value(state)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_uppercase))
                    .unwrap_or_default();
                writeln!(out, "    {job}: -> {s}")?
            }
        }
    }
    for a in &r.associations {
        write!(
            out,
            "    [{}/{}] run={} active={} sched={} nodes={} cores={} held=",
            a.user,
            a.bank,
            a.cur_run_jobs,
            a.cur_active_jobs,
            a.cur_sched_jobs,
            a.cur_nodes,
            a.cur_cores
        )?;
        if a.held_jobs.is_empty() {
            writeln!(out, "none")?;
        } else {
            let held: Vec<String> = a
                .held_jobs
                .iter()
                .map(|h| {
                    let deps: Vec<&str> = h.dependencies.iter().map(|d| d.name()).collect();
                    format!("{}({})", h.job, deps.join(","))
                })
                .collect();
            writeln!(out, "{}", held.join(" "))?;
        }
    }
    Ok(())
}
