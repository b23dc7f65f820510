//! The PBS fairshare tree (`src/scheduler/fairshare.cpp`), bit for bit.
//!
//! Widths follow PBS's `group_info`: `tree_percentage`, `group_percentage` and `usage_factor`
//! are `f32`; `usage` and `temp_usage` are `f64`; shares and group ids are `i32`. Children are
//! kept in insertion order and walked in reverse, which is PBS's order (it prepends children),
//! so `unknown` — the first child of the root — is always last.

use super::FairshareError;
use std::cmp::Ordering;
use std::collections::HashMap;

/// The root's name in PBS (`FAIRSHARE_ROOT_NAME`).
pub const ROOT_NAME: &str = "TREEROOT";
/// The group that holds entities not in `resource_group` (`UNKNOWN_GROUP_NAME`).
pub const UNKNOWN_NAME: &str = "unknown";
/// Every node's usage starts at (and decays down to) this (`FAIRSHARE_MIN_USAGE`).
pub const MIN_USAGE: f64 = 1.0;
/// PBS's `UNSPECIFIED` (-1).
pub const UNSPECIFIED: i32 = -1;
/// Size of the name field of a usage-file record (`USAGE_NAME_MAX`); a name must fit with its
/// terminating NUL, so at most 49 bytes.
pub const USAGE_NAME_MAX: usize = 50;

/// One node (`group_info`).
#[derive(Debug, Clone, PartialEq)]
pub struct PbsNode {
    pub name: String,
    /// "Grp": the parent's `cresgroup`.
    pub resgroup: i32,
    /// "cgrp": the id from the `resource_group` file (the group id of this node's children).
    pub cresgroup: i32,
    pub shares: i32,
    pub tree_percentage: f32,
    pub group_percentage: f32,
    pub usage: f64,
    /// Usage including what was started during the current cycle (ordering only).
    pub temp_usage: f64,
    pub usage_factor: f32,
    pub parent: Option<usize>,
    /// Children in insertion (file) order; PBS's order is the reverse.
    pub children: Vec<usize>,
}

impl PbsNode {
    fn new(name: &str) -> PbsNode {
        PbsNode {
            name: name.to_string(),
            resgroup: UNSPECIFIED,
            cresgroup: UNSPECIFIED,
            shares: UNSPECIFIED,
            tree_percentage: 0.0,
            group_percentage: 0.0,
            usage: MIN_USAGE,
            temp_usage: MIN_USAGE,
            usage_factor: 0.0,
            parent: None,
            children: Vec::new(),
        }
    }

    /// Whether the node is a leaf (a fairshare entity rather than a group).
    pub fn is_leaf(&self) -> bool {
        self.children.is_empty()
    }

    /// `fairshare_factor`: `2^-(usage_factor / tree_percentage)`, 0 when the percentage is 0.
    /// The division is in `f32` and the power in `f64`, as PBS computes it.
    pub fn fairshare_factor(&self) -> f64 {
        fairshare_factor(self.usage_factor, self.tree_percentage)
    }
}

/// `fairshare_factor` of a node with this usage factor and tree percentage:
/// `2^-(usage_factor / tree_percentage)` (division in `f32`, power in `f64` by glibc's `pow`:
/// see [`super::pow2`]), 0 when the percentage is 0.
#[inline]
pub fn fairshare_factor(usage_factor: f32, tree_percentage: f32) -> f64 {
    match factor_exponent(usage_factor, tree_percentage) {
        Some(y) => super::pow2::pow2(y),
        None => 0.0,
    }
}

/// The power of 2 that [`fairshare_factor`] takes, `None` when the percentage is 0 (the
/// factor is then 0). For computing many factors with [`super::pow2::pow2_in_place`].
#[inline]
pub fn factor_exponent(usage_factor: f32, tree_percentage: f32) -> Option<f64> {
    (tree_percentage != 0.0).then(|| {
        let ratio: f32 = usage_factor / tree_percentage;
        -(ratio as f64)
    })
}

