//! The PBS modes (`-p`, `-t`, `-g`, `-c`, and `-s`, `-d`, `-e`, which write the usage file
//! as pbsfs does).

use super::args::Opts;
use super::exit::fail;
use super::json::{compare_json, pbs_json, pbs_tree_json};
use super::pbsfs::{pbsfs_entity, pbsfs_table, pbsfs_tree};
use crate::cli::output::Out;
use jobsort::fairshare::inputs;
use jobsort::fairshare::pbs::{
    ParseOptions, PbsTree, is_valid_decay_factor, parse_set_value, pbs_decay_factor,
};
use jobsort::fairshare::usage_file;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// `jobsort fairshare --resource-group RG`.
pub(super) fn run(a: &Opts, rg: &Path, out: &mut Out) -> ExitCode {
    let opts = ParseOptions {
        unknown_shares: a.unknown_shares,
        lenient: a.lenient,
    };
    // -s, -d and -e create the usage file (pbsfs does): one that does not exist yet starts
    // empty, with a note; anywhere else a usage file that does not exist is an error.
    let writes = a.set.is_some() || a.decay || a.trim;
    let usage = match a.usage.as_deref() {
        Some(u) if writes && !u.exists() => {
            eprintln!(
                "note: {}: does not exist; starting with no usage (it is written now)",
                u.display()
            );
            None
        }
        u => u,
    };
    let (mut tree, warnings) = match inputs::load_pbs(rg, usage, &opts, a.trim) {
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
    let set_shape_ok = match &a.set {
        Some(v) => (v.len() == 2) == a.after_dashes.is_empty() && a.after_dashes.len() <= 1,
        None => a.after_dashes.is_empty(),
    };
    if !set_shape_ok {
        eprintln!("Usage: jobsort fairshare ... -s <fairshare_entity> <usage> (or -s ENT -- VAL)");
        return ExitCode::from(crate::cli::EXIT_USAGE);
    }
    if let Some([ent, val]) = a.set.as_deref()
        && let Some(message) = pbsfs_takes_as_options(ent, val)
    {
        eprintln!("{message}");
        return ExitCode::from(crate::cli::EXIT_USAGE);
    }
    if writes && a.usage.is_none() {
        eprintln!("-s, -d and -e write the usage file: give it with --usage FILE");
        return ExitCode::from(crate::cli::EXIT_USAGE);
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

/// `-s ENT VAL` where pbsfs would not read VAL as the usage: its `getopt(argc, argv,
/// "sgptdceI:-:")` (OpenPBS `src/scheduler/pbsfs.cpp`, `main`) takes a word that starts with
/// `-` for options — `-0` and `-5` alike, each character not among them reported by glibc's
/// getopt as `invalid option -- '0'` — and then fails for want of a usage (`Usage: pbsfs
/// [-I sched_name] -s <fairshare_entity> <usage>`, exit 1). Such a VAL goes after `--`.
fn pbsfs_takes_as_options(ent: &str, val: &str) -> Option<String> {
    let letters = val.strip_prefix('-').filter(|l| !l.is_empty())?;
    let invalid: Vec<String> = letters
        .chars()
        .filter(|c| !"sgptdceI-".contains(*c))
        .map(|c| format!("invalid option -- '{c}'"))
        .collect();
    let says = if invalid.is_empty() {
        String::new()
    } else {
        format!(" (pbsfs: {})", invalid.join(", "))
    };
    Some(format!(
        "`{val}` after `-s {ent}` is options to pbsfs, not a usage{says}: pbsfs stops with \
         \"Usage: pbsfs [-I sched_name] -s <fairshare_entity> <usage>\"; give a usage that \
         starts with `-` after `--`: `-s {ent} -- {val}`"
    ))
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
