//! Slurm's fairshare (`priority/multifactor`): classic (`PriorityFlags=NO_FAIR_TREE`) and
//! Fair Tree, in `f64`.
//!
//! Associations marked `FairShare=parent` are re-parented to their *fs parent* (the first
//! ancestor that is not `parent`), as `assoc_mgr` does; level shares are summed over an fs
//! parent's children, with `parent` children counting 0.
//!
//! **Fair Tree ties follow Slurm's code, not its documentation.** `fair_tree.shtml` says
//! sibling accounts with equal LevelFS have their children merged; `_count_tied_accounts` in
//! `fair_tree.c` stops at the first account, so nothing is ever merged: the second tied
//! account is walked after the first and only its first child inherits the current rank. We
//! do the same.
//!
//! **Exactly tied siblings depend on Slurm's list order.** Slurm sorts each sibling set with
//! `qsort`; siblings of the same kind with exactly equal LevelFS keep the order of the
//! association's `children_list`: sshare's row order while slurmctld runs after associations
//! changed, the associations' `lft` order after it starts ([`super::tree::SiblingOrder`]
//! cites where each comes from). sshare does not say which holds. We use the input order
//! unless [`ShareTree::set_sibling_order`] gives Slurm's; [`tied_accounts`] lists the sibling
//! accounts the order decides.

use super::tree::{NodeValues, ShareTree, Shares, SiblingOrder};

/// Slurm's `NO_VAL` as a LevelFS (`(long double) NO_VAL`).
pub const NO_VAL_LF: f64 = 4_294_967_294.0;

/// Per-node structure both algorithms share: fs parents, fs children and level shares.
struct FsLayout {
    fs_parent: Vec<Option<usize>>,
    fs_children: Vec<Vec<usize>>,
    level_shares: Vec<f64>,
    order: Vec<usize>,
}

fn layout(t: &ShareTree) -> FsLayout {
    let n = t.nodes.len();
    let mut fs_parent = vec![None; n];
    let mut fs_children = vec![Vec::new(); n];
    let order = t.preorder();
    for &i in &order {
        let mut p = t.nodes[i].parent;
        while let Some(pp) = p {
            if pp == 0 || t.nodes[pp].shares != Shares::Parent {
                break;
            }
            p = t.nodes[pp].parent;
        }
        fs_parent[i] = p;
        if let Some(pp) = p {
            fs_children[pp].push(i);
        }
    }
    let level_shares = (0..n)
        .map(|i| {
            fs_children[i]
                .iter()
                .map(|&c| t.nodes[c].shares.raw())
                .sum()
        })
        .collect();
    FsLayout {
        fs_parent,
        fs_children,
        level_shares,
        order,
    }
}

fn norm_usage(t: &ShareTree, i: usize) -> f64 {
    let root = t.nodes[0].usage;
    if root == 0.0 {
        0.0
    } else {
        (t.nodes[i].usage / root).min(1.0)
    }
}

/// Classic normalized shares (the product of local ratios up the fs-parent chain).
fn classic_shares(t: &ShareTree, l: &FsLayout) -> Vec<f64> {
    let mut s = vec![0.0; t.nodes.len()];
    s[0] = 1.0;
    for &i in &l.order[1..] {
        let p = l.fs_parent[i].unwrap_or(0);
        s[i] = match t.nodes[i].shares {
            Shares::Parent => s[p],
            Shares::Value(v) => {
                let level = l.level_shares[p];
                if level == 0.0 { 0.0 } else { v / level * s[p] }
            }
        };
    }
    s
}

/// Slurm classic fairshare with `FairShareDampeningFactor = damp`.
pub fn classic(t: &ShareTree, damp: f64) -> Vec<NodeValues> {
    non_fair_tree(t, damp, false)
}

/// Slurm's `PriorityFlags=DEPTH_OBLIVIOUS` fairshare: classic shares and factor
/// (`2^(-UE/S)`), with each association's effective usage from
/// `_depth_oblivious_set_usage_efctv` (`priority_multifactor.c`): `R_p · r_l^k · S`, where
/// `R_p = UE_parent / S_parent`, `r_l = (U / S) / r_s`, `r_s` the parent's children's
/// normalised usage (those not `FairShare=parent`) over `S_parent`, and `k = 1` unless
/// `ln R_p · ln r_l < 0`, then `1 / (1 + (5 ln R_p)^2)`; the normalised usage when any of `S`,
/// `S_parent`, `UE_parent`, `U` is 0.
pub fn depth_oblivious(t: &ShareTree, damp: f64) -> Vec<NodeValues> {
    non_fair_tree(t, damp, true)
}

