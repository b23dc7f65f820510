//! The limit engine: associations, queues, jobs, counters, held lists and release passes.

use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use serde::Serialize;

use super::assoc::{
    AssocLimits, CheckContext, Counters, Dependency, Pending, QueueLimits, QueueUsage,
};
use super::config::{AssocConfig, LimitsConfig, Options, QueueConfig};
use super::error::LimitError;

/// A job as submitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobSpec {
    /// Unique job id.
    pub id: String,
    /// The submitting user.
    pub user: String,
    /// The bank; `None` uses the user's default bank.
    pub bank: Option<String>,
    /// The queue, if any.
    pub queue: Option<String>,
    /// Nodes (flux `nnodes`).
    pub nnodes: i64,
    /// Cores (flux `ncores`).
    pub ncores: i64,
}

/// The result of [`LimitEngine::submit`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SubmitOutcome {
    /// A hard limit rejected the job (flux's message). The job is recorded as inactive.
    Rejected(String),
    /// Soft limits hold the job in DEPEND with these dependencies, in flux's order; it is
    /// appended to its association's held list.
    Held(Vec<Dependency>),
    /// The job passed every limit and is in SCHED.
    Ready,
}

impl SubmitOutcome {
    /// The changes this outcome stands for (what the CLI prints for a submit).
    pub fn changes(&self, job: &str) -> Vec<Change> {
        match self {
            SubmitOutcome::Rejected(m) => vec![Change::Rejected {
                job: job.to_string(),
                rejected: m.clone(),
            }],
            SubmitOutcome::Held(deps) => deps
                .iter()
                .map(|d| Change::DependencyAdd {
                    job: job.to_string(),
                    dependency_add: *d,
                })
                .collect(),
            SubmitOutcome::Ready => vec![Change::State {
                job: job.to_string(),
                state: JobState::Sched,
            }],
        }
    }
}

/// A job's state as the limit plugin sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JobState {
    /// Held in DEPEND by at least one accounting dependency.
    Depend,
    /// Waiting for the scheduler (flux PRIORITY/SCHED).
    Sched,
    /// Running.
    Run,
    /// Ended, cancelled or rejected.
    Inactive,
}

/// One observable change, in the order it happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Change {
    /// A submit was rejected.
    Rejected {
        /// Job id.
        job: String,
        /// flux's message.
        rejected: String,
    },
    /// A dependency was added (at submit, or at release under `count_sched_in_resources`).
    DependencyAdd {
        /// Job id.
        job: String,
        /// The dependency.
        dependency_add: Dependency,
    },
    /// A dependency was removed in a release pass.
    DependencyRemove {
        /// Job id.
        job: String,
        /// The dependency.
        dependency_remove: Dependency,
    },
    /// A job changed state.
    State {
        /// Job id.
        job: String,
        /// The new state.
        state: JobState,
    },
}

impl Change {
    /// The job the change is about.
    pub fn job(&self) -> &str {
        match self {
            Change::Rejected { job, .. }
            | Change::DependencyAdd { job, .. }
            | Change::DependencyRemove { job, .. }
            | Change::State { job, .. } => job,
        }
    }

    /// The job this change moved into SCHED (released from DEPEND or newly submitted):
    /// what a scheduler adds to its queue.
    pub fn entered_sched(&self) -> Option<&str> {
        match self {
            Change::State {
                job,
                state: JobState::Sched,
            } => Some(job),
            _ => None,
        }
    }
}

/// A partial update of an association's limits: `None` keeps the value, `Some(-1)` resets
/// it to flux's default (as `flux account edit-user --X=-1`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AssocUpdate {
    /// New `max_running_jobs`.
    pub max_running_jobs: Option<i64>,
    /// New `max_active_jobs`.
    pub max_active_jobs: Option<i64>,
    /// New `max_nodes`.
    pub max_nodes: Option<i64>,
    /// New `max_cores`.
    pub max_cores: Option<i64>,
    /// New `max_sched_jobs`.
    pub max_sched_jobs: Option<i64>,
    /// New queue list.
    pub queues: Option<Vec<String>>,
    /// New active flag.
    pub active: Option<bool>,
}

