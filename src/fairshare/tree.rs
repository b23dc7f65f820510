//! A generic share tree for the Slurm and flux algorithms: accounts (banks) and user
//! associations with shares and raw usage, loaded from JSON, `sshare -a -l -P` output or a
//! flux-accounting database (see [`super::inputs`]).
//!
//! Node 0 is the root. Account usage is always the sum of its users' usage (as Slurm's
//! `assoc_mgr` and flux's `aggregate_job_usage` compute it); usage given on accounts is
//! ignored with a warning when it disagrees.

use super::FairshareError;
use std::collections::HashMap;

/// A node's shares: a number, or Slurm's `FairShare=parent` (`SLURMDB_FS_USE_PARENT`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shares {
    Value(f64),
    Parent,
}

impl Shares {
    /// The raw value, with `parent` counting 0 (as in Slurm's level shares).
    pub fn raw(self) -> f64 {
        match self {
            Shares::Value(v) => v,
            Shares::Parent => 0.0,
        }
    }
}

/// One account or user association.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareNode {
    /// Unique name (e.g. `AccountB/User1` for a user association).
    pub name: String,
    pub parent: Option<usize>,
    pub shares: Shares,
    /// Raw usage (accounts: the sum over their users).
    pub usage: f64,
    /// Whether this is a user association (a leaf that receives a fairshare value).
    pub is_user: bool,
    /// The entity jobs map to (user name); defaults to `name`.
    pub entity: String,
    pub children: Vec<usize>,
}

/// A share tree. Build with [`ShareTree::new`] and [`ShareTree::add`], then
/// [`ShareTree::finish`].
#[derive(Debug, Clone, PartialEq)]
pub struct ShareTree {
    pub nodes: Vec<ShareNode>,
    index: HashMap<String, usize>,
    tie_order: TieOrder,
    /// The order asked for, which [`ShareTree::sibling_order`] reports.
    sibling_order: SiblingOrder,
    /// The fairshare factor the input gave each user association (sshare's `FairShare`),
    /// which only [`crate::fairshare::slurm::settle_sibling_order`] reads.
    captured: HashMap<usize, f64>,
    /// Whether the sibling order was found from the captured factors.
    order_detected: bool,
}

/// The order in which Slurm holds sibling associations, which decides the order of sibling
/// accounts whose Fair Tree LevelFS is exactly equal.
///
/// `_calc_tree_fs` (`fair_tree.c`) copies each association's `children_list` into an array
/// (`_append_list_to_array`) and sorts it with `qsort(..., _cmp_level_fs)`, which compares
/// LevelFS, then users before accounts, and calls the rest equal; glibc's `qsort` (2.36, as
/// in Debian 12) is a merge sort when it can allocate its buffer, so equal entries keep the
/// list's order. That list is built in one of two orders (`src/common/assoc_mgr.c`):
/// - when slurmctld starts (or reloads every association), `_post_assoc_list` appends each
///   association to its parent's `children_list` in the order slurmdbd sent them, which
///   `_cluster_get_assocs` (`as_mysql_assoc.c`) selects `order by lft`: [`SiblingOrder::Lft`];
/// - when an association is added, removed or moved while it runs, `assoc_mgr_update_assocs`
///   flushes every `children_list` and refills it from the association list after
///   `slurmdb_sort_hierarchical_assoc_list` (users before accounts, each by name): the order
///   `sshare` prints its rows in, so [`SiblingOrder::Input`] of an sshare capture.
///
/// slurmdbd gives a new child the `lft` next to its parent's (`add_assocs`), before its older
/// siblings: after a restart, siblings added one at a time stand in reverse order of creation.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum SiblingOrder {
    /// The input's order (sshare's rows, the JSON's nodes).
    #[default]
    Input,
    /// The input's order reversed.
    Reverse,
    /// These associations first, in this order (node names: `account` or `account/user`
    /// for sshare input); the others after them in input order.
    Names(Vec<String>),
    /// The associations by ascending `lft`, as `sacctmgr show assoc format=...,Lft` lists
    /// them (`source` names that capture): slurmctld's order since it last started. Names the
    /// tree does not have are skipped (sacctmgr lists associations sshare may leave out);
    /// the tree's nodes the list lacks come after, in input order.
    Lft { source: String, names: Vec<String> },
}

