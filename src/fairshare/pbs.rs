//! The PBS fairshare tree (`src/scheduler/fairshare.cpp`), bit for bit.
//!
//! Widths follow PBS's `group_info`: `tree_percentage`, `group_percentage` and `usage_factor`
//! are `f32`; `usage` and `temp_usage` are `f64`; shares and group ids are `i32`. Children are
//! kept in insertion order and walked in reverse, which is PBS's order (it prepends children),
//! so `unknown` — the first child of the root — is always last.

use super::FairshareError;
pub use super::c_text::{
    PBS_LINE_MAX, c_strtod, c_strtol, parse_set_value, pbsfs_set_value, skip_line,
};
use super::c_text::{c_int_field, fgets_pieces};
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
    ///
    /// The file is read as `parse_group` (fairshare.cpp) reads it: `fgets` into a 256-byte
    /// buffer (a line longer than 255 bytes is read as several lines), only the newline
    /// removed (a carriage return stays on the last token), tokens split at spaces and tabs,
    /// numbers read by `strtol` and stored in an `int`. Lenient mode does exactly that, skipping
    /// bad lines with PBS's `resgroup: error on line N.` (N counts `fgets` pieces, as PBS's
    /// does). Strict mode fails on the first line PBS would skip or read differently from
    /// what it says, and the error says what PBS would have done.
    pub fn parse_resource_group(
        text: &str,
        file: &str,
        options: &ParseOptions,
    ) -> Result<(PbsTree, Vec<String>), FairshareError> {
        let mut t = PbsTree::new(options.unknown_shares);
        let mut warnings = Vec::new();
        let mut pbs_lineno = 0;
        for (i, raw) in text.as_bytes().split_inclusive(|&b| b == b'\n').enumerate() {
            let lineno = i + 1;
            let pieces = fgets_pieces(raw);
            if !options.lenient && pieces.len() > 1 && pieces[1..].iter().any(|p| !p.is_empty()) {
                let len = raw.strip_suffix(b"\n").unwrap_or(raw).len();
                return Err(FairshareError::at(
                    file,
                    lineno,
                    format!(
                        "line is {len} bytes; PBS reads resource_group lines in pieces of at most \
                         {PBS_LINE_MAX} bytes (fgets into a 256-byte buffer), so it would read this one as \
                         {} separate lines (--lenient does the same)",
                        pieces.len()
                    ),
                ));
            }
            for piece in pieces {
                pbs_lineno += 1;
                let line = String::from_utf8_lossy(piece);
                if skip_line(&line) {
                    continue;
                }
                let at = if options.lenient { pbs_lineno } else { lineno };
                let mut line_warnings = Vec::new();
                let parsed = t.parse_line(&line, options.lenient, &mut |w| line_warnings.push(w));
                warnings.extend(
                    line_warnings
                        .into_iter()
                        .map(|w| format!("{file}:{at}: {w}")),
                );
                match parsed {
                    Err(msg) if options.lenient => warnings.push(format!(
                        "{file}:{at}: {msg}; line skipped (resgroup: error on line {at}.)"
                    )),
                    Err(msg) => return Err(FairshareError::at(file, at, msg)),
                    Ok(name) if !options.lenient => {
                        // Names PBS cannot keep in its usage file: fail early, not when writing.
                        if let Err(msg) = check_entity_name(&name) {
                            return Err(FairshareError::at(file, at, msg));
                        }
                    }
                    Ok(_) => {}
                }
            }
        }
        t.recompute();
        Ok((t, warnings))
    }

    /// One `resource_group` line: `name id parent shares` (extra tokens ignored), checked in
    /// `parse_group`'s order. Returns the new entity's name.
    fn parse_line(
        &mut self,
        line: &str,
        lenient: bool,
        warn: &mut dyn FnMut(String),
    ) -> Result<String, String> {
        // strtok(buf, " \t"): only spaces and tabs separate tokens.
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
        let shares = c_int_field("shares", shares, name, lenient, warn)?;
        if shares < 0 {
            let msg = format!("shares of {name} are negative ({shares})");
            if !lenient {
                return Err(msg);
            }
            warn(format!("{msg}; kept, as PBS does"));
        }
        let cgroup = c_int_field("id", cgroup, name, lenient, warn)?;
        let mut node = PbsNode::new(name);
        node.cresgroup = cgroup;
        node.shares = shares;
        self.push_child(node, p);
        Ok(name.to_string())
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

    /// `decay_fairshare_tree`: every node's usage times `factor`, floored at 1. The factor is
    /// first narrowed to `f32`, the type PBS keeps `fairshare_decay_factor` in (see
    /// [`pbs_decay_factor`]); the product is in `f64`, as `usage *= factor` widens it.
    pub fn decay(&mut self, factor: f64) {
        let factor = pbs_decay_factor(factor) as f64;
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

/// `fairshare_decay_factor` as PBS holds it. `parse_config` (parse.cpp) reads it with
/// `float fnum = strtod(config_value, &endp)`, so the scheduler and `pbsfs -d` decay by the
/// nearest `f32`: 0.7 is 0.699999988079071, and 5000 decays to 3499.999940395355.
pub fn pbs_decay_factor(factor: f64) -> f32 {
    factor as f32
}

/// Whether PBS accepts `fairshare_decay_factor` `factor`: `parse_config` rejects
/// `fnum <= 0 || fnum >= 1`, tested on the `f32` (so 0.99999999, which rounds to 1, is
/// rejected).
pub fn is_valid_decay_factor(factor: f64) -> bool {
    let f = pbs_decay_factor(factor);
    f > 0.0 && f < 1.0
}

/// `is_valid_pbs_name` with `USAGE_NAME_MAX`: letters, digits, `.-_ :`, at most 49 bytes.
pub fn is_valid_pbs_name(name: &str) -> bool {
    name.len() < USAGE_NAME_MAX
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b' ' | b':'))
}

