//! The binder for simulated jobs: where each formula input of a [`SimJob`] comes from, for the
//! scheduler and for replay alike (one meaning per input; `jobsort rank --jobs F.swf` binds the
//! same values for an SWF trace's jobs at submission, `tests/it/sim_inputs.rs` checks it).
//!
//! | input | value |
//! |---|---|
//! | `ncpus` | processors asked for ([`Request::total_cores`]) |
//! | `walltime` | requested time (s) |
//! | `mem` | requested memory (KB) |
//! | `nodect` | nodes asked for (0 for a `procs` request) |
//! | `eligible_time` | seconds queued so far (`t - submit`) |
//! | `queue_priority` | the job's `queue_priority` (0 unless a JSON job list gives it) |
//! | `job_priority` | 0 |
//! | `accrue_type` | 2 (eligible) |
//! | `fairshare_perc`, `fairshare_tree_usage`, `fairshare_factor` | the job's share-tree node (0 without fairshare) |
//! | any other resource | the job's resource of that name (0 when absent) |
//!
//! Ranked by Slurm's multifactor priority (`sim --slurm-conf`), the Slurm catalog's factors
//! (`age`, `fairshare`, `jobsize`, `partition`, `qos`, `assoc`, `site`, `nice`, `tres_*`)
//! are what slurmctld stored for the job ([`crate::sim::slurm_share`]).
//!
//! What PBS would give. `job_priority` is the job's `Priority` attribute (`qsub -p`), 0 when
//! unset; SWF has no priority field and a [`SimJob`] carries none, so it is 0. `accrue_type` is
//! the job's accrual state, OpenPBS `enum accrue_types` in `src/include/pbs_internal.h`:
//! `JOB_INITIAL = 0, JOB_INELIGIBLE, JOB_ELIGIBLE, JOB_RUNNING, JOB_EXIT`. Every job the
//! simulator ranks is queued and accruing eligible time (`eligible_time` counts from its submit),
//! so it is `JOB_ELIGIBLE` = 2. The simulator keeps no ineligible state: a job a limit holds is
//! still ranked and still accrues `eligible_time`.

use crate::catalog::{Catalog, Input, Keyword, ResourceType};
use crate::pbs::share::ShareKeywords;
use crate::slurm::multifactor::Factors;
use crate::workload::{Request, SimJob};

/// PBS `accrue_type` of a queued job accruing eligible time (`JOB_ELIGIBLE`).
const ACCRUE_ELIGIBLE: f64 = 2.0;

/// PBS `job_priority` of a job without a `Priority` attribute.
const NO_JOB_PRIORITY: f64 = 0.0;

/// Where a formula input comes from, resolved once per formula.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Source {
    Ncpus,
    Walltime,
    Mem,
    Nodect,
    QueuePriority,
    JobPriority,
    AccrueType,
    Resource(String),
    EligibleTime,
    Fairshare(FairshareKeyword),
    /// A factor of Slurm's multifactor priority, when the simulation ranks by it
    /// ([`crate::sim::slurm_share`]).
    Slurm(SlurmFactor),
}

/// A factor of Slurm's multifactor priority, a column of the Slurm catalog: age and
/// fairshare change while a job waits, the others are fixed at submit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SlurmFactor {
    Age,
    Fairshare,
    Assoc,
    JobSize,
    Partition,
    Qos,
    Site,
    Nice,
    /// The TRES of `PriorityWeightTRES` at this index.
    Tres(usize),
}

impl SlurmFactor {
    /// The factor `input` names, given the TRES columns of the configuration.
    pub(crate) fn of(input: &Input, tres_columns: &[String]) -> Option<SlurmFactor> {
        let Input::Resource { name, .. } = input else {
            return None;
        };
        Some(match name.as_str() {
            "age" => SlurmFactor::Age,
            "fairshare" => SlurmFactor::Fairshare,
            "assoc" => SlurmFactor::Assoc,
            "jobsize" => SlurmFactor::JobSize,
            "partition" => SlurmFactor::Partition,
            "qos" => SlurmFactor::Qos,
            "site" => SlurmFactor::Site,
            "nice" => SlurmFactor::Nice,
            other => SlurmFactor::Tres(tres_columns.iter().position(|c| c == other)?),
        })
    }

    /// The value of a factor fixed at submit, from the job's factors (`None` for age and
    /// fairshare).
    pub(crate) fn fixed(self, f: &Factors) -> Option<f64> {
        Some(match self {
            SlurmFactor::Age | SlurmFactor::Fairshare => return None,
            SlurmFactor::Assoc => f.assoc,
            SlurmFactor::JobSize => f.jobsize,
            SlurmFactor::Partition => f.partition,
            SlurmFactor::Qos => f.qos,
            SlurmFactor::Site => f.site as f64,
            SlurmFactor::Nice => f.nice as f64,
            SlurmFactor::Tres(i) => f.tres.get(i).copied().unwrap_or(0.0),
        })
    }
}

/// A keyword computed from the job's share-tree node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FairshareKeyword {
    Perc,
    TreeUsage,
    Factor,
}