/// One step of `calc_usage_factor`: the usage factor of a node with `usage`, given the root's
/// usage and, below the first level, its parent's usage factor and its own group percentage.
#[inline]
pub fn usage_factor(usage: f64, root_usage: f64, parent: Option<(f32, f32)>) -> f32 {
    let u = (usage / root_usage) as f32;
    match parent {
        None => u,
        Some((parent_factor, group_percentage)) => u + (parent_factor - u) * group_percentage,
    }
}

/// The three formula keywords of one entity (unrounded: `f32` values widened to `f64`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EntityValues {
    pub fairshare_perc: f64,
    pub fairshare_tree_usage: f64,
    pub fairshare_factor: f64,
}

/// A PBS fairshare tree (`fairshare_head`): nodes in an arena, index 0 the root, 1 `unknown`.
#[derive(Debug, Clone, PartialEq)]
pub struct PbsTree {
    nodes: Vec<PbsNode>,
    index: HashMap<String, usize>,
    /// Time of the last decay (seconds since the epoch; 0 = never).
    pub last_decay: i64,
}

/// Options of `parse_resource_group`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ParseOptions {
    /// `unknown_shares` from `sched_config` (default 0).
    pub unknown_shares: i32,
    /// Skip bad lines with a warning, as PBS does, instead of failing.
    pub lenient: bool,
}

impl PbsTree {
    /// `preload_tree`: `TREEROOT` and its child `unknown` with `unknown_shares`.
    pub fn new(unknown_shares: i32) -> PbsTree {
        let mut root = PbsNode::new(ROOT_NAME);
        root.resgroup = -1;
        root.cresgroup = 0;
        root.tree_percentage = 1.0;
        let mut t = PbsTree {
            nodes: vec![root],
            index: HashMap::new(),
            last_decay: 0,
        };
        t.index.insert(ROOT_NAME.to_string(), 0);
        let mut unknown = PbsNode::new(UNKNOWN_NAME);
        unknown.shares = unknown_shares;
        unknown.cresgroup = 1;
        t.push_child(unknown, 0);
        t
    }

    /// Parse a `resource_group` file's text into a new tree and compute its percentages and
    /// usage factors. `file` names the file in messages (`file:line: message`). Returns the
    /// tree and warnings (lenient mode only).
    pub fn parse_resource_group(
        text: &str,
        file: &str,
        options: &ParseOptions,
    ) -> Result<(PbsTree, Vec<String>), FairshareError> {
        let mut t = PbsTree::new(options.unknown_shares);
        let mut warnings = Vec::new();
        for (i, raw) in text.split('\n').enumerate() {
            let lineno = i + 1;
            let line = raw.strip_suffix('\r').unwrap_or(raw);
            if skip_line(line) {
                continue;
            }
            let mut line_warnings = Vec::new();
            let parsed = t.parse_line(line, options.lenient, &mut |w| line_warnings.push(w));
            warnings.extend(
                line_warnings
                    .into_iter()
                    .map(|w| format!("{file}:{lineno}: {w}")),
            );
            if let Err(msg) = parsed {
                if options.lenient {
                    warnings.push(format!(
                        "{file}:{lineno}: {msg}; line skipped (resgroup: error on line {lineno}.)"
                    ));
                } else {
                    return Err(FairshareError::at(file, lineno, msg));
                }
            } else if !options.lenient {
                // Names PBS cannot store in its usage file: fail early, not when writing.
                let name = line
                    .split([' ', '\t'])
                    .find(|s| !s.is_empty())
                    .unwrap_or("");
                if let Err(msg) = check_entity_name(name) {
                    return Err(FairshareError::at(file, lineno, msg));
                }
            }
        }
        t.recompute();
        Ok((t, warnings))
    }

