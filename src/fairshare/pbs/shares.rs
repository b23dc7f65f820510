//! From shares and usage to the formula's values: tree percentages, usage factors,
//! `fairshare_factor`, and `compare_path`, PBS's order of entities.

use super::{PbsNode, PbsTree};
use std::cmp::Ordering;

impl PbsNode {
    /// `fairshare_factor`: `2^-(usage_factor / tree_percentage)`, 0 when the percentage is 0.
    /// The division is in `f32` and the power in `f64`, as PBS computes it.
    pub fn fairshare_factor(&self) -> f64 {
        fairshare_factor(self.usage_factor, self.tree_percentage)
    }
}

/// `fairshare_factor` of a node with this usage factor and tree percentage:
/// `2^-(usage_factor / tree_percentage)` (division in `f32`, power in `f64` by glibc's `pow`:
/// see [`crate::fairshare::pow2`]), 0 when the percentage is 0.
#[inline]
pub fn fairshare_factor(usage_factor: f32, tree_percentage: f32) -> f64 {
    match factor_exponent(usage_factor, tree_percentage) {
        Some(y) => crate::fairshare::pow2::pow2(y),
        None => 0.0,
    }
}

/// The power of 2 that [`fairshare_factor`] takes, `None` when the percentage is 0 (the
/// factor is then 0). For computing many factors with
/// [`crate::fairshare::pow2::pow2_in_place`].
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

impl PbsTree {
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
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use std::cmp::Ordering;

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
}
