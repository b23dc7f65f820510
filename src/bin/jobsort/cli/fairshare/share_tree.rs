//! Slurm (classic, Fair Tree) and flux trees: load, compute, and print as JSON or as
//! sshare-style rows.

use super::args::Opts;
use super::exit::fail;
use super::json::share_tree_json;
use super::pbsfs::MAX_TEXT_DEPTH;
use crate::cli::output::Out;
use jobsort::fairshare::Algorithm;
use jobsort::fairshare::inputs;
use jobsort::fairshare::tree::{NodeValues, ShareTree, Shares};
use std::fmt::Write as _;
use std::process::ExitCode;

/// `jobsort fairshare` on a generic tree, sshare output or a flux DB: `explicit` is the
/// `--algorithm` given, if any.
pub(super) fn run(a: &Opts, explicit: Option<Algorithm>, out: &mut Out) -> ExitCode {
    let path = a
        .fairshare_tree
        .as_ref()
        .or(a.sshare.as_ref())
        .or(a.flux_db.as_ref())
        .cloned()
        .unwrap_or_default();
    let mut file = match inputs::load_share_tree(&path) {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    for w in &file.warnings {
        eprintln!("warning: {w}");
    }
    let algorithm = match explicit {
        Some(x) => {
            if file.format == inputs::TreeFormat::Sshare
                && file.assumed.is_none()
                && x != file.algorithm
            {
                eprintln!(
                    "warning: {}: the capture is from a {} controller; computing {} as asked",
                    path.display(),
                    file.algorithm.name(),
                    x.name()
                );
            }
            x
        }
        None => {
            if let Some(note) = &file.assumed {
                eprintln!("warning: {note}");
            }
            file.algorithm
        }
    };
    let explicit = match a
        .slurm_tie_order
        .as_deref()
        .map(crate::cli::fairshare_opts::sibling_order)
    {
        None => None,
        Some(Ok(o)) => Some(o),
        Some(Err(e)) => return fail(format!("--slurm-tie-order: {e}")),
    };
    let settled = if algorithm == Algorithm::SlurmFairTree {
        jobsort::fairshare::slurm::settle_sibling_order(&mut file.tree, explicit.as_ref())
    } else {
        explicit
            .as_ref()
            .map_or(Ok(()), |o| file.tree.set_sibling_order(o))
            .map(|()| Vec::new())
    };
    match settled {
        Ok(notes) => notes.iter().for_each(|n| eprintln!("note: {n}")),
        Err(e) => return fail(format!("--slurm-tie-order: {e}")),
    }
    let tree = &file.tree;
    let values = match inputs::compute(tree, algorithm, a.damp) {
        Ok(v) => v,
        Err(e) => return fail(e),
    };
    let text = if a.format == "json" {
        Ok(share_tree_json(tree, &values, algorithm))
    } else {
        share_tree_text(tree, &values, algorithm)
    };
    match text {
        Ok(text) => {
            emit!(out, "{text}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

/// Text for Slurm and flux trees: sshare-style parsable rows (accounts indented one space
/// per level, as sshare prints them). Trees deeper than [`MAX_TEXT_DEPTH`] are an error that
/// says how large the text would be.
fn share_tree_text(t: &ShareTree, v: &[NodeValues], alg: Algorithm) -> Result<String, String> {
    let f = |x: Option<f64>| match x {
        None => String::new(),
        Some(x) if x.is_infinite() => "inf".into(),
        Some(x) => format!("{x:.6}"),
    };
    let mut s = String::new();
    match alg {
        Algorithm::Flux => {
            s.push_str("Bank|User|RawShares|RawUsage|Weight|Fairshare\n");
            for i in t.preorder() {
                let n = &t.nodes[i];
                let bank = if n.is_user {
                    n.parent.map(|p| t.nodes[p].name.as_str()).unwrap_or("")
                } else {
                    &n.name
                };
                let _ = writeln!(
                    s,
                    "{}|{}|{}|{}|{}|{}",
                    bank,
                    if n.is_user { n.entity.as_str() } else { "" },
                    n.shares.raw(),
                    n.usage,
                    f(v[i].weight),
                    f(v[i].fairshare_factor)
                );
            }
        }
        _ => {
            let ft = alg == Algorithm::SlurmFairTree;
            let order = t.preorder();
            let mut depth = vec![0usize; t.nodes.len()];
            for &i in &order {
                if let Some(p) = t.nodes[i].parent {
                    depth[i] = depth[p] + 1;
                }
            }
            let deepest = depth.iter().copied().max().unwrap_or(0);
            if deepest > MAX_TEXT_DEPTH {
                let indent: usize = depth.iter().sum();
                return Err(format!(
                    "the tree is {deepest} levels deep and sshare indents each level by one \
                     space, so its rows would hold {indent} bytes of indentation; the text prints \
                     trees up to {MAX_TEXT_DEPTH} levels deep: use --format json"
                ));
            }
            s.push_str(
                "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare",
            );
            s.push_str(if ft { "|LevelFS\n" } else { "\n" });
            for i in order {
                let n = &t.nodes[i];
                let depth = depth[i];
                let acct = if n.is_user {
                    n.parent
                        .map(|p| t.nodes[p].name.clone())
                        .unwrap_or_default()
                } else {
                    n.name.clone()
                };
                let raw_shares = match n.shares {
                    Shares::Parent => "parent".to_string(),
                    Shares::Value(x) if i > 0 => format!("{x}"),
                    _ => String::new(),
                };
                let _ = write!(
                    s,
                    "{}{}|{}|{}|{}|{}|{}|{}|{}",
                    " ".repeat(depth),
                    acct,
                    if n.is_user { n.entity.as_str() } else { "" },
                    raw_shares,
                    f(v[i].norm_shares),
                    n.usage as u64,
                    f(v[i].norm_usage),
                    f(v[i].effective_usage),
                    f(v[i].fairshare_factor)
                );
                if ft {
                    let _ = write!(s, "|{}", f(v[i].level_fs));
                }
                s.push('\n');
            }
        }
    }
    Ok(s)
}
