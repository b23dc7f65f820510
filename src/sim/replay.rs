//! Replaying a recording (SPEC §5.4).
//!
//! - [`verify`]: rebuild the job set from the recorded submit events, run the live scheduler
//!   with the recorded settings (or another formula) and compare, round by round (rounds are
//!   aligned by number), the round time, the ranked queue (ids in order, values bit for bit)
//!   and every decision. Only complete rounds of a
//!   truncated recording are compared; that is exact because a round depends only on jobs
//!   submitted up to it.
//! - [`reconcile`]: follow the recording and evaluate another formula on the reconstructed
//!   state each round. A recorded `dispatch` captures the job at the round it was recorded,
//!   whatever its state (even still pending, before any RUN confirmation); capture sets it
//!   RUN in the same step, so its cores are charged from that round on. A later RUN event or
//!   a second dispatch of a captured job is a no-op; a job is captured at most once. A job
//!   with no recorded dispatch is never given an allocation: it is reported as uncaptured
//!   (usage unavailable) and the replay goes on. Cores are accounted in aggregate
//!   (`nodes × cores`), not per node.
//! - [`recording_from_trace`]: a real schedule (SWF `submit + wait`) as a recording.

use super::inputs::Source;
use super::metrics;
use super::priority::Priority;
use super::record::{
    ClusterInfo, FORMAT, Header, RecDecision, RecEvent, RecRound, Recording, VERSION,
};
use super::scheduler::{Decision, Policy, SimConfig, SimError, Simulator};
use super::setup::{Setup, SetupError};
use super::share::{ShareKeywords, UsageTree};
use super::workload::{SimJob, Workload};
use crate::rank::{self, TieBreak};
use std::collections::{BTreeMap, HashMap};

/// Where a verification first disagreed.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Divergence {
    pub round: u64,
    pub time: i64,
    /// The job of the first differing decision (`None` when the round itself differs).
    pub job: Option<String>,
    /// The recorded decision (or round time), as JSON text; `null` when absent.
    pub recorded: String,
    /// The live one.
    pub live: String,
}

/// The result of `replay --verify` (SPEC §6 `replay` shape plus detail).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct VerifyReport {
    /// Recorded rounds compared.
    pub rounds: u64,
    /// Recorded decisions compared.
    pub decisions: u64,
    /// Differing decisions (a missing or extra decision counts once; a round whose time
    /// differs counts once, and a round whose ranked queue differs — an id or a value's
    /// bits — once, plus its differing decisions).
    pub mismatches: u64,
    pub first_divergence: Option<Divergence>,
    /// Rounds whose input hash differs (the formula values or the state differed).
    pub input_mismatches: u64,
    /// The recording ended mid-line; verified up to its last complete round.
    pub truncated: bool,
    /// The formula the live scheduler used.
    pub formula: Option<String>,
}

