//! Loading fairshare inputs and giving jobs their fairshare values.
//!
//! Inputs: a PBS `resource_group` file with an optional usage file (binary, JSON or TOML); a
//! generic JSON tree; parsable `sshare -a -l -P` output; a flux-accounting SQLite database.
//! [`Fairshare`] holds any of them with its algorithm and gives each entity its
//! `fairshare_perc`, `fairshare_tree_usage` and `fairshare_factor`
//! ([`Fairshare::entity_keywords`]) and PBS's fairshare order
//! ([`Fairshare::entity_ranks`]). Job rows are not known here: `jobs::fairshare` names each
//! job's entity ([`EntityKind`]) and writes the values into its row.

use super::pbs::{ParseOptions, PbsTree};
use super::tree::{NodeValues, ShareTree, Shares, SiblingOrder};
use super::{Algorithm, FairshareError, flux, slurm, usage_file};
use crate::input::text::{MAX_CONFIG, read_at_most, read_text_at_most};
use std::cmp::Ordering;
use std::path::{Path, PathBuf};

/// Which job attribute names its fairshare entity (PBS `fairshare_entity`): the one kind
/// `rank`/`eval` (job rows, `jobs::fairshare`) and the simulator (trace jobs, `sim::share`)
/// use. The serde names are those of the recording header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntityKind {
    #[default]
    Euser,
    Egroup,
    /// `Account_Name`.
    Account,
    Queue,
    /// `"<group>:<user>"`.
    #[serde(rename = "egroup:euser")]
    EgroupEuser,
}

impl EntityKind {
    /// Parse a `fairshare_entity` value: PBS's `euser`, `egroup`, `Account_Name`, `queue`,
    /// `egroup:euser`, and the short forms `user`, `group`, `account`, `group:user`.
    pub fn parse(s: &str) -> Option<EntityKind> {
        Some(match s {
            "euser" | "user" => EntityKind::Euser,
            "egroup" | "group" => EntityKind::Egroup,
            "account" | "Account_Name" => EntityKind::Account,
            "queue" => EntityKind::Queue,
            "egroup:euser" | "group:user" => EntityKind::EgroupEuser,
            _ => return None,
        })
    }

    /// The name as PBS's `fairshare_entity` and the recording header spell it.
    pub fn name(self) -> &'static str {
        match self {
            EntityKind::Euser => "euser",
            EntityKind::Egroup => "egroup",
            EntityKind::Account => "account",
            EntityKind::Queue => "queue",
            EntityKind::EgroupEuser => "egroup:euser",
        }
    }
}

/// A loaded fairshare tree and the algorithm that computes its values.
#[derive(Debug, Clone)]
pub enum Fairshare {
    /// The PBS tree (always the `pbs` algorithm).
    Pbs(PbsTree),
    /// A share tree with a Slurm or flux algorithm and its computed values.
    Shares {
        tree: ShareTree,
        algorithm: Algorithm,
        values: Vec<NodeValues>,
    },
}

/// Compute the values of a share tree with `algorithm` (`pbs` is not defined on share trees).
pub fn compute(
    tree: &ShareTree,
    algorithm: Algorithm,
    damp: f64,
) -> Result<Vec<NodeValues>, String> {
    Ok(match algorithm {
        Algorithm::SlurmClassic => slurm::classic(tree, damp),
        Algorithm::SlurmDepthOblivious => slurm::depth_oblivious(tree, damp),
        Algorithm::SlurmFairTree => slurm::fair_tree(tree),
        Algorithm::Flux => flux::weighted_tree(tree),
        Algorithm::Pbs => {
            return Err(
                "the pbs algorithm needs a resource_group file (--resource-group); \
                        choose --algorithm slurm-classic, slurm-fairtree or flux for this tree"
                    .to_string(),
            );
        }
    })
}

