//! Fairshare inside the simulation: the crate's OpenPBS tree ([`crate::fairshare::pbs::PbsTree`],
//! bit for bit: `f32` percentages and usage factors, decay with a floor of 1) driven in
//! simulated time.
//!
//! - The tree comes from a PBS `resource_group` text, or is generated from the workload's
//!   entities with equal shares (`--auto-tree user|group|group:user`) by [`PbsTree`]
//!   construction calls; entities not in the tree go under `unknown` with 1 share, as in PBS,
//!   and an entity named `unknown` (SWF's -1) is PBS's `unknown` group itself.
//! - Usage accrues to the job's entity and every ancestor, root included, at the job's
//!   [`UsageRes`] rate (by default PBS's `cput`, taken as cores × seconds) for every second
//!   the job runs — including its last interval before it ends (a deliberate
//!   difference from a live PBS scheduler, which samples running jobs between cycles and so
//!   drops that interval). Each round adds, per entity, (cores of its running jobs) × the
//!   seconds since the previous round: one addition per entity rather than one per job, which
//!   is the same sum (integers) until decay leaves fractional bits.
//! - Decay is PBS's loop (`while now − last_decay > decay_time`), anchored at the first round
//!   (time 0 is taken as 1 s, since PBS reads `last_decay == 0` as "never").
//! - `fairshare_tree_usage` follows accrual/decay: PBS's `calc_usage_factor` formula, evaluated
//!   lazily for the entities a round reads (and their ancestors), not for the whole tree;
//!   `fairshare_factor = 2^-(uf/perc)`, 0 when perc is 0.

use crate::fairshare::FairshareError;
use crate::fairshare::inputs::EntityKind;
use crate::fairshare::pbs::{
    ParseOptions, PbsTree, ROOT_NAME, UNKNOWN_NAME, factor_exponent, fairshare_factor, usage_factor,
};
use crate::fairshare::pow2::pow2_in_place;
use crate::workload::{SimJob, Workload};

/// How jobs map to share-tree entities and how the tree is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AutoTree {
    /// Root → one leaf per user, equal shares.
    User,
    /// Root → one leaf per group, equal shares.
    Group,
    /// Root → groups → `group:user` leaves, equal shares at each level.
    #[serde(rename = "group:user")]
    GroupUser,
}

impl AutoTree {
    /// Parse `user`, `group` or `group:user`.
    pub fn parse(s: &str) -> Option<AutoTree> {
        match s {
            "user" => Some(AutoTree::User),
            "group" => Some(AutoTree::Group),
            "group:user" | "egroup:euser" => Some(AutoTree::GroupUser),
            _ => None,
        }
    }
    /// The name used on the command line and in recordings.
    pub fn name(self) -> &'static str {
        match self {
            AutoTree::User => "user",
            AutoTree::Group => "group",
            AutoTree::GroupUser => "group:user",
        }
    }
}

/// The entity name of a trace job when it is one of the job's fields (`euser`, `egroup`,
/// `queue`); `None` for `egroup:euser` (two fields) and `account` (a trace job has none).
pub fn entity_ref(kind: EntityKind, job: &SimJob) -> Option<&str> {
    match kind {
        EntityKind::Euser => Some(&job.user),
        EntityKind::Egroup => Some(&job.group),
        EntityKind::Queue => Some(&job.queue),
        EntityKind::Account => Some(job.account()),
        EntityKind::EgroupEuser => None,
    }
}

/// The entity name of a trace job (`account` is empty for a job whose trace names none: a
/// simulation refuses that kind then, before it starts).
pub fn entity_of(kind: EntityKind, job: &SimJob) -> Option<String> {
    match kind {
        EntityKind::EgroupEuser => Some(format!("{}:{}", job.group, job.user)),
        _ => entity_ref(kind, job).map(str::to_string),
    }
}

/// Why a simulation's fairshare tree cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TreeError {
    /// A `resource_group` line (`resource_group:LINE: message`).
    #[error("fairshare tree: {0}")]
    ResourceGroup(FairshareError),
    /// `fairshare_entity` account for a job without one (as `eval`/`rank` refuse it:
    /// `JobSet::entity`).
    #[error(
        "fairshare entity `account`: job {0} has no account (SWF traces have none; PBS \
         accounting logs, sacct and flux job lists give one) — use euser, egroup, queue or \
         egroup:euser"
    )]
    NoAccount(String),
    /// Recorded auto-tree entities that do not fit the recorded auto tree.
    #[error("fairshare auto tree: {0}")]
    AutoEntities(String),
}