/// An error replaying.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReplayError {
    #[error("round {round}: {reason}")]
    Bad { round: u64, reason: String },
    /// The recorded settings (the header).
    #[error("header: {0}")]
    Setup(#[from] SetupError),
    #[error(transparent)]
    Sim(#[from] SimError),
}

/// The setup of a recording's jobs under its recorded settings: what `--verify` runs and
/// reconciliation follows.
pub fn recorded_setup(rec: &Recording, jobs: &[SimJob]) -> Result<Setup, ReplayError> {
    Ok(Setup::new(&rec.header.config(), jobs)?)
}

/// The jobs of a recording's complete rounds, in submit order.
pub fn recorded_jobs(rec: &Recording) -> Result<Vec<SimJob>, ReplayError> {
    let mut jobs = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for r in &rec.rounds {
        for e in &r.events {
            if let RecEvent::Submit(j) = e {
                if !seen.insert(j.id.clone()) {
                    return Err(ReplayError::Bad {
                        round: r.round,
                        reason: format!("job `{}` submitted twice", j.id),
                    });
                }
                jobs.push((**j).clone());
            }
        }
    }
    jobs.sort_by_key(|j| j.submit);
    Ok(jobs)
}

/// `replay --verify`: drive the recorded jobs through the live scheduler with the recorded
/// settings and `formula` (pass the recorded formula compiled, or another one) and compare.
pub fn verify(
    rec: &Recording,
    formula: Option<&dyn Priority>,
) -> Result<VerifyReport, ReplayError> {
    let jobs = recorded_jobs(rec)?;
    let setup = recorded_setup(rec, &jobs)?;
    let mut sim = Simulator::new(&jobs, &setup, formula)?.with_hashing(true);
    let mut report = VerifyReport {
        rounds: 0,
        decisions: 0,
        mismatches: 0,
        first_divergence: None,
        input_mismatches: 0,
        truncated: rec.truncated,
        formula: formula.map(|f| f.source().to_string()),
    };
    let null = || "null".to_string();
    for r in &rec.rounds {
        report.rounds += 1;
        report.decisions += r.decisions.len() as u64;
        let live = sim.step();
        let Some(live) = live else {
            report.mismatches += r.decisions.len().max(1) as u64;
            if report.first_divergence.is_none() {
                report.first_divergence = Some(Divergence {
                    round: r.round,
                    time: r.time,
                    job: r.decisions.first().map(|d| d.job().to_string()),
                    recorded: r
                        .decisions
                        .first()
                        .map(|d| d.to_string())
                        .unwrap_or_else(null),
                    live: "no round (the live schedule had already ended)".into(),
                });
            }
            continue;
        };
        if live.hash.is_some() && r.hash.is_some() && live.hash != r.hash {
            report.input_mismatches += 1;
        }
        if live.time != r.time || live.number != r.round {
            report.mismatches += 1;
            if report.first_divergence.is_none() {
                report.first_divergence = Some(Divergence {
                    round: r.round,
                    time: r.time,
                    job: None,
                    recorded: format!("{{\"round\":{},\"time\":{}}}", r.round, r.time),
                    live: format!("{{\"round\":{},\"time\":{}}}", live.number, live.time),
                });
            }
        }
        if let Some((recorded, live_q)) = queue_divergence(&r.queue, &live.queue, &jobs) {
            report.mismatches += 1;
            if report.first_divergence.is_none() {
                report.first_divergence = Some(Divergence {
                    round: r.round,
                    time: r.time,
                    job: recorded.or(live_q).map(|(id, _)| id.to_string()),
                    recorded: recorded.map_or_else(null, queue_entry),
                    live: live_q.map_or_else(null, queue_entry),
                });
            }
        }
        let live_d: Vec<RecDecision> = live
            .decisions
            .iter()
            .map(|d| RecDecision::from_live(&jobs, d))
            .collect();
        let n = live_d.len().max(r.decisions.len());
        for i in 0..n {
            let (a, b) = (r.decisions.get(i), live_d.get(i));
            if a != b {
                report.mismatches += 1;
                if report.first_divergence.is_none() {
                    report.first_divergence = Some(Divergence {
                        round: r.round,
                        time: r.time,
                        job: a.or(b).map(|d| d.job().to_string()),
                        recorded: a.map(|d| d.to_string()).unwrap_or_else(null),
                        live: b.map(|d| d.to_string()).unwrap_or_else(null),
                    });
                }
            }
        }
    }
    Ok(report)
}

/// The first entry where a recorded queue and the live one differ, as `(recorded, live)`
/// (`None` on the side that has no entry there); `None` when they agree. Values are compared
/// bit for bit: both sides are the same `f64` written as its shortest round-trip text, so
/// equal bits are the exact test (`0.0` and `-0.0` differ, as they do in the text).
fn queue_divergence<'a>(
    recorded: &'a [(String, f64)],
    live: &[(u32, f64)],
    jobs: &'a [SimJob],
) -> Option<(Option<(&'a str, f64)>, Option<(&'a str, f64)>)> {
    let n = recorded.len().max(live.len());
    (0..n).find_map(|i| {
        let a = recorded.get(i).map(|(id, v)| (id.as_str(), *v));
        let b = live.get(i).map(|&(j, v)| (jobs[j as usize].id.as_str(), v));
        let same = match (a, b) {
            (Some((x, u)), Some((y, v))) => x == y && u.to_bits() == v.to_bits(),
            _ => false,
        };
        (!same).then_some((a, b))
    })
}

/// A queue entry as the recording writes it: `["id",value]`.
fn queue_entry((id, value): (&str, f64)) -> String {
    let v = serde_json::to_string(&value).unwrap_or_else(|_| "null".into());
    format!("[{},{v}]", serde_json::Value::from(id))
}

