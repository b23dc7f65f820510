//! Slurm's multifactor priority in simulated time (`sim --slurm-conf` with
//! `PriorityType=priority/multifactor`): the association tree's usage accrues and decays as
//! slurmctld's decay thread does it, and each queued job's factors are what slurmctld last
//! stored for it. The weights, the factors and the integer priority are
//! [`Multifactor`]'s; the fairshare factors are [`crate::fairshare::slurm`]'s (Fair Tree or
//! classic) on this tree. Facts and sources: `shared/reference/slurm_flux.md` §1.2 and
//! `scheduler_data.md` §5, from Slurm 22.05 `src/plugins/priority/multifactor/
//! priority_multifactor.c`.
//!
//! **Usage** ([`SlurmShare`]), as `_decay_thread` and `_apply_new_usage`:
//! - `decay_factor = 1 - 0.693 / PriorityDecayHalfLife` (a per-second factor; 1 without
//!   decay). The thread runs at the simulation's first event and then every
//!   `PriorityCalcPeriod` (ticks `t0`, `t0 + p`, ...). At a tick `T` after one at `L`: every
//!   association's usage is multiplied by `pow(decay_factor, T - L)` (at least `DBL_MIN`),
//!   then each running job adds `run_delta * pow(decay_factor, run_delta) * cpus` to its
//!   association and every parent up to the root, `run_delta` being the seconds it ran in
//!   `[L, T]` (its billable TRES is its CPU count: `TRESBillingWeights` is not simulated, nor
//!   a QOS `UsageFactor`). Then the fairshare factors are recomputed (`fair_tree_decay`, or
//!   `_set_non_fair_tree_fs_factor`).
//! - A job's end adds its last slice at once (`priority_p_job_end` calls `_apply_new_usage`
//!   from the last tick to the end), not at the next tick.
//! - Ticks at a time that also has events run first: a job ending at a tick has its last
//!   slice charged by the tick.
//! - Fair Tree's order is followed exactly (`fair_tree_decay`: every job's new usage, then
//!   the factors, then the priorities). Classic fairshare (`NO_FAIR_TREE`) is computed in
//!   the same order; slurmctld instead computes the accounts' effective usage before the
//!   tick's decay and each job's factor while the tick's usage is still being added, job by
//!   job, so its classic factors can lag ours by one tick's usage.
//! - Usage is `f64` here; slurmctld's `usage_raw` is a `long double` (80-bit on x86-64), so
//!   its last bits can differ after many additions.
//!
//! **Priorities**, as slurmctld stores them: a job's priority is computed when it is
//! submitted (`priority_p_set`) and again at every tick (`decay_apply_weighted_factors`), so
//! in a round at `t` a queued job's factors are those at `max(last tick, submit)`: its age
//! from its eligible time (its submit: the simulator has no holds, dependencies or begin
//! times, so `ACCRUE_ALWAYS` changes nothing), its association's fairshare factor of the last
//! tick, and its job size, partition, QOS, TRES, site and nice factors, which do not change
//! while it waits.

use crate::fairshare::slurm;
use crate::fairshare::tree::{ShareTree, Shares};
use crate::slurm::conf::{ResetPeriod, SlurmConf};
use crate::slurm::multifactor::{Factors, JobInputs, Multifactor};
use crate::workload::SimJob;

/// What slurm.conf sets for the usage in simulated time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecaySettings {
    /// `PriorityDecayHalfLife` in seconds; 0: no decay.
    pub half_life: u32,
    /// `PriorityCalcPeriod` in seconds (at least 60).
    pub calc_period: u32,
    /// Fair Tree (else classic fairshare).
    pub fair_tree: bool,
    /// `FairShareDampeningFactor` (classic only; default 1).
    pub dampening: f64,
}

/// A slurm.conf setting the simulation cannot follow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{setting}: {reason}")]
pub struct UnsimulatedSetting {
    pub setting: String,
    pub reason: String,
}