/// Fairshare settings of a simulation (recorded in the recording header).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FairshareConfig {
    /// `--auto-tree` (equal shares), or `None` with a `resource_group` text.
    pub auto_tree: Option<AutoTree>,
    /// The `resource_group` file contents (`name id parent shares` lines), when given.
    pub resource_group: Option<String>,
    /// Job → entity (defaults from the auto tree, else `euser`).
    pub entity: EntityKind,
    /// `fairshare_decay_time` in seconds (PBS default 86400).
    pub decay_time: i64,
    /// `fairshare_decay_factor` (PBS default 0.5).
    pub decay_factor: f64,
    /// Shares of `unknown` (PBS `unknown_shares`, default 0).
    pub unknown_shares: u32,
    /// The entities of the auto tree, in the order the tree added them: the whole
    /// workload's, so that a recording cut at any round rebuilds the tree it was made with.
    /// [`Setup::new`](crate::sim::setup::Setup::new) fills it in; `None` (recordings made
    /// before it was recorded) derives them from the jobs given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_entities: Option<AutoEntities>,
    /// PBS `fairshare_usage_res` ([`UsageRes`]); `None` is PBS's default, `cput`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_res: Option<String>,
}

/// PBS `fairshare_usage_res` (sched_config, default `cput`): what a running job adds to its
/// entity's usage. PBS evaluates it as a formula over the job's `resources_used` (then its
/// `Resource_List`) and adds, between two cycles, its increase for every job that ran in both
/// (OpenPBS `fifo.cpp: init_scheduling_cycle`, `formula_evaluate`; `openpbs.md` §10). So a
/// time resource grows with the job's elapsed time and every other one is fixed per job:
///
/// - `cput`: CPU seconds. A trace records no CPU time per interval: it is taken as the job's
///   cores × elapsed seconds, a job whose CPUs are all busy (today's accrual, the default);
/// - `walltime`: elapsed seconds, one per job whatever its size;
/// - a product of one of those with numbers and per-job resources (`ncpus*walltime`,
///   `mem*walltime`, `2*cput`; `ncpus` the job's cores, `mem` its KB, any other name the
///   job's resource of that name, 0 when it has none, as PBS takes a resource not requested);
/// - a product with no time resource (`ncpus`) does not grow, so it accrues nothing, as in
///   PBS.
///
/// Sums, several time resources (`walltime*cput`) and other functions are refused: their
/// increase is not a rate per second.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageRes {
    factor: f64,
    time: Option<TimeRes>,
    resources: Vec<String>,
}

/// The time resource of a [`UsageRes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TimeRes {
    Walltime,
    Cput,
}

impl Default for UsageRes {
    /// PBS's default, `cput`.
    fn default() -> UsageRes {
        UsageRes {
            factor: 1.0,
            time: Some(TimeRes::Cput),
            resources: Vec::new(),
        }
    }
}

impl UsageRes {
    /// Parse a `fairshare_usage_res` value; the error says why it is not simulated.
    pub fn parse(text: &str) -> Result<UsageRes, String> {
        let mut u = UsageRes {
            factor: 1.0,
            time: None,
            resources: Vec::new(),
        };
        for term in text.split('*').map(str::trim) {
            let time = match term {
                "walltime" => Some(TimeRes::Walltime),
                "cput" => Some(TimeRes::Cput),
                _ => None,
            };
            if let Some(t) = time {
                if u.time.is_some() {
                    return Err(format!(
                        "`{text}`: more than one time resource; its increase is not a rate per \
                         second (give cput, walltime, or one of them times resources)"
                    ));
                }
                u.time = Some(t);
            } else if let Ok(v) = term.parse::<f64>() {
                if !v.is_finite() {
                    return Err(format!("`{text}`: `{term}` is not a finite number"));
                }
                u.factor *= v;
            } else if !term.is_empty()
                && term.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !term.starts_with(|c: char| c.is_ascii_digit())
            {
                u.resources.push(term.to_string());
            } else {
                return Err(format!(
                    "`{text}`: not simulated: give a product of one time resource (cput, \
                     walltime) with numbers and resources, such as ncpus*walltime"
                ));
            }
        }
        Ok(u)
    }

    /// Whether it is PBS's default, `cput` alone.
    pub fn is_default(&self) -> bool {
        *self == UsageRes::default()
    }

    /// The usage a job of `cores` cores adds per second it runs.
    pub fn rate(&self, job: &SimJob, cores: u64) -> f64 {
        let Some(time) = self.time else {
            return 0.0; // a fixed value does not increase
        };
        let mut r = match time {
            TimeRes::Cput => cores as f64,
            TimeRes::Walltime => 1.0,
        };
        for name in &self.resources {
            r *= match name.as_str() {
                "ncpus" => cores as f64,
                "mem" => job.mem,
                other => job.resources().get(other).copied().unwrap_or(0.0),
            };
        }
        // (The default's rate is the cores as they are, bit for bit.)
        if self.factor != 1.0 {
            r *= self.factor;
        }
        r
    }
}

impl FairshareConfig {
    /// Equal-share tree built from the workload's entities, PBS default decay.
    pub fn auto(tree: AutoTree) -> FairshareConfig {
        FairshareConfig {
            auto_tree: Some(tree),
            resource_group: None,
            entity: auto_entity(tree),
            decay_time: 86_400,
            decay_factor: 0.5,
            unknown_shares: 0,
            auto_entities: None,
            usage_res: None,
        }
    }

