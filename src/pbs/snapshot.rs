//! A PBS site's state at one instant from its commands' outputs, a folder of:
//!
//! | file | made by | gives |
//! |---|---|---|
//! | `pbsnodes.json` | `pbsnodes -av -F json` | each vnode: `state`, `resources_available`, `resources_assigned`, `jobs`; the capture's `timestamp` |
//! | `qstat.json` | `qstat -f -t -F json` | every job: `job_state`; the running ones' `stime`, `exec_vnode`, `Resource_List`, owner, group, account, queue |
//! | `pbs_rstat.txt` | `pbs_rstat -f` | advance and standing reservations: `Reserve_Name`, `reserve_start`, `reserve_end`, `resv_nodes`, `reserve_state` |
//! | `qmgr.txt` | `qmgr -c 'print server'` (and `'print sched'`) | the server's and queues' settings ([`super::PbsSite`]) |
//! | `sched_config` | a copy of `PBS_HOME/sched_priv/sched_config` | the scheduler's settings ([`super::PbsSite`]) |
//!
//! Formats, from OpenPBS: `pbsnodes -F json` (`src/cmds/pbsnodes.c`: `encode_to_json` and
//! the prologue in `main`): `{"timestamp": T, "pbs_version", "pbs_server", "nodes": {vnode:
//! {...}}}`, a value a number when it reads as one, `resources_assigned` without its zero
//! values, `jobs` an array of job ids (a job once per run of its `id/N` slots). Node states:
//! `src/include/pbs_internal.h` (`ND_free`, `ND_jobbusy`, ...), several joined by commas.
//! `qstat -f -F json`: `{"timestamp", "pbs_version", "pbs_server", "Jobs": {id: {...}}}`
//! with times as `ctime` text. `pbs_rstat -f` (`src/cmds/pbs_rstat.c:
//! display_single_reservation`): `Resv ID: R1.srv`, then `name = value` lines and a blank
//! line; `reserve_start`/`reserve_end` printed by `strftime("%a %b %d %H:%M:%S %Y",
//! localtime())`, `reserve_state` as `RESV_CONFIRMED` and the like (`convert_resv_state`).
//! qstat and pbs_rstat print local time without its zone: they are read as UTC, so a capture
//! is made with `TZ=UTC` (`contrib/capture/pbs.sh` does).
//!
//! Values are read with PBS's units (`crate::input::units`: sizes to KB, `HH:MM:SS`), and
//! `exec_vnode`/`resv_nodes` with the accounting reader's parser
//! (`workload::pbs_accounting::each_exec_vnode_piece`).

use super::PbsSite;
use crate::input::units::{parse_ctime, parse_size, parse_time};
use crate::model::place::Place;
use crate::model::snapshot::read_nodes_and_jobs;
use crate::model::snapshot::{
    Ask, Held, Hold, Node, NodeState, PendingJob, Reservation, RunningJob, Scheduler, Snapshot,
    SnapshotError, path_key, read_part,
};
use crate::workload::pbs_accounting::{each_exec_vnode_piece, select_request};
use serde_json::Value;
use std::path::Path;

/// `pbsnodes -av -F json`.
pub const PBSNODES: &str = "pbsnodes.json";
/// `qstat -f -t -F json`.
pub const QSTAT: &str = "qstat.json";
/// `pbs_rstat -f`.
pub const RSTAT: &str = "pbs_rstat.txt";
/// `qmgr -c 'print server'`.
pub const QMGR: &str = "qmgr.txt";
/// A copy of `PBS_HOME/sched_priv/sched_config`.
pub const SCHED_CONFIG: &str = "sched_config";
/// A copy of `PBS_HOME/sched_priv/resource_group`: the fairshare tree (optional; read by
/// `why`, `forecast` and their page, not by the snapshot's reader).
pub const RESOURCE_GROUP: &str = "resource_group";
/// A copy of `PBS_HOME/sched_priv/usage`: the fairshare usage, beside `resource_group`.
pub const USAGE: &str = "usage";

/// The files of a PBS snapshot, in the order they are read.
pub const FILES: [&str; 5] = [PBSNODES, QSTAT, RSTAT, QMGR, SCHED_CONFIG];

/// A PBS snapshot: the state, and the site's configuration where the folder holds it.
#[derive(Debug, Clone)]
pub struct PbsSnapshot {
    pub snapshot: Snapshot,
    pub site: PbsSite,
}

