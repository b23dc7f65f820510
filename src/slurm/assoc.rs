//! Associations from `sacctmgr show assoc -P` (or `-p`): each association's place in the
//! tree, its `Priority` (the assoc factor of Slurm's multifactor priority) and the limits
//! slurmctld enforces on its jobs (`GrpJobs`, `GrpTRES`, `MaxJobs`, `MaxTRES`,
//! `MaxTRESPerNode`, `MaxWall`: [`super::limits`]).
//!
//! slurmctld normalises an association's priority by the largest of all associations
//! (`assoc_mgr.c: _set_assoc_norm_priority`, `priority_norm = priority /
//! g_assoc_max_priority`; the raw priority under `PriorityFlags=NO_NORMAL_ASSOC`; 0 when the
//! largest is 0), and a job's factor is its association's (`set_priority_factors`). A job's
//! association is the one of its account, user and partition, else of its account and user
//! without a partition.
//!
//! The tree: a user's association (with or without a partition) hangs from its account's
//! row; an account's row from its parent account's, named by the `ParentName` column, else
//! found through `ID`/`ParentID`, else through `Lineage` (`/root/phys/chem/`: the account
//! before the last); with none of them (sacctmgr's default columns) every account is taken
//! to hang from `root` ([`Associations::tree_known`] says so).
//!
//! Values handed down: an association with no `Priority`, `MaxJobs`, `MaxWall`, or no
//! `MaxTRES`/`MaxTRESPerNode` count of a TRES, takes its parent's, and so up the tree, as
//! slurmdbd hands them down when it lists associations (`as_mysql_assoc.c:
//! _cluster_get_assocs` fills each from the `get_parent_limits` of its parent unless asked
//! `without_parent_limits`; the TRES lists are joined going up, the nearest count of a TRES
//! winning). sacctmgr's default output already shows the values handed down; with
//! `WOPLimits` the fields are empty and are handed down here. `Grp` limits are not handed
//! down: each holds at its own association, for the jobs of its whole subtree
//! (`acct_policy.c` walks `parent_assoc_ptr`). None anywhere is no limit (priority 0:
//! `INFINITE` is 0 in `_set_assoc_norm_priority`).

pub use super::sacctmgr::SacctmgrError as AssocError;
use super::sacctmgr::Table;
use crate::fairshare::tree::SiblingOrder;
use std::collections::BTreeMap;

/// One association as listed: its own values (empty fields are `None` and empty maps), and
/// its parent's index once the tree is known.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Association {
    /// Its line in the file.
    pub line: usize,
    pub account: String,
    /// Empty for an account's row.
    pub user: String,
    /// Empty for an association of every partition.
    pub partition: String,
    /// The parent association: an account's row.
    pub parent: Option<usize>,
    pub priority: Option<u32>,
    pub grp_jobs: Option<u64>,
    /// TRES names (`cpu`, `mem`, `node`, `billing`, `gres/gpu`) and counts, memory in MB.
    pub grp_tres: BTreeMap<String, u64>,
    pub max_jobs: Option<u64>,
    /// `MaxTRES` (per job).
    pub max_tres: BTreeMap<String, u64>,
    pub max_tres_per_node: BTreeMap<String, u64>,
    /// `MaxWall` in minutes.
    pub max_wall: Option<u32>,
}

/// An association's `Max*` limits as slurmdbd hands them down.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MaxLimits {
    pub jobs: Option<u64>,
    pub tres: BTreeMap<String, u64>,
    pub tres_per_node: BTreeMap<String, u64>,
    /// Minutes.
    pub wall: Option<u32>,
}

/// The associations of `sacctmgr show assoc -P`, in the file's order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Associations {
    pub file: String,
    pub list: Vec<Association>,
    /// By (account, user, partition); account rows have an empty user and partition.
    index: BTreeMap<(String, String, String), usize>,
    /// Whether the file named the accounts' parents (`ParentName`, `ParentID` or
    /// `Lineage`); without, every account hangs from `root`.
    pub tree_known: bool,
    /// The limit columns the file lacks (read as unset).
    pub lacking: Vec<&'static str>,
}

/// The limit columns `slurm::limits` reads of an association.
pub const LIMIT_COLUMNS: [&str; 6] = [
    "GrpJobs",
    "GrpTRES",
    "MaxJobs",
    "MaxTRES",
    "MaxTRESPerNode",
    "MaxWall",
];