impl SiblingOrder {
    /// `input`, `reverse`, or a comma-separated list of names.
    pub fn parse(s: &str) -> SiblingOrder {
        match s {
            "input" => SiblingOrder::Input,
            "reverse" => SiblingOrder::Reverse,
            _ => SiblingOrder::Names(
                s.split(',')
                    .map(|n| n.trim().to_string())
                    .filter(|n| !n.is_empty())
                    .collect(),
            ),
        }
    }

    /// A short name of the order: `input`, `reverse`, `listed` or `lft`.
    pub fn kind(&self) -> &'static str {
        match self {
            SiblingOrder::Input => "input",
            SiblingOrder::Reverse => "reverse",
            SiblingOrder::Names(_) => "listed",
            SiblingOrder::Lft { .. } => "lft",
        }
    }

    /// What the order is, in words.
    pub fn describe(&self) -> String {
        match self {
            SiblingOrder::Input => "the input's order (an sshare capture's rows: slurmctld's \
                order after associations changed while it ran)"
                .to_string(),
            SiblingOrder::Reverse => "the input's order reversed".to_string(),
            SiblingOrder::Names(_) => "the order given".to_string(),
            SiblingOrder::Lft { source, .. } => format!(
                "the associations' lft order from {source} (slurmctld's order since it last \
                 started)"
            ),
        }
    }
}

/// A [`SiblingOrder`] resolved to node indices.
#[derive(Debug, Clone, PartialEq, Default)]
enum TieOrder {
    #[default]
    Input,
    Reverse,
    Listed(HashMap<usize, usize>),
}

impl Default for ShareTree {
    fn default() -> Self {
        ShareTree::new(1.0)
    }
}

impl ShareTree {
    /// A tree with only the root (`root`, with `root_shares`).
    pub fn new(root_shares: f64) -> ShareTree {
        let root = ShareNode {
            name: "root".to_string(),
            parent: None,
            shares: Shares::Value(root_shares),
            usage: 0.0,
            is_user: false,
            entity: "root".to_string(),
            children: Vec::new(),
        };
        let mut index = HashMap::new();
        index.insert("root".to_string(), 0);
        ShareTree {
            nodes: vec![root],
            index,
            tie_order: TieOrder::Input,
            sibling_order: SiblingOrder::Input,
            captured: HashMap::new(),
            order_detected: false,
        }
    }

    /// Record the fairshare factor the input gave node `i` (sshare's `FairShare` column).
    pub fn set_captured_factor(&mut self, i: usize, factor: f64) {
        self.captured.insert(i, factor);
    }

    /// The fairshare factor the input gave node `i`, if any.
    pub fn captured_factor(&self, i: usize) -> Option<f64> {
        self.captured.get(&i).copied()
    }

    /// Whether [`ShareTree::sibling_order`] was found from the captured factors.
    pub fn order_detected(&self) -> bool {
        self.order_detected
    }

    /// Mark the sibling order as found from the captured factors.
    pub fn set_order_detected(&mut self, detected: bool) {
        self.order_detected = detected;
    }

    /// The order of exactly tied siblings in use ([`ShareTree::set_sibling_order`]).
    pub fn sibling_order(&self) -> &SiblingOrder {
        &self.sibling_order
    }

    /// Set the order of exactly tied siblings (see [`SiblingOrder`]). Every listed name must
    /// be a node of the tree.
    pub fn set_sibling_order(&mut self, order: &SiblingOrder) -> Result<(), String> {
        self.tie_order = match order {
            SiblingOrder::Input => TieOrder::Input,
            SiblingOrder::Reverse => TieOrder::Reverse,
            SiblingOrder::Names(names) => {
                let mut m = HashMap::new();
                for (k, n) in names.iter().enumerate() {
                    let i = self.find(n).ok_or_else(|| {
                        format!("sibling order: `{n}` is not an account or association of the tree")
                    })?;
                    m.entry(i).or_insert(k);
                }
                TieOrder::Listed(m)
            }
            SiblingOrder::Lft { names, .. } => {
                let mut m = HashMap::new();
                for (k, n) in names.iter().enumerate() {
                    if let Some(i) = self.find(n) {
                        m.entry(i).or_insert(k);
                    }
                }
                TieOrder::Listed(m)
            }
        };
        self.sibling_order = order.clone();
        Ok(())
    }