    /// One `resource_group` line: `name id parent shares` (extra tokens ignored).
    fn parse_line(
        &mut self,
        line: &str,
        lenient: bool,
        warn: &mut dyn FnMut(String),
    ) -> Result<(), String> {
        let mut toks = line.split([' ', '\t']).filter(|s| !s.is_empty());
        let (name, cgroup, parent, shares) =
            match (toks.next(), toks.next(), toks.next(), toks.next()) {
                (Some(n), Some(c), Some(p), Some(s)) => (n, c, p, s),
                (n, c, p, _) => {
                    let missing = if n.is_none() {
                        "name"
                    } else if c.is_none() {
                        "id"
                    } else if p.is_none() {
                        "parent"
                    } else {
                        "shares"
                    };
                    return Err(format!(
                        "missing field `{missing}` (expected `name id parent shares`)"
                    ));
                }
            };
        if self.index.contains_key(name) {
            return Err(format!("entity {name} is not unique"));
        }
        let parent_name = if parent == "root" { ROOT_NAME } else { parent };
        let Some(&p) = self.index.get(parent_name) else {
            return Err(format!(
                "Parent ginfo of {name} doesnt exist. (parent `{parent}` must be defined on an earlier line)"
            ));
        };
        let shares: i32 = shares
            .parse()
            .map_err(|_| format!("shares `{shares}` of {name} is not an integer"))?;
        if shares < 0 {
            let msg = format!("shares of {name} are negative ({shares})");
            if !lenient {
                return Err(msg);
            }
            warn(format!("{msg}; kept, as PBS does"));
        }
        let cgroup: i32 = cgroup
            .parse()
            .map_err(|_| format!("id `{cgroup}` of {name} is not an integer"))?;
        let mut node = PbsNode::new(name);
        node.cresgroup = cgroup;
        node.shares = shares;
        self.push_child(node, p);
        Ok(())
    }

    /// `add_child`: attach `node` under `parent` (as PBS's first child) and index it.
    fn push_child(&mut self, mut node: PbsNode, parent: usize) -> usize {
        let id = self.nodes.len();
        node.parent = Some(parent);
        node.resgroup = self.nodes[parent].cresgroup;
        self.index.insert(node.name.clone(), id);
        self.nodes.push(node);
        self.nodes[parent].children.push(id);
        id
    }

    /// Number of nodes (root and `unknown` included).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Always false: a tree has at least the root and `unknown`.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The node with index `i` (0 = root).
    pub fn node(&self, i: usize) -> &PbsNode {
        &self.nodes[i]
    }

    /// All nodes, in arena order.
    pub fn nodes(&self) -> &[PbsNode] {
        &self.nodes
    }

    /// `find_group_info`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// `find_alloc_ginfo`: the entity, or a new one with 1 share under `unknown` (percentages
    /// and usage factors are recomputed when a node is added).
    pub fn find_or_add_unknown(&mut self, name: &str) -> usize {
        if let Some(i) = self.find(name) {
            return i;
        }
        let mut node = PbsNode::new(name);
        node.shares = 1;
        let id = self.push_child(node, 1);
        self.recompute();
        id
    }

    /// Same as [`find_or_add_unknown`](Self::find_or_add_unknown) without recomputing; call
    /// [`recompute`](Self::recompute) once after adding many.
    pub fn find_or_add_unknown_deferred(&mut self, name: &str) -> usize {
        if let Some(i) = self.find(name) {
            return i;
        }
        let mut node = PbsNode::new(name);
        node.shares = 1;
        self.push_child(node, 1)
    }

    /// Children of `i` in PBS order (most recently added first).
    pub fn children_pbs_order(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.nodes[i].children.iter().rev().copied()
    }

    /// Pre-order in PBS order: node, its children, then its next sibling (`print_fairshare`).
    pub fn preorder(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::with_capacity(self.nodes.len());
        let mut stack = vec![(0usize, 0usize)];
        while let Some((i, depth)) = stack.pop() {
            out.push((i, depth));
            // push in reverse of PBS order so the first PBS child pops first
            for &c in self.nodes[i].children.iter() {
                stack.push((c, depth + 1));
            }
        }
        out
    }