impl Associations {
    /// Read `sacctmgr show assoc -P` output: a header with `Account` and `User`; `Cluster`,
    /// `Partition`, `ParentName`, `ID`, `ParentID`, `Lineage`, `Priority` and the limit
    /// columns when present (a missing column is an empty one). With `cluster`, rows of
    /// other clusters are left out.
    pub fn parse(text: &str, file: &str, cluster: Option<&str>) -> Result<Self, AssocError> {
        let t = Table::parse(text, file)?;
        let (Some(ca), Some(cu)) = (t.col("Account"), t.col("User")) else {
            return Err(t.err(
                t.header_line,
                "expected a header with Account|User|... (sacctmgr show assoc -P)",
            ));
        };
        let (cpart, cparent) = (t.col("Partition"), t.col("ParentName"));
        let (cid, cpid, clin) = (t.col("ID"), t.col("ParentID"), t.col("Lineage"));
        let mut out = Associations {
            file: file.to_string(),
            tree_known: cparent.is_some() || (cid.is_some() && cpid.is_some()) || clin.is_some(),
            lacking: t.lacking(&LIMIT_COLUMNS),
            ..Default::default()
        };
        // (parent name, parent id, lineage) of each row, and each row's id.
        let mut links: Vec<(String, String, String)> = Vec::new();
        let mut by_id: BTreeMap<String, usize> = BTreeMap::new();
        for row in t.rows_of(cluster) {
            let priority = t.priority(row)?;
            let a = Association {
                line: row.line,
                account: t.get(row, Some(ca)).to_string(),
                user: t.get(row, Some(cu)).to_string(),
                partition: t.get(row, cpart).to_string(),
                parent: None,
                priority,
                grp_jobs: t.count(row, "GrpJobs")?,
                grp_tres: t.tres(row, "GrpTRES")?,
                max_jobs: t.count(row, "MaxJobs")?,
                max_tres: t.tres(row, "MaxTRES")?,
                max_tres_per_node: t.tres(row, "MaxTRESPerNode")?,
                max_wall: t.minutes(row, "MaxWall")?,
            };
            let i = out.list.len();
            let id = t.get(row, cid);
            if !id.is_empty() {
                by_id.insert(id.to_string(), i);
            }
            links.push((
                t.get(row, cparent).to_string(),
                t.get(row, cpid).to_string(),
                t.get(row, clin).to_string(),
            ));
            out.index
                .insert((a.account.clone(), a.user.clone(), a.partition.clone()), i);
            out.list.push(a);
        }
        let account_row = |out: &Associations, acct: &str| {
            out.index
                .get(&(acct.to_string(), String::new(), String::new()))
                .copied()
        };
        for (i, (pname, pid, lineage)) in links.iter().enumerate() {
            let a = &out.list[i];
            let parent = if !a.user.is_empty() {
                account_row(&out, &a.account)
            } else if a.account == "root" {
                None
            } else if !pname.is_empty() {
                account_row(&out, pname)
            } else if let Some(&p) = by_id.get(pid.as_str()) {
                Some(p)
            } else if !lineage.is_empty() {
                let path: Vec<&str> = lineage.split('/').filter(|s| !s.is_empty()).collect();
                match path.len().checked_sub(2) {
                    Some(k) => account_row(&out, path[k]),
                    None => account_row(&out, "root"),
                }
            } else if out.tree_known {
                None
            } else {
                account_row(&out, "root")
            };
            out.list[i].parent = parent.filter(|&p| p != i);
        }
        Ok(out)
    }

    /// The association of a job: its account, user and partition, else its account and
    /// user.
    pub fn find(&self, account: &str, user: &str, partition: Option<&str>) -> Option<usize> {
        let get = |part: &str| {
            self.index
                .get(&(account.to_string(), user.to_string(), part.to_string()))
                .copied()
        };
        partition.and_then(get).or_else(|| get(""))
    }

    /// Association `i` and its ancestors up to the root (a cycle ends the walk).
    pub fn chain(&self, i: usize) -> Vec<usize> {
        let mut out = vec![i];
        let mut at = i;
        while let Some(p) = self.list[at].parent {
            if out.contains(&p) {
                break;
            }
            out.push(p);
            at = p;
        }
        out
    }

    /// `phys`, `phys/ann`, `phys/ann in partition gpu`.
    pub fn name(&self, i: usize) -> String {
        let a = &self.list[i];
        match (a.user.as_str(), a.partition.as_str()) {
            ("", _) => a.account.clone(),
            (u, "") => format!("{}/{u}", a.account),
            (u, p) => format!("{}/{u} in partition {p}", a.account),
        }
    }