impl Fairshare {
    /// The three keyword values of `entity`, creating PBS entities under `unknown` as PBS
    /// does. Share-tree entities that are not in the tree get `None`.
    fn lookup(&self, entity: &str) -> Option<[f64; 3]> {
        match self {
            Fairshare::Pbs(t) => t.find(entity).map(|i| {
                let v = t.values(i);
                [v.fairshare_perc, v.fairshare_tree_usage, v.fairshare_factor]
            }),
            Fairshare::Shares { tree, values, .. } => tree.find_user(entity).map(|i| {
                let v = &values[i];
                [
                    v.fairshare_perc.unwrap_or(0.0),
                    v.fairshare_tree_usage.unwrap_or(0.0),
                    v.fairshare_factor.unwrap_or(0.0),
                ]
            }),
        }
    }

    /// flux-accounting: the fair-share `mf_priority` uses for `user`'s jobs in `bank`, as
    /// stored ([`flux::stored_fairshare`]). A flux tree names an association `bank/user`
    /// ([`from_flux_db`]), so a user in two banks has two values; without a bank (or with
    /// one the tree does not have under that name) the user's first association in the tree
    /// is used (flux would take the user's default bank, which the tree does not record).
    /// `None` for trees of other algorithms and users not in the tree.
    pub fn flux_fairshare(&self, user: &str, bank: Option<&str>) -> Option<f64> {
        let Fairshare::Shares {
            tree,
            values,
            algorithm: Algorithm::Flux,
        } = self
        else {
            return None;
        };
        let i = bank
            .and_then(|b| tree.find(&format!("{b}/{user}")))
            .filter(|&i| tree.nodes[i].is_user)
            .or_else(|| tree.find_user(user))?;
        values[i].fairshare_factor.map(flux::stored_fairshare)
    }

    /// The `fairshare_perc`, `fairshare_tree_usage` and `fairshare_factor` of each entity.
    /// PBS: entities not in the tree are added under `unknown` with 1 share each (and the
    /// tree recomputed once), as the scheduler does; with `unknown_shares` 0 they get 0, and
    /// the warning says which. Share
    /// trees: unknown entities get 0 with a warning. Returns the values and the warnings.
    pub fn entity_keywords(&mut self, entities: &[String]) -> (Vec<[f64; 3]>, Vec<String>) {
        let mut warnings = Vec::new();
        if let Fairshare::Pbs(t) = self {
            let mut added = Vec::new();
            for e in entities {
                if t.find(e).is_none() {
                    t.find_or_add_unknown_deferred(e);
                    added.push(e.clone());
                }
            }
            if !added.is_empty() {
                t.recompute();
                // Each gets 1 share within `unknown`; what that is worth is `unknown`'s own
                // shares (`unknown_shares`, 0 unless set), which the warning says.
                let unknown = t
                    .find(crate::fairshare::pbs::UNKNOWN_NAME)
                    .map_or(0, |u| t.node(u).shares.max(0));
                let worth = if unknown == 0 {
                    "which has 0 shares, so they get no share of the machine (set unknown_shares \
                     to give them one)"
                        .to_string()
                } else {
                    format!(
                        "which has {unknown} share{}",
                        if unknown == 1 { "" } else { "s" }
                    )
                };
                warnings.push(format!(
                    "{} entit{} not in the fairshare tree, placed under `unknown` with 1 share \
                     each, {worth}: {}",
                    added.len(),
                    if added.len() == 1 { "y" } else { "ies" },
                    added.join(", ")
                ));
            }
        }
        let mut missing: Vec<String> = Vec::new();
        let values = entities
            .iter()
            .map(|e| {
                self.lookup(e).unwrap_or_else(|| {
                    if !missing.contains(e) {
                        missing.push(e.clone());
                    }
                    [0.0; 3]
                })
            })
            .collect();
        if !missing.is_empty() {
            warnings.push(format!(
                "entities not in the fairshare tree get fairshare values 0: {}",
                missing.join(", ")
            ));
        }
        (values, warnings)
    }