fn non_fair_tree(t: &ShareTree, damp: f64, depth_oblivious: bool) -> Vec<NodeValues> {
    let l = layout(t);
    let s = classic_shares(t, &l);
    let n = t.nodes.len();
    let mut ue = vec![0.0; n];
    let mut out = vec![NodeValues::default(); n];
    ue[0] = 1.0;
    for &i in &l.order[1..] {
        let p = l.fs_parent[i].unwrap_or(0);
        let un = norm_usage(t, i);
        ue[i] = if p == 0 {
            un
        } else {
            match t.nodes[i].shares {
                Shares::Parent => ue[p],
                Shares::Value(_) if depth_oblivious => {
                    depth_oblivious_usage(t, &l, &s, &ue, i, p, un)
                }
                Shares::Value(v) => {
                    let level = l.level_shares[p];
                    if level == 0.0 {
                        ue[p]
                    } else {
                        un + (ue[p] - un) * v / level
                    }
                }
            }
        };
    }
    for i in 0..n {
        // priority_p_calc_fs_factor; sshare prints it on every row in classic mode, root and
        // accounts included (sshare/process.c, PRINT_FSFACTOR).
        let fs = if s[i] <= 0.0 {
            0.0
        } else {
            super::pow2::pow2(-(ue[i] / s[i]) / damp)
        };
        out[i] = NodeValues {
            // _normalize_assoc_shares_traditional starts every product at 1.0, so the root's
            // NormShares is 1.
            norm_shares: Some(s[i]),
            norm_usage: if i == 0 { None } else { Some(norm_usage(t, i)) },
            effective_usage: Some(ue[i]),
            fairshare_factor: Some(fs),
            fairshare_perc: Some(s[i]),
            fairshare_tree_usage: Some(ue[i]),
            ..NodeValues::default()
        };
    }
    out
}

/// `_depth_oblivious_set_usage_efctv` for association `i` under fs parent `p` (not the root),
/// of normalised usage `un`, with the shares `s` and the effective usage `ue` computed so far.
fn depth_oblivious_usage(
    t: &ShareTree,
    l: &FsLayout,
    s: &[f64],
    ue: &[f64],
    i: usize,
    p: usize,
    un: f64,
) -> f64 {
    const F: f64 = 5.0;
    if s[i] == 0.0 || s[p] == 0.0 || ue[p] == 0.0 || un == 0.0 {
        return un;
    }
    let ratio_p = ue[p] / s[p];
    let ratio_s = l.fs_children[p]
        .iter()
        .filter(|&&c| t.nodes[c].shares != Shares::Parent)
        .fold(0.0, |sum, &c| sum + norm_usage(t, c))
        / s[p];
    let ratio_l = (un / s[i]) / ratio_s;
    let k = if ratio_p == 0.0 || ratio_l == 0.0 || ratio_p.ln() * ratio_l.ln() >= 0.0 {
        1.0
    } else {
        1.0 / (1.0 + (F * ratio_p.ln()).powi(2))
    };
    ratio_p * ratio_l.powf(k) * s[i]
}

/// Fair Tree's level shares `S`, level usage `U` and LevelFS of every node
/// (`_calc_assoc_fs`, `fair_tree.c`).
struct LevelFs {
    s: Vec<f64>,
    u: Vec<f64>,
    lf: Vec<f64>,
}

fn level_fs(t: &ShareTree, l: &FsLayout) -> LevelFs {
    let n = t.nodes.len();
    let mut s = vec![0.0; n];
    let mut u = vec![0.0; n];
    let mut lf = vec![NO_VAL_LF; n];
    for &i in &l.order[1..] {
        let p = l.fs_parent[i].unwrap_or(0);
        s[i] = match t.nodes[i].shares {
            Shares::Parent => s[p],
            Shares::Value(v) => {
                let level = l.level_shares[p];
                if level == 0.0 { 0.0 } else { v / level }
            }
        };
        let pu = t.nodes[p].usage;
        u[i] = if pu == 0.0 {
            0.0
        } else {
            t.nodes[i].usage / pu
        };
        lf[i] = match (t.nodes[i].shares, t.nodes[i].is_user) {
            (Shares::Parent, true) => f64::INFINITY,
            (Shares::Parent, false) => NO_VAL_LF,
            _ if s[i] == 0.0 => 0.0,
            _ => s[i] / u[i],
        };
    }
    LevelFs { s, u, lf }
}