    /// Path from the root to `i` (both included).
    pub fn path(&self, i: usize) -> Vec<usize> {
        let mut p = vec![i];
        let mut cur = i;
        while let Some(parent) = self.nodes[cur].parent {
            p.push(parent);
            cur = parent;
        }
        p.reverse();
        p
    }

    /// Depth of `i` (root 0).
    pub fn depth(&self, mut i: usize) -> usize {
        let mut d = 0;
        while let Some(p) = self.nodes[i].parent {
            d += 1;
            i = p;
        }
        d
    }

    /// Recompute percentages and usage factors (after any change of shares, nodes or usage).
    pub fn recompute(&mut self) {
        self.calc_fair_share_perc();
        self.calc_usage_factor();
    }

    /// `calc_fair_share_perc`, top-down, in `f32`.
    pub fn calc_fair_share_perc(&mut self) {
        // Arena order is a topological order (parents precede children).
        for p in 0..self.nodes.len() {
            if self.nodes[p].children.is_empty() {
                continue;
            }
            let cur_shares = self.nodes[p]
                .children
                .iter()
                .fold(0i32, |acc, &c| acc.wrapping_add(self.nodes[c].shares));
            let parent_tp = self.nodes[p].tree_percentage;
            for k in 0..self.nodes[p].children.len() {
                let c = self.nodes[p].children[k];
                let node = &mut self.nodes[c];
                if cur_shares as f32 * parent_tp == 0.0 {
                    node.group_percentage = 0.0;
                    node.tree_percentage = 0.0;
                } else {
                    node.group_percentage = node.shares as f32 / cur_shares as f32;
                    node.tree_percentage = node.group_percentage * parent_tp;
                }
            }
        }
    }

    /// `calc_usage_factor`, top-down, in `f32` (usage ratios computed in `f64`, then narrowed).
    pub fn calc_usage_factor(&mut self) {
        let root_usage = self.nodes[0].usage;
        for i in 1..self.nodes.len() {
            let p = self.nodes[i].parent.unwrap_or(0);
            let parent =
                (p != 0).then(|| (self.nodes[p].usage_factor, self.nodes[i].group_percentage));
            self.nodes[i].usage_factor = usage_factor(self.nodes[i].usage, root_usage, parent);
        }
    }

    /// The formula keywords of node `i`.
    pub fn values(&self, i: usize) -> EntityValues {
        let n = &self.nodes[i];
        EntityValues {
            fairshare_perc: n.tree_percentage as f64,
            fairshare_tree_usage: n.usage_factor as f64,
            fairshare_factor: n.fairshare_factor(),
        }
    }

    /// `compare_path`: which of two entities is more deserving. `Less` means `a` is (PBS's -1).
    /// Uses `temp_usage / tree_percentage` at the first level where the paths differ, going
    /// deeper while the ratios are equal; a positive percentage beats a zero one.
    pub fn compare_path(&self, a: usize, b: usize) -> Ordering {
        let (pa, pb) = (self.path(a), self.path(b));
        for (&x, &y) in pa.iter().zip(pb.iter()) {
            if x == y {
                continue;
            }
            let (tx, ty) = (self.nodes[x].tree_percentage, self.nodes[y].tree_percentage);
            match (tx > 0.0, ty > 0.0) {
                (false, true) => return Ordering::Greater,
                (true, false) => return Ordering::Less,
                (false, false) => return Ordering::Equal,
                (true, true) => {}
            }
            let vx = self.nodes[x].temp_usage / tx as f64;
            let vy = self.nodes[y].temp_usage / ty as f64;
            if vx < vy {
                return Ordering::Less;
            } else if vy < vx {
                return Ordering::Greater;
            }
        }
        Ordering::Equal
    }

