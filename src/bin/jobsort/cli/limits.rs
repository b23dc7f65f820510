//! `jobsort limits`: run a JSON-lines event file through the flux-accounting limit engine.

use super::input::InputPath;
use super::output::Out;
use super::report::{EXIT_INVALID, Failure, Outcome, error};
use std::path::PathBuf;
use std::process::ExitCode;

use jobsort::flux::limits::events::{self, EventRecord};
use jobsort::flux::limits::{Change, LimitEngine, LimitsConfig, flux_db};

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A readable log: each event, its changes and the associations it touched.
    Text,
    /// JSON Lines: one JSON object per event (docs/cli.md describes its fields).
    Json,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Limits configuration (TOML, or JSON when the file starts with `{`; `-` for stdin).
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "flux_db",
        required_unless_present = "flux_db"
    )]
    config: Option<InputPath>,
    /// A flux-accounting SQLite database (association_table, queue_table).
    #[arg(long, value_name = "PATH", value_parser = crate::cli::input::path_or_stdin)]
    flux_db: Option<PathBuf>,
    /// Events, one JSON object per line (`-` for stdin); ops `submit`, `run`, `end`,
    /// `cancel`, `urgency`, `update` (fields in docs/cli.md).
    #[arg(long, value_name = "FILE")]
    events: InputPath,
    /// Output: a readable log, or JSON Lines (one JSON object per event).
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Print only the final state, as `flux jobtap query mf_priority.so` (one JSON document).
    #[arg(long)]
    state: bool,
    /// Report a bad event line and go on with the next (exit status 1 at the end).
    #[arg(long)]
    keep_going: bool,
    /// Count SCHED jobs in max_running_jobs and max_nodes/max_cores (closes flux's
    /// overshoots); also settable as `count_sched_in_resources` in the configuration's
    /// [options].
    #[arg(long)]
    count_sched_in_resources: bool,
    /// Count a job in SCHED once even when an urgency change sends it through PRIORITY
    /// again (flux counts it again and never takes the extra count back); also settable as
    /// `sched_counted_once` in the configuration's [options].
    #[arg(long)]
    sched_counted_once: bool,
}

pub fn run(args: Args, out: &mut Out) -> Outcome {
    let (config, source) = match (&args.config, &args.flux_db) {
        (Some(c), _) => (
            LimitsConfig::parse(&c.name(), &c.read_text()?).map_err(Failure::invalid)?,
            c.name(),
        ),
        (None, Some(db)) => (
            flux_db::load_flux_db(db).map_err(Failure::invalid)?,
            db.display().to_string(),
        ),
        (None, None) => return Err(Failure::usage("give --config FILE or --flux-db PATH")),
    };
    let mut config = config;
    config.options.count_sched_in_resources |= args.count_sched_in_resources;
    config.options.sched_counted_once |= args.sched_counted_once;
    let mut engine = LimitEngine::from_config(&config)
        .map_err(|e| Failure::invalid(format!("{source}: {e}")))?;
    let name = args.events.name();
    // An event stream may be long; it is bounded all the same (an endless stdin is an error).
    let text = args.events.read_text_at_most(1 << 30)?;
    let mut failed = false;
    // Every event line has its number, a bad one skipped under --keep-going included.
    let mut number = 0usize;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        number += 1;
        let result = events::parse_event_line(&name, i + 1, line)
            .map_err(|e| e.to_string())
            .and_then(|op| {
                events::apply(&mut engine, number, &op)
                    .map_err(|e| format!("{name}:{}: {e}", i + 1))
            });
        match result {
            Ok(record) => {
                if !args.state {
                    match args.format {
                        Format::Json => {
                            serde_json::to_writer(&mut *out, &record)?;
                            writeln!(out)?;
                        }
                        Format::Text => write_text(out, &record)?,
                    }
                }
            }
            Err(msg) => {
                failed = true;
                out.flush()?;
                error(&msg);
                if !args.keep_going {
                    break;
                }
            }
        }
    }
    if args.state {
        serde_json::to_writer_pretty(&mut *out, &engine.query())?;
        writeln!(out)?;
    }
    out.flush()?;
    Ok(if failed {
        ExitCode::from(EXIT_INVALID)
    } else {
        ExitCode::SUCCESS
    })
}

fn write_text(out: &mut Out, r: &EventRecord) -> std::io::Result<()> {
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
