//! `jobsort sim`: simulate a trace under one or more formulas, side by side.

use super::formula_args::{CatalogArgs, CompileArgs, FormulaValue, read_formula_arg};
use super::input::{InputPath, one_stdin};
use super::output::{Out, ReportFormat, clip, per_job_format, write_json};
use super::prepared::{Ties, check_absent_inputs, fairshare_inputs};
use super::queue_order_args::{QueueOrderArgs, in_effect};
use super::report::{Failure, Outcome, note, warn};
use super::schedule_args::{
    MachineArgs, PolicyArg, SacctArgs, SlurmBackfillArgs, dropped_json, dropped_table, load_line,
    load_trace, recorded_overfill, threshold_arg, trace_options,
};
use super::site_args::{Explained, PbsSiteArgs, WriteExplained};
use super::slurm_args::qos_arg;
use jobsort::CompiledFormula;
use jobsort::fairshare::inputs::EntityKind;
use jobsort::fairshare::inputs::load_share_tree;
use jobsort::files::write_atomic;
use jobsort::pbs::{Origin, PbsSite, SchedConfig, Setting};
use jobsort::rank::Threshold;
use jobsort::sim::cluster::machine::{MEM, NGPUS};
use jobsort::sim::cluster::{Cluster, Machine};
use jobsort::sim::fidelity::{self, Fidelity};
use jobsort::sim::limit::LimitsSpec;
use jobsort::sim::metrics::{self, WaitChanges};
use jobsort::sim::plot::{PlotRun, render_png, render_svg};
use jobsort::sim::run::{RunError, RunOptions, RunResult, simulate_setup};
use jobsort::sim::scheduler::{drop_oversized, drop_unfitting};
use jobsort::sim::settings::{self, FairshareFlags, slurm_origin};
use jobsort::sim::setup::Setup;
use jobsort::sim::share::{AutoTree, FairshareConfig, drop_zero_share_jobs, entity_of};
use jobsort::sim::slurm_share::{
    DecaySettings, SlurmPriority, SlurmShare, trace_tree, tree_leaves,
};
use jobsort::sim::{Policy, SimConfig, workload};
use jobsort::slurm::conf::SlurmConf;
use jobsort::slurm::multifactor::Multifactor;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Workload (`-` for stdin): SWF (plain or .gz), a JSON job list (.json / .jsonl; the
    /// README gives its fields), PBS accounting logs (a file, or a directory such as
    /// server_priv/accounting) or another site's log (Slurm `sacct -P`, `flux jobs --json`,
    /// `flux job list`).
    #[arg(long, value_name = "FILE", required_unless_present = "snapshot")]
    pub trace: Option<InputPath>,
    #[command(flatten)]
    pub snapshot: super::sim_snapshot::SnapshotArgs,
    /// Skip bad records of the trace (a site's log, or an SWF file's lines), counted per reason and
    /// reported, instead of stopping at the first
    #[arg(long)]
    pub lenient: bool,
    /// After the load report, list every job the load dropped with its reason (`id  reason`;
    /// a record dropped before its id is read as `line N`); in `--format json`, the trace's
    /// `dropped_jobs`. At most the first 100,000 are listed, the rest counted
    #[arg(long = "list-dropped")]
    pub list_dropped: bool,
    #[command(flatten)]
    pub sacct: SacctArgs,
    /// A job_sort_formula (repeat to compare several side by side; none = the site's
    /// job_sort_formula from --qmgr, else first come, first served). `-` reads stdin; a qmgr
    /// line `set server job_sort_formula="..."` is accepted.
    #[arg(long = "formula", allow_hyphen_values = true, value_parser = FormulaValue)]
    pub formulas: Vec<String>,
    /// Formulas as arguments, as `check`, `eval` and `rank` take one (the same as
    /// `--formula`; one that starts with `-` goes as `--formula=-walltime`). They come first,
    /// then the `--formula`s, then the `--file`s.
    #[arg(value_name = "FORMULA", value_parser = FormulaValue)]
    pub formula_args: Vec<String>,
    /// Read a formula (or a qmgr line setting it) from a file (repeatable; `-` for stdin).
    #[arg(long = "file", value_name = "PATH")]
    pub formula_files: Vec<InputPath>,
    #[command(flatten)]
    pub catalog: CatalogArgs,
    #[command(flatten)]
    pub compile: CompileArgs,
    /// Dispatch policy (default: what the site's strict_ordering and backfill_depth give,
    /// else easy).
    #[arg(long, value_enum)]
    pub policy: Option<PolicyArg>,
    /// PBS's backfill_depth with strict_ordering: reservations for the top N blocked jobs
    /// (0 is `--policy strict`, 1 is `--policy easy`).
    #[arg(long = "backfill-depth", value_name = "N", conflicts_with = "policy")]
    pub backfill_depth: Option<u32>,
    #[command(flatten)]
    pub slurm_backfill: SlurmBackfillArgs,
    #[command(flatten)]
    pub site: PbsSiteArgs,
    #[command(flatten)]
    pub queue_order: QueueOrderArgs,
    /// A Slurm site's slurm.conf: the machine from its NodeName lines (nodes of one size:
    /// nodes x CPUs; of different sizes: node types with their CPUs, RealMemory and Gres),
    /// the policy from SchedulerType (sched/builtin: strict; sched/backfill: `slurm`, with
    /// SchedulerParameters' bf_* knobs), the partitions' PriorityTier, and with
    /// PriorityType=priority/multifactor the order: Slurm's priority as it evolves in
    /// simulated time (age, fairshare with usage decaying over PriorityDecayHalfLife every
    /// PriorityCalcPeriod, job size, partition, QOS, TRES). Flags win: a --formula ranks
    /// instead.
    #[arg(
        long = "slurm-conf",
        value_name = "FILE",
        conflicts_with_all = ["pbs_home", "sched_config", "qmgr"],
        value_parser = crate::cli::input::path_or_stdin
    )]
    pub slurm_conf: Option<PathBuf>,
    /// With a --slurm-conf of PriorityType=priority/multifactor (which then ranks the jobs):
    /// the association tree and the usage it starts from, `sshare -a -l -P` output or a JSON
    /// tree (as `jobsort fairshare --sshare` and `--fairshare-tree` read them). Default: one
    /// account per trace account (`default` for a job without one), under it one association
    /// per user, each of 1 share, no usage.
    #[arg(
        long = "share-tree",
        value_name = "FILE",
        requires = "slurm_conf",
        value_parser = crate::cli::input::path_or_stdin,
    )]
    pub share_tree: Option<PathBuf>,
    /// With --slurm-conf: a QOS and its priority (`sacctmgr show qos format=name,priority`),
    /// e.g. `--qos high=100`; a job's QOS is the trace's (sacct `QOS`). The largest one
    /// normalises the qos factor. Repeatable.
    #[arg(
        long = "qos",
        value_name = "NAME=PRIORITY",
        value_parser = qos_arg,
        requires = "slurm_conf"
    )]
    pub qos: Vec<(String, u32)>,
    /// Print the settings in effect and where each came from (flag, file:line, default),
    /// then stop without simulating.
    #[arg(long = "explain-config")]
    pub explain_config: bool,
    #[command(flatten)]
    pub machine: MachineArgs,
    /// A multi-resource machine: a cluster file (one line per node type, such as
    /// `count=64 ncpus=128 mem=512gb ngpus=4`) or an AleaNG `.machines` file. Jobs' memory,
    /// GPU and custom chunk requests are then scheduled on its nodes.
    #[arg(
        long = "machine",
        value_name = "FILE",
        conflicts_with_all = ["nodes", "cores", "slurm_conf"],
        value_parser = crate::cli::input::path_or_stdin
    )]
    pub machine_file: Option<PathBuf>,
    /// Memory per node (a PBS size: `512gb`), scheduled against the jobs' chunk memory.
    #[arg(long, value_name = "SIZE", value_parser = size_arg)]
    pub mem: Option<u64>,
    /// GPUs per node (`ngpus`), scheduled against the jobs' chunk GPUs.
    #[arg(long, value_name = "N")]
    pub gpus: Option<u64>,
    /// job_sort_formula_threshold: jobs with value <= T are not run (a number, not NaN).
    #[arg(long, value_name = "T", allow_negative_numbers = true, value_parser = threshold_arg)]
    pub threshold: Option<Threshold>,
    #[command(flatten)]
    pub fairshare: SimFairshareArgs,
    /// flux-accounting limits file (TOML or JSON, as `jobsort limits`; `-` for stdin). Users
    /// it does not list get an unlimited association unless --reject-unknown-users.
    #[arg(long, value_name = "FILE")]
    pub limits: Option<InputPath>,
    /// With --limits: reject jobs of users without an association (flux behaviour).
    #[arg(long = "reject-unknown-users")]
    pub reject_unknown_users: bool,
    /// Write a recording (JSON lines, gzip when FILE ends in .gz; `-` for stdout, the
    /// report then goes to stderr). With several formulas, FILE gets `.1`, `.2`, ... before
    /// its extension. A pipe or FIFO is written as a stream.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// With --record: list the ranked queue (every queued job's id and formula value) in
    /// each round, for reading and for replay's Kendall tau against the recorded order. The
    /// round's hash checks the queue either way.
    #[arg(long = "record-queue", requires = "record")]
    pub record_queue: bool,
    /// Write comparison plots: wait CDF per formula, queue length over time, and each user's
    /// mean-wait change against the first formula (with one formula: delivered vs target
    /// share). The format follows the extension: FILE.svg or FILE.png.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Write each job's start, end and wait under each formula: FILE.csv (one row per job and
    /// formula: formula, id, user, group, queue, submit, cores, start, end, wait; empty when
    /// the job never started) or FILE.json / FILE.jsonl (one JSON object per line).
    #[arg(long, value_name = "FILE")]
    pub per_job: Option<PathBuf>,
    /// Compare each run with the schedule the trace recorded (SWF wait field, a site log's
    /// starts): start-time error per job (mean, median, p95, share within a minute), mean
    /// wait of both, and the jobs that differ most. With --plot, the wait CDF shows the
    /// recorded schedule too.
    #[arg(long)]
    pub fidelity: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: ReportFormat,
    /// Simulate only the first N jobs (in submit order).
    #[arg(long, value_name = "N")]
    pub first: Option<usize>,
}