impl DecaySettings {
    /// The settings of `conf`. `PriorityUsageResetPeriod` other than `NONE`/`NOW` (a reset at
    /// local calendar times) and `PriorityFlags=DEPTH_OBLIVIOUS` are refused; `NOW` clears the
    /// usage when slurmctld starts, which is where the simulation starts anyway.
    pub fn of(conf: &SlurmConf) -> Result<DecaySettings, UnsimulatedSetting> {
        let p = &conf.priority;
        let at = |key: &str| {
            conf.settings
                .get(key)
                .map_or_else(|| key.to_string(), |(_, at)| format!("{key} at {at}"))
        };
        if !matches!(p.usage_reset_period, ResetPeriod::None | ResetPeriod::Now) {
            return Err(UnsimulatedSetting {
                setting: at("PriorityUsageResetPeriod"),
                reason: format!(
                    "{:?} resets usage at local calendar times; not simulated (use NONE)",
                    p.usage_reset_period
                ),
            });
        }
        if p.flags.depth_oblivious {
            return Err(UnsimulatedSetting {
                setting: at("PriorityFlags"),
                reason: "DEPTH_OBLIVIOUS fairshare is not simulated".into(),
            });
        }
        let dampening = match conf.settings.get("FairShareDampeningFactor") {
            None => 1.0,
            Some((v, _)) => match v.trim().parse::<u16>() {
                Ok(d) if d >= 1 => f64::from(d),
                _ => {
                    return Err(UnsimulatedSetting {
                        setting: at("FairShareDampeningFactor"),
                        reason: format!("`{v}` is not a whole number from 1 to 65535"),
                    });
                }
            },
        };
        Ok(DecaySettings {
            half_life: p.decay_half_life,
            calc_period: p.calc_period.max(60),
            fair_tree: p.flags.fair_tree,
            dampening,
        })
    }

    /// `_decay_thread`'s per-second `decay_factor`.
    pub fn decay_factor(&self) -> f64 {
        if self.half_life > 0 {
            1.0 - 0.693 / f64::from(self.half_life)
        } else {
            1.0
        }
    }
}

/// A running job as the decay thread charges it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Running {
    job: u32,
    start: i64,
    cpus: f64,
    node: usize,
}

/// The association tree's usage in simulated time (see the module doc).
#[derive(Debug, Clone)]
pub struct SlurmShare {
    tree: ShareTree,
    settings: DecaySettings,
    decay_factor: f64,
    /// `g_last_ran`: the last tick.
    last_ran: Option<i64>,
    running: Vec<Running>,
    /// Each node's fairshare factor at the last tick (computed when first read).
    factors: Vec<f64>,
    stale: bool,
}

impl SlurmShare {
    /// A tree (with the usage it starts from on its nodes, each account's already the sum
    /// of its users') under `settings`.
    pub fn new(tree: ShareTree, settings: DecaySettings) -> SlurmShare {
        let n = tree.nodes.len();
        SlurmShare {
            tree,
            decay_factor: settings.decay_factor(),
            settings,
            last_ran: None,
            running: Vec::new(),
            factors: vec![0.0; n],
            stale: true,
        }
    }

    /// The tree, with its usage now.
    pub fn tree(&self) -> &ShareTree {
        &self.tree
    }

    /// The last tick, once one ran.
    pub fn last_tick(&self) -> Option<i64> {
        self.last_ran
    }

    /// Run every tick up to `t` (the first at `t` itself when none ran yet). Call it at each
    /// round before the round's events.
    pub fn advance_to(&mut self, t: i64) {
        let Some(mut last) = self.last_ran else {
            self.tick(t);
            return;
        };
        let p = i64::from(self.settings.calc_period);
        while last + p <= t {
            last += p;
            self.tick(last);
        }
    }

    /// One pass of the decay thread at `now`.
    fn tick(&mut self, now: i64) {
        if let Some(last) = self.last_ran {
            let dt = (now - last) as f64;
            let real_decay = self.decay_factor.powf(dt).max(f64::MIN_POSITIVE);
            for n in &mut self.tree.nodes {
                n.usage *= real_decay;
            }
            for k in 0..self.running.len() {
                let r = self.running[k];
                self.charge(r, last, now);
            }
        }
        self.last_ran = Some(now);
        self.stale = true;
    }

