//! Scheduler settings shared by `rank`, `sim` and `replay`: the formula threshold, the
//! dispatch policy and the machine size — each checked here, at the command line, with the
//! rules of [`jobsort::sim::setup`], so an error names the flag or file it came from.

use super::input::InputPath;
use super::report::Failure;
use jobsort::input::text::escaped;
use jobsort::rank::Threshold;
use jobsort::sim::scheduler::SlurmBackfill;
use jobsort::sim::setup::check_cluster;
use jobsort::sim::workload::pbs_accounting::accounting_files;
use jobsort::sim::workload::{LoadReport, MachineHint, ReadOptions, SacctOptions, Workload, sacct};
use jobsort::sim::{Policy, TraceFormat, TraceOptions};
use std::collections::BTreeMap;

/// The value parser of `--threshold`: a number; NaN, which compares false with every value,
/// is a usage error.
pub fn threshold_arg(s: &str) -> Result<Threshold, String> {
    let v: f64 = s
        .parse()
        .map_err(|e| format!("`{s}` is not a number: {e}"))?;
    Threshold::new(v).map_err(|e| e.to_string())
}

/// Dispatch policy.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyArg {
    /// PBS `strict_ordering`: stop at the first job that does not fit.
    Strict,
    /// EASY backfilling: one reservation for the top blocked job.
    Easy,
    /// PBS's default (strict_ordering false): every job that fits starts, in sorted order;
    /// no reservation.
    Fill,
    /// Conservative backfilling: every blocked job gets a reservation.
    Conservative,
    /// Slurm's sched/backfill: conservative backfilling within bf_max_job_test, bf_window
    /// and bf_resolution (Slurm's defaults unless --bf-* or --slurm-conf give them).
    Slurm,
}

impl From<PolicyArg> for Policy {
    fn from(p: PolicyArg) -> Policy {
        match p {
            PolicyArg::Strict => Policy::Strict,
            PolicyArg::Easy => Policy::Easy,
            PolicyArg::Fill => Policy::Fill,
            PolicyArg::Conservative => Policy::Conservative,
            PolicyArg::Slurm => Policy::Slurm(SlurmBackfill::default()),
        }
    }
}

/// Slurm's backfill knobs (`SchedulerParameters`), over `--slurm-conf`'s.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SlurmBackfillArgs {
    /// Slurm bf_max_job_test: jobs a backfill pass tests, in priority order (default 500;
    /// with --policy slurm or a slurm.conf of sched/backfill).
    #[arg(long = "bf-max-job-test", value_name = "N")]
    pub bf_max_job_test: Option<u32>,
    /// Slurm bf_window, minutes: no reservation for a job that cannot start within it
    /// (default 1440).
    #[arg(long = "bf-window", value_name = "MINUTES")]
    pub bf_window: Option<u32>,
    /// Slurm bf_resolution, seconds: reservations end on its multiples (default 60).
    #[arg(long = "bf-resolution", value_name = "SECONDS")]
    pub bf_resolution: Option<u32>,
}

impl SlurmBackfillArgs {
    /// Whether any knob is given.
    pub fn given(&self) -> bool {
        self.bf_max_job_test.is_some() || self.bf_window.is_some() || self.bf_resolution.is_some()
    }

    /// `policy` with the knobs given; a usage error when one is given for another policy
    /// or out of Slurm's range.
    pub fn apply(&self, policy: Policy) -> Result<Policy, Failure> {
        let given = [
            ("--bf-max-job-test", self.bf_max_job_test),
            ("--bf-window", self.bf_window),
            ("--bf-resolution", self.bf_resolution),
        ];
        let Policy::Slurm(mut bf) = policy else {
            return match given.iter().find(|(_, v)| v.is_some()) {
                Some((flag, _)) => Err(Failure::usage(format!(
                    "{flag} is a knob of Slurm's backfill: give --policy slurm (or a \
                     --slurm-conf with SchedulerType=sched/backfill); the policy is {}",
                    policy.name()
                ))),
                None => Ok(policy),
            };
        };
        if let Some(v) = self.bf_max_job_test {
            bf.bf_max_job_test = v;
        }
        if let Some(v) = self.bf_window {
            bf.bf_window = v;
        }
        if let Some(v) = self.bf_resolution {
            bf.bf_resolution = v;
        }
        bf.check()
            .map_err(|e| Failure::usage(format!("--{}", e.replace('_', "-"))))?;
        Ok(Policy::Slurm(bf))
    }

