//! Property test: random event sequences (submits, runs, ends, limit updates over several
//! associations and queues) against a naive reference model.
//!
//! The model keeps no counters: it recomputes every count by summing over the jobs each
//! time, keeps held jobs in submission order, and re-implements the predicates and the
//! release pass (with pass-local pending run counters, raised only for a job whose
//! running-jobs dependency the pass removed, as flux's `released_assoc_run`) from the
//! reference text. After every
//! event the engine must produce the model's changes exactly, and:
//! - every counter is non-negative and equals a recount from the job states
//!   (`check_consistency`);
//! - a held job's dependencies are exactly the limits it hit at its last check (the model's
//!   deps, compared after every event);
//! - with `count_sched_in_resources`, RUN + SCHED nodes/cores never exceed an
//!   association's `max_nodes`/`max_cores`, and RUN + SCHED jobs never exceed the
//!   association's or the queue's `max_running_jobs` (updates in that mode never lower
//!   them);
//! - a failed operation leaves the engine unchanged.
//!
//! Cases: `PROPTEST_CASES` (default 256) sequences of up to 120 events.

use jobsort::flux::limits::{
    AssocConfig, AssocLimits, AssocUpdate, Change, Dependency, JobSpec, JobState, LimitEngine,
    Options, QueueConfig, QueueLimits, QueueUpdate,
};
use proptest::prelude::*;

const ASSOCS: [(&str, &str); 3] = [("u0", "A"), ("u0", "B"), ("u1", "A")];
const QUEUES: [&str; 2] = ["q0", "q1"];

#[derive(Clone, Debug)]
enum Ev {
    Submit {
        assoc: usize,
        queue: usize, // 0..2 known, 2 unknown "qx", 3 none
        nnodes: i64,
        ncores: i64,
    },
    Run(usize),
    End(usize),
    UpdateAssoc {
        assoc: usize,
        field: usize,
        value: i64,
    },
    UpdateQueue {
        queue: usize,
        field: usize,
        value: i64,
    },
}

fn ev() -> impl Strategy<Value = Ev> {
    prop_oneof![
        4 => (0..3usize, 0..4usize, 0..4i64, 0..6i64).prop_map(|(assoc, queue, nnodes, ncores)| Ev::Submit { assoc, queue, nnodes, ncores }),
        3 => (0..64usize).prop_map(Ev::Run),
        3 => (0..64usize).prop_map(Ev::End),
        1 => (0..3usize, 0..5usize, -1..7i64).prop_map(|(assoc, field, value)| Ev::UpdateAssoc { assoc, field, value }),
        1 => (0..2usize, 0..5usize, -1..7i64).prop_map(|(queue, field, value)| Ev::UpdateQueue { queue, field, value }),
    ]
}

fn assoc_limits() -> impl Strategy<Value = AssocLimits> {
    (
        0..4i64,
        0..9i64,
        0..9i64,
        0..13i64,
        prop_oneof![0..4i64, Just(2147483647i64)],
    )
        .prop_map(|(r, a, n, c, s)| AssocLimits {
            max_running_jobs: r,
            max_active_jobs: a,
            max_nodes: n,
            max_cores: c,
            max_sched_jobs: s,
            // Both queues: flux rejects a known queue not in the list (`get_queue_info`).
            queues: QUEUES.iter().map(|q| q.to_string()).collect(),
            active: true,
        })
}

fn queue_limits() -> impl Strategy<Value = QueueLimits> {
    (0..4i64, 1..9i64, 0..5i64, 0..9i64, 0..13i64).prop_map(|(r, n, s, sn, sc)| QueueLimits {
        priority: 0,
        max_running_jobs: r,
        max_nodes_per_assoc: n,
        max_sched_jobs: s,
        max_sched_nodes_per_assoc: sn,
        max_sched_cores_per_assoc: sc,
    })
}

// ---- the reference model ----------------------------------------------------------------

