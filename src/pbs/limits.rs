//! OpenPBS's limits on running jobs as [`Limits`]: the caps pbs_sched checks before it runs a
//! job, each running job's draws on them, and each waiting job's draws in pbs_sched's check
//! order, read from a snapshot's `qmgr -c 'print server'` output ([`pbs_limits`]).
//!
//! Everything here follows OpenPBS's scheduler (`src/scheduler/limits.cpp`, `check.cpp`,
//! `job_info.cpp`, `server_info.cpp`, `queue_info.cpp`) and the server code that keeps the
//! limit attributes consistent (`src/server/svr_func.c`, `src/lib/Libutil/entlim.c`).
//!
//! # What is a cap
//!
//! * **New-style limits** at server and queue level: `max_run` (running jobs) and
//!   `max_run_res.RES` (a resource summed over running jobs), each a list of entries
//!   `[o:PBS_ALL=N]`, `[u:PBS_GENERIC=N]`, `[u:name=N]`, `[g:PBS_GENERIC=N]`, `[g:name=N]`,
//!   `[p:PBS_GENERIC=N]`, `[p:name=N]` (`entlim.c`, `entlim_parse_one`). A generic entry is
//!   one cap per user (group, project): what each may hold. An individual entry replaces the
//!   generic one for that entity, even when it is larger (`limits.cpp`,
//!   `check_server_max_user_run` and the others: "ignore a generic limit").
//! * **Old-style limits**, which pbs_sched still enforces by reading them as the new-style
//!   entries they stand for (`limits.cpp`, `old2new[]`, `lim_setoldlimits`): `max_running` is
//!   `[o:PBS_ALL=N]`, `max_user_run` `[u:PBS_GENERIC=N]`, `max_group_run`
//!   `[g:PBS_GENERIC=N]`, `max_user_res.RES` and `max_group_res.RES` the generic user and
//!   group entries of `max_run_res.RES`; at server and queue level alike. Their reasons are
//!   the new-style generic ones. PBS refuses to set old-style and new-style limits at the
//!   same time anywhere on a server (`svr_func.c`, `action_entlim_chk` and `check_no_entlim`,
//!   `PBSE_MIXENTLIMS`): qmgr output with both is an error here too.
//! * What counts: a server cap counts every running job, a queue cap the running jobs of
//!   that queue (`server_info.cpp` / `queue_info.cpp` fill `user_counts`, `group_counts`,
//!   `project_counts`, `alljobcounts` from `running_jobs`); a job count draws 1, a resource
//!   cap the job's job-wide amount (its `Resource_List`, `update_counts_on_run`): here
//!   [`RunningJob::total`] and [`Ask::total`], and the walltime fields for `walltime`. A job
//!   whose request lacks the resource does not draw on its caps (`find_resource_req` returns
//!   nothing and the check moves on); a zero amount is taken as not asked. A job counts by its
//!   `euser`, `egroup` and `project`; a job without a project is in PBS's default project
//!   `_pbs_project_default`, which PBS gives every job that names none.
//! * When a cap holds a job: a job count cap when the running jobs already hold the limit
//!   (`max <= used`), a resource cap when `used + asked > max` — both
//!   [`Limits::blocking`]'s `used + amount > limit`.
//!
//! # Reasons and order
//!
//! A cap's reason is the comment pbs_sched writes on a job it holds: `"Not Running: "`
//! (`constant.h`, `NOT_RUN_PREFIX`, added by `translate_fail_code` for a `NOT_RUN` status,
//! which `check_limits` always sets) and the `fc_translation_table` text of the error code
//! (`job_info.cpp`, `fctt[]`) with the arguments `translate_fail_code` puts in — see
//! [`reason`]. A waiting job's draws are in `check_limits`' order (`limits.cpp`,
//! `limfuncs[]`): every running-job count before any resource, and within each, queue group,
//! queue project, queue overall, queue user, then the same four at server level; within one
//! resource check, the limited resources in the order pbs_sched first met them (`limres`:
//! server attributes before queue attributes, here by their line in the qmgr output).
//!
//! A waiting job that asks more than a cap allows with nothing else running can never run
//! under it: it is an `Err(`[`Never`]`)` with that cap's reason (pbs_sched keeps writing the
//! same "Not Running" comment: `check_limits` gives every failing limit the `NOT_RUN` status,
//! and `check.cpp`, `is_ok_to_run`, never turns it into "Can Never Run").
//!
//! # What makes no cap
//!
//! * Soft limits (`max_run_soft`, `max_run_res_soft.RES`, `max_user_run_soft`,
//!   `max_group_run_soft`, `max_user_res_soft.RES`, `max_group_res_soft.RES`): pbs_sched does
//!   not hold a job for them; they only mark the jobs of an entity over its soft limit as
//!   preemptible (`limits.cpp`, `check_soft_limits`, `softlimfuncs[]`, which set preempt
//!   bits). Their values are still checked: a malformed one is an error.
//! * `max_queued`, `max_queued_res.RES`, `queued_jobs_threshold`,
//!   `queued_jobs_threshold_res.RES`, `max_queuable`: pbs_sched never reads them (no limit
//!   function in `limits.cpp` knows them); pbs_server enforces them when a job is submitted
//!   or moved into the queue (`svr_func.c`, `check_entity_ct_limit_max`,
//!   `check_entity_ct_limit_queued`, `check_entity_resc_limit_max`,
//!   `check_entity_resc_limit_queued` reject the job with `PBSE_ENTLIMCT` /
//!   `PBSE_ENTLIMRESC`). A job that is queued has passed them; they hold no queued job.
//!
//! # Errors
//!
//! [`PbsLimitError`], at the limit's qmgr line: a malformed value (`[u:alice=two]`, a
//! missing `[`, `o:` with a name other than `PBS_ALL`, a negative value, an entity given twice
//! — each refused by PBS too, `attr_fn_entlim.c`, `decode_entlim`: `PBSE_BADATVAL`), a limit
//! on a non-numeric resource (`PBSE_INVALJOBRESC`), old- and new-style limits together, a
//! hard limit on a resource the snapshot does not record per job (`nodect`, `cput`,
//! `mpiprocs`...), or a job without the user, group or queue a limit counts it by. No limit
//! is dropped silently.
//!
//! Differences from pbs_sched, known and small: the snapshot's running jobs include exiting
//! (`E`) jobs, which pbs_sched no longer counts (`check_run_job` takes `is_running`); a
//! running job's resources are what its `exec_vnode` holds, which is its `Resource_List`
//! for the resources a `select` asks, but misses job-wide-only (server-level) custom
//! resources, which the snapshot does not record.
//!
//! [`RunningJob::total`]: crate::model::snapshot::RunningJob::total
//! [`Ask::total`]: crate::model::snapshot::Ask::total

use super::Origin;
use super::qmgr::{Attributes, Qmgr};
use super::snapshot::PbsSnapshot;
use crate::catalog::ResourceType;
use crate::input::units::{parse_size, parse_time};
use crate::model::limits::{Cap, Draw, Limits, Never};
use crate::model::snapshot::Snapshot;
use std::collections::{BTreeMap, HashMap};

/// The comment prefix of a job pbs_sched did not run this cycle (`constant.h`,
/// `NOT_RUN_PREFIX`, joined with ": " by `job_info.cpp`, `translate_fail_code`).
pub const NOT_RUNNING: &str = "Not Running: ";

/// The project PBS gives a job that names none (`project = _pbs_project_default` in
/// `qstat -f`).
pub const DEFAULT_PROJECT: &str = "_pbs_project_default";

/// A limit that cannot be read, or a job a limit cannot count: where (the qmgr line of the
/// limit) and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: {message}")]
pub struct PbsLimitError {
    pub origin: Origin,
    pub message: String,
}

fn error(origin: &Origin, message: impl Into<String>) -> PbsLimitError {
    PbsLimitError {
        origin: origin.clone(),
        message: message.into(),
    }
}

/// Who a limit entry counts: `u:`, `g:`, `p:` or `o:` (`entlim.c`, `entlim_parse_one`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    User,
    Group,
    Project,
    Overall,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::User => "user",
            Kind::Group => "group",
            Kind::Project => "project",
            Kind::Overall => "all",
        }
    }
}

/// Where a limit is set.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Server,
    Queue(String),
}

/// What a limit counts: running jobs, or a resource summed over them.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Counted {
    Jobs,
    Resource(String),
}