    /// Where node `i` stands among tied siblings (smaller first).
    pub fn tie_key(&self, i: usize) -> (usize, usize) {
        match &self.tie_order {
            TieOrder::Input => (0, i),
            TieOrder::Reverse => (0, usize::MAX - i),
            TieOrder::Listed(m) => m.get(&i).map_or((1, i), |&k| (0, k)),
        }
    }

    /// Add a node under `parent` (which must exist). Errors are plain messages; callers add
    /// the location.
    pub fn add(
        &mut self,
        name: &str,
        parent: &str,
        shares: Shares,
        usage: f64,
        is_user: bool,
        entity: Option<&str>,
    ) -> Result<usize, String> {
        if name.is_empty() {
            return Err("empty name".to_string());
        }
        if self.index.contains_key(name) {
            return Err(format!("duplicate name `{name}`"));
        }
        let Some(&p) = self.index.get(parent) else {
            return Err(format!(
                "parent `{parent}` of `{name}` is not defined (parents must come first)"
            ));
        };
        if self.nodes[p].is_user {
            return Err(format!(
                "parent `{parent}` of `{name}` is a user association, not an account"
            ));
        }
        if let Shares::Value(v) = shares
            && (v < 0.0 || !v.is_finite())
        {
            return Err(format!(
                "shares of `{name}` must be a finite number >= 0, not {v}"
            ));
        }
        if usage < 0.0 || !usage.is_finite() {
            return Err(format!(
                "usage of `{name}` must be a finite number >= 0, not {usage}"
            ));
        }
        let id = self.nodes.len();
        self.nodes.push(ShareNode {
            name: name.to_string(),
            parent: Some(p),
            shares,
            usage,
            is_user,
            entity: entity.unwrap_or(name).to_string(),
            children: Vec::new(),
        });
        self.nodes[p].children.push(id);
        self.index.insert(name.to_string(), id);
        Ok(id)
    }

    /// Set the root's raw shares (shown only).
    pub fn set_root_shares(&mut self, shares: f64) {
        self.nodes[0].shares = Shares::Value(shares);
    }

    /// Aggregate usage: each account's usage becomes the sum of its users'. Returns warnings
    /// for accounts whose given usage (non-zero) disagreed.
    pub fn finish(&mut self) -> Vec<String> {
        let mut warnings = Vec::new();
        let mut sum = vec![0.0f64; self.nodes.len()];
        for i in (0..self.nodes.len()).rev() {
            if self.nodes[i].is_user {
                sum[i] = self.nodes[i].usage;
            }
            if let Some(p) = self.nodes[i].parent {
                sum[p] += sum[i];
            }
        }
        for (i, n) in self.nodes.iter_mut().enumerate() {
            if !n.is_user {
                if n.usage != 0.0 && n.usage != sum[i] {
                    warnings.push(format!(
                        "usage {} given for account `{}` is ignored: an account's usage is the sum of its users' ({})",
                        n.usage, n.name, sum[i]
                    ));
                }
                n.usage = sum[i];
            }
        }
        warnings
    }

    /// Index of the node named `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// A user association for `entity`: the node named so, else the first user (in tree
    /// order) whose entity is `entity`.
    pub fn find_user(&self, entity: &str) -> Option<usize> {
        if let Some(i) = self.find(entity) {
            return Some(i);
        }
        self.nodes
            .iter()
            .position(|n| n.is_user && n.entity == entity)
    }

    /// Number of user associations.
    pub fn user_count(&self) -> usize {
        self.nodes.iter().filter(|n| n.is_user).count()
    }