/// Read a PBS snapshot folder (module docs). A missing file is a [`Missing`] part of the
/// snapshot; a folder with neither `pbsnodes.json` nor `qstat.json` is an error.
///
/// [`Missing`]: crate::model::snapshot::Missing
pub fn read_pbs_snapshot(dir: &Path) -> Result<PbsSnapshot, SnapshotError> {
    let mut snap = Snapshot::new(Scheduler::Pbs);
    let name = |f: &str| dir.join(f).display().to_string();
    let (nodes, jobs) = read_nodes_and_jobs(dir, Scheduler::Pbs, PBSNODES, QSTAT)?;
    match &nodes {
        Some(text) => parse_pbsnodes(text, &name(PBSNODES), &mut snap)?,
        None => snap.lacks(
            format!("{PBSNODES} (pbsnodes -av -F json)"),
            "no node list: nodes, their resources and states are unknown, and running jobs' \
             nodes cannot be checked",
        ),
    }
    match &jobs {
        Some(text) => parse_qstat(text, &name(QSTAT), &mut snap)?,
        None => snap.lacks(
            format!("{QSTAT} (qstat -f -t -F json)"),
            "no jobs: running jobs and their planned ends are unknown (nodes' assigned \
             resources still say what is busy), and no job is known to be waiting",
        ),
    }
    match read_part(&dir.join(RSTAT))? {
        Some(text) => parse_rstat(&text, &name(RSTAT), &mut snap)?,
        None => snap.lacks(
            format!("{RSTAT} (pbs_rstat -f)"),
            "reservations unknown: no node is known to be held for a future window",
        ),
    }
    let qmgr = dir.join(QMGR);
    let sched_config = dir.join(SCHED_CONFIG);
    let site = PbsSite::read(
        None,
        sched_config.is_file().then_some(sched_config.as_path()),
        qmgr.is_file().then_some(qmgr.as_path()),
    )
    .map_err(|e| SnapshotError::new(&dir.display().to_string(), None, e.to_string()))?;
    if site.qmgr.is_none() {
        snap.lacks(
            format!("{QMGR} (qmgr -c 'print server')"),
            "the server's and queues' settings are PBS's defaults",
        );
    }
    if site.sched_config.is_none() {
        snap.lacks(
            format!("{SCHED_CONFIG} (PBS_HOME/sched_priv/sched_config)"),
            "the scheduler's settings (formula, policy, fairshare) are PBS's defaults",
        );
    }
    snap.finish();
    Ok(PbsSnapshot {
        snapshot: snap,
        site,
    })
}

fn parse_json(text: &str, file: &str) -> Result<Value, SnapshotError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    serde_json::from_str(text).map_err(|e| {
        SnapshotError::at_line(
            file,
            e.line(),
            format!("invalid JSON (column {}): {e}", e.column()),
        )
    })
}

fn timestamp(doc: &Value) -> Option<i64> {
    doc.get("timestamp").and_then(Value::as_i64)
}

/// A resource value as PBS prints it: a number (a count; bytes for a size resource), or a
/// size with its unit (`16gb`, `4194304kb`) in KB. Text that is neither (`host`, `arch`,
/// `vnode`) is `None`: not a consumable.
fn amount(name: &str, v: &Value) -> Option<u64> {
    let is_size = matches!(name, "mem" | "vmem" | "pmem" | "hpmem");
    match v {
        Value::Number(n) => {
            let x = n.as_f64()?;
            if x < 0.0 {
                return None;
            }
            Some(if is_size {
                (x / 1024.0).ceil() as u64
            } else {
                x as u64
            })
        }
        Value::String(s) => {
            let t = s.trim();
            let unit = t.ends_with(['b', 'B', 'w', 'W']);
            let starts = t.starts_with(|c: char| c.is_ascii_digit());
            if starts && (unit || is_size) {
                parse_size(t).ok().map(|kb| kb as u64)
            } else if starts && t.bytes().all(|b| b.is_ascii_digit()) {
                t.parse().ok()
            } else {
                None
            }
        }
        _ => None,
    }
}

/// A PBS node state (`state`, words joined by commas: `job-busy`, `offline,down`) as a
/// [`NodeState`]: the word that keeps most work off the node decides. A node that is
/// `free` with resources assigned runs jobs: it is busy.
fn node_state(text: &str, running_something: bool) -> Result<NodeState, String> {
    let mut state = if running_something {
        NodeState::Busy
    } else {
        NodeState::Free
    };
    for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        let s = match word {
            "free" => NodeState::Free,
            "job-busy" | "job-exclusive" | "job-sharing" => NodeState::Busy,
            "resv-exclusive" => NodeState::Reserved,
            // `busy`: load above `max_load`; the scheduler places nothing there.
            "offline" | "offline_by_mom" | "maintenance" | "provisioning" | "wait-provisioning"
            | "initializing" | "sleep" | "busy" => NodeState::Offline,
            "down" | "Stale" | "state-unknown" | "unresolvable" => NodeState::Down,
            other => {
                return Err(format!(
                    "`{other}` is no PBS node state (pbs_internal.h: free, job-busy, \
                     job-exclusive, job-sharing, resv-exclusive, busy, offline, \
                     offline_by_mom, maintenance, provisioning, wait-provisioning, \
                     initializing, sleep, down, Stale, state-unknown, unresolvable)"
                ));
            }
        };
        state = state.max(s);
    }
    Ok(state)
}