#[derive(Clone, Debug)]
struct MJob {
    id: String,
    assoc: usize,
    queue: Option<usize>,
    nnodes: i64,
    ncores: i64,
    state: JobState,
    deps: Vec<Dependency>,
}

#[derive(Clone, Debug)]
struct Model {
    count_sched: bool,
    assocs: Vec<AssocLimits>,
    queues: Vec<QueueLimits>,
    jobs: Vec<MJob>, // submission order
}

#[derive(Default, Clone, Copy)]
struct Sums {
    run: i64,
    sched: i64,
    active: i64,
    nodes: i64,
    cores: i64,
    sched_nodes: i64,
    sched_cores: i64,
}

impl Model {
    fn sums(&self, assoc: usize, queue: Option<usize>) -> Sums {
        let mut s = Sums::default();
        for j in &self.jobs {
            if j.assoc != assoc || (queue.is_some() && j.queue != queue) {
                continue;
            }
            match j.state {
                JobState::Run => {
                    s.run += 1;
                    s.nodes += j.nnodes;
                    s.cores += j.ncores;
                }
                JobState::Sched => {
                    s.sched += 1;
                    s.sched_nodes += j.nnodes;
                    s.sched_cores += j.ncores;
                }
                _ => {}
            }
            if j.state != JobState::Inactive {
                s.active += 1;
            }
        }
        s
    }

    /// Whether `dep` holds job `j` (not yet counted anywhere), with pending run counts.
    fn hit(&self, j: &MJob, dep: Dependency, pend_run: i64, pend_qrun: i64) -> bool {
        let a = self.sums(j.assoc, None);
        let l = &self.assocs[j.assoc];
        use Dependency::*;
        match dep {
            MaxRunningJobsUser if self.count_sched => a.run + a.sched >= l.max_running_jobs,
            MaxRunningJobsUser => a.run + pend_run >= l.max_running_jobs,
            MaxSchedJobsUser => a.sched >= l.max_sched_jobs,
            MaxResourcesUser => {
                let (n, c) = if self.count_sched {
                    (a.nodes + a.sched_nodes, a.cores + a.sched_cores)
                } else {
                    (a.nodes, a.cores)
                };
                !(l.max_nodes > 0
                    && l.max_cores > 0
                    && n + j.nnodes <= l.max_nodes
                    && c + j.ncores <= l.max_cores)
            }
            _ => {
                let Some(qi) = j.queue else { return false };
                let q = self.sums(j.assoc, Some(qi));
                let ql = &self.queues[qi];
                match dep {
                    MaxRunJobsQueue if self.count_sched => q.run + q.sched >= ql.max_running_jobs,
                    MaxRunJobsQueue => q.run + pend_qrun >= ql.max_running_jobs,
                    MaxSchedJobsQueue => q.sched >= ql.max_sched_jobs,
                    MaxSchedNodesQueue => q.sched_nodes + j.nnodes > ql.max_sched_nodes_per_assoc,
                    MaxSchedCoresQueue => q.sched_cores + j.ncores > ql.max_sched_cores_per_assoc,
                    MaxResourcesQueue => {
                        q.nodes + q.sched_nodes + j.nnodes > ql.max_nodes_per_assoc
                    }
                    _ => unreachable!(),
                }
            }
        }
    }

