//! The association and QOS limits slurmctld enforces on running jobs, as [`Limits`] of a
//! snapshot: [`slurm_limits`].
//!
//! slurmctld checks a waiting job's limits when its scheduler tries it
//! (`src/slurmctld/acct_policy.c`): `acct_policy_job_runnable_pre_select` before picking
//! nodes, then `acct_policy_job_runnable_post_select` with the TRES of the nodes picked.
//! Each looks at the job's QOS first (`_qos_job_runnable_pre_select`,
//! `_qos_job_runnable_post_select`), then at its association and the association's
//! ancestors up to `root` (`assoc_ptr->usage->parent_assoc_ptr`). The first limit the job
//! would pass names the job's reason (`job_ptr->state_reason`), so a job's draws here are in
//! that order:
//!
//! | check | limit | reason (cpu / mem / node / billing / gres) | held by |
//! |---|---|---|---|
//! | QOS pre-select | `GrpJobs` | `QOSGrpJobsLimit` | a cap: the QOS's running jobs |
//! | | `MaxJobsPA` | `MaxJobsPerAccount` | a cap: the account's running jobs in the QOS |
//! | | `MaxJobsPU` | `QOSMaxJobsPerUserLimit` | a cap: the user's running jobs in the QOS |
//! | | `MaxWall` | `QOSMaxWallDurationPerJobLimit` | never: the job's time limit exceeds it |
//! | association pre-select, each level | `GrpJobs` | `AssocGrpJobsLimit` | a cap: the running jobs of the association's subtree |
//! | the job's own association | `MaxJobs` | `AssocMaxJobsLimit` | a cap: the association's running jobs |
//! | | `MaxWall` | `AssocMaxWallDurationPerJobLimit` | never |
//! | QOS post-select | `GrpTRES` | `QOSGrpCpuLimit` / `QOSGrpMemLimit` / `QOSGrpNodeLimit` / `QOSGrpBilling` / `QOSGrpGRES` | a cap: the QOS's running jobs' TRES (never when the job alone asks more) |
//! | | `MaxTRES` | `QOSMaxCpuPerJobLimit` / `QOSMaxMemoryPerJob` / `QOSMaxNodePerJobLimit` / `QOSMaxBillingPerJob` / `QOSMaxGRESPerJob` | never |
//! | | `MaxTRESPerNode` | `QOSMaxCpuPerNode` / `QOSMaxMemoryPerNode` / — / `QOSMaxBillingPerNode` / `QOSMaxGRESPerNode` | never |
//! | | `MaxTRESPA` | `MaxCpuPerAccount` / `MaxMemoryPerAccount` / `MaxNodePerAccount` / `MaxBillingPerAccount` / `MaxGRESPerAccount` | a cap: the account's running jobs' TRES in the QOS |
//! | | `MaxTRESPU` | `QOSMaxCpuPerUserLimit` / `QOSMaxMemoryPerUser` / `QOSMaxNodePerUserLimit` / `QOSMaxBillingPerUser` / `QOSMaxGRESPerUser` | a cap: the user's running jobs' TRES in the QOS |
//! | association post-select, each level | `GrpTRES` | `AssocGrpCpuLimit` / `AssocGrpMemLimit` / `AssocGrpNodeLimit` / `AssocGrpBilling` / `AssocGrpGRES` | a cap: the subtree's running jobs' TRES |
//! | the job's own association | `MaxTRES` | `AssocMaxCpuPerJobLimit` / `AssocMaxMemPerJob` / `AssocMaxNodePerJobLimit` / `AssocMaxBillingPerJob` / `AssocMaxGRESPerJob` | never |
//! | | `MaxTRESPerNode` | `AssocMaxCpuPerNode` / `AssocMaxMemPerNode` / — / `AssocMaxBillingPerNode` / `AssocMaxGRESPerNode` | never |
//!
//! The names are `job_reason_string`'s (`src/common/slurm_protocol_defs.c`; later Slurm's
//! `job_state_reason_string`, `src/common/job_state_reason.c`) for the `WAIT_*` value
//! `_get_tres_state_reason` gives a TRES. Within a TRES list the TRES are taken in Slurm's
//! TRES order (cpu, mem, node, billing, then the GRES: their ids follow in creation order,
//! taken here by name). A job drawing on a cap needs `used + amount ≤ limit`: a count of jobs
//! is held at `used_jobs >= limit`, a TRES when `request + used > limit`
//! (`_validate_tres_usage_limits`, which also never holds a job for a TRES it asks none of:
//! such draws are left out). A job asking more than a cap allows in all, or more than a
//! per-job limit, can never start: its [`Never`] names the first such limit in check order.
//!
//! Which QOS: the job's, and its partition's (slurm.conf `QOS=` of the partition, none
//! without slurm.conf; the first partition a job waiting in several names; a QOS the table
//! does not list is none). Both hold; the partition's is checked first
//! unless the job's QOS has the `OverPartQOS` flag (`acct_policy_set_qos_order`), and a
//! limit the first sets is not looked at in the second (`qos_out_ptr`). A limit either QOS
//! sets overrides the association's same limit at every level (the `qos_rec.* == INFINITE`
//! tests): `GrpJobs` over `GrpJobs`, `MaxJobsPU` or `MaxJobsPA` over `MaxJobs`, `MaxWall`
//! over `MaxWall`, and TRES by TRES `GrpTRES` over `GrpTRES`, `MaxTRES` over `MaxTRES`,
//! `MaxTRESPerNode` over `MaxTRESPerNode`. A running job counts towards both its QOS, and
//! towards its association and every ancestor (`_adjust_limit_usage`).
//!
//! Which association: the job's account, user and partition, else its account and user
//! ([`Associations::find`]). `Max*` limits are read at that association only, with the
//! values slurmdbd hands down from its ancestors ([`Associations::max_limits`];
//! acct_policy.c: "We don't need to look at the regular limits for parents since we have
//! pre-propagated them"); `Grp*` at every level.
//!
//! Units: Slurm counts memory in MB, the snapshot in KB (a cap on `mem` is the MB × 1024);
//! `node` is a running job's node count and a waiting job's fixed node count (1 when it
//! fixed none: its CPUs go anywhere, so the count is not known before placement and 1 is the
//! least; its per-node limits are then not checked); `billing` is the job's `billing=` of
//! `tres_alloc_str`/`tres_req_str` (limits on billing skip a job that names none); `gres/gpu`
//! is `ngpus`, another `gres/NAME` the snapshot's resource `NAME`.
//!
//! Not modelled, and why:
//! - `MaxSubmitJobs`/`GrpSubmitJobs` (`MaxSubmit`, `GrpSubmit`, `MaxSubmitPU`, `MaxSubmitPA`):
//!   enforced when a job is submitted (`_acct_policy_validate` refuses it); they never hold
//!   a waiting job.
//! - `GrpTRESMins`, `GrpTRESRunMins`, `MaxTRESMins`, `GrpWall`: they count minutes used and
//!   reserved (the association's `usage_tres_raw`, `grp_used_tres_run_secs`), which no
//!   capture here holds.
//! - `MinTRES` (`QOSMin*`), `MaxJobsAccrue`, the QOS `LimitFactor`, `UsageFactorSafe`, and
//!   limits on TRES the snapshot has no count of (`license/`, `bb/`, `fs/disk`, typed
//!   `gres/gpu:a100`).
//! - `GrpTRES` node counts: Slurm counts the distinct nodes an association's or QOS's jobs
//!   hold (`_add_usage_node_bitmap`); here the jobs' node counts are summed, more than
//!   Slurm's when jobs share a node.
//! - [`Limits`] has one list of draws per waiting job: the limits it is checked against.
//!   Once the plan starts it, it counts only towards those, not towards a limit a QOS of its
//!   own overrode for it that other jobs are still checked against.
//!
//! No limit holds a job when slurm.conf's `AccountingStorageEnforce` has none of `limits`,
//! `safe` or `all` (`acct_policy_job_runnable_*` return at once without
//! `ACCOUNTING_ENFORCE_LIMITS`); without slurm.conf the limits are taken to be enforced.

use super::assoc::Associations;
use super::qos::{Qos, QosList};
use super::reasons::tres_words;
use super::snapshot::SlurmSnapshot;
use crate::model::limits::{Cap, Draw, Limits, Never};
use crate::model::place::Arrangement;
use std::collections::{BTreeMap, BTreeSet};