/// The sets of sibling accounts (under one fs parent) whose Fair Tree LevelFS is exactly
/// equal, each in the order Fair Tree walks them: the accounts whose users' values depend on
/// the order of tied siblings ([`ShareTree::set_sibling_order`]). Tied users share one rank
/// whatever their order; a user tied with an account comes first (`_cmp_level_fs`).
pub fn tied_accounts(t: &ShareTree) -> Vec<Vec<usize>> {
    let l = layout(t);
    let lf = level_fs(t, &l).lf;
    let mut out = Vec::new();
    for &p in &l.order {
        let mut accounts: Vec<usize> = l.fs_children[p]
            .iter()
            .copied()
            .filter(|&c| !t.nodes[c].is_user && t.nodes[c].shares != Shares::Parent)
            .collect();
        accounts.sort_by(|&a, &b| {
            lf[b]
                .total_cmp(&lf[a])
                .then_with(|| t.tie_key(a).cmp(&t.tie_key(b)))
        });
        for set in accounts.chunk_by(|&a, &b| lf[a] == lf[b]) {
            if set.len() > 1 {
                out.push(set.to_vec());
            }
        }
    }
    out
}

/// A note on the sibling accounts whose order decides their users' Fair Tree values
/// ([`tied_accounts`]) and the order used; `None` when no accounts are tied.
pub fn tie_note(t: &ShareTree) -> Option<String> {
    let sets = tied_accounts(t);
    if sets.is_empty() {
        return None;
    }
    let names: Vec<String> = sets
        .iter()
        .map(|set| {
            set.iter()
                .map(|&i| format!("`{}`", t.nodes[i].name))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect();
    let order = t.sibling_order();
    let (text, hint) = if t.order_detected() {
        (
            "the order slurmctld used, found from the capture (its FairShare values follow it)"
                .to_string(),
            "",
        )
    } else if matches!(order, SiblingOrder::Lft { .. }) {
        (order.describe(), "")
    } else {
        (
            order.describe(),
            "; after slurmctld starts, Slurm's is the associations' lft order \
             (sacctmgr -P show assoc format=Cluster,Account,User,Lft)",
        )
    };
    Some(format!(
        "Fair Tree: sibling accounts with equal LevelFS ({}) are ranked in {text}{hint}",
        names.join("; "),
    ))
}

/// How many of the user associations with a captured factor (sshare's `FairShare`) Fair
/// Tree gives another value, as sshare prints it (`%f`), under the tree's sibling order.
fn captured_mismatches(t: &ShareTree) -> usize {
    let fs = fair_tree(t);
    (0..t.nodes.len())
        .filter(|&i| match (t.captured_factor(i), fs[i].fairshare_factor) {
            (Some(c), Some(v)) => format!("{c:.6}") != format!("{v:.6}"),
            _ => false,
        })
        .count()
}

/// Sets of tied accounts larger than this are not searched for the captured order (their
/// permutations grow as n!).
const MAX_SEARCHED_TIE: usize = 6;

/// Set the order of tied sibling accounts for Fair Tree, and say which was used
/// ([`tie_note`]). `explicit` wins. Without it, when sibling accounts are tied and the input
/// carries slurmctld's own factors (an sshare capture's `FairShare`), the order that gives
/// the captured factors is used: the input's when it does, else, set by set of tied
/// accounts, the arrangement of the set that gives its users' captured factors (a set
/// decides only the ranks of its own accounts' users: the users before it are walked
/// first, and the sibling after it, of another LevelFS, starts a rank of its own). Sets of
/// more than six accounts are left in input order. An explicit order the captured factors
/// contradict is kept, with a note that says so. Returns the notes to show; `Err` when
/// `explicit` names a node the tree does not have.
pub fn settle_sibling_order(
    t: &mut ShareTree,
    explicit: Option<&SiblingOrder>,
) -> Result<Vec<String>, String> {
    let mut notes = Vec::new();
    t.set_order_detected(false);
    let captured = (0..t.nodes.len()).any(|i| t.captured_factor(i).is_some());
    t.set_sibling_order(explicit.unwrap_or(&SiblingOrder::Input))?;
    let sets = tied_accounts(t);
    if !sets.is_empty() && captured {
        let mut bad = captured_mismatches(t);
        if let Some(order) = explicit {
            if bad > 0 {
                notes.push(format!(
                    "Fair Tree: under {}, {bad} user associations get another factor than the \
                     capture's FairShare",
                    order.describe()
                ));
            }
        } else {
            // Every node by name in input order; each tied set's members permuted in place.
            let mut names: Vec<String> = t.nodes.iter().map(|n| n.name.clone()).collect();
            for set in sets.iter().filter(|s| s.len() <= MAX_SEARCHED_TIE) {
                if bad == 0 {
                    break;
                }
                let mut slots: Vec<usize> = set.clone();
                slots.sort_unstable();
                let mut perm: Vec<usize> = slots.clone();
                let (mut best, mut best_perm) = (bad, perm.clone());
                while next_permutation(&mut perm) {
                    for (&slot, &node) in slots.iter().zip(&perm) {
                        names[slot] = t.nodes[node].name.clone();
                    }
                    t.set_sibling_order(&SiblingOrder::Names(names.clone()))?;
                    let b = captured_mismatches(t);
                    if b < best {
                        (best, best_perm) = (b, perm.clone());
                    }
                }
                for (&slot, &node) in slots.iter().zip(&best_perm) {
                    names[slot] = t.nodes[node].name.clone();
                }
                bad = best;
            }
            t.set_sibling_order(&SiblingOrder::Names(names))?;
            if bad == 0 {
                t.set_order_detected(true);
            } else {
                t.set_sibling_order(&SiblingOrder::Input)?;
            }
        }
    }
    notes.extend(tie_note(t));
    Ok(notes)
}

/// The next permutation in lexicographic order; `false` after the last.
fn next_permutation(v: &mut [usize]) -> bool {
    let Some(i) = (1..v.len()).rev().find(|&i| v[i - 1] < v[i]) else {
        return false;
    };
    let j = (i..v.len()).rev().find(|&j| v[j] > v[i - 1]).unwrap_or(i);
    v.swap(i - 1, j);
    v[i..].reverse();
    true
}

/// Slurm Fair Tree: LevelFS per node and `rank / N` per user, N = all user associations.
pub fn fair_tree(t: &ShareTree) -> Vec<NodeValues> {
    let l = layout(t);
    let global = classic_shares(t, &l);
    let n = t.nodes.len();
    let LevelFs { s, u, lf } = level_fs(t, &l);
    let big_n = t.user_count();
    let mut fs = vec![None; n];
    calc_tree_fs(t, &l, &lf, big_n, &mut fs);
    let mut out = vec![NodeValues::default(); n];
    for i in 0..n {
        let node = &t.nodes[i];
        out[i] = NodeValues {
            norm_shares: Some(s[i]),
            norm_usage: if i == 0 { None } else { Some(norm_usage(t, i)) },
            effective_usage: Some(if i == 0 { 1.0 } else { u[i] }),
            level_fs: if i == 0 || node.shares == Shares::Parent {
                None
            } else {
                Some(lf[i])
            },
            fairshare_factor: if node.is_user { fs[i] } else { None },
            fairshare_perc: Some(global[i]),
            fairshare_tree_usage: Some(if i == 0 { 1.0 } else { norm_usage(t, i) }),
            ..NodeValues::default()
        };
    }
    out
}

/// `_calc_tree_fs` from the root: a depth-first walk over the fs children, each sibling set
/// sorted by `_cmp_level_fs`. Slurm recurses into each account; this walk keeps the open
/// sibling sets on a stack instead, so a tree of any depth works.
fn calc_tree_fs(t: &ShareTree, l: &FsLayout, lf: &[f64], big_n: usize, fs: &mut [Option<f64>]) {
    /// One open sibling set: the sorted siblings, the next one to visit, the previous
    /// sibling's LevelFS and whether the set's first member is tied (`account_tied`).
    struct Level {
        sib: Vec<usize>,
        next: usize,
        prev: f64,
        account_tied: bool,
    }
    let sorted = |parent: usize| -> Vec<usize> {
        let mut sib: Vec<usize> = l.fs_children[parent].clone();
        // _cmp_level_fs: LevelFS descending; among equal values users first; then the order
        // Slurm's list holds them in (ShareTree::set_sibling_order; input order by default).
        sib.sort_by(|&a, &b| {
            lf[b]
                .total_cmp(&lf[a])
                .then_with(|| t.nodes[b].is_user.cmp(&t.nodes[a].is_user))
                .then_with(|| t.tie_key(a).cmp(&t.tie_key(b)))
        });
        sib
    };
    let (mut rank, mut rnt) = (big_n, big_n);
    let mut stack = vec![Level {
        sib: sorted(0),
        next: 0,
        prev: NO_VAL_LF,
        account_tied: false,
    }];
    while let Some(level) = stack.last_mut() {
        let i = level.next;
        let Some(&a) = level.sib.get(i) else {
            stack.pop();
            continue;
        };
        level.next += 1;
        let tied = if i == 0 && level.account_tied {
            true
        } else {
            level.prev == lf[a]
        };
        level.prev = lf[a];
        if t.nodes[a].is_user {
            if !tied {
                rank = rnt;
            }
            fs[a] = Some(rank as f64 / big_n as f64);
            rnt = rnt.saturating_sub(1);
        } else {
            // _count_tied_accounts always finds 0 (see the module docs): no merging.
            stack.push(Level {
                sib: sorted(a),
                next: 0,
                prev: NO_VAL_LF,
                account_tied: tied,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// priority_multifactor.c, _depth_oblivious_set_usage_efctv (22.05), by hand: root → A,
    /// B (1 share each); A → u1, u2; B → u3 (1 share each); usage u1 30, u2 10, u3 60.
    /// S: A .5, B .5, u1 .25, u2 .25, u3 .5; U: A .4, u1 .3, u2 .1, u3 .6; UE(A) = .4,
    /// UE(B) = .6 (children of the root: their normalised usage).
    /// u1: R_p = .4/.5 = .8, r_s = (.3 + .1)/.5 = .8, r_l = (.3/.25)/.8 = 1.5;
    ///     ln .8 · ln 1.5 < 0: k = 1/(1 + (5 ln .8)^2) = 0.4454688; UE = .8 · 1.5^k · .25
    ///     = 0.2395925; classic would give .3 + (.4 − .3)·.5 = .35.
    /// u2: r_l = (.1/.25)/.8 = .5, ln .8 · ln .5 > 0: k = 1; UE = .8 · .5 · .25 = .1.
    /// u3: R_p = 1.2, r_l = (.6/.5)/1.2 = 1, ln 1 = 0: k = 1; UE = 1.2 · .5 = .6.
    #[test]
    fn depth_oblivious_effective_usage() {
        let mut t = ShareTree::new(1.0);
        t.add("A", "root", Shares::Value(1.0), 0.0, false, None)
            .unwrap();
        t.add("B", "root", Shares::Value(1.0), 0.0, false, None)
            .unwrap();
        t.add("u1", "A", Shares::Value(1.0), 30.0, true, None)
            .unwrap();
        t.add("u2", "A", Shares::Value(1.0), 10.0, true, None)
            .unwrap();
        t.add("u3", "B", Shares::Value(1.0), 60.0, true, None)
            .unwrap();
        t.finish();
        let v = depth_oblivious(&t, 1.0);
        let ue = |n: &str| v[t.find(n).unwrap()].effective_usage.unwrap();
        let fs = |n: &str| v[t.find(n).unwrap()].fairshare_factor.unwrap();
        let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-7, "{a} vs {b}");
        close(ue("A"), 0.4);
        close(ue("u1"), 0.2395925);
        close(ue("u2"), 0.1);
        close(ue("u3"), 0.6);
        close(fs("u1"), 2f64.powf(-0.2395925 / 0.25));
        close(fs("u2"), 2f64.powf(-0.4));
        close(fs("u3"), 2f64.powf(-1.2));
        // Classic differs on u1: 2^(-.35/.25).
        let c = classic(&t, 1.0);
        close(c[t.find("u1").unwrap()].effective_usage.unwrap(), 0.35);
    }

    /// Derived (slurm-derived-fairtree-tied-accounts in the reference): two sibling accounts
    /// with equal LevelFS. Slurm's code gives b1 = 0.75; merging would give 1.0.
    #[test]
    fn fair_tree_tied_accounts_are_not_merged() {
        let mut t = ShareTree::new(1.0);
        t.add("a", "root", Shares::Value(1.0), 0.0, false, None)
            .unwrap();
        t.add("b", "root", Shares::Value(1.0), 0.0, false, None)
            .unwrap();
        t.add("a1", "a", Shares::Value(1.0), 10.0, true, None)
            .unwrap();
        t.add("a2", "a", Shares::Value(1.0), 30.0, true, None)
            .unwrap();
        t.add("b1", "b", Shares::Value(1.0), 10.0, true, None)
            .unwrap();
        t.add("b2", "b", Shares::Value(1.0), 30.0, true, None)
            .unwrap();
        t.finish();
        let v = fair_tree(&t);
        let f = |n: &str| v[t.find(n).unwrap()].fairshare_factor.unwrap();
        assert_eq!(f("a1"), 1.0);
        assert_eq!(f("a2"), 0.75);
        assert_eq!(f("b1"), 0.75);
        assert_eq!(f("b2"), 0.25);
    }
}