/// The comment pbs_sched writes on a job a hard limit holds, exactly (`job_info.cpp`,
/// `fctt[]` and `translate_fail_code`, with the arguments `limits.cpp` sets through
/// `schderr_args_q`, `schderr_args_q_res`, `schderr_args_server`, `schderr_args_server_res`
/// and `err->rdef`). `entity` is the user, group or project; `individual` says whether the
/// entry that applies names it (`[u:alice=2]`) or is the generic one (`[u:PBS_GENERIC=2]`),
/// whose texts name no one.
///
/// | error code (`constant.h`) | set by (`limits.cpp`) | comment after "Not Running: " |
/// |---|---|---|
/// | `SERVER_JOB_LIMIT_REACHED` | `check_server_max_run` | `Server job limit has been reached.` |
/// | `QUEUE_JOB_LIMIT_REACHED` | `check_queue_max_run` | `Queue Q job limit has been reached.` |
/// | `SERVER_USER_LIMIT_REACHED` | `check_server_max_user_run` | `User has reached server running job limit.` |
/// | `QUEUE_USER_LIMIT_REACHED` | `check_queue_max_user_run` | `User has reached queue Q running job limit.` |
/// | `SERVER_GROUP_LIMIT_REACHED` | `check_server_max_group_run` | `Group has reached server running limit.` |
/// | `QUEUE_GROUP_LIMIT_REACHED` | `check_queue_max_group_run` | `Group has reached queue Q running limit.` |
/// | `SERVER_PROJECT_LIMIT_REACHED` | `check_server_max_project_run` | `Project has reached server running limit.` |
/// | `QUEUE_PROJECT_LIMIT_REACHED` | `check_queue_max_project_run` | `Project has reached queue Q's running limit.` |
/// | `SERVER_BYUSER_JOB_LIMIT_REACHED` | `check_server_max_user_run` | `Server job limit reached for user U` |
/// | `QUEUE_BYUSER_JOB_LIMIT_REACHED` | `check_queue_max_user_run` | `Queue Q job limit reached for user U` |
/// | (`BYGROUP`, `BYPROJECT` alike) | | `... for group G`, `... for project P` |
/// | `SERVER_RESOURCE_LIMIT_REACHED` | `check_server_max_res` | `would exceed overall limit on resource R in complex` |
/// | `QUEUE_RESOURCE_LIMIT_REACHED` | `check_queue_max_res` | `would exceed overall limit on resource R in queue Q` |
/// | `SERVER_USER_RES_LIMIT_REACHED` | `check_server_max_user_res` | `Server per-user limit reached on resource R` |
/// | `QUEUE_USER_RES_LIMIT_REACHED` | `check_queue_max_user_res` | `Queue Q per-user limit reached on resource R` |
/// | (`GROUP`, `PROJECT` alike) | | `per-group`, `per-project` |
/// | `SERVER_BYUSER_RES_LIMIT_REACHED` | `check_server_max_user_res` | `would exceed user U's limit on resource R in complex` |
/// | `QUEUE_BYUSER_RES_LIMIT_REACHED` | `check_queue_max_user_res` | `would exceed user U's limit on resource R in queue Q` |
/// | (`BYGROUP`, `BYPROJECT` alike) | | `group G's`, `project P's` |
pub fn reason(
    level: &Level,
    kind: Kind,
    counted: &Counted,
    entity: &str,
    individual: bool,
) -> String {
    let text = match (counted, level, kind) {
        (Counted::Jobs, Level::Server, Kind::Overall) => {
            "Server job limit has been reached.".into()
        }
        (Counted::Jobs, Level::Queue(q), Kind::Overall) => {
            format!("Queue {q} job limit has been reached.")
        }
        (Counted::Jobs, Level::Server, k) if individual => {
            format!("Server job limit reached for {} {entity}", k.word())
        }
        (Counted::Jobs, Level::Queue(q), k) if individual => {
            format!("Queue {q} job limit reached for {} {entity}", k.word())
        }
        (Counted::Jobs, Level::Server, Kind::User) => {
            "User has reached server running job limit.".into()
        }
        (Counted::Jobs, Level::Queue(q), Kind::User) => {
            format!("User has reached queue {q} running job limit.")
        }
        (Counted::Jobs, Level::Server, Kind::Group) => {
            "Group has reached server running limit.".into()
        }
        (Counted::Jobs, Level::Queue(q), Kind::Group) => {
            format!("Group has reached queue {q} running limit.")
        }
        (Counted::Jobs, Level::Server, Kind::Project) => {
            "Project has reached server running limit.".into()
        }
        (Counted::Jobs, Level::Queue(q), Kind::Project) => {
            format!("Project has reached queue {q}'s running limit.")
        }
        (Counted::Resource(r), Level::Server, Kind::Overall) => {
            format!("would exceed overall limit on resource {r} in complex")
        }
        (Counted::Resource(r), Level::Queue(q), Kind::Overall) => {
            format!("would exceed overall limit on resource {r} in queue {q}")
        }
        (Counted::Resource(r), Level::Server, k) if individual => {
            format!(
                "would exceed {} {entity}'s limit on resource {r} in complex",
                k.word()
            )
        }
        (Counted::Resource(r), Level::Queue(q), k) if individual => {
            format!(
                "would exceed {} {entity}'s limit on resource {r} in queue {q}",
                k.word()
            )
        }
        (Counted::Resource(r), Level::Server, k) => {
            format!("Server per-{} limit reached on resource {r}", k.word())
        }
        (Counted::Resource(r), Level::Queue(q), k) => {
            format!("Queue {q} per-{} limit reached on resource {r}", k.word())
        }
    };
    format!("{NOT_RUNNING}{text}")
}

/// One scope, kind and counted thing of `check_limits`' table (`limits.cpp`, `limfuncs[]`),
/// in its order.
const CHECK_ORDER: [(bool, Kind, bool); 16] = {
    // (queue level?, kind, resource?)
    use Kind::*;
    [
        (true, Group, false),    // check_queue_max_group_run
        (true, Project, false),  // check_queue_max_project_run
        (true, Overall, false),  // check_queue_max_run
        (true, User, false),     // check_queue_max_user_run
        (false, Group, false),   // check_server_max_group_run
        (false, Project, false), // check_server_max_project_run
        (false, Overall, false), // check_server_max_run
        (false, User, false),    // check_server_max_user_run
        (true, Group, true),     // check_queue_max_group_res
        (true, Project, true),   // check_queue_max_project_res
        (true, Overall, true),   // check_queue_max_res
        (true, User, true),      // check_queue_max_user_res
        (false, Group, true),    // check_server_max_group_res
        (false, Project, true),  // check_server_max_project_res
        (false, Overall, true),  // check_server_max_res
        (false, User, true),     // check_server_max_user_res
    ]
};

/// One limit entry as set: its value (jobs; a resource in the snapshot's units: KB for
/// sizes, seconds for times) and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    value: u64,
    origin: Origin,
    /// The setting as written, for plain words: `max_run [u:PBS_GENERIC=2]`,
    /// `max_user_run = 2`.
    source: String,
}

/// The entries of one kind and counted thing at one level.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Slot {
    /// `[u:PBS_GENERIC=N]` (and `[o:PBS_ALL=N]` for the overall kind).
    generic: Option<Entry>,
    /// `[u:name=N]`.
    named: BTreeMap<String, Entry>,
}

/// A level's hard limits.
type LevelLimits = BTreeMap<(Kind, Counted), Slot>;

/// The hard limits of a site: server, each queue, and the limited resources in the order
/// pbs_sched meets them (`limres`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct LimitSet {
    server: LevelLimits,
    queues: BTreeMap<String, LevelLimits>,
    resources: Vec<String>,
    /// Where each resource's first limit is, for errors about the resource.
    resource_origin: HashMap<String, Origin>,
}

impl LimitSet {
    fn is_empty(&self) -> bool {
        self.server.is_empty() && self.queues.values().all(|q| q.is_empty())
    }

    /// Where a hard limit on resource `r` is set, if one is.
    fn hard_origin(&self, r: &str) -> Option<&Origin> {
        std::iter::once(&self.server)
            .chain(self.queues.values())
            .flat_map(|l| l.iter())
            .filter(|((_, c), _)| matches!(c, Counted::Resource(x) if x == r))
            .find_map(|(_, slot)| first_origin(slot))
    }
}