/// A partial update of a queue's limits (`-1` resets to the default).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueUpdate {
    /// New priority.
    pub priority: Option<i64>,
    /// New `max_running_jobs`.
    pub max_running_jobs: Option<i64>,
    /// New `max_nodes_per_assoc`.
    pub max_nodes_per_assoc: Option<i64>,
    /// New `max_sched_jobs`.
    pub max_sched_jobs: Option<i64>,
    /// New `max_sched_nodes_per_assoc`.
    pub max_sched_nodes_per_assoc: Option<i64>,
    /// New `max_sched_cores_per_assoc`.
    pub max_sched_cores_per_assoc: Option<i64>,
}

fn apply(slot: &mut i64, new: Option<i64>, default: i64) {
    if let Some(v) = new {
        *slot = if v == -1 { default } else { v };
    }
}

/// An association with its limits, counters and held list.
#[derive(Clone, Debug)]
pub struct Association {
    /// User name.
    pub user: String,
    /// Bank name.
    pub bank: String,
    /// Numeric user id (flux `userid`; 65534 when unknown).
    pub userid: i64,
    /// Fairshare value (shown in the query only).
    pub fairshare: f64,
    /// Limits.
    pub limits: AssocLimits,
    /// Counters.
    pub counters: Counters,
    /// Usage per known queue (by queue index), created on first use as flux does.
    pub queue_usage: BTreeMap<usize, QueueUsage>,
    /// Held jobs in FIFO order.
    pub held: Vec<String>,
}

/// A queue known to the engine.
#[derive(Clone, Debug)]
pub struct Queue {
    /// Name.
    pub name: String,
    /// Limits.
    pub limits: QueueLimits,
}

/// A job known to the engine.
#[derive(Clone, Debug)]
pub struct Job {
    /// Association index.
    pub assoc: usize,
    /// Queue name as submitted.
    pub queue_name: Option<String>,
    /// Queue index when the queue is known.
    pub queue: Option<usize>,
    /// Nodes.
    pub nnodes: i64,
    /// Cores.
    pub ncores: i64,
    /// State.
    pub state: JobState,
    /// Remaining accounting dependencies (non-empty exactly when `state == Depend`).
    pub deps: Vec<Dependency>,
}

/// FNV-1a: job ids are short strings chosen by the caller; SipHash's DoS resistance is not
/// needed and it was the largest single cost of a lookup.
#[derive(Clone, Copy, Debug)]
struct FnvHasher(u64);

