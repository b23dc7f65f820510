//! Fairshare inside the simulation: a PBS-rule share tree with usage accrual and decay in
//! simulated time (OpenPBS `fairshare.cpp` rules, `reference/openpbs.md` §8–11).
//!
//! This is the simulator's own minimal implementation behind a small surface
//! ([`ShareTree::accrue`], [`ShareTree::decay_to`], [`ShareTree::refresh`],
//! [`ShareTree::keywords`]) so the crate's full fairshare engine can be wired in behind the
//! same calls. Rules implemented:
//! - percentages in `f32`: `group_perc = shares / Σ sibling shares`,
//!   `tree_perc = group_perc × parent tree_perc` (0 when the sum or the parent's is 0);
//! - usage: every node starts at 1; a job's usage (cores × seconds) is added to its leaf and
//!   every ancestor, root included;
//! - decay: while `now − last_decay > decay_time`, every node × `decay_factor` with a floor
//!   of 1, `last_decay += decay_time` (anchored at the first round);
//! - `fairshare_tree_usage`: root's children `usage / root.usage`; deeper
//!   `u + (parent_uf − u) × group_perc` in `f32`; `fairshare_factor = 2^-(uf/perc)`, 0 when
//!   perc is 0.
//!
//! Deliberate difference from a live PBS scheduler: usage is charged for every second a job
//! runs, including its last interval before it ends (PBS samples running jobs between cycles
//! and so drops that interval).

use super::workload::SimJob;
use std::collections::BTreeMap;

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

/// Which job field names the job's fairshare entity (PBS `fairshare_entity`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntityKind {
    Euser,
    Egroup,
    Queue,
    #[serde(rename = "egroup:euser")]
    EgroupEuser,
}

impl EntityKind {
    /// Parse a PBS `fairshare_entity` value.
    pub fn parse(s: &str) -> Option<EntityKind> {
        match s {
            "euser" | "user" => Some(EntityKind::Euser),
            "egroup" | "group" => Some(EntityKind::Egroup),
            "queue" => Some(EntityKind::Queue),
            "egroup:euser" | "group:user" => Some(EntityKind::EgroupEuser),
            _ => None,
        }
    }
    /// The entity name of a job.
    pub fn entity_of(self, job: &SimJob) -> String {
        match self {
            EntityKind::Euser => job.user.clone(),
            EntityKind::Egroup => job.group.clone(),
            EntityKind::Queue => job.queue.clone(),
            EntityKind::EgroupEuser => format!("{}:{}", job.group, job.user),
        }
    }
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
}

impl FairshareConfig {
    /// Equal-share tree built from the workload's entities, PBS default decay.
    pub fn auto(tree: AutoTree) -> FairshareConfig {
        FairshareConfig {
            auto_tree: Some(tree),
            resource_group: None,
            entity: match tree {
                AutoTree::User => EntityKind::Euser,
                AutoTree::Group => EntityKind::Egroup,
                AutoTree::GroupUser => EntityKind::EgroupEuser,
            },
            decay_time: 86_400,
            decay_factor: 0.5,
            unknown_shares: 0,
        }
    }
}

/// The keyword values of one entity.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ShareKeywords {
    pub perc: f64,
    pub tree_usage: f64,
    pub factor: f64,
}

/// The share tree with usage.
#[derive(Debug, Clone)]
pub struct ShareTree {
    names: Vec<String>,
    parent: Vec<Option<usize>>,
    shares: Vec<u32>,
    group_perc: Vec<f32>,
    tree_perc: Vec<f32>,
    usage: Vec<f64>,
    uf: Vec<f32>,
    by_name: BTreeMap<String, usize>,
    last_decay: Option<i64>,
    decay_time: i64,
    decay_factor: f64,
    dirty: bool,
    /// Index of `unknown` (child of root).
    unknown: usize,
}

impl ShareTree {
    fn empty(cfg: &FairshareConfig) -> ShareTree {
        let mut t = ShareTree {
            names: vec![],
            parent: vec![],
            shares: vec![],
            group_perc: vec![],
            tree_perc: vec![],
            usage: vec![],
            uf: vec![],
            by_name: BTreeMap::new(),
            last_decay: None,
            decay_time: cfg.decay_time.max(1),
            decay_factor: cfg.decay_factor,
            dirty: true,
            unknown: 1,
        };
        t.add("root", None, 0);
        t.add("unknown", Some(0), cfg.unknown_shares);
        t
    }

