//! The queue of a snapshot as `why`, `forecast` and `rank --snapshot` see it: the snapshot
//! loaded ([`load`]), its waiting jobs in the site's priority order with each one's value and
//! terms ([`order`]), the plan forward (`jobsort::forecast`), and the runtime model from the
//! site's history.
//!
//! The order is `rank`'s, run on the snapshot's own job capture and configuration (one
//! definition of the site's priority): PBS's formula (the snapshot's `qmgr.txt` /
//! `sched_config`, or `--formula`) with its terms; Slurm's and Flux's priority as the capture
//! shows it, with sprio's factors when the folder holds a multifactor slurm.conf; a formula
//! given with `--formula` orders every scheduler's queue.

use super::output::Out;
use super::report::{Failure, warn};
use jobsort::forecast::{self, Forecast, KnownRuntimes, RuntimeModel};
use jobsort::model::policy::Policy;
use jobsort::model::snapshot::{Scheduler, Snapshot};
use jobsort::sim::snapshot::{LoadedSnapshot, load_snapshot};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The flags `why` and `forecast` share.
#[derive(clap::Args, Debug)]
pub struct QueueArgs {
    /// The snapshot folder (contrib/capture/pbs.sh, slurm.sh or flux.sh make one).
    #[arg(long, value_name = "DIR")]
    pub snapshot: PathBuf,
    /// Order the queue by this formula instead of the site's priority (PBS keywords; with a
    /// Slurm or Flux snapshot, that scheduler's catalog).
    #[arg(long, value_name = "FORMULA", allow_hyphen_values = true)]
    pub formula: Option<String>,
    /// The site's history (PBS accounting logs, a sacct dump, a Flux job list, SWF): a second
    /// forecast with run times learned from it (each user's median share of the walltime).
    #[arg(long, value_name = "FILE", value_parser = crate::cli::input::path_or_stdin)]
    pub history: Option<PathBuf>,
    /// The dispatch policy to plan with instead of the site's (strict, easy, fill,
    /// conservative, slurm or backfill:N).
    #[arg(long, value_name = "POLICY", value_parser = policy_arg)]
    pub policy: Option<Policy>,
    /// Refuse a snapshot whose parts disagree instead of counting the disagreements.
    #[arg(long)]
    pub strict: bool,
    /// Each job's run time, one `id,seconds` line per job (running or waiting; its real or
    /// expected run time): the forecast's jobs end then instead of at their walltimes (a job
    /// the file does not list runs its walltime). The scheduler still plans with walltimes.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "history",
        value_parser = crate::cli::input::path_or_stdin
    )]
    pub runtimes: Option<PathBuf>,
}

fn policy_arg(s: &str) -> Result<Policy, String> {
    Policy::parse(s).ok_or_else(|| format!("`{s}` is not a policy ({})", Policy::NAMES))
}

/// One waiting job's priority as the order has it.
#[derive(Debug, Clone, Default)]
pub struct Priority {
    /// The value the order sorts by (the formula's; Slurm's and Flux's own).
    pub value: Option<f64>,
    /// Its terms, named (the formula's top-level terms, or sprio's factors), as text.
    pub terms: Vec<(String, String)>,
    /// jobsort's own value when the order is the scheduler's (Slurm multifactor): to compare.
    pub computed: Option<f64>,
}

/// The queue, planned.
pub struct Queue {
    pub loaded: LoadedSnapshot,
    /// Indices into the snapshot's pending jobs, in priority order.
    pub order: Vec<usize>,
    /// By pending index.
    pub priority: Vec<Priority>,
    /// What ordered it, for the reader.
    pub ordered_by: String,
    pub forecast: Forecast,
    pub model: Option<RuntimeModel>,
    pub model_fit: Option<forecast::Fit>,
    /// What the first forecast assumes of run times, in words.
    pub assumption: String,
}

/// The first forecast's assumption without `--runtimes`.
pub const FULL_WALLTIME: &str = "running jobs use their full walltime and nothing new arrives";

