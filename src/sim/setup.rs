//! The setup of a simulation, built once from its settings.
//!
//! [`SimConfig`] is the specification: plain, serialisable data, recorded in a recording's
//! header. [`Setup::new`] checks it and builds, once, what a run needs at run time: the
//! fairshare tree with each job's node ([`UsageTree`]), the limits engine with the
//! associations of the workload's unlisted users ([`LimitState`]), the threshold and the
//! policy. `jobsort sim` builds one setup for all its formulas, and `replay --verify` and
//! reconciliation build theirs the same way from the recording; each simulator starts from a
//! copy of it.
//!
//! Errors are [`SetupError`]s: which setting is wrong and why, with the file and line when the
//! setting is a file's text.

use super::cluster::{Cluster, Machine};
use super::scheduler::SimConfig;
use crate::flux::limit::{LimitState, UnlistedUserError};
use crate::flux::limits::{LimitEngine, LimitError, LimitsConfig, LimitsFileError};
use crate::pbs::share::{AutoEntities, TreeError, UsageRes, UsageTree};
use crate::slurm::share::SlurmPriority;
use crate::workload::{Request, SimJob};
use std::sync::Arc;

/// The most nodes a simulation may have: 2^24, 100 times the largest machine built. The
/// cluster's state no longer grows with its nodes (`cluster.rs` keeps counts and runs of
/// equal nodes), but a recording lists every node a job takes, so the bound stays until the
/// recording format names node ranges.
pub const MAX_NODES: u32 = 1 << 24;

/// A simulation setting out of range: the setting and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{field}` {reason}")]
pub struct SettingError {
    /// The setting as the recording header names it (`decay_factor`, `decay_time`).
    pub field: &'static str,
    /// Why it is refused, with its value.
    pub reason: String,
}

/// Why a simulation cannot be set up.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SetupError {
    #[error("the cluster must have at least one node and one core (got {nodes} × {cores})")]
    EmptyCluster { nodes: u32, cores: u32 },
    #[error(
        "too many nodes to simulate ({nodes}; at most {MAX_NODES}): 100 times the largest \
         machine built"
    )]
    TooManyNodes { nodes: u32 },
    #[error("threshold NaN: every comparison with it is false")]
    NanThreshold,
    #[error("policy slurm: {0}")]
    SlurmBackfill(String),
    #[error("fairshare {0}")]
    Fairshare(SettingError),
    #[error(transparent)]
    Tree(#[from] TreeError),
    #[error("limits: {0}")]
    LimitsFile(LimitsFileError),
    #[error("limits: {file}: {source}")]
    Limits { file: String, source: LimitError },
    #[error("Slurm priority built for {slurm} jobs, the workload has {jobs}")]
    SlurmJobs { slurm: usize, jobs: usize },
    #[error("limits: {file}: {source}")]
    UnlistedUser {
        file: String,
        source: UnlistedUserError,
    },
}

/// The fairshare decay settings a simulation accepts: `fairshare_decay_factor` strictly
/// between 0 and 1 (a factor of 5 would grow usage at every decay), `fairshare_decay_time`
/// positive. The one rule: `jobsort sim` checks its `--decay-factor`/`--decay-time` with it,
/// a recording's header is read with it, and [`Setup::new`] applies it.
pub fn check_decay(decay_time: i64, decay_factor: f64) -> Result<(), SettingError> {
    if !(decay_factor > 0.0 && decay_factor < 1.0) {
        return Err(SettingError {
            field: "decay_factor",
            reason: format!("{decay_factor}: must be between 0 and 1"),
        });
    }
    if decay_time <= 0 {
        return Err(SettingError {
            field: "decay_time",
            reason: format!("{decay_time}: must be positive"),
        });
    }
    Ok(())
}

/// The cluster shapes a simulation accepts: at least one node and one core, at most
/// [`MAX_NODES`] nodes.
pub fn check_cluster(nodes: u32, cores: u32) -> Result<(), SetupError> {
    if nodes == 0 || cores == 0 {
        return Err(SetupError::EmptyCluster { nodes, cores });
    }
    if nodes > MAX_NODES {
        return Err(SetupError::TooManyNodes { nodes });
    }
    Ok(())
}

