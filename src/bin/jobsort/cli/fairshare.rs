//! `jobsort fairshare`: compute and inspect a fairshare tree. For the PBS algorithm the text
//! output is `pbsfs`'s, byte for byte (`-p`, `-t`, `-g`, `-c`), and `-s`, `-d`, `-e` update
//! the usage file atomically (the previous one kept as `FILE.bak`), then create `FILE.touch`
//! as pbsfs does. `--format json` is a JSON object for every mode and algorithm.

use super::output::Out;
use super::report::Failure;
use jobsort::fairshare::inputs;
use jobsort::fairshare::pbs::{
    ParseOptions, PbsTree, UNKNOWN_NAME, is_valid_decay_factor, parse_set_value, pbs_decay_factor,
};
use jobsort::fairshare::tree::{NodeValues, ShareTree, Shares, SiblingOrder};
use jobsort::fairshare::{Algorithm, usage_file};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `jobsort fairshare` (boxed: the option set is large).
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    opts: Box<Opts>,
}

/// The options of `jobsort fairshare`.
#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["resource_group", "fairshare_tree", "sshare", "flux_db"])))]
#[command(group(clap::ArgGroup::new("mode").args(["print", "tree", "get", "compare", "set", "decay", "trim"])))]
pub struct Opts {
    /// PBS `resource_group` file (lines `name id parent shares`).
    #[arg(long, value_name = "FILE")]
    resource_group: Option<PathBuf>,
    /// PBS usage file (binary v1/v2) or a JSON/TOML usage map `{"entity": usage}`.
    #[arg(long, value_name = "FILE", requires = "resource_group")]
    usage: Option<PathBuf>,
    /// Generic JSON tree `{"nodes": [...]}` (or sshare output / flux DB, detected by content).
    #[arg(long, value_name = "FILE")]
    fairshare_tree: Option<PathBuf>,
    /// Parsable `sshare -a -l -P` output.
    #[arg(long, value_name = "FILE")]
    sshare: Option<PathBuf>,
    /// flux-accounting SQLite database.
    #[arg(long, value_name = "PATH")]
    flux_db: Option<PathBuf>,
    /// pbs (default for --resource-group), slurm-classic, slurm-fairtree (default for
    /// --fairshare-tree; for --sshare, the controller's mode as the capture shows it), flux
    /// (default for --flux-db).
    #[arg(long, value_name = "ALGORITHM")]
    algorithm: Option<String>,
    /// Shares of the `unknown` group (PBS `unknown_shares`).
    #[arg(long, default_value_t = 0, value_name = "N")]
    unknown_shares: i32,
    /// Read input as PBS does, where it differs from what the input says: skip bad
    /// resource_group lines and usage records with warnings, split lines over 255 bytes, wrap
    /// shares above INT_MAX, read `-s` values with strtod (`inf`, `0x10`, ` 5`, `-5`).
    #[arg(long)]
    lenient: bool,
    /// The `fairshare_usage_res` named in `-p` and `-g` output.
    #[arg(long, default_value = "cput", value_name = "RES")]
    usage_res: String,
    /// `fairshare_decay_factor` for `-d` (0 < f < 1), used as PBS does: rounded to `f32`.
    #[arg(long, default_value_t = 0.5, value_name = "F")]
    decay_factor: f64,
    /// Slurm Fair Tree: the order in which slurmctld holds sibling associations, which
    /// decides siblings with exactly equal LevelFS: `input` (default), `reverse`, or names
    /// (`acct,acct/user,...`) first in that order. sshare does not show it, and it can
    /// change when slurmctld restarts.
    #[arg(long, value_name = "ORDER")]
    slurm_tie_order: Option<String>,
    /// Slurm `FairShareDampeningFactor` (classic).
    #[arg(long, default_value_t = 1.0, value_name = "D")]
    damp: f64,
    /// Print the table (default).
    #[arg(short = 'p')]
    print: bool,
    /// Print the tree.
    #[arg(short = 't')]
    tree: bool,
    /// Print one entity in detail.
    #[arg(short = 'g', value_name = "ENT")]
    get: Option<String>,
    /// Print the more deserving of two entities.
    #[arg(short = 'c', num_args = 2, value_names = ["E1", "E2"])]
    compare: Option<Vec<String>>,
    /// Set an entity's usage and write the usage file (a negative VAL reads as one:
    /// `-s ENT -5`; any other VAL that starts with `-` goes after `--`: `-s ENT -- -0x10`).
    #[arg(short = 's', num_args = 1..=2, value_names = ["ENT", "VAL"], allow_negative_numbers = true)]
    set: Option<Vec<String>>,
    /// The VAL of `-s ENT -- VAL`.
    #[arg(last = true, hide = true, value_name = "VAL")]
    after_dashes: Vec<String>,
    /// Decay all usage once and write the usage file.
    #[arg(short = 'd')]
    decay: bool,
    /// Trim: keep only usage of entities in resource_group and write the usage file.
    #[arg(short = 'e')]
    trim: bool,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    format: String,
}

