//! QOS from `sacctmgr show qos -P` (or `-p`): each QOS's priority, flags and the limits
//! slurmctld enforces on its jobs ([`super::limits`]).
//!
//! Slurm 22.05's default columns (`src/sacctmgr/qos_functions.c: sacctmgr_list_qos`,
//! `Name,Prio,GraceT,Preempt,PreemptE,PreemptM,Flags%40,UsageThres,UsageFactor,GrpTRES,
//! GrpTRESMins,GrpTRESRunMins,GrpJ,GrpS,GrpW,MaxTRES,MaxTRESPerN,MaxTRESMins,MaxW,
//! MaxTRESPerUser,MaxJobsPerUser,MaxSubmitJobsPerUser,MaxTRESPerAcct,MaxJobsPerAcct,
//! MaxSubmitJobsPerAcct,MinTRES`) are titled (`src/sacctmgr/common.c: _get_print_field`)
//! `Name|Priority|GraceTime|Preempt|PreemptExemptTime|PreemptMode|Flags|UsageThres|
//! UsageFactor|GrpTRES|GrpTRESMins|GrpTRESRunMins|GrpJobs|GrpSubmit|GrpWall|MaxTRES|
//! MaxTRESPerNode|MaxTRESMins|MaxWall|MaxTRESPU|MaxJobsPU|MaxSubmitPU|MaxTRESPA|MaxJobsPA|
//! MaxSubmitPA|MinTRES`. `Flags` is `slurmdb_qos_flags_str`'s comma list (`DenyOnLimit`,
//! `OverPartQOS`, ...). No other jobsort reader takes the QOS table: `--qos NAME=PRIORITY`
//! gives the multifactor QOS priorities by hand; [`QosList::priorities`] gives them all.

use super::assoc::AssocError;
use super::sacctmgr::Table;
use std::collections::BTreeMap;

/// One QOS as listed (empty fields are `None` and empty maps).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Qos {
    /// Its line in the file.
    pub line: usize,
    pub name: String,
    pub priority: Option<u32>,
    /// `OverPartQOS`: the job's QOS limits win over its partition's QOS.
    pub over_part_qos: bool,
    pub grp_jobs: Option<u64>,
    /// TRES names (`cpu`, `mem`, `node`, `billing`, `gres/gpu`) and counts, memory in MB.
    pub grp_tres: BTreeMap<String, u64>,
    /// `MaxJobsPU`.
    pub max_jobs_per_user: Option<u64>,
    /// `MaxJobsPA`.
    pub max_jobs_per_account: Option<u64>,
    /// `MaxTRESPU`.
    pub max_tres_per_user: BTreeMap<String, u64>,
    /// `MaxTRESPA`.
    pub max_tres_per_account: BTreeMap<String, u64>,
    /// `MaxTRES` (per job).
    pub max_tres: BTreeMap<String, u64>,
    pub max_tres_per_node: BTreeMap<String, u64>,
    /// `MaxWall` in minutes.
    pub max_wall: Option<u32>,
}

/// The QOS of `sacctmgr show qos -P`, in the file's order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QosList {
    pub file: String,
    pub list: Vec<Qos>,
    /// The limit columns the file lacks (read as unset).
    pub lacking: Vec<&'static str>,
}

/// The limit columns `slurm::limits` reads of a QOS.
pub const LIMIT_COLUMNS: [&str; 9] = [
    "GrpJobs",
    "GrpTRES",
    "MaxJobsPU",
    "MaxJobsPA",
    "MaxTRESPU",
    "MaxTRESPA",
    "MaxTRES",
    "MaxTRESPerNode",
    "MaxWall",
];

impl QosList {
    /// Read `sacctmgr show qos -P` output: a header with `Name`; the priority, flags and
    /// limit columns when present (a missing column is an empty one).
    pub fn parse(text: &str, file: &str) -> Result<QosList, AssocError> {
        let t = Table::parse(text, file)?;
        let Some(cn) = t.col("Name") else {
            return Err(t.err(
                t.header_line,
                "expected a header with Name|... (sacctmgr show qos -P)",
            ));
        };
        let cf = t.col("Flags");
        let mut list = Vec::new();
        for row in &t.rows {
            let priority = t.priority(row)?;
            list.push(Qos {
                line: row.line,
                name: t.get(row, Some(cn)).to_string(),
                priority,
                over_part_qos: t
                    .get(row, cf)
                    .split(',')
                    .any(|f| f.trim().eq_ignore_ascii_case("OverPartQOS")),
                grp_jobs: t.count(row, "GrpJobs")?,
                grp_tres: t.tres(row, "GrpTRES")?,
                max_jobs_per_user: t.count(row, "MaxJobsPU")?,
                max_jobs_per_account: t.count(row, "MaxJobsPA")?,
                max_tres_per_user: t.tres(row, "MaxTRESPU")?,
                max_tres_per_account: t.tres(row, "MaxTRESPA")?,
                max_tres: t.tres(row, "MaxTRES")?,
                max_tres_per_node: t.tres(row, "MaxTRESPerNode")?,
                max_wall: t.minutes(row, "MaxWall")?,
            });
        }
        Ok(QosList {
            file: file.to_string(),
            list,
            lacking: t.lacking(&LIMIT_COLUMNS),
        })
    }

