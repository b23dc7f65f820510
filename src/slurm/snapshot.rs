//! A Slurm site's state at one instant from its commands' outputs, a folder of:
//!
//! | file | made by | gives |
//! |---|---|---|
//! | `squeue.json` | `squeue --all --json` | every job: `job_state`; the running ones' `start_time`, `time_limit`, `nodes`, `tres_alloc_str` (with 22.05's `job_resources`, what each node holds), user, group, account, partition |
//! | `nodes.json` | `scontrol show nodes --json` | each node: `state` (and `state_flags`), `cpus`, `real_memory`, `alloc_cpus`, `alloc_memory`, `tres`, `tres_used` |
//! | `sinfo.json` | `sinfo --json` of Slurm 22.05, read when `nodes.json` is not there | the same |
//! | `reservations.json` | `scontrol show reservation --json` | reservations: `name`, `start_time`, `end_time`, `node_list` |
//! | `slurm.conf` | a copy of the site's slurm.conf | the configuration ([`super::conf::SlurmConf`]) |
//! | `sacctmgr_assoc.txt` | `sacctmgr show assoc -P` (`slurm.sh` asks its default columns and `ParentName`) | the associations: their tree and limits (`GrpJobs`, `GrpTRES`, `MaxJobs`, `MaxTRES`, `MaxTRESPerNode`, `MaxWall`; [`super::assoc::Associations`]) |
//! | `sacctmgr_qos.txt` | `sacctmgr show qos -P` | each QOS's flags and limits ([`super::qos::QosList`]) |
//! | `taken_at.txt` | `date +%s` | the capture time, when no JSON file gives one |
//!
//! The two `sacctmgr` tables and each job's `billing` TRES (`tres_alloc_str` of a running
//! job, `tres_req_str` of a pending one) are kept in [`SlurmSnapshot::accounting`] for
//! [`super::limits::slurm_limits`]; associations of other clusters than slurm.conf's
//! `ClusterName` are left out.
//!
//! Slurm 22.05's `scontrol` has no `--json` (it came with 23.02); its `sinfo --json` writes
//! the node list of `openapi/v0.0.38`, the document slurmrestd's `GET /slurm/v0.0.38/nodes/`
//! returns (22.05 `src/sinfo/data.c: dump_data` calls that plugin's handler,
//! `src/plugins/openapi/v0.0.38/nodes.c: _op_handler_nodes`, one `_dump_node` per node), so
//! `sinfo.json` is read as `nodes.json` is. Later `sinfo --json` lists node groups per
//! partition under `sinfo` (`data_parser`'s `OPENAPI_SINFO_RESP`) and is not read: capture
//! `scontrol show nodes --json` there. 22.05's outputs name no capture time
//! (`openapi/v0.0.38` writes no `last_update`): `taken_at.txt` gives it; a `last_update` in
//! `squeue.json` (data_parser) wins over it.
//!
//! Two shapes are read. Slurm 22.05's `openapi/v0.0.38` (`src/plugins/openapi/v0.0.38/`:
//! `jobs.c: dump_job_info`, `nodes.c: _dump_node`, `reservations.c: _dump_res`) writes plain
//! numbers, `null` for an unset or infinite one, a node's `state` as one lower-case word
//! (`node_state_base_string`) with its flags in `state_flags`, and a job's `job_state` as one
//! word. The `data_parser/v0.0.40` and later plugins (Slurm 23.11 on; `slurmrestd(8)`'s
//! examples) write many numbers as `{"set": true, "infinite": false, "number": N}`, a
//! node's `state` and a job's `job_state` as lists of upper-case words (base state first,
//! then flags), and give the capture's `last_update`. Every such number object is first
//! made the plain number it stands for (`null` when unset or infinite), so both shapes are
//! then read alike; jobs go through [`super::jobs::parse_squeue_json`], the one `squeue
//! --json` reader, and only what it does not keep (state, start, nodes, allocation, group)
//! is read here. A field of a shape neither plugin writes is an error that names the
//! plugin the file says it came from (`meta.plugin`).
//!
//! Sizes: memory is in MB (`real_memory`, `alloc_memory`, `mem=` of a TRES string) and
//! becomes KB; `gres/gpu` becomes `ngpus`, another `gres/NAME` the resource `NAME`.

use super::assoc::Associations;
use super::conf::SlurmConf;
use super::jobs::{SqueueJobs, parse_squeue_json, parse_tres_str, plain_numbers, plugin};
use super::qos::QosList;
use crate::input::hostlist::expand_hostlist;
use crate::model::place::{Arrangement, Place, Sharing};
use crate::model::snapshot::read_nodes_and_jobs;
use crate::model::snapshot::{
    Ask, Held, Hold, Node, NodeState, PendingJob, Reservation, RunningJob, Scheduler, Snapshot,
    SnapshotError, read_part,
};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// `squeue --all --json`.
pub const SQUEUE: &str = "squeue.json";
/// `scontrol show nodes --json`.
pub const NODES: &str = "nodes.json";
/// `sinfo --json` of Slurm 22.05 (the same node list), when `nodes.json` is not there.
pub const SINFO: &str = "sinfo.json";
/// `scontrol show reservation --json`.
pub const RESERVATIONS: &str = "reservations.json";
/// A copy of slurm.conf.
pub const SLURM_CONF: &str = "slurm.conf";
/// `sacctmgr show assoc -P`.
pub const SACCTMGR_ASSOC: &str = "sacctmgr_assoc.txt";
/// `sacctmgr show qos -P`.
pub const SACCTMGR_QOS: &str = "sacctmgr_qos.txt";
/// `date +%s` at the capture.
pub const TAKEN_AT: &str = "taken_at.txt";

/// The files of a Slurm snapshot, in the order they are read.
pub const FILES: [&str; 8] = [
    TAKEN_AT,
    NODES,
    SINFO,
    SQUEUE,
    RESERVATIONS,
    SLURM_CONF,
    SACCTMGR_ASSOC,
    SACCTMGR_QOS,
];

/// A Slurm snapshot: the state, slurm.conf when the folder holds it, and what the limits
/// need beyond the state.
#[derive(Debug, Clone)]
pub struct SlurmSnapshot {
    pub snapshot: Snapshot,
    pub conf: Option<SlurmConf>,
    pub accounting: Accounting,
}

