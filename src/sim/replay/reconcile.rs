//! Reconciliation: follow a recording and rank its queue by another formula each round.

use super::kendall::kendall_tau;
use super::{ReplayError, recorded_jobs, recorded_setup};
use crate::pbs::share::{ShareKeywords, UsageTree};
use crate::rank::{self, TieBreak};
use crate::sim::inputs::Source;
use crate::sim::priority::Priority;
use crate::sim::record::{RecDecision, RecEvent, RecRound, Recording};
use crate::sim::scheduler::{Plan, Policy, tiered_turns_into};
use crate::workload::{Request, SimJob};
use std::collections::HashMap;

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
    /// Jobs it would have started instead of the recorded ones, each counted once however
    /// many rounds it was one (a round's list is in `per_round`).
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
    let setup = recorded_setup(&rec.header, &jobs)?;
    let config = setup.config();
    let capacity = config.nodes as i64 * config.cores as i64;
    let mut tree = setup.share_tree().cloned();
    let leaves = setup.leaves();
    // Queue tiers before the formula, as the simulator ranks (`tiered_top_into`).
    let tiers = config.queue_order.as_ref().map(|o| o.tiers(&jobs));
    let tier_levels = config.queue_order.as_ref().and_then(|o| {
        let queues: Vec<&str> = jobs.iter().map(|j| j.queue.as_str()).collect();
        o.round_robin_levels(&queues)
    });
    let mut tier_keys = Vec::new();
    let mut state = vec![State::Unsubmitted; jobs.len()];
    let mut ever_dispatched = vec![false; jobs.len()];
    // The jobs counted in `instead_total`: a job counts once, not once a round.
    let mut ever_instead = vec![false; jobs.len()];
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
                    // In f64, as the simulator accrues: the rate (with `cput`, the cores)
                    // × seconds.
                    let rate = setup.usage().rate(&jobs[i], cores);
                    tr.accrue(leaves[i], rate * (t - last).max(0) as f64);
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
        let values = evaluate(formula, &sources, &jobs, &queued, t, tree.as_ref(), leaves);
        let alt: Vec<usize> = match &tiers {
            Some(tiers) => {
                let mut out = Vec::new();
                let tier_of = |k: usize| tiers[queued[k]];
                let levels = tier_levels.as_deref();
                tiered_turns_into(&values, tier_of, levels, None, &mut tier_keys, &mut out);
                out.into_iter().map(|k| k as usize).collect()
            }
            None => rank::order(&values, TieBreak::default(), None),
        };
        let alt_jobs: Vec<usize> = alt.iter().map(|&k| queued[k]).collect();
        let would = would_start(
            &jobs,
            &alt_jobs,
            &state,
            &running_set,
            free_before,
            t,
            config.policy,
            (config.nodes, config.cores),
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
                    captured.push(jobs[i].id.to_string());
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
            .map(|&i| jobs[i].id.to_string())
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
        for &i in would.iter().filter(|i| !rec_set.contains(i)) {
            if !ever_instead[i] {
                ever_instead[i] = true;
                report.instead_total += 1;
            }
        }
        report.per_round.push(RoundReconcile {
            round: r.round,
            time: t,
            queued: queued.len(),
            captured,
            would_start: would.iter().map(|&i| jobs[i].id.to_string()).collect(),
            instead,
            kendall_tau: tau,
            free_cores: free_before,
        });
        last_time = Some(t);
    }
    report.uncaptured = (0..jobs.len())
        .filter(|&i| !ever_dispatched[i])
        .map(|i| jobs[i].id.to_string())
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
    pool: (u32, u32),
    threshold: Option<f64>,
    values: &[f64],
    alt: &[usize],
) -> Vec<usize> {
    let mut free = free;
    let mut out = Vec::new();
    let mut shadow: Option<(i64, i64)> = None; // (time, extra cores at that time)
    let mut plan: Option<Plan> = None; // deeper backfill, on pooled cores
    // Slurm: jobs tested, and whether one did not start (the simulator's rule, `dispatch.rs`).
    let (mut tested, mut blocked) = (0usize, false);
    for (k, &i) in order.iter().enumerate() {
        if threshold.is_some_and(|th| values[alt[k]] <= th) {
            continue;
        }
        let need = jobs[i].request.total_cores() as i64;
        let fits = need <= free;
        if let Policy::Slurm(bf) = policy {
            if tested >= bf.bf_max_job_test as usize && (blocked || !fits) {
                break; // past the backfill pass, the main scheduler stops here
            }
            tested += 1;
        }
        match policy {
            Policy::Strict => {
                if !fits {
                    break;
                }
            }
            Policy::Backfill(_) | Policy::Conservative | Policy::Slurm(_) => {
                let p = plan.get_or_insert_with(|| {
                    let running: Vec<(i64, u64)> = running
                        .iter()
                        .filter_map(|&x| match state[x] {
                            State::Running { cores, start } => {
                                Some((start + jobs[x].walltime, cores))
                            }
                            _ => None,
                        })
                        .collect();
                    let (nodes, per_node) = pool;
                    Plan::pooled(nodes, per_node, t, &running).with_rules(policy)
                });
                let req = Request::Procs(u32::try_from(need).unwrap_or(u32::MAX));
                if !(fits && p.try_start(&req, jobs[i].walltime)) {
                    blocked = true;
                    if policy.depth().is_none_or(|d| p.reservations() < d as usize) {
                        p.reserve(&req, jobs[i].walltime);
                    }
                    continue;
                }
            }
            Policy::Fill if !fits => continue,
            Policy::Fill => {}
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