    /// Its `fairshare_usage_res`, parsed (PBS's default `cput` when not given).
    pub fn usage(&self) -> Result<UsageRes, String> {
        self.usage_res
            .as_deref()
            .map_or_else(|| Ok(UsageRes::default()), UsageRes::parse)
    }
}

/// The keyword values of one entity.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ShareKeywords {
    pub perc: f64,
    pub tree_usage: f64,
    pub factor: f64,
}

/// The simulator's PBS share tree with usage that accrues and decays in simulated time (not
/// [`crate::fairshare::tree::ShareTree`], the generic tree of the Slurm and flux algorithms).
#[derive(Debug, Clone)]
pub struct UsageTree {
    tree: PbsTree,
    /// Nodes before the workload's entities were placed ([`UsageTree::is_listed`]).
    listed: usize,
    decay_time: i64,
    decay_factor: f64,
    dirty: bool,
    /// Per-node `fairshare_factor` cache, valid when `factor_gen[i] == generation`.
    factor: Vec<f64>,
    factor_gen: Vec<u64>,
    /// Per-node usage-factor cache, valid when `uf_gen[i] == generation`.
    uf: Vec<f32>,
    uf_gen: Vec<u64>,
    generation: u64,
}

impl UsageTree {
    /// Build the tree for a workload: the `resource_group` text, or the auto tree from its
    /// entities. Returns the tree and each job's node index.
    pub fn build(
        cfg: &FairshareConfig,
        jobs: &[SimJob],
    ) -> Result<(UsageTree, Vec<u32>), TreeError> {
        if cfg.entity == EntityKind::Account
            && let Some(j) = jobs.iter().find(|j| j.account().is_empty())
        {
            return Err(TreeError::NoAccount(j.id.to_string()));
        }
        // Each job's entity, numbered in first-seen order (one pass, names hashed once per
        // change of entity: traces list a user's jobs in runs).
        let (entity_of_job, names) = entities(cfg.entity, jobs);
        let unknown_shares = cfg.unknown_shares as i32;
        let mut tree = match (&cfg.resource_group, cfg.auto_tree) {
            (Some(text), _) => {
                let opts = ParseOptions {
                    unknown_shares,
                    lenient: false,
                };
                PbsTree::parse_resource_group(text, "resource_group", &opts)
                    .map_err(TreeError::ResourceGroup)?
                    .0
            }
            (None, Some(auto)) => match &cfg.auto_entities {
                Some(recorded) => {
                    recorded.check(auto)?;
                    auto_tree(recorded, unknown_shares)
                }
                // A tree of the entities themselves: they are its leaves, in first-seen order.
                None if auto != AutoTree::GroupUser && auto_entity(auto) == cfg.entity => {
                    auto_tree(&AutoEntities::Names(names.clone()), unknown_shares)
                }
                None => auto_tree(&AutoEntities::of(auto, jobs), unknown_shares),
            },
            (None, None) => PbsTree::new(unknown_shares),
        };
        let listed = tree.len();
        // Entities not in the tree go under `unknown`, added in first-seen order.
        let node_of: Vec<u32> = names
            .iter()
            .map(|name| match tree.find(name) {
                Some(i) => i as u32,
                None => tree.find_or_add_unknown(name) as u32,
            })
            .collect();
        let leaves = entity_of_job.iter().map(|&e| node_of[e as usize]).collect();
        tree.recompute();
        let n = tree.len();
        Ok((
            UsageTree {
                tree,
                listed,
                decay_time: cfg.decay_time.max(1),
                decay_factor: cfg.decay_factor,
                dirty: false,
                factor: vec![0.0; n],
                factor_gen: vec![0; n],
                uf: vec![0.0; n],
                uf_gen: vec![0; n],
                generation: 1,
            },
            leaves,
        ))
    }

    /// Add `amount` (cores × seconds) to a node and all its ancestors.
    pub fn accrue(&mut self, leaf: u32, amount: f64) {
        if amount <= 0.0 {
            return;
        }
        let mut cur = Some(leaf as usize);
        while let Some(k) = cur {
            let u = self.tree.node(k).usage;
            self.tree.set_usage(k, u + amount);
            cur = self.tree.node(k).parent;
        }
        self.dirty = true;
    }

    /// Apply every decay due by `now` (the first call anchors the decay clock).
    pub fn decay_to(&mut self, now: i64) {
        if self
            .tree
            .decay_until(now.max(1), self.decay_time, self.decay_factor)
            > 0
        {
            self.dirty = true;
        }
    }