    /// `_apply_new_usage` for `r` over `[from, to]` (clipped to its start).
    fn charge(&mut self, r: Running, from: i64, to: i64) {
        let run_delta = (to - from.max(r.start)).max(0) as f64;
        let run_decay = run_delta * self.decay_factor.powf(run_delta);
        let real_decay = run_decay * r.cpus;
        let mut node = Some(r.node);
        while let Some(i) = node {
            self.tree.nodes[i].usage += real_decay;
            node = self.tree.nodes[i].parent;
        }
    }

    /// Job `job` (of association `node`) started at `t` on `cpus` CPUs.
    pub fn on_start(&mut self, job: u32, t: i64, cpus: u64, node: usize) {
        self.running.push(Running {
            job,
            start: t,
            cpus: cpus as f64,
            node,
        });
    }

    /// Job `job` ended at `t`: its last slice is charged now (`priority_p_job_end`).
    pub fn on_end(&mut self, job: u32, t: i64) {
        let Some(k) = self.running.iter().position(|r| r.job == job) else {
            return;
        };
        // The factors of the last tick are read before the usage changes.
        self.refresh();
        let r = self.running.swap_remove(k);
        let from = self.last_ran.unwrap_or(r.start);
        self.charge(r, from, t);
    }

    /// The fairshare factor of association `node` at the last tick.
    pub fn factor(&mut self, node: usize) -> f64 {
        self.refresh();
        self.factors[node]
    }

    fn refresh(&mut self) {
        if !self.stale {
            return;
        }
        let values = if self.settings.fair_tree {
            slurm::fair_tree(&self.tree)
        } else {
            slurm::classic(&self.tree, self.settings.dampening)
        };
        for (f, v) in self.factors.iter_mut().zip(values) {
            *f = v.fairshare_factor.unwrap_or(0.0);
        }
        self.stale = false;
    }
}

/// The association tree of a trace whose site gave none: `root` → each account (1 share) →
/// each of its users (`account/user`, 1 share), in order of first appearance; a job without
/// an account is under `default`. Each job's association.
pub fn trace_tree(jobs: &[SimJob]) -> (ShareTree, Vec<usize>) {
    let mut tree = ShareTree::new(1.0);
    let mut leaves = Vec::with_capacity(jobs.len());
    for j in jobs {
        let account = if j.account().is_empty() {
            "default"
        } else {
            j.account()
        };
        let name = format!("{account}/{}", j.user);
        let leaf = match tree.find(&name) {
            Some(i) => i,
            None => {
                if tree.find(account).is_none() {
                    // Names are new and parents exist: `add` cannot fail here.
                    let _ = tree.add(account, "root", Shares::Value(1.0), 0.0, false, None);
                }
                tree.add(&name, account, Shares::Value(1.0), 0.0, true, Some(&j.user))
                    .unwrap_or(0)
            }
        };
        leaves.push(leaf);
    }
    (tree, leaves)
}

/// Each job's association in a given tree: `account/user` (sshare's name of a user
/// association), else the user's first association; a job of a user the tree does not list
/// is `None`.
pub fn tree_leaves(tree: &ShareTree, jobs: &[SimJob]) -> Vec<Option<usize>> {
    jobs.iter()
        .map(|j| {
            let named = format!("{}/{}", j.account(), j.user);
            tree.find(&named)
                .filter(|&i| tree.nodes[i].is_user)
                .or_else(|| tree.find_user(&j.user))
        })
        .collect()
}

/// Slurm's inputs of a simulated job that do not change while it waits: its partition (its
/// queue), nodes, CPUs, time limit (minutes, rounded up), QOS priority and TRES (`cpu`,
/// `mem` in MB, `node`, `gres/gpu` from `ngpus`).
pub fn job_inputs(job: &SimJob, qos_priority: u32) -> JobInputs {
    let cpus = job.request.total_cores();
    let nodes = job.request.node_count();
    let mut tres = vec![
        ("cpu".to_string(), cpus),
        ("mem".to_string(), (job.mem / 1024.0).ceil() as u64),
    ];
    if nodes > 0 {
        tres.push(("node".to_string(), u64::from(nodes)));
    }
    if let Some(&g) = job.resources().get("ngpus") {
        tres.push(("gres/gpu".to_string(), g as u64));
    }
    JobInputs {
        partition: Some(job.queue.to_string()),
        accrue_time: None,
        min_nodes: nodes.max(1),
        cpus: u32::try_from(cpus).unwrap_or(u32::MAX),
        time_limit: job
            .walltime_given()
            .then(|| u32::try_from((job.walltime + 59) / 60).unwrap_or(u32::MAX)),
        qos_priority,
        tres,
        ..JobInputs::default()
    }
}