    /// The flag that gave a knob (`bf_window` ...), if one did.
    pub fn flag_of(&self, knob: &str) -> Option<&'static str> {
        match knob {
            "bf_max_job_test" => self.bf_max_job_test.map(|_| "--bf-max-job-test"),
            "bf_window" => self.bf_window.map(|_| "--bf-window"),
            "bf_resolution" => self.bf_resolution.map(|_| "--bf-resolution"),
            _ => None,
        }
    }
}

/// The simulated machine; the trace's header (or `.machines` file) gives what is not set.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct MachineArgs {
    /// Nodes (default: from the trace header / .machines file).
    #[arg(long)]
    pub nodes: Option<u32>,
    /// Cores per node (default: from the trace header / .machines file; 1 with --nodes).
    #[arg(long)]
    pub cores: Option<u32>,
}

impl MachineArgs {
    /// Nodes and cores per node for a trace, from the flags, else from the trace. `trace`
    /// names the trace in errors.
    pub fn resolve(&self, hint: MachineHint, trace: &str) -> Result<(u32, u32), Failure> {
        let Some((nodes, cores)) = hint.resolve(self.nodes, self.cores) else {
            return Err(Failure::invalid(format!(
                "{trace}: no machine size in the trace (no MaxNodes/MaxProcs header, no \
                 .machines file, no allocation in a site's log): give --nodes and --cores"
            )));
        };
        let source = if self.nodes.is_some() {
            format!("--nodes {nodes}")
        } else {
            format!("{trace}: {nodes} nodes")
        };
        check_nodes(nodes, &source)?;
        Ok((nodes, cores))
    }
}

/// Refuse a cluster the simulator cannot hold ([`check_cluster`]'s rule). `source` says
/// where the size came from.
pub fn check_nodes(nodes: u32, source: &str) -> Result<(), Failure> {
    check_cluster(nodes, 1).map_err(|e| Failure::invalid(format!("{source}: {e}")))
}

/// What a sacct dump does not say of itself.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SacctArgs {
    /// The columns of a sacct dump without a header line (`sacct -n`), in order: sacct field
    /// names (`jobid,submit,start,end,state,...`), or `xdmod` for XDMoD's 26 fields.
    #[arg(long = "sacct-fields", value_name = "LIST")]
    pub fields: Option<String>,
    /// The zone a sacct dump's times are in, as a UTC offset (`UTC`, `-05:00`): sacct prints
    /// local time. Dump with `TZ=UTC sacct ...` (a zone with summer time has no one offset).
    #[arg(long = "sacct-utc-offset", value_name = "OFFSET", default_value = "UTC",
          allow_hyphen_values = true, value_parser = sacct::utc_offset)]
    pub utc_offset: i64,
}

/// How `--trace` is read: `lenient` is `--lenient`.
pub fn trace_options(lenient: bool, sacct: &SacctArgs) -> TraceOptions {
    TraceOptions {
        read: ReadOptions { lenient },
        sacct: SacctOptions {
            fields: sacct.fields.as_deref().map(SacctOptions::fields_of),
            utc_offset: sacct.utc_offset,
        },
        format: None,
    }
}

/// A workload trace (`-` for stdin): SWF (plain or gzip), a JSON job list, a sacct dump, a
/// Flux job list or PBS accounting logs, told apart as the library tells them
/// ([`jobsort::sim::trace_format`]); also says which it was. A directory of logs shows a
/// progress bar on a terminal.
pub fn load_trace(
    trace: &InputPath,
    options: &TraceOptions,
) -> Result<(Workload, TraceFormat), Failure> {
    match trace {
        InputPath::File(path) => {
            let bar = progress_bar(path);
            let mut tick = |bytes: u64| {
                if let Some(b) = &bar {
                    b.set_position(bytes)
                }
            };
            let progress: Option<&mut dyn FnMut(u64)> = match bar {
                Some(_) => Some(&mut tick),
                None => None,
            };
            let w = jobsort::sim::load_workload_with(path, options, progress);
            if let Some(b) = &bar {
                b.finish_and_clear();
            }
            w
        }
        InputPath::Stdin => {
            // Streamed as a file is: never held whole, and an endless stdin stops at its
            // first impossible byte.
            super::input::take_stdin()?;
            let name = trace.name();
            jobsort::workload::TraceText::new(std::io::stdin(), &name, 0)
                .and_then(|text| jobsort::workload::read_trace(text.ahead(), &name, &name, options))
        }
    }
    .map_err(Failure::invalid)
}

