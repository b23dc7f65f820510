//! flux-accounting's limits on a Flux snapshot's jobs, as [`Limits`]: [`flux_limits`], from
//! `mf_priority.json` (`flux jobtap query mf_priority.so`, [`parse_mf_priority`]) and the
//! snapshot's jobs; [`read_flux_site`] reads a snapshot folder with its limits.
//!
//! flux-accounting's `mf_priority` jobtap plugin checks a job's soft limits once, when the
//! job enters DEPEND (`depend_cb`, `src/plugins/mf_priority.cpp`), and holds it with one
//! dependency per limit it is over, in this order (`deps[]` keeps it; the names are
//! `accounting.hpp`'s `D_*`, jobsort's [`Dependency`]):
//!
//! | dependency | limit (query field) | counts | here |
//! |---|---|---|---|
//! | `max-run-jobs-queue` | the queue's `max_running_jobs`, per association | the association's RUN jobs in the queue (`queue_usage[q].cur_run_jobs >= max`) | a cap: jobs |
//! | `max-sched-jobs-queue-limit`, `max-sched-nodes-queue-limit`, `max-sched-cores-queue-limit` | the queue's `max_sched_jobs`, `max_sched_nodes_per_assoc`, `max_sched_cores_per_assoc` | the association's jobs waiting in SCHED in the queue | not checked (below) |
//! | `max-resources-queue` | the queue's `max_nodes_per_assoc` | the association's RUN (and SCHED) nodes in the queue (`Association::under_queue_max_resources`) | a cap: nodes |
//! | `max-running-jobs-user-limit` | the association's `max_run_jobs` | its RUN jobs (`cur_run_jobs >= max_run_jobs`) | a cap: jobs |
//! | `max-sched-jobs-user-limit` | the association's `max_sched_jobs` | its jobs waiting in SCHED | not checked (below) |
//! | `max-resources-user-limit` | the association's `max_nodes`, `max_cores` | its RUN jobs' nodes and cores (`Association::under_max_resources`: `cur_nodes + nnodes <= max_nodes && cur_cores + ncores <= max_cores`) | two caps: nodes, cores |
//!
//! Each cap's [`Cap::reason`] is the dependency's name as flux lists it in the job's
//! `dependencies` and the query's `held_jobs`; its [`Cap::plain`] names the association
//! (`user ann (bank phys) may run 2 jobs at once`). An association is a user (the query's
//! `userid`, matched to the jobs' `userid` in `jobs.json`) in a bank (the job's `bank`;
//! flux-accounting writes the default bank into a job submitted without one). A queue's
//! limits bind only a queue flux-accounting knows (the query's `queues`; flux skips the
//! queue checks for any other). A limit at flux's "unlimited" default (`INT_MAX`) is no cap.
//!
//! A job's draws: 1 job, its nodes and its cores — a running job's node count is its
//! `nodelist`'s hosts, its cores `ncores` (what R gives it), a waiting job's its asked nodes
//! (1 when it names none, as flux's `jj_get_counts` counts it) and cores. Running jobs draw
//! on every cap of their association and queue. A waiting job's checks are the caps of the
//! dependencies flux holds it by, in the order above: flux's release pass
//! (`check_and_release_held_jobs`) re-checks only those. A job not in DEPEND has none: in
//! PRIORITY or SCHED it has passed its checks, and flux does not hold it again (a NEW job,
//! there only for an instant, is taken as one that passed them). Once started, every waiting
//! job draws on every cap of its association and queue (its [`Limits::started`]; for a job
//! held by all of them these are its checks).
//!
//! A job over `max_nodes` or `max_cores` by itself (or over its queue's
//! `max_nodes_per_assoc`) is rejected at submit (`validate_cb`): it is not in the queue. One
//! that is there (the limit was lowered after it was submitted) and is held by that limit is
//! never released: [`Never`], in flux's words at submit (`job size (2 node(s), 2 core(s)) is
//! greater than max resources limits configured for association (1 node(s), 2 core(s))`;
//! `job size (2 node(s)) is greater than max resources limit configured for queue (1
//! node(s))`, as flux-accounting's test "test validating job size compared to max resources
//! limits" greps them). One already past DEPEND runs all the same.
//!
//! A limit the query does not give (an association the query lacks, a queue entry without
//! the field: older flux-accounting prints no `queues`) is a cap of limit 0 that no running
//! job draws on, for the jobs held by it only: they get no start, and its plain words say
//! which limit is unknown.
//!
//! Where this differs from flux:
//! - Release order. flux releases held jobs per association in submission order (its
//!   `held_jobs` list, FIFO, no head-of-line blocking), with pass-local counts so that two
//!   jobs released in one pass do not take the same `max_running_jobs` room. The planner
//!   (`forecast::plan`) takes waiting jobs in priority order and starts the first whose caps
//!   have room: of two held jobs of one association, a later one of higher priority (its
//!   urgency) may take the room flux gives the earlier.
//! - SCHED counts. flux counts a released job toward `max_running_jobs`, `max_nodes` and
//!   `max_cores` only once it runs, so a burst of releases can overshoot them; the planner
//!   counts a job the instant it starts, and never does. `max-resources-queue` counts the
//!   association's SCHED nodes in the queue too; here only running jobs' count.
//! - The SCHED limits (`max-sched-jobs-user-limit`, `max-sched-*-queue-limit`) count jobs
//!   waiting in SCHED, which leave SCHED as they start: flux releases a job they hold when
//!   one of its association's SCHED jobs starts or ends. They are not caps on running jobs
//!   and are not checked here; a job they hold waits in the plan's order only (its
//!   association's SCHED jobs were submitted before it, so under fcfs and equal priority it
//!   is behind them, as in flux).
//! - Node counts. flux counts a job's nodes as its jobspec asks (`-n4` asks no node: 1);
//!   a running job here counts the hosts it was given, and its cores as R gives them (whole
//!   nodes for an exclusive job).
//! - flux-accounting's queue-wide total limits (`max-nodes-total-queue-limit`,
//!   `max-cores-total-queue-limit`, newer than jobsort's [`Dependency`]) are not known: a
//!   job held by them stays a dependency (`flux::snapshot`), never planned.