/// The fairshare tree of a simulation.
#[derive(clap::Args, Debug)]
pub struct SimFairshareArgs {
    /// PBS resource_group file for the fairshare tree (`-` for stdin).
    #[arg(
        long = "resource-group",
        alias = "fairshare-tree",
        value_name = "FILE",
        conflicts_with = "auto_tree"
    )]
    pub resource_group: Option<InputPath>,
    /// Build an equal-share tree from the trace's entities.
    #[arg(long = "auto-tree", value_enum)]
    pub auto_tree: Option<AutoTreeArg>,
    /// Fairshare entity with --resource-group (PBS fairshare_entity; default: the site's,
    /// else euser).
    #[arg(long, value_enum)]
    pub entity: Option<EntityArg>,
    /// fairshare_decay_time in seconds, positive (default: the site's, else 86400).
    #[arg(long = "decay-time")]
    pub decay_time: Option<i64>,
    /// fairshare_decay_factor, 0 < f < 1 (default: the site's, else 0.5).
    #[arg(long = "decay-factor")]
    pub decay_factor: Option<f64>,
    /// Shares of `unknown` in a resource_group tree (default: the site's unknown_shares,
    /// else 0).
    #[arg(long = "unknown-shares")]
    pub unknown_shares: Option<u32>,
    /// PBS fairshare_usage_res: what a running job adds to its entity's usage — cput (PBS's
    /// default, taken as cores x seconds), walltime (seconds per job), or a product of one of
    /// them with numbers and resources such as mem*walltime (default: the site's, else cput).
    #[arg(long = "usage-res", value_name = "RES")]
    pub usage_res: Option<String>,
}

/// `--auto-tree`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoTreeArg {
    /// Root → one leaf per user.
    User,
    /// Root → one leaf per group.
    Group,
    /// Root → groups → `group:user` leaves.
    #[value(name = "group:user")]
    GroupUser,
}

impl From<AutoTreeArg> for AutoTree {
    fn from(a: AutoTreeArg) -> AutoTree {
        match a {
            AutoTreeArg::User => AutoTree::User,
            AutoTreeArg::Group => AutoTree::Group,
            AutoTreeArg::GroupUser => AutoTree::GroupUser,
        }
    }
}

/// `--entity`: the job field naming its fairshare entity.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntityArg {
    /// The job's user.
    #[value(alias = "user")]
    Euser,
    /// The job's group.
    #[value(alias = "group")]
    Egroup,
    /// The job's queue.
    Queue,
    /// The job's account (PBS `Account_Name`, Slurm `Account`; SWF traces have none).
    #[value(alias = "Account_Name")]
    Account,
    /// `group:user`.
    #[value(name = "egroup:euser", alias = "group:user")]
    EgroupEuser,
}

impl From<EntityArg> for EntityKind {
    fn from(e: EntityArg) -> EntityKind {
        match e {
            EntityArg::Euser => EntityKind::Euser,
            EntityArg::Egroup => EntityKind::Egroup,
            EntityArg::Queue => EntityKind::Queue,
            EntityArg::Account => EntityKind::Account,
            EntityArg::EgroupEuser => EntityKind::EgroupEuser,
        }
    }
}

impl SimFairshareArgs {
    /// Whether any of these flags is given.
    pub(super) fn given(&self) -> bool {
        let resource_group = self.resource_group.as_ref().map(|_| Default::default());
        self.flags(resource_group).given()
    }