/// What a simulation of one workload under one [`SimConfig`] needs at run time, built once.
#[derive(Debug, Clone)]
pub struct Setup {
    config: SimConfig,
    /// The number of jobs it was built for.
    jobs: usize,
    /// The fairshare tree before the first round, and each job's node in it.
    share: Option<(UsageTree, Vec<u32>)>,
    /// The limits engine before the first submit.
    limits: Option<LimitState>,
    /// `fairshare_usage_res`, parsed (with fairshare).
    usage: UsageRes,
    /// Slurm's multifactor priority before the first round, when it ranks the jobs.
    slurm: Option<SlurmPriority>,
    /// The machine when it is more than `nodes × cores` ([`Setup::with_machine`]), or when a
    /// job asks for chunks (`Request::Select`) of a `nodes × cores` one.
    machine: Option<Arc<Machine>>,
}

impl Setup {
    /// Check `config` and build the run-time state for `jobs`: the fairshare tree (parsed or
    /// generated, each job's entity placed) and the limits engine (the file parsed, unlisted
    /// users given their associations).
    pub fn new(config: &SimConfig, jobs: &[SimJob]) -> Result<Setup, SetupError> {
        Setup::on_machine(config, jobs, None)
    }

    /// [`Setup::new`] on `machine` (node types with memory, GPUs, custom resources) instead
    /// of the settings' `nodes × cores`; the settings' `nodes` and `cores`
    /// become the machine's nodes and its largest node's cores (what the limits engine and
    /// a recording's header read). A machine of one node type with cores alone runs as a
    /// `nodes × cores` cluster does (by count, or by runs of equal nodes), unless a job asks
    /// for chunks. The jobs' memory is placed as their requests give it: on a machine with
    /// memory, give the jobs their memory chunks first
    /// ([`place_memory`](crate::workload::place_memory), the one rule; `jobsort sim`
    /// does), or only chunks that name `mem` hold memory.
    pub fn on_machine(
        config: &SimConfig,
        jobs: &[SimJob],
        machine: Option<Machine>,
    ) -> Result<Setup, SetupError> {
        let mut config = config.clone();
        if let Some(m) = &machine {
            let cores = m.types().iter().map(|t| t.amounts[0]).max().unwrap_or(0);
            config.nodes = m.nodes();
            config.cores = u32::try_from(cores).unwrap_or(u32::MAX);
        }
        check_cluster(config.nodes, config.cores)?;
        if config.threshold.is_some_and(f64::is_nan) {
            return Err(SetupError::NanThreshold);
        }
        if let super::Policy::Slurm(bf) = config.policy {
            bf.check().map_err(SetupError::SlurmBackfill)?;
        }
        let mut usage = UsageRes::default();
        let share = match &mut config.fairshare {
            Some(fs) => {
                check_decay(fs.decay_time, fs.decay_factor).map_err(SetupError::Fairshare)?;
                usage = fs.usage().map_err(|reason| {
                    SetupError::Fairshare(SettingError {
                        field: "usage_res",
                        reason,
                    })
                })?;
                // The auto tree's entities, recorded so that every prefix of a recording
                // rebuilds this tree (a prefix's jobs alone would give a smaller one).
                if let (Some(auto), None, None) =
                    (fs.auto_tree, &fs.resource_group, &fs.auto_entities)
                {
                    fs.auto_entities = Some(AutoEntities::of(auto, jobs));
                }
                Some(UsageTree::build(fs, jobs)?)
            }
            None => None,
        };
        let limits = match &config.limits {
            Some(spec) => {
                let file =
                    LimitsConfig::parse(&spec.name, &spec.text).map_err(SetupError::LimitsFile)?;
                let engine =
                    LimitEngine::from_config(&file).map_err(|source| SetupError::Limits {
                        file: spec.name.clone(),
                        source,
                    })?;
                let state = LimitState::new(engine, jobs, config.cores, spec.reject_unknown_users)
                    .map_err(|source| SetupError::UnlistedUser {
                        file: spec.name.clone(),
                        source,
                    })?;
                Some(state)
            }
            None => None,
        };
        // Chunks are placed by the multi-resource cluster, on the same nodes.
        let chunks = jobs.iter().any(|j| matches!(j.request, Request::Select(_)));
        let machine = match machine {
            Some(m) if chunks || m.cores_only().is_none() => Some(Arc::new(m)),
            _ if chunks => Some(Arc::new(Machine::uniform(config.nodes, config.cores))),
            _ => None,
        };
        Ok(Setup {
            config,
            jobs: jobs.len(),
            share,
            limits,
            usage,
            slurm: None,
            machine,
        })
    }