use super::limits::{Dependency, INT_MAX};
use super::snapshot::{JOBS, MF_PRIORITY, job_id, parse_json};
use crate::model::limits::{Cap, Draw, Limits, Never};
use crate::model::snapshot::{Hold, Snapshot, SnapshotError, read_part};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// `flux jobtap query mf_priority.so`: the limits of each association and queue.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MfPriority {
    /// Every association of `mf_priority_map`, user by user, bank by bank.
    pub associations: Vec<MfAssociation>,
    /// The queues flux-accounting knows, by name; `None` when the query has no `queues`
    /// (flux-accounting before it printed them): queue limits unknown.
    pub queues: Option<BTreeMap<String, MfQueue>>,
}

/// One association: a user in a bank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MfAssociation {
    pub userid: i64,
    pub bank: String,
    /// `max_run_jobs`.
    pub max_run_jobs: i64,
    /// `max_nodes`, `max_cores` (`None`: the query has none, before flux-accounting had them).
    pub max_nodes: Option<i64>,
    pub max_cores: Option<i64>,
}

/// One queue's per-association limits (`None`: the query does not show it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MfQueue {
    /// `max_running_jobs`: running jobs of one association in the queue.
    pub max_running_jobs: Option<i64>,
    /// `max_nodes_per_assoc`: nodes of one association's jobs in the queue.
    pub max_nodes_per_assoc: Option<i64>,
}

/// Read `flux jobtap query mf_priority.so` output (reference: `Association::to_json`,
/// `convert_map_to_json`, `query_cb`): `{"mf_priority_map": [{"userid", "banks": [{"bank_name",
/// "max_run_jobs", "max_nodes", "max_cores", ...}]}], "queues": {NAME: {"max_running_jobs",
/// "max_nodes_per_assoc", ...}}}`. Older flux-accounting names a bank `bank` and has no
/// `max_nodes`/`max_cores` or `queues`; both shapes are read. A missing required field or a
/// value of the wrong kind is an error at its JSON path.
pub fn parse_mf_priority(text: &str, file: &str) -> Result<MfPriority, SnapshotError> {
    let doc = parse_json(text, file)?;
    let users = doc
        .get("mf_priority_map")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            SnapshotError::at_path(
                file,
                "$.mf_priority_map",
                "expected an array (`flux jobtap query mf_priority.so` output)",
            )
        })?;
    let int = |v: &Value, at: &str, key: &str| -> Result<Option<i64>, SnapshotError> {
        match v.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(n) => n.as_i64().map(Some).ok_or_else(|| {
                SnapshotError::at_path(file, format!("{at}.{key}"), "expected an integer")
            }),
        }
    };
    let mut q = MfPriority::default();
    for (i, u) in users.iter().enumerate() {
        let at = format!("$.mf_priority_map[{i}]");
        let userid = int(u, &at, "userid")?
            .ok_or_else(|| SnapshotError::at_path(file, format!("{at}.userid"), "missing"))?;
        let banks = u.get("banks").and_then(Value::as_array).ok_or_else(|| {
            SnapshotError::at_path(file, format!("{at}.banks"), "expected an array")
        })?;
        for (k, b) in banks.iter().enumerate() {
            let at = format!("{at}.banks[{k}]");
            let bank = b
                .get("bank_name")
                .or_else(|| b.get("bank"))
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    SnapshotError::at_path(file, format!("{at}.bank_name"), "missing")
                })?;
            let max_run_jobs = int(b, &at, "max_run_jobs")?.ok_or_else(|| {
                SnapshotError::at_path(file, format!("{at}.max_run_jobs"), "missing")
            })?;
            q.associations.push(MfAssociation {
                userid,
                bank: bank.to_string(),
                max_run_jobs,
                max_nodes: int(b, &at, "max_nodes")?,
                max_cores: int(b, &at, "max_cores")?,
            });
        }
    }
    match doc.get("queues") {
        None | Some(Value::Null) => {}
        Some(Value::Object(m)) => {
            let mut queues = BTreeMap::new();
            for (name, e) in m {
                let at = format!("$.queues[{}]", Value::String(name.clone()));
                if !e.is_object() {
                    return Err(SnapshotError::at_path(file, at, "expected an object"));
                }
                queues.insert(
                    name.clone(),
                    MfQueue {
                        max_running_jobs: int(e, &at, "max_running_jobs")?,
                        max_nodes_per_assoc: int(e, &at, "max_nodes_per_assoc")?,
                    },
                );
            }
            q.queues = Some(queues);
        }
        Some(_) => {
            return Err(SnapshotError::at_path(
                file,
                "$.queues",
                "expected an object of queues by name",
            ));
        }
    }
    Ok(q)
}