/// One job as `rank --format json` gives it: id, value, terms (name, value as text).
type RankedRow = (String, Option<f64>, Vec<(String, String)>);

/// Run `rank` on the snapshot's jobs with `extra` flags and read its JSON: (id, value,
/// terms) in rank order.
fn rank_json(extra: &[String]) -> Result<Vec<RankedRow>, Failure> {
    use clap::Parser;
    #[derive(clap::Parser)]
    struct Wrap {
        #[command(flatten)]
        args: super::rank::Args,
    }
    let mut argv = vec![
        "rank".to_string(),
        "--explain".into(),
        "--format".into(),
        "json".into(),
    ];
    argv.extend(extra.iter().cloned());
    let wrap = Wrap::try_parse_from(&argv).map_err(|e| Failure::usage(e.to_string().trim()))?;
    let mut buf: Vec<u8> = Vec::new();
    super::rank::run(wrap.args, &mut buf as &mut Out)?;
    let doc: serde_json::Value = serde_json::from_slice(&buf)
        .map_err(|e| Failure::invalid(format!("rank's output is not JSON: {e}")))?;
    let text = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "error".into(),
        other => other.to_string(),
    };
    Ok(doc["order"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|r| {
                    let terms = r["terms"]
                        .as_array()
                        .map(|t| {
                            t.iter()
                                .map(|t| (text(&t["term"]), text(&t["value"])))
                                .collect()
                        })
                        .unwrap_or_default();
                    (text(&r["id"]), r["value"].as_f64(), terms)
                })
                .collect()
        })
        .unwrap_or_default())
}

fn file_in(dir: &Path, name: &str) -> Option<String> {
    let p = dir.join(name);
    p.is_file().then(|| p.display().to_string())
}

impl QueueArgs {
    /// Load, order and plan.
    pub fn load(&self) -> Result<Queue, Failure> {
        self.load_for(None)
    }

    /// Load, order and plan until the waiting jobs `ids` have their answers (every job:
    /// `None`); an id the snapshot does not hold waiting is left to the caller to report.
    pub fn load_for(&self, ids: Option<&[String]>) -> Result<Queue, Failure> {
        let loaded = load(&self.snapshot, self.strict)?;
        let Ordered {
            order,
            priority,
            ordered_by,
        } = order(&loaded, &self.snapshot, self.formula.as_deref())?;
        let (model, model_fit) = match &self.history {
            Some(path) => {
                let w = jobsort::workload::load_workload(path)
                    .map_err(|e| Failure::invalid(format!("--history: {e}")))?;
                let m = RuntimeModel::learn(&w);
                if m.jobs == 0 {
                    return Err(Failure::invalid(format!(
                        "--history {}: no finished job with a requested walltime to learn \
                         run times from",
                        path.display()
                    )));
                }
                let fit = m.fit(&w);
                (Some(m), Some(fit))
            }
            None => (None, None),
        };
        let only: Option<Vec<usize>> = ids.map(|ids| {
            ids.iter()
                .filter_map(|id| forecast::report::find_waiting(&loaded.snapshot, id).ok())
                .collect()
        });
        let (known, assumption) = match &self.runtimes {
            Some(path) => {
                let known = known_runtimes(path, &loaded.snapshot)?;
                let said = format!(
                    "jobs end when {} says ({} jobs; the others at their full walltime) and \
                     nothing new arrives",
                    path.display(),
                    known.by_id.len()
                );
                (Some(known), said)
            }
            None => (None, FULL_WALLTIME.to_string()),
        };
        let first: &dyn forecast::Runtimes = match &known {
            Some(k) => k,
            None => &forecast::FullWalltime,
        };
        let forecast = forecast::forecast_with(
            &loaded,
            &order,
            self.policy,
            first,
            model.as_ref(),
            only.as_deref(),
        )
        .map_err(Failure::invalid)?;
        Ok(Queue {
            loaded,
            order,
            priority,
            ordered_by,
            forecast,
            model,
            model_fit,
            assumption,
        })
    }
}