/// The limits that bear on a Slurm snapshot's jobs (module docs). The association and QOS
/// tables are read with the snapshot (`read_slurm_snapshot`, which reports a bad value
/// with its file and line); without either, no limit of its kind holds a job.
pub fn slurm_limits(snap: &SlurmSnapshot) -> Limits {
    let s = &snap.snapshot;
    let acc = &snap.accounting;
    let enforced = snap
        .conf
        .as_ref()
        .and_then(|c| c.setting("AccountingStorageEnforce"))
        .is_none_or(|v| {
            v.split(',').any(|w| {
                ["limits", "safe", "all"].contains(&w.trim().to_ascii_lowercase().as_str())
            })
        });
    if !enforced {
        return Limits::none(s.running.len(), s.pending.len());
    }
    // Neither table captured: the limits are unknown, not absent.
    if acc.associations.is_none() && acc.qos.is_none() {
        return Limits::unknown(s.running.len(), s.pending.len());
    }
    let tres_of = |i: usize| -> String {
        match s.resources[i].as_str() {
            "ncpus" => "cpu".into(),
            "mem" => "mem".into(),
            "ngpus" => "gres/gpu".into(),
            other => format!("gres/{other}"),
        }
    };
    let part_qos = |p: Option<&str>| -> Option<String> {
        let conf = snap.conf.as_ref()?;
        conf.partition(p?)?.qos.clone()
    };
    let mut b = Builder {
        assoc: acc.associations.as_ref(),
        qos: acc.qos.as_ref(),
        caps: Vec::new(),
        usage: Vec::new(),
        keys: BTreeMap::new(),
        by_entity: BTreeMap::new(),
    };
    let pending_jobs: Vec<Job> = s
        .pending
        .iter()
        .enumerate()
        .map(|(i, j)| {
            let fixed = j.ask.place.arrangement != Arrangement::Free;
            let mut tres: BTreeMap<String, u64> = (0..s.resources.len())
                .map(|r| (tres_of(r), j.ask.total(r)))
                .collect();
            let nodes = if fixed {
                j.ask.parts.iter().map(|(n, _)| u64::from(*n)).sum()
            } else {
                1
            };
            tres.insert("node".into(), nodes);
            if let Some(Some(bill)) = acc.pending_billing.get(i) {
                tres.insert("billing".into(), *bill);
            }
            let partition = j.queue.first().map(String::as_str);
            Job {
                user: j.user.as_deref(),
                account: j.account.as_deref(),
                qos: j.qos.clone(),
                part_qos: part_qos(partition),
                partition,
                tres,
                nodes: fixed.then_some(nodes),
                minutes: j.walltime.map(|w| (w.max(0) as u64).div_ceil(60)),
            }
        })
        .collect();
    let pending: Vec<Result<Vec<Draw>, Never>> = pending_jobs.iter().map(|j| b.checks(j)).collect();
    // Once it runs, a job counts toward every cap of its QOS and association chain, the
    // ones its QOS overrode for its checks too (`_adjust_limit_usage`).
    let started = pending_jobs.iter().map(|j| b.usage_of(j)).collect();
    let running = s
        .running
        .iter()
        .enumerate()
        .map(|(i, j)| {
            let mut tres: BTreeMap<String, u64> = (0..s.resources.len())
                .map(|r| (tres_of(r), j.total.get(r).copied().unwrap_or(0)))
                .collect();
            tres.insert("node".into(), (j.held.len() as u64).max(1));
            if let Some(Some(bill)) = acc.running_billing.get(i) {
                tres.insert("billing".into(), *bill);
            }
            let partition = j.queue.as_deref();
            let job = Job {
                user: j.user.as_deref(),
                account: j.account.as_deref(),
                qos: j.qos.clone(),
                part_qos: part_qos(partition),
                partition,
                tres,
                nodes: None,
                minutes: None,
            };
            b.usage_of(&job)
        })
        .collect();
    Limits {
        caps: b.caps,
        running,
        pending,
        started,
        known: true,
    }
}

/// What the limits read of one job. TRES amounts are in the snapshot's units (memory in KB).
struct Job<'a> {
    user: Option<&'a str>,
    account: Option<&'a str>,
    qos: Option<String>,
    part_qos: Option<String>,
    partition: Option<&'a str>,
    tres: BTreeMap<String, u64>,
    /// The node count, when the job fixed it (per-node limits).
    nodes: Option<u64>,
    /// The time limit in minutes.
    minutes: Option<u64>,
}

/// Whose usage a cap counts.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Usage {
    /// A QOS's running jobs (`grp_used_jobs`), or a TRES of them (`grp_used_tres`).
    Qos(String, Option<String>),
    /// A user's running jobs in a QOS (`user_limit_list`), or a TRES of them.
    QosUser(String, String, Option<String>),
    /// An account's running jobs in a QOS (`acct_limit_list`), or a TRES of them.
    QosAccount(String, String, Option<String>),
    /// The running jobs of an association's subtree (`used_jobs`), or a TRES of them
    /// (`grp_used_tres`).
    Assoc(usize, Option<String>),
}

/// The QOS or association a cap belongs to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Entity {
    Qos(String),
    Assoc(usize),
}

impl Usage {
    fn entity(&self) -> Entity {
        match self {
            Usage::Qos(q, _) | Usage::QosUser(q, _, _) | Usage::QosAccount(q, _, _) => {
                Entity::Qos(q.clone())
            }
            Usage::Assoc(a, _) => Entity::Assoc(*a),
        }
    }

    fn tres(&self) -> Option<&str> {
        match self {
            Usage::Qos(_, t) | Usage::QosUser(_, _, t) | Usage::QosAccount(_, _, t) => t,
            Usage::Assoc(_, t) => t,
        }
        .as_deref()
    }
}

/// The limits a first QOS set, which the second and the associations then do not look at
/// (`qos_rec`, `qos_out_ptr`).
#[derive(Default)]
struct Set {
    grp_jobs: bool,
    max_jobs_pa: bool,
    max_jobs_pu: bool,
    max_wall: bool,
    grp_tres: BTreeSet<String>,
    max_tres: BTreeSet<String>,
    max_tres_pn: BTreeSet<String>,
    max_tres_pa: BTreeSet<String>,
    max_tres_pu: BTreeSet<String>,
}

struct Builder<'a> {
    assoc: Option<&'a Associations>,
    qos: Option<&'a QosList>,
    caps: Vec<Cap>,
    /// Each cap's usage.
    usage: Vec<Usage>,
    keys: BTreeMap<(Usage, String), usize>,
    by_entity: BTreeMap<Entity, Vec<usize>>,
}

/// A cap: whose usage it counts, its reason, plain words and limit.
struct Spec {
    usage: Usage,
    reason: String,
    plain: String,
    limit: u64,
}

fn spec(usage: Usage, reason: &str, plain: String, limit: u64) -> Spec {
    Spec {
        usage,
        reason: reason.to_string(),
        plain,
        limit,
    }
}

/// Slurm's TRES order: cpu, mem, energy, node, billing, then the rest by name.
fn tres_order(list: &BTreeMap<String, u64>) -> Vec<(&str, u64)> {
    let rank = |t: &str| match t {
        "cpu" => 1,
        "mem" => 2,
        "energy" => 3,
        "node" => 4,
        "billing" => 5,
        _ => 1000,
    };
    let mut v: Vec<(&str, u64)> = list.iter().map(|(t, n)| (t.as_str(), *n)).collect();
    v.sort_by_key(|(t, _)| (rank(t), *t));
    v
}

/// A limit's kinds, for its reason name.
#[derive(Clone, Copy)]
enum Kind {
    Grp,
    PerJob,
    PerNode,
    PerUser,
    PerAccount,
}