    /// The flags as the library takes them, with the `resource_group` file's name and text.
    fn flags(&self, resource_group: Option<(String, String)>) -> FairshareFlags {
        FairshareFlags {
            style: settings::ArgStyle::Flags,
            resource_group,
            auto_tree: self.auto_tree.map(AutoTree::from),
            entity: self.entity.map(EntityKind::from),
            decay_time: self.decay_time,
            decay_factor: self.decay_factor,
            unknown_shares: self.unknown_shares,
            usage_res: self.usage_res.clone(),
        }
    }

    /// The fairshare settings (`None` without a tree), resolved by the library
    /// ([`FairshareFlags::config`]: each flag given wins over the site's sched_config, which
    /// wins over PBS's default). Each setting goes into `explained`.
    pub(super) fn config(
        &self,
        site: Option<&PbsSite>,
        explained: &mut Explained,
    ) -> Result<Option<FairshareConfig>, Failure> {
        let resource_group = match (&self.resource_group, self.auto_tree) {
            (Some(path), None) => Some((path.name(), path.read_text()?)),
            _ => None,
        };
        Ok(self.flags(resource_group).config(site, explained)?)
    }
}

/// The backfill knobs of [`Policy::Slurm`].
const SIMULATED_BF: [&str; 3] = ["bf_max_job_test", "bf_window", "bf_resolution"];

/// Slurm's backfill knobs in effect, each with where it came from: a flag, the slurm.conf
/// `SchedulerParameters` line, or Slurm's default.
fn explain_slurm_backfill(
    policy: Policy,
    flags: &SlurmBackfillArgs,
    conf: Option<&SlurmConf>,
    explained: &mut Explained,
) {
    let Policy::Slurm(bf) = policy else {
        return;
    };
    let values = [bf.bf_max_job_test, bf.bf_window, bf.bf_resolution];
    for (knob, value) in SIMULATED_BF.iter().zip(values) {
        let in_conf = conf.and_then(|c| {
            c.scheduler_parameters
                .entries
                .iter()
                .any(|(k, _)| k == knob)
                .then(|| c.settings.get("SchedulerParameters"))
                .flatten()
        });
        let origin = match (flags.flag_of(knob), in_conf) {
            (Some(flag), _) => Origin::Flag(flag.into()),
            (None, Some((_, at))) => slurm_origin(at.clone()),
            (None, None) => Origin::Default,
        };
        explained.add(&format!("SchedulerParameters {knob}"), value, &origin);
    }
}

/// The slurm.conf settings Slurm uses that the simulation does not, as rows that say so;
/// `multifactor`: the decay settings when its multifactor priority ranks the jobs.
fn explain_unsimulated_slurm(
    conf: &SlurmConf,
    multifactor: Option<&DecaySettings>,
    explained: &mut Explained,
) {
    let at = |key: &str| {
        conf.settings
            .get(key)
            .map_or(Origin::Default, |(_, at)| slurm_origin(at.clone()))
    };
    // The knobs the simulation honours are rows of their own (`explain_slurm_backfill`).
    let knobs: Vec<String> = conf
        .scheduler_parameters
        .entries
        .iter()
        .filter(|(k, _)| k.starts_with("bf_") && !SIMULATED_BF.contains(&k.as_str()))
        .map(|(k, v)| v.as_ref().map_or_else(|| k.clone(), |v| format!("{k}={v}")))
        .collect();
    if conf.scheduler_type.eq_ignore_ascii_case("sched/backfill") && !knobs.is_empty() {
        explained.add(
            "SchedulerParameters bf_*",
            format!("{} (not simulated)", knobs.join(",")),
            &at("SchedulerParameters"),
        );
    }
    let priority = &conf.priority.priority_type;
    let how = if priority.eq_ignore_ascii_case("priority/basic") {
        "first come, first served: the order without --formula".to_string()
    } else if let Some(d) = multifactor {
        format!(
            "simulated: age, {} fairshare with usage decaying over a half-life of {} s every \
             {} s, job size, partition, QOS, TRES, as slurmctld stores them",
            if d.fair_tree { "Fair Tree" } else { "classic" },
            d.half_life,
            d.calc_period
        )
    } else if conf.is_multifactor() {
        "not simulated: --formula ranks the jobs".to_string()
    } else {
        "not simulated: jobs are ordered by --formula, else first come, first served".to_string()
    };
    explained.add(
        "PriorityType",
        format!("{priority} ({how})"),
        &at("PriorityType"),
    );
    if multifactor.is_some() {
        if conf.priority.flags.incr_only {
            explained.add(
                "PriorityFlags INCR_ONLY",
                "true (not simulated: a job's priority may fall when its fairshare does)",
                &at("PriorityFlags"),
            );
        }
        for (key, why) in [
            ("TRESBillingWeights", "usage accrues as CPUs x seconds"),
            (
                "PriorityWeightAssoc",
                "associations have no priority here: the assoc factor is 0",
            ),
        ] {
            if let Some((value, at)) = conf.settings.get(key) {
                explained.add(
                    key,
                    format!("{value} (not simulated: {why})"),
                    &slurm_origin(at.clone()),
                );
            }
        }
    }
    if conf.partitions.len() > 1 {
        let p = &conf.partitions[0];
        explained.add(
            "partitions",
            format!(
                "{} (their nodes are not simulated: every job may use every node)",
                conf.partitions.len()
            ),
            &slurm_origin(p.at.clone()),
        );
    }
    for p in &conf.partitions {
        explained.add(
            &format!("partition {} PriorityTier", p.name),
            format!(
                "{} (higher tiers first, then the job order)",
                p.priority_tier
            ),
            &slurm_origin(p.at.clone()),
        );
    }
}

/// Slurm's multifactor priority for the jobs: the association tree of `--share-tree`
/// (warning about users it does not list) or of the trace, the QOS priorities of `--qos`.
fn slurm_priority(
    m: Multifactor,
    decay: DecaySettings,
    args: &Args,
    jobs: &[workload::SimJob],
) -> Result<SlurmPriority, Failure> {
    let (tree, leaves) = match &args.share_tree {
        Some(path) => {
            let file = load_share_tree(path).map_err(Failure::invalid)?;
            for w in &file.warnings {
                warn(w);
            }
            let leaves = tree_leaves(&file.tree, jobs);
            let missing: Vec<&str> = {
                let mut users: Vec<&str> = jobs
                    .iter()
                    .zip(&leaves)
                    .filter(|(_, l)| l.is_none())
                    .map(|(j, _)| j.user.as_str())
                    .collect();
                users.sort_unstable();
                users.dedup();
                users
            };
            if !missing.is_empty() {
                warn(&format!(
                    "{}: no association for {} user{} of the trace ({}{}): their fairshare \
                     factor is 0",
                    path.display(),
                    missing.len(),
                    if missing.len() == 1 { "" } else { "s" },
                    missing[..missing.len().min(3)].join(", "),
                    if missing.len() > 3 { ", ..." } else { "" }
                ));
            }
            (file.tree, leaves)
        }
        None => {
            let (tree, leaves) = trace_tree(jobs);
            (tree, leaves.into_iter().map(Some).collect())
        }
    };
    let qos: BTreeMap<&str, u32> = args.qos.iter().map(|(n, p)| (n.as_str(), *p)).collect();
    let share = SlurmShare::new(tree, decay);
    Ok(SlurmPriority::new(
        m,
        jobs,
        &|q| qos.get(q).copied().unwrap_or(0),
        share,
        leaves,
    ))
}

