//! Scheduler job inputs shared by `eval` and `rank` under `--scheduler slurm|flux`: loading
//! job files (and `squeue --json` output, detected by content) with the raw fields the
//! factors are computed from, and filling each job's factor columns.

use super::formula_args::SchedulerArgs;
use super::jobs_args::JobsArgs;
use super::report::{Failure, warn};
use jobsort::Catalog;
use jobsort::catalog::Scheduler;
use jobsort::fairshare::Algorithm;
use jobsort::fairshare::inputs::Fairshare;
use jobsort::flux::mf_priority::QueueFactorSource;
use jobsort::jobs::load::NotRanked;
use jobsort::jobs::{Job, JobSet};
use jobsort::slurm::assoc::AssocPriorities;
use jobsort::slurm::conf::SlurmConf;
use jobsort::slurm::jobs::{SqueueJobs, fill_factors, loading_catalog, parse_squeue_json};
use jobsort::slurm::multifactor::{Factors, Multifactor, not_modelled};
use std::collections::BTreeMap;

#[derive(clap::Args, Debug, Clone, Default)]
pub struct SlurmJobArgs {
    /// Slurm: a QOS and its priority (`sacctmgr show qos format=name,priority`), e.g.
    /// `--qos high=100`. The largest one normalises the qos factor; `squeue --json` jobs get
    /// their QOS's priority. Repeatable.
    #[arg(long = "qos", value_name = "NAME=PRIORITY", value_parser = qos_arg)]
    pub qos: Vec<(String, u32)>,
    /// Slurm: the associations' priorities, `sacctmgr show assoc -P
    /// format=cluster,account,user,partition,parentname,priority` output: each job's assoc
    /// factor is its association's (account, user and partition, else account and user)
    /// priority over the largest (raw under PriorityFlags=NO_NORMAL_ASSOC). A job's own
    /// `assoc` wins.
    #[arg(long, value_name = "FILE")]
    pub associations: Option<std::path::PathBuf>,
    /// Slurm: the time (Unix seconds) the age factor is computed at (default: now).
    #[arg(long, value_name = "SECONDS")]
    pub now: Option<i64>,
    /// flux: whose `queue_factor` a job's priority uses. `association` (default):
    /// flux-accounting's, the queue factor of the association's (user and bank's) last
    /// submitted job, which `mf_priority`'s `new_cb` stores on the association and every
    /// recomputed priority reads; `job`: the job's own.
    #[arg(long, value_enum, default_value = "association")]
    pub flux_queue_factor: FluxQueueFactor,
}

/// `--flux-queue-factor`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FluxQueueFactor {
    /// The queue factor of the association's last submitted job (flux-accounting).
    #[default]
    Association,
    /// The job's own queue factor.
    Job,
}

pub(super) fn qos_arg(s: &str) -> Result<(String, u32), String> {
    name_value(s, "a QOS priority (0..4294967295)")
}

