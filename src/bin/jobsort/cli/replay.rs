//! `jobsort replay`: verify a recording, or reconcile another formula against it (or against
//! a real schedule from an SWF trace). A PBS site's files (`--pbs-home`, `--sched-config`,
//! `--qmgr`) give the formula when `--formula` is not given, and with `--trace` the policy,
//! threshold and fairshare setup, as for `sim`; flags win.

use super::formula_args::{CatalogArgs, CompileArgs, FormulaValue, read_formula_arg};
use super::input::{InputPath, one_stdin};
use super::output::{Out, ReportFormat, write_json};
use super::prepared::{Ties, check_absent_inputs, fairshare_inputs};
use super::queue_order_args::{QueueOrderArgs, in_effect};
use super::report::{EXIT_INVALID, Failure, Outcome, note, warn};
use super::schedule_args::{
    MachineArgs, PolicyArg, SacctArgs, SlurmBackfillArgs, check_nodes, dropped_table, load_line,
    load_trace, recorded_overfill, trace_options,
};
use super::sim::SimFairshareArgs;
use super::site_args::{Explained, PbsSiteArgs};
use jobsort::CompiledFormula;
use jobsort::pbs::{PbsSite, Setting};
use jobsort::sim::record::{Header, RecordingReader, decoded, read_recording};
use jobsort::sim::replay::{
    ReconcileReport, RecordedJobs, Verifier, VerifyReport, reconcile, recorded_metrics,
    recorded_setup, recording_from_trace,
};
use jobsort::sim::scheduler::drop_oversized;
use jobsort::sim::settings;
use jobsort::sim::{Policy, Priority, SimConfig};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A recording made by `jobsort sim --record` (JSON lines; `-` for stdin).
    #[arg(value_name = "RECORDING")]
    pub recording: Option<InputPath>,
    /// Re-run the recording with its settings and compare every event and decision. Give the
    /// `--resource`, `--engine` and `--compat` flags the recording was made with. Exit 0 when
    /// every round matches (a truncated recording, which the report names, included), 1 on a
    /// mismatch.
    #[arg(long)]
    pub verify: bool,
    /// Another formula: reconcile it against the recording (or, with --verify, run the live
    /// scheduler with it instead of the recorded one). Default: the site's job_sort_formula
    /// (`--qmgr`, `--pbs-home`), when given.
    #[arg(long, allow_hyphen_values = true, value_parser = FormulaValue)]
    pub formula: Option<String>,
    #[command(flatten)]
    pub catalog: CatalogArgs,
    #[command(flatten)]
    pub compile: CompileArgs,
    /// Use a trace's real schedule as the recording (`-` for stdin): SWF (start = submit +
    /// wait), a JSON job list with `start`, PBS accounting logs (S/E records; a file or a
    /// directory), or another site's log (Slurm `sacct -P`, Flux job lists: their start and
    /// end). It must fit the cluster: for a site's log, a moment when its running jobs hold
    /// more cores is an error.
    #[arg(long, value_name = "FILE", conflicts_with = "recording")]
    pub trace: Option<InputPath>,
    /// Skip bad records of the trace (a site's log, or an SWF file's lines), counted per reason and
    /// reported, instead of stopping at the first
    #[arg(long)]
    pub lenient: bool,
    /// After the note of the trace's load, list on stderr each job it drops with its reason
    /// (`id  reason`; a bad record skipped with --lenient as `line N`), as `sim
    /// --list-dropped` does
    #[arg(long = "list-dropped")]
    pub list_dropped: bool,
    #[command(flatten)]
    pub sacct: SacctArgs,
    /// Policy for "jobs it would have started" with --trace (default: the site's
    /// strict_ordering and backfill_depth, as for `sim`, else easy).
    #[arg(long, value_enum)]
    pub policy: Option<PolicyArg>,
    /// With --policy slurm: its backfill knobs.
    #[command(flatten)]
    pub slurm_backfill: SlurmBackfillArgs,
    #[command(flatten)]
    pub site: PbsSiteArgs,
    /// The queue order of --trace's ranking (a recording carries its own).
    #[command(flatten)]
    pub queue_order: QueueOrderArgs,
    /// The fairshare setup of --trace's schedule (a recording carries its own).
    #[command(flatten)]
    pub fairshare: SimFairshareArgs,
    #[command(flatten)]
    pub machine: MachineArgs,
    /// Print every round of a reconciliation.
    #[arg(long = "per-round")]
    pub per_round: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: ReportFormat,
}