    /// PBS's fairshare order of entities (`cmp_fairshare` → `compare_path`) as a dense rank
    /// per entity, 0 = most deserving: the key of the ranker's fairshare tie-break.
    /// `None` for share trees (PBS's tie-break only exists there).
    /// Call after [`entity_keywords`](Self::entity_keywords) so every entity exists.
    pub fn entity_ranks(&self, entities: &[String]) -> Result<Option<Vec<usize>>, String> {
        let Fairshare::Pbs(t) = self else {
            return Ok(None);
        };
        let nodes: Vec<usize> = entities
            .iter()
            .map(|e| {
                t.find(e)
                    .ok_or_else(|| format!("entity {e} is not in the fairshare tree"))
            })
            .collect::<Result<_, String>>()?;
        let mut uniq = nodes.clone();
        uniq.sort_unstable();
        uniq.dedup();
        // compare_path is a lexicographic order on per-level keys; sort by that key.
        let key = |n: usize| -> Vec<(u8, f64)> {
            let mut k = Vec::new();
            for p in t.path(n).into_iter().skip(1) {
                let node = t.node(p);
                if node.tree_percentage > 0.0 {
                    k.push((0, node.temp_usage / node.tree_percentage as f64));
                } else {
                    k.push((1, 0.0));
                    break;
                }
            }
            k
        };
        let keys: Vec<Vec<(u8, f64)>> = uniq.iter().map(|&n| key(n)).collect();
        let cmp = |a: &Vec<(u8, f64)>, b: &Vec<(u8, f64)>| -> Ordering {
            for (x, y) in a.iter().zip(b.iter()) {
                let o = x.0.cmp(&y.0).then(x.1.total_cmp(&y.1));
                if o != Ordering::Equal {
                    return o;
                }
            }
            Ordering::Equal
        };
        let mut order: Vec<usize> = (0..uniq.len()).collect();
        order.sort_by(|&a, &b| cmp(&keys[a], &keys[b]).then(keys[a].len().cmp(&keys[b].len())));
        let mut dense = vec![0usize; uniq.len()];
        let mut r = 0;
        for w in 0..order.len() {
            if w > 0 && cmp(&keys[order[w - 1]], &keys[order[w]]) != Ordering::Equal {
                r += 1;
            }
            dense[order[w]] = r;
        }
        Ok(Some(
            nodes
                .iter()
                .map(|n| dense[uniq.binary_search(n).unwrap_or(0)])
                .collect(),
        ))
    }
}

/// Where the fairshare tree of `rank`, `eval` (and the Python package's `load_jobs`) comes
/// from: a PBS `resource_group` file with an optional usage file, or a share tree (JSON,
/// `sshare` output, flux-accounting database) with its algorithm.
#[derive(Debug, Clone, Default)]
pub struct TreeSource {
    pub resource_group: Option<PathBuf>,
    pub usage: Option<PathBuf>,
    pub fairshare_tree: Option<PathBuf>,
    /// The algorithm asked for; `None`: `pbs` for a `resource_group`, else what the share-tree
    /// file calls for ([`ShareTreeFile::algorithm`], with a warning when that is a guess).
    pub algorithm: Option<Algorithm>,
    /// Shares of PBS's `unknown` group.
    pub unknown_shares: i32,
    /// Read the PBS files as PBS does where that differs from what they say.
    pub lenient: bool,
    /// Slurm Fair Tree's order of sibling associations (which decides exact LevelFS ties).
    pub sibling_order: Option<SiblingOrder>,
}

/// Why a [`TreeSource`] gives no tree.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TreeSourceError {
    /// A `resource_group` file with an algorithm other than `pbs`.
    #[error("a resource_group file uses the pbs algorithm; give a share tree for {0}")]
    NotPbs(&'static str),
    /// The sibling order names what the tree does not have.
    #[error("{0}")]
    SiblingOrder(String),
    /// Reading or computing the tree failed: where and what.
    #[error("{0}")]
    Load(String),
}

