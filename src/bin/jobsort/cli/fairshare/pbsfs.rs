//! pbsfs's text, byte for byte: `-p` (the table), `-t` (the tree), `-g` (one entity).

use jobsort::fairshare::pbs::PbsTree;
use std::fmt::Write as _;

/// `%-*s`: pad to `width` bytes, as C's printf counts (a multi-byte UTF-8 name is wider in
/// bytes than in characters).
fn pad_bytes(s: &str, width: usize) -> String {
    format!("{s}{}", " ".repeat(width.saturating_sub(s.len())))
}

/// `pbsfs -p`.
pub(super) fn pbsfs_table(t: &PbsTree, usage_res: &str) -> String {
    let mut s = format!("Fairshare usage units are in: {usage_res}\n");
    for (i, _) in t.preorder() {
        let n = t.node(i);
        let perc = n.tree_percentage * 100.0;
        let _ = writeln!(
            s,
            "{}: Grp: {:<5}  cgrp: {:<5}Shares: {:<6} Usage: {:<6} Perc: {:>6.3}%",
            pad_bytes(&n.name, 10),
            n.resgroup,
            n.cresgroup,
            n.shares,
            format!("{:.0}", n.usage),
            perc as f64
        );
    }
    s
}

/// The deepest tree `-t` and the sshare-style text print: each level indents the lines
/// below it (5 columns for `-t`, 1 for sshare rows), so the text grows with the square of the
/// depth (a 20,000-level chain would be 1 GB). JSON has no such limit.
pub(super) const MAX_TEXT_DEPTH: usize = 1000;

/// `pbsfs -t`, or an error for a tree deeper than [`MAX_TEXT_DEPTH`] that says how large
/// pbsfs's text would be.
pub(super) fn pbsfs_tree(t: &PbsTree) -> Result<String, String> {
    let order = t.preorder();
    let deepest = order.iter().map(|&(_, d)| d).max().unwrap_or(0);
    if deepest > MAX_TEXT_DEPTH {
        let bytes: usize = order
            .iter()
            .map(|&(i, d)| {
                let n = t.node(i);
                (d * 5).max(1) + n.name.len() + n.cresgroup.to_string().len() + 3
            })
            .sum();
        return Err(format!(
            "-t: the tree is {deepest} levels deep and pbsfs indents each level by 5 columns, \
             so its text would be {bytes} bytes; -t prints trees up to {MAX_TEXT_DEPTH} levels \
             deep: use --format json (nested, one line) or -p"
        ));
    }
    let mut s = String::new();
    for (i, depth) in order {
        let n = t.node(i);
        // printf("%*s%s(%d)", level, " ", ...): the pad string " " is at least one wide.
        let _ = writeln!(
            s,
            "{}{}({})",
            " ".repeat((depth * 5).max(1)),
            n.name,
            n.cresgroup
        );
    }
    Ok(s)
}

/// `pbsfs -g ENT`.
pub(super) fn pbsfs_entity(t: &PbsTree, i: usize, usage_res: &str) -> String {
    let n = t.node(i);
    let per = |u: f64, tp: f32| if tp == 0.0 { -1.0 } else { u / tp as f64 };
    let mut s = String::new();
    let _ = writeln!(s, "fairshare entity: {}", n.name);
    let _ = writeln!(s, "Resgroup\t\t: {}", n.resgroup);
    let _ = writeln!(s, "cresgroup\t\t: {}", n.cresgroup);
    let _ = writeln!(s, "Shares\t\t\t: {}", n.shares);
    let _ = writeln!(
        s,
        "Percentage\t\t: {:.6}%",
        (n.tree_percentage * 100.0) as f64
    );
    let _ = writeln!(s, "fairshare_tree_usage\t: {:.6}", n.usage_factor as f64);
    let _ = writeln!(s, "usage\t\t\t: {:.0} ({})", n.usage, usage_res);
    let _ = writeln!(s, "usage/perc\t\t: {:.0}", per(n.usage, n.tree_percentage));
    let _ = writeln!(s, "Path from root: ");
    // The root is the one node PBS builds no group path for (`preload_tree` never calls
    // `add_child` on it), so pbsfs prints nothing after the label for TREEROOT.
    let path = if i == 0 { Vec::new() } else { t.path(i) };
    for p in path {
        let g = t.node(p);
        let _ = writeln!(
            s,
            "{}: {:>5} {:>10.0} / {:>5.3} = {:.0}",
            pad_bytes(&g.name, 10),
            g.cresgroup,
            g.usage,
            g.tree_percentage as f64,
            per(g.usage, g.tree_percentage)
        );
    }
    s
}
