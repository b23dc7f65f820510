//! A site's state at one instant, as the scheduler's own commands report it: its nodes with
//! their resources and state, the jobs running on them until when, the ids of the jobs
//! waiting, the reservations that hold nodes for a window, and what the capture lacked.
//!
//! Each scheduler's folder reads its commands' outputs into a [`Snapshot`] (`pbs::snapshot`,
//! `slurm::snapshot`); nothing here reads a file. Resources are the machine's
//! ([`super::machine`]): `ncpus`, `mem` in KB, `ngpus`, then any custom consumable, one vector
//! per node and per job over [`Snapshot::resources`]. The queue itself (the pending jobs'
//! requests, priorities) stays in the job readers; a snapshot names the pending jobs only.
//!
//! A part the capture did not hold is a [`Missing`]: the snapshot still loads, and says what
//! the part would have given. [`Snapshot::check`] finds the parts that disagree (a running job
//! on a node the node list lacks), each a [`Disagreement`] the loader counts or refuses.

use super::machine::{MEM, Machine, NCPUS, NGPUS, TypeSpec};
use super::place::Place;
use std::collections::BTreeMap;
use std::fmt;

/// The scheduler a snapshot was taken from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheduler {
    Pbs,
    Slurm,
    Flux,
}

impl Scheduler {
    pub fn name(self) -> &'static str {
        match self {
            Scheduler::Pbs => "PBS",
            Scheduler::Slurm => "Slurm",
            Scheduler::Flux => "Flux",
        }
    }
}

/// A node's state as a scheduler's placement sees it. The scheduler's own words map in:
/// PBS `free` / Slurm `IDLE` are [`NodeState::Free`]; PBS `job-busy`, `job-exclusive`,
/// `resv-exclusive`'s jobs / Slurm `ALLOCATED`, `MIXED` are [`NodeState::Busy`]; PBS
/// `offline` / Slurm `DRAIN` (draining or drained) [`NodeState::Offline`]; PBS `down`,
/// `state-unknown` / Slurm `DOWN`, `FAIL` [`NodeState::Down`]; a node held for a reservation
/// (PBS `resv-exclusive`, Slurm `RESERVED`) [`NodeState::Reserved`]. When several hold, the
/// one that keeps the most work off the node wins: down, offline, reserved, busy, free.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NodeState {
    Free,
    Busy,
    Reserved,
    Offline,
    Down,
}

impl NodeState {
    pub const ALL: [NodeState; 5] = [
        NodeState::Free,
        NodeState::Busy,
        NodeState::Reserved,
        NodeState::Offline,
        NodeState::Down,
    ];

    pub fn name(self) -> &'static str {
        match self {
            NodeState::Free => "free",
            NodeState::Busy => "busy",
            NodeState::Reserved => "reserved",
            NodeState::Offline => "offline",
            NodeState::Down => "down",
        }
    }

    /// Whether new jobs may start on a node in this state (outside any reservation).
    pub fn takes_jobs(self) -> bool {
        matches!(self, NodeState::Free | NodeState::Busy)
    }
}

/// One node (a PBS vnode, a Slurm node, a Flux rank's host).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub name: String,
    pub state: NodeState,
    /// The state as the scheduler wrote it (`job-busy`, `MIXED,DRAIN`).
    pub state_text: String,
    /// What the node has, over [`Snapshot::resources`].
    pub available: Vec<u64>,
    /// What running jobs hold of it.
    pub assigned: Vec<u64>,
    /// The jobs the node lists as running on it, in its order.
    pub jobs: Vec<String>,
    /// The partitions (Slurm) or queues (PBS vnode `queue`) the node serves; empty: every one.
    pub partitions: Vec<String>,
}

/// What a running job holds on one node; `amounts` is empty when the capture says only
/// which nodes, not how much of each (the job's [`RunningJob::total`] still says how much).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held {
    pub node: String,
    pub amounts: Vec<u64>,
}