/// Reconciliation of one round.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RoundReconcile {
    pub round: u64,
    pub time: i64,
    /// Jobs queued (submitted, not captured, not running) when the round decided.
    pub queued: usize,
    /// Recorded dispatches captured this round (first captures only).
    pub captured: Vec<String>,
    /// Jobs the other formula would have started, in its order (same policy, the cores
    /// free before this round's captures).
    pub would_start: Vec<String>,
    /// `would_start` minus the recorded dispatches.
    pub instead: Vec<String>,
    /// Kendall tau between the other formula's order and the recorded order over the queued
    /// jobs (`None` with fewer than 2).
    pub kendall_tau: Option<f64>,
    /// Free cores before this round's captures.
    pub free_cores: i64,
}

/// The result of a reconciliation.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ReconcileReport {
    pub formula: Option<String>,
    pub rounds: u64,
    /// Recorded dispatch decisions seen.
    pub decisions: u64,
    /// Jobs captured.
    pub captured: u64,
    /// Recorded RUN events or repeated dispatches of already captured jobs (no-ops).
    pub noops: u64,
    /// Jobs that were submitted but never had a recorded dispatch (usage unavailable).
    pub uncaptured: Vec<String>,
    /// Mean Kendall tau over rounds with ≥ 2 queued jobs.
    pub mean_kendall_tau: Option<f64>,
    /// Fraction of recorded dispatches the other formula would also have started that round.
    pub agreement: Option<f64>,
    /// Total jobs it would have started instead.
    pub instead_total: u64,
    /// Rounds where the recorded dispatches took more cores than were free.
    pub overcommitted_rounds: u64,
    pub per_round: Vec<RoundReconcile>,
    pub truncated: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Unsubmitted,
    Queued,
    /// Captured (charged `cores` from `start`).
    Running {
        cores: u64,
        start: i64,
    },
    /// RUN seen without a recorded dispatch: out of the queue, nothing charged.
    RunningUnaccounted,
    Done,
}

