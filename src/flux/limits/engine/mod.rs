//! The limit engine: associations, queues and jobs by key, submit / run / end with the
//! counters they move, limit updates, and (in the submodules) release passes and the recount.

mod consistency;
mod release;

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::assoc::{
    AssocUpdate, Association, CheckContext, Counters, Pending, Queue, QueueUpdate, QueueUsage,
    SchedLeak,
};
use super::config::{AssocConfig, LimitsConfig, Options, QueueConfig};
use super::error::LimitError;
use super::job::{Change, Job, JobSpec, JobState, SubmitOutcome};

/// The flux-accounting limit engine. See the module documentation.
#[derive(Clone, Debug, Default)]
pub struct LimitEngine {
    options: Options,
    assocs: Vec<Association>,
    assoc_index: FxHashMap<(String, String), usize>,
    default_bank: FxHashMap<String, usize>,
    queues: Vec<Queue>,
    queue_index: FxHashMap<String, usize>,
    jobs: FxHashMap<String, Job>,
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
            no_queue_usage: None,
            queue_factor: 0,
            sched_leak: SchedLeak::default(),
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
    /// Errors (engine unchanged): a duplicate job id, a size outside
    /// `0..=`[`MAX_JOB_SIZE`](super::MAX_JOB_SIZE) naming the field. An unknown
    /// association is a rejection (flux's message); the job is then not recorded.
    pub fn submit(&mut self, spec: JobSpec) -> Result<SubmitOutcome, LimitError> {
        if self.jobs.contains_key(&spec.id) {
            return Err(LimitError::DuplicateJob(spec.id));
        }
        if let Some(reason) = spec.size_error() {
            return Err(LimitError::InvalidJob {
                job: spec.id,
                reason,
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
                    // flux's `get_queue_info`: a queue flux-accounting knows must be in the
                    // association's list, so an association with an empty list may use none.
                    if !assoc.limits.queues.contains(q) {
                        let valid = assoc.limits.queues.join(",");
                        return Ok(self.reject(
                            &spec,
                            a,
                            format!(
                                "queue \"{q}\" not valid for user; valid queues for user: {valid}"
                            ),
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
                        "job size ({} node(s)) is greater than max resources limit \
                         configured for queue ({max} node(s))",
                        spec.nnodes
                    ),
                ));
            }
        }
        let assoc = &self.assocs[a];
        if spec.nnodes > assoc.limits.max_nodes || spec.ncores > assoc.limits.max_cores {
            let msg = format!(
                "job size ({} node(s), {} core(s)) is greater than max resources limits \
                 configured for association ({} node(s), {} core(s))",
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
        let queue_factor = queue.map_or(0, |qi| self.queues[qi].limits.priority);
        let assoc = &mut self.assocs[a];
        assoc.counters.cur_active_jobs += 1;
        // flux's `new_cb`: the association keeps the queue factor of its newest job.
        assoc.queue_factor = queue_factor;
        match (queue, &spec.queue) {
            (Some(qi), _) => {
                assoc.queue_usage.entry(qi).or_default();
            }
            (None, None) => {
                assoc.no_queue_usage.get_or_insert_with(QueueUsage::default);
            }
            (None, Some(_)) => {}
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
        if let Some(qu) = usage_of(assoc, job) {
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
                if let Some(qu) = usage_of(assoc, job) {
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

    /// An urgency change (`flux job urgency`, 0…31). The limits do not depend on urgency,
    /// but flux moves a SCHED job back to PRIORITY and on to SCHED, and the plugin's
    /// `sched_cb` counts it again: `cur_sched_jobs` and the queue's SCHED jobs, nodes and
    /// cores go up by one job, and nothing takes the extra count back (not `run_cb`, not
    /// `inactive_cb`), so every urgency change of a SCHED job leaves the association one
    /// SCHED job closer to `max-sched-jobs-user-limit` for good. This is the default;
    /// [`Options::sched_counted_once`] counts a job in SCHED once. A held, running job is
    /// not affected. Returns no changes (the job stays in SCHED). Errors: an unknown or
    /// inactive job, an urgency outside 0…31.
    pub fn urgency(&mut self, id: &str, urgency: i64) -> Result<Vec<Change>, LimitError> {
        if !(0..=31).contains(&urgency) {
            return Err(LimitError::InvalidJob {
                job: id.to_string(),
                reason: format!("urgency {urgency} is out of range (0 to 31)"),
            });
        }
        let job = self
            .jobs
            .get(id)
            .ok_or_else(|| LimitError::UnknownJob(id.to_string()))?;
        match job.state {
            JobState::Inactive => Err(LimitError::AlreadyInactive(id.to_string())),
            JobState::Sched if !self.options.sched_counted_once => {
                recount_sched(&mut self.assocs[job.assoc], job);
                Ok(Vec::new())
            }
            _ => Ok(Vec::new()),
        }
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
        self.assocs[a].limits.apply(update);
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
        self.queues[qi].limits.apply(update);
        Ok(self.release_all())
    }
}

/// flux `sched_cb`: the job enters SCHED.
fn enter_sched(assoc: &mut Association, job: &mut Job) {
    let c = &mut assoc.counters;
    c.cur_sched_jobs += 1;
    c.cur_sched_nodes += job.nnodes;
    c.cur_sched_cores += job.ncores;
    if let Some(qu) = usage_of(assoc, job) {
        qu.cur_sched_jobs += 1;
        qu.cur_sched_nodes += job.nnodes;
        qu.cur_sched_cores += job.ncores;
    }
    job.state = JobState::Sched;
}

/// The job's entry in its association's per-queue usage: its queue's, the `""` entry for a
/// job without a queue, none for a queue flux-accounting does not know.
fn usage_of<'a>(assoc: &'a mut Association, job: &Job) -> Option<&'a mut QueueUsage> {
    match (job.queue, &job.queue_name) {
        (Some(qi), _) => Some(assoc.queue_usage.entry(qi).or_default()),
        (None, None) => Some(assoc.no_queue_usage.get_or_insert_with(QueueUsage::default)),
        (None, Some(_)) => None,
    }
}

/// flux's `sched_cb` for a job already in SCHED (an urgency change sent it through
/// PRIORITY): the SCHED counters go up again, and the extra count is recorded as a leak
/// (no later callback takes it back).
fn recount_sched(assoc: &mut Association, job: &Job) {
    let c = &mut assoc.counters;
    c.cur_sched_jobs += 1;
    c.cur_sched_nodes += job.nnodes;
    c.cur_sched_cores += job.ncores;
    let l = &mut assoc.sched_leak.counters;
    l.cur_sched_jobs += 1;
    l.cur_sched_nodes += job.nnodes;
    l.cur_sched_cores += job.ncores;
    if let Some(qu) = usage_of(assoc, job) {
        qu.cur_sched_jobs += 1;
        qu.cur_sched_nodes += job.nnodes;
        qu.cur_sched_cores += job.ncores;
        let leak = match job.queue {
            Some(qi) => assoc.sched_leak.queues.entry(qi).or_default(),
            None => &mut assoc.sched_leak.no_queue,
        };
        leak.cur_sched_jobs += 1;
        leak.cur_sched_nodes += job.nnodes;
        leak.cur_sched_cores += job.ncores;
    }
}

/// The job leaves SCHED (to RUN or INACTIVE): subtract the SCHED counters.
fn leave_sched(assoc: &mut Association, job: &Job) {
    let c = &mut assoc.counters;
    c.cur_sched_jobs -= 1;
    c.cur_sched_nodes -= job.nnodes;
    c.cur_sched_cores -= job.ncores;
    if let Some(qu) = usage_of(assoc, job) {
        qu.cur_sched_jobs -= 1;
        qu.cur_sched_nodes -= job.nnodes;
        qu.cur_sched_cores -= job.ncores;
    }
}