    /// Association `i`'s `Max*` limits: its own, else the nearest ancestor's
    /// (`_cluster_get_assocs`), TRES by TRES.
    pub fn max_limits(&self, i: usize) -> MaxLimits {
        let mut m = MaxLimits::default();
        for j in self.chain(i) {
            let a = &self.list[j];
            m.jobs = m.jobs.or(a.max_jobs);
            m.wall = m.wall.or(a.max_wall);
            for (t, n) in &a.max_tres {
                m.tres.entry(t.clone()).or_insert(*n);
            }
            for (t, n) in &a.max_tres_per_node {
                m.tres_per_node.entry(t.clone()).or_insert(*n);
            }
        }
        m
    }

    /// Association `i`'s priority: its own, else the nearest ancestor's.
    pub fn priority(&self, i: usize) -> Option<u32> {
        self.chain(i)
            .into_iter()
            .find_map(|j| self.list[j].priority)
    }
}

/// The associations' priorities, by (account, user, partition); account rows have an empty
/// user.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AssocPriorities {
    priority: BTreeMap<(String, String, String), u32>,
    /// `g_assoc_max_priority`.
    pub max: u32,
}

impl AssocPriorities {
    /// Read `sacctmgr show assoc -P` output (a header with `Account`, `User` and `Priority`;
    /// `Partition`, `Cluster` and the tree's columns when present: [`Associations::parse`]).
    /// With `cluster`, rows of other clusters are left out.
    pub fn parse(text: &str, file: &str, cluster: Option<&str>) -> Result<Self, AssocError> {
        let t = Table::parse(text, file)?;
        if [t.col("Account"), t.col("User"), t.col("Priority")].contains(&None) {
            return Err(t.err(
                t.header_line,
                "expected a header with Account|User|...|Priority \
                 (sacctmgr show assoc -P format=cluster,account,user,partition,parentname,priority)",
            ));
        }
        Ok(Self::from_associations(&Associations::parse(
            text, file, cluster,
        )?))
    }

    /// Each association's priority, handed down where it has none.
    pub fn from_associations(assoc: &Associations) -> Self {
        let mut out = AssocPriorities::default();
        for (i, a) in assoc.list.iter().enumerate() {
            let p = assoc.priority(i).unwrap_or(0);
            out.max = out.max.max(p);
            out.priority
                .insert((a.account.clone(), a.user.clone(), a.partition.clone()), p);
        }
        out
    }

    /// The priority of a job's association: account, user and partition, else account and
    /// user; `None` when neither is listed.
    pub fn priority(&self, account: &str, user: &str, partition: Option<&str>) -> Option<u32> {
        let get = |part: &str| {
            self.priority
                .get(&(account.to_string(), user.to_string(), part.to_string()))
                .copied()
        };
        partition.and_then(get).or_else(|| get(""))
    }

    /// The assoc factor of a job's association (`_set_assoc_norm_priority`): its priority
    /// over the largest, the priority itself under `NO_NORMAL_ASSOC`, 0 when the largest is 0.
    pub fn factor(
        &self,
        account: &str,
        user: &str,
        partition: Option<&str>,
        no_normal_assoc: bool,
    ) -> Option<f64> {
        let p = self.priority(account, user, partition)?;
        Some(if self.max == 0 {
            0.0
        } else if no_normal_assoc {
            f64::from(p)
        } else {
            f64::from(p) / f64::from(self.max)
        })
    }
}