/// The run times of `--runtimes FILE` (`forecast::KnownRuntimes`), with a warning naming
/// the ids that name no job of `snap` (a misspelt id would otherwise run its walltime
/// unnoticed).
pub fn known_runtimes(path: &Path, snap: &Snapshot) -> Result<KnownRuntimes, Failure> {
    let known = KnownRuntimes::load(path).map_err(Failure::invalid)?;
    let unmatched = known.unmatched(snap);
    if !unmatched.is_empty() {
        warn(&format!(
            "{}: {} no job of the snapshot ({}{})",
            path.display(),
            if unmatched.len() == 1 {
                "1 id names".to_string()
            } else {
                format!("{} ids name", unmatched.len())
            },
            unmatched[..unmatched.len().min(3)].join(", "),
            if unmatched.len() > 3 { ", ..." } else { "" }
        ));
    }
    Ok(known)
}

/// The waiting jobs of a snapshot in the site's priority order.
pub struct Ordered {
    /// Indices into the snapshot's pending jobs, in priority order.
    pub order: Vec<usize>,
    /// By pending index.
    pub priority: Vec<Priority>,
    /// What ordered it, for the reader.
    pub ordered_by: String,
}

/// Load the snapshot folder `dir` as `why`, `forecast` and `rank --snapshot` do: an error
/// reading it is bad input (exit 1); each disagreement between its parts is a warning, or
/// with `strict` an error.
pub fn load(dir: &Path, strict: bool) -> Result<LoadedSnapshot, Failure> {
    let loaded = load_snapshot(dir, strict).map_err(Failure::invalid)?;
    for d in &loaded.disagreements {
        warn(&format!("{}: {d}", dir.display()));
    }
    Ok(loaded)
}

