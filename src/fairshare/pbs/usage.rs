//! Usage: accrual along a path, the per-cycle `temp_usage`, and the records a usage file
//! holds (read as `read_usage_v2`, written in `rec_write_usage`'s order).

use super::{MIN_USAGE, PbsTree, UNKNOWN_NAME};

impl PbsTree {
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

#[cfg(test)]
mod tests {
    use super::super::*;

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
}