/// The attributes PBS will not set together (`svr_func.c`, `svr_oldstyle[]`,
/// `svr_newstyle[]`, `que_oldstyle[]`, `que_newstyle[]`).
const SERVER_OLD: [&str; 9] = [
    "max_running",
    "max_user_run",
    "max_group_run",
    "max_user_res",
    "max_group_res",
    "max_user_run_soft",
    "max_group_run_soft",
    "max_user_res_soft",
    "max_group_res_soft",
];
const SERVER_NEW: [&str; 4] = ["max_run", "max_run_res", "max_run_soft", "max_run_res_soft"];
const QUEUE_OLD: [&str; 10] = [
    "max_queuable",
    "max_running",
    "max_user_run",
    "max_group_run",
    "max_user_res",
    "max_group_res",
    "max_user_run_soft",
    "max_group_run_soft",
    "max_user_res_soft",
    "max_group_res_soft",
];
const QUEUE_NEW: [&str; 6] = [
    "max_queued",
    "queued_jobs_threshold",
    "max_run",
    "max_run_res",
    "max_run_soft",
    "max_run_res_soft",
];

/// An attribute name without its resource: `max_run_res.ncpus` → `max_run_res`.
fn base(attr: &str) -> &str {
    attr.split_once('.').map_or(attr, |(b, _)| b)
}

fn line(o: &Origin) -> usize {
    match o {
        Origin::File { line, .. } => *line,
        _ => 0,
    }
}

/// The attributes of one object in the order of their lines.
fn by_line(attrs: &Attributes) -> Vec<(&String, &super::Setting<String>)> {
    let mut v: Vec<_> = attrs.iter().collect();
    v.sort_by_key(|(_, s)| line(&s.origin));
    v
}

/// PBS's refusal to mix old- and new-style limits anywhere on a server.
fn check_mixing(q: &Qmgr) -> Result<(), PbsLimitError> {
    let mut old: Option<(String, Origin)> = None;
    let mut new: Option<(String, Origin)> = None;
    let mut note = |attrs: &Attributes, olds: &[&str], news: &[&str], what: &str| {
        for (name, s) in by_line(attrs) {
            let b = base(name);
            let slot = if olds.contains(&b) {
                &mut old
            } else if news.contains(&b) {
                &mut new
            } else {
                continue;
            };
            if slot.as_ref().is_none_or(|(_, o)| line(&s.origin) < line(o)) {
                *slot = Some((format!("{what} {name}"), s.origin.clone()));
            }
        }
    };
    note(&q.server, &SERVER_OLD, &SERVER_NEW, "server");
    for (name, attrs) in &q.queues {
        note(attrs, &QUEUE_OLD, &QUEUE_NEW, &format!("queue {name}"));
    }
    if let (Some((o, o_at)), Some((n, n_at))) = (old, new) {
        // The later line is the one PBS would have refused.
        let (this, at, other, other_at) = if line(&n_at) >= line(&o_at) {
            (n, n_at, o, o_at)
        } else {
            (o, o_at, n, n_at)
        };
        return Err(error(
            &at,
            format!(
                "{this} and {other} (at {other_at}) mix new-style and old-style limits: PBS \
                 refuses to set both kinds on one server (PBSE_MIXENTLIMS; svr_func.c, \
                 action_entlim_chk and check_no_entlim); unset one kind"
            ),
        ));
    }
    Ok(())
}

/// How a limit's values are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ValueKind {
    /// Whole numbers: job counts, `long` resources.
    Whole,
    /// `float` resources: whole numbers here (the snapshot counts whole units).
    Float,
    /// Sizes, in KB.
    Size,
    /// Times, in seconds.
    Time,
}

/// A PBS built-in resource's type (`src/server/master_resc_def_all.xml`); `None` for one
/// PBS does not define.
fn builtin_type(name: &str) -> Option<ResourceType> {
    use ResourceType::*;
    Some(match name {
        "ncpus" | "ngpus" | "nodect" | "mpiprocs" | "ompthreads" | "nice" | "naccelerators"
        | "nchunk" => Long,
        "mem" | "vmem" | "pmem" | "pvmem" | "file" | "accelerator_memory" => Size,
        "walltime" | "cput" | "pcput" | "min_walltime" | "max_walltime" | "soft_walltime" => Time,
        "accelerator" => Boolean,
        "arch" | "host" | "vnode" | "aoe" | "eoe" | "place" | "select" | "nodes" | "software"
        | "site" | "accelerator_model" | "exec_vnode" | "preempt_targets" | "partition" => String,
        _ => return None,
    })
}

/// Resources PBS keeps in every job's `Resource_List` that the snapshot does not record per
/// job: a limit on one cannot be counted.
const NOT_RECORDED: [&str; 8] = [
    "nodect",
    "cput",
    "pcput",
    "min_walltime",
    "max_walltime",
    "soft_walltime",
    "mpiprocs",
    "ompthreads",
];

fn value_kind(
    q: &Qmgr,
    resource: &str,
    attr: &str,
    origin: &Origin,
) -> Result<ValueKind, PbsLimitError> {
    let ty = q
        .resources
        .get(resource)
        .map(|s| s.value)
        .or_else(|| builtin_type(resource))
        .unwrap_or(ResourceType::Long);
    Ok(match ty {
        ResourceType::Long => ValueKind::Whole,
        ResourceType::Float => ValueKind::Float,
        ResourceType::Size => ValueKind::Size,
        ResourceType::Time => ValueKind::Time,
        other => {
            return Err(error(
                origin,
                format!(
                    "{attr}: resource {resource} is of type {}, and PBS limits only numeric \
                     resources (long, float, size, time; attr_fn_entlim.c \
                     decode_entlim_res: PBSE_INVALJOBRESC)",
                    other.name()
                ),
            ));
        }
    })
}

fn parse_value(text: &str, kind: ValueKind) -> Result<u64, String> {
    let t = text.trim();
    match kind {
        ValueKind::Whole => t
            .parse::<u64>()
            .map_err(|_| format!("`{t}` is not a whole number")),
        ValueKind::Float => match t.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 && v.fract() == 0.0 => Ok(v as u64),
            Ok(v) if v.is_finite() && v >= 0.0 => Err(format!(
                "`{t}` is not a whole number (jobsort counts whole units of a float resource)"
            )),
            _ => Err(format!("`{t}` is not a number")),
        },
        ValueKind::Size => parse_size(t).map(|kb| kb.ceil() as u64),
        ValueKind::Time => parse_time(t).map(|s| s.ceil() as u64),
    }
}

/// Who one entry names.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Who {
    /// `PBS_GENERIC` (`u:`, `g:`, `p:`) or `PBS_ALL` (`o:`).
    Generic,
    Named(String),
}

/// One `[k:name=value]` of a limit value, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RawEntry {
    kind: Kind,
    who: Who,
    value: String,
    text: String,
}

/// Characters an entity name may not hold (`pbs_entlim.h`, `ETLIM_INVALIDCHAR`).
const INVALID_NAME_CHARS: &str = "/[]\";:|<>+,?*";

/// Parse a new-style limit value, `[u:PBS_GENERIC=10],[u:alice=2]`, as `entlim.c` does
/// (`entlim_parse`, `entlim_parse_one`, `etlim_validate_name`): entries separated by commas,
/// blanks allowed around the parts, an entity name quoted when it holds blanks; `o:` names
/// only `PBS_ALL`, the others never; a value present and not negative.
fn parse_entries(value: &str) -> Result<Vec<RawEntry>, String> {
    let pieces: Vec<&str> = value.split(',').map(str::trim).collect();
    let mut out = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        if piece.is_empty() {
            if i + 1 == pieces.len() && i > 0 {
                continue; // a trailing comma, as PBS's parse_comma_string_r allows
            }
            return Err("an empty entry (expected `[u:name=value]`)".into());
        }
        out.push(parse_entry(piece)?);
    }
    if out.is_empty() {
        return Err("no entry (expected `[u:name=value]`)".into());
    }
    Ok(out)
}