/// A job running at the instant of the snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningJob {
    pub id: String,
    pub user: Option<String>,
    pub group: Option<String>,
    pub account: Option<String>,
    /// The PBS `project` (PBS's `p:` limits count by it); `None` elsewhere.
    pub project: Option<String>,
    /// The Slurm QOS; `None` elsewhere.
    pub qos: Option<String>,
    /// The queue (PBS) or partition (Slurm).
    pub queue: Option<String>,
    /// Unix seconds.
    pub start: i64,
    /// The requested walltime in seconds; `None` when the capture gives none (no limit).
    pub walltime: Option<i64>,
    pub held: Vec<Held>,
    /// What the job holds in all, over [`Snapshot::resources`].
    pub total: Vec<u64>,
    /// How long it has run, as the scheduler counts it (PBS `resources_used.walltime`, Flux
    /// `runtime`), when the capture says: less than the capture time minus the start for a
    /// job that was suspended a while.
    pub elapsed: Option<i64>,
}

impl RunningJob {
    /// When the job ends at the latest: its start plus its walltime.
    pub fn planned_end(&self) -> Option<i64> {
        self.walltime.map(|w| self.start.saturating_add(w))
    }
}

/// What a waiting job asks for: `count` chunks of `amounts` (over [`Snapshot::resources`])
/// per `+` part, arranged by `place` — PBS's `select`/`place` as written; Slurm's nodes ×
/// (CPUs, memory, GRES per node), or CPUs anywhere when it names no node count; Flux's
/// nodes × cores.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Ask {
    pub parts: Vec<(u32, Vec<u64>)>,
    pub place: Place,
}

impl Ask {
    /// The whole request of resource `i`: every chunk's amount times its count.
    pub fn total(&self, i: usize) -> u64 {
        self.parts
            .iter()
            .map(|(n, a)| u64::from(*n).saturating_mul(a.get(i).copied().unwrap_or(0)))
            .fold(0, u64::saturating_add)
    }
}

/// A job waiting to run at the instant of the snapshot, with what it asks and the words the
/// scheduler gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingJob {
    pub id: String,
    pub user: Option<String>,
    pub group: Option<String>,
    pub account: Option<String>,
    /// The PBS `project` (PBS's `p:` limits count by it); `None` elsewhere.
    pub project: Option<String>,
    /// The Slurm QOS; `None` elsewhere.
    pub qos: Option<String>,
    /// The queue (PBS) or partition (Slurm; several when submitted to several, in order).
    pub queue: Vec<String>,
    /// Unix seconds (PBS `qtime`, Slurm `submit_time`, Flux `t_submit`).
    pub submit: Option<i64>,
    /// The requested walltime in seconds; `None` when the capture gives none.
    pub walltime: Option<i64>,
    pub ask: Ask,
    /// The priority the scheduler computed (Slurm's `priority`, Flux's), when it shows it.
    pub priority: Option<f64>,
    /// Why the scheduler says it waits, in its words (PBS `comment`, Slurm `state_reason`).
    pub reason: Option<String>,
    /// What keeps the scheduler from considering it at all, when something does.
    pub hold: Option<Hold>,
}

/// Why a waiting job is not considered by the scheduler now.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", content = "what", rename_all = "snake_case")]
pub enum Hold {
    /// Held by a user, an operator or the system (the scheduler's words).
    Held(String),
    /// Waiting for other jobs (the dependency as written).
    Dependency(String),
    /// Not to start before this time (PBS `Execution_Time`, Slurm `begin_time`).
    BeginTime(i64),
    /// A limit the scheduler reports holds it (its words: Slurm's `AssocGrpCpuLimit`, PBS's
    /// "Not Running: User has reached server running job limit.", flux-accounting's
    /// `max-running-jobs-user-limit` dependency). With the scheduler's limits in the
    /// snapshot (`model::limits::Limits::known`) such a job is planned by them; without, it is
    /// not planned.
    Limit(String),
}

/// A reservation: nodes held for a window (PBS advance and standing reservations' current
/// occurrence, Slurm reservations).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reservation {
    pub id: String,
    /// The name its owner gave (`Reserve_Name`), when one was given.
    pub name: Option<String>,
    /// Unix seconds.
    pub start: i64,
    pub end: i64,
    pub nodes: Vec<String>,
    /// The state as the scheduler wrote it (`RESV_CONFIRMED`), when it gives one.
    pub state: Option<String>,
}