    fn pass(&mut self, assoc: usize, out: &mut Vec<String>) {
        let mut pend_run = 0;
        let mut pend_q = [0i64; 2];
        for k in 0..self.jobs.len() {
            let j = self.jobs[k].clone();
            if j.assoc != assoc || j.state != JobState::Depend {
                continue;
            }
            let pq = j.queue.map(|q| pend_q[q]).unwrap_or(0);
            let mut kept = Vec::new();
            // Whether this pass removed the job's running-jobs dependency (association,
            // queue): flux's `job_assoc_run` / `job_queue_run`.
            let (mut removed_run, mut removed_qrun) = (false, false);
            for d in &j.deps {
                if self.hit(&j, *d, pend_run, pq) {
                    kept.push(*d);
                } else {
                    removed_run |= *d == Dependency::MaxRunningJobsUser;
                    removed_qrun |= *d == Dependency::MaxRunJobsQueue;
                    out.push(format!("{} -{}", j.id, d.name()));
                }
            }
            if kept.is_empty() && self.count_sched {
                // Leaving DEPEND needs every check a submission would pass.
                for d in Dependency::ALL {
                    if self.hit(&j, d, pend_run, pq) {
                        kept.push(d);
                        out.push(format!("{} +{}", j.id, d.name()));
                    }
                }
            }
            if kept.is_empty() {
                self.jobs[k].state = JobState::Sched;
                out.push(format!("{} sched", j.id));
                // A released job reserves running-jobs headroom in this pass only where the
                // pass removed that dependency (flux's `released_assoc_run`,
                // `released_queue_run`).
                if removed_run {
                    pend_run += 1;
                }
                if let Some(q) = j.queue.filter(|_| removed_qrun) {
                    pend_q[q] += 1;
                }
            }
            self.jobs[k].deps = kept;
        }
    }

    fn pass_all(&mut self, out: &mut Vec<String>) {
        for a in 0..self.assocs.len() {
            if self
                .jobs
                .iter()
                .any(|j| j.assoc == a && j.state == JobState::Depend)
            {
                self.pass(a, out);
            }
        }
    }
}

fn render(changes: &[Change]) -> Vec<String> {
    changes
        .iter()
        .map(|c| match c {
            Change::Rejected { job, .. } => format!("{job} rejected"),
            Change::DependencyAdd {
                job,
                dependency_add,
            } => format!("{job} +{}", dependency_add.name()),
            Change::DependencyRemove {
                job,
                dependency_remove,
            } => format!("{job} -{}", dependency_remove.name()),
            Change::State { job, state } => format!(
                "{job} {}",
                serde_json::to_value(state).unwrap().as_str().unwrap()
            ),
        })
        .collect()
}

fn set_assoc(l: &mut AssocLimits, field: usize, v: i64) -> AssocUpdate {
    let d = AssocLimits::default();
    let r = |v: i64, def: i64| if v == -1 { def } else { v };
    let mut u = AssocUpdate::default();
    match field {
        0 => {
            l.max_running_jobs = r(v, d.max_running_jobs);
            u.max_running_jobs = Some(v);
        }
        1 => {
            l.max_active_jobs = r(v, d.max_active_jobs);
            u.max_active_jobs = Some(v);
        }
        2 => {
            l.max_nodes = r(v, d.max_nodes);
            u.max_nodes = Some(v);
        }
        3 => {
            l.max_cores = r(v, d.max_cores);
            u.max_cores = Some(v);
        }
        _ => {
            l.max_sched_jobs = r(v, d.max_sched_jobs);
            u.max_sched_jobs = Some(v);
        }
    }
    u
}

fn set_queue(l: &mut QueueLimits, field: usize, v: i64) -> QueueUpdate {
    let d = QueueLimits::default();
    let r = |v: i64, def: i64| if v == -1 { def } else { v };
    let mut u = QueueUpdate::default();
    match field {
        0 => {
            l.max_running_jobs = r(v, d.max_running_jobs);
            u.max_running_jobs = Some(v);
        }
        1 => {
            l.max_nodes_per_assoc = r(v, d.max_nodes_per_assoc);
            u.max_nodes_per_assoc = Some(v);
        }
        2 => {
            l.max_sched_jobs = r(v, d.max_sched_jobs);
            u.max_sched_jobs = Some(v);
        }
        3 => {
            l.max_sched_nodes_per_assoc = r(v, d.max_sched_nodes_per_assoc);
            u.max_sched_nodes_per_assoc = Some(v);
        }
        _ => {
            l.max_sched_cores_per_assoc = r(v, d.max_sched_cores_per_assoc);
            u.max_sched_cores_per_assoc = Some(v);
        }
    }
    u
}