/// The sched_config settings PBS uses that the simulation does not, as rows that say so.
fn explain_unsimulated(sc: &SchedConfig, explained: &mut Explained) {
    // fairshare_usage_res: `SimFairshareArgs::config`.
    let enforce = sc.enforce_no_shares();
    if enforce.value && sc.fair_share.as_ref().is_some_and(|s| s.value) {
        explained.add(
            "fairshare_enforce_no_shares",
            "true (jobs of entities with no share never run)",
            &enforce.origin,
        );
    }
    // by_queue and round_robin: `QueueOrderArgs::resolve`.
    if let Some(s) = sc.preemptive_sched.as_ref().filter(|s| s.value) {
        explained.add("preemptive_sched", "true (not simulated)", &s.origin);
    }
    for k in &sc.job_sort_key {
        explained.add(
            "job_sort_key",
            format!("{} (not simulated: the formula orders jobs)", k.value),
            &k.origin,
        );
    }
}

/// Each job's `queue_priority` from its queue's `Priority`, unless the job gives one.
fn apply_queue_priorities(w: &mut workload::Workload, priorities: &BTreeMap<String, Setting<f64>>) {
    if priorities.is_empty() {
        return;
    }
    for j in &mut w.jobs {
        if j.queue_priority() == 0.0
            && let Some(p) = priorities.get(j.queue.as_str())
        {
            j.set_queue_priority(p.value);
        }
    }
}

/// A `resource_group` tree none of whose entities runs a job leaves every job under
/// `unknown`: the fairshare keywords are then the same for every job. Warn.
fn warn_unmatched_tree(setup: &Setup, file: &str, kind: EntityKind, jobs: &[workload::SimJob]) {
    let Some(tree) = setup.share_tree() else {
        return;
    };
    let leaves = setup.leaves();
    if !leaves.is_empty() && !leaves.iter().any(|&l| tree.is_listed(l)) {
        // A few of the names the trace does have, so a mismatch of naming is plain.
        let mut seen: Vec<String> = Vec::new();
        for j in jobs {
            if let Some(name) = entity_of(kind, j)
                && !seen.contains(&name)
            {
                seen.push(name);
                if seen.len() == 3 {
                    break;
                }
            }
        }
        warn(&format!(
            "{file}: no trace job's {} is in the tree: every job is under `unknown` and \
             fairshare gives all the same values (the trace's are {}, ...)",
            kind.name(),
            seen.join(", ")
        ));
    }
}