/// The reason `_get_tres_state_reason` gives a TRES limit of `level` (`QOS` or `Assoc`),
/// `None` for a TRES it has no name for (node per node).
fn tres_reason(qos: bool, kind: Kind, tres: &str) -> Option<String> {
    let gres = tres.starts_with("gres/");
    let (l, q) = if qos { ("QOS", true) } else { ("Assoc", false) };
    Some(match (kind, tres) {
        (Kind::Grp, "cpu") => format!("{l}GrpCpuLimit"),
        (Kind::Grp, "mem") => format!("{l}GrpMemLimit"),
        (Kind::Grp, "node") => format!("{l}GrpNodeLimit"),
        (Kind::Grp, "billing") => format!("{l}GrpBilling"),
        (Kind::Grp, _) if gres => format!("{l}GrpGRES"),
        (Kind::PerJob, "cpu") => format!("{l}MaxCpuPerJobLimit"),
        (Kind::PerJob, "mem") if q => "QOSMaxMemoryPerJob".into(),
        (Kind::PerJob, "mem") => "AssocMaxMemPerJob".into(),
        (Kind::PerJob, "node") => format!("{l}MaxNodePerJobLimit"),
        (Kind::PerJob, "billing") => format!("{l}MaxBillingPerJob"),
        (Kind::PerJob, _) if gres => format!("{l}MaxGRESPerJob"),
        (Kind::PerNode, "cpu") => format!("{l}MaxCpuPerNode"),
        (Kind::PerNode, "mem") if q => "QOSMaxMemoryPerNode".into(),
        (Kind::PerNode, "mem") => "AssocMaxMemPerNode".into(),
        (Kind::PerNode, "billing") => format!("{l}MaxBillingPerNode"),
        (Kind::PerNode, _) if gres => format!("{l}MaxGRESPerNode"),
        (Kind::PerUser, "cpu") => "QOSMaxCpuPerUserLimit".into(),
        (Kind::PerUser, "mem") => "QOSMaxMemoryPerUser".into(),
        (Kind::PerUser, "node") => "QOSMaxNodePerUserLimit".into(),
        (Kind::PerUser, "billing") => "QOSMaxBillingPerUser".into(),
        (Kind::PerUser, _) if gres => "QOSMaxGRESPerUser".into(),
        (Kind::PerAccount, "cpu") => "MaxCpuPerAccount".into(),
        (Kind::PerAccount, "mem") => "MaxMemoryPerAccount".into(),
        (Kind::PerAccount, "node") => "MaxNodePerAccount".into(),
        (Kind::PerAccount, "billing") => "MaxBillingPerAccount".into(),
        (Kind::PerAccount, _) if gres => "MaxGRESPerAccount".into(),
        _ => return None,
    })
}

/// A TRES limit on something the snapshot counts: cpu, mem, node, billing, untyped GRES.
fn modelled(tres: &str) -> bool {
    matches!(tres, "cpu" | "mem" | "node" | "billing")
        || tres.strip_prefix("gres/").is_some_and(|g| !g.contains(':'))
}

/// An amount of a TRES in words (memory given in KB).
fn amount(tres: &str, n: u64) -> String {
    if tres == "mem" {
        let mb = n / 1024;
        return if mb > 0 && mb.is_multiple_of(1024 * 1024) {
            format!("{} TB of memory", mb / (1024 * 1024))
        } else if mb > 0 && mb.is_multiple_of(1024) {
            format!("{} GB of memory", mb / 1024)
        } else {
            format!("{mb} MB of memory")
        };
    }
    let noun = tres_words(tres);
    match (n, noun.strip_suffix('s')) {
        (1, Some(one)) => format!("1 {one}"),
        _ => format!("{n} {noun}"),
    }
}

fn jobs(n: u64) -> String {
    if n == 1 {
        "1 job".into()
    } else {
        format!("{n} jobs")
    }
}

/// Minutes as Slurm writes a time limit (`mins2time_str`).
fn wall(m: u64) -> String {
    let (d, h, mi) = (m / 1440, m % 1440 / 60, m % 60);
    if d > 0 {
        format!("{d}-{h:02}:{mi:02}:00")
    } else {
        format!("{h:02}:{mi:02}:00")
    }
}

/// Slurm's memory limits are in MB, the snapshot's amounts in KB.
fn in_kb(tres: &str, n: u64) -> u64 {
    if tres == "mem" {
        n.saturating_mul(1024)
    } else {
        n
    }
}