/// Why an entity name cannot be stored in a PBS usage file, if it cannot, and what PBS does
/// with it instead.
pub fn check_entity_name(name: &str) -> Result<(), String> {
    if name.len() >= USAGE_NAME_MAX {
        return Err(format!(
            "entity name `{name}` is {} bytes; PBS usage files hold names of at most {} bytes \
             (pbsfs writes the first {} bytes, and the scheduler reads that usage back as a \
             different entity under `unknown`)",
            name.len(),
            USAGE_NAME_MAX - 1,
            USAGE_NAME_MAX - 1
        ));
    }
    if !is_valid_pbs_name(name) {
        return Err(format!(
            "entity name `{}` has characters PBS does not accept in a usage file (letters, \
             digits, `.`, `-`, `_`, ` `, `:`): PBS loads it from resource_group, but skips its \
             usage record on every read (\"Invalid entity\"), so its usage is lost (--lenient \
             keeps it, as PBS does)",
            name.escape_debug()
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

    /// parse.cpp keeps `fairshare_decay_factor` in a float; `usage *= factor` widens it.
    #[test]
    fn decay_by_the_float_factor() {
        let mut t = man_tree();
        let u = t.find("pbsuser3").unwrap();
        t.decay(0.7);
        assert_eq!(t.node(u).usage, 1000.0 * 0.699999988079071);
        assert_ne!(t.node(u).usage, 700.0);
        assert!(!is_valid_decay_factor(0.99999999));
        assert!(!is_valid_decay_factor(1e-50));
        assert!(is_valid_decay_factor(0.5));
    }

    #[test]
    fn strtol_and_strtod_read_as_c_does() {
        assert_eq!(c_strtol("42"), Some(42));
        assert_eq!(c_strtol("+7"), Some(7));
        let (t, _) =
            PbsTree::parse_resource_group("a +10 root +7\n", "rg", &ParseOptions::default())
                .unwrap();
        assert_eq!(
            t.node(t.find("a").unwrap()).shares,
            7,
            "a sign reads the same in C"
        );
        let e = PbsTree::parse_resource_group("a 10 root \x0b7\n", "rg", &ParseOptions::default())
            .unwrap_err();
        assert!(e.message.contains("strtol as 7"), "{e}");
        assert_eq!(c_strtol("\x0b-3"), Some(-3));
        assert_eq!(c_strtol("10\r"), None);
        assert_eq!(c_strtol("-"), None);
        assert_eq!(c_strtol("99999999999999999999"), Some(i64::MAX));
        assert_eq!(c_strtol("-99999999999999999999"), Some(i64::MIN));
        for (text, value, read) in [
            ("5", 5.0, 1),
            (" 5", 5.0, 2),
            ("5 ", 5.0, 1),
            ("0x10", 16.0, 4),
            ("0x1.8p1", 3.0, 7),
            ("0x", 0.0, 1),
            ("1e3", 1000.0, 3),
            ("1e", 1.0, 1),
            (".5", 0.5, 2),
            ("-inf", f64::NEG_INFINITY, 4),
            ("Infinity", f64::INFINITY, 8),
            ("abc", 0.0, 0),
            ("", 0.0, 0),
        ] {
            assert_eq!(c_strtod(text), (value, read), "{text:?}");
        }
        let (v, n) = c_strtod("nan(123)x");
        assert!(v.is_nan());
        assert_eq!(n, 8);
        assert_eq!(pbsfs_set_value(""), Some(0.0));
        assert_eq!(pbsfs_set_value("5 "), None);
        assert_eq!(parse_set_value("12.5", false), Ok(Some(12.5)));
        assert_eq!(parse_set_value("-5", true), Ok(Some(-5.0)));
        assert_eq!(parse_set_value("x", true), Ok(None));
        assert!(
            parse_set_value("0x10", false)
                .unwrap_err()
                .contains("as 16")
        );
    }

    /// fgets(buf, 256, fp): a long line is read as pieces, each a line of its own.
    #[test]
    fn long_lines_and_crlf_as_pbs_reads_them() {
        let lenient = ParseOptions {
            lenient: true,
            ..Default::default()
        };
        let long = format!("a 10 root 10{}b 20 root 5\nc 30 root 1\n", " ".repeat(250));
        let e = PbsTree::parse_resource_group(&long, "rg", &ParseOptions::default()).unwrap_err();
        assert_eq!(e.line, Some(1));
        let (t, w) = PbsTree::parse_resource_group(&long, "rg", &lenient).unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert!(t.find("a").is_some() && t.find("b").is_some() && t.find("c").is_some());
        // A line of exactly 255 bytes: its newline is read as a blank line, harmless.
        let exact = format!("a 10 root 10{}\nx 1 nope 1\n", " ".repeat(243));
        let (_, w) = PbsTree::parse_resource_group(&exact, "rg", &lenient).unwrap();
        assert_eq!(w.len(), 1);
        assert!(w[0].starts_with("rg:3: "), "PBS counts the piece: {w:?}");
        assert!(PbsTree::parse_resource_group(&exact, "rg", &ParseOptions::default()).is_err());
        // CRLF: a fifth token takes the carriage return, so PBS accepts that line.
        let (t, w) =
            PbsTree::parse_resource_group("a 10 root 10 x\r\nb 20 root 5\r\n", "rg", &lenient)
                .unwrap();
        assert!(t.find("a").is_some() && t.find("b").is_none());
        assert!(w[0].contains("resgroup: error on line 2."), "{w:?}");
        assert!(skip_line("\x0b# comment") && skip_line("\r"));
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