/// Counts by reason as the load line lists them (`1 runtime <= 0, 2 no processors`).
fn by_reason(counts: &BTreeMap<String, usize>) -> String {
    let each: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
    each.join(", ")
}

/// A bar over a directory's bytes, on stderr when it is a terminal (never otherwise).
fn progress_bar(path: &std::path::Path) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if !path.is_dir() || !std::io::stderr().is_terminal() {
        return None;
    }
    let files = accounting_files(path).ok()?;
    let total = files
        .iter()
        .filter_map(|f| f.metadata().ok())
        .map(|m| m.len())
        .sum();
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(total),
        indicatif::ProgressDrawTarget::stderr(),
    );
    let style = indicatif::ProgressStyle::with_template(
        "{msg} [{bar:40}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
    )
    .ok()?;
    bar.set_style(style.progress_chars("=> "));
    bar.set_message(format!("reading {} files", files.len()));
    Some(bar)
}

/// Why a trace's recorded schedule does not fit `nodes` x `cores`, when it does not: the
/// first moment its running jobs hold more cores than the cluster has.
pub fn recorded_overfill(w: &Workload, trace: &str, nodes: u32, cores: u32) -> Option<String> {
    let o = jobsort::sim::replay::check_capacity(w, nodes as u64 * cores as u64)?;
    Some(format!(
        "{trace}: the recorded schedule does not fit the cluster: at time {} its {} running \
         jobs hold {} cores, the cluster has {} ({nodes} nodes x {cores} cores)",
        o.time, o.running, o.cores, o.capacity
    ))
}

/// The load report's line: jobs read, simulated and dropped (per reason), then the records
/// that were not jobs (per kind; PBS records of other types, sacct job steps, PBS records
/// skipped as bad with `--lenient` whose job is kept), when any:
/// `trace t: 15 jobs read, 8 simulated (1 ran 0 s), 7 dropped (...); 3 records skipped (3 job
/// step (not a job))`. Jobs read = simulated + dropped.
pub fn load_line(w: &Workload) -> String {
    let r = &w.report;
    let zero = if r.zero_runtime > 0 {
        format!(" ({} ran 0 s)", r.zero_runtime)
    } else {
        String::new()
    };
    let mut line = format!(
        "trace {}: {} jobs read, {} simulated{zero}, {} dropped",
        w.name,
        r.read,
        w.jobs.len(),
        r.dropped_total(),
    );
    if !r.dropped.is_empty() {
        line += &format!(" ({})", by_reason(&r.dropped));
    }
    let skipped = r.skipped_total();
    if skipped > 0 {
        let s = if skipped == 1 { "" } else { "s" };
        line += &format!(
            "; {skipped} record{s} skipped ({})",
            by_reason(&r.records_skipped)
        );
    }
    line
}

/// `--list-dropped`'s table of the jobs a load dropped, one a line (`id  reason`, the id
/// escaped as a message quotes an input), in the order they were dropped, after a heading
/// with their count; a last line counts those dropped past the ones a report lists. Empty
/// when no job was dropped.
pub fn dropped_table(r: &LoadReport) -> String {
    use std::fmt::Write;
    if r.dropped_jobs.is_empty() {
        return String::new();
    }
    let ids: Vec<_> = r.dropped_jobs.iter().map(|d| escaped(&d.id)).collect();
    let width = ids.iter().map(|i| i.chars().count()).fold(2, usize::max);
    let mut out = format!(
        "dropped jobs: {}\n{:<width$}  reason\n",
        r.dropped_total(),
        "id"
    );
    for (id, d) in ids.iter().zip(&r.dropped_jobs) {
        let _ = writeln!(out, "{id:<width$}  {}", d.reason);
    }
    if r.dropped_unlisted > 0 {
        let _ = writeln!(
            out,
            "... and {} more (only the first {} are listed)",
            r.dropped_unlisted,
            r.dropped_jobs.len()
        );
    }
    out
}

/// `--list-dropped`'s list for a JSON report: `[{"id", "reason"}]`, in the order they were
/// dropped.
pub fn dropped_json(r: &LoadReport) -> serde_json::Value {
    serde_json::json!(r.dropped_jobs)
}