/// Slurm's multifactor priority for one workload: the configuration, each job's fixed
/// factors, and the usage tree (its ticks are also when priorities are recomputed) with each
/// job's association.
#[derive(Debug, Clone)]
pub struct SlurmPriority {
    pub multifactor: Multifactor,
    /// Each job's factors but age and fairshare.
    pub fixed: Vec<Factors>,
    pub share: SlurmShare,
    /// Each job's association (`None`: the tree does not list the job's user, whose
    /// fairshare factor is 0).
    pub leaves: Vec<Option<usize>>,
}

impl SlurmPriority {
    /// The priority of `jobs` under `multifactor`, the jobs' QOS priorities coming from
    /// `qos_priority` (a QOS it does not know: 0), each job's association `leaves[j]` of
    /// `share`'s tree.
    pub fn new(
        multifactor: Multifactor,
        jobs: &[SimJob],
        qos_priority: &dyn Fn(&str) -> u32,
        share: SlurmShare,
        leaves: Vec<Option<usize>>,
    ) -> SlurmPriority {
        let fixed = jobs
            .iter()
            .map(|j| multifactor.factors(&job_inputs(j, qos_priority(j.qos())), j.submit))
            .collect();
        SlurmPriority {
            multifactor,
            fixed,
            share,
            leaves,
        }
    }

    /// The time a queued job's stored priority was computed at: its submit, or the last
    /// tick after it.
    pub fn computed_at(&self, submit: i64) -> i64 {
        self.share
            .last_tick()
            .map_or(submit, |tick| tick.max(submit))
    }

    /// The age factor of a queued job submitted at `submit` (it accrues from its submit).
    pub fn age(&self, submit: i64) -> f64 {
        self.multifactor.age(Some(submit), self.computed_at(submit))
    }

    /// Job `j`'s fairshare factor at the last tick.
    pub fn fairshare(&mut self, j: u32) -> f64 {
        self.leaves[j as usize].map_or(0.0, |l| self.share.factor(l))
    }