pub fn run(args: Args, out: &mut Out) -> Outcome {
    one_stdin(
        [args.trace.as_ref(), args.recording.as_ref()]
            .into_iter()
            .chain(args.site.inputs()),
    )?;
    let site = args.site.read()?;
    let mut catalog = args.catalog.catalog()?;
    if let Some(q) = site.as_ref().and_then(|s| s.qmgr.as_ref()) {
        for (name, ty) in &q.resources {
            // `--resource` and `--resourcedef` win over the qmgr output.
            if catalog.resource(name).is_none() {
                catalog.add_resource(name, ty.value);
            }
        }
    }
    let compile = |text: &str, name: &str| args.compile.compile(text, name, &catalog);
    let other = match (&args.formula, site.as_ref().and_then(PbsSite::formula)) {
        (Some(f), _) => {
            let (text, name) = read_formula_arg(f, "--formula")?;
            Some(compile(&text, &name)?)
        }
        (None, Some(f)) => Some(compile(
            &f.value,
            &format!("job_sort_formula at {}", f.origin),
        )?),
        (None, None) => None,
    };
    if args.trace.is_none() && args.fairshare.given() {
        return Err(Failure::usage(
            "a recording carries its own fairshare setup: --resource-group, --auto-tree, \
             --entity, --decay-time, --decay-factor, --unknown-shares and --usage-res are for \
             --trace",
        ));
    }
    if args.trace.is_none() && args.slurm_backfill.given() {
        return Err(Failure::usage(
            "a recording carries its own policy: --bf-max-job-test, --bf-window and \
             --bf-resolution are for --trace",
        ));
    }
    if args.trace.is_none() && args.queue_order.given() {
        return Err(Failure::usage(
            "a recording carries its own queue order: --queue-priority, --partition-tier and \
             --by-queue are for --trace",
        ));
    }
    let verifying = args.verify || other.is_none() && args.trace.is_none();
    if let (true, Some(input), None) = (verifying, &args.recording, &args.trace) {
        let report = verify_input(input, other.as_ref(), &compile)?;
        write_verify(out, &report, args.format)?;
        out.flush()?;
        return Ok(verified(&report));
    }
    let (rec, recorded_waits) = match (&args.recording, &args.trace) {
        (Some(path), None) => {
            // Read as it streams into the rounds (not held as bytes besides), plain or gzip.
            let name = path.name();
            let file = std::fs::File::open(path.open_path()?).map_err(cannot_read(&name))?;
            let rec = read_recording(buffered(file), &name).map_err(Failure::invalid)?;
            check_nodes(
                rec.header.cluster.nodes,
                &format!("{}: header cluster", path.name()),
            )?;
            (rec, None)
        }
        (None, Some(trace)) => {
            if args.verify {
                return Err(Failure::usage(
                    "--verify needs a recording made by `jobsort sim --record`, not --trace",
                ));
            }
            let (mut w, format) = load_trace(trace, &trace_options(args.lenient, &args.sacct))?;
            let (nodes, cores) = args.machine.resolve(w.machine, &trace.name())?;
            note_machine(&w, &trace.name(), &args.machine);
            drop_oversized(&mut w, nodes, cores);
            note(&load_line(&w));
            if args.list_dropped {
                eprint!("{}", dropped_table(&w.report));
            }
            let capacity = nodes as u64 * cores as u64;
            if let Some(what) = recorded_overfill(&w, &trace.name(), nodes, cores) {
                if format.is_site_log() {
                    return Err(Failure::invalid(format!(
                        "{what}; give --nodes/--cores if the log's size is wrong"
                    )));
                }
                warn(&what);
            }
            let (policy, warnings) =
                settings::sim_policy(args.policy.map(Policy::from), None, None, site.as_ref())?;
            for w in &warnings {
                warn(w);
            }
            let policy = args.slurm_backfill.apply(policy.value)?;
            let threshold = settings::threshold(None, site.as_ref())?;
            let fairshare = args
                .fairshare
                .config(site.as_ref(), &mut Explained::default())?;
            let queue_order =
                args.queue_order
                    .resolve(site.as_ref(), None, &mut Explained::default())?;
            let config = SimConfig {
                policy,
                nodes,
                cores,
                threshold: threshold.map(|t: Setting<f64>| t.value),
                fairshare,
                limits: None,
                queue_order: in_effect(queue_order, &w.jobs),
            };
            let m = recorded_metrics(&w, capacity);
            (recording_from_trace(&w, &config), Some(m))
        }
        _ => return Err(Failure::usage("give a RECORDING or --trace FILE")),
    };
    if let Some(f) = &other {
        check_fairshare(&rec.header, f)?;
    }
    if recorded_waits.is_none() && !rec.header.has_queue() {
        note(
            "the recording lists no ranked queue (`sim --record-queue` writes it): Kendall tau \
             compares with the recorded dispatches first, then submit order",
        );
    }
    let report =
        reconcile(&rec, other.as_ref().map(|f| f as &dyn Priority)).map_err(Failure::invalid)?;
    write_reconcile(out, &report, &args, recorded_waits.as_ref())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Where the cluster size came from, on stderr, when a site log's allocations gave it (and
/// the flags did not override it).
fn note_machine(w: &jobsort::sim::Workload, trace: &str, machine: &MachineArgs) {
    if let Some(how) = &w.machine_derived
        && (machine.nodes.is_none() || machine.cores.is_none())
    {
        note(&format!("{trace}: cluster size: {how}"));
    }
}

/// Success when the recording verified without a mismatch.
fn verified(report: &VerifyReport) -> ExitCode {
    if report.mismatches == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_INVALID)
    }
}