    /// `decay_fairshare_tree`: every node's usage times `factor`, floored at 1.
    pub fn decay(&mut self, factor: f64) {
        for n in &mut self.nodes {
            n.usage *= factor;
            if n.usage < MIN_USAGE {
                n.usage = MIN_USAGE;
            }
        }
    }

    /// The scheduler's decay loop: while `now - last_decay > decay_time` (strict), decay once.
    /// Then `last_decay = now - (now - last_decay) % decay_time`. On first use (`last_decay`
    /// 0) it is set to `now` without decaying. Returns how many decays happened.
    pub fn decay_until(&mut self, now: i64, decay_time: i64, factor: f64) -> u64 {
        if self.last_decay == 0 {
            self.last_decay = now;
            return 0;
        }
        if decay_time <= 0 {
            return 0;
        }
        let mut elapsed = now - self.last_decay;
        let mut n = 0;
        while elapsed > decay_time {
            self.decay(factor);
            elapsed -= decay_time;
            n += 1;
        }
        if n > 0 {
            self.last_decay = now - (now - self.last_decay) % decay_time;
        }
        n
    }

    /// Accrue `delta` of usage to an entity and every node on its path (root included), as
    /// the scheduler does for running jobs between cycles. Unknown entities are created under
    /// `unknown`. Call [`recompute`](Self::recompute) before reading values again.
    pub fn accrue(&mut self, entity: &str, delta: f64) -> usize {
        let i = self.find_or_add_unknown(entity);
        for p in self.path(i) {
            self.nodes[p].usage += delta;
            self.nodes[p].temp_usage += delta;
        }
        i
    }

    /// `update_usage_on_run`: add `delta` to `temp_usage` along the path (ordering within a
    /// cycle only).
    pub fn add_temp_usage(&mut self, node: usize, delta: f64) {
        for p in self.path(node) {
            self.nodes[p].temp_usage += delta;
        }
    }

    /// `reset_temp_usage`: `temp_usage = usage` everywhere (start of a cycle).
    pub fn reset_temp_usage(&mut self) {
        for n in &mut self.nodes {
            n.temp_usage = n.usage;
        }
    }

    /// `reset_usage`: every node back to usage 1.
    pub fn reset_usage(&mut self) {
        for n in &mut self.nodes {
            n.usage = MIN_USAGE;
            n.temp_usage = MIN_USAGE;
        }
    }

    /// Load one usage record as `read_usage_v2` does: set the node's usage (creating it under
    /// `unknown` unless `trim`), and if it is a leaf add the value to every ancestor. Returns
    /// whether the record was applied (false: `trim` and not in the tree).
    pub fn apply_usage_record(&mut self, name: &str, usage: f64, trim: bool) -> bool {
        let i = if trim {
            match self.find(name) {
                Some(i) => i,
                None => return false,
            }
        } else {
            self.find_or_add_unknown_deferred(name)
        };
        self.nodes[i].usage = usage;
        self.nodes[i].temp_usage = usage;
        if self.nodes[i].is_leaf() {
            let mut cur = self.nodes[i].parent;
            while let Some(p) = cur {
                self.nodes[p].usage += usage;
                self.nodes[p].temp_usage += usage;
                cur = self.nodes[p].parent;
            }
        }
        true
    }

    /// Set an entity's usage (`pbsfs -s`). Like PBS, only the node itself changes; setting a
    /// non-leaf has no persistent effect because only leaves are written.
    pub fn set_usage(&mut self, node: usize, usage: f64) {
        self.nodes[node].usage = usage;
    }

    /// The records PBS's `rec_write_usage` writes: leaves with usage ≠ 1 other than `unknown`,
    /// in PBS's walk order (node, then siblings, then children).
    pub fn usage_records(&self) -> Vec<(&str, f64)> {
        let mut out = Vec::new();
        self.rec_write(0, &mut out);
        out
    }