/// Each job's `userid` in `flux jobs --json`, by job id (as `flux::snapshot` names jobs); a
/// job without one takes the `userid` another job of its `username` gives.
pub fn job_userids(text: &str, file: &str) -> Result<HashMap<String, i64>, SnapshotError> {
    let doc = parse_json(text, file)?;
    let jobs = doc.get("jobs").and_then(Value::as_array);
    let mut by_job = HashMap::new();
    let mut by_name: HashMap<&str, i64> = HashMap::new();
    let mut unnamed: Vec<(String, &str)> = Vec::new();
    for j in jobs.into_iter().flatten() {
        let Some(id) = job_id(j) else { continue };
        let name = j.get("username").and_then(Value::as_str);
        match j.get("userid").and_then(Value::as_i64) {
            Some(uid) => {
                if let Some(n) = name {
                    by_name.insert(n, uid);
                }
                by_job.insert(id, uid);
            }
            None => unnamed.extend(name.map(|n| (id, n))),
        }
    }
    for (id, n) in unnamed {
        if let Some(&uid) = by_name.get(n) {
            by_job.insert(id, uid);
        }
    }
    Ok(by_job)
}

/// The limits of the Flux snapshot in `dir` (`snap`, as `flux::snapshot` read it): from
/// `mf_priority.json` and the jobs' user ids in `jobs.json`; unknown without
/// `mf_priority.json` (`read_flux_snapshot` says it lacks it when a job is held by a limit).
/// `jobs` is the text of `jobs.json` as the snapshot's reader read it (`None`: not there).
pub fn read_flux_limits(
    dir: &Path,
    snap: &Snapshot,
    jobs: Option<&str>,
) -> Result<Limits, SnapshotError> {
    let name = |f: &str| dir.join(f).display().to_string();
    let Some(text) = read_part(&dir.join(MF_PRIORITY))? else {
        return Ok(Limits::unknown(snap.running.len(), snap.pending.len()));
    };
    let query = parse_mf_priority(&text, &name(MF_PRIORITY))?;
    let userids = match jobs {
        Some(t) => job_userids(t, &name(JOBS))?,
        None => HashMap::new(),
    };
    Ok(flux_limits(&query, snap, &userids))
}

/// A Flux snapshot folder read with its limits, `jobs.json` read once for both.
pub fn read_flux_site(dir: &Path) -> Result<(Snapshot, Limits), SnapshotError> {
    let (snap, jobs) = super::snapshot::read_flux_snapshot_and_jobs(dir)?;
    let limits = read_flux_limits(dir, &snap, jobs.as_deref())?;
    Ok((snap, limits))
}

/// What one cap is: an association's or one of its queues' limit, or a limit the query does
/// not give.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Run(usize),
    Nodes(usize),
    Cores(usize),
    QueueRun(usize, String),
    QueueNodes(usize, String),
    Unknown(Dependency, String),
}

struct Builder<'a> {
    query: &'a MfPriority,
    /// A user's name by userid, from the snapshot's jobs.
    names: HashMap<i64, &'a str>,
    /// A user's associations (indices into the query's) by userid.
    by_user: HashMap<i64, Vec<usize>>,
    caps: Vec<Cap>,
    index: HashMap<Key, Option<usize>>,
}

/// What a job is to the limits: its association (an index into the query's), queue, nodes
/// and cores; and when the association is not found, who it is (for the plain words).
struct Job<'a> {
    assoc: Result<usize, String>,
    queue: Option<&'a str>,
    nodes: u64,
    cores: u64,
}

fn jobs_word(n: u64) -> &'static str {
    if n == 1 { "job" } else { "jobs" }
}

fn nodes_word(n: u64) -> &'static str {
    if n == 1 { "node" } else { "nodes" }
}

/// A limit as a cap: `None` at flux's unlimited default; negative is 0 (nothing fits).
fn binding(limit: i64) -> Option<u64> {
    (limit < INT_MAX).then(|| limit.max(0) as u64)
}

impl<'a> Builder<'a> {
    fn who(&self, a: usize) -> String {
        let assoc = &self.query.associations[a];
        let user = self
            .names
            .get(&assoc.userid)
            .map_or_else(|| format!("uid {}", assoc.userid), |n| n.to_string());
        format!("user {user} (bank {})", assoc.bank)
    }

