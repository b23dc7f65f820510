//! The node arena: `group_info` nodes under `TREEROOT`, looked up by name, walked in PBS's
//! order (children prepended, so the most recently added child comes first).

use super::{MIN_USAGE, ROOT_NAME, UNKNOWN_NAME, UNSPECIFIED};
use std::collections::HashMap;

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
    pub(super) fn new(name: &str) -> PbsNode {
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
}

/// A PBS fairshare tree (`fairshare_head`): nodes in an arena, index 0 the root, 1 `unknown`.
#[derive(Debug, Clone, PartialEq)]
pub struct PbsTree {
    pub(super) nodes: Vec<PbsNode>,
    pub(super) index: HashMap<String, usize>,
    /// Time of the last decay (seconds since the epoch; 0 = never).
    pub last_decay: i64,
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

    /// `parse_group`'s insertion of one `resource_group` line, as a call: a new node `name`
    /// with `shares` shares under `parent`, whose children get group id `cresgroup`; returns
    /// its index. `Err(i)`, and nothing added, when the tree already has a node of that name,
    /// `i` (PBS: "entity NAME is not unique"). Percentages are not recomputed: call
    /// [`recompute`](Self::recompute) once after adding many.
    ///
    /// # Panics
    /// When `parent` is not a node of this tree (an index [`find`](Self::find) or this
    /// function returned is one).
    pub fn add_entity(
        &mut self,
        name: &str,
        cresgroup: i32,
        parent: usize,
        shares: i32,
    ) -> Result<usize, usize> {
        if let Some(i) = self.find(name) {
            return Err(i);
        }
        let mut node = PbsNode::new(name);
        node.cresgroup = cresgroup;
        node.shares = shares;
        Ok(self.push_child(node, parent))
    }

    /// `add_child`: attach `node` under `parent` (as PBS's first child) and index it.
    pub(super) fn push_child(&mut self, mut node: PbsNode, parent: usize) -> usize {
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
}

#[cfg(test)]
mod tests {
    use super::super::man_tree;

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
}