/// Slurm's order of sibling associations after slurmctld starts, for Fair Tree's exact ties
/// ([`SiblingOrder::Lft`], which cites `_post_assoc_list` and `_cluster_get_assocs`'s `order
/// by lft`), from `sacctmgr -P show assoc format=Cluster,Account,User,Lft` (or any columns
/// with `Account`, `User` and `Lft`): the associations by ascending `Lft`, named as an sshare
/// capture names them (`account`, `account/user`). One cluster's: a table of several is
/// refused unless `cluster` picks one.
pub fn lft_order(
    text: &str,
    file: &str,
    cluster: Option<&str>,
) -> Result<SiblingOrder, AssocError> {
    let t = Table::parse(text, file)?;
    let (Some(ca), Some(cu), Some(cl)) = (t.col("Account"), t.col("User"), t.col("Lft")) else {
        return Err(t.err(
            t.header_line,
            "expected a header with Account, User and Lft \
             (sacctmgr -P show assoc format=Cluster,Account,User,Lft)",
        ));
    };
    let cc = t.col("Cluster");
    let mut clusters: Vec<&str> = Vec::new();
    let mut rows: Vec<(u64, usize, String)> = Vec::new();
    for row in t.rows_of(cluster) {
        let c = t.get(row, cc);
        if !c.is_empty() && !clusters.contains(&c) {
            clusters.push(c);
        }
        let lft = t.get(row, Some(cl));
        let lft: u64 = lft
            .parse()
            .map_err(|_| t.err(row.line, format!("Lft `{lft}` is not a number")))?;
        let (account, user) = (t.get(row, Some(ca)), t.get(row, Some(cu)));
        let name = if user.is_empty() {
            account.to_string()
        } else {
            format!("{account}/{user}")
        };
        rows.push((lft, row.line, name));
    }
    if clusters.len() > 1 {
        return Err(t.err(
            t.header_line,
            format!(
                "associations of {} clusters ({}): each numbers its own lft; \
                 capture one (sacctmgr ... cluster=NAME)",
                clusters.len(),
                clusters.join(", ")
            ),
        ));
    }
    rows.sort();
    Ok(SiblingOrder::Lft {
        source: file.to_string(),
        names: rows.into_iter().map(|(_, _, n)| n).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// assoc_mgr.c, _set_assoc_norm_priority: priority_norm = priority /
    /// g_assoc_max_priority (the largest of every association, 2000 here); NO_NORMAL_ASSOC
    /// the raw priority. ann in phys has her own 500 → 0.25; bob in phys none → phys's 1000
    /// → 0.5; bob's partition-specific association in gpu 2000 → 1.0; cid in chem (no
    /// priority, chem's parent phys 1000 via ParentName) → 0.5; root has none → 0.
    #[test]
    fn association_factors() {
        let text = "Cluster|Account|User|Partition|ParentName|Share|Priority|QOS\n\
                    demo|root|||||  |normal\n\
                    demo|phys|||root|1|1000|normal\n\
                    demo|phys|ann|||1|500|normal\n\
                    demo|phys|bob|||1||normal\n\
                    demo|phys|bob|gpu||1|2000|normal\n\
                    demo|chem|||phys|1||normal\n\
                    demo|chem|cid|||1||normal\n\
                    other|phys|ann|||1|90000|normal\n";
        let a = AssocPriorities::parse(text, "assoc.txt", Some("demo")).unwrap();
        assert_eq!(a.max, 2000);
        let f = |acct: &str, user: &str, part: Option<&str>| a.factor(acct, user, part, false);
        assert_eq!(f("phys", "ann", None), Some(0.25));
        assert_eq!(f("phys", "ann", Some("batch")), Some(0.25));
        assert_eq!(f("phys", "bob", Some("batch")), Some(0.5));
        assert_eq!(f("phys", "bob", Some("gpu")), Some(1.0));
        assert_eq!(f("chem", "cid", None), Some(0.5));
        assert_eq!(f("bio", "dan", None), None);
        assert_eq!(a.factor("phys", "ann", None, true), Some(500.0));
        let e = AssocPriorities::parse("Account|User\nx|y\n", "a.txt", None).unwrap_err();
        assert!(
            e.to_string().starts_with("a.txt:1: expected a header"),
            "{e}"
        );
        let e =
            AssocPriorities::parse("Account|User|Priority\nx|y|high\n", "a.txt", None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a.txt:2: Priority `high` is not a priority (0..4294967295)"
        );
    }

    /// Max* limits are handed down as slurmdbd does (`as_mysql_assoc.c:
    /// _cluster_get_assocs`): with `WOPLimits` output, ann's association has no MaxJobs,
    /// MaxWall or MaxTRES of its own and takes phys's MaxJobs=4 and MaxWall, and the cpu of
    /// root's MaxTRES beside her own mem; bob keeps his own MaxJobs=1. Grp limits stay where
    /// they are set.
    #[test]
    fn limits_are_read_and_max_limits_handed_down() {
        let text = "Cluster|Account|User|Partition|ParentName|GrpJobs|GrpTRES|MaxJobs|MaxTRES|\
                    MaxTRESPerNode|MaxWall\n\
                    demo|root|||||||cpu=128|gres/gpu=4|\n\
                    demo|phys|||root|10|cpu=64,mem=500G|4|||2-00:00:00\n\
                    demo|phys|ann||||||mem=16G||\n\
                    demo|phys|bob|||||1|||\n";
        let a = Associations::parse(text, "assoc.txt", Some("demo")).unwrap();
        assert!(a.tree_known);
        let ann = a.find("phys", "ann", Some("batch")).unwrap();
        assert_eq!(a.name(ann), "phys/ann");
        let chain: Vec<String> = a.chain(ann).into_iter().map(|i| a.name(i)).collect();
        assert_eq!(chain, ["phys/ann", "phys", "root"]);
        let phys = a.find("phys", "", None).unwrap();
        assert_eq!(a.list[phys].grp_jobs, Some(10));
        assert_eq!(a.list[phys].grp_tres["mem"], 500 * 1024);
        assert_eq!(a.list[ann].grp_jobs, None);
        let m = a.max_limits(ann);
        assert_eq!((m.jobs, m.wall), (Some(4), Some(2 * 1440)));
        assert_eq!(
            m.tres,
            BTreeMap::from([("cpu".to_string(), 128), ("mem".to_string(), 16 * 1024)])
        );
        assert_eq!(m.tres_per_node["gres/gpu"], 4);
        let bob = a.find("phys", "bob", None).unwrap();
        assert_eq!(a.max_limits(bob).jobs, Some(1));
        let e = Associations::parse("Account|User|GrpTRES\nphys||cpu=abc\n", "a.txt", None)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "a.txt:2: GrpTRES `cpu=abc`: `abc` is not a count in `cpu=abc`"
        );
    }

    /// The tree from `ID`/`ParentID`, from `Lineage`, and, with neither, every account under
    /// root.
    #[test]
    fn the_tree_comes_from_parent_ids_or_lineage_or_is_flat() {
        let ids = "Account|User|ID|ParentID\nroot||1|\nphys||2|1\nchem||3|2\nchem|cid|4|3\n";
        let lineage = "Account|User|Lineage\nroot||/root/\nphys||/root/phys/\n\
                       chem||/root/phys/chem/\nchem|cid|/root/phys/chem/0-cid/\n";
        for text in [ids, lineage] {
            let a = Associations::parse(text, "a.txt", None).unwrap();
            let cid = a.find("chem", "cid", None).unwrap();
            let chain: Vec<String> = a.chain(cid).into_iter().map(|i| a.name(i)).collect();
            assert_eq!(chain, ["chem/cid", "chem", "phys", "root"], "{text}");
        }
        let flat = "Account|User\nroot|\nphys|\nchem|\nchem|cid\n";
        let a = Associations::parse(flat, "a.txt", None).unwrap();
        assert!(!a.tree_known);
        let cid = a.find("chem", "cid", None).unwrap();
        let chain: Vec<String> = a.chain(cid).into_iter().map(|i| a.name(i)).collect();
        assert_eq!(chain, ["chem/cid", "chem", "root"]);
    }

    /// `sacctmgr -P show assoc format=Cluster,Account,User,LFT,ID` from a live slurmdbd
    /// (22.05: `add cluster`, then accounts `science`, `alpha`, `beta` and their users, one
    /// command each). `add_assocs` (`as_mysql_assoc.c`) puts each new child at its parent's
    /// `lft + 1`, so the newest account comes first; sacctmgr lists the rows in its
    /// hierarchical order, not by lft. The order is by `LFT`, named as sshare's rows are.
    #[test]
    fn lft_order_sorts_by_lft_and_names_as_sshare() {
        let text = "Cluster|Account|User|LFT|ID\n\
                    jobsortlive|root||1|1\n\
                    jobsortlive|root|root|18|2\n\
                    jobsortlive|alpha||8|5\n\
                    jobsortlive|alpha|u1|11|7\n\
                    jobsortlive|alpha|u2|9|8\n\
                    jobsortlive|beta||2|6\n\
                    jobsortlive|beta|u3|5|9\n\
                    jobsortlive|beta|u4|3|10\n\
                    jobsortlive|science||14|3\n\
                    jobsortlive|science|root|15|4\n";
        let SiblingOrder::Lft { source, names } = lft_order(text, "assoc.txt", None).unwrap()
        else {
            panic!("not an lft order");
        };
        assert_eq!(source, "assoc.txt");
        assert_eq!(
            names,
            [
                "root",
                "beta",
                "beta/u4",
                "beta/u3",
                "alpha",
                "alpha/u2",
                "alpha/u1",
                "science",
                "science/root",
                "root/root"
            ]
        );
        // Each cluster numbers its own lft: two are refused unless one is picked.
        let two = format!("{text}other|root||1|1\nother|zeta||2|2\n");
        let e = lft_order(&two, "assoc.txt", None).unwrap_err().to_string();
        assert!(
            e.starts_with("assoc.txt:1: associations of 2 clusters (jobsortlive, other)"),
            "{e}"
        );
        assert!(lft_order(&two, "assoc.txt", Some("other")).is_ok());
        // No Lft column, or a bad value: where.
        let e = lft_order("Account|User\nroot|\n", "a.txt", None)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("a.txt:1: expected a header with Account, User and Lft"),
            "{e}"
        );
        let e = lft_order("Account|User|Lft\nroot||x\n", "a.txt", None)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "a.txt:2: Lft `x` is not a number");
    }
}