    /// Job `j` started at `t` on `cpus` CPUs.
    pub fn on_start(&mut self, j: u32, t: i64, cpus: u64) {
        if let Some(l) = self.leaves[j as usize] {
            self.share.on_start(j, t, cpus, l);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::Formula;
    use crate::sim::scheduler::{Decision, Policy, SimConfig, Simulator};
    use crate::sim::setup::Setup;
    use crate::workload::Request;

    /// One node of 4 CPUs; age over 100 minutes, fairshare, a half-life of one hour, a tick
    /// every 5 minutes, classic fairshare.
    const CONF: &str = "PriorityType=priority/multifactor\n\
        PriorityWeightAge=1000\nPriorityWeightFairshare=10000\nPriorityWeightQOS=500\n\
        PriorityMaxAge=100\nPriorityDecayHalfLife=1:00:00\nPriorityCalcPeriod=5\n\
        PriorityFlags=NO_FAIR_TREE\nSchedulerType=sched/builtin\n\
        NodeName=n1 CPUs=4\nPartitionName=batch Nodes=n1 Default=YES\n";

    fn conf() -> SlurmConf {
        SlurmConf::parse(CONF, "slurm.conf").unwrap()
    }

    fn job(id: &str, submit: i64, run: i64, user: &str, account: &str, qos: &str) -> SimJob {
        SimJob::from(crate::sim::JobSpec {
            id: id.into(),
            submit,
            run,
            walltime: run,
            walltime_given: true,
            request: Request::Nodes { nodes: 1, cores: 4 },
            mem: 0.0,
            user: user.into(),
            group: "g".into(),
            account: account.into(),
            qos: qos.into(),
            queue: "batch".into(),
            queue_priority: 0.0,
            resources: Default::default(),
            recorded_start: None,
        })
    }

    /// `decay_factor = 1 - 0.693 / half-life` (`_decay_thread`): over one half-life of the
    /// default 7 days it leaves 0.5000734, not 0.5 (`slurm_flux.md` §1.2, case
    /// `slurm-derived-decay`).
    #[test]
    fn the_decay_factor_is_slurms_linear_approximation() {
        let d = DecaySettings::of(&SlurmConf::parse("", "s").unwrap()).unwrap();
        assert_eq!((d.half_life, d.calc_period), (604_800, 300));
        assert_eq!(d.decay_factor(), 1.0 - 0.693 / 604_800.0);
        assert_eq!(format!("{:.8}", d.decay_factor().powf(300.0)), "0.99965631");
        assert_eq!(
            format!("{:.7}", d.decay_factor().powf(604_800.0)),
            "0.5000734"
        );
        let none = DecaySettings { half_life: 0, ..d };
        assert_eq!(none.decay_factor(), 1.0);
    }

    /// Usage over simulated time, worked by hand: a 4-CPU job from 0 to 1000 with ticks every
    /// 300 s. Tick 0 only starts the thread; each later tick decays the usage by
    /// `df^300` and adds `300 · df^300 · 4`; the end at 1000 adds `100 · df^100 · 4` at once
    /// (`priority_p_job_end`); the tick at 1200 then decays it all by `df^300` and adds
    /// nothing. Account and root carry the same sums (added up the chain).
    #[test]
    fn usage_accrues_and_decays_as_the_decay_thread_applies_it() {
        let (tree, leaves) = trace_tree(&[job("1", 0, 1000, "a", "A", "")]);
        let mut s = SlurmShare::new(tree, DecaySettings::of(&conf()).unwrap());
        let df: f64 = 1.0 - 0.693 / 3600.0;
        s.advance_to(0);
        s.on_start(0, 0, 4, leaves[0]);
        s.advance_to(299);
        assert_eq!(s.tree().nodes[leaves[0]].usage, 0.0);
        s.advance_to(1000);
        let slice = 300.0 * df.powf(300.0) * 4.0;
        let mut u = 0.0;
        for _ in 0..3 {
            u = u * df.powf(300.0) + slice;
        }
        assert_eq!(s.last_tick(), Some(900));
        assert_eq!(s.tree().nodes[leaves[0]].usage, u);
        s.on_end(0, 1000);
        u += 100.0 * df.powf(100.0) * 4.0;
        assert_eq!(s.tree().nodes[leaves[0]].usage, u);
        s.advance_to(1250);
        u *= df.powf(300.0);
        for i in [leaves[0], 1, 0] {
            assert_eq!(s.tree().nodes[i].usage, u, "{}", s.tree().nodes[i].name);
        }
        // Without decay the usage is the CPU-seconds run.
        let (tree, leaves) = trace_tree(&[job("1", 0, 1000, "a", "A", "")]);
        let mut s = SlurmShare::new(
            tree,
            DecaySettings {
                half_life: 0,
                ..DecaySettings::of(&conf()).unwrap()
            },
        );
        s.advance_to(0);
        s.on_start(0, 0, 4, leaves[0]);
        s.advance_to(1000);
        s.on_end(0, 1000);
        assert_eq!(s.tree().nodes[leaves[0]].usage, 4000.0);
    }

    /// The three jobs of the hand-worked rounds: 0 (a of A) holds the node 0–1000; 1 (a, at
    /// 100) and 2 (b of B, QOS `high` = 10 of 40, at 200) wait.
    fn three_jobs() -> [SimJob; 3] {
        [
            job("0", 0, 1000, "a", "A", ""),
            job("1", 100, 100, "a", "A", ""),
            job("2", 200, 100, "b", "B", "high"),
        ]
    }

    /// A simulator of `jobs` ranked by `conf`'s multifactor priority over the trace's tree.
    fn simulate<'a>(
        conf: &SlurmConf,
        jobs: &'a [SimJob],
        formula: &'a dyn crate::sim::Priority,
    ) -> Simulator<'a> {
        let m = Multifactor::from_conf(conf, 40);
        let (tree, leaves) = trace_tree(jobs);
        let share = SlurmShare::new(tree, DecaySettings::of(conf).unwrap());
        let qos = |q: &str| if q == "high" { 10 } else { 0 };
        let leaves = leaves.into_iter().map(Some).collect();
        let slurm = SlurmPriority::new(m, jobs, &qos, share, leaves);
        let config = SimConfig::new(Policy::Strict, 1, 4);
        let setup = Setup::new(&config, jobs)
            .unwrap()
            .with_slurm_priority(slurm)
            .unwrap();
        Simulator::new(jobs, &setup, Some(formula)).unwrap()
    }