impl<'a> Builder<'a> {
    fn qos_pair(&self, job: &Job) -> Vec<&'a Qos> {
        let Some(list) = self.qos else {
            return Vec::new();
        };
        let own = job.qos.as_deref().and_then(|q| list.get(q));
        let part = job.part_qos.as_deref().and_then(|q| list.get(q));
        // acct_policy_set_qos_order.
        let order = match (own, part) {
            (Some(o), Some(p)) if o.name == p.name => [Some(o), None],
            (Some(o), Some(p)) if o.over_part_qos => [Some(o), Some(p)],
            (Some(o), Some(p)) => [Some(p), Some(o)],
            (o, p) => [o.or(p), None],
        };
        order.into_iter().flatten().collect()
    }

    /// The job's association and its ancestors.
    fn chain(&self, job: &Job) -> Vec<usize> {
        match (self.assoc, job.account, job.user) {
            (Some(a), Some(acct), Some(user)) => a
                .find(acct, user, job.partition)
                .map_or_else(Vec::new, |i| a.chain(i)),
            _ => Vec::new(),
        }
    }

    fn assoc_name(&self, i: usize) -> String {
        self.assoc.map_or_else(String::new, |a| a.name(i))
    }

    /// The cap of `usage` named `reason`, made when new.
    fn cap(&mut self, usage: Usage, reason: &str, plain: String, limit: u64) -> usize {
        if let Some(&c) = self.keys.get(&(usage.clone(), reason.to_string())) {
            return c;
        }
        let c = self.caps.len();
        self.caps.push(Cap {
            reason: reason.to_string(),
            plain,
            limit,
        });
        self.by_entity.entry(usage.entity()).or_default().push(c);
        self.keys.insert((usage.clone(), reason.to_string()), c);
        self.usage.push(usage);
        c
    }

    /// Draw `n` (`asked` in words; empty for one job) on the cap `spec` names; a job asking
    /// more than the cap allows in all never starts.
    fn draw(&mut self, d: &mut Vec<Draw>, spec: Spec, n: u64, asked: String) -> Result<(), Never> {
        let Spec {
            usage,
            reason,
            plain,
            limit,
        } = spec;
        if n > limit {
            return Err(Never {
                plain: if asked.is_empty() {
                    plain
                } else {
                    format!("asks {asked}; {plain}")
                },
                reason,
            });
        }
        if n > 0 {
            let cap = self.cap(usage, &reason, plain, limit);
            d.push(Draw { cap, amount: n });
        }
        Ok(())
    }

    /// A waiting job's draws in slurmctld's check order, or the limit it can never pass.
    fn checks(&mut self, job: &Job) -> Result<Vec<Draw>, Never> {
        let qs = self.qos_pair(job);
        let chain = self.chain(job);
        let mut set = Set::default();
        let mut d = Vec::new();
        let never = |reason: &str, plain: String| Never {
            reason: reason.to_string(),
            plain,
        };
        // _qos_job_runnable_pre_select, first QOS then second.
        for q in &qs {
            let name = &q.name;
            if !set.grp_jobs
                && let Some(n) = q.grp_jobs
            {
                set.grp_jobs = true;
                let plain = format!("QOS {name} allows {} to run at once in all", jobs(n));
                let u = Usage::Qos(name.clone(), None);
                self.draw(
                    &mut d,
                    spec(u, "QOSGrpJobsLimit", plain, n),
                    1,
                    String::new(),
                )?;
            }
            if !set.max_jobs_pa
                && let Some(n) = q.max_jobs_per_account
            {
                set.max_jobs_pa = true;
                if let Some(acct) = job.account {
                    let plain = format!(
                        "QOS {name} allows each account {} at once ({acct})",
                        jobs(n)
                    );
                    let u = Usage::QosAccount(name.clone(), acct.into(), None);
                    self.draw(
                        &mut d,
                        spec(u, "MaxJobsPerAccount", plain, n),
                        1,
                        String::new(),
                    )?;
                }
            }
            if !set.max_jobs_pu
                && let Some(n) = q.max_jobs_per_user
            {
                set.max_jobs_pu = true;
                if let Some(user) = job.user {
                    let plain = format!("QOS {name} allows each user {} at once ({user})", jobs(n));
                    let u = Usage::QosUser(name.clone(), user.into(), None);
                    self.draw(
                        &mut d,
                        spec(u, "QOSMaxJobsPerUserLimit", plain, n),
                        1,
                        String::new(),
                    )?;
                }
            }
            if !set.max_wall
                && let Some(w) = q.max_wall
            {
                set.max_wall = true;
                if let Some(t) = job.minutes.filter(|&t| t > u64::from(w)) {
                    return Err(never(
                        "QOSMaxWallDurationPerJobLimit",
                        format!(
                            "asks {}; QOS {name} allows {} per job",
                            wall(t),
                            wall(w.into())
                        ),
                    ));
                }
            }
        }
        // acct_policy_job_runnable_pre_select: the association, then its ancestors.
        if let Some(assoc) = self.assoc {
            for (k, &a) in chain.iter().enumerate() {
                let name = self.assoc_name(a);
                let whole = if assoc.list[a].user.is_empty() {
                    " across its users and sub-accounts"
                } else {
                    " in all"
                };
                if !set.grp_jobs
                    && let Some(n) = assoc.list[a].grp_jobs
                {
                    let plain = format!("association {name} may run {} at once{whole}", jobs(n));
                    let u = Usage::Assoc(a, None);
                    self.draw(
                        &mut d,
                        spec(u, "AssocGrpJobsLimit", plain, n),
                        1,
                        String::new(),
                    )?;
                }
                if k > 0 {
                    continue;
                }
                let m = assoc.max_limits(a);
                if !set.max_jobs_pa
                    && !set.max_jobs_pu
                    && let Some(n) = m.jobs
                {
                    let plain = format!("association {name} may run {} at once", jobs(n));
                    let u = Usage::Assoc(a, None);
                    self.draw(
                        &mut d,
                        spec(u, "AssocMaxJobsLimit", plain, n),
                        1,
                        String::new(),
                    )?;
                }
                if !set.max_wall
                    && let Some(w) = m.wall
                    && let Some(t) = job.minutes.filter(|&t| t > u64::from(w))
                {
                    return Err(never(
                        "AssocMaxWallDurationPerJobLimit",
                        format!(
                            "asks {}; association {name} allows {} per job",
                            wall(t),
                            wall(w.into())
                        ),
                    ));
                }
            }
        }
        // _qos_job_runnable_post_select, first QOS then second.
        for q in &qs {
            let name = q.name.clone();
            for (t, lim) in tres_order(&q.grp_tres) {
                if !modelled(t) || !set.grp_tres.insert(t.to_string()) {
                    continue;
                }
                let (Some(n), Some(reason)) = (job.tres.get(t), tres_reason(true, Kind::Grp, t))
                else {
                    continue;
                };
                let lim = in_kb(t, lim);
                let plain = format!(
                    "QOS {name} allows its running jobs {} in all",
                    amount(t, lim)
                );
                let u = Usage::Qos(name.clone(), Some(t.into()));
                self.draw(&mut d, spec(u, &reason, plain, lim), *n, amount(t, *n))?;
            }
            for (t, lim) in tres_order(&q.max_tres) {
                if !modelled(t) || !set.max_tres.insert(t.to_string()) {
                    continue;
                }
                let lim = in_kb(t, lim);
                if let (Some(&n), Some(reason)) =
                    (job.tres.get(t), tres_reason(true, Kind::PerJob, t))
                    && n > lim
                {
                    return Err(never(
                        &reason,
                        format!(
                            "asks {}; QOS {name} allows {} per job",
                            amount(t, n),
                            amount(t, lim)
                        ),
                    ));
                }
            }
            for (t, lim) in tres_order(&q.max_tres_per_node) {
                if !modelled(t) || !set.max_tres_pn.insert(t.to_string()) {
                    continue;
                }
                let lim = in_kb(t, lim);
                if let (Some(&n), Some(nodes), Some(reason)) = (
                    job.tres.get(t),
                    job.nodes,
                    tres_reason(true, Kind::PerNode, t),
                ) && nodes > 0
                    && n / nodes > lim
                {
                    return Err(never(
                        &reason,
                        format!(
                            "asks {} per node; QOS {name} allows {} per node",
                            amount(t, n / nodes),
                            amount(t, lim)
                        ),
                    ));
                }
            }
            for (t, lim) in tres_order(&q.max_tres_per_account) {
                if !modelled(t) || !set.max_tres_pa.insert(t.to_string()) {
                    continue;
                }
                let (Some(&n), Some(reason), Some(acct)) = (
                    job.tres.get(t),
                    tres_reason(true, Kind::PerAccount, t),
                    job.account,
                ) else {
                    continue;
                };
                let lim = in_kb(t, lim);
                let plain = format!(
                    "QOS {name} allows each account {} of running jobs ({acct})",
                    amount(t, lim)
                );
                let u = Usage::QosAccount(name.clone(), acct.into(), Some(t.into()));
                self.draw(&mut d, spec(u, &reason, plain, lim), n, amount(t, n))?;
            }
            for (t, lim) in tres_order(&q.max_tres_per_user) {
                if !modelled(t) || !set.max_tres_pu.insert(t.to_string()) {
                    continue;
                }
                let (Some(&n), Some(reason), Some(user)) = (
                    job.tres.get(t),
                    tres_reason(true, Kind::PerUser, t),
                    job.user,
                ) else {
                    continue;
                };
                let lim = in_kb(t, lim);
                let plain = format!(
                    "QOS {name} allows each user {} of running jobs ({user})",
                    amount(t, lim)
                );
                let u = Usage::QosUser(name.clone(), user.into(), Some(t.into()));
                self.draw(&mut d, spec(u, &reason, plain, lim), n, amount(t, n))?;
            }
        }
        // acct_policy_job_runnable_post_select: the association, then its ancestors.
        if let Some(assoc) = self.assoc {
            for (k, &a) in chain.iter().enumerate() {
                let name = self.assoc_name(a);
                let whole = if assoc.list[a].user.is_empty() {
                    " across its users and sub-accounts"
                } else {
                    ""
                };
                for (t, lim) in tres_order(&assoc.list[a].grp_tres) {
                    if !modelled(t) || set.grp_tres.contains(t) {
                        continue;
                    }
                    let (Some(&n), Some(reason)) =
                        (job.tres.get(t), tres_reason(false, Kind::Grp, t))
                    else {
                        continue;
                    };
                    let lim = in_kb(t, lim);
                    let plain = format!(
                        "association {name} may hold {} at once{whole}",
                        amount(t, lim)
                    );
                    let u = Usage::Assoc(a, Some(t.into()));
                    self.draw(&mut d, spec(u, &reason, plain, lim), n, amount(t, n))?;
                }
                if k > 0 {
                    continue;
                }
                let m = assoc.max_limits(a);
                for (t, lim) in tres_order(&m.tres) {
                    if !modelled(t) || set.max_tres.contains(t) {
                        continue;
                    }
                    let lim = in_kb(t, lim);
                    // _validate_tres_limits_for_assoc skips a TRES the job asks none of.
                    if let (Some(&n), Some(reason)) =
                        (job.tres.get(t), tres_reason(false, Kind::PerJob, t))
                        && n > lim
                    {
                        return Err(never(
                            &reason,
                            format!(
                                "asks {}; association {name} allows {} per job",
                                amount(t, n),
                                amount(t, lim)
                            ),
                        ));
                    }
                }
                for (t, lim) in tres_order(&m.tres_per_node) {
                    if !modelled(t) || set.max_tres_pn.contains(t) {
                        continue;
                    }
                    let lim = in_kb(t, lim);
                    if let (Some(&n), Some(nodes), Some(reason)) = (
                        job.tres.get(t),
                        job.nodes,
                        tres_reason(false, Kind::PerNode, t),
                    ) && nodes > 0
                        && n / nodes > lim
                    {
                        return Err(never(
                            &reason,
                            format!(
                                "asks {} per node; association {name} allows {} per node",
                                amount(t, n / nodes),
                                amount(t, lim)
                            ),
                        ));
                    }
                }
            }
        }
        Ok(d)
    }

    /// A running job's draws: what it counts towards on every cap made for the waiting
    /// jobs (both its QOS, its association and every ancestor: `_adjust_limit_usage`).
    fn usage_of(&self, job: &Job) -> Vec<Draw> {
        let mut entities: Vec<Entity> = self
            .qos_pair(job)
            .iter()
            .map(|q| Entity::Qos(q.name.clone()))
            .collect();
        let chain = self.chain(job);
        entities.extend(chain.iter().map(|&a| Entity::Assoc(a)));
        let mut out = Vec::new();
        for e in &entities {
            for &c in self.by_entity.get(e).into_iter().flatten() {
                let u = &self.usage[c];
                let whose = match u {
                    Usage::QosUser(_, user, _) => job.user == Some(user.as_str()),
                    Usage::QosAccount(_, acct, _) => job.account == Some(acct.as_str()),
                    Usage::Qos(..) | Usage::Assoc(..) => true,
                };
                if !whose {
                    continue;
                }
                let n = match u.tres() {
                    None => 1,
                    Some(t) => job.tres.get(t).copied().unwrap_or(0),
                };
                if n > 0 {
                    out.push(Draw { cap: c, amount: n });
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::place::{Place, Sharing};
    use crate::model::snapshot::{Ask, Held, PendingJob, RunningJob, Scheduler, Snapshot};
    use crate::slurm::conf::SlurmConf;
    use crate::slurm::reasons;
    use crate::slurm::snapshot::{Accounting, read_slurm_snapshot};
    use std::path::Path;

    /// A job of the hand-worked queues: `nodes` 0 is a waiting job's CPUs anywhere.
    #[derive(Clone)]
    struct J {
        user: &'static str,
        acct: &'static str,
        qos: &'static str,
        part: &'static str,
        cpus: u64,
        mem_gb: u64,
        gpus: u64,
        nodes: u32,
        minutes: i64,
        billing: Option<u64>,
    }

    fn j(user: &'static str, acct: &'static str) -> J {
        J {
            user,
            acct,
            qos: "normal",
            part: "batch",
            cpus: 1,
            mem_gb: 1,
            gpus: 0,
            nodes: 0,
            minutes: 60,
            billing: None,
        }
    }

    fn running(x: &J, i: usize) -> RunningJob {
        RunningJob {
            id: format!("r{i}"),
            user: Some(x.user.into()),
            group: None,
            account: Some(x.acct.into()),
            project: None,
            qos: Some(x.qos.into()),
            queue: Some(x.part.into()),
            start: 0,
            walltime: Some(x.minutes * 60),
            held: (0..x.nodes.max(1))
                .map(|k| Held {
                    node: format!("n{k}"),
                    amounts: Vec::new(),
                })
                .collect(),
            total: vec![x.cpus, x.mem_gb << 20, x.gpus],
            elapsed: None,
        }
    }

    fn pending(x: &J, i: usize) -> PendingJob {
        let total = vec![x.cpus, x.mem_gb << 20, x.gpus];
        let (parts, arrangement) = if x.nodes > 0 {
            let n = u64::from(x.nodes);
            let per = total.iter().map(|t| t.div_ceil(n)).collect();
            (vec![(x.nodes, per)], Arrangement::Scatter)
        } else {
            (vec![(1, total)], Arrangement::Free)
        };
        PendingJob {
            id: format!("p{i}"),
            user: Some(x.user.into()),
            group: None,
            account: Some(x.acct.into()),
            project: None,
            qos: Some(x.qos.into()),
            queue: vec![x.part.into()],
            submit: None,
            walltime: Some(x.minutes * 60),
            ask: Ask {
                parts,
                place: Place {
                    arrangement,
                    sharing: Sharing::Shared,
                },
            },
            priority: None,
            reason: None,
            hold: None,
        }
    }

    /// sacctmgr -P text: the columns, and rows of `Column=value` words.
    fn table(cols: &[&str], rows: &[String]) -> String {
        let mut out = cols.join("|") + "\n";
        for r in rows {
            let set: BTreeMap<&str, &str> = r
                .split_whitespace()
                .filter_map(|w| w.split_once('='))
                .collect();
            let fields: Vec<&str> = cols
                .iter()
                .map(|c| set.get(c).copied().unwrap_or(""))
                .collect();
            out += &(fields.join("|") + "\n");
        }
        out
    }

    /// The association tree root ─ phys (ann, bob), chem (cid), with `settings` added to the
    /// rows named (`phys`, `phys/ann`; a name not in the tree, like `phys/ann@gpu`, is a
    /// row of its own).
    fn assoc(settings: &[(&str, &str)]) -> String {
        let cols = [
            "Cluster",
            "Account",
            "User",
            "Partition",
            "ParentName",
            "Share",
            "Priority",
            "GrpJobs",
            "GrpTRES",
            "GrpSubmit",
            "GrpWall",
            "GrpTRESMins",
            "MaxJobs",
            "MaxTRES",
            "MaxTRESPerNode",
            "MaxSubmit",
            "MaxWall",
            "MaxTRESMins",
            "QOS",
            "Def QOS",
            "GrpTRESRunMins",
        ];
        let base = [
            ("root", "Account=root"),
            ("phys", "Account=phys ParentName=root"),
            ("chem", "Account=chem ParentName=root"),
            ("phys/ann", "Account=phys User=ann"),
            ("phys/bob", "Account=phys User=bob"),
            ("chem/cid", "Account=chem User=cid"),
        ];
        let mut rows: Vec<String> = base
            .iter()
            .map(|(name, row)| {
                let extra: Vec<&str> = settings
                    .iter()
                    .filter(|(n, _)| n == name)
                    .map(|(_, s)| *s)
                    .collect();
                format!("Cluster=demo {row} Share=1 QOS=normal {}", extra.join(" "))
            })
            .collect();
        for (name, s) in settings {
            if let Some((au, part)) = name.split_once('@') {
                let (a, u) = au.split_once('/').unwrap();
                rows.push(format!(
                    "Cluster=demo Account={a} User={u} Partition={part} Share=1 {s}"
                ));
            }
        }
        table(&cols, &rows)
    }

    /// Slurm 22.05's default QOS columns: `normal` with no limit, and the QOS named.
    fn qos(settings: &[(&str, &str)]) -> String {
        let cols = [
            "Name",
            "Priority",
            "GraceTime",
            "Preempt",
            "PreemptExemptTime",
            "PreemptMode",
            "Flags",
            "UsageThres",
            "UsageFactor",
            "GrpTRES",
            "GrpTRESMins",
            "GrpTRESRunMins",
            "GrpJobs",
            "GrpSubmit",
            "GrpWall",
            "MaxTRES",
            "MaxTRESPerNode",
            "MaxTRESMins",
            "MaxWall",
            "MaxTRESPU",
            "MaxJobsPU",
            "MaxSubmitPU",
            "MaxTRESPA",
            "MaxJobsPA",
            "MaxSubmitPA",
            "MinTRES",
        ];
        let mut rows = vec![
            "Name=normal Priority=0 GraceTime=00:00:00 PreemptMode=cluster \
                             UsageFactor=1.000000"
                .to_string(),
        ];
        let mut names: Vec<&str> = settings.iter().map(|(n, _)| *n).collect();
        names.dedup();
        for name in names {
            let extra: Vec<&str> = settings
                .iter()
                .filter(|(n, _)| *n == name)
                .map(|(_, s)| *s)
                .collect();
            let row = format!(
                "Name={name} Priority=0 GraceTime=00:00:00 PreemptMode=cluster \
                 UsageFactor=1.000000 {}",
                extra.join(" ")
            );
            if name == "normal" {
                rows[0] = row;
            } else {
                rows.push(row);
            }
        }
        table(&cols, &rows)
    }

    const CONF: &str = "ClusterName=demo\nAccountingStorageEnforce=associations,limits\n\
                        NodeName=n[0-7] CPUs=32 RealMemory=128000\n\
                        PartitionName=batch Nodes=ALL Default=YES\n\
                        PartitionName=gpu Nodes=ALL QOS=gpupart\n";

    /// The limits of a site: running and waiting jobs, the sacctmgr tables ("" for none)
    /// and slurm.conf.
    fn site(run: &[J], wait: &[J], assoc: &str, qos: &str, conf: Option<&str>) -> Limits {
        let mut snapshot = Snapshot::new(Scheduler::Slurm);
        snapshot.running = run.iter().enumerate().map(|(i, x)| running(x, i)).collect();
        snapshot.pending = wait
            .iter()
            .enumerate()
            .map(|(i, x)| pending(x, i))
            .collect();
        let conf = conf.map(|c| SlurmConf::parse(c, "slurm.conf").unwrap());
        let cluster = conf.as_ref().and_then(|c| c.cluster_name.clone());
        slurm_limits(&SlurmSnapshot {
            snapshot,
            accounting: Accounting {
                associations: (!assoc.is_empty())
                    .then(|| Associations::parse(assoc, "assoc.txt", cluster.as_deref()).unwrap()),
                qos: (!qos.is_empty()).then(|| QosList::parse(qos, "qos.txt").unwrap()),
                running_billing: run.iter().map(|x| x.billing).collect(),
                pending_billing: wait.iter().map(|x| x.billing).collect(),
            },
            conf,
        })
    }

    /// What holds waiting job `i` now: `Ok(reason)` of the first full cap in check order
    /// (`Ok("")` when none), `Err(reason)` of the per-job limit it can never pass.
    fn held(l: &Limits, i: usize) -> Result<String, String> {
        match &l.pending[i] {
            Ok(draws) => Ok(l
                .blocking(draws, &l.usage())
                .map_or(String::new(), |c| l.caps[c].reason.clone())),
            Err(n) => Err(n.reason.clone()),
        }
    }

    fn held_all(l: &Limits) -> Vec<Result<String, String>> {
        (0..l.pending.len()).map(|i| held(l, i)).collect()
    }

    fn ok(r: &str) -> Result<String, String> {
        Ok(r.to_string())
    }

    fn never(r: &str) -> Result<String, String> {
        Err(r.to_string())
    }

    /// The plain words of the cap holding waiting job `i`, or of its per-job limit.
    fn plain(l: &Limits, i: usize) -> String {
        match &l.pending[i] {
            Ok(draws) => l
                .blocking(draws, &l.usage())
                .map_or(String::new(), |c| l.caps[c].plain.clone()),
            Err(n) => n.plain.clone(),
        }
    }

    /// `_qos_job_runnable_pre_select`: GrpJobs (`grp_used_jobs >= grp_jobs`), MaxJobsPA
    /// and MaxJobsPU, each with one limit set and full. The job beside it that the limit
    /// does not count (another QOS, user or account) is not held.
    #[test]
    fn qos_job_counts() {
        let two = [j("ann", "phys"), j("cid", "chem")];
        let l = site(
            &two,
            &[
                j("bob", "phys"),
                J {
                    qos: "other",
                    ..j("bob", "phys")
                },
            ],
            &assoc(&[]),
            &qos(&[("normal", "GrpJobs=2"), ("other", "")]),
            None,
        );
        assert_eq!(held_all(&l), [ok("QOSGrpJobsLimit"), ok("")]);
        assert_eq!(
            plain(&l, 0),
            "QOS normal allows 2 jobs to run at once in all"
        );

        let l = site(
            &two,
            &[j("bob", "phys"), j("bob", "chem")],
            &assoc(&[]),
            &qos(&[("normal", "MaxJobsPA=1")]),
            None,
        );
        assert_eq!(
            held_all(&l),
            [ok("MaxJobsPerAccount"), ok("MaxJobsPerAccount")]
        );
        let l = site(
            &[j("ann", "phys")],
            &[j("bob", "phys"), j("cid", "chem")],
            &assoc(&[]),
            &qos(&[("normal", "MaxJobsPA=1")]),
            None,
        );
        assert_eq!(held_all(&l), [ok("MaxJobsPerAccount"), ok("")]);
        assert_eq!(
            plain(&l, 0),
            "QOS normal allows each account 1 job at once (phys)"
        );

        let l = site(
            &[j("ann", "phys")],
            &[j("ann", "chem"), j("bob", "phys")],
            &assoc(&[]),
            &qos(&[("normal", "MaxJobsPU=1")]),
            None,
        );
        // Per user across accounts (the QOS's user_limit_list is by uid).
        assert_eq!(held_all(&l), [ok("QOSMaxJobsPerUserLimit"), ok("")]);
        assert_eq!(
            plain(&l, 0),
            "QOS normal allows each user 1 job at once (ann)"
        );
    }

    /// `_qos_job_runnable_post_select`'s GrpTRES, one TRES at a time: the QOS's running
    /// jobs hold 12 of 16 CPUs, 24 of 32 GB, 2 of 3 nodes, 3 of 4 GPUs, 8 of 10 billing
    /// units; the job asking what no longer fits waits, with the TRES's reason
    /// (`_get_tres_state_reason`), the one asking what fits does not.
    #[test]
    fn qos_grp_tres_one_tres_at_a_time() {
        let run = J {
            cpus: 12,
            mem_gb: 24,
            gpus: 3,
            nodes: 2,
            billing: Some(8),
            ..j("ann", "phys")
        };
        let cases: [(&str, J, J, &str); 5] = [
            (
                "cpu=16",
                J {
                    cpus: 8,
                    ..j("bob", "phys")
                },
                J {
                    cpus: 4,
                    ..j("bob", "phys")
                },
                "QOSGrpCpuLimit",
            ),
            (
                "mem=32G",
                J {
                    mem_gb: 16,
                    ..j("bob", "phys")
                },
                J {
                    mem_gb: 8,
                    ..j("bob", "phys")
                },
                "QOSGrpMemLimit",
            ),
            (
                "node=3",
                J {
                    nodes: 2,
                    ..j("bob", "phys")
                },
                J {
                    nodes: 1,
                    ..j("bob", "phys")
                },
                "QOSGrpNodeLimit",
            ),
            (
                "gres/gpu=4",
                J {
                    gpus: 2,
                    ..j("bob", "phys")
                },
                J {
                    gpus: 1,
                    ..j("bob", "phys")
                },
                "QOSGrpGRES",
            ),
            (
                "billing=10",
                J {
                    billing: Some(4),
                    ..j("bob", "phys")
                },
                J {
                    billing: Some(2),
                    ..j("bob", "phys")
                },
                "QOSGrpBilling",
            ),
        ];
        for (limit, big, small, reason) in cases {
            let setting = format!("GrpTRES={limit}");
            let l = site(
                std::slice::from_ref(&run),
                &[big, small],
                "",
                &qos(&[("normal", &setting)]),
                None,
            );
            assert_eq!(held_all(&l), [ok(reason), ok("")], "{limit}");
        }
        let l = site(
            &[run],
            &[J {
                mem_gb: 16,
                ..j("bob", "phys")
            }],
            "",
            &qos(&[("normal", "GrpTRES=mem=32G")]),
            None,
        );
        assert_eq!(
            plain(&l, 0),
            "QOS normal allows its running jobs 32 GB of memory in all"
        );
        // Asking more than the QOS allows in all: never (the same reason, as slurmctld
        // gives it for TRES_USAGE_REQ_EXCEEDS_LIMIT).
        let l = site(
            &[],
            &[J {
                cpus: 32,
                ..j("bob", "phys")
            }],
            "",
            &qos(&[("normal", "GrpTRES=cpu=16")]),
            None,
        );
        assert_eq!(held_all(&l), [never("QOSGrpCpuLimit")]);
        assert_eq!(
            plain(&l, 0),
            "asks 32 CPUs; QOS normal allows its running jobs 16 CPUs in all"
        );
    }

    /// MaxTRESPU and MaxTRESPA: the user's (account's) running jobs in the QOS, whatever
    /// their account (user).
    #[test]
    fn qos_per_user_and_per_account_tres() {
        let run = [J {
            cpus: 6,
            ..j("ann", "phys")
        }];
        let l = site(
            &run,
            &[
                J {
                    cpus: 4,
                    ..j("ann", "phys")
                },
                J {
                    cpus: 4,
                    ..j("bob", "phys")
                },
            ],
            "",
            &qos(&[("normal", "MaxTRESPU=cpu=8")]),
            None,
        );
        assert_eq!(held_all(&l), [ok("QOSMaxCpuPerUserLimit"), ok("")]);
        assert_eq!(
            plain(&l, 0),
            "QOS normal allows each user 8 CPUs of running jobs (ann)"
        );
        let l = site(
            &run,
            &[
                J {
                    cpus: 4,
                    ..j("bob", "phys")
                },
                J {
                    cpus: 4,
                    ..j("cid", "chem")
                },
            ],
            "",
            &qos(&[("normal", "MaxTRESPA=cpu=8")]),
            None,
        );
        assert_eq!(held_all(&l), [ok("MaxCpuPerAccount"), ok("")]);
        let l = site(
            &[J {
                gpus: 2,
                ..j("ann", "phys")
            }],
            &[
                J {
                    gpus: 1,
                    ..j("ann", "phys")
                },
                J {
                    mem_gb: 16,
                    ..j("ann", "phys")
                },
            ],
            "",
            &qos(&[("normal", "MaxTRESPU=gres/gpu=2,mem=8G")]),
            None,
        );
        assert_eq!(
            held_all(&l),
            [ok("QOSMaxGRESPerUser"), never("QOSMaxMemoryPerUser")]
        );
    }

    /// The QOS's per-job limits (`MaxTRES`, `MaxTRESPerNode`, `MaxWall`) never clear by
    /// waiting: a job past one is never started.
    #[test]
    fn qos_per_job_limits_are_never() {
        let wait = [
            J {
                cpus: 32,
                ..j("ann", "phys")
            },
            J {
                cpus: 32,
                nodes: 2,
                ..j("ann", "phys")
            },
            J {
                minutes: 120,
                ..j("ann", "phys")
            },
            J {
                cpus: 16,
                ..j("ann", "phys")
            },
        ];
        let l = site(&[], &wait, "", &qos(&[("normal", "MaxTRES=cpu=16")]), None);
        assert_eq!(held_all(&l)[0], never("QOSMaxCpuPerJobLimit"));
        assert_eq!(held_all(&l)[3], ok(""));
        assert_eq!(
            plain(&l, 0),
            "asks 32 CPUs; QOS normal allows 16 CPUs per job"
        );
        // 32 CPUs on 2 nodes is 16 a node; CPUs anywhere (no node count) are not checked.
        let l = site(
            &[],
            &wait,
            "",
            &qos(&[("normal", "MaxTRESPerNode=cpu=8")]),
            None,
        );
        assert_eq!(held_all(&l)[..2], [ok(""), never("QOSMaxCpuPerNode")]);
        let l = site(
            &[],
            &wait,
            "",
            &qos(&[("normal", "MaxWall=01:00:00")]),
            None,
        );
        assert_eq!(held_all(&l)[2], never("QOSMaxWallDurationPerJobLimit"));
        assert_eq!(held_all(&l)[0], ok(""));
        assert_eq!(
            plain(&l, 2),
            "asks 02:00:00; QOS normal allows 01:00:00 per job"
        );
    }

    /// The association's own limits: MaxJobs (its running jobs), GrpJobs and GrpTRES at
    /// the user's association, MaxTRES, MaxTRESPerNode and MaxWall per job.
    #[test]
    fn the_users_association() {
        let l = site(
            &[j("ann", "phys")],
            &[j("ann", "phys"), j("bob", "phys")],
            &assoc(&[("phys/ann", "MaxJobs=1")]),
            "",
            None,
        );
        assert_eq!(held_all(&l), [ok("AssocMaxJobsLimit"), ok("")]);
        assert_eq!(plain(&l, 0), "association phys/ann may run 1 job at once");
        let l = site(
            &[j("ann", "phys")],
            &[j("ann", "phys"), j("bob", "phys")],
            &assoc(&[("phys/ann", "GrpJobs=1")]),
            "",
            None,
        );
        assert_eq!(held_all(&l), [ok("AssocGrpJobsLimit"), ok("")]);
        assert_eq!(
            plain(&l, 0),
            "association phys/ann may run 1 job at once in all"
        );
        for (limit, ask, reason) in [
            (
                "cpu=8",
                J {
                    cpus: 4,
                    ..j("ann", "phys")
                },
                "AssocGrpCpuLimit",
            ),
            (
                "mem=8G",
                J {
                    mem_gb: 4,
                    ..j("ann", "phys")
                },
                "AssocGrpMemLimit",
            ),
            (
                "node=1",
                J {
                    nodes: 1,
                    ..j("ann", "phys")
                },
                "AssocGrpNodeLimit",
            ),
            (
                "gres/gpu=2",
                J {
                    gpus: 1,
                    ..j("ann", "phys")
                },
                "AssocGrpGRES",
            ),
            (
                "billing=8",
                J {
                    billing: Some(4),
                    ..j("ann", "phys")
                },
                "AssocGrpBilling",
            ),
        ] {
            let run = J {
                cpus: 6,
                mem_gb: 6,
                gpus: 2,
                billing: Some(6),
                ..j("ann", "phys")
            };
            let setting = format!("GrpTRES={limit}");
            let l = site(
                &[run],
                &[ask, j("bob", "phys")],
                &assoc(&[("phys/ann", &setting)]),
                "",
                None,
            );
            assert_eq!(held_all(&l), [ok(reason), ok("")], "{limit}");
        }
        let wait = [
            J {
                cpus: 16,
                ..j("ann", "phys")
            },
            J {
                cpus: 16,
                nodes: 2,
                ..j("ann", "phys")
            },
            J {
                minutes: 120,
                ..j("ann", "phys")
            },
        ];
        let l = site(
            &[],
            &wait,
            &assoc(&[("phys/ann", "MaxTRES=cpu=8")]),
            "",
            None,
        );
        assert_eq!(
            held_all(&l)[..2],
            [
                never("AssocMaxCpuPerJobLimit"),
                never("AssocMaxCpuPerJobLimit")
            ]
        );
        let l = site(
            &[],
            &wait,
            &assoc(&[("phys/ann", "MaxTRESPerNode=cpu=4")]),
            "",
            None,
        );
        assert_eq!(held_all(&l)[..2], [ok(""), never("AssocMaxCpuPerNode")]);
        let l = site(
            &[],
            &wait,
            &assoc(&[("phys/ann", "MaxWall=01:00:00")]),
            "",
            None,
        );
        assert_eq!(held_all(&l)[2], never("AssocMaxWallDurationPerJobLimit"));
        assert_eq!(
            plain(&l, 2),
            "asks 02:00:00; association phys/ann allows 01:00:00 per job"
        );
        // A partition's association is the job's in that partition only.
        let l = site(
            &[J {
                part: "gpu",
                qos: "normal",
                ..j("ann", "phys")
            }],
            &[
                J {
                    part: "gpu",
                    ..j("ann", "phys")
                },
                j("ann", "phys"),
            ],
            &assoc(&[("phys/ann@gpu", "MaxJobs=1")]),
            "",
            None,
        );
        assert_eq!(held_all(&l), [ok("AssocMaxJobsLimit"), ok("")]);
    }

    /// Grp limits hold at every level for the whole subtree: phys's GrpJobs=2 counts ann's
    /// and bob's jobs and holds a third of phys; root's GrpTRES=cpu=32 counts phys's and
    /// chem's and holds anyone's. Max limits are handed down: phys's MaxJobs=1 is ann's and
    /// bob's own (each may run one), and root's MaxWall everyone's.
    #[test]
    fn each_level_of_the_tree() {
        let l = site(
            &[j("ann", "phys"), j("bob", "phys")],
            &[j("ann", "phys"), j("cid", "chem")],
            &assoc(&[("phys", "GrpJobs=2")]),
            "",
            None,
        );
        assert_eq!(held_all(&l), [ok("AssocGrpJobsLimit"), ok("")]);
        assert_eq!(
            plain(&l, 0),
            "association phys may run 2 jobs at once across its users and sub-accounts"
        );
        let l = site(
            &[
                J {
                    cpus: 20,
                    ..j("ann", "phys")
                },
                J {
                    cpus: 10,
                    ..j("cid", "chem")
                },
            ],
            &[
                J {
                    cpus: 4,
                    ..j("bob", "phys")
                },
                J {
                    cpus: 2,
                    ..j("cid", "chem")
                },
            ],
            &assoc(&[("root", "GrpTRES=cpu=32")]),
            "",
            None,
        );
        assert_eq!(held_all(&l), [ok("AssocGrpCpuLimit"), ok("")]);
        assert_eq!(
            plain(&l, 0),
            "association root may hold 32 CPUs at once across its users and sub-accounts"
        );
        let l = site(
            &[j("ann", "phys")],
            &[j("ann", "phys"), j("bob", "phys")],
            &assoc(&[("phys", "MaxJobs=1")]),
            "",
            None,
        );
        assert_eq!(held_all(&l), [ok("AssocMaxJobsLimit"), ok("")]);
        let l = site(
            &[],
            &[J {
                minutes: 120,
                ..j("cid", "chem")
            }],
            &assoc(&[("root", "MaxWall=01:00:00")]),
            "",
            None,
        );
        assert_eq!(held_all(&l), [never("AssocMaxWallDurationPerJobLimit")]);
        // The user's own value wins over the one handed down.
        let l = site(
            &[],
            &[J {
                minutes: 120,
                ..j("cid", "chem")
            }],
            &assoc(&[
                ("root", "MaxWall=01:00:00"),
                ("chem/cid", "MaxWall=04:00:00"),
            ]),
            "",
            None,
        );
        assert_eq!(held_all(&l), [ok("")]);
    }

    /// A limit a QOS sets overrides the association's same one (`qos_rec`): with QOS
    /// normal's GrpJobs=5, phys's GrpJobs=1 is not looked at; MaxJobsPU over MaxJobs;
    /// MaxWall over MaxWall; GrpTRES TRES by TRES (cpu overridden, mem not). A job of a QOS
    /// without them is held by the association's.
    #[test]
    fn qos_over_association() {
        let run = [j("ann", "phys")];
        let wait = [
            j("bob", "phys"),
            J {
                qos: "bare",
                ..j("bob", "phys")
            },
        ];
        let l = site(
            &run,
            &wait,
            &assoc(&[("phys", "GrpJobs=1")]),
            &qos(&[("normal", "GrpJobs=5"), ("bare", "")]),
            None,
        );
        assert_eq!(held_all(&l), [ok(""), ok("AssocGrpJobsLimit")]);
        let l = site(
            &run,
            &[
                j("ann", "phys"),
                J {
                    qos: "bare",
                    ..j("ann", "phys")
                },
            ],
            &assoc(&[("phys/ann", "MaxJobs=1")]),
            &qos(&[("normal", "MaxJobsPU=3"), ("bare", "")]),
            None,
        );
        assert_eq!(held_all(&l), [ok(""), ok("AssocMaxJobsLimit")]);
        let long = J {
            minutes: 120,
            ..j("ann", "phys")
        };
        let l = site(
            &[],
            &[
                long.clone(),
                J {
                    qos: "bare",
                    ..long
                },
            ],
            &assoc(&[("phys", "MaxWall=01:00:00")]),
            &qos(&[("normal", "MaxWall=04:00:00"), ("bare", "")]),
            None,
        );
        assert_eq!(
            held_all(&l),
            [ok(""), never("AssocMaxWallDurationPerJobLimit")]
        );
        let l = site(
            &[J {
                cpus: 8,
                mem_gb: 8,
                ..j("ann", "phys")
            }],
            &[
                J {
                    cpus: 4,
                    mem_gb: 0,
                    ..j("bob", "phys")
                },
                J {
                    mem_gb: 4,
                    ..j("bob", "phys")
                },
            ],
            &assoc(&[("phys", "GrpTRES=cpu=8,mem=8G")]),
            &qos(&[("normal", "GrpTRES=cpu=64")]),
            None,
        );
        assert_eq!(held_all(&l), [ok(""), ok("AssocGrpMemLimit")]);
    }

    /// The partition's QOS is checked first and the job's QOS second, unless the job's has
    /// OverPartQOS (`acct_policy_set_qos_order`); the first to set a limit wins. Partition
    /// gpu's QOS gpupart allows 1 job, the job's QOS high 10: gpupart holds a high job, not
    /// an OverPartQOS one. A running job counts towards both QOS.
    #[test]
    fn the_partition_qos_first_unless_over_part_qos() {
        let run = [J {
            part: "gpu",
            qos: "high",
            ..j("ann", "phys")
        }];
        let table = qos(&[
            ("gpupart", "GrpJobs=1"),
            ("high", "GrpJobs=10"),
            ("over", "GrpJobs=10 Flags=OverPartQOS"),
        ]);
        let wait = [
            J {
                part: "gpu",
                qos: "high",
                ..j("bob", "phys")
            },
            J {
                part: "gpu",
                qos: "over",
                ..j("bob", "phys")
            },
            J {
                part: "batch",
                qos: "high",
                ..j("bob", "phys")
            },
        ];
        let l = site(&run, &wait, "", &table, Some(CONF));
        assert_eq!(held_all(&l), [ok("QOSGrpJobsLimit"), ok(""), ok("")]);
        assert_eq!(
            plain(&l, 0),
            "QOS gpupart allows 1 job to run at once in all"
        );
        // Without AccountingStorageEnforce=limits no limit holds a job.
        let l = site(
            &run,
            &wait,
            "",
            &table,
            Some(&CONF.replace("associations,limits", "associations")),
        );
        assert!(l.caps.is_empty() && held_all(&l).iter().all(|h| h == &ok("")));
    }

    /// The first full limit in slurmctld's order names the reason: pre-select (QOS, then
    /// associations) before post-select, so a full QOS MaxJobsPU comes before a full QOS
    /// GrpTRES, and an association's MaxJobs before a QOS's GrpTRES.
    #[test]
    fn the_check_order_names_the_reason() {
        let run = [J {
            cpus: 8,
            ..j("ann", "phys")
        }];
        let l = site(
            &run,
            &[J {
                cpus: 8,
                ..j("ann", "phys")
            }],
            &assoc(&[("phys/ann", "MaxJobs=1")]),
            &qos(&[("normal", "GrpTRES=cpu=8 MaxJobsPU=1")]),
            None,
        );
        let names: Vec<&str> = l.pending[0]
            .as_ref()
            .unwrap()
            .iter()
            .map(|d| l.caps[d.cap].reason.as_str())
            .collect();
        // MaxJobsPU set by the QOS: the association's MaxJobs is not looked at.
        assert_eq!(names, ["QOSMaxJobsPerUserLimit", "QOSGrpCpuLimit"]);
        assert_eq!(held_all(&l), [ok("QOSMaxJobsPerUserLimit")]);
        let l = site(
            &run,
            &[J {
                cpus: 8,
                ..j("ann", "phys")
            }],
            &assoc(&[("phys/ann", "MaxJobs=1")]),
            &qos(&[("normal", "GrpTRES=cpu=8")]),
            None,
        );
        assert_eq!(held_all(&l), [ok("AssocMaxJobsLimit")]);
        // Every reason given is one `reasons` knows as a limit.
        for c in &l.caps {
            assert!(reasons::limit(&c.reason).is_some(), "{}", c.reason);
        }
    }

    /// A running job draws on every cap it counts towards: both its QOS (the partition's
    /// and its own), its association and each ancestor (`_adjust_limit_usage`). QOS high's
    /// GrpJobs=9 overrides root's GrpJobs (no cap is made of it for the waiting job).
    #[test]
    fn a_running_job_counts_at_every_level() {
        let run = [J {
            part: "gpu",
            qos: "high",
            cpus: 4,
            ..j("ann", "phys")
        }];
        let l = site(
            &run,
            &[J {
                part: "gpu",
                qos: "high",
                ..j("bob", "phys")
            }],
            &assoc(&[
                ("phys", "GrpTRES=mem=100G"),
                ("root", "GrpTRES=mem=200G GrpJobs=9"),
            ]),
            &qos(&[("gpupart", "GrpTRES=cpu=100"), ("high", "GrpJobs=9")]),
            Some(CONF),
        );
        let drawn: Vec<(&str, u64)> = l.running[0]
            .iter()
            .map(|d| (l.caps[d.cap].plain.as_str(), d.amount))
            .collect();
        assert_eq!(
            drawn,
            [
                ("QOS gpupart allows its running jobs 100 CPUs in all", 4),
                ("QOS high allows 9 jobs to run at once in all", 1),
                (
                    "association phys may hold 100 GB of memory at once across its users and \
                     sub-accounts",
                    1 << 20
                ),
                (
                    "association root may hold 200 GB of memory at once across its users and \
                     sub-accounts",
                    1 << 20
                ),
            ]
        );
        assert!(!l.caps.iter().any(|c| c.reason == "AssocGrpJobsLimit"));
    }

    /// A snapshot folder with both sacctmgr tables (tests/data/snapshot/slurm_limits, made
    /// as Slurm 22.05's sacctmgr prints them: the titles of `src/sacctmgr/common.c:
    /// _get_print_field`, the columns of `association_functions.c: sacctmgr_list_assoc` and
    /// `qos_functions.c: sacctmgr_list_qos`). Worked in the folder's README.
    #[test]
    fn a_snapshot_folder_with_the_sacctmgr_tables() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/snapshot/slurm_limits");
        let read = read_slurm_snapshot(&dir).unwrap();
        let missing: Vec<&str> = read
            .snapshot
            .missing
            .iter()
            .map(|m| m.part.as_str())
            .collect();
        assert_eq!(missing, Vec::<&str>::new());
        let l = slurm_limits(&read);
        let ids: Vec<&str> = read
            .snapshot
            .pending
            .iter()
            .map(|p| p.id.as_str())
            .collect();
        let got: Vec<(&str, Result<String, String>)> =
            ids.iter().copied().zip(held_all(&l)).collect();
        assert_eq!(
            got,
            [
                ("12", ok("QOSMaxJobsPerUserLimit")),
                ("14", ok("AssocGrpCpuLimit")),
                ("15", never("QOSMaxWallDurationPerJobLimit")),
                ("16", ok("QOSGrpGRES")),
                ("17", ok("")),
            ]
        );
        // A bad value is an error at its file and line.
        let tmp = tempfile::tempdir().unwrap();
        for e in std::fs::read_dir(&dir).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), tmp.path().join(e.file_name())).unwrap();
        }
        let q = std::fs::read_to_string(tmp.path().join("sacctmgr_qos.txt")).unwrap();
        std::fs::write(
            tmp.path().join("sacctmgr_qos.txt"),
            q.replace("gres/gpu=4", "gres/gpu=abc"),
        )
        .unwrap();
        let e = read_slurm_snapshot(tmp.path()).unwrap_err().to_string();
        assert!(
            e.ends_with(
                "sacctmgr_qos.txt:3: GrpTRES `gres/gpu=abc`: `abc` is not a count in `gres/gpu=abc`"
            ),
            "{e}"
        );
    }
}