    /// Start a new generation of keyword values after accrual/decay (no-op when unchanged).
    /// Values are then computed lazily, node by node, by [`UsageTree::tree_usage_cached`] and
    /// [`UsageTree::factor_cached`]: PBS's
    /// `calc_usage_factor` over the whole tree would cost every round as much as the tree is
    /// large, while a round reads only the entities of its queued jobs.
    pub fn refresh(&mut self) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        self.generation += 1;
    }

    /// `fairshare_perc` of a node (fixed: it does not depend on usage).
    #[inline]
    pub fn perc(&self, leaf: u32) -> f64 {
        self.tree.node(leaf as usize).tree_percentage as f64
    }

    /// `fairshare_tree_usage` of a node, computed once per node between refreshes (the same
    /// value as [`UsageTree::keywords`], bit for bit).
    #[inline]
    pub fn tree_usage_cached(&mut self, leaf: u32) -> f64 {
        self.usage_factor_cached(leaf as usize) as f64
    }

    /// `fairshare_factor` of a node, computed once per node between refreshes (the same value
    /// as [`UsageTree::keywords`], bit for bit). Only formulas that read it pay for its `pow`.
    #[inline]
    pub fn factor_cached(&mut self, leaf: u32) -> f64 {
        let i = leaf as usize;
        if self.factor_gen[i] != self.generation {
            let uf = self.usage_factor_cached(i);
            self.factor[i] = fairshare_factor(uf, self.tree.node(i).tree_percentage);
            self.factor_gen[i] = self.generation;
        }
        self.factor[i]
    }

    /// `fairshare_tree_usage` of each of `leaves`, appended to `out`: computed afresh (the
    /// same value as [`UsageTree::tree_usage_cached`], bit for bit), without the per-node
    /// cache for first-level nodes. For the strict head path, where every round is a new
    /// generation and each node is asked for about once.
    pub fn tree_usages_into(&mut self, leaves: &[u32], out: &mut Vec<f64>) {
        out.extend(
            leaves
                .iter()
                .map(|&l| self.usage_factor_fresh(l as usize) as f64),
        );
    }

    /// `fairshare_factor` of each of `leaves`, appended to `out`, as
    /// [`UsageTree::tree_usages_into`] (the same values as [`UsageTree::factor_cached`]). The
    /// `pow`s run together once their exponents are known ([`pow2_in_place`]).
    pub fn factors_into(&mut self, leaves: &[u32], out: &mut Vec<f64>) {
        let start = out.len();
        for &l in leaves {
            let i = l as usize;
            let uf = self.usage_factor_fresh(i);
            let y = factor_exponent(uf, self.tree.node(i).tree_percentage);
            // A zero percentage has factor 0, which is also `pow(2, -inf)`.
            out.push(y.unwrap_or(f64::NEG_INFINITY));
        }
        pow2_in_place(&mut out[start..]);
    }

    /// [`UsageTree::usage_factor_cached`], computed directly for first-level nodes.
    #[inline]
    fn usage_factor_fresh(&mut self, i: usize) -> f32 {
        let node = self.tree.node(i);
        match node.parent {
            // Under the root: no other node's factor is needed.
            None | Some(0) => usage_factor(node.usage, self.tree.node(0).usage, None),
            Some(_) => self.usage_factor_cached(i),
        }
    }

    /// `calc_usage_factor`'s value for node `i` (parents first, each cached per generation).
    fn usage_factor_cached(&mut self, i: usize) -> f32 {
        if self.uf_gen[i] == self.generation {
            return self.uf[i];
        }
        let node = self.tree.node(i);
        let (usage, parent, gp) = (node.usage, node.parent, node.group_percentage);
        let parent = match parent {
            Some(p) if p != 0 => Some((self.usage_factor_cached(p), gp)),
            _ => None,
        };
        let uf = usage_factor(usage, self.tree.node(0).usage, parent);
        self.uf[i] = uf;
        self.uf_gen[i] = self.generation;
        uf
    }

    /// `calc_usage_factor`'s value for node `i`, from the current usage (no cache).
    fn usage_factor_now(&self, i: usize) -> f32 {
        let node = self.tree.node(i);
        let parent = match node.parent {
            Some(p) if p != 0 => Some((self.usage_factor_now(p), node.group_percentage)),
            _ => None,
        };
        usage_factor(node.usage, self.tree.node(0).usage, parent)
    }

    fn keywords_with(&self, i: usize, uf: f32) -> ShareKeywords {
        let tp = self.tree.node(i).tree_percentage;
        ShareKeywords {
            perc: tp as f64,
            tree_usage: uf as f64,
            factor: fairshare_factor(uf, tp),
        }
    }

    /// The formula keywords of a node, from the usage accrued and decayed so far.
    pub fn keywords(&self, leaf: u32) -> ShareKeywords {
        let i = leaf as usize;
        self.keywords_with(i, self.usage_factor_now(i))
    }

    /// Number of nodes in the tree.
    pub fn len(&self) -> usize {
        self.tree.len()
    }

    /// Whether the tree has no nodes (never: it always has the root and `unknown`).
    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }

    /// Whether a node was in the tree before the workload's entities were placed (the root,
    /// `unknown`, and what the `resource_group` listed), rather than added under `unknown`.
    pub fn is_listed(&self, i: u32) -> bool {
        (i as usize) < self.listed
    }

    /// Entity name of a node.
    pub fn name(&self, i: u32) -> &str {
        &self.tree.node(i as usize).name
    }

    /// Target share (`tree_percentage`) of a node.
    pub fn target(&self, i: u32) -> f64 {
        self.tree.node(i as usize).tree_percentage as f64
    }

    /// Usage of a node.
    pub fn usage(&self, i: u32) -> f64 {
        self.tree.node(i as usize).usage
    }

    /// The underlying PBS tree (its stored `usage_factor`s are those of the last full
    /// recompute; use [`UsageTree::keywords`] for current values).
    pub fn pbs(&self) -> &PbsTree {
        &self.tree
    }
}