/// A part of the capture that was not there, and what its absence changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// The part: a file and what makes it (`pbs_rstat.txt (pbs_rstat -f)`).
    pub part: String,
    /// What the snapshot lacks for it.
    pub changes: String,
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.part, self.changes)
    }
}

/// Two parts of a snapshot that disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Disagreement {
    /// A running job holds a node the node list lacks.
    JobOnUnknownNode { job: String, node: String },
    /// A node lists a job as running on it that is not among the running jobs.
    NodeListsJobNotRunning { node: String, job: String },
    /// A node lists a running job that, by its own allocation, does not hold the node.
    NodeListsJobElsewhere { node: String, job: String },
    /// A reservation holds a node the node list lacks.
    ReservationOnUnknownNode { reservation: String, node: String },
    /// A node has more of a resource assigned than available.
    OverAssigned {
        node: String,
        resource: String,
        assigned: u64,
        available: u64,
    },
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Disagreement::JobOnUnknownNode { job, node } => write!(
                f,
                "running job {job} is on node `{node}`, which the node list lacks"
            ),
            Disagreement::NodeListsJobNotRunning { node, job } => write!(
                f,
                "node `{node}` lists job {job}, which is not among the running jobs"
            ),
            Disagreement::NodeListsJobElsewhere { node, job } => {
                write!(f, "node `{node}` lists job {job}, which does not hold it")
            }
            Disagreement::ReservationOnUnknownNode { reservation, node } => write!(
                f,
                "reservation {reservation} holds node `{node}`, which the node list lacks"
            ),
            Disagreement::OverAssigned {
                node,
                resource,
                assigned,
                available,
            } => write!(
                f,
                "node `{node}` has {assigned} {resource} assigned of {available} available"
            ),
        }
    }
}

/// Where a reader found something wrong: a line, or a JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum At {
    Line(usize),
    /// `$.nodes["n1"].state`.
    Path(String),
}

/// A capture that cannot be read: the file, where in it, and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct SnapshotError {
    pub file: String,
    pub at: Option<At>,
    pub message: String,
}

/// A capture file's text, `None` when the folder does not hold it (a missing part, not an
/// error); a file that is there but cannot be read is an error naming it. Every scheduler's
/// snapshot reader reads its parts through this.
pub fn read_part(path: &std::path::Path) -> Result<Option<String>, SnapshotError> {
    if !path.is_file() {
        return Ok(None);
    }
    std::fs::read_to_string(path)
        .map(Some)
        .map_err(|e| SnapshotError::new(&path.display().to_string(), None, e.to_string()))
}

/// The two parts a snapshot folder cannot do without both of: its node list (`nodes`) and
/// its job list (`jobs`), each `None` when the folder lacks it; a folder with neither is no
/// `scheduler` snapshot, an error that says so.
pub fn read_nodes_and_jobs(
    dir: &std::path::Path,
    scheduler: Scheduler,
    nodes: &str,
    jobs: &str,
) -> Result<(Option<String>, Option<String>), SnapshotError> {
    let (n, j) = (read_part(&dir.join(nodes))?, read_part(&dir.join(jobs))?);
    if n.is_none() && j.is_none() {
        return Err(SnapshotError::new(
            &dir.display().to_string(),
            None,
            format!(
                "not a {} snapshot: neither {nodes} nor {jobs} is there",
                scheduler.name()
            ),
        ));
    }
    Ok((n, j))
}