    // rec_write_usage(root): visit root, then root->sibling chain, then root->child. Written
    // iteratively over a sibling list: visit each sibling in order, then recurse children of
    // each sibling from the LAST sibling back to the first (the recursion unwinds that way).
    fn rec_write<'a>(&'a self, first: usize, out: &mut Vec<(&'a str, f64)>) {
        // `first` is a single node whose siblings are handled by its parent's loop.
        let mut stack: Vec<Vec<usize>> = vec![vec![first]];
        // Each stack entry is a sibling chain (PBS order). Process: emit all, then push the
        // children chains so that the last sibling's children come first.
        while let Some(chain) = stack.pop() {
            for &n in &chain {
                let node = &self.nodes[n];
                if node.usage != 1.0 && node.is_leaf() && node.name != UNKNOWN_NAME {
                    out.push((node.name.as_str(), node.usage));
                }
            }
            // rec(a) = emit a; rec(a.sibling); rec(a.child). So for chain a,b,c: emit a,b,c,
            // then c.child, then b.child, then a.child. Push in order a..c so c pops first.
            for &n in &chain {
                if !self.nodes[n].children.is_empty() {
                    stack.push(self.children_pbs_order(n).collect());
                }
            }
        }
    }
}

/// `skip_line`: blank, or the first non-space character is `#` or `*`.
pub fn skip_line(line: &str) -> bool {
    let t = line.trim_start_matches(|c: char| c.is_ascii_whitespace());
    t.is_empty() || t.starts_with('#') || t.starts_with('*')
}

/// `is_valid_pbs_name` with `USAGE_NAME_MAX`: letters, digits, `.-_ :`, at most 49 bytes.
pub fn is_valid_pbs_name(name: &str) -> bool {
    name.len() < USAGE_NAME_MAX
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b' ' | b':'))
}