fn parse_entry(piece: &str) -> Result<RawEntry, String> {
    let bad = |what: &str| format!("`{piece}`: {what} (expected `[u:name=value]`)");
    let inner = piece
        .strip_prefix('[')
        .ok_or_else(|| bad("no opening `[`"))?
        .strip_suffix(']')
        .ok_or_else(|| bad("no closing `]`"))?
        .trim_start();
    let mut chars = inner.chars();
    let kind = match chars.next() {
        Some('u') => Kind::User,
        Some('g') => Kind::Group,
        Some('p') => Kind::Project,
        Some('o') => Kind::Overall,
        _ => return Err(bad("the entity type is not u, g, p or o")),
    };
    let rest = chars.as_str();
    let rest = rest
        .strip_prefix(':')
        .ok_or_else(|| bad("no `:` right after the entity type"))?;
    if rest.is_empty() || rest.starts_with(char::is_whitespace) {
        return Err(bad("no entity name after the `:`"));
    }
    let (name, after) = match rest.chars().next() {
        Some(q @ ('"' | '\'')) => {
            let body = &rest[1..];
            let end = body.find(q).ok_or_else(|| bad("an unclosed quote"))?;
            (&body[..end], &body[end + 1..])
        }
        _ => {
            let end = rest
                .find(|c: char| c == '=' || c.is_whitespace())
                .unwrap_or(rest.len());
            (&rest[..end], &rest[end..])
        }
    };
    let after = after.trim_start();
    let value = after
        .strip_prefix('=')
        .ok_or_else(|| bad("no `=value`"))?
        .trim();
    if value.is_empty() {
        return Err(bad("no value after the `=`"));
    }
    if value.starts_with('-') {
        return Err(bad("a negative value"));
    }
    if value.contains(char::is_whitespace) {
        return Err(bad("a blank inside the value"));
    }
    let who = match (kind, name) {
        (Kind::Overall, "PBS_ALL") => Who::Generic,
        (Kind::Overall, _) => return Err(bad("`o:` takes only the name PBS_ALL")),
        (_, "PBS_ALL") => return Err(bad("PBS_ALL is only for `o:`")),
        (_, "PBS_GENERIC") => Who::Generic,
        (_, n) if n.contains(|c| INVALID_NAME_CHARS.contains(c)) => {
            return Err(bad(&format!(
                "the entity name `{n}` holds one of {INVALID_NAME_CHARS}"
            )));
        }
        (_, n) => Who::Named(n.to_string()),
    };
    Ok(RawEntry {
        kind,
        who,
        value: value.to_string(),
        text: piece.to_string(),
    })
}

/// What an attribute is, for the limits: new-style (`max_run`, `max_run_res.R`: entries)
/// or old-style (`max_running`, `max_user_run`, `max_group_run`, `max_user_res.R`,
/// `max_group_res.R`: one value for the generic entry it stands for, `old2new[]`), hard or
/// `_soft`.
struct Attr<'a> {
    /// The entity kind an old-style attribute stands for; `None` for a new-style one.
    old: Option<Kind>,
    resource: Option<&'a str>,
    hard: bool,
}

/// The limit attribute `attr` is, if it is one; an error for a resource limit without its
/// resource (`max_run_res`) or a count limit with one (`max_run.ncpus`).
fn classify(attr: &str) -> Result<Option<Attr<'_>>, String> {
    let (b, resource) = match attr.split_once('.') {
        Some((b, r)) => (b, Some(r)),
        None => (attr, None),
    };
    let old = match b {
        "max_run" | "max_run_soft" | "max_run_res" | "max_run_res_soft" => None,
        "max_running" => Some(Kind::Overall),
        "max_user_run" | "max_user_run_soft" | "max_user_res" | "max_user_res_soft" => {
            Some(Kind::User)
        }
        "max_group_run" | "max_group_run_soft" | "max_group_res" | "max_group_res_soft" => {
            Some(Kind::Group)
        }
        _ => return Ok(None),
    };
    let per_resource = b.contains("_res");
    match (per_resource, resource) {
        (true, None) => Err(format!(
            "{attr} names no resource (a resource limit is set as `{b}.ncpus`)"
        )),
        (false, Some(r)) => Err(format!("{b} counts jobs and takes no resource (`.{r}`)")),
        _ => Ok(Some(Attr {
            old,
            resource,
            hard: !b.ends_with("_soft"),
        })),
    }
}

/// Read the hard limits of a qmgr output (see the module docs).
fn read_limits(q: &Qmgr) -> Result<LimitSet, PbsLimitError> {
    check_mixing(q)?;
    let mut set = LimitSet::default();
    read_level(q, &q.server, &mut set, None)?;
    // pbs_sched reads the server, then the queues in the server's order (the order qmgr
    // prints them): here, by their first line.
    let mut queues: Vec<_> = q.queues.iter().collect();
    queues.sort_by_key(|(_, attrs)| attrs.values().map(|s| line(&s.origin)).min());
    for (name, attrs) in queues {
        read_level(q, attrs, &mut set, Some(name))?;
    }
    Ok(set)
}

fn read_level(
    q: &Qmgr,
    attrs: &Attributes,
    set: &mut LimitSet,
    queue: Option<&String>,
) -> Result<(), PbsLimitError> {
    let mut level = LevelLimits::new();
    for (attr, s) in by_line(attrs) {
        let class = match classify(attr) {
            Ok(Some(c)) => c,
            Ok(None) => continue,
            Err(m) => return Err(error(&s.origin, m)),
        };
        let origin = &s.origin;
        let bad = |m: String| error(origin, format!("{attr} = {}: {m}", s.value));
        let resource = class.resource;
        let kind_of_value = match resource {
            None => ValueKind::Whole,
            Some(r) => {
                if !set.resources.iter().any(|x| x == r) {
                    set.resources.push(r.to_string());
                    set.resource_origin.insert(r.to_string(), origin.clone());
                }
                value_kind(q, r, attr, origin)?
            }
        };
        let counted = resource.map_or(Counted::Jobs, |r| Counted::Resource(r.to_string()));
        let entries: Vec<(Kind, Who, u64, String)> = match class.old {
            None => {
                let raw = parse_entries(&s.value).map_err(bad)?;
                let mut seen: Vec<(Kind, &Who)> = Vec::new();
                for e in &raw {
                    if seen.contains(&(e.kind, &e.who)) {
                        return Err(bad(format!(
                            "`{}` repeats an entity already given (PBS refuses duplicate \
                             entries)",
                            e.text
                        )));
                    }
                    seen.push((e.kind, &e.who));
                }
                raw.iter()
                    .map(|e| {
                        parse_value(&e.value, kind_of_value)
                            .map(|v| (e.kind, e.who.clone(), v, format!("{attr} {}", e.text)))
                            .map_err(|m| bad(format!("`{}`: {m}", e.text)))
                    })
                    .collect::<Result<_, _>>()?
            }
            Some(kind) => {
                let v = parse_value(&s.value, kind_of_value).map_err(bad)?;
                vec![(
                    kind,
                    Who::Generic,
                    v,
                    format!("{attr} = {}", s.value.trim()),
                )]
            }
        };
        if !class.hard {
            continue; // soft limits make no caps (module docs)
        }
        for (kind, who, value, source) in entries {
            let slot = level.entry((kind, counted.clone())).or_default();
            let entry = Entry {
                value,
                origin: origin.clone(),
                source,
            };
            let taken = match who {
                Who::Generic => slot.generic.replace(entry).is_some(),
                Who::Named(n) => slot.named.insert(n, entry).is_some(),
            };
            if taken {
                return Err(bad("another limit attribute sets the same entry".into()));
            }
        }
    }
    match queue {
        None => set.server = level,
        Some(name) => {
            set.queues.insert(name.clone(), level);
        }
    }
    Ok(())
}

/// A job as the limits see it.
struct JobView<'a> {
    id: &'a str,
    user: Option<&'a str>,
    group: Option<&'a str>,
    project: &'a str,
    queue: Option<&'a str>,
    /// The job's amount of each limited resource, in [`LimitSet::resources`] order.
    amounts: Vec<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct CapKey {
    level: Level,
    kind: Kind,
    counted: Counted,
    entity: String,
    individual: bool,
}

struct Builder<'a> {
    set: &'a LimitSet,
    caps: Vec<Cap>,
    /// What each cap counts and how its amounts read, for plain words.
    counts: Vec<(Counted, ValueKind)>,
    index: HashMap<CapKey, usize>,
}

fn amount_text(counted: &Counted, kind: ValueKind, v: u64) -> String {
    match counted {
        Counted::Jobs => {
            if v == 1 {
                "1 job".into()
            } else {
                format!("{v} jobs")
            }
        }
        Counted::Resource(r) => {
            let n = match kind {
                ValueKind::Size => {
                    let units = [
                        (1u64 << 40, "pb"),
                        (1 << 30, "tb"),
                        (1 << 20, "gb"),
                        (1 << 10, "mb"),
                    ];
                    units
                        .iter()
                        .find(|(u, _)| v >= *u && v.is_multiple_of(*u))
                        .map_or(format!("{v}kb"), |(u, name)| format!("{}{name}", v / u))
                }
                ValueKind::Time => format!("{:02}:{:02}:{:02}", v / 3600, v / 60 % 60, v % 60),
                _ => v.to_string(),
            };
            format!("{n} {r}")
        }
    }
}