/// The association and QOS tables (each `None` when the folder lacks its file: those limits
/// are unknown), and each job's billing TRES.
#[derive(Debug, Clone, Default)]
pub struct Accounting {
    pub associations: Option<Associations>,
    pub qos: Option<QosList>,
    /// `billing=` of each running job's `tres_alloc_str`, in `Snapshot::running` order.
    pub running_billing: Vec<Option<u64>>,
    /// `billing=` of each pending job's `tres_req_str`, in `Snapshot::pending` order.
    pub pending_billing: Vec<Option<u64>>,
}

/// Read a Slurm snapshot folder (module docs). A missing file is a missing part of the
/// snapshot; a folder with neither a node list (`nodes.json`, else `sinfo.json`) nor
/// `squeue.json` is an error.
pub fn read_slurm_snapshot(dir: &Path) -> Result<SlurmSnapshot, SnapshotError> {
    let mut snap = Snapshot::new(Scheduler::Slurm);
    let name = |f: &str| dir.join(f).display().to_string();
    if let Some(text) = read_part(&dir.join(TAKEN_AT))? {
        let t = text.trim();
        snap.taken_at = Some(t.parse().map_err(|_| {
            SnapshotError::at_line(&name(TAKEN_AT), 1, format!("`{t}` is not Unix seconds"))
        })?);
    }
    let nodes_file = if !dir.join(NODES).is_file() && dir.join(SINFO).is_file() {
        SINFO
    } else {
        NODES
    };
    let (nodes, jobs) = read_nodes_and_jobs(dir, Scheduler::Slurm, nodes_file, SQUEUE)?;
    match &nodes {
        Some(text) => parse_nodes(text, &name(nodes_file), &mut snap)?,
        None => snap.lacks(
            format!("{NODES} (scontrol show nodes --json; on Slurm 22.05 {SINFO}, sinfo --json)"),
            "no node list: nodes, their resources and states are unknown, and running jobs' \
             nodes cannot be checked",
        ),
    }
    let mut accounting = Accounting::default();
    match &jobs {
        Some(text) => parse_squeue_with(text, &name(SQUEUE), &mut snap, &mut accounting)?,
        None => snap.lacks(
            format!("{SQUEUE} (squeue --all --json)"),
            "no jobs: running jobs and their planned ends are unknown (nodes' allocated CPUs \
             still say what is busy), and no job is known to be waiting",
        ),
    }
    match read_part(&dir.join(RESERVATIONS))? {
        Some(text) => parse_reservations(&text, &name(RESERVATIONS), &mut snap)?,
        None => snap.lacks(
            format!("{RESERVATIONS} (scontrol show reservation --json)"),
            "reservations unknown: no node is known to be held for a future window",
        ),
    }
    let conf_path = dir.join(SLURM_CONF);
    let conf = if conf_path.is_file() {
        Some(SlurmConf::load(&conf_path).map_err(|e| {
            SnapshotError::new(&conf_path.display().to_string(), None, e.to_string())
        })?)
    } else {
        snap.lacks(
            format!("{SLURM_CONF} (a copy of the site's slurm.conf)"),
            "the configuration (priority weights, partitions, scheduler) is Slurm's defaults",
        );
        None
    };
    let cluster = conf.as_ref().and_then(|c| c.cluster_name.as_deref());
    let sacctmgr_err =
        |e: super::assoc::AssocError| SnapshotError::at_line(&e.file, e.line, e.message);
    match read_part(&dir.join(SACCTMGR_ASSOC))? {
        Some(text) => {
            let a =
                Associations::parse(&text, &name(SACCTMGR_ASSOC), cluster).map_err(sacctmgr_err)?;
            if !a.tree_known
                && a.list
                    .iter()
                    .any(|x| x.user.is_empty() && x.account != "root")
            {
                snap.lacks(
                    format!("the accounts' parents ({SACCTMGR_ASSOC} has no ParentName column)"),
                    "every account is taken to be directly under root: a parent account's \
                     GrpJobs and GrpTRES do not reach its sub-accounts' jobs",
                );
            }
            if !a.lacking.is_empty() {
                snap.lacks(
                    format!("{SACCTMGR_ASSOC}'s columns {}", a.lacking.join(", ")),
                    "those association limits are unknown and read as unset (capture with \
                     sacctmgr's default columns)",
                );
            }
            accounting.associations = Some(a);
        }
        None => snap.lacks(
            format!("{SACCTMGR_ASSOC} (sacctmgr show assoc -P)"),
            "association limits unknown: no association's GrpJobs, GrpTRES, MaxJobs, MaxTRES \
             or MaxWall is known to hold a job",
        ),
    }
    match read_part(&dir.join(SACCTMGR_QOS))? {
        Some(text) => {
            let q = QosList::parse(&text, &name(SACCTMGR_QOS)).map_err(sacctmgr_err)?;
            if !q.lacking.is_empty() {
                snap.lacks(
                    format!("{SACCTMGR_QOS}'s columns {}", q.lacking.join(", ")),
                    "those QOS limits are unknown and read as unset (capture with sacctmgr's \
                     default columns)",
                );
            }
            accounting.qos = Some(q);
        }
        None => snap.lacks(
            format!("{SACCTMGR_QOS} (sacctmgr show qos -P)"),
            "QOS limits unknown: no QOS's GrpJobs, GrpTRES, MaxJobsPU, MaxTRESPU, MaxJobsPA, \
             MaxTRESPA, MaxTRES or MaxWall is known to hold a job",
        ),
    }
    if snap.taken_at.is_none() {
        snap.lacks(
            "capture time",
            format!(
                "no file gives it (openapi/v0.0.38 writes no `last_update`, and there is no \
                 {TAKEN_AT}): the instant of the snapshot must be given"
            ),
        );
    }
    snap.finish();
    Ok(SlurmSnapshot {
        snapshot: snap,
        conf,
        accounting,
    })
}

fn parse_doc(text: &str, file: &str) -> Result<Value, SnapshotError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        SnapshotError::at_line(
            file,
            e.line(),
            format!("invalid JSON (column {}): {e}", e.column()),
        )
    })?;
    Ok(plain_numbers(doc))
}

fn unrecognised(file: &str, path: String, what: &str, doc: &Value) -> SnapshotError {
    SnapshotError::at_path(
        file,
        path,
        format!(
            "{what}: a shape neither openapi/v0.0.38 nor data_parser/v0.0.40+ writes (this \
             file says it is from {})",
            plugin(doc)
        ),
    )
}

