//! The job field table: the names every job-bearing format's readers map into, so a field
//! means one thing in `rank`, `eval` and `sim` alike (the job files of `jobs::load` and the
//! JSON/CSV job lists of `workload`). Values are in formula units: seconds, kilobytes
//! (`units` reads PBS's `HH:MM:SS` and `4gb` forms).
//!
//! | what | spellings |
//! |---|---|
//! | job id | [`ID`] |
//! | user | [`USER`], else the user part of [`OWNER`] (`user@host`) |
//! | group, account, queue, QOS | [`GROUP`], [`ACCOUNT`], [`QUEUE`], [`QOS`] |
//! | submission order / time (s) | [`SUBMIT`] or [`QUEUE_RANK`], else [`QTIME`] (a number or a ctime stamp) |
//! | resources | flat, or under one of [`RESOURCE_LISTS`] (CSV: `Resource_List.ncpus`) |
//! | a trace's run time, recorded start, processors, nodes, cores per node | [`TRACE`] |
//! | PBS job attributes that are no formula value | [`PBS_JOB_ATTRIBUTES`]: read as nothing |
//!
//! A flat field that is none of these, no PBS keyword and no PBS job attribute is a custom
//! resource when its value is a number (`"gpu_hours": 5`), in every reader.
//!
//! A keyword's or a known resource's value must be in its [`domain`]: the range `check`
//! analyses a formula over (the catalog's, one definition for both), whole where the
//! scheduler keeps an integer. A reader refuses a value outside it ([`check_value`]), so what
//! `check` proves of a formula holds for every job read.

use crate::catalog::{Catalog, Keyword, ResourceType};

/// A job's id.
pub const ID: [&str; 4] = ["id", "Job_Id", "job_id", "jobid"];
/// A job's user (`euser`: qstat's effective user).
pub const USER: [&str; 2] = ["user", "euser"];
/// `user@host`, whose user part is the user when no [`USER`] field is given.
pub const OWNER: &str = "Job_Owner";
/// A job's group.
pub const GROUP: [&str; 2] = ["group", "egroup"];
/// A job's account (`Account_Name`: qstat's).
pub const ACCOUNT: [&str; 2] = ["account", "Account_Name"];
/// A job's queue.
pub const QUEUE: [&str; 1] = ["queue"];
/// A job's QOS (Slurm).
pub const QOS: [&str; 1] = ["qos"];
/// A job's submission order or time.
pub const SUBMIT: [&str; 2] = ["submit", "qrank"];
/// `qstat -f -F json`'s `queue_rank` (as root): the `qrank` PBS's scheduler breaks ties with
/// (milliseconds at queueing). A job file's submission order, as [`SUBMIT`]; a PBS job
/// attribute the simulator does not read (its submission time is [`SUBMIT`] or [`QTIME`]).
pub const QUEUE_RANK: &str = "queue_rank";
/// qstat's queue time, a number or a ctime stamp: the submission time when no [`SUBMIT`].
pub const QTIME: &str = "qtime";
/// What a trace's job adds (the JSON job list's, `sim --trace`): its run time and recorded
/// start (s), and its shape as processors, nodes and cores per node. No formula reads them
/// under these names (`ncpus`, `nodect` and `walltime` are the resources).
pub const TRACE: [&str; 5] = ["run", "start", "procs", "nnodes", "ncores"];
/// The objects (and CSV column prefixes) that hold a job's resources.
pub const RESOURCE_LISTS: [&str; 2] = ["resources", "Resource_List"];

/// Whether `name` is a field of the table that is no formula value: a trace's ([`TRACE`]) or
/// the QOS ([`QOS`]).
pub fn is_trace_field(name: &str) -> bool {
    TRACE.contains(&name) || QOS.contains(&name)
}

/// Whether `name` is a PBS job attribute that is no formula value ([`PBS_JOB_ATTRIBUTES`]).
pub fn is_pbs_job_attribute(name: &str) -> bool {
    PBS_JOB_ATTRIBUTES.split_whitespace().any(|a| a == name)
}

