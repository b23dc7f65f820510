//! `--format json` of `jobsort fairshare`: one JSON object for every mode and algorithm.

use jobsort::fairshare::Algorithm;
use jobsort::fairshare::pbs::{PbsTree, UNKNOWN_NAME};
use jobsort::fairshare::tree::{NodeValues, ShareTree, Shares};
use serde_json::{Value, json};
use std::fmt::Write as _;

/// `f32` values printed with the shortest decimal that reads back to the same `f32` (not
/// finite: as [`num`]).
fn f32_json(x: f32) -> Value {
    if !x.is_finite() {
        return num(f64::from(x));
    }
    format!("{x}")
        .parse::<f64>()
        .map(|v| json!(v))
        .unwrap_or(Value::Null)
}

/// A number; `"inf"`, `"-inf"` or `"nan"` where it is not finite (as every JSON output).
fn num(x: f64) -> Value {
    jobsort::jobs::units::value_json(x)
}

/// `--format json` for the PBS tree: every node in `pbsfs -p` order (or one node).
pub(super) fn pbs_json(t: &PbsTree, only: Option<usize>) -> String {
    serde_json::to_string_pretty(&json!({ "entities": pbs_entities(t, only) })).unwrap_or_default()
        + "\n"
}

/// The PBS tree's nodes as JSON objects, in `pbsfs -p` order (or one node): what
/// `fairshare --format json` and `forecast --format json` print.
pub(crate) fn pbs_entities(t: &PbsTree, only: Option<usize>) -> Vec<Value> {
    let ids: Vec<usize> = match only {
        Some(i) => vec![i],
        None => t.preorder().into_iter().map(|(i, _)| i).collect(),
    };
    ids.into_iter()
        .map(|i| {
            let n = t.node(i);
            let parent = match n.parent {
                None => Value::Null,
                Some(0) => json!("root"),
                Some(p) => json!(t.node(p).name),
            };
            json!({
                "name": n.name,
                "id": n.cresgroup,
                "parent": parent,
                "shares": n.shares,
                "usage": num(n.usage),
                "fairshare_perc": f32_json(n.tree_percentage),
                "fairshare_tree_usage": f32_json(n.usage_factor),
                "fairshare_factor": num(n.fairshare_factor()),
                "unknown": n.parent == Some(1) && n.name != UNKNOWN_NAME,
            })
        })
        .collect()
}

/// `-t --format json`: the tree as nested objects `{"name", "id", "shares", "children"}` in
/// pbsfs's order, on one line. Written without recursion, so any depth works.
pub(super) fn pbs_tree_json(t: &PbsTree) -> String {
    let mut out = String::from("{\"tree\":");
    let mut open = 0usize;
    for (i, depth) in t.preorder() {
        // A node deeper than the open ones is the first child of the last; otherwise close
        // down to its depth and it follows a sibling.
        if depth < open {
            while open > depth {
                out.push_str("]}");
                open -= 1;
            }
            out.push(',');
        }
        let n = t.node(i);
        let _ = write!(
            out,
            "{{\"name\":{},\"id\":{},\"shares\":{},\"children\":[",
            Value::from(n.name.as_str()),
            n.cresgroup,
            n.shares
        );
        open += 1;
    }
    while open > 0 {
        out.push_str("]}");
        open -= 1;
    }
    out.push_str("}\n");
    out
}

/// `-c E1 E2 --format json`: both entities and the more deserving one (`null` when equal).
pub(super) fn compare_json(t: &PbsTree, e1: usize, e2: usize, order: std::cmp::Ordering) -> String {
    let (n1, n2) = (&t.node(e1).name, &t.node(e2).name);
    let winner = match order {
        std::cmp::Ordering::Less => json!(n1),
        std::cmp::Ordering::Greater => json!(n2),
        std::cmp::Ordering::Equal => Value::Null,
    };
    let v = json!({
        "entities": [n1, n2],
        "more_deserving": winner,
        "equal": order == std::cmp::Ordering::Equal,
    });
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

fn shares_json(s: Shares) -> Value {
    match s {
        Shares::Parent => json!("parent"),
        Shares::Value(v) => json!(v),
    }
}

/// `--format json` for Slurm and flux trees.
pub(super) fn share_tree_json(t: &ShareTree, v: &[NodeValues], alg: Algorithm) -> String {
    let ents: Vec<Value> = t
        .preorder()
        .into_iter()
        .map(|i| {
            let n = &t.nodes[i];
            let mut o = serde_json::Map::new();
            o.insert("name".into(), json!(n.name));
            o.insert(
                "parent".into(),
                n.parent
                    .map(|p| json!(t.nodes[p].name))
                    .unwrap_or(Value::Null),
            );
            o.insert(
                "user".into(),
                if n.is_user {
                    json!(n.entity)
                } else {
                    Value::Null
                },
            );
            o.insert("shares".into(), shares_json(n.shares));
            o.insert("usage".into(), num(n.usage));
            o.insert(
                "fairshare_factor".into(),
                v[i].fairshare_factor.map(num).unwrap_or(Value::Null),
            );
            let opt = |x: Option<f64>| x.map(num).unwrap_or(Value::Null);
            match alg {
                Algorithm::SlurmClassic | Algorithm::SlurmDepthOblivious => {
                    o.insert("norm_shares".into(), opt(v[i].norm_shares));
                    o.insert("norm_usage".into(), opt(v[i].norm_usage));
                    o.insert("effective_usage".into(), opt(v[i].effective_usage));
                }
                Algorithm::SlurmFairTree => {
                    o.insert("norm_shares".into(), opt(v[i].norm_shares));
                    o.insert("norm_usage".into(), opt(v[i].norm_usage));
                    o.insert("level_fs".into(), opt(v[i].level_fs));
                }
                Algorithm::Flux => {
                    o.insert("weight".into(), opt(v[i].weight));
                }
                Algorithm::Pbs => {}
            }
            Value::Object(o)
        })
        .collect();
    let mut doc = json!({ "entities": ents });
    if alg == Algorithm::SlurmFairTree {
        // Which order decided sibling accounts of equal LevelFS, and which accounts those were.
        let tied: Vec<Vec<&str>> = jobsort::fairshare::slurm::tied_accounts(t)
            .iter()
            .map(|set| set.iter().map(|&i| t.nodes[i].name.as_str()).collect())
            .collect();
        let order = t.sibling_order();
        doc["tie_order"] = json!({
            "order": if t.order_detected() { "capture" } else { order.kind() },
            "source": match order {
                jobsort::fairshare::tree::SiblingOrder::Lft { source, .. } => json!(source),
                _ => Value::Null,
            },
            "detected": t.order_detected(),
            "tied_accounts": tied,
        });
    }
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}