fn run_sequence(
    count_sched: bool,
    alims: Vec<AssocLimits>,
    qlims: Vec<QueueLimits>,
    evs: Vec<Ev>,
) -> Result<(), TestCaseError> {
    let mut e = LimitEngine::new(Options {
        count_sched_in_resources: count_sched,
        ..Options::default()
    });
    for (i, q) in QUEUES.iter().enumerate() {
        e.add_queue(&QueueConfig {
            name: q.to_string(),
            limits: qlims[i].clone(),
        })
        .unwrap();
    }
    for (i, (u, b)) in ASSOCS.iter().enumerate() {
        e.add_association(&AssocConfig {
            user: u.to_string(),
            bank: b.to_string(),
            userid: i as i64,
            fairshare: 0.5,
            default_bank: false,
            limits: alims[i].clone(),
        })
        .unwrap();
    }
    let mut m = Model {
        count_sched,
        assocs: alims,
        queues: qlims,
        jobs: Vec::new(),
    };
    let mut next = 0;
    for (n, ev) in evs.into_iter().enumerate() {
        let before = serde_json::to_string(&e.query()).unwrap();
        let mut want = Vec::new();
        let got: Result<Vec<Change>, _> = match ev {
            Ev::Submit {
                assoc,
                queue,
                nnodes,
                ncores,
            } => {
                next += 1;
                let id = format!("j{next}");
                let qname = match queue {
                    0 | 1 => Some(QUEUES[queue].to_string()),
                    2 => Some("qx".to_string()),
                    _ => None,
                };
                let qi = (queue < 2).then_some(queue);
                let l = &m.assocs[assoc];
                let s = m.sums(assoc, None);
                let reject = (l.max_active_jobs > 0 && s.active >= l.max_active_jobs)
                    || qi.is_some_and(|q| nnodes > m.queues[q].max_nodes_per_assoc)
                    || nnodes > l.max_nodes
                    || ncores > l.max_cores;
                let mut j = MJob {
                    id: id.clone(),
                    assoc,
                    queue: qi,
                    nnodes,
                    ncores,
                    state: JobState::Inactive,
                    deps: Vec::new(),
                };
                if reject {
                    want.push(format!("{id} rejected"));
                } else {
                    j.deps = Dependency::ALL
                        .into_iter()
                        .filter(|d| m.hit(&j, *d, 0, 0))
                        .collect();
                    if j.deps.is_empty() {
                        j.state = JobState::Sched;
                        want.push(format!("{id} sched"));
                    } else {
                        j.state = JobState::Depend;
                        want.extend(j.deps.iter().map(|d| format!("{id} +{}", d.name())));
                    }
                }
                m.jobs.push(j);
                let (u, b) = ASSOCS[assoc];
                e.submit(JobSpec {
                    id: id.clone(),
                    user: u.into(),
                    bank: Some(b.into()),
                    queue: qname,
                    nnodes,
                    ncores,
                })
                .map(|o| o.changes(&id))
            }
            Ev::Run(k) => {
                let id = format!("j{}", k % (next + 2));
                match m.jobs.iter().position(|j| j.id == id) {
                    Some(p) if m.jobs[p].state == JobState::Sched => {
                        m.jobs[p].state = JobState::Run;
                        want.push(format!("{id} run"));
                        let a = m.jobs[p].assoc;
                        m.pass(a, &mut want);
                    }
                    _ => want.push("error".into()),
                }
                e.run(&id)
            }
            Ev::End(k) => {
                let id = format!("j{}", k % (next + 2));
                match m.jobs.iter().position(|j| j.id == id) {
                    Some(p) if m.jobs[p].state != JobState::Inactive => {
                        let was = m.jobs[p].state;
                        m.jobs[p].state = JobState::Inactive;
                        m.jobs[p].deps.clear();
                        want.push(format!("{id} inactive"));
                        if was != JobState::Depend {
                            let a = m.jobs[p].assoc;
                            m.pass(a, &mut want);
                        }
                    }
                    _ => want.push("error".into()),
                }
                e.end(&id)
            }
            Ev::UpdateAssoc {
                assoc,
                field,
                mut value,
            } => {
                if count_sched && matches!(field, 0 | 2 | 3) && value != -1 {
                    let l = &m.assocs[assoc];
                    let cur = match field {
                        0 => l.max_running_jobs,
                        2 => l.max_nodes,
                        _ => l.max_cores,
                    };
                    value = value.max(cur);
                }
                let u = set_assoc(&mut m.assocs[assoc], field, value);
                m.pass_all(&mut want);
                let (user, bank) = ASSOCS[assoc];
                e.update_association(user, bank, &u)
            }
            Ev::UpdateQueue {
                queue,
                field,
                mut value,
            } => {
                if count_sched && field == 0 && value != -1 {
                    value = value.max(m.queues[queue].max_running_jobs);
                }
                let u = set_queue(&mut m.queues[queue], field, value);
                m.pass_all(&mut want);
                e.update_queue(QUEUES[queue], &u)
            }
        };
        match got {
            Ok(ch) => prop_assert_eq!(render(&ch), want, "event {}", n),
            Err(err) => {
                prop_assert_eq!(want, vec!["error".to_string()], "event {}: {}", n, err);
                prop_assert_eq!(serde_json::to_string(&e.query()).unwrap(), before);
            }
        }
        e.check_consistency().map_err(TestCaseError::fail)?;
        for (i, a) in e.associations().iter().enumerate() {
            let c = &a.counters;
            for v in [
                c.cur_run_jobs,
                c.cur_active_jobs,
                c.cur_sched_jobs,
                c.cur_nodes,
                c.cur_cores,
                c.cur_sched_nodes,
                c.cur_sched_cores,
            ] {
                prop_assert!(v >= 0, "negative counter in {:?}", c);
            }
            for u in a.queue_usage.values() {
                prop_assert!(
                    u.cur_run_jobs >= 0
                        && u.cur_nodes >= 0
                        && u.cur_sched_jobs >= 0
                        && u.cur_sched_nodes >= 0
                        && u.cur_sched_cores >= 0
                );
            }
            if count_sched {
                prop_assert!(c.cur_nodes + c.cur_sched_nodes <= a.limits.max_nodes.max(0));
                prop_assert!(c.cur_cores + c.cur_sched_cores <= a.limits.max_cores.max(0));
                prop_assert!(
                    c.cur_run_jobs + c.cur_sched_jobs <= a.limits.max_running_jobs.max(0),
                    "run-job overshoot in {:?}",
                    c
                );
                for (qi, u) in &a.queue_usage {
                    let max = e.queues()[*qi].limits.max_running_jobs;
                    prop_assert!(
                        u.cur_run_jobs + u.cur_sched_jobs <= max.max(0),
                        "queue run-job overshoot in {:?}",
                        u
                    );
                }
            }
            // Held deps are the model's (the limits hit at the last check), FIFO order.
            let held: Vec<(String, Vec<Dependency>)> = a
                .held
                .iter()
                .map(|id| (id.clone(), e.job(id).unwrap().deps.clone()))
                .collect();
            let want_held: Vec<(String, Vec<Dependency>)> = m
                .jobs
                .iter()
                .filter(|j| j.assoc == i && j.state == JobState::Depend)
                .map(|j| (j.id.clone(), j.deps.clone()))
                .collect();
            prop_assert_eq!(held, want_held);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256),
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_sequences_match_the_model(
        count_sched in any::<bool>(),
        alims in proptest::collection::vec(assoc_limits(), 3),
        qlims in proptest::collection::vec(queue_limits(), 2),
        evs in proptest::collection::vec(ev(), 1..120),
    ) {
        run_sequence(count_sched, alims, qlims, evs)?;
    }
}