/// Each job's entity number (first-seen order) and the entities' names.
fn entities(kind: EntityKind, jobs: &[SimJob]) -> (Vec<u32>, Vec<String>) {
    let mut names = Vec::new();
    let of_job = match kind {
        // Keyed by the two fields: the `group:user` name is written once per entity.
        EntityKind::EgroupEuser => {
            let keys = jobs.iter().map(|j| (j.group.as_str(), j.user.as_str()));
            number_first_seen(keys, |&(g, u)| names.push(format!("{g}:{u}")))
        }
        _ => {
            let keys = jobs.iter().map(|j| entity_ref(kind, j).unwrap_or_default());
            number_first_seen(keys, |n| names.push(n.to_string()))
        }
    };
    (of_job, names)
}

/// Number `keys` in first-seen order, calling `new` on each key seen the first time. Traces
/// list a user's jobs in runs: a key equal to the previous one skips the hash lookup.
pub(crate) fn number_first_seen<K: Copy + Eq + std::hash::Hash>(
    keys: impl ExactSizeIterator<Item = K>,
    mut new: impl FnMut(&K),
) -> Vec<u32> {
    let mut of_key = Vec::with_capacity(keys.len());
    let mut seen: rustc_hash::FxHashMap<K, u32> = Default::default();
    let mut last: Option<(K, u32)> = None;
    for k in keys {
        let e = match last {
            Some((l, e)) if l == k => e,
            _ => {
                let next = seen.len() as u32;
                *seen.entry(k).or_insert_with(|| {
                    new(&k);
                    next
                })
            }
        };
        last = Some((k, e));
        of_key.push(e);
    }
    of_key
}

/// The entity kind whose names are an auto tree's leaves.
fn auto_entity(auto: AutoTree) -> EntityKind {
    match auto {
        AutoTree::User => EntityKind::Euser,
        AutoTree::Group => EntityKind::Egroup,
        AutoTree::GroupUser => EntityKind::EgroupEuser,
    }
}

/// The entities of an auto tree, in first-seen (submit) order. In a recording's header:
/// `["u1","u2",...]` for `user` and `group`, `[["g1","u1"],...]` for `group:user`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum AutoEntities {
    /// `user` or `group`: the leaves under the root.
    Names(Vec<String>),
    /// `group:user`: each leaf's group and user; a group is added with its first leaf.
    Pairs(Vec<(String, String)>),
}

impl AutoEntities {
    /// The entities of `auto` in `jobs`, in first-seen order.
    pub fn of(auto: AutoTree, jobs: &[SimJob]) -> AutoEntities {
        match auto {
            AutoTree::User | AutoTree::Group => {
                AutoEntities::Names(entities(auto_entity(auto), jobs).1)
            }
            AutoTree::GroupUser => {
                let mut pairs = Vec::new();
                let keys = jobs.iter().map(|j| (j.group.as_str(), j.user.as_str()));
                number_first_seen(keys, |&(g, u)| pairs.push((g.to_string(), u.to_string())));
                AutoEntities::Pairs(pairs)
            }
        }
    }

    /// Whether these entities can be those of `auto`: names for `user` and `group`, pairs
    /// for `group:user` (an empty list is either).
    fn check(&self, auto: AutoTree) -> Result<(), TreeError> {
        match (self, auto) {
            (AutoEntities::Names(n), AutoTree::GroupUser) if !n.is_empty() => {
                Err(TreeError::AutoEntities(
                    "`auto_entities` are names; auto_tree `group:user` needs [group, user] pairs"
                        .into(),
                ))
            }
            (AutoEntities::Pairs(p), AutoTree::User | AutoTree::Group) if !p.is_empty() => {
                Err(TreeError::AutoEntities(format!(
                    "`auto_entities` are [group, user] pairs; auto_tree `{}` needs names",
                    auto.name()
                )))
            }
            _ => Ok(()),
        }
    }
}