/// Read `pbsnodes -av -F json` into `snap`'s nodes (see the module docs).
pub fn parse_pbsnodes(text: &str, file: &str, snap: &mut Snapshot) -> Result<(), SnapshotError> {
    let doc = parse_json(text, file)?;
    let nodes = doc.get("nodes").and_then(Value::as_object).ok_or_else(|| {
        SnapshotError::at_path(
            file,
            "$",
            "no `nodes` object (expected `pbsnodes -av -F json` output)",
        )
    })?;
    if let Some(t) = timestamp(&doc) {
        snap.taken_at.get_or_insert(t);
    }
    for (name, attrs) in nodes {
        let at = path_key("$.nodes", name);
        let obj = attrs
            .as_object()
            .ok_or_else(|| SnapshotError::at_path(file, &at, "expected an object"))?;
        let mut available = snap.zeros();
        let mut assigned = snap.zeros();
        for (key, out) in [
            ("resources_available", &mut available),
            ("resources_assigned", &mut assigned),
        ] {
            let Some(res) = obj.get(key) else { continue };
            let res = res.as_object().ok_or_else(|| {
                SnapshotError::at_path(file, path_key(&at, key), "expected an object")
            })?;
            for (r, v) in res {
                if let Some(a) = amount(r, v) {
                    let i = snap.resource(r);
                    Snapshot::set(out, i, a);
                }
            }
        }
        let jobs = match obj.get("jobs") {
            None => Vec::new(),
            // Each entry a job id, or a job's slot (`1.srv/0`, as the node's `jobs` attribute
            // holds them): one id per job, in order.
            Some(Value::Array(a)) => {
                let mut v: Vec<String> = Vec::new();
                for (i, j) in a.iter().enumerate() {
                    let slot = j.as_str().ok_or_else(|| {
                        SnapshotError::at_path(
                            file,
                            format!("{}[{i}]", path_key(&at, "jobs")),
                            "expected a job id",
                        )
                    })?;
                    let id = slot.split('/').next().unwrap_or(slot).trim();
                    if !v.iter().any(|j| j == id) {
                        v.push(id.to_string());
                    }
                }
                v
            }
            // Older pbsnodes: `"1.srv/0, 1.srv/1, 2.srv/0"`.
            Some(Value::String(s)) => {
                let mut v: Vec<String> = Vec::new();
                for slot in s.split(',').map(str::trim).filter(|x| !x.is_empty()) {
                    let id = slot.split('/').next().unwrap_or(slot);
                    if !v.iter().any(|j| j == id) {
                        v.push(id.to_string());
                    }
                }
                v
            }
            Some(_) => {
                return Err(SnapshotError::at_path(
                    file,
                    path_key(&at, "jobs"),
                    "expected an array of job ids",
                ));
            }
        };
        let state_text = match obj.get("state") {
            Some(Value::String(s)) => s.clone(),
            Some(_) => {
                return Err(SnapshotError::at_path(
                    file,
                    path_key(&at, "state"),
                    "expected a string",
                ));
            }
            None => {
                return Err(SnapshotError::at_path(file, &at, "no `state`"));
            }
        };
        let busy = !jobs.is_empty() || assigned.iter().any(|&a| a > 0);
        let state = node_state(&state_text, busy)
            .map_err(|m| SnapshotError::at_path(file, path_key(&at, "state"), m))?;
        snap.nodes.push(Node {
            name: name.clone(),
            state,
            state_text,
            available,
            assigned,
            jobs,
            partitions: text_field_value(obj.get("queue")).into_iter().collect(),
        });
    }
    Ok(())
}