impl SnapshotError {
    pub fn new(file: &str, at: Option<At>, message: impl Into<String>) -> SnapshotError {
        SnapshotError {
            file: file.to_string(),
            at,
            message: message.into(),
        }
    }
    /// An error at a JSON path.
    pub fn at_path(file: &str, path: impl Into<String>, message: impl Into<String>) -> Self {
        SnapshotError::new(file, Some(At::Path(path.into())), message)
    }
    /// An error at a line (1-based).
    pub fn at_line(file: &str, line: usize, message: impl Into<String>) -> Self {
        SnapshotError::new(file, Some(At::Line(line)), message)
    }
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.at {
            Some(At::Line(l)) => write!(f, "{}:{l}: {}", self.file, self.message),
            Some(At::Path(p)) => write!(f, "{}: {p}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// A JSON object key as a path step: `.name` when it is a plain word, else `["key"]`.
pub fn path_key(path: &str, key: &str) -> String {
    if !key.is_empty()
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !key.as_bytes()[0].is_ascii_digit()
    {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", serde_json::Value::from(key))
    }
}

/// A site at one instant.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub scheduler: Scheduler,
    /// Unix seconds, when a capture says (pbsnodes' and qstat's `timestamp`, Slurm's
    /// `last_update`...).
    pub taken_at: Option<i64>,
    /// The resource names every vector is over: `ncpus`, `mem` (KB), `ngpus`, then custom
    /// ones in the order met.
    pub resources: Vec<String>,
    pub nodes: Vec<Node>,
    pub running: Vec<RunningJob>,
    /// The jobs waiting to run, in the capture's order.
    pub pending: Vec<PendingJob>,
    /// Jobs neither running nor pending (held, suspended, exiting...): id and state as written.
    pub other_jobs: Vec<(String, String)>,
    pub reservations: Vec<Reservation>,
    pub missing: Vec<Missing>,
}

impl Snapshot {
    pub fn new(scheduler: Scheduler) -> Snapshot {
        Snapshot {
            scheduler,
            taken_at: None,
            resources: vec![NCPUS.into(), MEM.into(), NGPUS.into()],
            nodes: Vec::new(),
            running: Vec::new(),
            pending: Vec::new(),
            other_jobs: Vec::new(),
            reservations: Vec::new(),
            missing: Vec::new(),
        }
    }

    /// The index of a resource, added when new.
    pub fn resource(&mut self, name: &str) -> usize {
        match self.resources.iter().position(|r| r == name) {
            Some(i) => i,
            None => {
                self.resources.push(name.to_string());
                self.resources.len() - 1
            }
        }
    }

    /// A zero vector over the resources known so far.
    pub fn zeros(&self) -> Vec<u64> {
        vec![0; self.resources.len()]
    }

    /// Set `v[i]`, growing `v` to reach it.
    pub fn set(v: &mut Vec<u64>, i: usize, amount: u64) {
        if v.len() <= i {
            v.resize(i + 1, 0);
        }
        v[i] = amount;
    }

    /// Note a missing part.
    pub fn lacks(&mut self, part: impl Into<String>, changes: impl Into<String>) {
        self.missing.push(Missing {
            part: part.into(),
            changes: changes.into(),
        });
    }

    /// Bring every vector to the length of [`Snapshot::resources`] (a resource met late is 0
    /// where it was not given). Readers call it once they are done.
    pub fn finish(&mut self) {
        let n = self.resources.len();
        for node in &mut self.nodes {
            node.available.resize(n, 0);
            node.assigned.resize(n, 0);
        }
        for job in &mut self.pending {
            for (_, a) in &mut job.ask.parts {
                a.resize(n, 0);
            }
        }
        for job in &mut self.running {
            job.total.resize(n, 0);
            for h in &mut job.held {
                if !h.amounts.is_empty() {
                    h.amounts.resize(n, 0);
                }
            }
        }
    }

    pub fn node(&self, name: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.name == name)
    }

    /// How many nodes are in each state.
    pub fn nodes_by_state(&self) -> BTreeMap<NodeState, usize> {
        let mut m = BTreeMap::new();
        for n in &self.nodes {
            *m.entry(n.state).or_insert(0) += 1;
        }
        m
    }

    /// Per resource: what the nodes that take jobs have in all, what is assigned on them,
    /// and what is out of use (on nodes down, offline or reserved).
    pub fn totals(&self) -> ResourceTotals {
        let n = self.resources.len();
        let mut t = ResourceTotals {
            available: vec![0; n],
            assigned: vec![0; n],
            unusable: vec![0; n],
        };
        for node in &self.nodes {
            for i in 0..n {
                let a = node.available.get(i).copied().unwrap_or(0);
                let b = node.assigned.get(i).copied().unwrap_or(0);
                if node.state.takes_jobs() {
                    t.available[i] += a;
                    t.assigned[i] += b.min(a);
                } else {
                    t.unusable[i] += a;
                }
            }
        }
        t
    }

    /// The parts that disagree, in the order: running jobs' nodes, nodes' jobs,
    /// reservations' nodes, nodes over-assigned.
    pub fn check(&self) -> Vec<Disagreement> {
        let nodes: std::collections::HashSet<&str> =
            self.nodes.iter().map(|n| n.name.as_str()).collect();
        let running: std::collections::HashMap<&str, &RunningJob> =
            self.running.iter().map(|j| (j.id.as_str(), j)).collect();
        let mut out = Vec::new();
        for j in &self.running {
            for h in &j.held {
                if !nodes.contains(h.node.as_str()) {
                    out.push(Disagreement::JobOnUnknownNode {
                        job: j.id.clone(),
                        node: h.node.clone(),
                    });
                }
            }
        }
        for n in &self.nodes {
            for job in &n.jobs {
                match running.get(job.as_str()) {
                    None => out.push(Disagreement::NodeListsJobNotRunning {
                        node: n.name.clone(),
                        job: job.clone(),
                    }),
                    // A job whose allocation the capture does not give holds nodes unknown.
                    Some(j) if !j.held.is_empty() && !j.held.iter().any(|h| h.node == n.name) => {
                        out.push(Disagreement::NodeListsJobElsewhere {
                            node: n.name.clone(),
                            job: job.clone(),
                        })
                    }
                    Some(_) => {}
                }
            }
        }
        for r in &self.reservations {
            for node in &r.nodes {
                if !nodes.contains(node.as_str()) {
                    out.push(Disagreement::ReservationOnUnknownNode {
                        reservation: r.id.clone(),
                        node: node.clone(),
                    });
                }
            }
        }
        for n in &self.nodes {
            for (i, name) in self.resources.iter().enumerate() {
                let a = n.available.get(i).copied().unwrap_or(0);
                let b = n.assigned.get(i).copied().unwrap_or(0);
                if b > a {
                    out.push(Disagreement::OverAssigned {
                        node: n.name.clone(),
                        resource: name.clone(),
                        assigned: b,
                        available: a,
                    });
                }
            }
        }
        out
    }

    /// The nodes as a [`Machine`]: one node type per distinct set of available resources, in
    /// the order first met, named after its first node. An error when there are no nodes.
    pub fn machine(&self) -> Result<Machine, String> {
        let mut types: Vec<(Vec<u64>, String, u32)> = Vec::new();
        for n in &self.nodes {
            match types.iter_mut().find(|t| t.0 == n.available) {
                Some(t) => t.2 += 1,
                None => types.push((n.available.clone(), n.name.clone(), 1)),
            }
        }
        if types.is_empty() {
            return Err("the snapshot has no nodes".into());
        }
        let specs: Vec<TypeSpec> = types
            .into_iter()
            .map(|(amounts, name, count)| {
                let res = self
                    .resources
                    .iter()
                    .zip(amounts)
                    .filter(|(r, a)| *a > 0 || *r == NCPUS)
                    .map(|(r, a)| (r.clone(), a))
                    .collect();
                (name, count, res)
            })
            .collect();
        Machine::from_types(specs)
    }
}

/// Per-resource sums over a snapshot's nodes (see [`Snapshot::totals`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceTotals {
    pub available: Vec<u64>,
    pub assigned: Vec<u64>,
    pub unusable: Vec<u64>,
}