impl TreeSource {
    /// The tree with its values computed, and the warnings of loading it; `None` when no
    /// tree is given.
    pub fn load(&self) -> Result<Option<(Fairshare, Vec<String>)>, TreeSourceError> {
        let load = |e: FairshareError| TreeSourceError::Load(e.to_string());
        if let Some(rg) = &self.resource_group {
            if let Some(a) = self.algorithm.filter(|&a| a != Algorithm::Pbs) {
                return Err(TreeSourceError::NotPbs(a.name()));
            }
            let opts = ParseOptions {
                unknown_shares: self.unknown_shares,
                lenient: self.lenient,
            };
            let (tree, w) = load_pbs(rg, self.usage.as_deref(), &opts, false).map_err(load)?;
            return Ok(Some((Fairshare::Pbs(tree), w)));
        }
        let Some(path) = &self.fairshare_tree else {
            return Ok(None);
        };
        let file = load_share_tree(path).map_err(load)?;
        let mut warnings = file.warnings;
        let algorithm = match self.algorithm {
            Some(a) => a,
            None => {
                warnings.extend(file.assumed);
                file.algorithm
            }
        };
        let mut tree = file.tree;
        if algorithm == Algorithm::SlurmFairTree {
            warnings.extend(
                slurm::settle_sibling_order(&mut tree, self.sibling_order.as_ref())
                    .map_err(TreeSourceError::SiblingOrder)?,
            );
        } else if let Some(order) = &self.sibling_order {
            tree.set_sibling_order(order)
                .map_err(TreeSourceError::SiblingOrder)?;
        }
        let values = compute(&tree, algorithm, 1.0).map_err(TreeSourceError::Load)?;
        Ok(Some((
            Fairshare::Shares {
                tree,
                algorithm,
                values,
            },
            warnings,
        )))
    }
}

/// Load a PBS `resource_group` file and optional usage file. A usage file that does not exist
/// is an error like any input that does not (a mistyped path would otherwise rank every job as
/// if nobody had used anything); a caller that creates it (`fairshare -s`, `-d`, `-e`) passes
/// `None` until it exists.
pub fn load_pbs(
    resource_group: &Path,
    usage: Option<&Path>,
    options: &ParseOptions,
    trim: bool,
) -> Result<(PbsTree, Vec<String>), FairshareError> {
    let file = resource_group.display().to_string();
    let text = read_text_at_most(resource_group, MAX_CONFIG)
        .map_err(|e| FairshareError::file(&file, e))?;
    let (mut tree, mut warnings) = PbsTree::parse_resource_group(&text, &file, options)?;
    if let Some(u) = usage {
        let (uf, w) = usage_file::read_path(u, options.lenient)?;
        warnings.extend(w);
        uf.apply(&mut tree, trim);
    }
    Ok((tree, warnings))
}

/// What a `--fairshare-tree FILE` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeFormat {
    Json,
    Sshare,
    FluxDb,
}

/// Guess the format of a tree file from its first bytes.
pub fn sniff(path: &Path) -> Result<TreeFormat, FairshareError> {
    let file = path.display().to_string();
    let cannot = |e: std::io::Error| FairshareError::file(&file, format!("cannot read: {e}"));
    // A database may be any size: its first bytes say what it is.
    let mut magic = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(std::fs::File::open(path).map_err(cannot)?, 16),
        &mut magic,
    )
    .map_err(cannot)?;
    if magic.starts_with(b"SQLite format 3\0") {
        return Ok(TreeFormat::FluxDb);
    }
    let bytes = std::fs::File::open(path)
        .map_err(cannot)
        .and_then(|f| read_at_most(f, MAX_CONFIG).map_err(|e| FairshareError::file(&file, e)))?;
    match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => Ok(TreeFormat::Json),
        Some(_) if bytes.contains(&b'|') => Ok(TreeFormat::Sshare),
        _ => Err(FairshareError::file(
            &file,
            "not a JSON tree ({\"nodes\": [...]}), parsable sshare output or a flux-accounting database",
        )),
    }
}