/// The file of each formula's recording: FILE itself for one formula, else `FILE.1`,
/// `FILE.2`, ... before its extension. `-` is stdout; it and any other path that is not a
/// regular file (a pipe, a FIFO, `/dev/stdout`) are one stream, which holds one recording.
fn record_paths(record: &Path, n: usize) -> Result<Vec<PathBuf>, Failure> {
    let stdout = record == Path::new("-");
    if n > 1 && (stdout || std::fs::metadata(record).is_ok_and(|m| !m.is_file())) {
        return Err(Failure::usage(format!(
            "--record {}: not a regular file, so it holds one recording; {n} formulas need a \
             file name FILE (they write FILE.1 ... FILE.{n})",
            record.display()
        )));
    }
    if stdout {
        return Ok(vec![PathBuf::from("/dev/stdout")]);
    }
    Ok((1..=n).map(|k| nth_path(record, k, n)).collect())
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

/// The `--per-job` file: each job under each run, in job order within each run.
fn per_job_bytes(
    w: &workload::Workload,
    runs: &[RunResult],
    csv: bool,
) -> Result<Vec<u8>, Failure> {
    let mut buf: Vec<u8> = Vec::new();
    let fail = |e: String| Failure::invalid(format!("--per-job: {e}"));
    if csv {
        let mut out = ::csv::Writer::from_writer(&mut buf);
        out.write_record([
            "formula", "id", "user", "group", "queue", "submit", "cores", "start", "end", "wait",
        ])
        .map_err(|e| fail(e.to_string()))?;
        for r in runs {
            let formula = label(r);
            for (i, j) in w.jobs.iter().enumerate() {
                let (start, end) = (r.outcome.start[i], r.outcome.end[i]);
                let opt = |v: Option<i64>| v.map_or(String::new(), |v| v.to_string());
                out.write_record([
                    formula.as_str(),
                    j.id.as_ref(),
                    j.user.as_str(),
                    j.group.as_str(),
                    j.queue.as_str(),
                    &j.submit.to_string(),
                    &j.request.total_cores().to_string(),
                    &opt(start),
                    &opt(end),
                    &opt(start.map(|s| s - j.submit)),
                ])
                .map_err(|e| fail(e.to_string()))?;
            }
        }
        out.flush().map_err(|e| fail(e.to_string()))?;
    } else {
        use std::io::Write as _;
        for r in runs {
            let formula = label(r);
            for (i, j) in w.jobs.iter().enumerate() {
                let start = r.outcome.start[i];
                let row = serde_json::json!({
                    "formula": formula,
                    "id": j.id.to_string(),
                    "user": j.user.as_str(),
                    "group": j.group.as_str(),
                    "queue": j.queue.as_str(),
                    "submit": j.submit,
                    "cores": j.request.total_cores(),
                    "start": start,
                    "end": r.outcome.end[i],
                    "wait": start.map(|s| s - j.submit),
                });
                serde_json::to_writer(&mut buf, &row).map_err(|e| fail(e.to_string()))?;
                buf.write_all(b"\n").map_err(|e| fail(e.to_string()))?;
            }
        }
    }
    Ok(buf)
}

/// The `--plot` file and whether it is a PNG (`.png`) rather than an SVG (`.svg`, or no
/// extension). Any other extension is a usage error.
fn plot_format(p: &Path) -> Result<(&Path, bool), Failure> {
    let Some(ext) = p.extension() else {
        return Ok((p, false));
    };
    match ext.to_str() {
        Some(e) if e.eq_ignore_ascii_case("svg") => Ok((p, false)),
        Some(e) if e.eq_ignore_ascii_case("png") => Ok((p, true)),
        _ => Err(Failure::usage(format!(
            "{}: --plot writes FILE.svg or FILE.png; unknown extension",
            p.display()
        ))),
    }
}

pub fn run(args: Args, out: &mut Out) -> Outcome {
    let Some(trace) = args.trace.clone() else {
        let given = super::sim_snapshot::Given {
            formula_args: &args.formula_args,
            formulas: &args.formulas,
            formula_files: &args.formula_files,
            policy: args.policy.map(Policy::from),
            backfill_depth: args.backfill_depth,
            slurm_backfill: &args.slurm_backfill,
            per_job: args.per_job.as_deref(),
            format: args.format,
        };
        return super::sim_snapshot::run(&args.snapshot, given, out);
    };
    // Checked before simulating, so a bad name does not cost a whole run.
    let plot = args.plot.as_deref().map(plot_format).transpose()?;
    let per_job = args.per_job.as_deref().map(per_job_format).transpose()?;
    one_stdin(
        std::iter::once(Some(&trace))
            .chain(args.site.inputs())
            .chain(args.formula_files.iter().map(Some)),
    )?;
    let site = args.site.read()?;
    let slurm = match &args.slurm_conf {
        Some(path) => Some(SlurmConf::load(path).map_err(Failure::invalid)?),
        None => None,
    };
    let mut explained = Explained::default();
    let (policy, warnings) = settings::sim_policy(
        args.policy.map(Policy::from),
        args.backfill_depth,
        slurm.as_ref(),
        site.as_ref(),
    )?;
    for w in &warnings {
        warn(w);
    }
    let policy = Setting::new(args.slurm_backfill.apply(policy.value)?, policy.origin);
    explained.add_setting("policy", &policy.clone().map(Policy::name));
    explain_slurm_backfill(
        policy.value,
        &args.slurm_backfill,
        slurm.as_ref(),
        &mut explained,
    );
    let fairshare = args.fairshare.config(site.as_ref(), &mut explained)?;
    let mut catalog = args.catalog.catalog()?;
    if let Some(q) = site.as_ref().and_then(|s| s.qmgr.as_ref()) {
        for (name, ty) in &q.resources {
            // `--resource` and `--resourcedef` win over the qmgr output.
            if catalog.resource(name).is_none() {
                catalog.add_resource(name, ty.value);
                explained.add(&format!("resource {name}"), ty.value, &ty.origin);
            }
        }
    }
    // Each formula's text, name in diagnostics, and where it came from.
    let mut sources: Vec<(String, String, Origin)> = Vec::new();
    for f in &args.formula_args {
        let (text, name) = read_formula_arg(f, "FORMULA")?;
        sources.push((text, name, Origin::Flag("FORMULA".into())));
    }
    for f in &args.formulas {
        let (text, name) = read_formula_arg(f, "--formula")?;
        sources.push((text, name, Origin::Flag("--formula".into())));
    }
    for path in &args.formula_files {
        let text = jobsort::formula::check::formula_text(&path.read_formula()?);
        sources.push((text, path.name(), Origin::Flag("--file".into())));
    }
    if sources.is_empty()
        && let Some(f) = site.as_ref().and_then(PbsSite::formula)
    {
        let name = format!("job_sort_formula at {}", f.origin);
        sources.push((f.value.clone(), name, f.origin.clone()));
    }
    let mut formulas: Vec<CompiledFormula> = Vec::new();
    for (text, name, origin) in &sources {
        explained.add("job_sort_formula", text, origin);
        let compiled = args.compile.compile(text, name, &catalog)?;
        if fairshare.is_none() {
            check_absent_inputs(&compiled, &fairshare_inputs(&compiled), Ties::Fail)?;
        }
        formulas.push(compiled);
    }
    // slurm.conf's multifactor priority ranks unless a formula is given (flags win).
    let multifactor = match &slurm {
        Some(conf) if conf.is_multifactor() && sources.is_empty() => {
            let decay = DecaySettings::of(conf).map_err(Failure::invalid)?;
            let max_qos = args.qos.iter().map(|&(_, p)| p).max().unwrap_or(0);
            let m = Multifactor::from_conf(conf, max_qos);
            // INCR_ONLY is not simulated (see the explanation): the priority computed now.
            let text = m.formula_computed();
            let at = conf
                .settings
                .get("PriorityType")
                .map_or(Origin::Default, |(_, at)| slurm_origin(at.clone()));
            explained.add("priority", format!("{text} (Slurm multifactor)"), &at);
            match &args.share_tree {
                Some(p) => {
                    explained.add_row("association tree", p.display(), "--share-tree".into())
                }
                None => explained.add_row(
                    "association tree",
                    "the trace's accounts, a user association under each, 1 share each",
                    "default".into(),
                ),
            }
            formulas.push(
                args.compile
                    .compile(&text, "slurm.conf multifactor", &m.catalog())?,
            );
            Some((m, decay))
        }
        Some(conf) if conf.is_multifactor() => {
            note("--formula ranks the jobs: slurm.conf's multifactor priority is not simulated");
            None
        }
        _ => None,
    };
    if multifactor.is_some() {
        if args.fairshare.resource_group.is_some() || args.fairshare.auto_tree.is_some() {
            return Err(Failure::usage(
                "--resource-group and --auto-tree are PBS fairshare; Slurm's multifactor \
                 priority (--slurm-conf) uses --share-tree, else the trace's accounts and users",
            ));
        }
        if args.record.is_some() {
            return Err(Failure::usage(
                "--record: a recording cannot replay Slurm's multifactor priority yet; give a \
                 --formula to record",
            ));
        }
    } else if sources.is_empty() {
        explained.add(
            "job_sort_formula",
            "none (first come, first served)",
            &Origin::Default,
        );
    }
    if multifactor.is_none() && (args.share_tree.is_some() || !args.qos.is_empty()) {
        return Err(Failure::usage(
            "--share-tree and --qos are for Slurm's multifactor priority: a --slurm-conf with \
             PriorityType=priority/multifactor and no --formula",
        ));
    }
    let threshold = settings::threshold(args.threshold.map(|t| t.value()), site.as_ref())?;
    match &threshold {
        Some(t) => explained.add_setting("job_sort_formula_threshold", t),
        None => explained.add("job_sort_formula_threshold", "none", &Origin::Default),
    }
    let mut queue_priorities = match &site {
        Some(site) => site.queue_priorities().map_err(Failure::invalid)?,
        None => Default::default(),
    };
    // The flags' priorities are the queues' too (the `queue_priority` keyword).
    for (q, p) in &args.queue_order.queue_priorities {
        let flag = Origin::Flag("--queue-priority".into());
        queue_priorities.insert(q.clone(), Setting::new(*p as f64, flag));
    }
    let queue_order = args
        .queue_order
        .resolve(site.as_ref(), slurm.as_ref(), &mut explained)?;
    for (q, p) in &queue_priorities {
        explained.add(&format!("queue {q} Priority"), p.value, &p.origin);
    }
    if let Some(sc) = site.as_ref().and_then(|s| s.sched_config.as_ref()) {
        explain_unsimulated(sc, &mut explained);
    }
    if let Some(conf) = &slurm {
        explain_unsimulated_slurm(conf, multifactor.as_ref().map(|(_, d)| d), &mut explained);
    }
    let records = match &args.record {
        Some(p) => Some(record_paths(p, formulas.len().max(1))?),
        None => None,
    };
    let (mut w, _) = load_trace(&trace, &trace_options(args.lenient, &args.sacct))?;
    if let Some(n) = args.first {
        w.truncate(n);
    }
    apply_queue_priorities(&mut w, &queue_priorities);
    if let (Some(cfg), Some(sc)) = (
        &fairshare,
        site.as_ref().and_then(|s| s.sched_config.as_ref()),
    ) && sc.never_runs_zero_shares()
    {
        drop_zero_share_jobs(&mut w, cfg).map_err(Failure::invalid)?;
    }
    // slurm.conf's nodes win over the trace's size; both flags win over slurm.conf. Nodes
    // of different sizes are node types.
    let mut machine_from = trace.name();
    let mut machine = match &args.machine_file {
        Some(path) => Some(Machine::read(path).map_err(Failure::invalid)?),
        None => None,
    };
    if let Some(conf) = &slurm
        && (args.machine.nodes.is_none() || args.machine.cores.is_none())
    {
        match conf.machine() {
            Ok(Some(m)) => {
                w.machine = jobsort::sim::workload::MachineHint {
                    nodes: Some(m.nodes),
                    cores: Some(m.cpus),
                };
                w.machine_derived = None;
                machine_from = m.at.to_string();
            }
            Ok(None) => {}
            Err(_) => {
                // Nodes of several sizes, or with GRES or consumable memory: node types.
                machine = conf.node_types().map_err(Failure::invalid)?;
                if let Some(first) = conf.nodes.first() {
                    machine_from = first.at.to_string();
                }
            }
        }
    }
    // A PBS site's nodes (`qmgr -c 'print node @default'` in --qmgr): their
    // resources_available, when no flag and no slurm.conf gives the machine.
    if machine.is_none()
        && slurm.is_none()
        && args.machine.nodes.is_none()
        && args.machine.cores.is_none()
        && let Some(q) = site.as_ref().and_then(|s| s.qmgr.as_ref())
        && let Some(m) = q.machine().map_err(Failure::invalid)?
    {
        let origin = &q.nodes[0].origin;
        explained.add(
            "machine",
            format!(
                "{} nodes, {} node type{} (resources_available)",
                m.nodes(),
                m.types().len(),
                if m.types().len() == 1 { "" } else { "s" }
            ),
            origin,
        );
        machine_from = origin.to_string();
        machine = Some(m);
    }
    if let Some(m) = &machine {
        let cores = m.types().iter().map(|t| t.amounts[0]).max().unwrap_or(0);
        w.machine = jobsort::sim::workload::MachineHint {
            nodes: Some(m.nodes()),
            cores: u32::try_from(cores).ok(),
        };
        w.machine_derived = None;
    }
    let (nodes, cores) = args.machine.resolve(w.machine, &machine_from)?;
    if args.mem.is_some() || args.gpus.is_some() {
        let mut m = machine.unwrap_or_else(|| Machine::uniform(nodes, cores));
        if let Some(kb) = args.mem {
            m = m.with_per_node(MEM, kb);
        }
        if let Some(g) = args.gpus {
            m = m.with_per_node(NGPUS, g);
        }
        machine = Some(m);
    }
    if args.machine.nodes.is_some() && args.machine.cores.is_some() {
        w.machine_derived = None;
    }
    if args.explain_config {
        let from = |flag: bool, hint: bool| match (flag, hint) {
            (true, _) => "--nodes/--cores".to_string(),
            (false, true) => machine_from.clone(),
            (false, false) => "default".to_string(),
        };
        explained.add_row(
            "nodes",
            nodes,
            from(args.machine.nodes.is_some(), w.machine.nodes.is_some()),
        );
        explained.add_row(
            "cores per node",
            cores,
            from(args.machine.cores.is_some(), w.machine.cores.is_some()),
        );
        explained.write(out)?;
        out.flush()?;
        std::mem::forget(w); // as at the end of a run: the process ends here
        return Ok(ExitCode::SUCCESS);
    }
    if w.jobs.is_empty() {
        warn(&format!("{}: no jobs to simulate", trace.name()));
    }
    // Memory is placed wherever the machine has memory (one rule: `workload::shape`).
    if let Some(m) = &machine {
        jobsort::sim::workload::place_memory(&mut w.jobs, m);
    }
    match &machine {
        Some(m) => drop_unfitting(&mut w, &Cluster::on_machine(Arc::new(m.clone()))),
        None => drop_oversized(&mut w, nodes, cores),
    };
    if args.fidelity && !w.jobs.is_empty() && w.jobs.iter().all(|j| j.recorded_start().is_none()) {
        return Err(Failure::invalid(format!(
            "{}: no job has a recorded start (an SWF wait, a JSON job's `start`, a log's start \
             record): --fidelity \
             has no schedule to compare with",
            trace.name()
        )));
    }
    if args.fidelity
        && let Some(what) = recorded_overfill(&w, &trace.name(), nodes, cores)
    {
        warn(&format!(
            "{what}: the comparison is with a schedule this cluster could not have run"
        ));
    }
    let limits = match &args.limits {
        None => None,
        Some(path) => Some(LimitsSpec {
            name: path.name(),
            text: path.read_text()?,
            reject_unknown_users: args.reject_unknown_users,
        }),
    };
    let config = SimConfig {
        policy: policy.value,
        nodes,
        cores,
        threshold: threshold.map(|t| t.value),
        fairshare,
        limits,
        queue_order: in_effect(queue_order, &w.jobs),
    };
    // Once for every formula: a bad tree or limits file is reported before any run.
    let mut setup = Setup::on_machine(&config, &w.jobs, machine).map_err(Failure::invalid)?;
    if let Some((m, decay)) = multifactor {
        let slurm = slurm_priority(m, decay, &args, &w.jobs)?;
        setup = setup.with_slurm_priority(slurm).map_err(Failure::invalid)?;
    }
    if let Some(fs) = config.fairshare.as_ref().filter(|f| f.auto_tree.is_none()) {
        let file = match &args.fairshare.resource_group {
            Some(path) => path.name(),
            None => site
                .as_ref()
                .and_then(|s| s.resource_group.as_ref())
                .map_or_else(String::new, |(f, _)| f.clone()),
        };
        warn_unmatched_tree(&setup, &file, fs.entity, &w.jobs);
    }
    let specs: Vec<Option<&CompiledFormula>> = if formulas.is_empty() {
        vec![None]
    } else {
        formulas.iter().map(Some).collect()
    };
    let bars = std::io::stderr()
        .is_terminal()
        .then(indicatif::MultiProgress::new);
    let run_one = |(k, f): (usize, &Option<&CompiledFormula>)| {
        let record = records.as_ref().map(|r| r[k].as_path());
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
            record,
            record_queue: args.record_queue,
            series: args.plot.is_some(),
            progress: Some(&cb),
            ..RunOptions::default()
        };
        let r = simulate_setup(
            &w,
            &setup,
            f.map(|f| f as &dyn jobsort::sim::Priority),
            &opts,
        );
        if let Some(b) = bar {
            b.finish();
        }
        r
    };
    // Several formulas run side by side; one runs here (no thread pool to start for it).
    let results: Vec<Result<RunResult, RunError>> = if specs.len() > 1 {
        specs.par_iter().enumerate().map(run_one).collect()
    } else {
        specs.iter().enumerate().map(run_one).collect()
    };
    let to_stdout = args.record.as_deref() == Some(Path::new("-"));
    let runs = results
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| match e {
            // A recording on stdout whose reader closed the pipe (`--record - | head`) ends
            // the run as a closed stdout does: quietly.
            RunError::Io {
                kind: std::io::ErrorKind::BrokenPipe,
                ..
            } if to_stdout => Failure::Output(std::io::ErrorKind::BrokenPipe.into()),
            e => Failure::invalid(e.to_string()),
        })?;
    if to_stdout {
        note("recording written to stdout (the report follows on stderr)");
    } else if let Some(records) = &records {
        for p in records {
            note(&format!("recording written to {}", p.display()));
        }
    }
    let changes = {
        let waits: Vec<Vec<Option<f64>>> = runs
            .iter()
            .map(|r| metrics::waits(&w.jobs, &r.outcome.start))
            .collect();
        let (user_of, users) = metrics::users(&w.jobs);
        let (queue_of, queues) = metrics::queues(&w.jobs);
        WaitChanges::new(&waits, (&user_of, &users), (&queue_of, &queues))
    };
    if let Some((p, csv)) = per_job {
        let bytes = per_job_bytes(&w, &runs, csv)?;
        write_atomic(p, &bytes)
            .map_err(|e| Failure::invalid(format!("{}: cannot write: {e}", p.display())))?;
        note(&format!(
            "each job's start and wait written to {}",
            p.display()
        ));
    }
    if let Some((p, png)) = plot {
        let pr: Vec<PlotRun<'_>> = runs
            .iter()
            .enumerate()
            .map(|(k, r)| PlotRun {
                label: label(r),
                result: r,
                wait_change: k
                    .checked_sub(1)
                    .and_then(|k| changes.users.get(k))
                    .map(Vec::as_slice),
            })
            .collect();
        let svg = render_svg(&pr, &w.jobs, args.fidelity)
            .map_err(|e| Failure::invalid(format!("plot: {e}")))?;
        let bytes = if png {
            render_png(&svg).map_err(|e| Failure::invalid(format!("plot: {e}")))?
        } else {
            svg.into_bytes()
        };
        // A regular file is replaced atomically (no backup); a pipe or FIFO is a stream.
        write_atomic(p, &bytes)
            .map_err(|e| Failure::invalid(format!("{}: cannot write: {e}", p.display())))?;
        note(&format!("plot written to {}", p.display()));
    }
    let mut stderr = std::io::stderr();
    let report: &mut Out = if to_stdout { &mut stderr } else { out };
    let fidelity: Vec<Fidelity> = match args.fidelity {
        true => runs
            .iter()
            .map(|r| fidelity::compare(&w.jobs, &r.outcome.start, r.outcome.capacity, LARGEST))
            .collect(),
        false => vec![],
    };
    match args.format {
        ReportFormat::Json => {
            let mut doc = json_report(&w, (nodes, cores, setup.machine()), &runs);
            if args.list_dropped {
                doc["trace"]["dropped_jobs"] = dropped_json(&w.report);
                if w.report.dropped_unlisted > 0 {
                    doc["trace"]["dropped_unlisted"] = w.report.dropped_unlisted.into();
                }
            }
            for (run, (users, queues)) in doc["runs"]
                .as_array_mut()
                .into_iter()
                .flatten()
                .skip(1)
                .zip(
                    changes.users.iter().zip(
                        changes
                            .queues
                            .iter()
                            .map(Some)
                            .chain(std::iter::repeat(None)),
                    ),
                )
            {
                run["wait_change_by_user"] = serde_json::json!(users);
                if let Some(q) = queues {
                    run["wait_change_by_queue"] = serde_json::json!(q);
                }
            }
            for (run, f) in doc["runs"]
                .as_array_mut()
                .into_iter()
                .flatten()
                .zip(&fidelity)
            {
                run["fidelity"] = serde_json::to_value(f).map_err(std::io::Error::other)?;
            }
            write_json(report, &doc, true)?
        }
        ReportFormat::Table => {
            let listed = args.list_dropped.then_some(&w.report);
            let cluster = (nodes, cores, setup.machine());
            write_table(report, &w, cluster, listed, &runs, &changes)?;
            if !fidelity.is_empty() {
                write_fidelity(report, &runs, &fidelity)?;
            }
        }
    }
    report.flush()?;
    // The process ends here: the jobs, the setup and the runs' per-job vectors go back to
    // the system with it, not one job (five shared names, an id, resources) at a time.
    std::mem::forget((w, setup, runs));
    Ok(ExitCode::SUCCESS)
}