    fn add(&mut self, name: &str, parent: Option<usize>, shares: u32) -> usize {
        let i = self.names.len();
        self.names.push(name.to_string());
        self.parent.push(parent);
        self.shares.push(shares);
        self.group_perc.push(0.0);
        self.tree_perc.push(0.0);
        self.usage.push(1.0);
        self.uf.push(1.0);
        self.by_name.insert(name.to_string(), i);
        i
    }

    /// Build the tree for a workload: the auto tree from its entities, or the
    /// `resource_group` text (entities not in it go under `unknown` with 1 share, as PBS).
    /// Returns the tree and each job's leaf index.
    pub fn build(cfg: &FairshareConfig, jobs: &[SimJob]) -> Result<(ShareTree, Vec<u32>), String> {
        let mut t = ShareTree::empty(cfg);
        if let Some(text) = &cfg.resource_group {
            t.parse_resource_group(text)?;
        } else if let Some(auto) = cfg.auto_tree {
            for j in jobs {
                match auto {
                    AutoTree::User => {
                        if !t.by_name.contains_key(&j.user) {
                            t.add(&j.user, Some(0), 1);
                        }
                    }
                    AutoTree::Group => {
                        if !t.by_name.contains_key(&j.group) {
                            t.add(&j.group, Some(0), 1);
                        }
                    }
                    AutoTree::GroupUser => {
                        let g = match t.by_name.get(&j.group) {
                            Some(&g) => g,
                            None => t.add(&j.group, Some(0), 1),
                        };
                        let leaf = format!("{}:{}", j.group, j.user);
                        if !t.by_name.contains_key(&leaf) {
                            t.add(&leaf, Some(g), 1);
                        }
                    }
                }
            }
        }
        let mut leaves = Vec::with_capacity(jobs.len());
        for j in jobs {
            let name = cfg.entity.entity_of(j);
            let i = match t.by_name.get(&name) {
                Some(&i) => i,
                None => {
                    let u = t.unknown;
                    t.add(&name, Some(u), 1)
                }
            };
            leaves.push(i as u32);
        }
        t.compute_perc();
        t.refresh();
        Ok((t, leaves))
    }

    /// PBS `resource_group`: `name id parent shares` lines, `#`/`*` comments, parents defined
    /// earlier, `root` the top. Bad lines are errors (`line N: reason`).
    fn parse_resource_group(&mut self, text: &str) -> Result<(), String> {
        for (i, line) in text.lines().enumerate() {
            let l = line.trim_start();
            if l.is_empty() || l.starts_with('#') || l.starts_with('*') {
                continue;
            }
            let f: Vec<&str> = l.split_whitespace().collect();
            let bad = |r: &str| format!("line {}: {r}", i + 1);
            if f.len() < 4 {
                return Err(bad("expected `name id parent shares`"));
            }
            f[1].parse::<i64>().map_err(|_| bad("id is not an integer"))?;
            let shares: u32 = f[3].parse().map_err(|_| bad("shares is not a non-negative integer"))?;
            if self.by_name.contains_key(f[0]) {
                return Err(bad(&format!("entity {} is not unique", f[0])));
            }
            let parent = *self
                .by_name
                .get(f[2])
                .ok_or_else(|| bad(&format!("parent {} of {} is not defined earlier", f[2], f[0])))?;
            self.add(f[0], Some(parent), shares);
        }
        Ok(())
    }

    fn compute_perc(&mut self) {
        let n = self.names.len();
        let mut sum = vec![0u64; n];
        for i in 1..n {
            if let Some(p) = self.parent[i] {
                sum[p] += self.shares[i] as u64;
            }
        }
        self.tree_perc[0] = 1.0;
        self.group_perc[0] = 1.0;
        // Parents precede children (nodes are added after their parent).
        for i in 1..n {
            let p = self.parent[i].unwrap_or(0);
            let s = sum[p] as f32;
            if s * self.tree_perc[p] == 0.0 {
                self.group_perc[i] = 0.0;
                self.tree_perc[i] = 0.0;
            } else {
                self.group_perc[i] = self.shares[i] as f32 / s;
                self.tree_perc[i] = self.group_perc[i] * self.tree_perc[p];
            }
        }
    }

    /// Add `amount` (cores × seconds) to a leaf and all its ancestors.
    pub fn accrue(&mut self, leaf: u32, amount: f64) {
        if amount <= 0.0 {
            return;
        }
        let mut i = Some(leaf as usize);
        while let Some(k) = i {
            self.usage[k] += amount;
            i = self.parent[k];
        }
        self.dirty = true;
    }

