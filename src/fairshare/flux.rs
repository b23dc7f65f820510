//! flux-accounting's weighted tree (`src/fairness/weighted_tree`, `update-fshare`).
//!
//! Weights per sibling set: 0 for zero shares, `2^64 + 1` (as a double) for zero usage, else
//! `(shares/Σshares) / (usage/Σusage)`; the usage sum is accumulated in a `uint64_t`, so it is
//! truncated to an integer at each step, as upstream. Siblings sort by weight descending with
//! epsilon ties (`|a−b| < DBL_EPSILON·max(|a|,|b|,1)`), users before banks among ties. A run
//! of tied banks is replaced by a virtual node holding all their children (re-sorted by their
//! parent-relative weights). Users get `rank / N` (N = users in the tree); a user tied with
//! the next user keeps the rank and widens the stride.
//!
//! Upstream uses `std::sort` (unstable) with an epsilon comparator, so the order of entries
//! that tie is unspecified there; we sort by exact weight (stable, input order among equal
//! values) and then move users ahead of banks within each epsilon-tied run.

use super::tree::{NodeValues, ShareTree};

/// A fair-share value as flux-accounting stores it and its plugin uses it: `flux
/// account-update-fshare` writes each association's value as `std::to_string(double)`
/// (`printf("%f")`: six decimals) into `association_table.fairshare`
/// (`src/fairness/writer/data_writer_db.cpp`, `update_fairshare_values`), and `mf_priority`
/// gets that column. 6/11 is stored as 0.545455, so 100000 × fair-share rounds to 54546,
/// where the unrounded value gives 54545.
pub fn stored_fairshare(x: f64) -> f64 {
    format!("{x:.6}").parse().unwrap_or(x)
}

fn is_equal(a: f64, b: f64) -> bool {
    (a - b).abs() < f64::EPSILON * a.abs().max(b.abs().max(1.0))
}

const ZERO_USAGE_WEIGHT: f64 = u64::MAX as f64 + 1.0;

/// Weights of `kids` relative to each other (`calc_set_children_weight`).
fn set_weights(t: &ShareTree, kids: &[usize], w: &mut [f64]) {
    let shares_sum: f64 = kids.iter().map(|&k| t.nodes[k].shares.raw().trunc()).sum();
    let usage_sum = kids.iter().fold(0u64, |acc, &k| {
        // `a.second + b->get_usage()` stored back into a uint64_t
        (acc as f64 + t.nodes[k].usage) as u64
    }) as f64;
    for &k in kids {
        let node = &t.nodes[k];
        let shares = node.shares.raw();
        w[k] = if shares == 0.0 {
            0.0
        } else if node.usage.abs() < 1e-9 {
            ZERO_USAGE_WEIGHT
        } else {
            (shares / shares_sum) / (node.usage / usage_sum)
        };
    }
}

/// `sort_weighted_children`.
fn sort_children(t: &ShareTree, kids: &mut [usize], w: &[f64]) {
    kids.sort_by(|&a, &b| w[b].total_cmp(&w[a]));
    // Within runs of epsilon-equal weights, users first (stable).
    let mut start = 0;
    while start < kids.len() {
        let mut end = start + 1;
        while end < kids.len() && is_equal(w[kids[end - 1]], w[kids[end]]) {
            end += 1;
        }
        kids[start..end].sort_by_key(|&k| !t.nodes[k].is_user);
        start = end;
    }
}

/// Walk state.
struct Walk<'a> {
    t: &'a ShareTree,
    w: Vec<f64>,
    rank: u64,
    stride: u64,
    n: u64,
    fs: Vec<Option<f64>>,
    tie_with_next: Vec<bool>,
}

/// A node of the walk: a real node or a virtual node (children of merged tied banks).
enum Visit {
    Node(usize),
    Virtual,
}