impl ResourceTotals {
    /// What is free to start jobs on: available less assigned, on nodes that take jobs.
    pub fn free(&self) -> Vec<u64> {
        self.available
            .iter()
            .zip(&self.assigned)
            .map(|(a, b)| a.saturating_sub(*b))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, state: NodeState, avail: [u64; 3], assigned: [u64; 3]) -> Node {
        Node {
            name: name.into(),
            state,
            state_text: state.name().into(),
            available: avail.to_vec(),
            assigned: assigned.to_vec(),
            jobs: Vec::new(),
            partitions: Vec::new(),
        }
    }

    fn job(id: &str, start: i64, walltime: Option<i64>, nodes: &[&str]) -> RunningJob {
        RunningJob {
            id: id.into(),
            user: None,
            group: None,
            account: None,
            project: None,
            qos: None,
            queue: None,
            start,
            walltime,
            held: nodes
                .iter()
                .map(|n| Held {
                    node: n.to_string(),
                    amounts: Vec::new(),
                })
                .collect(),
            total: vec![4, 0, 0],
            elapsed: None,
        }
    }

    #[test]
    fn planned_end_is_start_plus_walltime() {
        assert_eq!(job("1", 1000, Some(3600), &[]).planned_end(), Some(4600));
        assert_eq!(job("1", 1000, None, &[]).planned_end(), None);
    }