/// Follow `rec` and compare `formula`'s order with the recorded one each round.
pub fn reconcile(
    rec: &Recording,
    formula: Option<&dyn Priority>,
) -> Result<ReconcileReport, ReplayError> {
    let jobs = recorded_jobs(rec)?;
    let index: HashMap<&str, usize> = jobs
        .iter()
        .enumerate()
        .map(|(i, j)| (j.id.as_str(), i))
        .collect();
    let setup = recorded_setup(rec, &jobs)?;
    let config = setup.config();
    let capacity = config.nodes as i64 * config.cores as i64;
    let mut tree = setup.share_tree().cloned();
    let leaves = setup.leaves();
    let mut state = vec![State::Unsubmitted; jobs.len()];
    let mut ever_dispatched = vec![false; jobs.len()];
    let mut charged: i64 = 0;
    // Incremental views of `state` (ordered by submit order).
    let mut queue_set: std::collections::BTreeSet<usize> = Default::default();
    let mut running_set: std::collections::BTreeSet<usize> = Default::default();
    let mut last_time: Option<i64> = None;
    let sources: Vec<Source> = formula
        .map(|f| f.inputs().iter().map(Source::of).collect())
        .unwrap_or_default();
    let mut report = ReconcileReport {
        formula: formula.map(|f| f.source().to_string()),
        rounds: 0,
        decisions: 0,
        captured: 0,
        noops: 0,
        uncaptured: vec![],
        mean_kendall_tau: None,
        agreement: None,
        instead_total: 0,
        overcommitted_rounds: 0,
        per_round: vec![],
        truncated: rec.truncated,
    };
    let (mut tau_sum, mut tau_n) = (0.0, 0u64);
    let (mut agree, mut recorded_dispatches) = (0u64, 0u64);
    let lookup = |id: &str, round: u64| -> Result<usize, ReplayError> {
        index.get(id).copied().ok_or_else(|| ReplayError::Bad {
            round,
            reason: format!("job `{id}` was never submitted"),
        })
    };
    for r in &rec.rounds {
        report.rounds += 1;
        let t = r.time;
        // Fairshare accrual over the captured running jobs.
        if let (Some(tr), Some(last)) = (tree.as_mut(), last_time) {
            for &i in &running_set {
                if let State::Running { cores, .. } = state[i] {
                    // In f64, as the simulator accrues: cores (≤ 2^32) × seconds (< 2^63)
                    // can pass u64.
                    tr.accrue(leaves[i], cores as f64 * (t - last).max(0) as f64);
                }
            }
        }
        for e in &r.events {
            match e {
                RecEvent::Submit(j) => {
                    let i = lookup(&j.id, r.round)?;
                    if state[i] == State::Unsubmitted {
                        state[i] = State::Queued;
                        queue_set.insert(i);
                    }
                }
                RecEvent::End(id) => {
                    let i = lookup(id, r.round)?;
                    if let State::Running { cores, .. } = state[i] {
                        charged -= cores as i64;
                    }
                    state[i] = State::Done;
                    queue_set.remove(&i);
                    running_set.remove(&i);
                }
                RecEvent::Run(id) => {
                    let i = lookup(id, r.round)?;
                    match state[i] {
                        State::Running { .. } => report.noops += 1,
                        State::Done | State::RunningUnaccounted => {}
                        State::Unsubmitted | State::Queued => {
                            state[i] = State::RunningUnaccounted;
                            queue_set.remove(&i);
                        }
                    }
                }
            }
        }
        if let Some(tr) = tree.as_mut() {
            tr.decay_to(t);
            tr.refresh();
        }
        let queued: Vec<usize> = queue_set.iter().copied().collect();
        let free_before = capacity - charged;
        // The other formula's order over the queue (in submit order: ties by position).
        let values = evaluate(formula, &sources, &jobs, &queued, t, tree.as_ref(), &leaves);
        let alt = rank::order(&values, TieBreak::default(), None);
        let alt_jobs: Vec<usize> = alt.iter().map(|&k| queued[k]).collect();
        let would = would_start(
            &jobs,
            &alt_jobs,
            &state,
            &running_set,
            free_before,
            t,
            config.policy,
            config.threshold,
            &values,
            &alt,
        );
        // The recorded order over the same jobs.
        let recorded_dispatch: Vec<usize> = r
            .decisions
            .iter()
            .filter_map(|d| match d {
                RecDecision::Dispatch { job, .. } => index.get(job.as_str()).copied(),
                _ => None,
            })
            .collect();
        let recorded_order = recorded_order(r, &queued, &recorded_dispatch, &index);
        let tau = kendall_tau(&alt_jobs, &recorded_order);
        if let Some(x) = tau {
            tau_sum += x;
            tau_n += 1;
        }
        // Captures.
        let mut captured = Vec::new();
        for d in &r.decisions {
            let RecDecision::Dispatch { job, cores, .. } = d else {
                continue;
            };
            report.decisions += 1;
            let i = lookup(job, r.round)?;
            ever_dispatched[i] = true;
            match state[i] {
                State::Running { .. } => report.noops += 1,
                State::Done => report.noops += 1,
                _ => {
                    let c = if *cores > 0 {
                        *cores
                    } else {
                        jobs[i].request.total_cores()
                    };
                    state[i] = State::Running { cores: c, start: t };
                    queue_set.remove(&i);
                    running_set.insert(i);
                    charged += c as i64;
                    report.captured += 1;
                    captured.push(jobs[i].id.clone());
                }
            }
        }
        if charged > capacity {
            report.overcommitted_rounds += 1;
        }
        let rec_set: std::collections::HashSet<usize> = recorded_dispatch.iter().copied().collect();
        let instead: Vec<String> = would
            .iter()
            .filter(|i| !rec_set.contains(i))
            .map(|&i| jobs[i].id.clone())
            .collect();
        let would_set: std::collections::HashSet<usize> = would.iter().copied().collect();
        for i in &recorded_dispatch {
            if queued.binary_search(i).is_ok() {
                recorded_dispatches += 1;
                if would_set.contains(i) {
                    agree += 1;
                }
            }
        }
        report.instead_total += instead.len() as u64;
        report.per_round.push(RoundReconcile {
            round: r.round,
            time: t,
            queued: queued.len(),
            captured,
            would_start: would.iter().map(|&i| jobs[i].id.clone()).collect(),
            instead,
            kendall_tau: tau,
            free_cores: free_before,
        });
        last_time = Some(t);
    }
    report.uncaptured = (0..jobs.len())
        .filter(|&i| !ever_dispatched[i])
        .map(|i| jobs[i].id.clone())
        .collect();
    report.mean_kendall_tau = (tau_n > 0).then(|| tau_sum / tau_n as f64);
    report.agreement = (recorded_dispatches > 0).then(|| agree as f64 / recorded_dispatches as f64);
    Ok(report)
}