/// Why an entity name cannot be stored in a PBS usage file, if it cannot.
pub fn check_entity_name(name: &str) -> Result<(), String> {
    if name.len() >= USAGE_NAME_MAX {
        return Err(format!(
            "entity name `{name}` is {} bytes; PBS usage files hold names of at most {} bytes",
            name.len(),
            USAGE_NAME_MAX - 1
        ));
    }
    if !is_valid_pbs_name(name) {
        return Err(format!(
            "entity name `{name}` has characters PBS does not accept (letters, digits, `.`, `-`, `_`, ` `, `:`)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAN: &str = "group1 10 root 40\ngroup2 20 root 60\npbsuser 11 group1 50\npbsuser1 12 group1 50\npbsuser2 21 group2 60\npbsuser3 22 group2 40\n";

    fn man_tree() -> PbsTree {
        let (mut t, w) =
            PbsTree::parse_resource_group(MAN, "rg", &ParseOptions::default()).unwrap();
        assert!(w.is_empty());
        for (n, u) in [
            ("pbsuser", 100.0),
            ("pbsuser1", 100.0),
            ("pbsuser3", 1000.0),
        ] {
            assert!(t.apply_usage_record(n, u, false));
        }
        t.recompute();
        t
    }

    #[test]
    fn man_page_example() {
        let t = man_tree();
        assert_eq!(t.node(0).usage, 1201.0);
        let u3 = t.find("pbsuser3").unwrap();
        assert_eq!(format!("{:.6}", t.node(u3).usage_factor), "0.832973");
        let b = t.find("pbsuser").unwrap();
        assert_eq!(format!("{:.6}", t.node(b).usage_factor), "0.125312");
        assert_eq!(format!("{:.3}", t.node(b).fairshare_factor()), "0.648");
        let s = t.find("pbsuser2").unwrap();
        assert_eq!(format!("{:.3}", t.node(s).fairshare_factor()), "0.382");
    }

    #[test]
    fn order_children_prepended_unknown_last() {
        let t = man_tree();
        let names: Vec<&str> = t
            .preorder()
            .iter()
            .map(|&(i, _)| t.node(i).name.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "TREEROOT", "group2", "pbsuser3", "pbsuser2", "group1", "pbsuser1", "pbsuser",
                "unknown"
            ]
        );
        let recs: Vec<&str> = t.usage_records().iter().map(|r| r.0).collect();
        // rec_write_usage: TREEROOT, then root's children chain, then their children (last
        // sibling's children first).
        assert_eq!(recs, ["pbsuser1", "pbsuser", "pbsuser3"]);
    }

    #[test]
    fn errors_carry_file_and_line() {
        let cases = [
            ("a 1 root 10\na 2 root 10\n", 2, "entity a is not unique"),
            ("a 1 nope 10\n", 1, "Parent ginfo of a doesnt exist."),
            (
                "b 1 a 10\na 2 root 10\n",
                1,
                "Parent ginfo of b doesnt exist.",
            ),
            ("a 1 root\n", 1, "missing field `shares`"),
            ("a 1 root x\n", 1, "shares `x` of a is not an integer"),
            ("a x root 1\n", 1, "id `x` of a is not an integer"),
        ];
        for (text, line, msg) in cases {
            let e =
                PbsTree::parse_resource_group(text, "rg", &ParseOptions::default()).unwrap_err();
            assert_eq!(e.line, Some(line), "{text}");
            assert!(e.to_string().starts_with(&format!("rg:{line}: ")), "{e}");
            assert!(e.message.contains(msg), "{e}");
            let (t, w) = PbsTree::parse_resource_group(
                text,
                "rg",
                &ParseOptions {
                    lenient: true,
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(w.len(), 1);
            assert!(t.len() >= 2);
        }
        let e = PbsTree::parse_resource_group("a 1 root -5\n", "rg", &ParseOptions::default())
            .unwrap_err();
        assert_eq!(e.to_string(), "rg:1: shares of a are negative (-5)");
        let long = "x".repeat(60);
        let e = PbsTree::parse_resource_group(
            &format!("{long} 1 root 1\n"),
            "rg",
            &ParseOptions::default(),
        )
        .unwrap_err();
        assert!(e.message.contains("at most 49 bytes"), "{e}");
    }

    #[test]
    fn zero_share_subtree_gives_zero() {
        let (t, _) = PbsTree::parse_resource_group(
            "g 1 root 0\nu 2 g 10\nv 3 root 10\n",
            "rg",
            &ParseOptions::default(),
        )
        .unwrap();
        let u = t.find("u").unwrap();
        assert_eq!(t.values(u).fairshare_perc, 0.0);
        assert_eq!(t.values(u).fairshare_factor, 0.0);
        assert_eq!(t.compare_path(t.find("v").unwrap(), u), Ordering::Less);
    }

    #[test]
    fn decay_floor_and_accrual() {
        let mut t = man_tree();
        t.decay(0.5);
        assert_eq!(t.node(t.find("pbsuser").unwrap()).usage, 50.0);
        assert_eq!(t.node(t.find("pbsuser2").unwrap()).usage, 1.0);
        let before = t.node(0).usage;
        t.accrue("pbsuser2", 10.0);
        assert_eq!(t.node(0).usage, before + 10.0);
        assert_eq!(t.node(t.find("group2").unwrap()).usage, 500.5 + 10.0);
        let n = t.accrue("stranger", 3.0);
        assert_eq!(t.node(n).parent, Some(1));
        assert_eq!(t.node(n).shares, 1);
        assert_eq!(t.node(n).usage, 4.0);
    }

    #[test]
    fn decay_loop_is_strict_and_realigns() {
        let mut t = man_tree();
        assert_eq!(t.decay_until(1_000_000_000, 100, 0.5), 0);
        assert_eq!(t.last_decay, 1_000_000_000);
        assert_eq!(t.decay_until(1_000_000_100, 100, 0.5), 0);
        assert_eq!(t.decay_until(1_000_000_250, 100, 0.5), 2);
        assert_eq!(t.last_decay, 1_000_000_200);
    }
}