/// The equal-share tree of `entities`, built by [`PbsTree::add_entity`] calls: one share per
/// entity at each level, group ids from 10 in the order nodes are added — the tree
/// `parse_group` reads from [`auto_resource_group`]'s text.
///
/// A name the tree already holds is that node, as PBS's `find_alloc_ginfo` finds it: an
/// entity named `unknown` (SWF's user or group -1) is PBS's own `unknown` group, with
/// `unknown_shares` shares, and a `group:user` leaf of group `unknown` is added under it.
fn auto_tree(entities: &AutoEntities, unknown_shares: i32) -> PbsTree {
    let mut tree = PbsTree::new(unknown_shares);
    let mut id = 10;
    let mut add = |tree: &mut PbsTree, name: &str, parent: usize| match tree
        .add_entity(name, id, parent, 1)
    {
        Ok(i) => {
            id += 1;
            i
        }
        Err(existing) => existing,
    };
    match entities {
        AutoEntities::Names(names) => {
            for name in names {
                add(&mut tree, name, 0);
            }
        }
        AutoEntities::Pairs(pairs) => {
            for (group, user) in pairs {
                let g = add(&mut tree, group, 0);
                add(&mut tree, &format!("{group}:{user}"), g);
            }
        }
    }
    tree
}

/// The auto tree as a `resource_group` text with equal shares for the workload's entities
/// (first-seen order): the text form of what `--auto-tree` builds, which `--resource-group`
/// reads back into the same tree. Names PBS's tree already holds (`TREEROOT`, `unknown`)
/// get no line of their own (PBS would reject it: "entity unknown is not unique").
pub fn auto_resource_group(auto: AutoTree, jobs: &[SimJob]) -> String {
    let mut out = String::new();
    let mut seen: rustc_hash::FxHashSet<String> = [ROOT_NAME, UNKNOWN_NAME]
        .into_iter()
        .map(str::to_string)
        .collect();
    let mut prev: Option<&SimJob> = None;
    let mut id = 10;
    let mut line = |out: &mut String, name: &str, parent: &str| {
        out.push_str(&format!("{name} {id} {parent} 1\n"));
        id += 1;
    };
    for j in jobs {
        match auto {
            AutoTree::User => {
                if prev.is_some_and(|p: &SimJob| p.user == j.user) {
                    continue;
                }
                prev = Some(j);
                if !seen.contains(j.user.as_str()) {
                    seen.insert(j.user.to_string());
                    line(&mut out, &j.user, "root");
                }
            }
            AutoTree::Group => {
                if !seen.contains(j.group.as_str()) {
                    seen.insert(j.group.to_string());
                    line(&mut out, &j.group, "root");
                }
            }
            AutoTree::GroupUser => {
                if !seen.contains(j.group.as_str()) {
                    seen.insert(j.group.to_string());
                    line(&mut out, &j.group, "root");
                }
                let leaf = format!("{}:{}", j.group, j.user);
                if seen.insert(leaf.clone()) {
                    line(&mut out, &leaf, &j.group);
                }
            }
        }
    }
    out
}

/// The reason a job PBS never runs for want of shares is left out of a simulation.
pub const ZERO_SHARES: &str = "zero shares for fairshare (PBS never runs them)";