impl Walk<'_> {
    /// Visit `v` with its sorted children, depth first in the walk's order. Upstream recurses
    /// once per level; the open child lists are kept on a stack here, so any depth works.
    fn visit(&mut self, v: Visit, sorted_children: Vec<usize>) {
        let mut stack: Vec<std::vec::IntoIter<(Visit, Vec<usize>)>> = Vec::new();
        if let Some(children) = self.expand(v, sorted_children) {
            stack.push(children.into_iter());
        }
        while let Some(top) = stack.last_mut() {
            match top.next() {
                Some((child, kids)) => {
                    if let Some(children) = self.expand(child, kids) {
                        stack.push(children.into_iter());
                    }
                }
                None => {
                    stack.pop();
                }
            }
        }
    }

    /// One node of the walk: a leaf is ranked (`None`); otherwise its tie-aware children,
    /// each with its own children sorted, to be visited in order.
    fn expand(
        &mut self,
        v: Visit,
        sorted_children: Vec<usize>,
    ) -> Option<Vec<(Visit, Vec<usize>)>> {
        if sorted_children.is_empty() {
            if let Visit::Node(i) = v {
                self.handle_leaf(i);
            }
            return None;
        }
        // Sort all grandchildren relative to their own parents.
        let mut grand: Vec<Vec<usize>> = Vec::with_capacity(sorted_children.len());
        for &c in &sorted_children {
            let mut g = self.t.nodes[c].children.clone();
            set_weights(self.t, &g, &mut self.w);
            sort_children(self.t, &mut g, &self.w);
            grand.push(g);
        }
        // build_tie_aware_children
        let k = sorted_children.len();
        let eq_next = |i: usize| -> bool {
            i + 1 < k
                && self.t.nodes[sorted_children[i]].is_user
                    == self.t.nodes[sorted_children[i + 1]].is_user
                && is_equal(self.w[sorted_children[i]], self.w[sorted_children[i + 1]])
        };
        let mut tie_aware: Vec<(Visit, Vec<usize>)> = Vec::new();
        let mut stride: Option<Vec<usize>> = None;
        for i in 0..k {
            let c = sorted_children[i];
            if self.t.nodes[c].is_user {
                if eq_next(i) {
                    self.tie_with_next[c] = true;
                }
                tie_aware.push((Visit::Node(c), Vec::new()));
                continue;
            }
            if eq_next(i) {
                stride
                    .get_or_insert_with(Vec::new)
                    .extend_from_slice(&grand[i]);
            } else if let Some(mut merged) = stride.take() {
                merged.extend_from_slice(&grand[i]);
                sort_children(self.t, &mut merged, &self.w);
                tie_aware.push((Visit::Virtual, merged));
            } else {
                tie_aware.push((Visit::Node(c), std::mem::take(&mut grand[i])));
            }
        }
        Some(tie_aware)
    }

    fn handle_leaf(&mut self, i: usize) {
        if !self.t.nodes[i].is_user {
            return;
        }
        self.fs[i] = Some(self.rank as f64 / self.n as f64);
        if self.rank == 0 {
            return;
        }
        if self.tie_with_next[i] {
            self.stride += 1;
            self.tie_with_next[i] = false;
        } else {
            self.rank = self.rank.saturating_sub(1 + self.stride);
            self.stride = 0;
        }
    }
}

/// The flux-accounting weighted walk: `fairshare = rank / N` per user association.
pub fn weighted_tree(t: &ShareTree) -> Vec<NodeValues> {
    let n = t.nodes.len();
    let users = t.user_count() as u64;
    let mut walk = Walk {
        t,
        w: vec![0.0; n],
        rank: users,
        stride: 0,
        n: users,
        fs: vec![None; n],
        tie_with_next: vec![false; n],
    };
    let mut top = t.nodes[0].children.clone();
    set_weights(t, &top, &mut walk.w);
    sort_children(t, &mut top, &walk.w);
    walk.visit(Visit::Node(0), top);
    // Share of the machine: product of local share fractions; usage relative to the root.
    let mut perc = vec![0.0; n];
    perc[0] = 1.0;
    let child_shares: Vec<f64> = t
        .nodes
        .iter()
        .map(|n| n.children.iter().map(|&c| t.nodes[c].shares.raw()).sum())
        .collect();
    for &i in &t.preorder()[1..] {
        let p = t.nodes[i].parent.unwrap_or(0);
        let sum = child_shares[p];
        perc[i] = if sum == 0.0 {
            0.0
        } else {
            t.nodes[i].shares.raw() / sum * perc[p]
        };
    }
    let root_usage = t.nodes[0].usage;
    (0..n)
        .map(|i| NodeValues {
            weight: if i == 0 { None } else { Some(walk.w[i]) },
            fairshare_factor: if t.nodes[i].is_user { walk.fs[i] } else { None },
            fairshare_perc: Some(perc[i]),
            fairshare_tree_usage: Some(if root_usage == 0.0 {
                0.0
            } else {
                t.nodes[i].usage / root_usage
            }),
            ..NodeValues::default()
        })
        .collect()
}

#[cfg(test)]
mod stored_tests {
    use super::stored_fairshare;

    /// `std::to_string(6.0 / 11.0)` is "0.545455": the plugin's 100000 × fair-share is
    /// round(54545.5) = 54546, not round(54545.45…) = 54545.
    #[test]
    fn six_decimals_as_std_to_string() {
        assert_eq!(stored_fairshare(6.0 / 11.0), 0.545455);
        assert_eq!((100_000.0 * stored_fairshare(6.0 / 11.0)).round(), 54_546.0);
        assert_eq!((100_000.0 * (6.0f64 / 11.0)).round(), 54_545.0);
        assert_eq!(stored_fairshare(1.0), 1.0);
        assert_eq!(stored_fairshare(9.0 / 11.0), 0.818182);
    }
}