    /// Rank by Slurm's multifactor priority as it evolves in simulated time (`slurm`, built
    /// for the same jobs); the formula of the run is then `slurm`'s
    /// [`Multifactor::formula`](crate::slurm::multifactor::Multifactor::formula), or another
    /// over the Slurm catalog's factors.
    pub fn with_slurm_priority(mut self, slurm: SlurmPriority) -> Result<Setup, SetupError> {
        if slurm.fixed.len() != self.jobs || slurm.leaves.len() != self.jobs {
            return Err(SetupError::SlurmJobs {
                slurm: slurm.fixed.len(),
                jobs: self.jobs,
            });
        }
        self.slurm = Some(slurm);
        Ok(self)
    }

    /// The machine, when the run places on a multi-resource cluster.
    pub fn machine(&self) -> Option<&Machine> {
        self.machine.as_deref()
    }

    /// An idle cluster for a run: the multi-resource machine's, else `nodes × cores` kept by
    /// node.
    pub fn cluster(&self) -> Cluster {
        match &self.machine {
            Some(m) => Cluster::on_machine(m.clone()),
            None => Cluster::new(self.config.nodes, self.config.cores),
        }
    }

    /// The settings, as a recording's header records them: the settings given, with the auto
    /// tree's entities filled in.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// The number of jobs it was built for.
    pub fn jobs(&self) -> usize {
        self.jobs
    }

    /// What a running job adds to its entity's usage per second (`fairshare_usage_res`).
    pub fn usage(&self) -> &UsageRes {
        &self.usage
    }

    /// The fairshare tree before the first round, when fairshare is on.
    pub fn share_tree(&self) -> Option<&UsageTree> {
        self.share.as_ref().map(|(t, _)| t)
    }

    /// Each job's node in the fairshare tree (empty without fairshare).
    pub fn leaves(&self) -> &[u32] {
        self.share.as_ref().map_or(&[], |(_, l)| l)
    }

    /// The limits engine before the first submit, when limits are on.
    pub fn limits(&self) -> Option<&LimitState> {
        self.limits.as_ref()
    }

    /// Slurm's multifactor priority before the first round, when it ranks the jobs.
    pub fn slurm_priority(&self) -> Option<&SlurmPriority> {
        self.slurm.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flux::limit::LimitsSpec;
    use crate::pbs::share::{AutoTree, FairshareConfig};
    use crate::sim::scheduler::Policy;

    fn config() -> SimConfig {
        SimConfig::new(Policy::Easy, 2, 1)
    }

    /// Each wrong setting is refused with what and where: the cluster, the threshold, the
    /// decay, a `resource_group` line, a limits file line (a job without the entity the
    /// kind names: `share::tests`).
    #[test]
    fn setup_errors_say_which_setting_and_where() {
        let err = |c: SimConfig| Setup::new(&c, &[]).unwrap_err().to_string();
        assert_eq!(
            err(SimConfig {
                cores: 0,
                ..config()
            }),
            "the cluster must have at least one node and one core (got 2 × 0)"
        );
        assert!(
            err(SimConfig {
                nodes: u32::MAX,
                ..config()
            })
            .starts_with("too many nodes to simulate (4294967295; at most 16777216)")
        );
        assert_eq!(
            err(SimConfig {
                threshold: Some(f64::NAN),
                ..config()
            }),
            "threshold NaN: every comparison with it is false"
        );
        let fs = FairshareConfig::auto(AutoTree::User);
        let with = |fs: FairshareConfig| SimConfig {
            fairshare: Some(fs),
            ..config()
        };
        assert_eq!(
            err(with(FairshareConfig {
                decay_factor: 5.0,
                ..fs.clone()
            })),
            "fairshare `decay_factor` 5: must be between 0 and 1"
        );
        assert_eq!(
            err(with(FairshareConfig {
                auto_tree: None,
                resource_group: Some("a 1 root 1\na 2 root 1\n".into()),
                ..fs
            })),
            "fairshare tree: resource_group:2: entity a is not unique"
        );
        let e = err(SimConfig {
            limits: Some(LimitsSpec {
                name: "l.toml".into(),
                text: "[[association]]\nuser = 3\n".into(),
                reject_unknown_users: false,
            }),
            ..config()
        });
        assert!(e.starts_with("limits: l.toml"), "{e}");
    }
}