fn text_field(job: &serde_json::Map<String, Value>, key: &str) -> Option<String> {
    match job.get(key)? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Read `qstat -f -t -F json` into `snap`: running jobs (state `R`, and `E`, exiting, which
/// still holds its nodes) with what they hold and how long they have run
/// (`resources_used.walltime`), pending ones (`Q`, and array parents `B` with
/// subjobs still queued when the file does not list their subjobs) by id, the others by id
/// and state.
pub fn parse_qstat(text: &str, file: &str, snap: &mut Snapshot) -> Result<(), SnapshotError> {
    let doc = parse_json(text, file)?;
    if let Some(t) = timestamp(&doc) {
        snap.taken_at = Some(t);
    }
    let Some(jobs) = doc.get("Jobs") else {
        // qstat prints no `Jobs` when there are none.
        if doc.get("pbs_server").is_some() || doc.get("timestamp").is_some() {
            return Ok(());
        }
        return Err(SnapshotError::at_path(
            file,
            "$",
            "no `Jobs` object (expected `qstat -f -F json` output)",
        ));
    };
    let jobs = jobs
        .as_object()
        .ok_or_else(|| SnapshotError::at_path(file, "$.Jobs", "expected an object"))?;
    let mut subjobs_of = std::collections::HashSet::new();
    for (id, attrs) in jobs {
        let at = path_key("$.Jobs", id);
        let job = attrs
            .as_object()
            .ok_or_else(|| SnapshotError::at_path(file, &at, "expected an object"))?;
        let state = text_field(job, "job_state")
            .ok_or_else(|| SnapshotError::at_path(file, path_key(&at, "job_state"), "missing"))?;
        match state.as_str() {
            "R" | "E" => {
                let run = running_job(id, job, file, &at, snap)?;
                snap.running.push(run);
            }
            "Q" | "H" | "W" => {
                let p = pending_job(id, job, &state, file, &at, snap)?;
                snap.pending.push(p);
            }
            "B" if text_field(job, "array_indices_remaining").is_some_and(|r| r != "-") => {
                let p = pending_job(id, job, &state, file, &at, snap)?;
                snap.pending.push(p);
            }
            _ => snap.other_jobs.push((id.clone(), state)),
        }
        if let Some(parent) = text_field(job, "array_id") {
            subjobs_of.insert(parent);
        }
    }
    // With `-t` an array's queued subjobs are listed one by one: they are what waits, and
    // their parent (state B) is not counted again. Without `-t` the parent stands for them.
    let before = snap.pending.len();
    snap.pending
        .retain(|j| !(subjobs_of.contains(&j.id) && j.id.contains("[]")));
    let parents_dropped = before - snap.pending.len();
    if parents_dropped > 0 {
        snap.other_jobs.extend(
            jobs.iter()
                .filter(|(id, _)| subjobs_of.contains(*id) && id.contains("[]"))
                .map(|(id, _)| (id.clone(), "B".to_string())),
        );
    }
    Ok(())
}

/// `Resource_List.walltime`: seconds, or `HH:MM:SS`; `None` when not given.
fn list_walltime(
    list: Option<&serde_json::Map<String, Value>>,
    list_at: &str,
    file: &str,
) -> Result<Option<i64>, SnapshotError> {
    match list.and_then(|l| l.get("walltime")) {
        None => Ok(None),
        Some(Value::Number(n)) => Ok(n.as_f64().map(|s| s as i64)),
        Some(Value::String(s)) => parse_time(s)
            .map(|t| Some(t as i64))
            .map_err(|m| SnapshotError::at_path(file, path_key(list_at, "walltime"), m)),
        Some(_) => Err(SnapshotError::at_path(
            file,
            path_key(list_at, "walltime"),
            "expected a time",
        )),
    }
}

fn text_field_value(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// A time qstat prints: `ctime` text (`Mon Dec  1 10:00:00 2025`) or a number.
fn time_field(
    job: &serde_json::Map<String, Value>,
    key: &str,
    file: &str,
    at: &str,
) -> Result<Option<i64>, SnapshotError> {
    match job.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => Ok(n.as_f64().map(|x| x as i64)),
        Some(Value::String(s)) => parse_plain_or_ctime(s).map(Some).ok_or_else(|| {
            SnapshotError::at_path(
                file,
                path_key(at, key),
                format!("`{s}` is not a time (expected `Mon Nov 30 01:00:00 2026`)"),
            )
        }),
        Some(_) => Err(SnapshotError::at_path(
            file,
            path_key(at, key),
            "expected a time",
        )),
    }
}

/// A waiting job (`Q`; `H` held, `W` waiting for its `Execution_Time`; an array parent):
/// its request (`Resource_List.select` and `place` as written, else `ncpus`, `mem`,
/// `ngpus` and the other consumables as one chunk, or `nodect` chunks under `place=scatter`),
/// its walltime, `qtime`, the scheduler's `comment`, and what holds it (`Hold_Types`,
/// `Execution_Time`, `depend`).
fn pending_job(
    id: &str,
    job: &serde_json::Map<String, Value>,
    state: &str,
    file: &str,
    at: &str,
    snap: &mut Snapshot,
) -> Result<PendingJob, SnapshotError> {
    let list = job.get("Resource_List").and_then(Value::as_object);
    let list_at = path_key(at, "Resource_List");
    let walltime = list_walltime(list, &list_at, file)?;
    let text_of = |k: &str| list.and_then(|l| text_field(l, k));
    let ask = match text_of("select") {
        Some(select) => {
            let sel = select_request(&select, text_of("place").as_deref())
                .map_err(|m| SnapshotError::at_path(file, path_key(&list_at, "select"), m))?;
            let parts = sel
                .parts
                .iter()
                .map(|p| {
                    let mut v = snap.zeros();
                    for (r, a) in &p.resources {
                        let i = snap.resource(r);
                        Snapshot::set(&mut v, i, *a);
                    }
                    (p.count, v)
                })
                .collect();
            Ask {
                parts,
                place: sel.place,
            }
        }
        None => {
            let mut v = snap.zeros();
            v[0] = 1;
            for (r, x) in list.into_iter().flatten() {
                if matches!(r.as_str(), "nodect" | "walltime" | "select" | "place") {
                    continue;
                }
                if let Some(a) = amount(r, x)
                    && (r == "ncpus" || r == "mem" || r == "ngpus" || snap.resources.contains(r))
                {
                    let i = snap.resource(r);
                    Snapshot::set(&mut v, i, a);
                }
            }
            let place = match text_of("place") {
                Some(p) => {
                    select_request("1:ncpus=1", Some(&p))
                        .map_err(|m| SnapshotError::at_path(file, path_key(&list_at, "place"), m))?
                        .place
                }
                None => Place::default(),
            };
            Ask {
                parts: vec![(1, v)],
                place,
            }
        }
    };
    // PBS holds a job on a dependency with the system hold `s` (`depend`, qsub(1B)).
    let depend = text_field(job, "depend");
    let hold = match state {
        "H" => match (text_field(job, "Hold_Types"), depend) {
            (Some(t), Some(d)) if t.contains('s') => Some(Hold::Dependency(d)),
            (Some(t), _) => Some(Hold::Held(format!("Hold_Types = {t}"))),
            (None, _) => Some(Hold::Held("held".to_string())),
        },
        "W" => Some(match time_field(job, "Execution_Time", file, at)? {
            Some(t) => Hold::BeginTime(t),
            None => Hold::Held("waiting (W) with no Execution_Time".to_string()),
        }),
        // The scheduler's comment on a job a limit holds back (`check.cpp`, `limits.cpp`:
        // "Not Running: User has reached server running job limit." and the like).
        _ => text_field(job, "comment")
            .filter(|c| c.starts_with("Not Running") && c.to_ascii_lowercase().contains("limit"))
            .map(Hold::Limit),
    };
    Ok(PendingJob {
        id: id.to_string(),
        user: text_field(job, "euser").or_else(|| {
            text_field(job, "Job_Owner").map(|o| o.split('@').next().unwrap_or(&o).to_string())
        }),
        group: text_field(job, "egroup"),
        account: text_field(job, "Account_Name").or_else(|| text_field(job, "project")),
        project: text_field(job, "project"),
        qos: None,
        queue: text_field(job, "queue").into_iter().collect(),
        submit: time_field(job, "qtime", file, at)?,
        walltime,
        ask,
        priority: None,
        reason: text_field(job, "comment"),
        hold,
    })
}

fn running_job(
    id: &str,
    job: &serde_json::Map<String, Value>,
    file: &str,
    at: &str,
    snap: &mut Snapshot,
) -> Result<RunningJob, SnapshotError> {
    let stime = text_field(job, "stime")
        .ok_or_else(|| SnapshotError::at_path(file, path_key(at, "stime"), "missing"))?;
    let start = parse_plain_or_ctime(&stime).ok_or_else(|| {
        SnapshotError::at_path(
            file,
            path_key(at, "stime"),
            format!("`{stime}` is not a time (expected `Mon Nov 30 01:00:00 2026`)"),
        )
    })?;
    let list = job.get("Resource_List").and_then(Value::as_object);
    let list_at = path_key(at, "Resource_List");
    let walltime = list_walltime(list, &list_at, file)?;
    let user = text_field(job, "euser").or_else(|| {
        text_field(job, "Job_Owner").map(|o| o.split('@').next().unwrap_or(&o).to_string())
    });
    let mut total = snap.zeros();
    let mut held = Vec::new();
    if let Some(ev) = text_field(job, "exec_vnode") {
        let ev_at = path_key(at, "exec_vnode");
        each_exec_vnode_piece(&ev, |vnode, resources| {
            let mut amounts = Vec::new();
            for &(r, v) in resources {
                let a = amount(r, &Value::String(v.to_string()))
                    .ok_or_else(|| format!("`{r}={v}` of vnode `{vnode}` is not an amount"))?;
                let i = snap.resource(r);
                Snapshot::set(&mut amounts, i, a);
                if total.len() <= i {
                    total.resize(i + 1, 0);
                }
                total[i] += a;
            }
            held.push(Held {
                node: vnode.to_string(),
                amounts,
            });
            Ok(())
        })
        .map_err(|m| SnapshotError::at_path(file, &ev_at, m))?;
    } else if let Some(list) = list {
        // No exec_vnode (a capture without `-f`?): what it asked for is what it holds.
        for (r, v) in list {
            if let Some(a) = amount(r, v)
                && (r == "ncpus" || r == "mem" || r == "ngpus" || snap.resources.contains(r))
            {
                let i = snap.resource(r);
                Snapshot::set(&mut total, i, a);
            }
        }
    }
    let used_at = path_key(&path_key(at, "resources_used"), "walltime");
    let elapsed = match job.get("resources_used").and_then(|u| u.get("walltime")) {
        None => None,
        Some(Value::Number(n)) => n.as_f64().map(|s| s as i64),
        Some(Value::String(s)) => {
            Some(parse_time(s).map_err(|m| SnapshotError::at_path(file, &used_at, m))? as i64)
        }
        Some(_) => return Err(SnapshotError::at_path(file, used_at, "expected a time")),
    };
    Ok(RunningJob {
        id: id.to_string(),
        user,
        group: text_field(job, "egroup"),
        account: text_field(job, "Account_Name").or_else(|| text_field(job, "project")),
        project: text_field(job, "project"),
        qos: None,
        queue: text_field(job, "queue"),
        start,
        walltime,
        held,
        total,
        elapsed,
    })
}

fn parse_plain_or_ctime(s: &str) -> Option<i64> {
    s.trim()
        .parse::<i64>()
        .ok()
        .or_else(|| parse_ctime(s).map(|t| t as i64))
}

/// Read `pbs_rstat -f` into `snap`'s reservations (see the module docs). A reservation
/// without `reserve_start` or `reserve_end` is an error at its `Resv ID` line.
pub fn parse_rstat(text: &str, file: &str, snap: &mut Snapshot) -> Result<(), SnapshotError> {
    struct Open {
        line: usize,
        resv: Reservation,
        start: Option<i64>,
        end: Option<i64>,
    }
    fn close(open: Option<Open>, file: &str, snap: &mut Snapshot) -> Result<(), SnapshotError> {
        let Some(o) = open else { return Ok(()) };
        let (Some(start), Some(end)) = (o.start, o.end) else {
            return Err(SnapshotError::at_line(
                file,
                o.line,
                format!(
                    "reservation {} has no reserve_start or reserve_end",
                    o.resv.id
                ),
            ));
        };
        snap.reservations.push(Reservation {
            start,
            end,
            ..o.resv
        });
        Ok(())
    }
    let mut open: Option<Open> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line = line.trim_end();
        if let Some(id) = line.strip_prefix("Resv ID:") {
            close(open.take(), file, snap)?;
            open = Some(Open {
                line: n,
                resv: Reservation {
                    id: id.trim().to_string(),
                    name: None,
                    start: 0,
                    end: 0,
                    nodes: Vec::new(),
                    state: None,
                },
                start: None,
                end: None,
            });
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        let Some(o) = open.as_mut() else {
            return Err(SnapshotError::at_line(
                file,
                n,
                "expected `Resv ID: ...` (pbs_rstat -f output)",
            ));
        };
        let Some((key, value)) = line.split_once(" = ") else {
            return Err(SnapshotError::at_line(
                file,
                n,
                format!("`{}` is not `name = value`", line.trim()),
            ));
        };
        let (key, value) = (key.trim(), value.trim());
        let time = || {
            parse_plain_or_ctime(value).ok_or_else(|| {
                SnapshotError::at_line(
                    file,
                    n,
                    format!("{key}: `{value}` is not a time (expected `Wed Jun 05 10:00:00 2024`)"),
                )
            })
        };
        match key {
            "Reserve_Name" => o.resv.name = Some(value.to_string()),
            "reserve_state" => o.resv.state = Some(value.to_string()),
            "reserve_start" => o.start = Some(time()?),
            "reserve_end" => o.end = Some(time()?),
            "resv_nodes" => {
                let mut nodes = Vec::new();
                each_exec_vnode_piece(value, |vnode, _| {
                    if !nodes.iter().any(|v| v == vnode) {
                        nodes.push(vnode.to_string());
                    }
                    Ok(())
                })
                .map_err(|m| SnapshotError::at_line(file, n, format!("resv_nodes: {m}")))?;
                o.resv.nodes = nodes;
            }
            _ => {}
        }
    }
    close(open, file, snap)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Built from the documented formats (no live PBS here): pbsnodes -av -F json as
    // OpenPBS src/cmds/pbsnodes.c encode_to_json writes it (numbers bare, sizes as text,
    // resources_assigned without zeros, jobs an array of ids).
    const PBSNODES_JSON: &str = r#"{
"timestamp":1764590400,
"pbs_version":"23.06.06",
"pbs_server":"srv",
"nodes":{
 "n1":{"Mom":"n1","Port":15002,"pbs_version":"23.06.06","ntype":"PBS","state":"job-busy",
   "pcpus":8,"jobs":["101.srv"],
   "resources_available":{"arch":"linux","host":"n1","mem":"16gb","ncpus":8,"ngpus":0,"vnode":"n1"},
   "resources_assigned":{"mem":"4194304kb","ncpus":8},
   "resv_enable":"True","sharing":"default_shared","last_state_change_time":1764590000},
 "n2":{"Mom":"n2","ntype":"PBS","state":"free","pcpus":8,"jobs":["102.srv"],
   "resources_available":{"host":"n2","mem":"16gb","ncpus":8,"ngpus":2,"vnode":"n2"},
   "resources_assigned":{"ncpus":2,"ngpus":1}},
 "n3":{"Mom":"n3","ntype":"PBS","state":"offline,down","pcpus":8,
   "resources_available":{"host":"n3","mem":"16gb","ncpus":8,"vnode":"n3"},
   "resources_assigned":{}},
 "n4":{"Mom":"n4","ntype":"PBS","state":"resv-exclusive","pcpus":8,"resv":"R5.srv",
   "resources_available":{"host":"n4","mem":"16gb","ncpus":8,"vnode":"n4"},
   "resources_assigned":{}},
 "n5":{"Mom":"n5","ntype":"PBS","state":"free","pcpus":8,
   "resources_available":{"host":"n5","mem":"16gb","ncpus":8,"vnode":"n5"},
   "resources_assigned":{}}
}}"#;

    // qstat -f -t -F json (OpenPBS 23, as tests/it/cli_job_states.rs has it), trimmed; times
    // are ctime text (captured with TZ=UTC).
    const QSTAT_JSON: &str = r#"{"timestamp":1764590400,"pbs_version":"23.06.06","pbs_server":"srv",
"Jobs":{
 "101.srv":{"Job_Name":"a","Job_Owner":"ann@login","job_state":"R","queue":"workq",
   "euser":"ann","egroup":"phys","Account_Name":"p1",
   "stime":"Mon Dec  1 10:00:00 2025","exec_host":"n1/0*8",
   "exec_vnode":"(n1:ncpus=8:mem=4194304kb)",
   "Resource_List":{"mem":"4gb","ncpus":8,"nodect":1,"place":"free","select":"1:ncpus=8:mem=4gb","walltime":"02:00:00"},
   "resources_used":{"cpupercent":790,"cput":"07:00:00","mem":"3gb","ncpus":8,"walltime":"00:40:00"}},
 "102.srv":{"Job_Owner":"bob@login","job_state":"R","queue":"gpu",
   "stime":"Mon Dec  1 11:00:00 2025","exec_vnode":"(n2:ncpus=2:ngpus=1)",
   "Resource_List":{"ncpus":2,"ngpus":1,"walltime":"00:30:00"}},
 "103.srv":{"Job_Owner":"ann@login","job_state":"Q","queue":"workq",
   "Resource_List":{"ncpus":16,"walltime":"01:00:00"}},
 "104.srv":{"Job_Owner":"cid@login","job_state":"H","Hold_Types":"u","queue":"workq",
   "Resource_List":{"ncpus":1,"walltime":"01:00:00"}}
}}"#;

    // pbs_rstat -f as src/cmds/pbs_rstat.c display_single_reservation prints it: one
    // advance and one standing reservation (reserve_rrule, reserve_index).
    const RSTAT_TXT: &str = "\
Resv ID: R5.srv
Reserve_Name = maint
Reserve_Owner = root@srv
reserve_type = 2
reserve_state = RESV_RUNNING
reserve_substate = 5
reserve_start = Mon Dec 01 11:00:00 2025
reserve_end = Mon Dec 01 15:00:00 2025
reserve_duration = 14400
queue = R5
Resource_List.ncpus = 8
Resource_List.nodect = 1
Resource_List.select = 1:ncpus=8
Resource_List.place = free
Resource_List.walltime = 04:00:00
resv_nodes = (n4:ncpus=8)
Authorized_Users = root@srv
server = srv
ctime = Sun Nov 30 09:00:00 2025
mtime = Sun Nov 30 09:00:00 2025

Resv ID: S6.srv
Reserve_Name = weekly
reserve_state = RESV_CONFIRMED
reserve_start = Tue Dec 02 08:00:00 2025
reserve_end = Tue Dec 02 10:00:00 2025
reserve_duration = 7200
reserve_rrule = FREQ=WEEKLY;COUNT=4
reserve_count = 4
reserve_index = 1
resv_nodes = (n5:ncpus=4)+(n5:ncpus=4)

";

    fn write_dir(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    #[test]
    fn a_full_pbs_snapshot_reads_nodes_jobs_and_reservations() {
        let dir = write_dir(&[
            (PBSNODES, PBSNODES_JSON),
            (QSTAT, QSTAT_JSON),
            (RSTAT, RSTAT_TXT),
        ]);
        let s = read_pbs_snapshot(dir.path()).unwrap().snapshot;
        assert_eq!(s.taken_at, Some(1_764_590_400));
        assert_eq!(&s.resources[..3], ["ncpus", "mem", "ngpus"]);
        let states: Vec<(&str, NodeState)> =
            s.nodes.iter().map(|n| (n.name.as_str(), n.state)).collect();
        assert_eq!(
            states,
            [
                ("n1", NodeState::Busy),
                ("n2", NodeState::Busy), // `free` with a job on it
                ("n3", NodeState::Down), // offline,down: down wins
                ("n4", NodeState::Reserved),
                ("n5", NodeState::Free),
            ]
        );
        let n1 = s.node("n1").unwrap();
        assert_eq!(n1.available[..3], [8, 16 * 1024 * 1024, 0]);
        assert_eq!(n1.assigned[..3], [8, 4 * 1024 * 1024, 0]);
        assert_eq!(s.node("n2").unwrap().assigned[..3], [2, 0, 1]);
        // Running jobs: start from stime (UTC), walltime from Resource_List, planned end.
        let a = &s.running[0];
        assert_eq!(a.id, "101.srv");
        assert_eq!(
            (a.user.as_deref(), a.group.as_deref(), a.account.as_deref()),
            (Some("ann"), Some("phys"), Some("p1"))
        );
        assert_eq!(a.start, 1_764_583_200); // 2025-12-01T10:00:00Z
        assert_eq!(a.planned_end(), Some(1_764_583_200 + 7200));
        assert_eq!(a.held[0].node, "n1");
        assert_eq!(a.elapsed, Some(40 * 60)); // resources_used.walltime
        assert_eq!(a.total[..3], [8, 4 * 1024 * 1024, 0]);
        let b = &s.running[1];
        assert_eq!((b.user.as_deref(), b.total[2]), (Some("bob"), 1));
        assert_eq!(b.elapsed, None);
        let ids: Vec<&str> = s.pending.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(ids, ["103.srv", "104.srv"]);
        assert!(s.other_jobs.is_empty());
        // A waiting job's request, and a held one's hold (qstat(1B) `Hold_Types`).
        let q = &s.pending[0];
        assert_eq!((q.ask.parts.len(), q.ask.parts[0].0), (1, 1));
        assert_eq!(q.ask.parts[0].1[0], 16);
        assert_eq!((q.walltime, q.hold.as_ref()), (Some(3600), None));
        assert_eq!(
            s.pending[1].hold,
            Some(Hold::Held("Hold_Types = u".to_string()))
        );
        // Reservations: times read as UTC, nodes from resv_nodes once each.
        assert_eq!(s.reservations.len(), 2);
        let r = &s.reservations[0];
        assert_eq!(
            (r.id.as_str(), r.name.as_deref()),
            ("R5.srv", Some("maint"))
        );
        assert_eq!((r.start, r.end - r.start), (1_764_586_800, 14_400));
        assert_eq!(r.nodes, ["n4"]);
        assert_eq!(s.reservations[1].nodes, ["n5"]);
        assert_eq!(s.reservations[1].state.as_deref(), Some("RESV_CONFIRMED"));
        // Only the configuration is missing, and the parts agree.
        let missing: Vec<&str> = s.missing.iter().map(|m| m.part.as_str()).collect();
        assert_eq!(
            missing,
            [
                "qmgr.txt (qmgr -c 'print server')",
                "sched_config (PBS_HOME/sched_priv/sched_config)"
            ]
        );
        assert_eq!(s.check(), []);
    }

    #[test]
    fn a_snapshot_missing_parts_loads_and_says_what_it_lacks() {
        let dir = write_dir(&[(PBSNODES, PBSNODES_JSON)]);
        let s = read_pbs_snapshot(dir.path()).unwrap().snapshot;
        assert_eq!(s.nodes.len(), 5);
        assert!(s.running.is_empty());
        let parts: Vec<&str> = s.missing.iter().map(|m| m.part.as_str()).collect();
        assert_eq!(parts[0], "qstat.json (qstat -f -t -F json)");
        assert_eq!(parts[1], "pbs_rstat.txt (pbs_rstat -f)");
        assert!(s.missing[0].changes.contains("planned ends are unknown"));
        let empty = tempfile::tempdir().unwrap();
        let e = read_pbs_snapshot(empty.path()).unwrap_err();
        assert!(e.message.starts_with("not a PBS snapshot"), "{e}");
    }

    #[test]
    fn a_running_job_on_a_vnode_the_node_list_lacks_is_found() {
        let qstat = QSTAT_JSON.replace("(n2:ncpus=2:ngpus=1)", "(n9:ncpus=2:ngpus=1)");
        let dir = write_dir(&[(PBSNODES, PBSNODES_JSON), (QSTAT, &qstat)]);
        let s = read_pbs_snapshot(dir.path()).unwrap().snapshot;
        let found: Vec<String> = s.check().iter().map(|d| d.to_string()).collect();
        assert_eq!(
            found,
            [
                "running job 102.srv is on node `n9`, which the node list lacks",
                "node `n2` lists job 102.srv, which does not hold it",
            ]
        );
    }

    #[test]
    fn bad_input_names_the_file_and_the_json_path_or_line() {
        let mut snap = Snapshot::new(Scheduler::Pbs);
        let bad_state = PBSNODES_JSON.replace("\"offline,down\"", "\"sideways\"");
        let e = parse_pbsnodes(&bad_state, "pbsnodes.json", &mut snap).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("pbsnodes.json: $.nodes.n3.state: `sideways` is no PBS node state"),
            "{e}"
        );
        let e = parse_pbsnodes("{\"nodes\": [", "pbsnodes.json", &mut snap).unwrap_err();
        assert!(
            e.to_string().starts_with("pbsnodes.json:1: invalid JSON"),
            "{e}"
        );
        let no_stime = QSTAT_JSON.replace("\"stime\":\"Mon Dec  1 11:00:00 2025\",", "");
        let e = parse_qstat(&no_stime, "qstat.json", &mut snap).unwrap_err();
        assert_eq!(
            e.to_string(),
            "qstat.json: $.Jobs[\"102.srv\"].stime: missing"
        );
        let bad_vnode = QSTAT_JSON.replace("(n2:ncpus=2:ngpus=1)", "(n2:ncpus=two)");
        let e = parse_qstat(&bad_vnode, "qstat.json", &mut snap).unwrap_err();
        assert_eq!(
            e.to_string(),
            "qstat.json: $.Jobs[\"102.srv\"].exec_vnode: `ncpus=two` of vnode `n2` is not an \
             amount"
        );
        let no_end = RSTAT_TXT.replace("reserve_end = Tue Dec 02 10:00:00 2025\n", "");
        let e = parse_rstat(&no_end, "pbs_rstat.txt", &mut snap).unwrap_err();
        assert_eq!(
            e.to_string(),
            "pbs_rstat.txt:22: reservation S6.srv has no reserve_start or reserve_end"
        );
        let bad_time = RSTAT_TXT.replace("Mon Dec 01 11:00:00 2025", "soon");
        let e = parse_rstat(&bad_time, "pbs_rstat.txt", &mut snap).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("pbs_rstat.txt:7: reserve_start: `soon`"),
            "{e}"
        );
    }

    #[test]
    fn an_arrays_queued_subjobs_wait_and_its_parent_stands_for_them_only_without_t() {
        // qstat -t lists subjobs (`104[4].srv`, with `array_id`) beside their parent
        // (`104[]`, state B, `array_indices_remaining`); without -t only the parent.
        let with_t = r#"{"timestamp":1,"pbs_version":"23.06.06","pbs_server":"srv","Jobs":{
          "104[].srv":{"job_state":"B","array":"True","array_indices_remaining":"4-5"},
          "104[4].srv":{"job_state":"Q","array_id":"104[].srv"},
          "104[5].srv":{"job_state":"Q","array_id":"104[].srv"}}}"#;
        let mut s = Snapshot::new(Scheduler::Pbs);
        parse_qstat(with_t, "qstat.json", &mut s).unwrap();
        let ids: Vec<&str> = s.pending.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(ids, ["104[4].srv", "104[5].srv"]);
        assert_eq!(s.other_jobs, [("104[].srv".to_string(), "B".to_string())]);
        let without_t = r#"{"timestamp":1,"pbs_version":"23.06.06","pbs_server":"srv","Jobs":{
          "104[].srv":{"job_state":"B","array":"True","array_indices_remaining":"4-5"}}}"#;
        let mut s = Snapshot::new(Scheduler::Pbs);
        parse_qstat(without_t, "qstat.json", &mut s).unwrap();
        assert_eq!(s.pending.len(), 1);
        assert_eq!(s.pending[0].id, "104[].srv");
    }

    #[test]
    fn amounts_read_pbs_units() {
        // pbsnodes prints sizes with their unit; counts bare.
        assert_eq!(amount("mem", &Value::from("16gb")), Some(16 * 1024 * 1024));
        assert_eq!(amount("mem", &Value::from(2048)), Some(2));
        assert_eq!(amount("ncpus", &Value::from(8)), Some(8));
        assert_eq!(
            amount("scratch", &Value::from("10gb")),
            Some(10 * 1024 * 1024)
        );
        assert_eq!(amount("host", &Value::from("n1")), None);
        assert_eq!(amount("arch", &Value::from("linux")), None);
    }
}