/// PBS job attributes (`qstat -f`, `src/include/pbs_ifl.h`) that are not formula values:
/// read as nothing, without a warning.
pub const PBS_JOB_ATTRIBUTES: &str = "\
    Account_Name accounting_id accrue_type alt_id argument_list array array_id array_index \
    array_indices_remaining array_indices_submitted array_state_count block Checkpoint \
    comment create_resv_from_job credential_id credential_validity ctime depend egroup \
    eligible_time Error_Path estimated etime euser exec_host exec_vnode Executable \
    executable Execution_Time Exit_status forward_x11_cookie forward_x11_port group_list \
    hashname Hold_Types history_timestamp interactive jobdir Job_Name Job_Owner \
    job_kill_delay job_state Join_Path Keep_Files Mail_Points Mail_Users max_run_subjobs \
    mtime obittime Output_Path Priority project pset qtime queue queue_rank queue_type \
    release_nodes_on_stageout Remove_Files Rerunable resources_used run_count run_version \
    sandbox schedselect security_context server server_instance_id session_id \
    Shell_Path_List Stagein Stageout stime Submit_arguments Submit_Host substate \
    tolerate_node_failures topjob topjob_ineligible umask User_List Variable_List";

/// The values a job field may hold: from `min` to `max`, whole numbers only when `whole`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Domain {
    pub min: f64,
    pub max: f64,
    pub whole: bool,
}

/// The domain of the field `name` (a keyword, or a resource `catalog` knows), `None` for a
/// field without one (a custom resource no catalog declares). The ranges are the catalog's
/// ([`Keyword::domain`], [`crate::catalog::ResourceDef::domain`]), which `check`'s hazard
/// analysis assumes. Whole numbers: PBS's priorities (OpenPBS `verify_datatype_long` and
/// `verify_value_priority`, `src/lib/Libecl/ecl_verify_values.c`: `qsub -p`/`qalter -p`
/// take -1024..1023), the accrual state (`enum accrue_types`, `src/include/pbs_internal.h`:
/// 0..4), and resources of type `long`.
pub fn domain(name: &str, catalog: &Catalog) -> Option<Domain> {
    if let Some(k) = Keyword::from_name(name) {
        let (min, max) = k.domain();
        let whole = matches!(
            k,
            Keyword::JobPriority | Keyword::QueuePriority | Keyword::AccrueType
        );
        return Some(Domain { min, max, whole });
    }
    let r = catalog.resource(name)?;
    Some(Domain {
        min: r.domain.0,
        max: r.domain.1,
        whole: r.ty == ResourceType::Long,
    })
}

/// `v`, when it is in the [`domain`] of the field `name`; else what is wrong, naming the field.
pub fn check_value(name: &str, v: f64, catalog: &Catalog) -> Result<f64, String> {
    let Some(d) = domain(name, catalog) else {
        return Ok(v);
    };
    if !(d.min..=d.max).contains(&v) {
        let range = match (d.min.is_finite(), d.max.is_finite()) {
            (true, true) => format!("from {} to {}", d.min, d.max),
            (true, false) => format!("at least {}", d.min),
            (false, true) => format!("at most {}", d.max),
            (false, false) => "finite".to_string(),
        };
        return Err(format!("{name} {v} is out of range: it is {range}"));
    }
    if d.whole && v.fract() != 0.0 {
        return Err(format!("{name} {v} is not a whole number"));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_outside_a_fields_domain_are_refused_with_its_name() {
        let pbs = Catalog::pbs();
        assert_eq!(check_value("job_priority", 1023.0, &pbs), Ok(1023.0));
        assert_eq!(
            check_value("job_priority", 5000.0, &pbs).unwrap_err(),
            "job_priority 5000 is out of range: it is from -1024 to 1023"
        );
        assert_eq!(
            check_value("accrue_type", 0.5, &pbs).unwrap_err(),
            "accrue_type 0.5 is not a whole number"
        );
        assert_eq!(
            check_value("ncpus", -999999999999.0, &pbs).unwrap_err(),
            "ncpus -999999999999 is out of range: it is at least 0"
        );
        assert_eq!(check_value("mem", 1.5, &pbs), Ok(1.5));
        assert_eq!(check_value("gpu_hours", -5.0, &pbs), Ok(-5.0), "undeclared");
        // The hazard analysis assumes the same ranges.
        assert_eq!(
            domain("job_priority", &pbs).map(|d| (d.min, d.max)),
            Some(Keyword::JobPriority.domain())
        );
    }
}