/// The waiting jobs of `loaded` (read from `dir`) in the site's priority order, with each
/// one's value and terms (see the module docs); `formula` orders by that formula instead.
/// The one order `why`, `forecast` and `rank --snapshot` show.
pub fn order(
    loaded: &LoadedSnapshot,
    dir: &Path,
    formula: Option<&str>,
) -> Result<Ordered, Failure> {
    let snap = &loaded.snapshot;
    let mut priority = vec![Priority::default(); snap.pending.len()];
    let index: HashMap<&str, usize> = snap
        .pending
        .iter()
        .enumerate()
        .map(|(i, j)| (j.id.as_str(), i))
        .collect();
    let mut flags: Vec<String> = Vec::new();
    let jobs_file = match snap.scheduler {
        Scheduler::Pbs => file_in(dir, jobsort::pbs::snapshot::QSTAT),
        Scheduler::Slurm => file_in(dir, jobsort::slurm::snapshot::SQUEUE),
        Scheduler::Flux => file_in(dir, jobsort::flux::snapshot::JOBS),
    };
    let (order, ordered_by) = match (&jobs_file, snap.scheduler) {
        (None, _) => (
            (0..snap.pending.len()).collect(),
            "capture order (the folder holds no job list)".to_string(),
        ),
        (Some(jobs), Scheduler::Pbs) => {
            flags.extend(["--jobs".into(), jobs.clone()]);
            for (flag, f) in [
                ("--qmgr", jobsort::pbs::snapshot::QMGR),
                ("--sched-config", jobsort::pbs::snapshot::SCHED_CONFIG),
            ] {
                if let Some(p) = file_in(dir, f) {
                    flags.extend([flag.to_string(), p]);
                }
            }
            // The fairshare tree, when the folder holds copies of the site's
            // sched_priv/resource_group (and usage): the formula's fairshare terms.
            if let Some(rg) = file_in(dir, jobsort::pbs::snapshot::RESOURCE_GROUP) {
                flags.extend(["--resource-group".into(), rg]);
                if let Some(u) = file_in(dir, jobsort::pbs::snapshot::USAGE) {
                    flags.extend(["--usage".into(), u]);
                }
            }
            if let Some(f) = formula {
                flags.extend(["--formula".into(), f.to_string()]);
            }
            let has_formula = formula.is_some()
                || match &loaded.config {
                    jobsort::sim::snapshot::SiteConfig::Pbs(site) => site.formula().is_some(),
                    _ => false,
                };
            if has_formula {
                let ranked = rank_json(&flags)?;
                for (id, value, terms) in &ranked {
                    if let Some(&i) = index.get(id.as_str()) {
                        priority[i].value = *value;
                        priority[i].terms = terms.clone();
                    }
                }
                let by = match formula {
                    Some(f) => format!("the formula `{f}`"),
                    None => "the site's job_sort_formula".to_string(),
                };
                (
                    forecast::order_of_ids(snap, ranked.iter().map(|r| r.0.as_str())),
                    by,
                )
            } else {
                // PBS without a job_sort_formula sorts by its job_sort_key, by default
                // none: submission order.
                let mut order: Vec<usize> = (0..snap.pending.len()).collect();
                order.sort_by_key(|&i| (snap.pending[i].submit.unwrap_or(i64::MAX), i));
                (order, forecast::pbs_submission_order("--formula"))
            }
        }
        (Some(jobs), sched) => {
            let name = if sched == Scheduler::Slurm {
                "slurm"
            } else {
                "flux"
            };
            if let (Some(f), Scheduler::Flux) = (formula, sched) {
                // rank reads a Flux job list as a history: the waiting jobs would all be
                // dropped and the capture's order shown as if the formula had ordered it.
                return Err(Failure::invalid(forecast::flux_formula_refusal(
                    Path::new(jobs),
                    &format!("the formula `{f}`"),
                )));
            }
            if let Some(f) = formula {
                flags.extend([
                    "--jobs".into(),
                    jobs.clone(),
                    "--scheduler".into(),
                    name.into(),
                    "--formula".into(),
                    f.to_string(),
                ]);
                let ranked = rank_json(&flags)?;
                for (id, value, terms) in &ranked {
                    if let Some(&i) = index.get(id.as_str()) {
                        priority[i].value = *value;
                        priority[i].terms = terms.clone();
                    }
                }
                (
                    forecast::order_of_ids(snap, ranked.iter().map(|r| r.0.as_str())),
                    format!("the formula `{f}`"),
                )
            } else {
                for (i, j) in snap.pending.iter().enumerate() {
                    priority[i].value = j.priority;
                }
                // sprio's factors from the folder's multifactor slurm.conf.
                let conf = file_in(dir, "slurm.conf");
                let multifactor = matches!(&loaded.config,
                        jobsort::sim::snapshot::SiteConfig::Slurm(Some(c)) if c.is_multifactor());
                if let (Some(conf), true) = (conf, multifactor) {
                    let f = [
                        "--jobs".to_string(),
                        jobs.clone(),
                        "--slurm-conf".into(),
                        conf,
                    ];
                    match rank_json(&f) {
                        Ok(ranked) => {
                            for (id, value, terms) in ranked {
                                if let Some(&i) = index.get(id.as_str())
                                    && priority[i].terms.is_empty()
                                {
                                    priority[i].terms = terms;
                                    priority[i].computed = value;
                                }
                            }
                        }
                        Err(Failure::Invalid(m) | Failure::Usage(m)) => {
                            warn(&format!("no factors: {m}"))
                        }
                        Err(e) => return Err(e),
                    }
                }
                match forecast::captured_order(snap) {
                    Some(o) => (
                        o,
                        format!("{}'s own priority, as captured", snap.scheduler.name()),
                    ),
                    None => {
                        let mut order: Vec<usize> = (0..snap.pending.len()).collect();
                        order.sort_by_key(|&i| (snap.pending[i].submit.unwrap_or(i64::MAX), i));
                        (
                            order,
                            "submission order (the capture shows no priority)".to_string(),
                        )
                    }
                }
            }
        }
    };
    Ok(Ordered {
        order,
        priority,
        ordered_by,
    })
}