/// A share-tree file as loaded by [`load_share_tree`].
#[derive(Debug, Clone)]
pub struct ShareTreeFile {
    pub tree: ShareTree,
    pub warnings: Vec<String>,
    pub format: TreeFormat,
    /// The algorithm the file calls for: flux for a flux-accounting database, for sshare
    /// output the mode of the controller that printed it (see [`sshare_algorithm`]), else
    /// Fair Tree.
    pub algorithm: Algorithm,
    /// Set when `algorithm` is a guess: which one was assumed and why.
    pub assumed: Option<String>,
}

/// Load any share-tree file (JSON, sshare, flux DB), detected by content.
pub fn load_share_tree(path: &Path) -> Result<ShareTreeFile, FairshareError> {
    let format = sniff(path)?;
    let file = path.display().to_string();
    let read = || read_text_at_most(path, MAX_CONFIG).map_err(|e| FairshareError::file(&file, e));
    let (mut algorithm, mut assumed) = (Algorithm::SlurmFairTree, None);
    let (tree, warnings) = match format {
        TreeFormat::Json => super::tree::from_json(&read()?, &file)?,
        TreeFormat::Sshare => {
            let text = read()?;
            match sshare_algorithm(&text) {
                Ok(a) => algorithm = a,
                Err(why) => {
                    assumed = Some(format!(
                        "{file}: assuming the capture is from a Fair Tree controller ({why}); \
                         give --algorithm slurm-classic if it is not"
                    ))
                }
            }
            from_sshare(&text, &file)?
        }
        TreeFormat::FluxDb => {
            algorithm = Algorithm::Flux;
            from_flux_db(path)?
        }
    };
    Ok(ShareTreeFile {
        tree,
        warnings,
        format,
        algorithm,
        assumed,
    })
}

/// The mode of the slurmctld whose `sshare` printed `text`, from what sshare prints only in
/// one mode (sshare/process.c): a `LevelFS` column (`-l` under Fair Tree) or, without it, a
/// `NormUsage` column (`-l` under classic); else the root row's `FairShare`, which sshare
/// prints only in classic mode (Fair Tree leaves it empty on every account row). `Err` says
/// why the capture cannot tell.
pub fn sshare_algorithm(text: &str) -> Result<Algorithm, &'static str> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = lines.next().ok_or("it is empty")?;
    let cols: Vec<&str> = header.split('|').map(str::trim).collect();
    let has = |c: &str| cols.contains(&c);
    if has("LevelFS") {
        return Ok(Algorithm::SlurmFairTree);
    }
    if has("NormUsage") {
        return Ok(Algorithm::SlurmClassic);
    }
    let (Some(ca), Some(cu), Some(cf)) = (
        cols.iter().position(|&c| c == "Account"),
        cols.iter().position(|&c| c == "User"),
        cols.iter().position(|&c| c == "FairShare"),
    ) else {
        return Err("it has no LevelFS, NormUsage or FairShare column");
    };
    for l in lines {
        let f: Vec<&str> = l.split('|').collect();
        if f.get(ca).map(|a| a.trim()) == Some("root")
            && f.get(cu).is_some_and(|u| u.trim().is_empty())
        {
            return Ok(if f.get(cf).is_some_and(|v| !v.trim().is_empty()) {
                Algorithm::SlurmClassic
            } else {
                Algorithm::SlurmFairTree
            });
        }
    }
    Err("it has no root row")
}