impl Default for FnvHasher {
    fn default() -> Self {
        FnvHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for FnvHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FnvHasher>>;

/// The flux-accounting limit engine. See the module documentation.
#[derive(Clone, Debug, Default)]
pub struct LimitEngine {
    options: Options,
    assocs: Vec<Association>,
    assoc_index: FastMap<(String, String), usize>,
    default_bank: FastMap<String, usize>,
    queues: Vec<Queue>,
    queue_index: FastMap<String, usize>,
    jobs: FastMap<String, Job>,
}

impl LimitEngine {
    /// An engine with no associations or queues.
    pub fn new(options: Options) -> Self {
        LimitEngine {
            options,
            ..LimitEngine::default()
        }
    }

    /// An engine loaded from a configuration (already validated by its parser).
    pub fn from_config(config: &LimitsConfig) -> Result<Self, LimitError> {
        let mut e = LimitEngine::new(config.options.clone());
        for q in &config.queues {
            e.add_queue(q)?;
        }
        for a in &config.associations {
            e.add_association(a)?;
        }
        Ok(e)
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Adds a queue. Error if the name exists.
    pub fn add_queue(&mut self, q: &QueueConfig) -> Result<(), LimitError> {
        if self.queue_index.contains_key(&q.name) {
            return Err(LimitError::DuplicateQueue(q.name.clone()));
        }
        self.queue_index.insert(q.name.clone(), self.queues.len());
        self.queues.push(Queue {
            name: q.name.clone(),
            limits: q.limits.clone(),
        });
        Ok(())
    }

    /// Adds an association. Error if (user, bank) exists. The first association of a
    /// user is its default bank unless a later one says `default = true`.
    pub fn add_association(&mut self, a: &AssocConfig) -> Result<(), LimitError> {
        let key = (a.user.clone(), a.bank.clone());
        if self.assoc_index.contains_key(&key) {
            return Err(LimitError::DuplicateAssociation {
                user: a.user.clone(),
                bank: a.bank.clone(),
            });
        }
        let idx = self.assocs.len();
        self.assoc_index.insert(key, idx);
        if a.default_bank || !self.default_bank.contains_key(&a.user) {
            self.default_bank.insert(a.user.clone(), idx);
        }
        self.assocs.push(Association {
            user: a.user.clone(),
            bank: a.bank.clone(),
            userid: a.userid,
            fairshare: a.fairshare,
            limits: a.limits.clone(),
            counters: Counters::default(),
            queue_usage: BTreeMap::new(),
            held: Vec::new(),
        });
        Ok(())
    }

    /// The index of the association (user, bank), or of the user's default bank.
    pub fn find_association(&self, user: &str, bank: Option<&str>) -> Option<usize> {
        match bank {
            Some(b) => self
                .assoc_index
                .get(&(user.to_string(), b.to_string()))
                .copied(),
            None => self.default_bank.get(user).copied(),
        }
    }

    /// All associations, in configuration order.
    pub fn associations(&self) -> &[Association] {
        &self.assocs
    }

    /// All queues, in configuration order.
    pub fn queues(&self) -> &[Queue] {
        &self.queues
    }

    /// A job by id (inactive and rejected jobs stay known).
    pub fn job(&self, id: &str) -> Option<&Job> {
        self.jobs.get(id)
    }

    /// Every job, in no particular order.
    pub fn jobs(&self) -> impl Iterator<Item = (&String, &Job)> {
        self.jobs.iter()
    }

    fn reject(&mut self, spec: &JobSpec, assoc: usize, msg: String) -> SubmitOutcome {
        self.jobs.insert(
            spec.id.clone(),
            Job {
                assoc,
                queue_name: spec.queue.clone(),
                queue: None,
                nnodes: spec.nnodes,
                ncores: spec.ncores,
                state: JobState::Inactive,
                deps: Vec::new(),
            },
        );
        SubmitOutcome::Rejected(msg)
    }

    /// Submits a job: hard limits reject it, soft limits hold it (flux `validate_cb`,
    /// `new_cb`, `depend_cb`), otherwise it enters SCHED.
    ///
    /// Errors (engine unchanged): a duplicate job id, negative sizes. An unknown
    /// association is a rejection (flux's message); the job is then not recorded.
    pub fn submit(&mut self, spec: JobSpec) -> Result<SubmitOutcome, LimitError> {
        if self.jobs.contains_key(&spec.id) {
            return Err(LimitError::DuplicateJob(spec.id));
        }
        if spec.nnodes < 0 || spec.ncores < 0 {
            return Err(LimitError::InvalidJob {
                job: spec.id,
                reason: format!(
                    "nnodes and ncores must not be negative (got {} and {})",
                    spec.nnodes, spec.ncores
                ),
            });
        }
        let Some(a) = self.find_association(&spec.user, spec.bank.as_deref()) else {
            return Ok(SubmitOutcome::Rejected(format!(
                "cannot find user/bank or user/default bank entry for user: {}{}",
                spec.user,
                spec.bank
                    .as_deref()
                    .map(|b| format!(", bank: {b}"))
                    .unwrap_or_default()
            )));
        };
        let assoc = &self.assocs[a];
        if !assoc.limits.active {
            return Ok(self.reject(
                &spec,
                a,
                "user/bank entry has been disabled from flux-accounting DB".to_string(),
            ));
        }
        let queue = match &spec.queue {
            None => None,
            Some(q) => match self.queue_index.get(q) {
                Some(&qi) => {
                    if !assoc.limits.queues.is_empty() && !assoc.limits.queues.contains(q) {
                        return Ok(self.reject(
                            &spec,
                            a,
                            format!("queue \"{q}\" not valid for user; valid queues: {}", {
                                let assoc = &self.assocs[a];
                                assoc.limits.queues.join(",")
                            }),
                        ));
                    }
                    Some(qi)
                }
                None => {
                    if self.options.deny_unknown_queues {
                        return Ok(self.reject(&spec, a, format!("Queue does not exist: {q}")));
                    }
                    None
                }
            },
        };
        let assoc = &self.assocs[a];
        if assoc.limits.max_active_jobs > 0
            && assoc.counters.cur_active_jobs >= assoc.limits.max_active_jobs
        {
            return Ok(self.reject(&spec, a, "user has max active jobs".to_string()));
        }
        if let Some(qi) = queue {
            let max = self.queues[qi].limits.max_nodes_per_assoc;
            if spec.nnodes > max {
                return Ok(self.reject(
                    &spec,
                    a,
                    format!(
                        "job requests {} nodes but queue {} allows {} nodes per association",
                        spec.nnodes, self.queues[qi].name, max
                    ),
                ));
            }
        }
        let assoc = &self.assocs[a];
        if spec.nnodes > assoc.limits.max_nodes || spec.ncores > assoc.limits.max_cores {
            let msg = format!(
                "job size ({} nodes, {} cores) exceeds the association's max resource limits (max_nodes={}, max_cores={})",
                spec.nnodes, spec.ncores, assoc.limits.max_nodes, assoc.limits.max_cores
            );
            return Ok(self.reject(&spec, a, msg));
        }

        // job.new: the job is active.
        let deps = {
            let assoc = &self.assocs[a];
            let empty = QueueUsage::default();
            let ctx = CheckContext {
                limits: &assoc.limits,
                counters: &assoc.counters,
                queue: queue.map(|qi| {
                    (
                        &self.queues[qi].limits,
                        assoc.queue_usage.get(&qi).unwrap_or(&empty),
                    )
                }),
                nnodes: spec.nnodes,
                ncores: spec.ncores,
                pending: Pending::default(),
                count_sched_in_resources: self.options.count_sched_in_resources,
            };
            ctx.all_hits()
        };
        let assoc = &mut self.assocs[a];
        assoc.counters.cur_active_jobs += 1;
        if let Some(qi) = queue {
            assoc.queue_usage.entry(qi).or_default();
        }
        let held = !deps.is_empty();
        let mut job = Job {
            assoc: a,
            queue_name: spec.queue.clone(),
            queue,
            nnodes: spec.nnodes,
            ncores: spec.ncores,
            state: JobState::Depend,
            deps: deps.clone(),
        };
        if held {
            assoc.held.push(spec.id.clone());
        } else {
            enter_sched(assoc, &mut job);
        }
        self.jobs.insert(spec.id, job);
        Ok(if held {
            SubmitOutcome::Held(deps)
        } else {
            SubmitOutcome::Ready
        })
    }

    /// Moves a SCHED job to RUN (flux `run_cb`), then runs a release pass over its
    /// association. Error if the job is unknown or not in SCHED.
    pub fn run(&mut self, id: &str) -> Result<Vec<Change>, LimitError> {
        let job = self
            .jobs
            .get_mut(id)
            .ok_or_else(|| LimitError::UnknownJob(id.to_string()))?;
        if job.state != JobState::Sched {
            return Err(LimitError::NotSched {
                job: id.to_string(),
                state: job.state,
            });
        }
        let a = job.assoc;
        let assoc = &mut self.assocs[a];
        leave_sched(assoc, job);
        let c = &mut assoc.counters;
        c.cur_run_jobs += 1;
        c.cur_nodes += job.nnodes;
        c.cur_cores += job.ncores;
        if let Some(qi) = job.queue {
            let qu = assoc.queue_usage.entry(qi).or_default();
            qu.cur_run_jobs += 1;
            qu.cur_nodes += job.nnodes;
        }
        job.state = JobState::Run;
        let mut changes = vec![Change::State {
            job: id.to_string(),
            state: JobState::Run,
        }];
        self.release_pass(a, &mut changes);
        Ok(changes)
    }

    /// Ends a job from any live state: cancel or completion (flux `inactive_cb`). A held
    /// job leaves the held list (no release pass); a SCHED or RUN job gives back its
    /// counters and a release pass runs. Error if unknown or already inactive.
    pub fn end(&mut self, id: &str) -> Result<Vec<Change>, LimitError> {
        let job = self
            .jobs
            .get_mut(id)
            .ok_or_else(|| LimitError::UnknownJob(id.to_string()))?;
        let a = job.assoc;
        let assoc = &mut self.assocs[a];
        let pass = match job.state {
            JobState::Inactive => return Err(LimitError::AlreadyInactive(id.to_string())),
            JobState::Depend => {
                assoc.held.retain(|h| h != id);
                job.deps.clear();
                false
            }
            JobState::Sched => {
                leave_sched(assoc, job);
                true
            }
            JobState::Run => {
                let c = &mut assoc.counters;
                c.cur_run_jobs -= 1;
                c.cur_nodes -= job.nnodes;
                c.cur_cores -= job.ncores;
                if let Some(qi) = job.queue {
                    let qu = assoc.queue_usage.entry(qi).or_default();
                    qu.cur_run_jobs -= 1;
                    qu.cur_nodes -= job.nnodes;
                }
                true
            }
        };
        assoc.counters.cur_active_jobs -= 1;
        job.state = JobState::Inactive;
        let mut changes = vec![Change::State {
            job: id.to_string(),
            state: JobState::Inactive,
        }];
        if pass {
            self.release_pass(a, &mut changes);
        }
        Ok(changes)
    }

    /// Forgets an inactive (ended or rejected) job to bound memory in long streams; its id
    /// may then be submitted again. Returns whether a job was removed (false for unknown or
    /// live jobs, which are left alone).
    pub fn forget(&mut self, id: &str) -> bool {
        if self
            .jobs
            .get(id)
            .is_some_and(|j| j.state == JobState::Inactive)
        {
            self.jobs.remove(id);
            true
        } else {
            false
        }
    }

    /// Updates an association's limits, then runs a release pass for every association
    /// with held jobs (flux's `reprioritize` after a data update).
    pub fn update_association(
        &mut self,
        user: &str,
        bank: &str,
        update: &AssocUpdate,
    ) -> Result<Vec<Change>, LimitError> {
        let a = self.find_association(user, Some(bank)).ok_or_else(|| {
            LimitError::UnknownAssociation {
                user: user.to_string(),
                bank: Some(bank.to_string()),
            }
        })?;
        if let Some(q) = update
            .queues
            .iter()
            .flatten()
            .find(|q| !self.queue_index.contains_key(*q))
        {
            return Err(LimitError::UnknownQueue(q.clone()));
        }
        let d = AssocLimits::default();
        let l = &mut self.assocs[a].limits;
        apply(
            &mut l.max_running_jobs,
            update.max_running_jobs,
            d.max_running_jobs,
        );
        apply(
            &mut l.max_active_jobs,
            update.max_active_jobs,
            d.max_active_jobs,
        );
        apply(&mut l.max_nodes, update.max_nodes, d.max_nodes);
        apply(&mut l.max_cores, update.max_cores, d.max_cores);
        apply(
            &mut l.max_sched_jobs,
            update.max_sched_jobs,
            d.max_sched_jobs,
        );
        if let Some(qs) = &update.queues {
            l.queues = qs.clone();
        }
        if let Some(active) = update.active {
            l.active = active;
        }
        Ok(self.release_all())
    }

    /// Updates a queue's limits, then runs a release pass for every association with held
    /// jobs.
    pub fn update_queue(
        &mut self,
        name: &str,
        update: &QueueUpdate,
    ) -> Result<Vec<Change>, LimitError> {
        let qi = *self
            .queue_index
            .get(name)
            .ok_or_else(|| LimitError::UnknownQueue(name.to_string()))?;
        let d = QueueLimits::default();
        let l = &mut self.queues[qi].limits;
        apply(&mut l.priority, update.priority, d.priority);
        apply(
            &mut l.max_running_jobs,
            update.max_running_jobs,
            d.max_running_jobs,
        );
        apply(
            &mut l.max_nodes_per_assoc,
            update.max_nodes_per_assoc,
            d.max_nodes_per_assoc,
        );
        apply(
            &mut l.max_sched_jobs,
            update.max_sched_jobs,
            d.max_sched_jobs,
        );
        apply(
            &mut l.max_sched_nodes_per_assoc,
            update.max_sched_nodes_per_assoc,
            d.max_sched_nodes_per_assoc,
        );
        apply(
            &mut l.max_sched_cores_per_assoc,
            update.max_sched_cores_per_assoc,
            d.max_sched_cores_per_assoc,
        );
        Ok(self.release_all())
    }

    /// A release pass over every association with held jobs, in configuration order.
    pub fn release_all(&mut self) -> Vec<Change> {
        let mut changes = Vec::new();
        for a in 0..self.assocs.len() {
            if !self.assocs[a].held.is_empty() {
                self.release_pass(a, &mut changes);
            }
        }
        changes
    }

    /// flux `check_and_release_held_jobs`: one pass over the held list in insertion order,
    /// no head-of-line blocking; each satisfied dependency is removed at once; a job left
    /// with none enters SCHED and its run headroom is reserved in pass-local counters.
    fn release_pass(&mut self, a: usize, changes: &mut Vec<Change>) {
        let held = std::mem::take(&mut self.assocs[a].held);
        let mut still_held = Vec::with_capacity(held.len());
        let mut pending_run = 0i64;
        // (queue index, released jobs): a handful of queues at most, a Vec beats a map.
        let mut pending_queue_run: Vec<(usize, i64)> = Vec::new();
        let count_sched = self.options.count_sched_in_resources;
        for id in held {
            let Some(job) = self.jobs.get_mut(&id) else {
                continue; // unreachable: held ids are always known jobs
            };
            let assoc = &mut self.assocs[a];
            let empty = QueueUsage::default();
            let ctx = CheckContext {
                limits: &assoc.limits,
                counters: &assoc.counters,
                queue: job.queue.map(|qi| {
                    (
                        &self.queues[qi].limits,
                        assoc.queue_usage.get(&qi).unwrap_or(&empty),
                    )
                }),
                nnodes: job.nnodes,
                ncores: job.ncores,
                pending: Pending {
                    run_jobs: pending_run,
                    queue_run_jobs: job
                        .queue
                        .and_then(|qi| pending_queue_run.iter().find(|p| p.0 == qi))
                        .map_or(0, |p| p.1),
                },
                count_sched_in_resources: count_sched,
            };
            let before = job.deps.len();
            let mut kept = Vec::with_capacity(before);
            for &dep in &job.deps {
                if ctx.hits(dep) {
                    kept.push(dep);
                } else {
                    changes.push(Change::DependencyRemove {
                        job: id.clone(),
                        dependency_remove: dep,
                    });
                }
            }
            // Under count_sched_in_resources a job about to leave DEPEND must also fit
            // the association's node/core headroom, even if that limit was not one of its
            // dependencies (it may have been held by another limit when it fit): else it
            // gets `max-resources-user-limit` now. flux re-checks only the held
            // dependencies, one way its overshoot happens.
            if kept.is_empty() && count_sched && ctx.hits(Dependency::MaxResourcesUser) {
                kept.push(Dependency::MaxResourcesUser);
                changes.push(Change::DependencyAdd {
                    job: id.clone(),
                    dependency_add: Dependency::MaxResourcesUser,
                });
            }
            job.deps = kept;
            if job.deps.is_empty() {
                enter_sched(assoc, job);
                changes.push(Change::State {
                    job: id.clone(),
                    state: JobState::Sched,
                });
                pending_run += 1;
                if let Some(qi) = job.queue {
                    match pending_queue_run.iter_mut().find(|p| p.0 == qi) {
                        Some(p) => p.1 += 1,
                        None => pending_queue_run.push((qi, 1)),
                    }
                }
            } else {
                still_held.push(id);
            }
        }
        self.assocs[a].held = still_held;
    }

    /// Recounts every association's counters from the job states and compares them with
    /// the kept counters; also checks held lists against job states. For tests and
    /// debugging; returns the first discrepancy.
    pub fn check_consistency(&self) -> Result<(), String> {
        let mut counters = vec![Counters::default(); self.assocs.len()];
        let mut qusage: Vec<BTreeMap<usize, QueueUsage>> = vec![BTreeMap::new(); self.assocs.len()];
        for (id, job) in &self.jobs {
            let c = &mut counters[job.assoc];
            match job.state {
                JobState::Inactive => continue,
                JobState::Depend => {
                    if job.deps.is_empty() {
                        return Err(format!("job {id} is in DEPEND without dependencies"));
                    }
                    if !self.assocs[job.assoc].held.contains(id) {
                        return Err(format!("job {id} is held but not in the held list"));
                    }
                }
                JobState::Sched => {
                    c.cur_sched_jobs += 1;
                    c.cur_sched_nodes += job.nnodes;
                    c.cur_sched_cores += job.ncores;
                    if let Some(qi) = job.queue {
                        let q = qusage[job.assoc].entry(qi).or_default();
                        q.cur_sched_jobs += 1;
                        q.cur_sched_nodes += job.nnodes;
                        q.cur_sched_cores += job.ncores;
                    }
                }
                JobState::Run => {
                    c.cur_run_jobs += 1;
                    c.cur_nodes += job.nnodes;
                    c.cur_cores += job.ncores;
                    if let Some(qi) = job.queue {
                        let q = qusage[job.assoc].entry(qi).or_default();
                        q.cur_run_jobs += 1;
                        q.cur_nodes += job.nnodes;
                    }
                }
            }
            c.cur_active_jobs += 1;
        }
        for (i, a) in self.assocs.iter().enumerate() {
            if a.counters != counters[i] {
                return Err(format!(
                    "{}/{}: counters {:?} but recount {:?}",
                    a.user, a.bank, a.counters, counters[i]
                ));
            }
            for (qi, u) in &a.queue_usage {
                let want = qusage[i].get(qi).copied().unwrap_or_default();
                if *u != want {
                    return Err(format!(
                        "{}/{}: queue {} usage {:?} but recount {:?}",
                        a.user, a.bank, self.queues[*qi].name, u, want
                    ));
                }
            }
            for h in &a.held {
                match self.jobs.get(h) {
                    Some(j) if j.state == JobState::Depend && j.assoc == i => {}
                    _ => return Err(format!("{}/{}: held job {h} is not held", a.user, a.bank)),
                }
            }
        }
        Ok(())
    }
}

/// flux `sched_cb`: the job enters SCHED.
fn enter_sched(assoc: &mut Association, job: &mut Job) {
    let c = &mut assoc.counters;
    c.cur_sched_jobs += 1;
    c.cur_sched_nodes += job.nnodes;
    c.cur_sched_cores += job.ncores;
    if let Some(qi) = job.queue {
        let qu = assoc.queue_usage.entry(qi).or_default();
        qu.cur_sched_jobs += 1;
        qu.cur_sched_nodes += job.nnodes;
        qu.cur_sched_cores += job.ncores;
    }
    job.state = JobState::Sched;
}

/// The job leaves SCHED (to RUN or INACTIVE): subtract the SCHED counters.
fn leave_sched(assoc: &mut Association, job: &Job) {
    let c = &mut assoc.counters;
    c.cur_sched_jobs -= 1;
    c.cur_sched_nodes -= job.nnodes;
    c.cur_sched_cores -= job.ncores;
    if let Some(qi) = job.queue {
        let qu = assoc.queue_usage.entry(qi).or_default();
        qu.cur_sched_jobs -= 1;
        qu.cur_sched_nodes -= job.nnodes;
        qu.cur_sched_cores -= job.ncores;
    }
}