impl FairshareKeyword {
    /// This keyword of a node's keywords.
    pub(crate) fn of(self, k: &ShareKeywords) -> f64 {
        match self {
            FairshareKeyword::Perc => k.perc,
            FairshareKeyword::TreeUsage => k.tree_usage,
            FairshareKeyword::Factor => k.factor,
        }
    }
}

impl Source {
    /// The source of `input`: a keyword, a resource a [`SimJob`] holds in a field, or another
    /// resource read by name.
    pub(crate) fn of(input: &Input) -> Source {
        match input {
            Input::Keyword(k) => match k {
                Keyword::EligibleTime => Source::EligibleTime,
                Keyword::QueuePriority => Source::QueuePriority,
                Keyword::JobPriority => Source::JobPriority,
                Keyword::AccrueType => Source::AccrueType,
                Keyword::FairsharePerc => Source::Fairshare(FairshareKeyword::Perc),
                Keyword::FairshareTreeUsage => Source::Fairshare(FairshareKeyword::TreeUsage),
                Keyword::FairshareFactor => Source::Fairshare(FairshareKeyword::Factor),
            },
            Input::Resource { name, .. } => match name.as_str() {
                "ncpus" => Source::Ncpus,
                "walltime" => Source::Walltime,
                "mem" => Source::Mem,
                "nodect" => Source::Nodect,
                _ => Source::Resource(name.clone()),
            },
        }
    }

    /// The source of `input` when the simulation ranks by Slurm's multifactor priority: a
    /// Slurm factor, else as [`Source::of`].
    pub(crate) fn of_slurm(input: &Input, tres_columns: &[String]) -> Source {
        SlurmFactor::of(input, tres_columns).map_or_else(|| Source::of(input), Source::Slurm)
    }

    /// Whether the value comes from the share tree.
    pub(crate) fn is_fairshare(&self) -> bool {
        matches!(self, Source::Fairshare(_))
    }

    /// The value, when it is the same for every job.
    pub(crate) fn constant(&self) -> Option<f64> {
        match self {
            Source::JobPriority => Some(NO_JOB_PRIORITY),
            Source::AccrueType => Some(ACCRUE_ELIGIBLE),
            _ => None,
        }
    }

    /// The job's value of an input that does not change while it waits; `None` for
    /// `eligible_time` and the fairshare keywords.
    pub(crate) fn fixed(&self, job: &SimJob) -> Option<f64> {
        Some(match self {
            Source::Ncpus => ncpus(&job.request),
            Source::Walltime => walltime(job.walltime),
            Source::Mem => job.mem,
            Source::Nodect => job.request.node_count() as f64,
            Source::QueuePriority => job.queue_priority(),
            Source::JobPriority | Source::AccrueType => return self.constant(),
            Source::Resource(name) => job.resources().get(name).copied().unwrap_or(0.0),
            Source::EligibleTime | Source::Fairshare(_) | Source::Slurm(_) => return None,
        })
    }

    /// The job's value at time `t`, given its node's fairshare keywords (`None` without a
    /// share tree: 0).
    pub(crate) fn value(&self, job: &SimJob, t: i64, share: Option<&ShareKeywords>) -> f64 {
        match self {
            Source::EligibleTime => eligible_time(t, job.submit),
            Source::Fairshare(k) => share.map_or(0.0, |s| k.of(s)),
            fixed => fixed.fixed(job).unwrap_or(0.0),
        }
    }
}

/// Every input the binder gives `job` at its submission, by job-table column: the resources a
/// job holds in its own fields, the keywords but the fairshare ones (those come from a tree),
/// `eligible_time` 0, and each of its other resources (`catalog` types them; one it does not
/// know reads as a float). A job file made from a trace holds these, so that `rank`/`eval
/// --jobs F.swf` bind what the simulator binds when the job arrives.
pub fn values_at_submit(job: &SimJob, catalog: &Catalog) -> Vec<(String, f64)> {
    let resource = |name: &str| {
        catalog.input(name).unwrap_or_else(|| Input::Resource {
            name: name.to_string(),
            ty: ResourceType::Float,
        })
    };
    let own = ["ncpus", "walltime", "mem", "nodect"].map(resource);
    let keywords = [
        Keyword::QueuePriority,
        Keyword::JobPriority,
        Keyword::AccrueType,
        Keyword::EligibleTime,
    ]
    .map(Input::Keyword);
    let others = job.resources().keys().map(|name| resource(name));
    own.into_iter()
        .chain(keywords)
        .chain(others)
        .map(|input| {
            let value = Source::of(&input).value(job, job.submit, None);
            (input.column().to_string(), value)
        })
        .collect()
}

/// `ncpus` of a request.
#[inline]
pub(crate) fn ncpus(request: &Request) -> f64 {
    request.total_cores() as f64
}

/// `walltime` of a requested time.
#[inline]
pub(crate) fn walltime(requested: i64) -> f64 {
    requested as f64
}

/// `eligible_time` at `t` of a job submitted at `submit`.
#[inline]
pub(crate) fn eligible_time(t: i64, submit: i64) -> f64 {
    (t - submit) as f64
}