    /// Apply every decay due by `now` (the first call anchors the decay clock).
    pub fn decay_to(&mut self, now: i64) {
        let last = *self.last_decay.get_or_insert(now);
        let mut last = last;
        while now - last > self.decay_time {
            for u in &mut self.usage {
                *u = (*u * self.decay_factor).max(1.0);
            }
            last += self.decay_time;
            self.dirty = true;
        }
        self.last_decay = Some(last);
    }

    /// Recompute `fairshare_tree_usage` after accrual/decay (no-op when unchanged).
    pub fn refresh(&mut self) {
        if !self.dirty {
            return;
        }
        let root = self.usage[0];
        self.uf[0] = 1.0;
        for i in 1..self.names.len() {
            let p = self.parent[i].unwrap_or(0);
            let u = (self.usage[i] / root) as f32;
            self.uf[i] = if p == 0 { u } else { u + (self.uf[p] - u) * self.group_perc[i] };
        }
        self.dirty = false;
    }

    /// The formula keywords of a node.
    pub fn keywords(&self, leaf: u32) -> ShareKeywords {
        let i = leaf as usize;
        let perc = self.tree_perc[i];
        let uf = self.uf[i];
        let factor = if perc == 0.0 { 0.0 } else { 2f64.powf(-(uf as f64 / perc as f64)) };
        ShareKeywords { perc: perc as f64, tree_usage: uf as f64, factor }
    }

    /// Entity name of a node.
    pub fn name(&self, i: u32) -> &str {
        &self.names[i as usize]
    }

    /// Target share (`tree_perc`) of a node.
    pub fn target(&self, i: u32) -> f64 {
        self.tree_perc[i as usize] as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::workload::Request;

    fn job(user: &str, group: &str) -> SimJob {
        SimJob {
            id: "1".into(),
            submit: 0,
            run: 1,
            walltime: 1,
            walltime_given: true,
            request: Request::Procs(1),
            mem: 0.0,
            user: user.into(),
            group: group.into(),
            queue: "q".into(),
            queue_priority: 0.0,
            resources: Default::default(),
            recorded_start: None,
        }
    }

    #[test]
    fn equal_shares_usage_and_decay_follow_pbs_rules() {
        let jobs = [job("u1", "g1"), job("u2", "g1")];
        let (mut t, leaves) = ShareTree::build(&FairshareConfig::auto(AutoTree::User), &jobs).unwrap();
        // root, unknown (0 shares), u1, u2 → 0.5 each.
        assert_eq!(t.keywords(leaves[0]).perc, 0.5);
        // No usage: root usage 3 (1 + 1 + 1... every node starts at 1, leaf usage is not yet
        // added to the root), uf = 1/3.
        t.accrue(leaves[0], 99.0); // u1: 100, root: 100
        t.refresh();
        assert_eq!(t.keywords(leaves[0]).tree_usage, 1.0);
        assert_eq!(t.keywords(leaves[0]).factor, 0.25);
        assert_eq!(t.keywords(leaves[1]).tree_usage, 0.01f32 as f64);
        t.decay_to(0);
        t.decay_to(86_401);
        t.refresh();
        assert_eq!(t.usage[leaves[0] as usize], 50.0);
        assert_eq!(t.usage[leaves[1] as usize], 1.0); // floor 1
    }

    #[test]
    fn resource_group_and_unknown_entities() {
        let cfg = FairshareConfig {
            resource_group: Some("grpA 10 root 60\n# c\nu1 11 grpA 1\n".into()),
            auto_tree: None,
            ..FairshareConfig::auto(AutoTree::User)
        };
        let (t, leaves) = ShareTree::build(&cfg, &[job("u1", "g"), job("zz", "g")]).unwrap();
        assert_eq!(t.keywords(leaves[0]).perc, 1.0);
        assert_eq!(t.keywords(leaves[1]).perc, 0.0); // under `unknown` with 0 shares
        assert_eq!(t.keywords(leaves[1]).factor, 0.0);
        let bad = FairshareConfig { resource_group: Some("a 1 nowhere 5\n".into()), ..cfg };
        assert_eq!(ShareTree::build(&bad, &[]).unwrap_err(), "line 1: parent nowhere of a is not defined earlier");
    }
}
