//! The pending reasons `squeue` prints (`%r`, `state_reason`), in plain words: squeue(1)'s
//! "JOB REASON CODES" and, for the limits, the names `acct_policy.c` gives
//! (`WAIT_ASSOC_GRP_CPU` is `AssocGrpCpuLimit`: `job_reason_string` in
//! `src/common/slurm_protocol_defs.c`, `job_state_reason_string` in later Slurm's
//! `src/common/job_state_reason.c`). Not every limit's name ends in `Limit` (`AssocGrpGRES`,
//! `QOSMaxMemoryPerUser`), and the QOS per-account ones have no `QOS` in front
//! (`MaxJobsPerAccount`, `MaxCpuPerAccount`).

/// A limit a reason names: whose (association or QOS), which kind (`Grp` totals, `Max` per
/// job/user/account) and what it counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitReason {
    /// `association` or `QOS`.
    pub level: &'static str,
    /// `Grp...` (the sum over the association's or QOS's jobs) or `Max...`.
    pub group: bool,
    /// What it limits, as written (`Cpu`, `Jobs`, `Wall`, `CpuMinutes`, `NodePerUser`,
    /// `GRES`, `MemoryPerJob`...).
    pub what: String,
}

/// Whether a reason is a limit (`AssocGrpCpuLimit`, `QOSMaxJobsPerUserLimit`,
/// `AssocGrpGRES`, `MaxJobsPerAccount`, ...), and which.
pub fn limit(reason: &str) -> Option<LimitReason> {
    let (level, rest) = if let Some(r) = reason.strip_prefix("Assoc") {
        ("association", r)
    } else if let Some(r) = reason.strip_prefix("QOS") {
        ("QOS", r)
    } else if reason.starts_with("Max") && reason.ends_with("PerAccount") {
        // WAIT_QOS_MAX_*_PER_ACCT: a QOS's MaxTRESPA / MaxJobsPA.
        ("QOS", reason)
    } else {
        return None;
    };
    let rest = rest.strip_suffix("Limit").unwrap_or(rest);
    let (group, what) = if let Some(w) = rest.strip_prefix("Grp") {
        (true, w)
    } else if let Some(w) = rest.strip_prefix("Max") {
        (false, w)
    } else {
        return None;
    };
    if what.is_empty() {
        return None;
    }
    Some(LimitReason {
        level,
        group,
        what: what.to_string(),
    })
}

/// A TRES in plain words, as a count of it reads: `cpu` CPUs, `mem` memory, `node` nodes,
/// `billing` billing units, `gres/gpu` GPUs, `gres/NAME` NAME GRES.
pub fn tres_words(tres: &str) -> String {
    match tres {
        "cpu" => "CPUs".into(),
        "mem" => "memory".into(),
        "node" => "nodes".into(),
        "billing" => "billing units".into(),
        "energy" => "energy".into(),
        "gres/gpu" => "GPUs".into(),
        t => match t.strip_prefix("gres/") {
            Some(g) => format!("{g} GRES"),
            None => t.to_string(),
        },
    }
}

/// A limit reason's `what` in words and whether it holds each job alone (per job or per
/// node: the job waits for no other to end).
fn limit_words(what: &str) -> (String, bool) {
    let (thing, scope) = ["PerJob", "PerNode", "PerUser", "PerAccount"]
        .iter()
        .find_map(|s| what.strip_suffix(s).map(|t| (t, *s)))
        .unwrap_or((what, ""));
    let (thing, minutes) = match thing.strip_suffix("RunMinutes") {
        Some(t) => (t, " of running jobs' remaining minutes"),
        None => match thing.strip_suffix("Minutes") {
            Some(t) => (t, "-minutes"),
            None => (thing, ""),
        },
    };
    let noun = match thing {
        "Cpu" | "CPU" => tres_words("cpu"),
        "Mem" | "Memory" => tres_words("mem"),
        "Node" => tres_words("node"),
        "Billing" => tres_words("billing"),
        "Energy" => tres_words("energy"),
        "GRES" => "GRES".into(),
        "License" => "licenses".into(),
        "BB" => "burst buffer".into(),
        "Jobs" => "running jobs".into(),
        "SubmitJobs" | "SubmitJob" => "jobs submitted".into(),
        "Wall" | "WallDuration" => "time limit".into(),
        other => other.to_string(),
    };
    let scope_words = match scope {
        "PerJob" => " per job",
        "PerNode" => " per node",
        "PerUser" => " per user",
        "PerAccount" => " per account",
        _ => "",
    };
    let alone = matches!(scope, "PerJob" | "PerNode") && minutes.is_empty();
    (format!("{noun}{minutes}{scope_words}"), alone)
}

/// A reason in plain words, `None` for one not listed here.
pub fn plain(reason: &str) -> Option<String> {
    if let Some(l) = limit(reason) {
        let (what, alone) = limit_words(&l.what);
        if alone {
            return Some(format!(
                "a per-job limit: the job asks more than the {}'s limit on {what} allows; it \
                 cannot start unless the limit is raised",
                l.level
            ));
        }
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

    /// The names without `Limit` and the QOS per-account ones (`job_reason_string`) are
    /// limits too; a per-job one says it never clears by waiting.
    #[test]
    fn every_limit_name_squeue_prints_is_a_limit() {
        let l = limit("AssocGrpGRES").unwrap();
        assert_eq!(
            (l.level, l.group, l.what.as_str()),
            ("association", true, "GRES")
        );
        let l = limit("MaxJobsPerAccount").unwrap();
        assert_eq!(
            (l.level, l.group, l.what.as_str()),
            ("QOS", false, "JobsPerAccount")
        );
        let l = limit("QOSMaxMemoryPerUser").unwrap();
        assert_eq!(
            (l.level, l.group, l.what.as_str()),
            ("QOS", false, "MemoryPerUser")
        );
        assert_eq!(limit("MaxMemPerLimit"), None);
        assert_eq!(limit("QOSUsageThreshold"), None);
        assert!(
            plain("QOSMaxCpuPerUserLimit")
                .unwrap()
                .contains("on CPUs per user is reached")
        );
        assert!(plain("QOSMaxWallDurationPerJobLimit").unwrap().starts_with(
            "a per-job limit: the job asks more than the QOS's limit on time limit per job"
        ));
        assert!(
            plain("AssocGrpCpuLimit")
                .unwrap()
                .contains("on CPUs is reached")
        );
        assert_eq!(tres_words("gres/gpu"), "GPUs");
        assert_eq!(tres_words("gres/fpga"), "fpga GRES");
    }
}