    /// The association of a user id in a bank: the job's bank, or the user's only bank
    /// when the job names none.
    fn find(&self, userid: Option<i64>, bank: Option<&str>, user: Option<&str>) -> Job<'a> {
        let who = || match (user, userid) {
            (Some(u), _) => format!("user {u}"),
            (None, Some(id)) => format!("uid {id}"),
            (None, None) => "a user jobs.json does not name".into(),
        };
        let assoc = match userid {
            None => Err(format!("{} (no userid in jobs.json)", who())),
            Some(id) => {
                let mine = self.by_user.get(&id).map_or(&[][..], Vec::as_slice);
                let found = match bank {
                    Some(b) => mine
                        .iter()
                        .copied()
                        .find(|&a| self.query.associations[a].bank == b),
                    None if mine.len() == 1 => Some(mine[0]),
                    None => None,
                };
                found.ok_or_else(|| match bank {
                    Some(b) => format!("{} in bank {b}", who()),
                    None => format!("{} without a bank", who()),
                })
            }
        };
        Job {
            assoc,
            queue: None,
            nodes: 0,
            cores: 0,
        }
    }

    /// The cap `key` stands for, made on first use; `None` when it does not bind.
    fn cap(&mut self, key: Key) -> Option<usize> {
        if let Some(&c) = self.index.get(&key) {
            return c;
        }
        let made = self.make(&key).map(|cap| {
            self.caps.push(cap);
            self.caps.len() - 1
        });
        self.index.insert(key, made);
        made
    }

    fn make(&self, key: &Key) -> Option<Cap> {
        let assocs = &self.query.associations;
        let queue = |q: &str| self.query.queues.as_ref().and_then(|m| m.get(q));
        let (dep, limit, plain) = match key {
            Key::Run(a) => {
                let l = binding(assocs[*a].max_run_jobs)?;
                let plain = format!("{} may run {l} {} at once", self.who(*a), jobs_word(l));
                (Dependency::MaxRunningJobsUser, l, plain)
            }
            Key::Nodes(a) => {
                let l = binding(assocs[*a].max_nodes?)?;
                let plain = format!("{} may hold {l} {} at once", self.who(*a), nodes_word(l));
                (Dependency::MaxResourcesUser, l, plain)
            }
            Key::Cores(a) => {
                let l = binding(assocs[*a].max_cores?)?;
                let plain = format!("{} may hold {l} cores at once", self.who(*a));
                (Dependency::MaxResourcesUser, l, plain)
            }
            Key::QueueRun(a, q) => {
                let l = binding(queue(q)?.max_running_jobs?)?;
                let plain = format!(
                    "{} may run {l} {} at once in queue {q}",
                    self.who(*a),
                    jobs_word(l)
                );
                (Dependency::MaxRunJobsQueue, l, plain)
            }
            Key::QueueNodes(a, q) => {
                let l = binding(queue(q)?.max_nodes_per_assoc?)?;
                let plain = format!(
                    "{} may hold {l} {} at once in queue {q}",
                    self.who(*a),
                    nodes_word(l)
                );
                (Dependency::MaxResourcesQueue, l, plain)
            }
            Key::Unknown(dep, plain) => (*dep, 0, plain.clone()),
        };
        Some(Cap {
            reason: dep.name().into(),
            plain,
            limit,
        })
    }

    /// Whether the query shows the limit `key` stands for (binding or not).
    fn shows(&self, key: &Key) -> bool {
        let assocs = &self.query.associations;
        let queue = |q: &str| self.query.queues.as_ref().and_then(|m| m.get(q));
        match key {
            Key::Run(_) => true,
            Key::Nodes(a) => assocs[*a].max_nodes.is_some(),
            Key::Cores(a) => assocs[*a].max_cores.is_some(),
            Key::QueueRun(_, q) => queue(q).is_some_and(|e| e.max_running_jobs.is_some()),
            Key::QueueNodes(_, q) => queue(q).is_some_and(|e| e.max_nodes_per_assoc.is_some()),
            Key::Unknown(..) => false,
        }
    }

    /// Whether flux-accounting knows queue `q` (its limits bind only such a queue).
    fn known_queue(&self, q: &str) -> bool {
        self.query
            .queues
            .as_ref()
            .is_some_and(|m| m.contains_key(q))
    }

    /// Every cap job `j` counts toward while it runs.
    fn counts(&mut self, j: &Job<'_>) -> Vec<Draw> {
        let Ok(a) = j.assoc else {
            return Vec::new();
        };
        let mut keys = vec![
            (Key::Run(a), 1),
            (Key::Nodes(a), j.nodes),
            (Key::Cores(a), j.cores),
        ];
        if let Some(q) = j.queue.filter(|q| self.known_queue(q)) {
            keys.push((Key::QueueRun(a, q.to_string()), 1));
            keys.push((Key::QueueNodes(a, q.to_string()), j.nodes));
        }
        keys.into_iter()
            .filter_map(|(k, amount)| self.cap(k).map(|cap| Draw { cap, amount }))
            .collect()
    }

    /// The caps of the dependencies `deps` that hold job `j`, in flux's order, each as the
    /// keys it checks and what the job asks of each.
    fn checks(&mut self, j: &Job<'_>, deps: &[Dependency]) -> Vec<Draw> {
        let mut draws = Vec::new();
        for dep in Dependency::ALL.into_iter().filter(|d| deps.contains(d)) {
            let keys: Vec<(Key, u64)> = match (dep, &j.assoc, j.queue) {
                (
                    Dependency::MaxSchedJobsQueue
                    | Dependency::MaxSchedNodesQueue
                    | Dependency::MaxSchedCoresQueue
                    | Dependency::MaxSchedJobsUser,
                    ..,
                ) => Vec::new(),
                (_, Err(who), _) => vec![(
                    Key::Unknown(
                        dep,
                        format!(
                            "mf_priority.json has no association for {who}: its limits are \
                             unknown"
                        ),
                    ),
                    1,
                )],
                (Dependency::MaxRunJobsQueue | Dependency::MaxResourcesQueue, Ok(_), None) => {
                    vec![(
                        Key::Unknown(
                            dep,
                            "the job names no queue, so its queue's limits are unknown".into(),
                        ),
                        1,
                    )]
                }
                (Dependency::MaxRunJobsQueue, Ok(a), Some(q)) => {
                    vec![(Key::QueueRun(*a, q.to_string()), 1)]
                }
                (Dependency::MaxResourcesQueue, Ok(a), Some(q)) => {
                    vec![(Key::QueueNodes(*a, q.to_string()), j.nodes)]
                }
                (Dependency::MaxRunningJobsUser, Ok(a), _) => vec![(Key::Run(*a), 1)],
                (Dependency::MaxResourcesUser, Ok(a), _) => {
                    vec![(Key::Nodes(*a), j.nodes), (Key::Cores(*a), j.cores)]
                }
            };
            for (key, amount) in keys {
                let key = if self.shows(&key) {
                    key
                } else {
                    let what = match &key {
                        Key::QueueRun(_, q) => format!("queue {q}'s max_running_jobs"),
                        Key::QueueNodes(_, q) => format!("queue {q}'s max_nodes_per_assoc"),
                        Key::Nodes(a) => format!("{}'s max_nodes", self.who(*a)),
                        Key::Cores(a) => format!("{}'s max_cores", self.who(*a)),
                        _ => String::new(),
                    };
                    if what.is_empty() {
                        key
                    } else {
                        Key::Unknown(
                            dep,
                            format!("mf_priority.json does not show {what}: it is unknown"),
                        )
                    }
                };
                let amount = if matches!(key, Key::Unknown(..)) {
                    1
                } else {
                    amount
                };
                if let Some(cap) = self.cap(key) {
                    draws.push(Draw { cap, amount });
                }
            }
        }
        draws
    }

    /// flux's rejection at submit of a job its association's or queue's resource limits
    /// cannot hold at all, when the job is held by that limit (module docs).
    fn never(&self, j: &Job<'_>, deps: &[Dependency]) -> Option<Never> {
        let a = *j.assoc.as_ref().ok()?;
        let assoc = &self.query.associations[a];
        if deps.contains(&Dependency::MaxResourcesQueue)
            && let Some(q) = j.queue
            && let Some(max) = self
                .query
                .queues
                .as_ref()
                .and_then(|m| m.get(q))
                .and_then(|e| e.max_nodes_per_assoc)
            && j.nodes as i64 > max
        {
            return Some(Never {
                reason: format!(
                    "job size ({} node(s)) is greater than max resources limit configured for \
                     queue ({max} node(s))",
                    j.nodes
                ),
                plain: format!(
                    "asks {} {}; {} may hold {max} {} at once in queue {q}: flux-accounting \
                     rejects such a job at submit, and one held by the limit is never released",
                    j.nodes,
                    nodes_word(j.nodes),
                    self.who(a),
                    nodes_word(max.max(0) as u64)
                ),
            });
        }
        if deps.contains(&Dependency::MaxResourcesUser)
            && let (Some(max_n), Some(max_c)) = (assoc.max_nodes, assoc.max_cores)
            && (j.nodes as i64 > max_n || j.cores as i64 > max_c)
        {
            return Some(Never {
                reason: format!(
                    "job size ({} node(s), {} core(s)) is greater than max resources limits \
                     configured for association ({max_n} node(s), {max_c} core(s))",
                    j.nodes, j.cores
                ),
                plain: {
                    // The limits it is over, in plain words (an unlimited one is not).
                    let mut over = Vec::new();
                    if j.nodes as i64 > max_n {
                        over.push(format!("{max_n} {}", nodes_word(max_n.max(0) as u64)));
                    }
                    if j.cores as i64 > max_c {
                        over.push(format!("{max_c} cores"));
                    }
                    format!(
                        "asks {} {} and {} cores; {} may hold {} at once: flux-accounting \
                         rejects such a job at submit, and one held by the limit is never \
                         released",
                        j.nodes,
                        nodes_word(j.nodes),
                        j.cores,
                        self.who(a),
                        over.join(" and ")
                    )
                },
            });
        }
        None
    }
}