    #[test]
    fn totals_count_only_nodes_that_take_jobs_as_available() {
        let mut s = Snapshot::new(Scheduler::Pbs);
        s.nodes = vec![
            node("a", NodeState::Busy, [8, 100, 0], [6, 40, 0]),
            node("b", NodeState::Free, [8, 100, 2], [0, 0, 0]),
            node("c", NodeState::Down, [8, 100, 0], [0, 0, 0]),
            node("d", NodeState::Offline, [4, 50, 0], [4, 0, 0]),
        ];
        let t = s.totals();
        assert_eq!(t.available, [16, 200, 2]);
        assert_eq!(t.assigned, [6, 40, 0]);
        assert_eq!(t.free(), [10, 160, 2]);
        assert_eq!(t.unusable, [12, 150, 0]);
        let by = s.nodes_by_state();
        assert_eq!(by[&NodeState::Busy], 1);
        assert_eq!(by.get(&NodeState::Reserved), None);
    }

    #[test]
    fn check_finds_each_disagreement() {
        let mut s = Snapshot::new(Scheduler::Slurm);
        let mut a = node("a", NodeState::Busy, [8, 0, 0], [9, 0, 0]);
        a.jobs = vec!["1".into(), "7".into(), "2".into()];
        s.nodes = vec![a];
        s.running = vec![job("1", 0, None, &["a", "zz"]), job("2", 0, None, &["b"])];
        s.reservations = vec![Reservation {
            id: "R1".into(),
            name: None,
            start: 0,
            end: 10,
            nodes: vec!["a".into(), "q".into()],
            state: None,
        }];
        let found: Vec<String> = s.check().iter().map(|d| d.to_string()).collect();
        assert_eq!(
            found,
            [
                "running job 1 is on node `zz`, which the node list lacks",
                "running job 2 is on node `b`, which the node list lacks",
                "node `a` lists job 7, which is not among the running jobs",
                "node `a` lists job 2, which does not hold it",
                "reservation R1 holds node `q`, which the node list lacks",
                "node `a` has 9 ncpus assigned of 8 available",
            ]
        );
    }

    #[test]
    fn nodes_of_one_size_are_one_machine_type() {
        let mut s = Snapshot::new(Scheduler::Pbs);
        s.nodes = vec![
            node("a", NodeState::Free, [8, 1024, 0], [0, 0, 0]),
            node("b", NodeState::Busy, [8, 1024, 0], [8, 0, 0]),
            node("g", NodeState::Free, [4, 1024, 2], [0, 0, 0]),
        ];
        let m = s.machine().unwrap();
        assert_eq!(m.types().len(), 2);
        assert_eq!((m.types()[0].count, m.types()[1].count), (2, 1));
        assert!(Snapshot::new(Scheduler::Pbs).machine().is_err());
    }

    #[test]
    fn errors_say_file_and_where() {
        let e = SnapshotError::at_path("pbsnodes.json", "$.nodes[\"n-1\"].state", "bad");
        assert_eq!(e.to_string(), "pbsnodes.json: $.nodes[\"n-1\"].state: bad");
        assert_eq!(
            SnapshotError::at_line("pbs_rstat.txt", 4, "bad").to_string(),
            "pbs_rstat.txt:4: bad"
        );
        assert_eq!(path_key("$.nodes", "n-1"), "$.nodes[\"n-1\"]");
        assert_eq!(path_key("$", "nodes"), "$.nodes");
    }
}
