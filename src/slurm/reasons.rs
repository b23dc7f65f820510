//! The pending reasons `squeue` prints (`%r`, `state_reason`), in plain words: squeue(1)'s
//! "JOB REASON CODES" and, for the limits, the names `acct_policy.c` gives
//! (`WAIT_ASSOC_GRP_CPU` is `AssocGrpCpuLimit`: `src/common/slurm_protocol_defs.c`,
//! `job_state_reason_string`).

/// A limit a reason names: whose (association or QOS), which kind (`Grp` totals, `Max` per
/// job/user/account) and what it counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitReason {
    /// `association` or `QOS`.
    pub level: &'static str,
    /// `Grp...` (the sum over the association's or QOS's jobs) or `Max...`.
    pub group: bool,
    /// What it limits, as written (`Cpu`, `Jobs`, `Wall`, `CpuMinutes`, `NodePerUser`...).
    pub what: String,
}

/// Whether a reason is a limit (`AssocGrpCpuLimit`, `QOSMaxJobsPerUserLimit`, ...), and
/// which.
pub fn limit(reason: &str) -> Option<LimitReason> {
    let (level, rest) = if let Some(r) = reason.strip_prefix("Assoc") {
        ("association", r)
    } else if let Some(r) = reason.strip_prefix("QOS") {
        ("QOS", r)
    } else {
        return None;
    };
    let rest = rest.strip_suffix("Limit")?;
    let (group, what) = if let Some(w) = rest.strip_prefix("Grp") {
        (true, w)
    } else if let Some(w) = rest.strip_prefix("Max") {
        (false, w)
    } else {
        return None;
    };
    Some(LimitReason {
        level,
        group,
        what: what.to_string(),
    })
}

/// A reason in plain words, `None` for one not listed here.
pub fn plain(reason: &str) -> Option<String> {
    if let Some(l) = limit(reason) {
        let what = match l.what.as_str() {
            "Cpu" => "CPUs in use".to_string(),
            "Mem" => "memory in use".to_string(),
            "Node" => "nodes in use".to_string(),
            "Jobs" => "running jobs".to_string(),
            "SubmitJobs" => "jobs submitted".to_string(),
            "Wall" => "time limit".to_string(),
            "CpuMinutes" | "CpuRunMinutes" => "CPU-minutes".to_string(),
            other => other.to_string(),
        };
        return Some(format!(
            "a limit: the {}'s {} on {what} is reached; the job waits until the {}'s usage \
             falls below it",
            l.level,
            if l.group {
                "group limit (Grp)"
            } else {
                "per-job/user limit (Max)"
            },
            l.level
        ));
    }
    Some(
        match reason {
            "Priority" => "one or more higher-priority jobs of its partition are ahead of it",
            "Resources" => "it waits for resources to become free",
            "Dependency" => "it waits for a job it depends on",
            "DependencyNeverSatisfied" => "a job it depends on failed: it can never start",
            "BeginTime" => "its earliest start time has not come",
            "JobHeldUser" => "held by its user (scontrol release)",
            "JobHeldAdmin" => "held by an administrator",
            "ReqNodeNotAvail" => "a node it needs is down, drained or reserved",
            "PartitionDown" => "its partition is down",
            "PartitionInactive" => "its partition is inactive",
            "PartitionNodeLimit" => "it asks more nodes than its partition allows",
            "PartitionTimeLimit" => "its time limit exceeds its partition's",
            "Reservation" => "it waits for its advance reservation",
            "NodeDown" => "a node it needs is down",
            "BadConstraints" => "its constraints cannot be satisfied",
            "Licenses" => "it waits for a license",
            _ => return None,
        }
        .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_reasons_read_their_level_kind_and_counter() {
        let l = limit("AssocGrpCpuLimit").unwrap();
        assert_eq!(
            (l.level, l.group, l.what.as_str()),
            ("association", true, "Cpu")
        );
        let l = limit("QOSMaxJobsPerUserLimit").unwrap();
        assert_eq!(
            (l.level, l.group, l.what.as_str()),
            ("QOS", false, "JobsPerUser")
        );
        assert_eq!(limit("Priority"), None);
        assert_eq!(limit("PartitionTimeLimit"), None);
        assert!(plain("AssocMaxJobsLimit").unwrap().contains("running jobs"));
        assert_eq!(plain("Whatever"), None);
    }
}