/// Words of a state: a string (`"idle"`, `"MIXED+DRAIN"`) or a list of strings, upper-cased.
fn state_words(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::String(s) => Some(
            s.split(['+', ',', ' '])
                .filter(|w| !w.is_empty())
                .map(|w| w.to_ascii_uppercase())
                .collect(),
        ),
        Value::Array(a) => a
            .iter()
            .map(|w| w.as_str().map(|s| s.to_ascii_uppercase()))
            .collect(),
        _ => None,
    }
}

/// A Slurm node state (base state and flags, `slurm.h`'s `NODE_STATE_*`, as
/// `node_state_base_string`/`node_state_flag_string_single` name them) as a [`NodeState`].
fn node_state(words: &[String]) -> Result<NodeState, String> {
    let Some(base) = words.first() else {
        return Err("no state".into());
    };
    let mut state = match base.as_str() {
        "IDLE" => NodeState::Free,
        "ALLOCATED" | "MIXED" => NodeState::Busy,
        "DOWN" | "ERROR" | "UNKNOWN" => NodeState::Down,
        // Not yet in service.
        "FUTURE" => NodeState::Offline,
        other => {
            return Err(format!(
                "`{other}` is no Slurm node base state (IDLE, ALLOCATED, MIXED, DOWN, ERROR, \
                 FUTURE, UNKNOWN)"
            ));
        }
    };
    for flag in &words[1..] {
        let s = match flag.as_str() {
            "DRAIN" | "DRAINING" | "DRAINED" => NodeState::Offline,
            "FAIL" | "FAILING" | "NOT_RESPONDING" => NodeState::Down,
            "RESERVED" | "MAINTENANCE" | "MAINT" => NodeState::Reserved,
            // COMPLETING, CLOUD, POWERED_DOWN (Slurm powers it up for a job), REBOOT_*,
            // PLANNED, DYNAMIC_*...: the node still takes jobs.
            _ => continue,
        };
        state = state.max(s);
    }
    Ok(state)
}

/// Add a TRES string's GRES counts (`gres/gpu=2`; typed `gres/gpu:a100=2` is part of the
/// untyped count and skipped) to `out`.
fn add_gres(snap: &mut Snapshot, tres: &str, out: &mut Vec<u64>) -> Result<(), String> {
    for (name, count) in parse_tres_str(tres)? {
        if let Some(g) = name.strip_prefix("gres/")
            && !g.contains(':')
        {
            let r = if g == "gpu" { "ngpus" } else { g };
            let i = snap.resource(r);
            Snapshot::set(out, i, count);
        }
    }
    Ok(())
}

/// Read `scontrol show nodes --json` into `snap`'s nodes.
pub fn parse_nodes(text: &str, file: &str, snap: &mut Snapshot) -> Result<(), SnapshotError> {
    let doc = parse_doc(text, file)?;
    if let Some(t) = doc.get("last_update").and_then(Value::as_i64) {
        snap.taken_at.get_or_insert(t);
    }
    let nodes = doc.get("nodes").and_then(Value::as_array).ok_or_else(|| {
        let m = if doc.get("sinfo").is_some() {
            "no `nodes` array: this is the `sinfo --json` of a Slurm later than 22.05 (node \
             groups per partition, under `sinfo`), which is not read; capture `scontrol show \
             nodes --json` (nodes.json) there"
        } else {
            "no `nodes` array (expected `scontrol show nodes --json` output, or Slurm 22.05's \
             `sinfo --json`)"
        };
        SnapshotError::at_path(file, "$", m)
    })?;
    for (i, n) in nodes.iter().enumerate() {
        let at = format!("$.nodes[{i}]");
        let field = |k: &str| n.get(k).filter(|v| !v.is_null());
        let name = field("name")
            .and_then(Value::as_str)
            .ok_or_else(|| SnapshotError::at_path(file, format!("{at}.name"), "missing"))?
            .to_string();
        let count = |k: &str| -> Result<u64, SnapshotError> {
            match field(k) {
                None => Ok(0),
                Some(v) => v
                    .as_u64()
                    .ok_or_else(|| unrecognised(file, format!("{at}.{k}"), "not a count", &doc)),
            }
        };
        let mut available = snap.zeros();
        let mut assigned = snap.zeros();
        available[0] = count("cpus")?;
        available[1] = count("real_memory")? * 1024;
        assigned[0] = count("alloc_cpus")?;
        assigned[1] = count("alloc_memory")? * 1024;
        for (key, out) in [("tres", &mut available), ("tres_used", &mut assigned)] {
            if let Some(t) = field(key).and_then(Value::as_str) {
                add_gres(snap, t, out)
                    .map_err(|m| SnapshotError::at_path(file, format!("{at}.{key}"), m))?;
            }
        }
        let mut words = field("state")
            .and_then(state_words)
            .ok_or_else(|| unrecognised(file, format!("{at}.state"), "not a node state", &doc))?;
        if let Some(flags) = field("state_flags").and_then(state_words) {
            words.extend(flags);
        }
        let state = node_state(&words)
            .map_err(|m| SnapshotError::at_path(file, format!("{at}.state"), m))?;
        snap.nodes.push(Node {
            name,
            state,
            state_text: words.join("+"),
            available,
            assigned,
            jobs: Vec::new(),
            partitions: match field("partitions") {
                Some(Value::Array(a)) => a
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect(),
                Some(Value::String(s)) => s
                    .split(',')
                    .filter(|p| !p.is_empty())
                    .map(str::to_string)
                    .collect(),
                _ => Vec::new(),
            },
        });
    }
    Ok(())
}

/// Read `squeue --json` into `snap`: running jobs (`RUNNING`, `CONFIGURING`) with their
/// nodes and allocation, pending ones by id, the others by id and state.
pub fn parse_squeue(text: &str, file: &str, snap: &mut Snapshot) -> Result<(), SnapshotError> {
    parse_squeue_with(text, file, snap, &mut Accounting::default())
}

/// The `billing=` count of a job's TRES string, when it names one.
fn billing(j: &Value, key: &str) -> Option<u64> {
    let t = j.get(key)?.as_str()?;
    parse_tres_str(t)
        .ok()?
        .into_iter()
        .find(|(n, _)| n == "billing")
        .map(|(_, c)| c)
}