/// `NAME=VALUE` (a flag's pair: `--qos high=100`, `--queue-priority q=5`): the name, not
/// empty, and the value as `T`, `what` naming it in the error.
pub(super) fn name_value<T: std::str::FromStr>(s: &str, what: &str) -> Result<(String, T), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}`: give NAME=N"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("`{s}`: the name is empty"));
    }
    let value = value
        .trim()
        .parse()
        .map_err(|_| format!("`{s}`: `{value}` is not {what}"))?;
    Ok((name.to_string(), value))
}

/// Jobs as loaded for `eval` and `rank`.
pub struct Loaded {
    pub jobs: JobSet,
    /// `squeue --json` jobs as read (a field a job does not give is not a 0 to the factors).
    pub rows: Option<Vec<Job>>,
    /// The jobs the scheduler would not sort, when the file gives states (and no `--all`).
    pub not_ranked: Option<Vec<NotRanked>>,
}

/// The multifactor configuration and each job's factors, for sprio-style output.
pub struct SlurmView {
    pub multifactor: Multifactor,
    pub factors: Vec<Factors>,
}

impl SlurmJobArgs {
    /// The time the age factor is computed at, and sprio's "not yet eligible" is judged at.
    fn now(&self) -> i64 {
        self.now.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64)
        })
    }

    /// Load the jobs: under `--scheduler slurm`, `squeue --json` output is read as such
    /// (the jobs sprio lists, unless `--all`) and job files know the raw fields; otherwise as
    /// `jobs` loads them.
    pub fn load(
        &self,
        scheduler_args: &SchedulerArgs,
        jobs: &JobsArgs,
        catalog: &Catalog,
        columns: &[&str],
    ) -> Result<Loaded, Failure> {
        let loaded = |(set, not_ranked)| Loaded {
            jobs: set,
            rows: None,
            not_ranked,
        };
        if catalog.scheduler() == Scheduler::Pbs {
            return jobs.load_sorted(catalog, Some(columns)).map(loaded);
        }
        if catalog.scheduler() == Scheduler::Slurm
            && let Some(path) = jobs.path()?.file()
        {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Failure::invalid(format!("{}: {e}", path.display())))?;
            if looks_like_squeue(&text) {
                let qos: BTreeMap<String, u32> = self.qos.iter().cloned().collect();
                // The rows are kept: a field a job does not give (a time limit of `null`:
                // the partition's) is not a 0 to the factors.
                let flags = scheduler_args
                    .slurm_conf()?
                    .map(|c| c.priority.flags)
                    .unwrap_or_default();
                let which = if jobs.all {
                    SqueueJobs::All
                } else {
                    SqueueJobs::Sprio {
                        now: self.now(),
                        accrue_always: flags.accrue_always,
                        calculate_running: flags.calculate_running,
                    }
                };
                let read = parse_squeue_json(&text, &jobs.path()?.name(), &qos, which)
                    .map_err(Failure::invalid)?;
                return Ok(Loaded {
                    jobs: read.jobs.iter().cloned().collect(),
                    rows: Some(read.jobs),
                    not_ranked: (!jobs.all).then_some(read.not_ranked),
                });
            }
        }
        if catalog.scheduler() != Scheduler::Slurm {
            // flux: its factors are columns as given (every column kept for them).
            return jobs.load_sorted(catalog, None).map(loaded);
        }
        let conf = scheduler_args.slurm_conf()?;
        let mut gres: Vec<&str> = conf
            .iter()
            .flat_map(|c| &c.nodes)
            .flat_map(|n| &n.gres)
            .map(|g| g.name.as_str())
            .collect();
        gres.sort_unstable();
        gres.dedup();
        // The factors are computed from the raw fields: every column is kept.
        jobs.load_sorted(&loading_catalog(catalog, gres), None)
            .map(loaded)
    }

    /// Fill the factor columns. Slurm with `--slurm-conf`: computed from each job's raw
    /// fields (given factor columns kept); flux: `fairshare` from the fairshare tree when the
    /// job has none: its association's (user and account as bank) value as flux-accounting
    /// stores it (six decimals), else the tree's `fairshare_factor`. Under Slurm a job with an account and a
    /// user takes the fairshare factor of its association (`account/user` in a tree read
    /// from sshare), as `_get_fairshare_priority` does, whatever `--entity` says.
    pub fn fill(
        &self,
        scheduler_args: &SchedulerArgs,
        set: &mut JobSet,
        rows: Option<Vec<Job>>,
        tree: Option<&Fairshare>,
    ) -> Result<Option<SlurmView>, Failure> {
        let scheduler = scheduler_args.scheduler();
        if scheduler == Scheduler::Pbs {
            return Ok(None);
        }
        let mut rows = match rows {
            // The rows as read, with the fairshare keywords the tree filled into the set.
            Some(mut rows) => {
                for name in ["fairshare_factor", "fairshare_perc", "fairshare_tree_usage"] {
                    if let Some(col) = set.table().column(name) {
                        for (row, &v) in rows.iter_mut().zip(col) {
                            row.values.entry(name.to_string()).or_insert(v);
                        }
                    }
                }
                rows
            }
            None => set.rows(),
        };
        let view = self.fill_rows(scheduler_args, &mut rows, tree);
        *set = rows.into_iter().collect();
        view
    }

    fn fill_rows(
        &self,
        scheduler_args: &SchedulerArgs,
        jobs: &mut [Job],
        tree: Option<&Fairshare>,
    ) -> Result<Option<SlurmView>, Failure> {
        let scheduler = scheduler_args.scheduler();
        let depth_oblivious_values;
        if scheduler == Scheduler::Slurm
            && let Some(Fairshare::Shares {
                tree,
                values,
                algorithm,
            }) = tree
        {
            // sshare prints DEPTH_OBLIVIOUS's values like classic ones (no LevelFS): under a
            // slurm.conf with the flag, a tree read as classic is computed as Slurm does then
            // (_depth_oblivious_set_usage_efctv).
            let depth_oblivious = scheduler_args
                .slurm_conf()?
                .is_some_and(|c| c.priority.flags.depth_oblivious);
            let values = if depth_oblivious && *algorithm == Algorithm::SlurmClassic {
                depth_oblivious_values = jobsort::fairshare::slurm::depth_oblivious(tree, 1.0);
                &depth_oblivious_values
            } else {
                values
            };
            for job in jobs.iter_mut() {
                if let (Some(a), Some(u)) = (&job.account, &job.user)
                    && let Some(i) = tree.find(&format!("{a}/{u}"))
                    && let Some(f) = values[i].fairshare_factor
                {
                    job.values.entry("fairshare".into()).or_insert(f);
                }
            }
        }
        // flux: the job's association (user and bank = account) as mf_priority stores it.
        if scheduler == Scheduler::Flux
            && let Some(fs) = tree
        {
            for job in jobs.iter_mut() {
                if let Some(user) = &job.user
                    && let Some(f) = fs.flux_fairshare(user, job.account.as_deref())
                {
                    job.values.entry("fairshare".into()).or_insert(f);
                }
            }
        }
        for job in jobs.iter_mut() {
            if let Some(f) = job.values.get("fairshare_factor").copied() {
                job.values.entry("fairshare".into()).or_insert(f);
            }
        }
        if scheduler == Scheduler::Flux {
            self.flux_queue_factors(jobs);
        }
        let Some(conf) = scheduler_args.slurm_conf()? else {
            return Ok(None);
        };
        if conf.priority.priority_type != "priority/multifactor" {
            warn(&format!(
                "the slurm.conf has PriorityType={}: slurmctld does not use these \
                         weights (priority/multifactor does)",
                conf.priority.priority_type
            ));
        }
        for w in not_modelled(&conf) {
            warn(&w);
        }
        self.assoc_factors(&conf, jobs)?;
        let jobs_max = jobs
            .iter()
            .filter_map(|j| j.values.get("qos_priority"))
            .fold(0.0f64, |m, &v| m.max(v));
        let given_max = self.qos.iter().map(|(_, p)| *p).max().unwrap_or(0);
        if conf.priority.weights.qos != 0 && self.qos.is_empty() && jobs_max > 0.0 {
            warn(
                "no --qos given: the qos factor is normalised by the largest \
                         qos_priority of these jobs, not of every QOS",
            );
        }
        let max_qos = given_max.max(jobs_max.min(f64::from(u32::MAX)) as u32);
        let multifactor = Multifactor::from_conf(&conf, max_qos);
        let factors = fill_factors(jobs, &multifactor, self.now());
        Ok(Some(SlurmView {
            multifactor,
            factors,
        }))
    }
}

impl SlurmJobArgs {
    /// Slurm: each job's `assoc` factor from `--associations` (a job's own kept); without it
    /// and with `PriorityWeightAssoc` set, a warning that the factor is 0.
    fn assoc_factors(&self, conf: &SlurmConf, jobs: &mut [Job]) -> Result<(), Failure> {
        let Some(path) = &self.associations else {
            if conf.priority.weights.assoc != 0
                && jobs.iter().any(|j| !j.values.contains_key("assoc"))
            {
                warn(
                    "PriorityWeightAssoc is set but no --associations (sacctmgr show assoc -P) \
                     is given: the assoc factor of every job without an `assoc` is 0",
                );
            }
            return Ok(());
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| Failure::invalid(format!("{}: {e}", path.display())))?;
        let assoc = AssocPriorities::parse(
            &text,
            &path.display().to_string(),
            conf.cluster_name.as_deref(),
        )
        .map_err(Failure::invalid)?;
        let no_normal = conf.priority.flags.no_normal_assoc;
        let mut missing = Vec::new();
        for job in jobs.iter_mut() {
            if job.values.contains_key("assoc") {
                continue;
            }
            let (Some(a), Some(u)) = (&job.account, &job.user) else {
                missing.push(job.id.clone());
                continue;
            };
            match assoc.factor(a, u, job.queue.as_deref(), no_normal) {
                Some(f) => {
                    job.values.insert("assoc".into(), f);
                }
                None => missing.push(job.id.clone()),
            }
        }
        if !missing.is_empty() {
            warn(&format!(
                "{}: no association for job(s) {} (account and user): their assoc factor is 0",
                path.display(),
                missing.join(", ")
            ));
        }
        Ok(())
    }

    /// flux: every job's `queue_factor` as `mf_priority` uses it (`fill_queue_factors`).
    fn flux_queue_factors(&self, jobs: &mut [Job]) {
        let source = match self.flux_queue_factor {
            FluxQueueFactor::Association => QueueFactorSource::AssociationLastJob,
            FluxQueueFactor::Job => QueueFactorSource::Job,
        };
        jobsort::flux::mf_priority::fill_queue_factors(jobs, source);
    }
}

/// `squeue --json` output: `{"meta": ..., "jobs": [{"job_id": ..., "job_state": ...}]}`.
fn looks_like_squeue(text: &str) -> bool {
    let head = text.trim_start();
    if !head.starts_with('{') {
        return false;
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(doc) => {
            doc.get("meta").is_some()
                && doc
                    .get("jobs")
                    .and_then(|j| j.as_array())
                    .is_some_and(|j| j.iter().all(|x| x.get("job_state").is_some()))
        }
        Err(_) => false,
    }
}