/// Parse `sshare -a -l -P` (or `-p`) output. The account column is indented one space per
/// depth, as sshare prints it; a row with a `User` is a user association named
/// `account/user`. Only `RawShares` (a number or `parent`) and `RawUsage` are read; the
/// other columns are recomputed.
pub fn from_sshare(text: &str, file: &str) -> Result<(ShareTree, Vec<String>), FairshareError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((hl, header)) = lines.next() else {
        return Err(FairshareError::file(file, "empty sshare output"));
    };
    // `-p` ends every field with `|`; `-P` only separates them.
    let trailing = header.ends_with('|');
    let split = |l: &str| -> Vec<String> {
        let l = if trailing {
            l.strip_suffix('|').unwrap_or(l)
        } else {
            l
        };
        l.split('|').map(str::to_string).collect()
    };
    let cols = split(header);
    let col = |name: &str| cols.iter().position(|c| c.trim() == name);
    let (Some(ca), Some(cu), Some(cs), Some(cr)) = (
        col("Account"),
        col("User"),
        col("RawShares"),
        col("RawUsage"),
    ) else {
        return Err(FairshareError::at(
            file,
            hl + 1,
            "expected a header with Account|User|RawShares|RawUsage (sshare -a -l -P)",
        ));
    };
    // FairShare: slurmctld's own factor, kept to find the order of tied siblings it used.
    let cfs = col("FairShare");
    let mut t = ShareTree::new(1.0);
    // stack[d] = the account at depth d
    let mut stack: Vec<String> = Vec::new();
    for (i, line) in lines {
        let ln = i + 1;
        let f = split(line);
        if f.len() < cols.len() {
            return Err(FairshareError::at(
                file,
                ln,
                format!("{} fields, the header has {}", f.len(), cols.len()),
            ));
        }
        let raw_acct = &f[ca];
        let depth = raw_acct.len() - raw_acct.trim_start_matches(' ').len();
        let acct = raw_acct.trim();
        let user = f[cu].trim();
        let shares = match f[cs].trim() {
            "parent" => Shares::Parent,
            "" => Shares::Value(1.0),
            s => Shares::Value(s.parse().map_err(|_| {
                FairshareError::at(file, ln, format!("RawShares `{s}` is not a number"))
            })?),
        };
        let usage: f64 = match f[cr].trim() {
            "" => 0.0,
            s => s.parse().map_err(|_| {
                FairshareError::at(file, ln, format!("RawUsage `{s}` is not a number"))
            })?,
        };
        if depth == 0 && user.is_empty() {
            if acct != "root" {
                return Err(FairshareError::at(
                    file,
                    ln,
                    format!("the first-level row must be `root`, not `{acct}`"),
                ));
            }
            stack = vec!["root".into()];
            continue;
        }
        if stack.is_empty() || depth > stack.len() || depth == 0 {
            return Err(FairshareError::at(
                file,
                ln,
                format!("row for `{acct}` is indented {depth} but its parent is missing"),
            ));
        }
        let parent = stack[depth - 1].clone();
        let r = if user.is_empty() {
            stack.truncate(depth);
            stack.push(acct.to_string());
            t.add(acct, &parent, shares, 0.0, false, None)
        } else {
            if acct != parent && !(parent == "root" && acct == "root") {
                return Err(FairshareError::at(
                    file,
                    ln,
                    format!("user `{user}` is listed under `{acct}` but indented under `{parent}`"),
                ));
            }
            t.add(
                &format!("{acct}/{user}"),
                &parent,
                shares,
                usage,
                true,
                Some(user),
            )
        };
        let i = r.map_err(|m| FairshareError::at(file, ln, m))?;
        if !user.is_empty()
            && let Some(v) = cfs.map(|c| f[c].trim()).filter(|v| !v.is_empty())
        {
            let v: f64 = v.parse().map_err(|_| {
                FairshareError::at(file, ln, format!("FairShare `{v}` is not a number"))
            })?;
            t.set_captured_factor(i, v);
        }
    }
    let w = t.finish();
    Ok((t, w))
}