/// flux-accounting's dependencies among what holds a waiting job (its `Hold` as
/// `flux::snapshot` reads it), in the order flux listed them.
fn dependencies(hold: Option<&Hold>) -> Vec<Dependency> {
    match hold {
        Some(Hold::Limit(d) | Hold::Dependency(d)) => {
            d.split(',').filter_map(Dependency::from_name).collect()
        }
        _ => Vec::new(),
    }
}

/// The limits that bear on a Flux snapshot's jobs (module docs), from the query and the jobs'
/// user ids by job id ([`job_userids`]).
pub fn flux_limits(query: &MfPriority, snap: &Snapshot, userids: &HashMap<String, i64>) -> Limits {
    let mut names = HashMap::new();
    let users = snap
        .running
        .iter()
        .map(|j| (&j.id, &j.user))
        .chain(snap.pending.iter().map(|j| (&j.id, &j.user)));
    for (id, user) in users {
        if let (Some(&uid), Some(u)) = (userids.get(id), user) {
            names.entry(uid).or_insert(u.as_str());
        }
    }
    let mut by_user: HashMap<i64, Vec<usize>> = HashMap::new();
    for (a, assoc) in query.associations.iter().enumerate() {
        by_user.entry(assoc.userid).or_default().push(a);
    }
    let mut b = Builder {
        query,
        names,
        by_user,
        caps: Vec::new(),
        index: HashMap::new(),
    };
    let running: Vec<Vec<Draw>> = snap
        .running
        .iter()
        .map(|r| {
            let mut j = b.find(
                userids.get(&r.id).copied(),
                r.account.as_deref(),
                r.user.as_deref(),
            );
            j.queue = r.queue.as_deref();
            j.nodes = (r.held.len() as u64).max(1);
            j.cores = r.total.first().copied().unwrap_or(0);
            b.counts(&j)
        })
        .collect();
    let mut pending = Vec::with_capacity(snap.pending.len());
    let mut started = Vec::with_capacity(snap.pending.len());
    for p in &snap.pending {
        let mut j = b.find(
            userids.get(&p.id).copied(),
            p.account.as_deref(),
            p.user.as_deref(),
        );
        j.queue = p.queue.first().map(String::as_str);
        j.nodes = p
            .ask
            .parts
            .iter()
            .map(|(n, _)| u64::from(*n))
            .sum::<u64>()
            .max(1);
        j.cores = p.ask.total(0);
        let deps = dependencies(p.hold.as_ref());
        started.push(b.counts(&j));
        pending.push(match b.never(&j, &deps) {
            Some(never) => Err(never),
            None => Ok(b.checks(&j, &deps)),
        });
    }
    Limits {
        caps: b.caps,
        running,
        pending,
        started,
        known: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flux::snapshot::parse_jobs;
    use crate::model::snapshot::Scheduler;

    // `flux jobs --json` entries (JobInfo.to_dict: userid, username, bank, queue, nnodes,
    // ncores, nodelist for a running job, dependencies for one in DEPEND).
    fn run(
        id: &str,
        uid: i64,
        user: &str,
        bank: &str,
        queue: &str,
        nodes: &str,
        cores: u64,
    ) -> String {
        format!(
            r#"{{"jobid":"{id}","userid":{uid},"username":"{user}","bank":"{bank}","queue":"{queue}",
              "state":"RUN","ncores":{cores},"nodelist":"{nodes}","t_run":100.0,"duration":600.0}}"#
        )
    }

    fn wait(
        id: &str,
        uid: i64,
        user: &str,
        queue: &str,
        nodes: u64,
        cores: u64,
        deps: &[&str],
    ) -> String {
        let state = if deps.is_empty() { "SCHED" } else { "DEPEND" };
        let deps: Vec<String> = deps.iter().map(|d| format!("\"{d}\"")).collect();
        format!(
            r#"{{"jobid":"{id}","userid":{uid},"username":"{user}","bank":"phys","queue":"{queue}",
              "state":"{state}","nnodes":{nodes},"ncores":{cores},"t_submit":50.0,
              "dependencies":[{}]}}"#,
            deps.join(",")
        )
    }

    /// ann (1001) and bob (1002) in bank phys with `assoc` (the rest of each bank entry);
    /// queues batch and debug with `queues` (their entries).
    fn query(ann: &str, bob: &str, batch: &str, debug: &str) -> String {
        format!(
            r#"{{"name":"mf_priority.so","mf_priority_map":[
              {{"userid":1001,"banks":[{{"bank_name":"phys","fairshare":0.5,"cur_run_jobs":0,{ann}}}]}},
              {{"userid":1002,"banks":[{{"bank_name":"phys","fairshare":0.5,"cur_run_jobs":0,{bob}}}]}}],
              "queues":{{"batch":{{"priority":0,{batch}}},"debug":{{"priority":0,{debug}}}}},
              "projects":["*"]}}"#
        )
    }

    const DEFAULT: &str = r#""max_run_jobs":5,"max_nodes":2147483647,"max_cores":2147483647"#;
    const QDEFAULT: &str = r#""max_running_jobs":100,"max_nodes_per_assoc":2147483647"#;

    fn limits(jobs: &[String], query: &str) -> (Snapshot, Limits) {
        let text = format!("{{\"jobs\":[{}]}}", jobs.join(","));
        let mut snap = Snapshot::new(Scheduler::Flux);
        parse_jobs(&text, "jobs.json", &mut snap).unwrap();
        snap.finish();
        let q = parse_mf_priority(query, "mf_priority.json").unwrap();
        let ids = job_userids(&text, "jobs.json").unwrap();
        let l = flux_limits(&q, &snap, &ids);
        (snap, l)
    }

    /// The cap that holds pending job `k`, with its usage by the running jobs and what the
    /// job asks of it.
    fn holding(l: &Limits, k: usize) -> Option<(&str, &str, u64, u64, u64)> {
        let used = l.usage();
        let checks = l.pending[k].as_ref().unwrap();
        let c = l.blocking(checks, &used)?;
        let asks = checks.iter().filter(|d| d.cap == c).map(|d| d.amount).sum();
        let cap = &l.caps[c];
        Some((
            cap.reason.as_str(),
            cap.plain.as_str(),
            used[c],
            asks,
            cap.limit,
        ))
    }

    /// ann may run 2 jobs (`max_run_jobs` 2) and runs 2: flux holds her third with
    /// `max-running-jobs-user-limit` (`cur_run_jobs >= max_run_jobs`: 2 >= 2), and here its
    /// cap has 2 of 2 taken. bob's running job is his own.
    #[test]
    fn max_running_jobs_holds_by_the_associations_running_jobs() {
        let (_, l) = limits(
            &[
                run("r1", 1001, "ann", "phys", "batch", "n1", 1),
                run("r2", 1001, "ann", "phys", "batch", "n2", 1),
                run("r3", 1002, "bob", "phys", "batch", "n3", 1),
                wait(
                    "p",
                    1001,
                    "ann",
                    "batch",
                    1,
                    1,
                    &["max-running-jobs-user-limit"],
                ),
            ],
            &query(
                r#""max_run_jobs":2,"max_nodes":2147483647,"max_cores":2147483647"#,
                DEFAULT,
                QDEFAULT,
                QDEFAULT,
            ),
        );
        assert!(l.known);
        assert_eq!(
            holding(&l, 0),
            Some((
                "max-running-jobs-user-limit",
                "user ann (bank phys) may run 2 jobs at once",
                2,
                1,
                2
            ))
        );
        // Once started it counts toward every cap of its association and queue: ann's and
        // bob's max_run_jobs and queue batch's 100 running jobs per association.
        assert_eq!(l.caps.len(), 4);
        assert_eq!(l.started[0].len(), 2);
    }

    /// ann may hold 2 nodes (`max_nodes` 2) and her jobs hold n1 and n2: a job asking one
    /// more node is held with `max-resources-user-limit` (2 + 1 > 2); her cores are
    /// unlimited (INT_MAX), no cap.
    #[test]
    fn max_nodes_holds_by_the_associations_running_nodes() {
        let (_, l) = limits(
            &[
                run("r1", 1001, "ann", "phys", "batch", "n1", 4),
                run("r2", 1001, "ann", "phys", "batch", "n2", 4),
                wait(
                    "p",
                    1001,
                    "ann",
                    "batch",
                    1,
                    4,
                    &["max-resources-user-limit"],
                ),
            ],
            &query(
                r#""max_run_jobs":5,"max_nodes":2,"max_cores":2147483647"#,
                DEFAULT,
                QDEFAULT,
                QDEFAULT,
            ),
        );
        assert_eq!(
            holding(&l, 0),
            Some((
                "max-resources-user-limit",
                "user ann (bank phys) may hold 2 nodes at once",
                2,
                1,
                2
            ))
        );
        assert_eq!(l.pending[0].as_ref().unwrap().len(), 1, "no core cap");
    }

    /// ann may hold 8 cores (`max_cores` 8) and her job holds 6 (of n1 and n2: 2 nodes, and
    /// nodes are unlimited): a job asking 4 is held with `max-resources-user-limit` (6 + 4 >
    /// 8). The job asks 4 nodes × 1 core: 4 nodes, 4 cores.
    #[test]
    fn max_cores_holds_by_the_associations_running_cores() {
        let (_, l) = limits(
            &[
                run("r1", 1001, "ann", "phys", "batch", "n[1-2]", 6),
                wait(
                    "p",
                    1001,
                    "ann",
                    "batch",
                    4,
                    4,
                    &["max-resources-user-limit"],
                ),
            ],
            &query(
                r#""max_run_jobs":5,"max_nodes":2147483647,"max_cores":8"#,
                DEFAULT,
                QDEFAULT,
                QDEFAULT,
            ),
        );
        assert_eq!(
            holding(&l, 0),
            Some((
                "max-resources-user-limit",
                "user ann (bank phys) may hold 8 cores at once",
                6,
                4,
                8
            ))
        );
    }

    /// Queue debug lets each association run 1 job (`max_running_jobs` 1, per association:
    /// `queue_usage[q].cur_run_jobs`): ann runs one there, so her next debug job is held
    /// with `max-run-jobs-queue`; bob's debug job and ann's batch job do not count toward
    /// her debug cap.
    #[test]
    fn a_queues_max_running_jobs_holds_by_the_associations_jobs_in_it() {
        let (_, l) = limits(
            &[
                run("r1", 1001, "ann", "phys", "debug", "n1", 1),
                run("r2", 1002, "bob", "phys", "debug", "n2", 1),
                run("r3", 1001, "ann", "phys", "batch", "n3", 1),
                wait("p", 1001, "ann", "debug", 1, 1, &["max-run-jobs-queue"]),
            ],
            &query(
                DEFAULT,
                DEFAULT,
                QDEFAULT,
                r#""max_running_jobs":1,"max_nodes_per_assoc":2147483647"#,
            ),
        );
        assert_eq!(
            holding(&l, 0),
            Some((
                "max-run-jobs-queue",
                "user ann (bank phys) may run 1 job at once in queue debug",
                1,
                1,
                1
            ))
        );
    }

    /// Queue batch lets each association hold 2 nodes (`max_nodes_per_assoc` 2): ann's two
    /// batch jobs hold n1 and n2, so her next batch job (1 node) is held with
    /// `max-resources-queue` (2 + 1 > 2).
    #[test]
    fn a_queues_max_nodes_per_assoc_holds_by_the_associations_nodes_in_it() {
        let (_, l) = limits(
            &[
                run("r1", 1001, "ann", "phys", "batch", "n1", 1),
                run("r2", 1001, "ann", "phys", "batch", "n2", 1),
                wait("p", 1001, "ann", "batch", 1, 1, &["max-resources-queue"]),
            ],
            &query(
                DEFAULT,
                DEFAULT,
                r#""max_running_jobs":100,"max_nodes_per_assoc":2"#,
                QDEFAULT,
            ),
        );
        assert_eq!(
            holding(&l, 0),
            Some((
                "max-resources-queue",
                "user ann (bank phys) may hold 2 nodes at once in queue batch",
                2,
                1,
                2
            ))
        );
    }

    /// Two dependencies: checked in flux's order (`depend_cb`: queue limits first), so the
    /// queue's cap names the reason while both are full; a SCHED job is past its checks.
    #[test]
    fn checks_follow_flux_order_and_a_sched_job_has_none() {
        let (_, l) = limits(
            &[
                run("r1", 1001, "ann", "phys", "debug", "n1", 1),
                wait(
                    "p",
                    1001,
                    "ann",
                    "debug",
                    1,
                    1,
                    &["max-running-jobs-user-limit", "max-run-jobs-queue"],
                ),
                wait("s", 1001, "ann", "debug", 1, 1, &[]),
            ],
            &query(
                r#""max_run_jobs":1,"max_nodes":2147483647,"max_cores":2147483647"#,
                DEFAULT,
                QDEFAULT,
                r#""max_running_jobs":1,"max_nodes_per_assoc":2147483647"#,
            ),
        );
        let reasons: Vec<&str> = l.pending[0]
            .as_ref()
            .unwrap()
            .iter()
            .map(|d| l.caps[d.cap].reason.as_str())
            .collect();
        assert_eq!(
            reasons,
            ["max-run-jobs-queue", "max-running-jobs-user-limit"]
        );
        assert_eq!(holding(&l, 0).unwrap().0, "max-run-jobs-queue");
        assert_eq!(l.pending[1], Ok(Vec::new()));
        assert_eq!(l.started[1], l.started[0]);
        assert_eq!(l.started[1].len(), 2);
    }

    /// ann's `max_nodes` is 1: a 2-node job is rejected at submit (validate_cb, in its
    /// words); one held by the limit (the limit lowered after it came) is never released,
    /// one in SCHED runs all the same.
    #[test]
    fn a_held_job_larger_than_its_limit_never_starts() {
        let (_, l) = limits(
            &[
                wait(
                    "p",
                    1001,
                    "ann",
                    "batch",
                    2,
                    2,
                    &["max-resources-user-limit"],
                ),
                wait("s", 1001, "ann", "batch", 2, 2, &[]),
                wait("q", 1001, "ann", "debug", 2, 2, &["max-resources-queue"]),
            ],
            &query(
                r#""max_run_jobs":5,"max_nodes":1,"max_cores":2"#,
                DEFAULT,
                QDEFAULT,
                r#""max_running_jobs":100,"max_nodes_per_assoc":1"#,
            ),
        );
        let never = l.pending[0].as_ref().unwrap_err();
        assert_eq!(
            never.reason,
            "job size (2 node(s), 2 core(s)) is greater than max resources limits configured \
             for association (1 node(s), 2 core(s))"
        );
        assert_eq!(
            never.plain,
            "asks 2 nodes and 2 cores; user ann (bank phys) may hold 1 node at once: \
             flux-accounting rejects such a job at submit, and one held by the limit is never \
             released"
        );
        assert!(l.pending[1].is_ok());
        assert_eq!(
            l.pending[2].as_ref().unwrap_err().reason,
            "job size (2 node(s)) is greater than max resources limit configured for queue \
             (1 node(s))"
        );
    }

    /// A job of an association the query lacks, held by a limit: the limit is unknown, a cap
    /// of 0 (no start); a SCHED-count limit is not checked; another queue limit on a query
    /// without `queues` is unknown too.
    #[test]
    fn unknown_limits_give_no_start_and_sched_limits_are_not_checked() {
        let (_, l) = limits(
            &[
                wait(
                    "p",
                    1003,
                    "cid",
                    "batch",
                    1,
                    1,
                    &["max-running-jobs-user-limit"],
                ),
                wait(
                    "s",
                    1001,
                    "ann",
                    "batch",
                    1,
                    1,
                    &["max-sched-jobs-user-limit"],
                ),
            ],
            &query(DEFAULT, DEFAULT, QDEFAULT, QDEFAULT),
        );
        let (reason, plain, used, asks, limit) = holding(&l, 0).unwrap();
        assert_eq!(reason, "max-running-jobs-user-limit");
        assert_eq!(
            plain,
            "mf_priority.json has no association for user cid in bank phys: its limits are \
             unknown"
        );
        assert_eq!((used, asks, limit), (0, 1, 0));
        assert_eq!(l.pending[1], Ok(Vec::new()));
        let old =
            r#"{"mf_priority_map":[{"userid":1001,"banks":[{"bank":"phys","max_run_jobs":5}]}]}"#;
        let (_, l) = limits(
            &[wait(
                "q",
                1001,
                "ann",
                "debug",
                1,
                1,
                &["max-run-jobs-queue"],
            )],
            old,
        );
        assert_eq!(
            holding(&l, 0).unwrap().1,
            "mf_priority.json does not show queue debug's max_running_jobs: it is unknown"
        );
    }

    #[test]
    fn bad_queries_are_errors_at_their_json_path() {
        let e = parse_mf_priority("{\"queues\":{}}", "m.json").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("m.json: $.mf_priority_map: expected an array"),
            "{e}"
        );
        let e = parse_mf_priority(
            r#"{"mf_priority_map":[{"userid":1,"banks":[{"bank_name":"a"}]}]}"#,
            "m.json",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "m.json: $.mf_priority_map[0].banks[0].max_run_jobs: missing"
        );
        let e = parse_mf_priority(
            r#"{"mf_priority_map":[],"queues":{"batch":{"max_running_jobs":"x"}}}"#,
            "m.json",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "m.json: $.queues[\"batch\"].max_running_jobs: expected an integer"
        );
        assert!(parse_mf_priority("{", "m.json").is_err());
    }

    #[test]
    fn a_folder_without_the_query_has_unknown_limits() {
        let d = tempfile::tempdir().unwrap();
        let mut snap = Snapshot::new(Scheduler::Flux);
        snap.pending.clear();
        let l = read_flux_limits(d.path(), &snap, None).unwrap();
        assert!(!l.known);
        std::fs::write(d.path().join(MF_PRIORITY), "{\"mf_priority_map\":[]}").unwrap();
        assert!(read_flux_limits(d.path(), &snap, None).unwrap().known);
        std::fs::write(d.path().join(MF_PRIORITY), "[]").unwrap();
        let e = read_flux_limits(d.path(), &snap, None).unwrap_err();
        assert!(
            e.to_string()
                .contains("mf_priority.json: $.mf_priority_map"),
            "{e}"
        );
    }
}