/// The other formula's values of the `queued` jobs at `t`, the inputs bound by
/// [`crate::sim::inputs`] as in the simulator.
fn evaluate(
    formula: Option<&dyn Priority>,
    sources: &[Source],
    jobs: &[SimJob],
    queued: &[usize],
    t: i64,
    tree: Option<&UsageTree>,
    leaves: &[u32],
) -> Vec<f64> {
    let Some(f) = formula else {
        return vec![0.0; queued.len()];
    };
    let keywords: Vec<Option<ShareKeywords>> = queued
        .iter()
        .map(|&i| tree.map(|tr| tr.keywords(leaves[i])))
        .collect();
    let cols: Vec<Vec<f64>> = sources
        .iter()
        .map(|src| {
            queued
                .iter()
                .zip(&keywords)
                .map(|(&i, kw)| src.value(&jobs[i], t, kw.as_ref()))
                .collect()
        })
        .collect();
    let refs: Vec<&[f64]> = cols.iter().map(Vec::as_slice).collect();
    f.evaluate_columns(&refs, queued.len()).values
}

/// The policy run over `order` on pooled cores.
#[allow(clippy::too_many_arguments)]
fn would_start(
    jobs: &[SimJob],
    order: &[usize],
    state: &[State],
    running: &std::collections::BTreeSet<usize>,
    free: i64,
    t: i64,
    policy: Policy,
    threshold: Option<f64>,
    values: &[f64],
    alt: &[usize],
) -> Vec<usize> {
    let mut free = free;
    let mut out = Vec::new();
    let mut shadow: Option<(i64, i64)> = None; // (time, extra cores at that time)
    for (k, &i) in order.iter().enumerate() {
        if threshold.is_some_and(|th| values[alt[k]] <= th) {
            continue;
        }
        let need = jobs[i].request.total_cores() as i64;
        let fits = need <= free;
        match policy {
            Policy::Strict => {
                if !fits {
                    break;
                }
            }
            Policy::Easy => match shadow {
                None if !fits => {
                    // Running jobs by requested end.
                    let mut ends: Vec<(i64, i64)> = running
                        .iter()
                        .filter_map(|&x| match state[x] {
                            State::Running { cores, start } => {
                                Some((start + jobs[x].walltime, cores as i64))
                            }
                            _ => None,
                        })
                        .collect();
                    ends.sort_unstable();
                    let mut avail = free;
                    let mut s = (i64::MAX, 0);
                    for (e, c) in ends {
                        avail += c;
                        if avail >= need {
                            s = (e, avail - need);
                            break;
                        }
                    }
                    shadow = Some(s);
                    continue;
                }
                None => {}
                Some(_) if !fits => continue,
                Some((st, extra)) if t + jobs[i].walltime > st => {
                    if need > extra {
                        continue;
                    }
                    shadow = Some((st, extra - need));
                }
                Some(_) => {}
            },
        }
        free -= need;
        out.push(i);
    }
    out
}

fn recorded_order(
    r: &RecRound,
    queued: &[usize],
    dispatched: &[usize],
    index: &HashMap<&str, usize>,
) -> Vec<usize> {
    let qset: std::collections::HashSet<usize> = queued.iter().copied().collect();
    let mut out = Vec::with_capacity(queued.len());
    let mut seen = std::collections::HashSet::new();
    if !r.queue.is_empty() {
        for (id, _) in &r.queue {
            if let Some(&i) = index.get(id.as_str())
                && qset.contains(&i)
                && seen.insert(i)
            {
                out.push(i);
            }
        }
    } else {
        for &i in dispatched {
            if qset.contains(&i) && seen.insert(i) {
                out.push(i);
            }
        }
    }
    for &i in queued {
        if seen.insert(i) {
            out.push(i);
        }
    }
    out
}

/// Kendall tau-a between two orderings of the same items (`None` with fewer than 2).
/// O(n log n) by counting inversions.
pub fn kendall_tau(a: &[usize], b: &[usize]) -> Option<f64> {
    let n = a.len();
    if n < 2 || b.len() != n {
        return None;
    }
    let pos: HashMap<usize, usize> = b.iter().enumerate().map(|(k, &x)| (x, k)).collect();
    let mut seq: Vec<usize> = a.iter().filter_map(|x| pos.get(x).copied()).collect();
    if seq.len() != n {
        return None;
    }
    let inv = inversions(&mut seq);
    let pairs = (n * (n - 1) / 2) as f64;
    Some(1.0 - 2.0 * inv as f64 / pairs)
}