/// Every row of a query without parameters, mapped by `row`.
#[cfg(feature = "flux-db")]
fn query_all<T>(
    conn: &rusqlite::Connection,
    sql: &str,
    row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Vec<T>> {
    let mut st = conn.prepare(sql)?;
    st.query_map([], row)?.collect()
}

/// Read a flux-accounting database (`bank_table`, `association_table`) as
/// `data_reader_db.cpp` does: depth-first from the bank with `parent_bank = ''`, sub-banks by
/// name, users by name, inactive rows skipped; a bank with sub-banks gets only its sub-banks
/// (its own associations are ignored, with a warning). User associations are named
/// `bank/username`; jobs map to them by username (the entity), and under `--scheduler flux`
/// by bank too ([`Fairshare::flux_fairshare`]).
///
/// Needs the `flux-db` feature (SQLite); without it this is an error saying so.
#[cfg(feature = "flux-db")]
pub fn from_flux_db(path: &Path) -> Result<(ShareTree, Vec<String>), FairshareError> {
    use rusqlite::{Connection, OpenFlags};
    let file = path.display().to_string();
    let err =
        |e: rusqlite::Error| FairshareError::file(&file, format!("flux-accounting database: {e}"));
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(err)?;
    let banks: Vec<(String, String, f64)> = query_all(
        &conn,
        "SELECT bank, parent_bank, shares FROM bank_table WHERE active = 1 ORDER BY bank",
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
    .map_err(err)?;
    let users: Vec<(String, String, f64, f64)> = query_all(
        &conn,
        "SELECT username, bank, shares, job_usage FROM association_table WHERE active = 1 ORDER BY username",
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )
    .map_err(err)?;
    let roots: Vec<&(String, String, f64)> = banks.iter().filter(|b| b.1.is_empty()).collect();
    let [root] = roots.as_slice() else {
        return Err(FairshareError::file(
            &file,
            format!(
                "expected one root bank (parent_bank ''), found {}",
                roots.len()
            ),
        ));
    };
    let mut t = ShareTree::new(root.2);
    let mut warnings = Vec::new();
    // Depth-first: (bank name, tree parent name)
    let mut stack: Vec<(String, String)> = vec![(root.0.clone(), String::new())];
    while let Some((bank, parent)) = stack.pop() {
        let node_name = if parent.is_empty() {
            "root".to_string()
        } else {
            let shares = banks
                .iter()
                .find(|b| b.0 == bank)
                .map(|b| b.2)
                .unwrap_or(1.0);
            t.add(&bank, &parent, Shares::Value(shares), 0.0, false, None)
                .map_err(|m| FairshareError::file(&file, m))?;
            bank.clone()
        };
        let subs: Vec<&(String, String, f64)> = banks.iter().filter(|b| b.1 == bank).collect();
        let own: Vec<&(String, String, f64, f64)> = users.iter().filter(|u| u.1 == bank).collect();
        if !subs.is_empty() {
            if !own.is_empty() {
                warnings.push(format!(
                    "{file}: bank `{bank}` has sub-banks, so its {} association(s) are ignored, as flux-accounting does",
                    own.len()
                ));
            }
            for s in subs.iter().rev() {
                stack.push((s.0.clone(), node_name.clone()));
            }
        } else {
            for u in own {
                t.add(
                    &format!("{}/{}", bank, u.0),
                    &node_name,
                    Shares::Value(u.2),
                    u.3,
                    true,
                    Some(&u.0),
                )
                .map_err(|m| FairshareError::file(&file, m))?;
            }
        }
    }
    warnings.extend(t.finish());
    Ok((t, warnings))
}

/// [`from_flux_db`] in a build without the `flux-db` feature: the database cannot be read.
#[cfg(not(feature = "flux-db"))]
pub fn from_flux_db(path: &Path) -> Result<(ShareTree, Vec<String>), FairshareError> {
    Err(FairshareError::file(
        &path.display().to_string(),
        "a flux-accounting database needs SQLite: this jobsort was built without the \
         `flux-db` feature",
    ))
}