/// [`parse_squeue`], keeping each job's billing TRES in `accounting`.
fn parse_squeue_with(
    text: &str,
    file: &str,
    snap: &mut Snapshot,
    accounting: &mut Accounting,
) -> Result<(), SnapshotError> {
    let doc = parse_doc(text, file)?;
    if let Some(t) = doc.get("last_update").and_then(Value::as_i64) {
        snap.taken_at = Some(t);
    }
    // The one squeue reader, on the plain-number form of the document.
    let rows = parse_squeue_json(&doc.to_string(), file, &BTreeMap::new(), SqueueJobs::All)
        .map_err(|e| {
            // Its messages start with the job's path (`jobs[3].cpus: ...`).
            let m = format!("{} ({})", e.message, plugin(&doc));
            match m.split_once(": ").filter(|(p, _)| p.starts_with("jobs[")) {
                Some((path, rest)) => SnapshotError::at_path(file, format!("$.{path}"), rest),
                None => SnapshotError::new(file, None, m),
            }
        })?
        .jobs;
    let jobs = doc
        .get("jobs")
        .and_then(Value::as_array)
        .map_or(&[][..], |a| a);
    // A job queued in several partitions is one row per partition: its first row stands for it.
    let mut rows = rows.into_iter().peekable();
    for (i, j) in jobs.iter().enumerate() {
        let Some(row) = rows.next() else { break };
        while rows.peek().is_some_and(|r| r.id == row.id) {
            rows.next();
        }
        let at = format!("$.jobs[{i}]");
        let field = |k: &str| j.get(k).filter(|v| !v.is_null());
        let words = field("job_state").and_then(state_words).ok_or_else(|| {
            unrecognised(file, format!("{at}.job_state"), "not a job state", &doc)
        })?;
        let base = words.first().map_or("", String::as_str);
        match base {
            "PENDING" => {
                let p = pending_job(row, j, &at, file, snap)?;
                snap.pending.push(p);
                accounting.pending_billing.push(billing(j, "tres_req_str"));
            }
            "RUNNING" | "CONFIGURING" => {
                let start = field("start_time").and_then(Value::as_i64).ok_or_else(|| {
                    SnapshotError::at_path(file, format!("{at}.start_time"), "missing")
                })?;
                let held = match field("nodes").and_then(Value::as_str) {
                    Some(list) if !list.is_empty() => expand_hostlist(list)
                        .map_err(|m| SnapshotError::at_path(file, format!("{at}.nodes"), m))?
                        .into_iter()
                        .map(|node| Held {
                            node,
                            amounts: Vec::new(),
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                let mut total = snap.zeros();
                if let Some(t) = field("tres_alloc_str").and_then(Value::as_str) {
                    let bad =
                        |m: String| SnapshotError::at_path(file, format!("{at}.tres_alloc_str"), m);
                    for (name, count) in parse_tres_str(t).map_err(bad)? {
                        match name.as_str() {
                            "cpu" => total[0] = count,
                            "mem" => total[1] = count * 1024,
                            _ => {}
                        }
                    }
                    add_gres(snap, t, &mut total).map_err(bad)?;
                } else if let Some(c) = row.values.get("ncpus") {
                    total[0] = *c as u64;
                }
                let mut held = held;
                if let Some(each) = allocated_per_node(j, &held, &total) {
                    for (h, a) in held.iter_mut().zip(each) {
                        h.amounts = a;
                    }
                }
                snap.running.push(RunningJob {
                    id: row.id,
                    user: row.user,
                    group: field("group_name")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    account: row.account,
                    project: None,
                    qos: j.get("qos").and_then(Value::as_str).map(str::to_string),
                    queue: row.queue,
                    start,
                    // Minutes; none for a job without a limit (`null`: INFINITE).
                    walltime: row.values.get("time_limit").map(|m| *m as i64 * 60),
                    held,
                    total,
                    elapsed: None,
                });
                accounting
                    .running_billing
                    .push(billing(j, "tres_alloc_str"));
            }
            _ => snap.other_jobs.push((row.id, words.join(","))),
        }
    }
    Ok(())
}

/// What a running job holds on each of its nodes, from 22.05's `job_resources` (openapi
/// v0.0.38 `jobs.c: _dump_nodes_res`): per node (`allocated_nodes[].nodename`) the cores
/// allocated, by socket, and `memory_allocated` (MB). The job's CPUs (`total`) are shared in
/// proportion to the cores (exactly the cores when a core is a CPU), its GRES evenly. `None`
/// when the capture has no such list for every one of `held`'s nodes (later shapes, or a
/// job not yet placed): the plan then spreads the job's total evenly.
fn allocated_per_node(j: &Value, held: &[Held], total: &[u64]) -> Option<Vec<Vec<u64>>> {
    let list = j.get("job_resources")?.get("allocated_nodes")?.as_array()?;
    let n = held.len();
    let (mut cores, mut mem) = (vec![0u64; n], vec![None; n]);
    for a in list {
        let name = a.get("nodename")?.as_str()?;
        let i = held.iter().position(|h| h.node == name)?;
        cores[i] = a
            .get("sockets")?
            .as_object()?
            .values()
            .map(|s| {
                s.get("cores")
                    .and_then(Value::as_object)
                    .map_or(0, |c| c.len()) as u64
            })
            .sum();
        mem[i] = a.get("memory_allocated").and_then(Value::as_u64);
    }
    let sum: u64 = cores.iter().sum();
    if n < 2 || cores.contains(&0) {
        return None;
    }
    // CPUs in proportion to the cores; what rounding leaves, to the largest remainders.
    let mut cpus: Vec<u64> = cores.iter().map(|c| total[0] * c / sum).collect();
    let mut by_rest: Vec<usize> = (0..n).collect();
    by_rest.sort_by_key(|&i| std::cmp::Reverse(total[0] * cores[i] % sum));
    let left = total[0] - cpus.iter().sum::<u64>();
    for &i in by_rest.iter().take(left as usize) {
        cpus[i] += 1;
    }
    Some(
        (0..n)
            .map(|i| {
                let mut a: Vec<u64> = total.iter().map(|t| t.div_ceil(n as u64)).collect();
                a[0] = cpus[i];
                a[1] = mem[i].map_or(a[1], |m| m * 1024);
                a
            })
            .collect(),
    )
}

/// A pending job of `squeue --json`: its request (CPUs `cpus`, memory and GRES from
/// `tres_req_str`), the scheduler's `priority` and `state_reason`, and what holds it:
/// priority 0 (held: `JobHeldUser`, `JobHeldAdmin`), `Dependency`, a `begin_time` in the
/// future.
///
/// The request is nodes × (CPUs, memory, GRES) per node, each spread evenly, when the job
/// fixed its node count (`-N`: `max_nodes` set; the count is `node=` of `tres_req_str`, the
/// job's `details->min_nodes` as `job_set_req_tres` writes it); else its CPUs anywhere, each
/// with its `memory_per_cpu` when the memory is per CPU, the rest of the memory and the GRES
/// with the first. A pending job's `node_count` is not its request: it is the number of
/// nodes Slurm last guessed it would take (`node_cnt_wag`, set by `select_nodes` at each
/// attempt, 22.05 `node_scheduler.c`; packed as the job's node count by `job_mgr.c:
/// _pack_default_job_details`), so 12 CPUs on 8-CPU nodes show 2 where Slurm places 8 + 4.
fn pending_job(
    row: crate::jobs::Job,
    j: &Value,
    at: &str,
    file: &str,
    snap: &mut Snapshot,
) -> Result<PendingJob, SnapshotError> {
    let field = |k: &str| j.get(k).filter(|v| !v.is_null());
    let mut total = snap.zeros();
    total[0] = row.values.get("ncpus").map_or(1, |c| (*c as u64).max(1));
    let mut min_nodes = row.values.get("min_nodes").map_or(1, |n| *n as u64);
    if let Some(t) = field("tres_req_str").and_then(Value::as_str) {
        let bad = |m: String| SnapshotError::at_path(file, format!("{at}.tres_req_str"), m);
        for (name, count) in parse_tres_str(t).map_err(bad)? {
            match name.as_str() {
                "cpu" => total[0] = total[0].max(count),
                "mem" => total[1] = count * 1024,
                "node" => min_nodes = count,
                _ => {}
            }
        }
        add_gres(snap, t, &mut total).map_err(bad)?;
    }
    total.resize(snap.resources.len(), 0);
    let fixed = field("max_nodes")
        .and_then(Value::as_u64)
        .is_some_and(|m| m > 0);
    let nodes = if fixed { min_nodes.max(1) } else { 0 };
    let exclusive = matches!(
        field("shared").and_then(Value::as_str),
        Some("none" | "exclusive")
    ) || field("exclusive").and_then(Value::as_bool) == Some(true);
    let place = Place {
        arrangement: if nodes > 0 {
            Arrangement::Scatter
        } else {
            Arrangement::Free
        },
        sharing: if exclusive {
            Sharing::Excl
        } else {
            Sharing::Shared
        },
    };
    let ask = if nodes > 0 {
        let per: Vec<u64> = total.iter().map(|t| t.div_ceil(nodes)).collect();
        Ask {
            parts: vec![(nodes as u32, per)],
            place,
        }
    } else {
        // CPUs anywhere, each with its memory when that is per CPU; the rest of the memory
        // and the GRES with the first.
        let mut one = snap.zeros();
        one[0] = 1;
        let mut rest = total.clone();
        rest[0] = 0;
        if let Some(m) = field("memory_per_cpu")
            .and_then(Value::as_u64)
            .map(|m| m * 1024)
            .filter(|&m| m > 0 && m.saturating_mul(total[0]) == total[1])
        {
            one[1] = m;
            rest[1] = 0;
        }
        let mut parts = vec![(total[0] as u32, one.clone())];
        if rest.iter().any(|&x| x > 0) {
            parts[0].0 -= 1;
            rest[0] = 1;
            rest[1] += one[1];
            parts.insert(0, (1, rest));
        }
        parts.retain(|(n, _)| *n > 0);
        Ask { parts, place }
    };
    let priority = field("priority").and_then(Value::as_f64);
    let reason = field("state_reason")
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty() && *r != "None")
        .map(str::to_string);
    let begin = field("begin_time")
        .or_else(|| field("eligible_time"))
        .and_then(Value::as_i64);
    let hold = if priority == Some(0.0) {
        Some(Hold::Held(reason.clone().unwrap_or_else(|| "held".into())))
    } else if reason.as_deref() == Some("Dependency")
        || reason.as_deref() == Some("DependencyNeverSatisfied")
    {
        Some(Hold::Dependency(
            field("dependency")
                .and_then(Value::as_str)
                .filter(|d| !d.is_empty())
                .unwrap_or("a dependency")
                .to_string(),
        ))
    } else if let Some(r) = reason
        .as_deref()
        .filter(|r| super::reasons::limit(r).is_some())
    {
        Some(Hold::Limit(r.to_string()))
    } else {
        match (begin, snap.taken_at) {
            (Some(b), Some(now)) if b > now => Some(Hold::BeginTime(b)),
            _ => None,
        }
    };
    let queue = row
        .queue
        .as_deref()
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    Ok(PendingJob {
        id: row.id,
        user: row.user,
        group: field("group_name")
            .and_then(Value::as_str)
            .map(str::to_string),
        account: row.account,
        project: None,
        qos: field("qos").and_then(Value::as_str).map(str::to_string),
        queue,
        submit: row.submit.map(|s| s as i64),
        walltime: row.values.get("time_limit").map(|m| *m as i64 * 60),
        ask,
        priority,
        reason,
        hold,
    })
}

/// Read `scontrol show reservation --json` into `snap`'s reservations.
pub fn parse_reservations(
    text: &str,
    file: &str,
    snap: &mut Snapshot,
) -> Result<(), SnapshotError> {
    let doc = parse_doc(text, file)?;
    let list = doc
        .get("reservations")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            SnapshotError::at_path(
                file,
                "$",
                "no `reservations` array (expected `scontrol show reservation --json` output)",
            )
        })?;
    for (i, r) in list.iter().enumerate() {
        let at = format!("$.reservations[{i}]");
        let field = |k: &str| r.get(k).filter(|v| !v.is_null());
        let name = field("name")
            .and_then(Value::as_str)
            .ok_or_else(|| SnapshotError::at_path(file, format!("{at}.name"), "missing"))?;
        let time = |k: &str| {
            field(k)
                .and_then(Value::as_i64)
                .ok_or_else(|| SnapshotError::at_path(file, format!("{at}.{k}"), "missing"))
        };
        let nodes = match field("node_list").and_then(Value::as_str) {
            Some(l) if !l.is_empty() => expand_hostlist(l)
                .map_err(|m| SnapshotError::at_path(file, format!("{at}.node_list"), m))?,
            _ => Vec::new(),
        };
        snap.reservations.push(Reservation {
            id: name.to_string(),
            name: Some(name.to_string()),
            start: time("start_time")?,
            end: time("end_time")?,
            nodes,
            state: None,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Built from the documented formats (the Slurm e2e's live controller is not reachable
    // from unit tests): Slurm 22.05's openapi/v0.0.38, src/plugins/openapi/v0.0.38/nodes.c
    // `_dump_node` (state a lower-case base word, state_flags a list, alloc_cpus and
    // alloc_memory, tres and tres_used), jobs.c `dump_job_info` (job_state a word,
    // start_time and time_limit plain, time_limit null when INFINITE, nodes a host list,
    // tres_alloc_str), reservations.c `_dump_res`.
    const NODES_38: &str = r#"{"meta":{"plugin":{"type":"openapi/v0.0.38","name":"REST v0.0.38"}},
"nodes":[
 {"name":"c1","state":"mixed","state_flags":[],"cpus":32,"real_memory":128000,"alloc_cpus":8,
  "alloc_memory":16000,"idle_cpus":24,"tres":"cpu=32,mem=125G,billing=32,gres/gpu=4",
  "tres_used":"cpu=8,mem=16000M,gres/gpu=1","gres":"gpu:4","gres_used":"gpu:1(IDX:0)"},
 {"name":"c2","state":"idle","state_flags":["DRAIN"],"cpus":32,"real_memory":128000,
  "alloc_cpus":0,"alloc_memory":0,"tres":"cpu=32,mem=125G,billing=32","tres_used":null},
 {"name":"c3","state":"idle","state_flags":["RESERVED"],"cpus":32,"real_memory":128000,
  "alloc_cpus":0,"alloc_memory":0,"tres":"cpu=32,mem=125G,billing=32","tres_used":null},
 {"name":"c4","state":"down","state_flags":["NOT_RESPONDING"],"cpus":32,"real_memory":128000,
  "alloc_cpus":0,"alloc_memory":0,"tres":"cpu=32,mem=125G,billing=32","tres_used":null}
]}"#;

    const SQUEUE_38: &str = r#"{"meta":{"plugin":{"type":"openapi/v0.0.38"}},
"jobs":[
 {"job_id":11,"job_state":"RUNNING","user_name":"ann","account":"phys","partition":"batch",
  "group_id":100,"start_time":1764583200,"time_limit":120,"nodes":"c1","node_count":1,
  "cpus":8,"tres_alloc_str":"cpu=8,mem=16000M,node=1,billing=8,gres/gpu=1"},
 {"job_id":12,"job_state":"PENDING","user_name":"bob","partition":"batch","time_limit":null,
  "cpus":64,"node_count":2,"start_time":0},
 {"job_id":13,"job_state":"SUSPENDED","user_name":"cid","cpus":1}
]}"#;

    const RESV_38: &str = r#"{"meta":{"plugin":{"type":"openapi/v0.0.38"}},
"reservations":[{"name":"maint","flags":["MAINT","SPEC_NODES"],"node_list":"c[3-4]",
 "node_count":2,"start_time":1764590400,"end_time":1764604800,"users":"root"}]}"#;

    // The same site as data_parser/v0.0.40+ writes it (slurmrestd(8)'s examples: state a
    // list, numbers as {"set","infinite","number"}, last_update).
    const NODES_40: &str = r#"{"meta":{"plugin":{"type":"","data_parser":"data_parser/v0.0.40"},
 "Slurm":{"release":"23.11.4"}},
"last_update":{"set":true,"infinite":false,"number":1764590400},
"nodes":[
 {"name":"c1","state":["MIXED"],"cpus":32,"real_memory":128000,"alloc_cpus":8,
  "alloc_memory":16000,"alloc_idle_cpus":24,"tres":"cpu=32,mem=125G,billing=32,gres/gpu=4",
  "tres_used":"cpu=8,mem=16000M,gres/gpu=1"},
 {"name":"c2","state":["IDLE","DRAIN"],"cpus":32,"real_memory":128000,"alloc_cpus":0,
  "alloc_memory":0,"tres":"cpu=32,mem=125G,billing=32","tres_used":""},
 {"name":"c3","state":["IDLE","RESERVED"],"cpus":32,"real_memory":128000,"alloc_cpus":0,
  "alloc_memory":0,"tres":"cpu=32,mem=125G,billing=32","tres_used":""},
 {"name":"c4","state":["DOWN","NOT_RESPONDING"],"cpus":32,"real_memory":128000,
  "alloc_cpus":0,"alloc_memory":0,"tres":"cpu=32,mem=125G,billing=32","tres_used":""}
]}"#;

    const SQUEUE_40: &str = r#"{"meta":{"plugin":{"data_parser":"data_parser/v0.0.40"}},