/// Write to stdout; a closed pipe ends the command quietly, any other write error is reported
/// (both through [`Failure::exit`], as every other subcommand's output).
macro_rules! emit {
    ($out:expr, $($arg:tt)*) => {
        if let Err(e) = write!($out, $($arg)*) {
            return Failure::from(e).exit();
        }
    };
}
macro_rules! emitln {
    ($out:expr, $($arg:tt)*) => {
        if let Err(e) = writeln!($out, $($arg)*) {
            return Failure::from(e).exit();
        }
    };
}

fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("{msg}");
    ExitCode::from(super::EXIT_INVALID)
}

pub fn run(args: Args, out: &mut Out) -> ExitCode {
    let a = *args.opts;
    let explicit = match &a.algorithm {
        None => None,
        Some(s) => match Algorithm::parse(s) {
            Some(x) => Some(x),
            None => {
                eprintln!("unknown --algorithm `{s}` (pbs, slurm-classic, slurm-fairtree, flux)");
                return ExitCode::from(super::EXIT_USAGE);
            }
        },
    };
    if let Some(rg) = &a.resource_group {
        if let Some(alg) = explicit.filter(|&x| x != Algorithm::Pbs) {
            eprintln!(
                "--resource-group works with --algorithm pbs; use --fairshare-tree for {}",
                alg.name()
            );
            return ExitCode::from(super::EXIT_USAGE);
        }
        return run_pbs(&a, rg, out);
    }
    if a.set.is_some() || a.decay || a.trim || a.get.is_some() || a.compare.is_some() || a.tree {
        eprintln!("-g, -c, -s, -d, -e and -t need the PBS algorithm (--resource-group)");
        return ExitCode::from(super::EXIT_USAGE);
    }
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
    if let Some(order) = &a.slurm_tie_order
        && let Err(e) = file.tree.set_sibling_order(&SiblingOrder::parse(order))
    {
        return fail(format!("--slurm-tie-order: {e}"));
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

fn run_pbs(a: &Opts, rg: &Path, out: &mut Out) -> ExitCode {
    let opts = ParseOptions {
        unknown_shares: a.unknown_shares,
        lenient: a.lenient,
    };
    let (mut tree, warnings) = match inputs::load_pbs(rg, a.usage.as_deref(), &opts, a.trim) {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let writes = a.set.is_some() || a.decay || a.trim;
    let set_shape_ok = match &a.set {
        Some(v) => (v.len() == 2) == a.after_dashes.is_empty() && a.after_dashes.len() <= 1,
        None => a.after_dashes.is_empty(),
    };
    if !set_shape_ok {
        eprintln!("Usage: jobsort fairshare ... -s <fairshare_entity> <usage> (or -s ENT -- VAL)");
        return ExitCode::from(super::EXIT_USAGE);
    }
    if writes && a.usage.is_none() {
        eprintln!("-s, -d and -e write the usage file: give it with --usage FILE");
        return ExitCode::from(super::EXIT_USAGE);
    }
    if let Some(v) = &a.compare {
        let (Some(e1), Some(e2)) = (tree.find(&v[0]), tree.find(&v[1])) else {
            let missing = if tree.find(&v[0]).is_none() {
                &v[0]
            } else {
                &v[1]
            };
            return fail(format!("Fairshare Entity {missing} does not exist."));
        };
        let order = tree.compare_path(e1, e2);
        if a.format == "json" {
            emit!(out, "{}", compare_json(&tree, e1, e2, order));
            return ExitCode::SUCCESS;
        }
        match order {
            std::cmp::Ordering::Less => emitln!(out, "{}", tree.node(e1).name),
            std::cmp::Ordering::Equal => {
                emitln!(out, "{} == {}", tree.node(e1).name, tree.node(e2).name)
            }
            std::cmp::Ordering::Greater => emitln!(out, "{}", tree.node(e2).name),
        }
        return ExitCode::SUCCESS;
    }
    if let Some(ent) = &a.get {
        let Some(i) = tree.find(ent) else {
            return fail(format!("Fairshare Entity {ent} does not exist."));
        };
        if a.format == "json" {
            emit!(out, "{}", pbs_json(&tree, Some(i)));
        } else {
            emit!(out, "{}", pbsfs_entity(&tree, i, &a.usage_res));
        }
        return ExitCode::SUCCESS;
    }
    if writes {
        let usage_path = a.usage.clone().unwrap_or_default();
        if let Some(v) = &a.set {
            let Some(i) = tree.find(&v[0]) else {
                return fail(format!("Fairshare Entity {} does not exist.", v[0]));
            };
            match parse_set_value(&set_value(v, &a.after_dashes), a.lenient) {
                Ok(Some(val)) => tree.set_usage(i, val),
                Ok(None) => eprintln!(
                    "warning: usage `{}` is not a number strtod reads whole: the usage of {} is \
                     unchanged and the file rewritten, as pbsfs does",
                    set_value(v, &a.after_dashes).escape_debug(),
                    v[0]
                ),
                Err(e) => return fail(e),
            }
        } else if a.decay {
            if !is_valid_decay_factor(a.decay_factor) {
                return fail(format!(
                    "fairshare_decay_factor: Invalid value: {}.  Valid values are between 0 and 1 \
                     (PBS tests the value as a float: {})",
                    a.decay_factor,
                    pbs_decay_factor(a.decay_factor)
                ));
            }
            tree.decay(a.decay_factor);
            tree.last_decay = now;
        } else {
            tree.last_decay = now;
        }
        match write_usage(&usage_path, &tree) {
            Err(e) => {
                return fail(format!(
                    "{}: cannot write usage file: {e}",
                    usage_path.display()
                ));
            }
            Ok(UsageFormat::Pbs) => {
                // pbsfs then tells a running scheduler to re-read the file.
                if let Err(e) = usage_file::touch(&usage_path) {
                    eprintln!(
                        "warning: {}: cannot create it ({e}): a running pbs_sched will not \
                         re-read the usage file",
                        usage_file::touch_path(&usage_path).display()
                    );
                }
            }
            Ok(UsageFormat::Map) => {}
        }
        return ExitCode::SUCCESS;
    }
    if a.tree {
        let text = if a.format == "json" {
            Ok(pbs_tree_json(&tree))
        } else {
            pbsfs_tree(&tree)
        };
        return match text {
            Ok(text) => {
                emit!(out, "{text}");
                ExitCode::SUCCESS
            }
            Err(e) => fail(e),
        };
    }
    if a.format == "json" {
        emit!(out, "{}", pbs_json(&tree, None));
    } else {
        emit!(out, "{}", pbsfs_table(&tree, &a.usage_res));
    }
    ExitCode::SUCCESS
}

/// VAL of `-s ENT VAL` or `-s ENT -- VAL` (the shape is checked before).
fn set_value(set: &[String], after_dashes: &[String]) -> String {
    set.get(1)
        .or(after_dashes.first())
        .cloned()
        .unwrap_or_default()
}

/// The format a usage file was written in.
enum UsageFormat {
    /// PBS binary (v2): what a scheduler reads.
    Pbs,
    /// A JSON or TOML usage map.
    Map,
}

/// Write the usage file in its own format: JSON/TOML maps stay maps, anything else is PBS v2.
fn write_usage(path: &Path, tree: &PbsTree) -> std::io::Result<UsageFormat> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let is_json = ext == "json"
        || (ext != "toml"
            && std::fs::read(path)
                .ok()
                .and_then(|b| b.iter().find(|c| !c.is_ascii_whitespace()).copied())
                == Some(b'{'));
    if is_json || ext == "toml" {
        let recs = tree.usage_records();
        let text = if is_json {
            let m: serde_json::Map<String, Value> = recs
                .iter()
                .map(|(n, u)| (n.to_string(), json!(u)))
                .collect();
            serde_json::to_string_pretty(&Value::Object(m)).unwrap_or_default() + "\n"
        } else {
            recs.iter().fold(String::new(), |mut s, (n, u)| {
                let _ = writeln!(s, "{:?} = {:?}", n, u);
                s
            })
        };
        return usage_file::write_atomic(path, text.as_bytes()).map(|()| UsageFormat::Map);
    }
    usage_file::write_tree(path, tree).map(|()| UsageFormat::Pbs)
}

/// `%-*s`: pad to `width` bytes, as C's printf counts (a multi-byte UTF-8 name is wider in
/// bytes than in characters).
fn pad_bytes(s: &str, width: usize) -> String {
    format!("{s}{}", " ".repeat(width.saturating_sub(s.len())))
}

/// `pbsfs -p`.
pub fn pbsfs_table(t: &PbsTree, usage_res: &str) -> String {
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
pub const MAX_TEXT_DEPTH: usize = 1000;

/// `pbsfs -t`, or an error for a tree deeper than [`MAX_TEXT_DEPTH`] that says how large
/// pbsfs's text would be.
pub fn pbsfs_tree(t: &PbsTree) -> Result<String, String> {
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
pub fn pbsfs_entity(t: &PbsTree, i: usize, usage_res: &str) -> String {
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

/// `f32` values printed with the shortest decimal that reads back to the same `f32`.
fn f32_json(x: f32) -> Value {
    format!("{x}")
        .parse::<f64>()
        .map(|v| json!(v))
        .unwrap_or(Value::Null)
}

fn num(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else if x > 0.0 {
        json!("inf")
    } else {
        Value::Null
    }
}

/// `--format json` for the PBS tree: every node in `pbsfs -p` order (or one node).
pub fn pbs_json(t: &PbsTree, only: Option<usize>) -> String {
    let ids: Vec<usize> = match only {
        Some(i) => vec![i],
        None => t.preorder().into_iter().map(|(i, _)| i).collect(),
    };
    let ents: Vec<Value> = ids
        .into_iter()
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
                "usage": n.usage,
                "fairshare_perc": f32_json(n.tree_percentage),
                "fairshare_tree_usage": f32_json(n.usage_factor),
                "fairshare_factor": n.fairshare_factor(),
                "unknown": n.parent == Some(1) && n.name != UNKNOWN_NAME,
            })
        })
        .collect();
    serde_json::to_string_pretty(&json!({ "entities": ents })).unwrap_or_default() + "\n"
}

/// `-t --format json`: the tree as nested objects `{"name", "id", "shares", "children"}` in
/// pbsfs's order, on one line. Written without recursion, so any depth works.
pub fn pbs_tree_json(t: &PbsTree) -> String {
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
pub fn compare_json(t: &PbsTree, e1: usize, e2: usize, order: std::cmp::Ordering) -> String {
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
pub fn share_tree_json(t: &ShareTree, v: &[NodeValues], alg: Algorithm) -> String {
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
            o.insert("usage".into(), json!(n.usage));
            o.insert(
                "fairshare_factor".into(),
                v[i].fairshare_factor.map(num).unwrap_or(Value::Null),
            );
            let opt = |x: Option<f64>| x.map(num).unwrap_or(Value::Null);
            match alg {
                Algorithm::SlurmClassic => {
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
    serde_json::to_string_pretty(&json!({ "entities": ents })).unwrap_or_default() + "\n"
}

/// Text for Slurm and flux trees: sshare-style parsable rows (accounts indented one space
/// per level, as sshare prints them). Trees deeper than [`MAX_TEXT_DEPTH`] are an error that
/// says how large the text would be.
pub fn share_tree_text(t: &ShareTree, v: &[NodeValues], alg: Algorithm) -> Result<String, String> {
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