/// PBS with `fair_share` and `fairshare_enforce_no_shares` never runs a job whose entity has
/// no share of the machine (`query_jobs` in OpenPBS `src/scheduler/job_info.cpp`: NEVER_RUN,
/// "Job has zero shares for fairshare"); shares do not change while it waits, so such a job
/// never starts: it is left out of the simulation and counted under [`ZERO_SHARES`]. Only
/// for a `resource_group` tree (equal shares give every entity some).
pub fn drop_zero_share_jobs(w: &mut Workload, cfg: &FairshareConfig) -> Result<(), String> {
    let Some(text) = cfg
        .resource_group
        .as_deref()
        .filter(|_| cfg.auto_tree.is_none())
    else {
        return Ok(());
    };
    let options = crate::fairshare::pbs::ParseOptions {
        unknown_shares: i32::try_from(cfg.unknown_shares).unwrap_or(i32::MAX),
        lenient: false,
    };
    let (mut tree, _) =
        crate::fairshare::pbs::PbsTree::parse_resource_group(text, "resource_group", &options)
            .map_err(|e| e.to_string())?;
    let entities: Vec<Option<String>> = w.jobs.iter().map(|j| entity_of(cfg.entity, j)).collect();
    for e in entities.iter().flatten() {
        if tree.find(e).is_none() {
            tree.find_or_add_unknown_deferred(e);
        }
    }
    tree.recompute();
    let zero: Vec<bool> = entities
        .iter()
        .map(|e| {
            e.as_deref()
                .and_then(|e| tree.find(e))
                .is_some_and(|n| tree.node(n).tree_percentage == 0.0)
        })
        .collect();
    let n = zero.iter().filter(|&&z| z).count();
    if n > 0 {
        let mut i = 0;
        let report = &mut w.report;
        w.jobs.retain(|j| {
            i += 1;
            if zero[i - 1] {
                report.drop_job(j.id.as_str(), ZERO_SHARES);
            }
            !zero[i - 1]
        });
        // The kept jobs' counters, recomputed for those left.
        w.truncate(w.jobs.len());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(user: &str, group: &str) -> SimJob {
        SimJob::from(crate::sim::JobSpec {
            user: user.into(),
            group: group.into(),
            ..crate::sim::JobSpec::test("1")
        })
    }

    /// The auto tree built from the entities' first appearances is the tree of
    /// `auto_resource_group`'s text, with every job on the same node.
    #[test]
    fn auto_trees_equal_their_resource_group_text() {
        let jobs: Vec<SimJob> = [
            ("u3", "g2"),
            ("u1", "g1"),
            ("u1", "g1"),
            ("u2", "g2"),
            ("u3", "g2"),
            ("u1", "g3"),
            ("unknown", "g1"),
            ("u4", "unknown"),
            ("u4", "g1"),
        ]
        .iter()
        .map(|&(u, g)| job(u, g))
        .collect();
        for auto in [AutoTree::User, AutoTree::Group, AutoTree::GroupUser] {
            let cfg = FairshareConfig::auto(auto);
            let (fast, fast_leaves) = UsageTree::build(&cfg, &jobs).unwrap();
            let text = FairshareConfig {
                auto_tree: None,
                resource_group: Some(auto_resource_group(auto, &jobs)),
                ..cfg.clone()
            };
            let (slow, slow_leaves) = UsageTree::build(&text, &jobs).unwrap();
            assert_eq!(fast_leaves, slow_leaves, "{auto:?}");
            // Bit for bit: names, group ids, shares, percentages, usage, in arena order.
            assert_eq!(fast.pbs(), slow.pbs(), "{auto:?}");
            // The recorded entities rebuild it from any prefix of the jobs.
            let recorded = FairshareConfig {
                auto_entities: Some(AutoEntities::of(auto, &jobs)),
                ..cfg.clone()
            };
            let (again, again_leaves) = UsageTree::build(&recorded, &jobs[..2]).unwrap();
            assert_eq!(again.pbs(), fast.pbs(), "{auto:?}");
            assert_eq!(again_leaves, fast_leaves[..2], "{auto:?}");
            let (prefix, _) = UsageTree::build(&cfg, &jobs[..2]).unwrap();
            assert_ne!(prefix.pbs(), fast.pbs(), "{auto:?}");
        }
        // An entity outside a given tree goes under `unknown`.
        let cfg = FairshareConfig {
            auto_tree: None,
            resource_group: Some("u1 10 root 1\n".into()),
            ..FairshareConfig::auto(AutoTree::User)
        };
        let (t, leaves) = UsageTree::build(&cfg, &jobs).unwrap();
        assert_eq!(t.name(leaves[1]), "u1");
        assert_eq!(t.name(leaves[0]), "u3");
        assert_ne!(leaves[0], leaves[3]);
    }

    #[test]
    fn equal_shares_usage_and_decay_follow_pbs_rules() {
        let jobs = [job("u1", "g1"), job("u2", "g1")];
        let (mut t, leaves) =
            UsageTree::build(&FairshareConfig::auto(AutoTree::User), &jobs).unwrap();
        // root, unknown (0 shares), u1, u2 → 0.5 each.
        assert_eq!(t.keywords(leaves[0]).perc, 0.5);
        // No usage: root usage 3 (1 + 1 + 1... every node starts at 1, leaf usage is not yet
        // added to the root), uf = 1/3.
        t.accrue(leaves[0], 99.0); // u1: 100, root: 100
        t.refresh();
        assert_eq!(t.keywords(leaves[0]).tree_usage, 1.0);
        assert_eq!(t.keywords(leaves[0]).factor, 0.25);
        assert_eq!(t.keywords(leaves[1]).tree_usage, 0.01f32 as f64);
        t.decay_to(0); // anchors the decay clock at 1 s (PBS reads 0 as "never decayed")
        t.decay_to(86_401);
        assert_eq!(t.usage(leaves[0]), 100.0); // 86_400 s elapsed: not more than decay_time
        t.decay_to(86_402);
        t.refresh();
        assert_eq!(t.usage(leaves[0]), 50.0);
        assert_eq!(t.usage(leaves[1]), 1.0); // floor 1
    }

    #[test]
    fn resource_group_and_unknown_entities() {
        let cfg = FairshareConfig {
            resource_group: Some("grpA 10 root 60\n# c\nu1 11 grpA 1\n".into()),
            auto_tree: None,
            ..FairshareConfig::auto(AutoTree::User)
        };
        let (t, leaves) = UsageTree::build(&cfg, &[job("u1", "g"), job("zz", "g")]).unwrap();
        assert_eq!(t.keywords(leaves[0]).perc, 1.0);
        assert_eq!(t.keywords(leaves[1]).perc, 0.0); // under `unknown` with 0 shares
        assert_eq!(t.keywords(leaves[1]).factor, 0.0);
        let bad = FairshareConfig {
            resource_group: Some("a 1 nowhere 5\n".into()),
            ..cfg
        };
        let e = UsageTree::build(&bad, &[]).unwrap_err().to_string();
        assert!(
            e.starts_with("fairshare tree: resource_group:1: Parent ginfo of a doesnt exist."),
            "{e}"
        );
    }

    /// One entity kind for job rows and trace jobs: the recording header spells it as it did
    /// (`euser`, `egroup`, `queue`, `egroup:euser`), every spelling the command lines took
    /// still parses, and `account`, which trace jobs lack, is refused by name.
    #[test]
    fn entity_kinds_keep_their_header_names_and_spellings() {
        for (kind, name) in [
            (EntityKind::Euser, "euser"),
            (EntityKind::Egroup, "egroup"),
            (EntityKind::Queue, "queue"),
            (EntityKind::EgroupEuser, "egroup:euser"),
            (EntityKind::Account, "account"),
        ] {
            assert_eq!(serde_json::to_string(&kind).unwrap(), format!("\"{name}\""));
            assert_eq!(
                serde_json::from_str::<EntityKind>(&format!("\"{name}\"")).unwrap(),
                kind
            );
            assert_eq!(kind.name(), name);
            assert_eq!(EntityKind::parse(name), Some(kind));
        }
        for (spelling, kind) in [
            ("user", EntityKind::Euser),
            ("group", EntityKind::Egroup),
            ("group:user", EntityKind::EgroupEuser),
            ("Account_Name", EntityKind::Account),
        ] {
            assert_eq!(EntityKind::parse(spelling), Some(kind), "{spelling}");
        }
        let j = job("u1", "g1");
        assert_eq!(
            entity_of(EntityKind::EgroupEuser, &j).as_deref(),
            Some("g1:u1")
        );
        assert_eq!(entity_ref(EntityKind::Queue, &j), Some("q"));
        // PBS's `Account_Name`: a job without one is refused, as `eval`/`rank` refuse it.
        let cfg = FairshareConfig {
            entity: EntityKind::Account,
            ..FairshareConfig::auto(AutoTree::User)
        };
        let e = UsageTree::build(&cfg, std::slice::from_ref(&j)).unwrap_err();
        assert_eq!(e, TreeError::NoAccount(j.id.to_string()));
        let with_account = |a: &str| {
            SimJob::from(crate::sim::JobSpec {
                account: a.into(),
                ..j.spec()
            })
        };
        assert_eq!(
            entity_of(EntityKind::Account, &with_account("phys")).as_deref(),
            Some("phys")
        );
        // Two accounts, two leaves of their own under `unknown` (the auto tree is of users).
        let (tree, node) =
            UsageTree::build(&cfg, &[with_account("phys"), with_account("chem")]).unwrap();
        assert_ne!(node[0], node[1]);
        assert!(tree.tree.find("phys").is_some() && tree.tree.find("chem").is_some());
    }

    /// A job whose entity is named `unknown` (SWF's user -1) belongs to PBS's own `unknown`
    /// group: OpenPBS `find_alloc_ginfo` (src/scheduler/fairshare.cpp) first looks the name
    /// up with `find_group_info`, which finds the `unknown` group that `preload_tree` made,
    /// and only allocates a new node under `unknown` when the name is not found; a
    /// `resource_group` line of that name is "entity unknown is not unique". So the auto
    /// tree gives `unknown` no leaf of its own, and its jobs share the group's
    /// `unknown_shares` (PBS default 0) as every entity outside a PBS tree does.
    #[test]
    fn an_entity_named_unknown_is_pbs_unknown_group() {
        let jobs = [job("u1", "g1"), job("unknown", "unknown"), job("u2", "g1")];
        for auto in [AutoTree::User, AutoTree::Group, AutoTree::GroupUser] {
            let (t, leaves) = UsageTree::build(&FairshareConfig::auto(auto), &jobs).unwrap();
            let unknown = t.pbs().find(UNKNOWN_NAME).unwrap() as u32;
            assert_eq!(
                t.pbs()
                    .nodes()
                    .iter()
                    .filter(|n| n.name == UNKNOWN_NAME)
                    .count(),
                1
            );
            match auto {
                AutoTree::User | AutoTree::Group => assert_eq!(leaves[1], unknown),
                // `unknown:unknown`, a leaf under the `unknown` group.
                AutoTree::GroupUser => {
                    assert_eq!(t.name(leaves[1]), "unknown:unknown");
                    assert_eq!(t.pbs().node(leaves[1] as usize).parent, Some(1));
                }
            }
            assert_eq!(t.keywords(leaves[1]).perc, 0.0, "{auto:?}");
            let half = if auto == AutoTree::Group { 1.0 } else { 0.5 };
            assert_eq!(t.keywords(leaves[0]).perc, half, "{auto:?}");
        }
        let shared = FairshareConfig {
            unknown_shares: 2,
            ..FairshareConfig::auto(AutoTree::User)
        };
        let (t, leaves) = UsageTree::build(&shared, &jobs).unwrap();
        assert_eq!(t.keywords(leaves[1]).perc, 0.5);
        assert_eq!(t.keywords(leaves[0]).perc, 0.25);
    }
}