impl Builder<'_> {
    fn cap(&mut self, key: CapKey, entry: &Entry, kind: ValueKind) -> usize {
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let r = reason(
            &key.level,
            key.kind,
            &key.counted,
            &key.entity,
            key.individual,
        );
        let at = match &key.level {
            Level::Server => "the server".to_string(),
            Level::Queue(q) => format!("queue {q}"),
        };
        let amount = amount_text(&key.counted, kind, entry.value);
        let who = format!("{} {}", key.kind.word(), key.entity);
        let plain = match (&key.counted, key.kind) {
            (Counted::Jobs, Kind::Overall) => format!("{at} runs at most {amount} at once"),
            (Counted::Jobs, _) => {
                let place = match &key.level {
                    Level::Server => "on the server".to_string(),
                    Level::Queue(q) => format!("in queue {q}"),
                };
                format!("{who} may run {amount} at once {place}")
            }
            (Counted::Resource(_), Kind::Overall) => {
                format!("{at} allows {amount} of running jobs in all")
            }
            (Counted::Resource(_), _) => format!("{at} allows {who} {amount} of running jobs"),
        };
        let generic = if key.kind != Kind::Overall && !key.individual {
            format!(", the limit of each {}", key.kind.word())
        } else {
            String::new()
        };
        self.caps.push(Cap {
            reason: r,
            plain: format!("{plain} ({}{generic}; {})", entry.source, entry.origin),
            limit: entry.value,
        });
        self.counts.push((key.counted.clone(), kind));
        self.index.insert(key, self.caps.len() - 1);
        self.caps.len() - 1
    }

    /// A job's draws in `check_limits`' order.
    fn draws(&mut self, job: &JobView, kinds: &[ValueKind]) -> Result<Vec<Draw>, PbsLimitError> {
        let set = self.set;
        let mut out = Vec::new();
        for &(at_queue, kind, by_resource) in &CHECK_ORDER {
            let (level, limits) = if at_queue {
                let Some(q) = job.queue else {
                    if let Some(origin) = set
                        .queues
                        .values()
                        .flat_map(|l| l.values())
                        .find_map(first_origin)
                    {
                        return Err(error(
                            origin,
                            format!("job {} has no queue, and queues have limits", job.id),
                        ));
                    }
                    continue;
                };
                match set.queues.get(q) {
                    Some(l) => (Level::Queue(q.to_string()), l),
                    None => continue,
                }
            } else {
                (Level::Server, &set.server)
            };
            let resources: Vec<(usize, Counted)> = if by_resource {
                set.resources
                    .iter()
                    .enumerate()
                    .map(|(i, r)| (i, Counted::Resource(r.clone())))
                    .collect()
            } else {
                vec![(usize::MAX, Counted::Jobs)]
            };
            for (ri, counted) in resources {
                let Some(slot) = limits.get(&(kind, counted.clone())) else {
                    continue;
                };
                let amount = if ri == usize::MAX { 1 } else { job.amounts[ri] };
                if amount == 0 {
                    continue; // not asked: PBS's find_resource_req finds nothing
                }
                let entity = match kind {
                    Kind::Overall => "PBS_ALL",
                    Kind::User | Kind::Group => {
                        let e = if kind == Kind::User {
                            job.user
                        } else {
                            job.group
                        };
                        match e {
                            Some(e) => e,
                            None => {
                                // A slot has an entry; without one the error names no line.
                                let origin = first_origin(slot).cloned().unwrap_or(Origin::Default);
                                return Err(error(
                                    &origin,
                                    format!(
                                        "job {} has no {} (qstat's euser/Job_Owner, egroup), \
                                         and this limit counts by {}",
                                        job.id,
                                        kind.word(),
                                        kind.word()
                                    ),
                                ));
                            }
                        }
                    }
                    Kind::Project => job.project,
                };
                let (entry, individual) = match slot.named.get(entity) {
                    Some(e) if kind != Kind::Overall => (e, true),
                    _ => match &slot.generic {
                        Some(g) => (g, false),
                        None => continue,
                    },
                };
                let key = CapKey {
                    level: level.clone(),
                    kind,
                    counted: counted.clone(),
                    entity: entity.to_string(),
                    individual,
                };
                let vk = if ri == usize::MAX {
                    ValueKind::Whole
                } else {
                    kinds[ri]
                };
                let cap = self.cap(key, entry, vk);
                out.push(Draw { cap, amount });
            }
        }
        Ok(out)
    }
}

fn first_origin(slot: &Slot) -> Option<&Origin> {
    slot.generic
        .as_ref()
        .map(|e| &e.origin)
        .or_else(|| slot.named.values().next().map(|e| &e.origin))
}

/// The limits of a PBS snapshot: its `qmgr.txt`'s hard limits over its running and waiting
/// jobs (module docs). A snapshot without qmgr output has unknown limits.
pub fn pbs_limits(snap: &PbsSnapshot) -> Result<Limits, PbsLimitError> {
    limits_for(&snap.snapshot, snap.site.qmgr.as_ref())
}

/// [`pbs_limits`] of a snapshot and a site's qmgr output given apart.
pub fn limits_for(snapshot: &Snapshot, qmgr: Option<&Qmgr>) -> Result<Limits, PbsLimitError> {
    let none = || Limits::none(snapshot.running.len(), snapshot.pending.len());
    // Without the server's settings the limits are unknown, not absent.
    let Some(q) = qmgr else {
        return Ok(Limits::unknown(
            snapshot.running.len(),
            snapshot.pending.len(),
        ));
    };
    let set = read_limits(q)?;
    if set.is_empty() {
        return Ok(none());
    }
    // Where each limited resource is in a job.
    enum Source {
        Index(usize),
        Walltime,
        Absent,
    }
    let mut sources = Vec::new();
    let mut kinds = Vec::new();
    for r in &set.resources {
        kinds.push(value_kind(q, r, r, &set.resource_origin[r])?);
        let hard = set.hard_origin(r);
        sources.push(match hard {
            // A resource only soft limits name: no cap counts it.
            None => Source::Absent,
            Some(origin) if NOT_RECORDED.contains(&r.as_str()) => {
                return Err(error(
                    origin,
                    format!(
                        "a limit on {r}: the snapshot does not record each job's {r} \
                         (qstat's Resource_List.{r}), so it cannot be counted"
                    ),
                ));
            }
            Some(_) => match snapshot.resources.iter().position(|x| x == r) {
                Some(i) => Source::Index(i),
                None if r == "walltime" => Source::Walltime,
                // No job of the snapshot asks for it: no job draws on its caps.
                None => Source::Absent,
            },
        });
    }
    let amount = |src: &Source, total: &dyn Fn(usize) -> u64, walltime: Option<i64>| match src {
        Source::Index(i) => total(*i),
        Source::Walltime => walltime.map_or(0, |w| w.max(0) as u64),
        Source::Absent => 0,
    };
    let mut b = Builder {
        set: &set,
        caps: Vec::new(),
        counts: Vec::new(),
        index: HashMap::new(),
    };
    let mut running = Vec::with_capacity(snapshot.running.len());
    for j in &snapshot.running {
        let total = |i: usize| j.total.get(i).copied().unwrap_or(0);
        let view = JobView {
            id: &j.id,
            user: j.user.as_deref(),
            group: j.group.as_deref(),
            project: j.project.as_deref().unwrap_or(DEFAULT_PROJECT),
            queue: j.queue.as_deref(),
            amounts: sources
                .iter()
                .map(|s| amount(s, &total, j.walltime))
                .collect(),
        };
        running.push(b.draws(&view, &kinds)?);
    }
    let mut pending = Vec::with_capacity(snapshot.pending.len());
    for j in &snapshot.pending {
        let total = |i: usize| j.ask.total(i);
        let view = JobView {
            id: &j.id,
            user: j.user.as_deref(),
            group: j.group.as_deref(),
            project: j.project.as_deref().unwrap_or(DEFAULT_PROJECT),
            queue: j.queue.first().map(String::as_str),
            amounts: sources
                .iter()
                .map(|s| amount(s, &total, j.walltime))
                .collect(),
        };
        let draws = b.draws(&view, &kinds)?;
        let never = draws.iter().find(|d| d.amount > b.caps[d.cap].limit);
        pending.push(match never {
            None => Ok(draws),
            Some(d) => {
                let cap = &b.caps[d.cap];
                let (counted, kind) = &b.counts[d.cap];
                Err(Never {
                    reason: cap.reason.clone(),
                    plain: format!(
                        "asks {} by itself; {}",
                        amount_text(counted, *kind, d.amount),
                        cap.plain
                    ),
                })
            }
        });
    }
    // A job counts toward every limit it is checked against.
    let started = pending
        .iter()
        .map(|d| d.as_ref().map_or_else(|_| Vec::new(), Vec::clone))
        .collect();
    Ok(Limits {
        caps: b.caps,
        running,
        pending,
        started,
        known: true,
    })
}