/// `--verify` of a recording, read twice as it streams (never held whole): the jobs first
/// (and every line checked, so a bad line is an error before anything runs, as when the file
/// was read whole), then the rounds one at a time against the live scheduler. Stdin cannot be
/// read twice: the first pass copies it to an unnamed temporary file (gone when the process
/// ends), which the second pass reads back.
fn verify_input(
    input: &InputPath,
    other: Option<&CompiledFormula>,
    compile: &dyn Fn(&str, &str) -> Result<CompiledFormula, Failure>,
) -> Result<VerifyReport, Failure> {
    let name = input.name();
    let cannot_read = &cannot_read(&name);
    match input {
        InputPath::File(path) => {
            let open = || -> Result<_, Failure> {
                Ok(buffered(std::fs::File::open(path).map_err(cannot_read)?))
            };
            verify_stream(&name, open()?, open, other, compile)
        }
        InputPath::Stdin => {
            super::input::take_stdin()?;
            let mut spool = tempfile::tempfile().map_err(|e| {
                Failure::invalid(format!("<stdin>: cannot make a temporary copy: {e}"))
            })?;
            let copy = Spooled {
                input: std::io::stdin().lock(),
                copy: spool.try_clone().map_err(cannot_read)?,
            };
            verify_stream(
                &name,
                buffered(copy),
                || {
                    use std::io::Seek;
                    spool.rewind().map_err(cannot_read)?;
                    Ok(buffered(spool))
                },
                other,
                compile,
            )
        }
    }
}

/// The error of input `name` that cannot be read.
fn cannot_read(name: &str) -> impl Fn(std::io::Error) -> Failure + '_ {
    move |e| Failure::invalid(format!("{name}: cannot read: {e}"))
}

fn buffered<R: std::io::Read>(r: R) -> std::io::BufReader<R> {
    std::io::BufReader::with_capacity(1 << 16, r)
}

/// A reader that copies what it reads into `copy` (stdin kept for a second pass).
struct Spooled<R> {
    input: R,
    copy: std::fs::File,
}

impl<R: std::io::Read> std::io::Read for Spooled<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::io::Write;
        let n = self.input.read(buf)?;
        self.copy.write_all(&buf[..n]).map_err(|e| {
            std::io::Error::new(e.kind(), format!("copying stdin to a temporary file: {e}"))
        })?;
        Ok(n)
    }
}

/// [`verify_input`]'s two passes: `first` read through for the jobs, then `again` (the same
/// bytes from their start) for the rounds.
fn verify_stream<A: std::io::BufRead, B: std::io::BufRead>(
    name: &str,
    first: A,
    again: impl FnOnce() -> Result<B, Failure>,
    other: Option<&CompiledFormula>,
    compile: &dyn Fn(&str, &str) -> Result<CompiledFormula, Failure>,
) -> Result<VerifyReport, Failure> {
    let first = decoded(first).map_err(cannot_read(name))?;
    let mut reader = RecordingReader::new(first, name).map_err(Failure::invalid)?;
    let mut jobs = RecordedJobs::default();
    let mut twice = None;
    let mut rounds = 0u64;
    while let Some(r) = reader.next_round().map_err(Failure::invalid)? {
        rounds += 1;
        if twice.is_none()
            && let Err(e) = jobs.add(r.round, r.events)
        {
            twice = Some(e);
        }
    }
    let truncated = reader.truncated();
    let header = reader.header;
    check_nodes(header.cluster.nodes, &format!("{name}: header cluster"))?;
    if let Some(f) = other {
        check_fairshare(&header, f)?;
    }
    let recorded = match header.formula.as_deref() {
        Some(text) => Some(compile(text, "the recorded formula")?),
        None => None,
    };
    let f: Option<&dyn Priority> = other.or(recorded.as_ref()).map(|f| f as &dyn Priority);
    if let Some(e) = twice {
        return Err(Failure::invalid(e));
    }
    let jobs = jobs.finish();
    let setup = recorded_setup(&header, &jobs).map_err(Failure::invalid)?;
    let mut verifier = Verifier::new(&jobs, &setup, f, &header).map_err(Failure::invalid)?;
    // The rounds the first pass read (a recording still being written may have grown).
    let again = decoded(again()?).map_err(cannot_read(name))?;
    let mut reader = RecordingReader::new(again, name).map_err(Failure::invalid)?;
    for _ in 0..rounds {
        match reader.next_round().map_err(Failure::invalid)? {
            Some(r) => verifier.round(&r),
            None => return Err(Failure::invalid(format!("{name}: changed while read"))),
        }
    }
    Ok(verifier.finish(truncated))
}

