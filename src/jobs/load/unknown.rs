//! Fields no formula reads: PBS job attributes are known and skipped; anything else is
//! reported once per name, with the closest known name.

use crate::catalog::Catalog;
use crate::formula::sema::suggest;

/// A field no formula can read (usually a misspelling): where it first appears, in how many
/// jobs, and the closest known name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownField {
    /// The field as written, with its `Resource_List.` / `resources.` prefix if any.
    pub field: String,
    /// `file: $[0].ncpu`, `file:3` or `file:2: column `walltme``.
    pub location: String,
    /// Jobs that have it.
    pub jobs: usize,
    /// The closest keyword, resource or identity field, when one is close.
    pub suggestion: Option<String>,
}

impl std::fmt::Display for UnknownField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: `{}` is no PBS keyword, resource or job attribute and is not read",
            self.location, self.field
        )?;
        if self.jobs > 1 {
            write!(f, " ({} jobs have it)", self.jobs)?;
        }
        match &self.suggestion {
            Some(s) => write!(f, "; did you mean `{s}`?"),
            None => write!(f, " (declare a custom resource with --resource NAME:TYPE)"),
        }
    }
}

/// PBS job attributes (`qstat -f`, `src/include/pbs_ifl.h`) that are not formula values:
/// read as nothing, without a warning.
pub(super) const PBS_JOB_ATTRIBUTES: &str = "\
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

/// The identity fields a job file may carry (besides keywords and resources).
const IDENTITY_FIELDS: &[&str] = &["id", "user", "group", "account", "queue", "submit"];

/// The unknown fields of a file, one entry per name.
#[derive(Default)]
pub(in crate::jobs) struct Unknown {
    pub(in crate::jobs) fields: Vec<UnknownField>,
}

impl Unknown {
    /// Count `field` (as written) of one job; `location` is computed on first sight.
    pub(super) fn record(
        &mut self,
        field: &str,
        bare: &str,
        location: impl FnOnce() -> String,
        catalog: &Catalog,
    ) {
        if let Some(f) = self.fields.iter_mut().find(|f| f.field == field) {
            f.jobs += 1;
            return;
        }
        let known = catalog.names().chain(IDENTITY_FIELDS.iter().copied());
        self.fields.push(UnknownField {
            field: field.to_string(),
            location: location(),
            jobs: 1,
            suggestion: suggest(bare, known).map(str::to_string),
        });
    }
}