/// The `--format json` document: the trace and each run's counts, metrics and shares.
fn json_report(
    w: &workload::Workload,
    (nodes, cores, machine): (u32, u32, Option<&Machine>),
    runs: &[RunResult],
) -> serde_json::Value {
    let mut report = serde_json::json!({
        "trace": {
            "name": w.name,
            "sha256": w.sha256,
            "read": w.report.read,
            "kept": w.report.kept,
            "dropped": w.report.dropped,
            "walltime_from_runtime": w.report.walltime_from_runtime,
            "killed_at_walltime": w.report.killed_at_walltime,
            "zero_runtime": w.report.zero_runtime,
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
    if !w.report.records_skipped.is_empty() {
        report["trace"]["records_skipped"] = serde_json::json!(w.report.records_skipped);
    }
    if let Some(how) = &w.machine_derived {
        report["trace"]["machine_derived"] = how.as_str().into();
    }
    if let Some(m) = node_types(machine) {
        // `nodes` and `cores` above are the node count and the largest node's cores.
        report["trace"]["machine"] = m
            .types()
            .iter()
            .map(|t| {
                let resources: serde_json::Map<String, serde_json::Value> = m
                    .names()
                    .iter()
                    .zip(&t.amounts)
                    .map(|(r, a)| (r.clone(), (*a).into()))
                    .collect();
                serde_json::json!({"name": t.name, "count": t.count, "resources": resources})
            })
            .collect();
    }
    report
}

/// The machine when its node types say more than `nodes x cores` (several types, or
/// resources besides cores), for the table's first line and the JSON's `machine`.
fn node_types(machine: Option<&Machine>) -> Option<&Machine> {
    machine.filter(|m| m.types().len() > 1 || m.cores_only().is_none())
}

/// The jobs `--fidelity` lists per run.
const LARGEST: usize = 10;

/// `--fidelity` as text: a row per run, then each run's largest differences.
fn write_fidelity(out: &mut Out, runs: &[RunResult], fidelity: &[Fidelity]) -> std::io::Result<()> {
    let f0 = &fidelity[0];
    writeln!(
        out,
        "\nagainst the recorded schedule: {} jobs compared ({} with no recorded start, {} the \
         simulation never started)",
        f0.compared, f0.not_recorded, f0.not_simulated
    )?;
    if f0.recorded_span > 0 {
        let share = |s: i64| 100.0 * s as f64 / f0.recorded_span as f64;
        writeln!(
            out,
            "the recorded schedule, over its {:.1} days: no core busy while a job waited {:.1} h \
             ({:.2}%); the oldest waiting job fit in the free cores {:.1} h ({:.1}%). No \
             scheduler does the first, FCFS and EASY never the second: they are downtime, \
             reservations, holds, limits or node pools the trace does not record",
            f0.recorded_span as f64 / 86400.0,
            f0.recorded_idle_waiting as f64 / 3600.0,
            share(f0.recorded_idle_waiting),
            f0.recorded_head_fits as f64 / 3600.0,
            share(f0.recorded_head_fits)
        )?;
    }
    let width = label_width(runs);
    writeln!(
        out,
        "{:<width$}  {:>6}  {:>10}  {:>10}  {:>10}  {:>8}  {:>10}  {:>10}  {:>10}  {:>8}",
        "formula",
        "policy",
        "start_err",
        "median",
        "p95",
        "within_1m",
        "bias",
        "wait_sim",
        "wait_rec",
        "wait_err"
    )?;
    for (r, f) in runs.iter().zip(fidelity) {
        let wait_err = match f.mean_wait_error {
            Some(e) => format!("{:+.1}%", 100.0 * e),
            None => "-".into(),
        };
        writeln!(
            out,
            "{:<width$}  {:>6}  {:>10.1}  {:>10.1}  {:>10.1}  {:>8.1}%  {:>+10.1}  {:>10.1}  {:>10.1}  {:>8}",
            clip(&label(r), width),
            r.config.policy.name(),
            f.mean_abs_error,
            f.median_abs_error,
            f.p95_abs_error,
            100.0 * f.within_minute,
            f.mean_error,
            f.mean_wait_simulated,
            f.mean_wait_recorded,
            wait_err
        )?;
    }
    writeln!(
        out,
        "(start_err, median, p95: |simulated - recorded start| in seconds; bias: their mean \
         signed difference, negative when the simulation starts jobs early; waits over the \
         compared jobs)"
    )?;
    for (r, f) in runs.iter().zip(fidelity) {
        if f.largest.is_empty() {
            continue;
        }
        writeln!(
            out,
            "\nlargest differences, {} ({}):",
            label(r),
            r.config.policy.name()
        )?;
        writeln!(
            out,
            "{:>12}  {:>12}  {:>6}  {:>12}  {:>10}  {:>10}  {:>10}",
            "job", "user", "cores", "submit", "wait_rec", "wait_sim", "diff"
        )?;
        for d in &f.largest {
            writeln!(
                out,
                "{:>12}  {:>12}  {:>6}  {:>12}  {:>10}  {:>10}  {:>+10}",
                clip(&d.id, 12),
                clip(&d.user, 12),
                d.cores,
                d.submit,
                d.recorded_wait,
                d.simulated_wait,
                d.error
            )?;
        }
    }
    Ok(())
}

/// The width of the formula column: the longest label, 8 to 48 characters.
fn label_width(runs: &[RunResult]) -> usize {
    runs.iter()
        .map(|r| label(r).len())
        .max()
        .unwrap_or(8)
        .clamp(8, 48)
}

fn label(r: &RunResult) -> String {
    r.formula.clone().unwrap_or_else(|| "(fcfs)".into())
}

/// The table, after the trace's line with the cluster: `nodes x cores`, or a multi-resource
/// machine's node types (`machine`, when the run places on one).
fn write_table(
    out: &mut Out,
    w: &workload::Workload,
    (nodes, cores, machine): (u32, u32, Option<&Machine>),
    list_dropped: Option<&workload::LoadReport>,
    runs: &[RunResult],
    changes: &WaitChanges,
) -> std::io::Result<()> {
    let cluster = match node_types(machine) {
        Some(m) => {
            let types: Vec<String> = m
                .types()
                .iter()
                .map(|t| format!("{} x ({})", t.count, m.resources_text(t)))
                .collect();
            format!("machine {} nodes: {}", m.nodes(), types.join(" + "))
        }
        None => format!("cluster {nodes} nodes x {cores} cores"),
    };
    writeln!(out, "{}; {cluster}", load_line(w))?;
    writeln!(
        out,
        "requested time missing (run time used): {}; killed at requested time: {}",
        w.report.walltime_from_runtime, w.report.killed_at_walltime
    )?;
    if let Some(how) = &w.machine_derived {
        writeln!(out, "cluster size: {how}")?;
    }
    if let Some(r) = list_dropped {
        write!(out, "{}", dropped_table(r))?;
    }
    writeln!(out)?;
    let width = label_width(runs);
    writeln!(
        out,
        "{:<width$}  {:>6}  {:>10}  {:>10}  {:>10}  {:>9}  {:>9}  {:>6}  {:>10}  {:>6}  {:>9}",
        "formula",
        "policy",
        "mean_wait",
        "median",
        "p95_wait",
        "mean_bsld",
        "p95_bsld",
        "util",
        "makespan",
        "jain",
        "jain_bsld"
    )?;
    for r in runs {
        let m = &r.metrics;
        let l = clip(&label(r), width);
        writeln!(
            out,
            "{:<width$}  {:>6}  {:>10.1}  {:>10.1}  {:>10.1}  {:>9.2}  {:>9.2}  {:>6.3}  {:>10}  {:>6.3}  {:>9.3}",
            l,
            r.config.policy.name(),
            m.mean_wait,
            m.median_wait,
            m.p95_wait,
            m.mean_bsld,
            m.p95_bsld,
            m.utilization,
            m.makespan,
            m.jain_user_wait,
            m.jain_user_bsld
        )?;
    }
    for r in runs {
        if r.never_started > 0 || r.outcome.eval_errors > 0 {
            writeln!(
                out,
                "{}: {} jobs never started, {} formula evaluation errors (value taken as 0)",
                label(r),
                r.never_started,
                r.outcome.eval_errors
            )?;
        }
    }
    writeln!(
        out,
        "(waits and makespan in seconds; bounded slowdown tau = 10 s; percentiles by linear interpolation;\n \
         jain: how alike the users' mean waits are, 1 = alike (fairshare makes heavy users wait, so it \
         falls as fairshare's weight grows); jain_bsld: the same over the users' mean bounded slowdowns)"
    )?;
    let labels: Vec<String> = runs.iter().map(label).collect();
    super::output::write_wait_changes(out, changes, &labels)
}

/// A `--mem` value: a PBS size, in KB (past `u64::MAX` KB an error, not that maximum).
fn size_arg(s: &str) -> Result<u64, String> {
    jobsort::jobs::units::parse_size_kb(s)
}