/// A formula reading fairshare keywords against a recording made without fairshare: they
/// read 0 for every job.
fn check_fairshare(header: &Header, f: &CompiledFormula) -> Result<(), Failure> {
    if header.fairshare.is_some() {
        return Ok(());
    }
    check_absent_inputs(f, &fairshare_inputs(f), Ties::Fail)
}

fn write_verify(out: &mut Out, r: &VerifyReport, format: ReportFormat) -> std::io::Result<()> {
    if format == ReportFormat::Json {
        return write_json(out, &serde_json::to_value(r)?, true);
    }
    let truncated = match (&r.truncation, r.truncated) {
        (Some(how), _) => {
            format!(" (recording truncated: {how}; verified up to its last complete round)")
        }
        (None, true) => " (recording truncated: verified up to its last complete round)".into(),
        (None, false) => String::new(),
    };
    writeln!(
        out,
        "verified {} rounds, {} decisions{truncated}: {} mismatches",
        r.rounds, r.decisions, r.mismatches
    )?;
    if let Some(d) = &r.first_divergence {
        writeln!(
            out,
            "first divergence: round {}, time {}, job {}",
            d.round,
            d.time,
            d.job.as_deref().unwrap_or("-")
        )?;
        writeln!(out, "  recorded: {}", d.recorded)?;
        writeln!(out, "  live:     {}", d.live)?;
    }
    if r.input_mismatches > 0 {
        writeln!(
            out,
            "rounds whose input hash differs: {}",
            r.input_mismatches
        )?;
    }
    Ok(())
}

fn write_reconcile(
    out: &mut Out,
    r: &ReconcileReport,
    args: &Args,
    recorded: Option<&jobsort::sim::metrics::Metrics>,
) -> std::io::Result<()> {
    if args.format == ReportFormat::Json {
        let mut v = serde_json::to_value(r)?;
        if let Some(o) = v.as_object_mut() {
            if !args.per_round {
                o.remove("per_round");
            }
            if let Some(m) = recorded {
                o.insert("recorded_metrics".into(), serde_json::to_value(m)?);
            }
        }
        return write_json(out, &v, true);
    }
    if args.per_round {
        writeln!(
            out,
            "{:>8}  {:>10}  {:>6}  {:>7}  captured / would start instead",
            "round", "time", "queued", "tau"
        )?;
        for p in &r.per_round {
            if p.captured.is_empty() && p.instead.is_empty() {
                continue;
            }
            writeln!(
                out,
                "{:>8}  {:>10}  {:>6}  {:>7}  [{}] / [{}]",
                p.round,
                p.time,
                p.queued,
                p.kendall_tau
                    .map(|t| format!("{t:.3}"))
                    .unwrap_or_else(|| "-".into()),
                p.captured.join(" "),
                p.instead.join(" ")
            )?;
        }
    }
    writeln!(
        out,
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
    )?;
    writeln!(
        out,
        "formula {}: mean Kendall tau {}, agreement with recorded dispatches {}, jobs it would have started instead {}",
        r.formula.as_deref().unwrap_or("(fcfs)"),
        r.mean_kendall_tau
            .map(|t| format!("{t:.4}"))
            .unwrap_or_else(|| "-".into()),
        r.agreement
            .map(|a| format!("{:.1}%", a * 100.0))
            .unwrap_or_else(|| "-".into()),
        r.instead_total
    )?;
    if !r.uncaptured.is_empty() {
        let shown: Vec<&str> = r.uncaptured.iter().take(10).map(String::as_str).collect();
        writeln!(
            out,
            "{} jobs without a recorded dispatch (usage unavailable): {}{}",
            r.uncaptured.len(),
            shown.join(" "),
            if r.uncaptured.len() > 10 { " ..." } else { "" }
        )?;
    }
    if r.overcommitted_rounds > 0 {
        writeln!(
            out,
            "rounds where recorded dispatches exceeded the free cores: {}",
            r.overcommitted_rounds
        )?;
    }
    if let Some(m) = recorded {
        writeln!(
            out,
            "recorded schedule: mean wait {:.1} s, median {:.1} s, p95 {:.1} s",
            m.mean_wait, m.median_wait, m.p95_wait
        )?;
    }
    Ok(())
}