#[cfg(test)]
mod tests {
    //! Small queues worked by hand: in each, one limit and only it holds the job looked at.
    //! Reasons are `job_info.cpp`'s `fctt[]` texts through `translate_fail_code`, with the
    //! `"Not Running: "` prefix (`constant.h`, `NOT_RUN_PREFIX`).

    use super::*;
    use crate::model::place::Place;
    use crate::model::snapshot::{Ask, PendingJob, RunningJob, Scheduler};
    use crate::pbs::parse_qmgr;

    const GB: u64 = 1 << 20; // in KB

    /// A job: id, user, group, project, queue, ncpus, mem (KB).
    type J<'a> = (&'a str, &'a str, &'a str, &'a str, &'a str, u64, u64);

    fn running(j: J) -> RunningJob {
        RunningJob {
            id: j.0.into(),
            user: Some(j.1.into()),
            group: Some(j.2.into()),
            account: None,
            project: Some(j.3.into()),
            qos: None,
            queue: Some(j.4.into()),
            start: 0,
            walltime: Some(3600),
            held: Vec::new(),
            total: vec![j.5, j.6, 0],
            elapsed: None,
        }
    }

    fn waiting(j: J) -> PendingJob {
        PendingJob {
            id: j.0.into(),
            user: Some(j.1.into()),
            group: Some(j.2.into()),
            account: None,
            project: Some(j.3.into()),
            qos: None,
            queue: vec![j.4.into()],
            submit: None,
            walltime: Some(3600),
            ask: Ask {
                parts: vec![(1, vec![j.5, j.6, 0])],
                place: Place::default(),
            },
            priority: None,
            reason: None,
            hold: None,
        }
    }

    fn snapshot(run: &[J], wait: &[J]) -> Snapshot {
        let mut s = Snapshot::new(Scheduler::Pbs);
        s.running = run.iter().copied().map(running).collect();
        s.pending = wait.iter().copied().map(waiting).collect();
        s
    }

    fn limits(qmgr: &str, run: &[J], wait: &[J]) -> Result<Limits, PbsLimitError> {
        let q = parse_qmgr(qmgr, "qmgr").unwrap();
        limits_for(&snapshot(run, wait), Some(&q))
    }

    /// The reason pbs_sched gives waiting job `i` now: its first full cap in check order.
    fn held(l: &Limits, i: usize) -> Option<String> {
        let used = l.usage();
        match &l.pending[i] {
            Ok(d) => l.blocking(d, &used).map(|c| l.caps[c].reason.clone()),
            Err(n) => Some(format!("never: {}", n.reason)),
        }
    }

    const QUEUES: &str = "create queue workq\nset queue workq queue_type = Execution\n\
                          create queue long\nset queue long queue_type = Execution\n";

    /// `limits.cpp`, `check_server_max_run`: `[o:PBS_ALL=2]` on the server counts every
    /// running job, in any queue; `SERVER_JOB_LIMIT_REACHED`.
    #[test]
    fn server_overall_job_count() {
        let q = format!("{QUEUES}set server max_run = [o:PBS_ALL=2]\n");
        let run = [
            ("1", "alice", "phys", "p1", "workq", 1, 0),
            ("2", "bob", "chem", "p2", "long", 1, 0),
        ];
        let l = limits(&q, &run, &[("3", "carol", "bio", "p3", "workq", 1, 0)]).unwrap();
        assert_eq!(
            held(&l, 0).as_deref(),
            Some("Not Running: Server job limit has been reached.")
        );
        assert_eq!(l.caps.len(), 1);
        assert_eq!(
            l.caps[0].plain,
            "the server runs at most 2 jobs at once (max_run [o:PBS_ALL=2]; qmgr:5)"
        );
        // One job fewer and it runs.
        let l = limits(&q, &run[..1], &[("3", "carol", "bio", "p3", "workq", 1, 0)]).unwrap();
        assert_eq!(held(&l, 0), None);
    }

    /// `limits.cpp`, `check_queue_max_run`: a queue's `[o:PBS_ALL=1]` counts only that
    /// queue's running jobs; `QUEUE_JOB_LIMIT_REACHED` "Queue %s job limit has been reached."
    #[test]
    fn queue_overall_counts_its_queue_only() {
        let q = format!("{QUEUES}set queue workq max_run = [o:PBS_ALL=1]\n");
        let run = [("1", "alice", "phys", "p1", "long", 1, 0)];
        let wait = [
            ("2", "bob", "chem", "p2", "workq", 1, 0),
            ("3", "bob", "chem", "p2", "long", 1, 0),
        ];
        let l = limits(&q, &run, &wait).unwrap();
        assert_eq!(held(&l, 0), None, "the running job is in another queue");
        let run = [("1", "alice", "phys", "p1", "workq", 1, 0)];
        let l = limits(&q, &run, &wait).unwrap();
        assert_eq!(
            held(&l, 0).as_deref(),
            Some("Not Running: Queue workq job limit has been reached.")
        );
        assert_eq!(held(&l, 1), None, "queue long has no limit");
        assert_eq!(l.pending[1], Ok(vec![]));
    }

    /// `limits.cpp`, `check_server_max_user_run`: `[u:PBS_GENERIC=1]` is one cap per user;
    /// `SERVER_USER_LIMIT_REACHED` "User has reached server running job limit." (the text a
    /// PTL test of OpenPBS expects, `pbs_multi_sched.py`).
    #[test]
    fn generic_user_limit_is_one_cap_per_user() {
        let q = format!("{QUEUES}set server max_run = [u:PBS_GENERIC=1]\n");
        let run = [("1", "alice", "phys", "p1", "workq", 1, 0)];
        let wait = [
            ("2", "alice", "phys", "p1", "long", 1, 0),
            ("3", "bob", "phys", "p1", "workq", 1, 0),
        ];
        let l = limits(&q, &run, &wait).unwrap();
        assert_eq!(
            held(&l, 0).as_deref(),
            Some("Not Running: User has reached server running job limit.")
        );
        assert_eq!(held(&l, 1), None);
        let plains: Vec<&str> = l.caps.iter().map(|c| c.plain.as_str()).collect();
        assert_eq!(
            plains,
            [
                "user alice may run 1 job at once on the server (max_run [u:PBS_GENERIC=1], \
                 the limit of each user; qmgr:5)",
                "user bob may run 1 job at once on the server (max_run [u:PBS_GENERIC=1], \
                 the limit of each user; qmgr:5)",
            ]
        );
    }

    /// `limits.cpp`, `check_server_max_user_run`: an individual entry replaces the generic
    /// one for its user even when larger ("ignore a generic limit");
    /// `SERVER_BYUSER_JOB_LIMIT_REACHED` "Server job limit reached for user %s".
    #[test]
    fn individual_user_limit_overrides_generic() {
        let q = format!("{QUEUES}set server max_run = \"[u:PBS_GENERIC=1], [u:alice=3]\"\n");
        let two = [
            ("1", "alice", "phys", "p1", "workq", 1, 0),
            ("2", "alice", "phys", "p1", "workq", 1, 0),
            ("3", "bob", "phys", "p1", "workq", 1, 0),
        ];
        let wait = [
            ("4", "alice", "phys", "p1", "workq", 1, 0),
            ("5", "bob", "phys", "p1", "workq", 1, 0),
        ];
        let l = limits(&q, &two, &wait).unwrap();
        assert_eq!(held(&l, 0), None, "alice may run 3, not the generic 1");
        assert_eq!(
            held(&l, 1).as_deref(),
            Some("Not Running: User has reached server running job limit.")
        );
        let mut three = two.to_vec();
        three.push(("6", "alice", "phys", "p1", "long", 1, 0));
        let l = limits(&q, &three, &wait).unwrap();
        assert_eq!(
            held(&l, 0).as_deref(),
            Some("Not Running: Server job limit reached for user alice")
        );
        // qmgr's `+=` lines join into the same list.
        let q2 = format!(
            "{QUEUES}set server max_run = [u:PBS_GENERIC=1]\nset server max_run += [u:alice=3]\n"
        );
        assert_eq!(limits(&q2, &three, &wait).unwrap(), l);
    }

    /// `limits.cpp`, `check_queue_max_group_run`: group limits in a queue;
    /// `QUEUE_GROUP_LIMIT_REACHED` "Group has reached queue %s running limit." and
    /// `QUEUE_BYGROUP_JOB_LIMIT_REACHED` "Queue %s job limit reached for group %s".
    #[test]
    fn group_limits_in_a_queue() {
        let q = format!("{QUEUES}set queue workq max_run = \"[g:PBS_GENERIC=2],[g:chem=1]\"\n");
        let run = [
            ("1", "alice", "phys", "p1", "workq", 1, 0),
            ("2", "bob", "phys", "p1", "workq", 1, 0),
            ("3", "carol", "chem", "p1", "workq", 1, 0),
        ];
        let wait = [
            ("4", "dave", "phys", "p1", "workq", 1, 0),
            ("5", "erin", "chem", "p1", "workq", 1, 0),
            ("6", "fay", "bio", "p1", "workq", 1, 0),
        ];
        let l = limits(&q, &run, &wait).unwrap();
        assert_eq!(
            held(&l, 0).as_deref(),
            Some("Not Running: Group has reached queue workq running limit.")
        );
        assert_eq!(
            held(&l, 1).as_deref(),
            Some("Not Running: Queue workq job limit reached for group chem")
        );
        assert_eq!(held(&l, 2), None);
    }

    /// `limits.cpp`, `check_server_max_project_run` and `check_queue_max_project_run`:
    /// `SERVER_BYPROJECT_JOB_LIMIT_REACHED` "Server job limit reached for project %s" and
    /// `QUEUE_PROJECT_LIMIT_REACHED` "Project has reached queue %s's running limit.". A job
    /// without a project is in `_pbs_project_default`.
    #[test]
    fn project_limits() {
        let q = format!(
            "{QUEUES}set server max_run = [p:p1=1]\nset queue long max_run = [p:PBS_GENERIC=1]\n"
        );
        let run = [
            ("1", "alice", "phys", "p1", "workq", 1, 0),
            ("2", "bob", "phys", "p2", "long", 1, 0),
        ];
        let wait = [
            ("3", "carol", "chem", "p1", "workq", 1, 0),
            ("4", "dave", "chem", "p2", "long", 1, 0),
            ("5", "erin", "chem", "p3", "long", 1, 0),
        ];
        let l = limits(&q, &run, &wait).unwrap();
        assert_eq!(
            held(&l, 0).as_deref(),
            Some("Not Running: Server job limit reached for project p1")
        );
        assert_eq!(
            held(&l, 1).as_deref(),
            Some("Not Running: Project has reached queue long's running limit.")
        );
        assert_eq!(held(&l, 2), None);
        // No project: PBS's default one.
        let mut s = snapshot(&run, &[("6", "x", "y", "", "long", 1, 0)]);
        s.pending[0].project = None;
        s.running[1].project = None;
        let q = parse_qmgr(&q, "qmgr").unwrap();
        let l = limits_for(&s, Some(&q)).unwrap();
        assert_eq!(
            held(&l, 0).as_deref(),
            Some("Not Running: Project has reached queue long's running limit.")
        );
        assert!(
            l.caps
                .iter()
                .any(|c| c.plain.contains("_pbs_project_default"))
        );
    }

    /// `limits.cpp`, `check_queue_max_project_res` with an individual entry:
    /// `QUEUE_BYPROJECT_RES_LIMIT_REACHED` "would exceed project %s's limit on resource %s in
    /// queue %s" (arguments arg3, rdef, arg1 in `translate_fail_code`); a resource cap holds a
    /// job when `used + asked > max`.
    #[test]
    fn queue_project_ncpus() {
        let q = format!("{QUEUES}set queue workq max_run_res.ncpus = [p:p1=64]\n");
        let run = [("1", "alice", "phys", "p1", "workq", 48, 0)];
        let wait = [
            ("2", "bob", "phys", "p1", "workq", 17, 0),
            ("3", "bob", "phys", "p1", "workq", 16, 0),
            ("4", "bob", "phys", "p2", "workq", 17, 0),
        ];
        let l = limits(&q, &run, &wait).unwrap();
        assert_eq!(
            held(&l, 0).as_deref(),
            Some("Not Running: would exceed project p1's limit on resource ncpus in queue workq")
        );
        assert_eq!(
            held(&l, 1),
            None,
            "48 + 16 = 64 is at the limit, not over it"
        );
        assert_eq!(held(&l, 2), None);
        assert_eq!(
            l.caps[0].plain,
            "queue workq allows project p1 64 ncpus of running jobs \
             (max_run_res.ncpus [p:p1=64]; qmgr:5)"
        );
        assert_eq!(l.running[0], vec![Draw { cap: 0, amount: 48 }]);
    }

    /// `limits.cpp`, `check_server_max_res` and `check_server_max_user_res`:
    /// `SERVER_RESOURCE_LIMIT_REACHED` "would exceed overall limit on resource %s in complex"
    /// and `SERVER_USER_RES_LIMIT_REACHED` "Server per-user limit reached on resource %s".
    #[test]
    fn server_ncpus_overall_and_per_user() {
        let q = format!(
            "{QUEUES}set server max_run_res.ncpus = \"[o:PBS_ALL=100],[u:PBS_GENERIC=40]\"\n"
        );
        let run = [
            ("1", "alice", "phys", "p1", "workq", 32, 0),
            ("2", "bob", "phys", "p1", "long", 60, 0),
        ];
        let wait = [
            ("3", "alice", "phys", "p1", "long", 8, 0),
            ("4", "alice", "phys", "p1", "long", 9, 0),
            ("5", "carol", "phys", "p1", "long", 9, 0),
        ];
        let l = limits(&q, &run, &wait).unwrap();
        assert_eq!(held(&l, 0), None, "92 + 8 = 100 in all, 40 for alice");
        assert_eq!(
            held(&l, 1).as_deref(),
            Some("Not Running: would exceed overall limit on resource ncpus in complex")
        );
        assert_eq!(
            held(&l, 2).as_deref(),
            Some("Not Running: would exceed overall limit on resource ncpus in complex")
        );
        let l = limits(&q, &run[..1], &wait).unwrap();
        assert_eq!(
            held(&l, 1).as_deref(),
            Some("Not Running: Server per-user limit reached on resource ncpus")
        );
        assert_eq!(held(&l, 2), None);
    }

    /// `limits.cpp`, `check_queue_max_user_res` with sizes: the limit reads in KB as
    /// pbs_sched's `res_to_num` reads it; `QUEUE_USER_RES_LIMIT_REACHED` "Queue %s per-user
    /// limit reached on resource %s" (arg1, rdef).
    #[test]
    fn queue_user_mem_with_units() {
        let q = format!("{QUEUES}set queue workq max_run_res.mem = [u:PBS_GENERIC=8gb]\n");
        let run = [("1", "alice", "phys", "p1", "workq", 1, 6 * GB)];
        let wait = [
            ("2", "alice", "phys", "p1", "workq", 1, 4 * GB),
            ("3", "alice", "phys", "p1", "workq", 1, 2 * GB),
            ("4", "alice", "phys", "p1", "long", 1, 4 * GB),
        ];
        let l = limits(&q, &run, &wait).unwrap();
        assert_eq!(l.caps[0].limit, 8 * GB);
        assert_eq!(
            held(&l, 0).as_deref(),
            Some("Not Running: Queue workq per-user limit reached on resource mem")
        );
        assert_eq!(held(&l, 1), None);
        assert_eq!(held(&l, 2), None);
        assert_eq!(
            l.caps[0].plain,
            "queue workq allows user alice 8gb mem of running jobs \
             (max_run_res.mem [u:PBS_GENERIC=8gb], the limit of each user; qmgr:5)"
        );
        // An individual entry: QUEUE_BYUSER_RES_LIMIT_REACHED.
        let q = format!("{QUEUES}set queue workq max_run_res.mem = [u:alice=7gb]\n");
        let l = limits(&q, &run, &wait).unwrap();
        assert_eq!(
            held(&l, 1).as_deref(),
            Some("Not Running: would exceed user alice's limit on resource mem in queue workq")
        );
    }

    /// `limits.cpp`, `old2new[]` and `lim_setoldlimits`: `max_user_run` is
    /// `[u:PBS_GENERIC=N]`, `max_running` `[o:PBS_ALL=N]`, `max_group_res.R` the generic
    /// group entry of `max_run_res.R`; their reasons are the generic ones.
    #[test]
    fn old_style_limits() {
        let q = format!("{QUEUES}set server max_user_run = 1\n");
        let run = [("1", "alice", "phys", "p1", "workq", 4, 0)];
        let wait = [
            ("2", "alice", "phys", "p1", "long", 1, 0),
            ("3", "bob", "phys", "p1", "long", 1, 0),
        ];
        let l = limits(&q, &run, &wait).unwrap();
        assert_eq!(
            held(&l, 0).as_deref(),
            Some("Not Running: User has reached server running job limit.")
        );
        assert_eq!(held(&l, 1), None);
        assert_eq!(
            l.caps[0].plain,
            "user alice may run 1 job at once on the server (max_user_run = 1, the limit of \
             each user; qmgr:5)"
        );
        let q = format!("{QUEUES}set queue workq max_running = 1\n");
        let l = limits(&q, &run, &[("2", "bob", "chem", "p1", "workq", 1, 0)]).unwrap();
        assert_eq!(
            held(&l, 0).as_deref(),
            Some("Not Running: Queue workq job limit has been reached.")
        );
        let q = format!("{QUEUES}set server max_group_res.ncpus = 6\n");
        let l = limits(&q, &run, &[("2", "bob", "phys", "p1", "long", 3, 0)]).unwrap();
        assert_eq!(
            held(&l, 0).as_deref(),
            Some("Not Running: Server per-group limit reached on resource ncpus")
        );
    }

    /// `limits.cpp`, `limfuncs[]`: queue checks before server checks, every job count before
    /// any resource; the first full cap names the reason.
    #[test]
    fn draws_follow_check_limits_order() {
        let q = format!(
            "{QUEUES}set server max_run = [o:PBS_ALL=1]\n\
             set server max_run_res.ncpus = [o:PBS_ALL=4]\n\
             set queue workq max_run = [u:PBS_GENERIC=1]\n\
             set queue workq max_run_res.ncpus = [u:PBS_GENERIC=4]\n"
        );
        let run = [("1", "alice", "phys", "p1", "workq", 4, 0)];
        let l = limits(&q, &run, &[("2", "alice", "phys", "p1", "workq", 1, 0)]).unwrap();
        let reasons: Vec<&str> = l.pending[0]
            .as_ref()
            .unwrap()
            .iter()
            .map(|d| l.caps[d.cap].reason.as_str())
            .collect();
        assert_eq!(
            reasons,
            [
                "Not Running: User has reached queue workq running job limit.",
                "Not Running: Server job limit has been reached.",
                "Not Running: Queue workq per-user limit reached on resource ncpus",
                "Not Running: would exceed overall limit on resource ncpus in complex",
            ]
        );
        assert_eq!(
            held(&l, 0).as_deref(),
            Some("Not Running: User has reached queue workq running job limit.")
        );
    }

    /// A job that asks more than a cap allows with nothing running never runs under it;
    /// pbs_sched still writes the cap's "Not Running" comment (`check.cpp`, `is_ok_to_run`).
    #[test]
    fn a_job_bigger_than_its_cap_never_runs() {
        let q = format!("{QUEUES}set server max_run_res.ncpus = [u:PBS_GENERIC=64]\n");
        let l = limits(&q, &[], &[("1", "alice", "phys", "p1", "workq", 128, 0)]).unwrap();
        let n = l.pending[0].as_ref().unwrap_err();
        assert_eq!(
            n.reason,
            "Not Running: Server per-user limit reached on resource ncpus"
        );
        assert_eq!(
            n.plain,
            "asks 128 ncpus by itself; the server allows user alice 64 ncpus of running jobs \
             (max_run_res.ncpus [u:PBS_GENERIC=64], the limit of each user; qmgr:5)"
        );
    }

    /// Soft limits make no caps (`limits.cpp`, `check_soft_limits` only sets preempt bits),
    /// and neither do `max_queued` / `queued_jobs_threshold`, which pbs_server enforces at
    /// submission (`svr_func.c`, `check_entity_ct_limit_max`).
    #[test]
    fn soft_and_queued_limits_make_no_caps() {
        let q = format!(
            "{QUEUES}set server max_run_soft = [u:PBS_GENERIC=1]\n\
             set server max_run_res_soft.ncpus = [o:PBS_ALL=1]\n\
             set server max_run_res_soft.nodect = [o:PBS_ALL=1]\n\
             set server max_queued = [u:PBS_GENERIC=1]\n\
             set queue workq queued_jobs_threshold = [o:PBS_ALL=1]\n"
        );
        let run = [("1", "alice", "phys", "p1", "workq", 4, 0)];
        let l = limits(&q, &run, &[("2", "alice", "phys", "p1", "workq", 4, 0)]).unwrap();
        assert_eq!(l, Limits::none(1, 1));
        // A malformed soft value is still an error.
        let q = format!("{QUEUES}set server max_run_soft = [u:PBS_GENERIC=x]\n");
        assert!(limits(&q, &run, &[]).is_err());
    }

    /// A malformed value is an error at its line (PBS refuses it: `attr_fn_entlim.c`,
    /// `decode_entlim` → `PBSE_BADATVAL`; `entlim.c`, `entlim_parse_one`).
    #[test]
    fn malformed_limits_are_errors_at_their_line() {
        let err = |text: &str| {
            limits(&format!("{QUEUES}{text}\n"), &[], &[])
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err("set server max_run = [u:alice=two]"),
            "qmgr:5: max_run = [u:alice=two]: `[u:alice=two]`: `two` is not a whole number"
        );
        assert!(err("set server max_run = u:alice=2").contains("no opening `[`"));
        assert!(err("set server max_run = [x:alice=2]").contains("not u, g, p or o"));
        assert!(err("set server max_run = [o:alice=2]").contains("only the name PBS_ALL"));
        assert!(err("set server max_run = [u:PBS_ALL=2]").contains("only for `o:`"));
        assert!(err("set server max_run = [u:alice=-2]").contains("negative"));
        assert!(err("set server max_run = [u:alice]").contains("no `=value`"));
        assert!(err("set server max_run = \"[u:a=1],[u:a=2]\"").contains("repeats"));
        assert!(err("set queue workq max_run_res.mem = [o:PBS_ALL=lots]").starts_with("qmgr:5:"));
        assert!(err("set server max_user_run = many").contains("not a whole number"));
        assert!(err("set server max_run_res = [o:PBS_ALL=2]").contains("names no resource"));
        assert!(
            err("set server max_run_res.arch = [o:PBS_ALL=2]").contains("only numeric resources")
        );
        assert!(err("set server max_run_res.nodect = [o:PBS_ALL=2]").contains("does not record"));
        // Old- and new-style together: PBS refuses (PBSE_MIXENTLIMS).
        let e = err("set queue workq max_user_run = 2\nset server max_run = [u:PBS_GENERIC=2]");
        assert!(
            e.starts_with("qmgr:6: server max_run and queue workq max_user_run (at qmgr:5)"),
            "{e}"
        );
        // Quoted names with blanks read.
        let l = limits(
            &format!("{QUEUES}set server max_run = [u:\"ann lee\"=1]\n"),
            &[("1", "ann lee", "g", "p", "workq", 1, 0)],
            &[("2", "ann lee", "g", "p", "workq", 1, 0)],
        )
        .unwrap();
        assert_eq!(
            held(&l, 0).as_deref(),
            Some("Not Running: Server job limit reached for user ann lee")
        );
    }

    /// A snapshot folder through `read_pbs_snapshot`: `qmgr.txt` sets a server user limit,
    /// a queue's project ncpus limit and a queue's overall limit (`limits.cpp`,
    /// `check_server_max_user_run`, `check_queue_max_project_res`, `check_queue_max_run`).
    #[test]
    fn a_snapshot_folder_reads_with_its_limits() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/snapshot/pbs_limits");
        let snap = crate::pbs::snapshot::read_pbs_snapshot(&dir).unwrap();
        let l = pbs_limits(&snap).unwrap();
        let s = &snap.snapshot;
        let reason = |id: &str| {
            let i = s.pending.iter().position(|j| j.id == id).unwrap();
            held(&l, i)
        };
        assert_eq!(
            reason("301.srv").as_deref(),
            Some("Not Running: Server job limit reached for user ann")
        );
        assert_eq!(
            reason("302.srv").as_deref(),
            Some("Not Running: would exceed project chem's limit on resource ncpus in queue workq")
        );
        assert_eq!(
            reason("303.srv").as_deref(),
            Some("Not Running: Queue gpu job limit has been reached.")
        );
        assert_eq!(reason("304.srv"), None);
        assert_eq!(
            reason("305.srv").as_deref(),
            Some("Not Running: User has reached server running job limit.")
        );
        // What the running jobs hold of each cap.
        let used: Vec<(String, u64, u64)> = l
            .caps
            .iter()
            .zip(l.usage())
            .map(|(c, u)| (c.reason.clone(), u, c.limit))
            .collect();
        assert!(
            used.contains(&(
                "Not Running: would exceed project chem's limit on resource ncpus in queue workq"
                    .into(),
                24,
                32
            ))
        );
        assert!(used.contains(&(
            "Not Running: Server job limit reached for user ann".into(),
            2,
            2
        )));
    }
}