    /// Pre-order (node, then children in input order).
    pub fn preorder(&self) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.nodes.len());
        let mut stack = vec![0usize];
        while let Some(i) = stack.pop() {
            out.push(i);
            for &c in self.nodes[i].children.iter().rev() {
                stack.push(c);
            }
        }
        out
    }
}

/// The columns an algorithm computes for one node (`None` where not defined).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NodeValues {
    pub norm_shares: Option<f64>,
    pub norm_usage: Option<f64>,
    pub effective_usage: Option<f64>,
    /// Fair Tree's LevelFS (may be +inf).
    pub level_fs: Option<f64>,
    /// flux's weight.
    pub weight: Option<f64>,
    /// The `FairShare`/`fairshare` value: users only, except Slurm classic, which defines it
    /// on every node (sshare prints it on the root and account rows too).
    pub fairshare_factor: Option<f64>,
    /// What formulas see as `fairshare_perc` (the share of the whole machine).
    pub fairshare_perc: Option<f64>,
    /// What formulas see as `fairshare_tree_usage`.
    pub fairshare_tree_usage: Option<f64>,
}

/// Build a tree from the generic JSON form `{"nodes": [{"name", "parent", "shares", "usage",
/// "user", "kind"}]}`. `parent` is `"root"` for the top level (a node named `root` without a
/// parent sets the root's shares). `shares` is a number or `"parent"`. A node is a user
/// association when `kind` is `"user"`, or when `kind` is absent and nothing names it as a
/// parent. `file` names the input in errors, which carry the JSON path.
pub fn from_json(text: &str, file: &str) -> Result<(ShareTree, Vec<String>), FairshareError> {
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| FairshareError::at(file, e.line(), format!("invalid JSON: {e}")))?;
    let nodes = v
        .get("nodes")
        .and_then(|n| n.as_array())
        .ok_or_else(|| FairshareError::file(file, "expected an object with a `nodes` array"))?;
    let mut is_parent = std::collections::HashSet::new();
    for n in nodes {
        if let Some(p) = n.get("parent").and_then(|p| p.as_str()) {
            is_parent.insert(p.to_string());
        }
    }
    let mut t = ShareTree::new(1.0);
    for (i, n) in nodes.iter().enumerate() {
        let at = |m: String| FairshareError::file(file, format!("nodes[{i}]: {m}"));
        let name = n
            .get("name")
            .and_then(|x| x.as_str())
            .ok_or_else(|| at("missing string field `name`".to_string()))?;
        let shares = match n.get("shares") {
            None => Shares::Value(1.0),
            Some(serde_json::Value::String(s)) if s == "parent" => Shares::Parent,
            Some(x) => Shares::Value(x.as_f64().ok_or_else(|| {
                at(format!(
                    "`shares` of `{name}` must be a number or \"parent\", not {x}"
                ))
            })?),
        };
        let usage = match n.get("usage") {
            None | Some(serde_json::Value::Null) => 0.0,
            Some(x) => x
                .as_f64()
                .ok_or_else(|| at(format!("`usage` of `{name}` must be a number, not {x}")))?,
        };
        let parent = match n.get("parent") {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(s)) if s.is_empty() => None,
            Some(serde_json::Value::String(s)) => Some(s.as_str()),
            Some(x) => return Err(at(format!("`parent` must be a string, not {x}"))),
        };
        let Some(parent) = parent else {
            if name == "root" {
                t.set_root_shares(shares.raw());
                continue;
            }
            return Err(at(format!(
                "`{name}` has no `parent` (use \"root\" for the top level)"
            )));
        };
        let kind = n.get("kind").and_then(|k| k.as_str());
        let is_user = match kind {
            Some("user") => true,
            Some("account") | Some("bank") => false,
            Some(k) => {
                return Err(at(format!(
                    "`kind` must be \"user\" or \"account\", not \"{k}\""
                )));
            }
            None => !is_parent.contains(name),
        };
        let entity = match n.get("user") {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(s)) => Some(s.as_str()),
            Some(x) => return Err(at(format!("`user` must be a string, not {x}"))),
        };
        t.add(name, parent, shares, usage, is_user, entity)
            .map_err(at)?;
    }
    let w = t.finish();
    Ok((t, w))
}