fn inversions(v: &mut [usize]) -> u64 {
    let n = v.len();
    if n < 2 {
        return 0;
    }
    let mid = n / 2;
    let mut inv = inversions(&mut v[..mid]) + inversions(&mut v[mid..]);
    let mut merged = Vec::with_capacity(n);
    let (mut i, mut j) = (0, mid);
    while i < mid && j < n {
        if v[i] <= v[j] {
            merged.push(v[i]);
            i += 1;
        } else {
            merged.push(v[j]);
            inv += (mid - i) as u64;
            j += 1;
        }
    }
    merged.extend_from_slice(&v[i..mid]);
    merged.extend_from_slice(&v[j..n]);
    v.copy_from_slice(&merged);
    inv
}

/// A real schedule as a recording: rounds at every submit, start and end time of an SWF
/// trace with recorded waits. Jobs without a recorded start are never dispatched (they show
/// up as uncaptured). Ends use the trace's run time.
pub fn recording_from_trace(w: &Workload, config: &SimConfig) -> Recording {
    // Per time: (ends, submits, starts) as job indices.
    type AtTime = (Vec<usize>, Vec<usize>, Vec<usize>);
    let mut at: BTreeMap<i64, AtTime> = BTreeMap::new();
    for (i, j) in w.jobs.iter().enumerate() {
        at.entry(j.submit).or_default().1.push(i);
        if let Some(s) = j.recorded_start {
            at.entry(s).or_default().2.push(i);
            at.entry(s + j.run).or_default().0.push(i);
        }
    }
    let mut rounds = Vec::with_capacity(at.len());
    for (k, (t, (ends, submits, starts))) in at.into_iter().enumerate() {
        let mut events: Vec<RecEvent> = ends
            .iter()
            .map(|&i| RecEvent::End(w.jobs[i].id.clone()))
            .collect();
        events.extend(
            submits
                .iter()
                .map(|&i| RecEvent::Submit(Box::new(w.jobs[i].clone()))),
        );
        let decisions = starts
            .iter()
            .map(|&i| RecDecision::Dispatch {
                job: w.jobs[i].id.clone(),
                nodes: vec![],
                cores: w.jobs[i].request.total_cores(),
            })
            .collect();
        rounds.push(RecRound {
            line: k + 2,
            round: k as u64,
            time: t,
            events,
            queue: vec![],
            decisions,
            hash: None,
        });
    }
    Recording {
        header: Header {
            format: FORMAT.into(),
            version: VERSION,
            trace: super::run::trace_info(w),
            formula: None,
            policy: config.policy,
            cluster: ClusterInfo {
                nodes: config.nodes,
                cores: config.cores,
            },
            threshold: config.threshold,
            fairshare: config.fairshare.clone(),
            limits: config.limits.clone(),
        },
        rounds,
        truncated: false,
    }
}

/// Metrics of the recorded schedule of a trace (start = submit + wait, end = start + run).
pub fn recorded_metrics(w: &Workload, capacity: u64) -> metrics::Metrics {
    let start: Vec<Option<i64>> = w.jobs.iter().map(|j| j.recorded_start).collect();
    let end: Vec<Option<i64>> = w
        .jobs
        .iter()
        .map(|j| j.recorded_start.map(|s| s + j.run))
        .collect();
    metrics::compute(&w.jobs, &start, &end, capacity)
}

/// Live decision → recorded form (re-export for callers comparing by hand).
pub fn live_decision(jobs: &[SimJob], d: &Decision) -> RecDecision {
    RecDecision::from_live(jobs, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kendall_tau_counts_discordant_pairs() {
        assert_eq!(kendall_tau(&[1, 2, 3], &[1, 2, 3]), Some(1.0));
        assert_eq!(kendall_tau(&[3, 2, 1], &[1, 2, 3]), Some(-1.0));
        // One discordant pair of three.
        assert!((kendall_tau(&[2, 1, 3], &[1, 2, 3]).unwrap() - (1.0 / 3.0)).abs() < 1e-12);
        assert_eq!(kendall_tau(&[1], &[1]), None);
    }
}