    /// The multifactor formula of `conf`, compiled.
    fn formula(conf: &SlurmConf) -> crate::CompiledFormula {
        let m = Multifactor::from_conf(conf, 40);
        Formula::compile(&m.formula(), &m.catalog()).unwrap()
    }

    /// Three jobs of the whole node, worked by hand. 0 (user a of account A) runs 0–1000;
    /// 1 (a, submitted at 100) and 2 (b of B, at 200, QOS `high`) wait. In the round at 1000
    /// their priorities are those of the tick at 900:
    /// - age: (900 − 100) / 6000 and (900 − 200) / 6000 (PriorityMaxAge 100 minutes);
    /// - fairshare (classic): a has all the usage, so UE(A) = 1, UE(A/a) = 1 + (1 − 1)·1/1
    ///   = 1, and S = 1/2 · 1/1: 2^(−1/0.5) = 0.25; b has none: 2^0 = 1;
    /// - QOS: high = 10 of a largest 40.
    ///
    /// Job 1 = trunc(1000 · 0.1333 + 10000 · 0.25) = 2633, job 2 = trunc(1000 · 0.1167 +
    /// 10000 · 1 + 500 · 0.25) = 10241: job 2 starts first though it came later, and first
    /// come, first served would start job 1.
    #[test]
    fn a_hand_worked_round_ranks_by_slurms_stored_priorities() {
        let (c, jobs) = (conf(), three_jobs());
        let f = formula(&c);
        let mut sim = simulate(&c, &jobs, &f);
        let round = loop {
            let r = sim.step().unwrap();
            if r.time == 1000 {
                break r.clone();
            }
        };
        let m = Multifactor::from_conf(&c, 40);
        // The same inputs through Multifactor, by hand.
        let by_hand = |accrue: i64, fairshare: f64, qos_priority: u32| {
            let inputs = JobInputs {
                partition: Some("batch".into()),
                accrue_time: Some(accrue),
                min_nodes: 1,
                cpus: 4,
                time_limit: Some(2),
                qos_priority,
                fairshare,
                ..JobInputs::default()
            };
            f64::from(m.priority(&m.factors(&inputs, 900)))
        };
        assert_eq!(
            round.queue,
            [(2, by_hand(200, 1.0, 10)), (1, by_hand(100, 0.25, 0))]
        );
        assert_eq!(round.queue, [(2, 10241.0), (1, 2633.0)]);
        assert!(matches!(
            round.decisions[0],
            Decision::Dispatch { job: 2, .. }
        ));
        let out = sim.run_to_end();
        assert_eq!(out.start, [Some(0), Some(1100), Some(1000)]);
    }

    /// The same round under Fair Tree (slurm.conf's default): at the root A has used
    /// everything (LevelFS 0.5 / 1) and B nothing (LevelFS ∞), so of the N = 2 users b ranks
    /// first, 2/2 = 1, and a second, 1/2 (`fair_tree.c`, `_calc_tree_fs`): job 1 is
    /// trunc(133.33 + 10000 · 0.5) = 5133.
    #[test]
    fn under_fair_tree_the_round_has_fair_trees_factors() {
        let c = SlurmConf::parse(&CONF.replace("PriorityFlags=NO_FAIR_TREE\n", ""), "s").unwrap();
        let (jobs, f) = (three_jobs(), formula(&c));
        let mut sim = simulate(&c, &jobs, &f);
        let queue = loop {
            let r = sim.step().unwrap();
            if r.time == 1000 {
                break r.queue.clone();
            }
        };
        assert_eq!(queue, [(2, 10241.0), (1, 5133.0)]);
    }
}
