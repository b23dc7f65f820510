//! Association priorities from `sacctmgr show assoc -P` (or `-p`): the `Priority` column of
//! each association, for the assoc factor of Slurm's multifactor priority.
//!
//! slurmctld normalises an association's priority by the largest of all associations
//! (`assoc_mgr.c: _set_assoc_norm_priority`, `priority_norm = priority /
//! g_assoc_max_priority`; the raw priority under `PriorityFlags=NO_NORMAL_ASSOC`; 0 when the
//! largest is 0), and a job's factor is its association's (`set_priority_factors`). A job's
//! association is the one of its account, user and partition, else of its account and user
//! without a partition. An association with no `Priority` (an empty cell: sacctmgr's
//! `WOPLimits` output) takes its parent's — a user's, its account row's; an account's, its
//! `ParentName` row's when the column is there — as slurmdbd hands unset values down; none
//! anywhere is 0 (`INFINITE` is 0 in `_set_assoc_norm_priority`).

use std::collections::BTreeMap;

/// An error in `sacctmgr` output, with the file and line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct AssocError {
    pub file: String,
    pub line: usize,
    pub message: String,
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
    /// `Partition`, `Cluster` and `ParentName` when present). With `cluster`, rows of other
    /// clusters are left out.
    pub fn parse(text: &str, file: &str, cluster: Option<&str>) -> Result<Self, AssocError> {
        let err = |line: usize, message: String| AssocError {
            file: file.to_string(),
            line,
            message,
        };
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let Some((hl, header)) = lines.next() else {
            return Err(err(0, "empty sacctmgr output".into()));
        };
        let trailing = header.ends_with('|');
        let split = |l: &str| -> Vec<String> {
            let l = if trailing {
                l.strip_suffix('|').unwrap_or(l)
            } else {
                l
            };
            l.split('|').map(|f| f.trim().to_string()).collect()
        };
        let cols = split(header);
        let col = |name: &str| cols.iter().position(|c| c.eq_ignore_ascii_case(name));
        let (Some(ca), Some(cu), Some(cp)) = (col("Account"), col("User"), col("Priority")) else {
            return Err(err(
                hl + 1,
                "expected a header with Account|User|...|Priority \
                 (sacctmgr show assoc -P format=cluster,account,user,partition,priority)"
                    .into(),
            ));
        };
        let (cpart, ccl, cparent) = (col("Partition"), col("Cluster"), col("ParentName"));
        // (account, user, partition) → own priority (None: unset), and accounts' parents.
        let mut own: Vec<((String, String, String), Option<u32>)> = Vec::new();
        let mut parent: BTreeMap<String, String> = BTreeMap::new();
        for (i, line) in lines {
            let f = split(line);
            if f.len() < cols.len() {
                return Err(err(
                    i + 1,
                    format!("{} fields, the header has {}", f.len(), cols.len()),
                ));
            }
            if let (Some(c), Some(want)) = (ccl, cluster)
                && !f[c].is_empty()
                && !f[c].eq_ignore_ascii_case(want)
            {
                continue;
            }
            let key = (
                f[ca].clone(),
                f[cu].clone(),
                cpart.map(|c| f[c].clone()).unwrap_or_default(),
            );
            let p = match f[cp].as_str() {
                "" => None,
                s => Some(s.parse::<u32>().map_err(|_| {
                    err(
                        i + 1,
                        format!("Priority `{s}` is not a priority (0..4294967295)"),
                    )
                })?),
            };
            if key.1.is_empty()
                && let Some(pc) = cparent
                && !f[pc].is_empty()
            {
                parent.insert(key.0.clone(), f[pc].clone());
            }
            own.push((key, p));
        }
        let accounts: BTreeMap<&str, Option<u32>> = own
            .iter()
            .filter(|((_, u, part), _)| u.is_empty() && part.is_empty())
            .map(|((a, _, _), p)| (a.as_str(), *p))
            .collect();
        // An account's priority up its parents (a cycle or a missing row ends the walk).
        let account_priority = |start: &str| -> Option<u32> {
            let mut a = start.to_string();
            for _ in 0..64 {
                if let Some(Some(p)) = accounts.get(a.as_str()) {
                    return Some(*p);
                }
                a = parent.get(&a)?.clone();
            }
            None
        };
        let mut out = AssocPriorities::default();
        for ((a, u, part), p) in &own {
            let p = p.or_else(|| {
                if u.is_empty() {
                    parent.get(a).and_then(|pa| account_priority(pa))
                } else {
                    account_priority(a)
                }
            });
            let p = p.unwrap_or(0);
            out.max = out.max.max(p);
            out.priority.insert((a.clone(), u.clone(), part.clone()), p);
        }
        Ok(out)
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
}