"last_update":{"set":true,"infinite":false,"number":1764590400},
"jobs":[
 {"job_id":11,"job_state":["RUNNING"],"user_name":"ann","account":"phys","partition":"batch",
  "group_name":"physics","start_time":{"set":true,"infinite":false,"number":1764583200},
  "time_limit":{"set":true,"infinite":false,"number":120},"nodes":"c1",
  "node_count":{"set":true,"infinite":false,"number":1},
  "cpus":{"set":true,"infinite":false,"number":8},
  "tres_alloc_str":"cpu=8,mem=16000M,node=1,billing=8,gres/gpu=1"},
 {"job_id":12,"job_state":["PENDING"],"user_name":"bob","partition":"batch",
  "time_limit":{"set":false,"infinite":true,"number":0},
  "cpus":{"set":true,"infinite":false,"number":64},
  "start_time":{"set":true,"infinite":false,"number":0}},
 {"job_id":13,"job_state":["SUSPENDED"],"user_name":"cid",
  "cpus":{"set":true,"infinite":false,"number":1}}
]}"#;

    const RESV_40: &str = r#"{"meta":{"plugin":{"data_parser":"data_parser/v0.0.40"}},
"reservations":[{"name":"maint","flags":["MAINT","SPEC_NODES"],"node_list":"c[3-4]",
 "node_count":2,"start_time":{"set":true,"infinite":false,"number":1764590400},
 "end_time":{"set":true,"infinite":false,"number":1764604800},"users":"root"}]}"#;

    fn dir(files: &[(&str, &str)]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for (n, t) in files {
            std::fs::write(d.path().join(n), t).unwrap();
        }
        d
    }

    #[test]
    fn both_shapes_read_to_the_same_snapshot() {
        let old = dir(&[
            (NODES, NODES_38),
            (SQUEUE, SQUEUE_38),
            (RESERVATIONS, RESV_38),
        ]);
        let new = dir(&[
            (NODES, NODES_40),
            (SQUEUE, SQUEUE_40),
            (RESERVATIONS, RESV_40),
        ]);
        let a = read_slurm_snapshot(old.path()).unwrap().snapshot;
        let b = read_slurm_snapshot(new.path()).unwrap().snapshot;
        for s in [&a, &b] {
            let states: Vec<NodeState> = s.nodes.iter().map(|n| n.state).collect();
            assert_eq!(
                states,
                [
                    NodeState::Busy,
                    NodeState::Offline,
                    NodeState::Reserved,
                    NodeState::Down
                ]
            );
            let c1 = &s.nodes[0];
            assert_eq!(c1.available[..3], [32, 128_000 * 1024, 4]);
            assert_eq!(c1.assigned[..3], [8, 16_000 * 1024, 1]);
            let j = &s.running[0];
            assert_eq!((j.id.as_str(), j.user.as_deref()), ("11", Some("ann")));
            assert_eq!(j.queue.as_deref(), Some("batch"));
            assert_eq!(j.planned_end(), Some(1_764_583_200 + 120 * 60));
            assert_eq!(j.held[0].node, "c1");
            assert_eq!(j.total[..3], [8, 16_000 * 1024, 1]);
            assert_eq!(s.pending.len(), 1);
            assert_eq!(s.pending[0].id, "12");
            // 64 CPUs, no node count: CPUs anywhere; no time limit (INFINITE).
            assert_eq!(s.pending[0].ask.total(0), 64);
            assert_eq!(s.pending[0].walltime, None);
            assert_eq!(s.other_jobs, [("13".to_string(), "SUSPENDED".to_string())]);
            let r = &s.reservations[0];
            assert_eq!((r.start, r.end), (1_764_590_400, 1_764_604_800));
            assert_eq!(r.nodes, ["c3", "c4"]);
            assert_eq!(s.check(), []);
        }
        // Only data_parser writes the capture time and group names.
        assert_eq!((a.taken_at, b.taken_at), (None, Some(1_764_590_400)));
        assert_eq!(b.running[0].group.as_deref(), Some("physics"));
        assert!(a.missing.iter().any(|m| m.part == "capture time"));
        assert!(!b.missing.iter().any(|m| m.part == "capture time"));
    }

    #[test]
    fn unset_and_infinite_numbers_are_null() {
        let v: Value = serde_json::from_str(
            r#"{"a":{"set":false,"infinite":false,"number":5},
                "b":{"set":true,"infinite":true,"number":0},
                "c":[{"set":true,"infinite":false,"number":7}],
                "d":{"number":1,"other":2}}"#,
        )
        .unwrap();
        assert_eq!(
            plain_numbers(v).to_string(),
            r#"{"a":null,"b":null,"c":[7],"d":{"number":1,"other":2}}"#
        );
    }

    #[test]
    fn a_shape_not_recognised_names_the_plugin_and_the_path() {
        let mut s = Snapshot::new(Scheduler::Slurm);
        let odd = NODES_40.replace(
            r#""cpus":32,"real_memory":128000,"alloc_cpus":8"#,
            r#""cpus":"many","real_memory":128000,"alloc_cpus":8"#,
        );
        let e = parse_nodes(&odd, "nodes.json", &mut s).unwrap_err();
        assert_eq!(
            e.to_string(),
            "nodes.json: $.nodes[0].cpus: not a count: a shape neither openapi/v0.0.38 nor \
             data_parser/v0.0.40+ writes (this file says it is from data_parser/v0.0.40, \
             Slurm 23.11.4)"
        );
        let odd = NODES_40.replace(r#"["IDLE","DRAIN"]"#, r#"["SIDEWAYS"]"#);
        let e = parse_nodes(&odd, "nodes.json", &mut s).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("nodes.json: $.nodes[1].state: `SIDEWAYS` is no Slurm node base"),
            "{e}"
        );
        let e = parse_squeue(
            &SQUEUE_38.replace("\"nodes\":\"c1\"", "\"nodes\":\"c[1-\""),
            "squeue.json",
            &mut s,
        )
        .unwrap_err();
        assert!(
            e.to_string().starts_with("squeue.json: $.jobs[0].nodes: "),
            "{e}"
        );
        let e = parse_squeue(
            &SQUEUE_38.replace("\"cpus\":8,", "\"cpus\":\"eight\","),
            "squeue.json",
            &mut s,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "squeue.json: $.jobs[0].cpus: expected an integer (openapi/v0.0.38)"
        );
        let e = parse_reservations(
            &RESV_38.replace("\"end_time\":1764604800,", ""),
            "r.json",
            &mut s,
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "r.json: $.reservations[0].end_time: missing");
    }

    // A pending job's `node_count` is the number of nodes Slurm last guessed it would take
    // (`node_cnt_wag`, set by `select_nodes` at each attempt: 22.05 node_scheduler.c, packed
    // as the job's node count by job_mgr.c `_pack_default_job_details`), not what it asks:
    // 12 CPUs with no node count on 8-CPU nodes show `node_count: 2` and `node=1` in
    // `tres_req_str` (details->min_nodes, `job_set_req_tres`). Slurm places its CPUs
    // anywhere (8 + 4); a job given `-N 2` (`max_nodes` 2) has one part per node.
    #[test]
    fn a_pending_job_without_a_node_count_asks_cpus_anywhere() {
        let text = r#"{"meta":{"plugin":{"type":"openapi/v0.0.38"}},
"jobs":[
 {"job_id":1005,"job_state":"PENDING","partition":"batch","cpus":12,"node_count":2,
  "max_nodes":0,"memory_per_cpu":100,"memory_per_node":null,"time_limit":1,
  "tres_req_str":"cpu=12,mem=1200M,node=1,billing=12"},
 {"job_id":1006,"job_state":"PENDING","partition":"batch","cpus":12,"node_count":2,
  "max_nodes":2,"memory_per_cpu":100,"memory_per_node":null,"time_limit":1,
  "tres_req_str":"cpu=12,mem=1200M,node=2,billing=12"}
]}"#;
        let mut s = Snapshot::new(Scheduler::Slurm);
        parse_squeue(text, "squeue.json", &mut s).unwrap();
        // (count, CPUs and memory of each part)
        let parts = |a: &Ask| -> Vec<(u32, Vec<u64>)> {
            a.parts.iter().map(|(n, p)| (*n, p[..2].to_vec())).collect()
        };
        let free = &s.pending[0].ask;
        assert_eq!(free.place.arrangement, Arrangement::Free);
        // Twelve CPUs, each with its 100 MB.
        assert_eq!(parts(free), [(12, vec![1, 100 * 1024])]);
        let two = &s.pending[1].ask;
        assert_eq!(two.place.arrangement, Arrangement::Scatter);
        assert_eq!(parts(two), [(2, vec![6, 600 * 1024])]);
    }

    // A running job on several nodes holds what Slurm allocated on each: 22.05's
    // `job_resources.allocated_nodes` (openapi/v0.0.38 jobs.c `_dump_nodes_res`) lists each
    // node's allocated cores by socket and its `memory_allocated`. 12 CPUs on two 8-CPU
    // nodes are 8 + 4, not 6 + 6: an even split would leave 2 of fc1's CPUs unaccounted for
    // (held by no job the plan can end) and 2 of fc2's held twice.
    #[test]
    fn a_running_jobs_cpus_and_memory_on_each_node_are_its_allocation() {
        let core = |n: usize| -> String {
            let cores: Vec<String> = (0..n).map(|c| format!("\"{c}\":\"allocated\"")).collect();
            format!("{{\"0\":{{\"cores\":{{{}}}}}}}", cores.join(","))
        };
        let text = format!(
            r#"{{"meta":{{"plugin":{{"type":"openapi/v0.0.38"}}}},
"jobs":[{{"job_id":1013,"job_state":"RUNNING","partition":"batch","cpus":12,"node_count":2,
  "start_time":1000,"time_limit":1,"nodes":"fc[1-2]",
  "tres_alloc_str":"cpu=12,mem=1200M,node=2,billing=12",
  "job_resources":{{"nodes":"fc[1-2]","allocated_cpus":12,"allocated_hosts":2,
   "allocated_nodes":[
    {{"sockets":{},"nodename":"fc1","cpus_used":0,"memory_used":0,"memory_allocated":800}},
    {{"sockets":{},"nodename":"fc2","cpus_used":0,"memory_used":0,"memory_allocated":400}}]}}}}]}}"#,
            core(8),
            core(4)
        );
        let mut s = Snapshot::new(Scheduler::Slurm);
        parse_squeue(&text, "squeue.json", &mut s).unwrap();
        let held: Vec<(&str, Vec<u64>)> = s.running[0]
            .held
            .iter()
            .map(|h| (h.node.as_str(), h.amounts[..2].to_vec()))
            .collect();
        assert_eq!(
            held,
            [("fc1", vec![8, 800 * 1024]), ("fc2", vec![4, 400 * 1024])]
        );
    }

    // A capture of a live Slurm 22.05 (the end-to-end test's controller: three slurmds of
    // 8 CPUs, partitions batch on fc[1-3] and short on fc[2-3]) made by
    // contrib/capture/slurm.sh, whose scontrol has no --json: the nodes are `sinfo --json`'s,
    // the time `date +%s`'s.
    #[test]
    fn a_live_22_05_capture_reads_its_nodes_from_sinfo_and_its_time_from_taken_at() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/snapshot/slurm-22.05");
        let read = read_slurm_snapshot(&dir).unwrap();
        let s = &read.snapshot;
        assert_eq!(s.taken_at, Some(1_796_551_830));
        let nodes: Vec<(&str, NodeState, u64, u64)> = s
            .nodes
            .iter()
            .map(|n| (n.name.as_str(), n.state, n.available[0], n.assigned[0]))
            .collect();
        assert_eq!(
            nodes,
            [
                ("fc1", NodeState::Busy, 8, 8),
                ("fc2", NodeState::Busy, 8, 8),
                ("fc3", NodeState::Busy, 8, 7)
            ]
        );
        assert_eq!(s.nodes[0].available[1], 8000 * 1024);
        assert_eq!(s.nodes[0].partitions, ["batch"]);
        assert_eq!(s.nodes[2].partitions, ["batch", "short"]);
        assert_eq!((s.running.len(), s.pending.len()), (7, 19));
        assert_eq!(s.check(), []);
        let missing: Vec<&str> = s.missing.iter().map(|m| m.part.as_str()).collect();
        // The end-to-end controller runs slurmdbd, but this capture predates the sacctmgr
        // tables in slurm.sh.
        assert_eq!(
            missing,
            [
                "reservations.json (scontrol show reservation --json)",
                "sacctmgr_assoc.txt (sacctmgr show assoc -P)",
                "sacctmgr_qos.txt (sacctmgr show qos -P)"
            ]
        );
        // 12 CPUs without a node count, Slurm's guess of 2 nodes in node_count: anywhere.
        let big = s.pending.iter().find(|j| j.id == "1013").unwrap();
        assert_eq!(big.ask.place.arrangement, Arrangement::Free);
        assert_eq!(big.ask.total(0), 12);
        assert!(read.conf.is_some());
    }

    #[test]
    fn a_running_job_on_a_node_the_list_lacks_is_found() {
        let d = dir(&[
            (NODES, NODES_38),
            (
                SQUEUE,
                &SQUEUE_38.replace("\"nodes\":\"c1\"", "\"nodes\":\"c[1,9]\""),
            ),
        ]);
        let s = read_slurm_snapshot(d.path()).unwrap().snapshot;
        let found: Vec<String> = s.check().iter().map(|d| d.to_string()).collect();
        assert_eq!(
            found,
            ["running job 11 is on node `c9`, which the node list lacks"]
        );
        let parts: Vec<&str> = s.missing.iter().map(|m| m.part.as_str()).collect();
        assert_eq!(
            parts,
            [
                "reservations.json (scontrol show reservation --json)",
                "slurm.conf (a copy of the site's slurm.conf)",
                "sacctmgr_assoc.txt (sacctmgr show assoc -P)",
                "sacctmgr_qos.txt (sacctmgr show qos -P)",
                "capture time"
            ]
        );
    }
}