    /// The QOS named `name`.
    pub fn get(&self, name: &str) -> Option<&Qos> {
        self.list.iter().find(|q| q.name == name)
    }

    /// Each QOS's priority (0 when unset), as `--qos NAME=PRIORITY` gives them.
    pub fn priorities(&self) -> BTreeMap<String, u32> {
        self.list
            .iter()
            .map(|q| (q.name.clone(), q.priority.unwrap_or(0)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `format=` that leaves limit columns out: they are unknown, and the list says which
    /// (the snapshot reader notes them as a missing part).
    #[test]
    fn limit_columns_left_out_are_listed() {
        let q = QosList::parse("Name|Priority|MaxWall\nnormal|0|1-00:00:00\n", "q").unwrap();
        assert_eq!(q.list[0].max_wall, Some(1440));
        assert_eq!(
            q.lacking,
            [
                "GrpJobs",
                "GrpTRES",
                "MaxJobsPU",
                "MaxJobsPA",
                "MaxTRESPU",
                "MaxTRESPA",
                "MaxTRES",
                "MaxTRESPerNode"
            ]
        );
        let full = QosList::parse(&format!("Name|{}\n", LIMIT_COLUMNS.join("|")), "q").unwrap();
        assert!(full.lacking.is_empty());
    }

    /// Slurm 22.05's default `sacctmgr show qos -P` (the columns and titles of the module
    /// docs; `UsageFactor` `print_fields_double`'s `%f`, `GraceTime` `00:00:00`).
    #[test]
    fn the_default_columns_read() {
        let text = "Name|Priority|GraceTime|Preempt|PreemptExemptTime|PreemptMode|Flags|\
                    UsageThres|UsageFactor|GrpTRES|GrpTRESMins|GrpTRESRunMins|GrpJobs|GrpSubmit|\
                    GrpWall|MaxTRES|MaxTRESPerNode|MaxTRESMins|MaxWall|MaxTRESPU|MaxJobsPU|\
                    MaxSubmitPU|MaxTRESPA|MaxJobsPA|MaxSubmitPA|MinTRES\n\
                    normal|0|00:00:00|||cluster|||1.000000|||||||||||||||||\n\
                    gpu|100|00:00:00|||cluster|DenyOnLimit,OverPartQOS||1.000000|\
                    cpu=64,gres/gpu=8|||10|||cpu=32|gres/gpu=4||1-00:00:00|cpu=16|2|||3||\n";
        let q = QosList::parse(text, "qos.txt").unwrap();
        let normal = q.get("normal").unwrap();
        assert_eq!(normal.grp_jobs, None);
        assert!(normal.max_tres.is_empty() && !normal.over_part_qos);
        let gpu = q.get("gpu").unwrap();
        assert_eq!(gpu.line, 3);
        assert!(gpu.over_part_qos);
        assert_eq!(gpu.grp_tres["gres/gpu"], 8);
        assert_eq!(gpu.grp_jobs, Some(10));
        assert_eq!(gpu.max_tres["cpu"], 32);
        assert_eq!(gpu.max_tres_per_node["gres/gpu"], 4);
        assert_eq!(gpu.max_wall, Some(1440));
        assert_eq!(gpu.max_tres_per_user["cpu"], 16);
        assert_eq!(gpu.max_jobs_per_user, Some(2));
        assert_eq!(gpu.max_jobs_per_account, Some(3));
        assert_eq!(q.priorities()["gpu"], 100);
        let e = QosList::parse("Name|MaxJobsPU\nx|lots\n", "qos.txt").unwrap_err();
        assert_eq!(e.to_string(), "qos.txt:2: MaxJobsPU `lots` is not a count");
    }
}
