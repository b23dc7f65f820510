//! A Flux instance's state at one instant from its commands' outputs, a folder of:
//!
//! | file | made by | gives |
//! |---|---|---|
//! | `resource.json` | `flux resource R` | every broker rank's cores and GPUs (the scheduler view, RFC 20 R version 1) and its host |
//! | `resource_allocated.json` | `flux resource R -s allocated` | the cores and GPUs allocated to jobs, per rank |
//! | `resource_down.json` | `flux resource R -s down` | the ranks unavailable for use (drained, offline, torpid: the scheduler view does not tell them apart) |
//! | `jobs.json` | `flux jobs -A --json` | every active job: `state`; a running one's `t_run`, `expiration`, `duration`, `runtime`, `nodelist`, `ncores`, `username`, `queue`, `bank` |
//! | `taken_at.txt` | `date +%s` | the capture time (no Flux output gives one) |
//! | `mf_priority.json` | `flux jobtap query mf_priority.so` | flux-accounting's association and queue limits ([`crate::flux::snapshot_limits`]) |
//!
//! Formats: R is RFC 20 (`{"version": 1, "execution": {"R_lite": [{"rank": IDSET,
//! "children": {"core": IDSET, "gpu": IDSET}}], "nodelist": [HOSTLIST...], "starttime",
//! "expiration"}}`), the hosts of `nodelist` in the order of the ranks; `flux resource R -s
//! STATES` the same for the resources in those scheduler-view states (flux-core
//! `doc/man1/flux-resource.rst`). `flux jobs --json` is `{"jobs": [...]}` of
//! `JobInfo.to_dict()` (flux-core `doc/man1/flux-jobs.rst`,
//! `src/bindings/python/flux/job/info.py`): states by name, times as float epoch seconds,
//! a key absent when unavailable, `expiration` the allocation's end, `duration` the time
//! limit (0 unlimited). Flux's R holds no memory: a Flux snapshot's nodes have none.
//!
//! A job in DEPEND waits for its `dependencies` (`flux jobs` lists each `dependency-add`
//! description not yet removed). flux-accounting's `mf_priority` plugin holds a job over a
//! limit with dependencies named for the limit (`max-running-jobs-user-limit`,
//! `max-resources-user-limit`, `max-run-jobs-queue`, ...: [`Dependency`]); a job that waits
//! on those alone is held by a limit ([`Hold::Limit`], the names as flux lists them, joined
//! by `,`), planned once `mf_priority.json` says the limits. Any other dependency
//! (`after-finish=...`) keeps it a [`Hold::Dependency`], never planned. Without
//! `mf_priority.json`, a snapshot with a job held by a limit lacks it (a missing part).

use crate::flux::limits::Dependency;
use crate::input::hostlist::{expand_hostlist, for_each_id};
use crate::model::place::{Arrangement, Place, Sharing};
use crate::model::snapshot::read_nodes_and_jobs;
use crate::model::snapshot::{
    Ask, Held, Hold, Node, NodeState, PendingJob, RunningJob, Scheduler, Snapshot, SnapshotError,
    read_part,
};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// `flux resource R`.
pub const RESOURCE: &str = "resource.json";
/// `flux resource R -s allocated`.
pub const ALLOCATED: &str = "resource_allocated.json";
/// `flux resource R -s down`.
pub const DOWN: &str = "resource_down.json";
/// `flux jobs -A --json`.
pub const JOBS: &str = "jobs.json";
/// `date +%s` at the capture.
pub const TAKEN_AT: &str = "taken_at.txt";
/// `flux jobtap query mf_priority.so`: flux-accounting's limits (optional).
pub const MF_PRIORITY: &str = "mf_priority.json";

/// The files of a Flux snapshot, in the order they are read.
pub const FILES: [&str; 6] = [RESOURCE, ALLOCATED, DOWN, JOBS, TAKEN_AT, MF_PRIORITY];

pub(crate) fn parse_json(text: &str, file: &str) -> Result<Value, SnapshotError> {
    serde_json::from_str(text.strip_prefix('\u{feff}').unwrap_or(text)).map_err(|e| {
        SnapshotError::at_line(
            file,
            e.line(),
            format!("invalid JSON (column {}): {e}", e.column()),
        )
    })
}

/// Per rank: its host (when named) and its cores and GPUs.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Ranks {
    host: BTreeMap<u64, String>,
    cores: BTreeMap<u64, u64>,
    gpus: BTreeMap<u64, u64>,
}

/// An RFC 20 R (version 1) into its ranks.
fn parse_r(text: &str, file: &str) -> Result<Ranks, SnapshotError> {
    let doc = parse_json(text, file)?;
    if doc.get("version").and_then(Value::as_i64) != Some(1) {
        return Err(SnapshotError::at_path(
            file,
            "$.version",
            "expected 1 (an RFC 20 R, as `flux resource R` writes)",
        ));
    }
    let ex = doc
        .get("execution")
        .ok_or_else(|| SnapshotError::at_path(file, "$.execution", "missing"))?;
    let lite = ex
        .get("R_lite")
        .and_then(Value::as_array)
        .ok_or_else(|| SnapshotError::at_path(file, "$.execution.R_lite", "expected an array"))?;
    let mut r = Ranks::default();
    let mut ranks = Vec::new();
    for (i, entry) in lite.iter().enumerate() {
        let at = format!("$.execution.R_lite[{i}]");
        let idset = entry
            .get("rank")
            .and_then(Value::as_str)
            .ok_or_else(|| SnapshotError::at_path(file, format!("{at}.rank"), "missing"))?;
        let mut these = Vec::new();
        for_each_id(idset, |id| these.push(id))
            .map_err(|m| SnapshotError::at_path(file, format!("{at}.rank"), m))?;
        let count = |kind: &str| -> Result<u64, SnapshotError> {
            match entry.get("children").and_then(|c| c.get(kind)) {
                None => Ok(0),
                Some(Value::String(set)) => {
                    let mut n = 0;
                    for_each_id(set, |_| n += 1).map_err(|m| {
                        SnapshotError::at_path(file, format!("{at}.children.{kind}"), m)
                    })?;
                    Ok(n)
                }
                Some(_) => Err(SnapshotError::at_path(
                    file,
                    format!("{at}.children.{kind}"),
                    "expected an idset",
                )),
            }
        };
        let (cores, gpus) = (count("core")?, count("gpu")?);
        for id in these {
            *r.cores.entry(id).or_insert(0) += cores;
            *r.gpus.entry(id).or_insert(0) += gpus;
            ranks.push(id);
        }
    }
    if let Some(list) = ex.get("nodelist").and_then(Value::as_array) {
        let mut hosts = Vec::new();
        for (i, h) in list.iter().enumerate() {
            let at = format!("$.execution.nodelist[{i}]");
            let h = h
                .as_str()
                .ok_or_else(|| SnapshotError::at_path(file, &at, "expected a host list"))?;
            hosts.extend(expand_hostlist(h).map_err(|m| SnapshotError::at_path(file, &at, m))?);
        }
        ranks.sort_unstable();
        ranks.dedup();
        if hosts.len() == ranks.len() {
            r.host = ranks.into_iter().zip(hosts).collect();
        } else {
            return Err(SnapshotError::at_path(
                file,
                "$.execution.nodelist",
                format!("{} hosts for {} ranks", hosts.len(), ranks.len()),
            ));
        }
    }
    Ok(r)
}

/// Read a Flux snapshot folder (module docs). A missing file is a missing part; a folder
/// with neither `resource.json` nor `jobs.json` is an error.
pub fn read_flux_snapshot(dir: &Path) -> Result<Snapshot, SnapshotError> {
    read_flux_snapshot_and_jobs(dir).map(|(snap, _)| snap)
}

/// [`read_flux_snapshot`], with the text of `jobs.json` as read (for what else reads the
/// jobs: their user ids, `snapshot_limits::read_flux_site`), so the file is read once.
pub fn read_flux_snapshot_and_jobs(
    dir: &Path,
) -> Result<(Snapshot, Option<String>), SnapshotError> {
    let mut snap = Snapshot::new(Scheduler::Flux);
    let name = |f: &str| dir.join(f).display().to_string();
    let (all, jobs) = read_nodes_and_jobs(dir, Scheduler::Flux, RESOURCE, JOBS)?;
    if let Some(text) = read_part(&dir.join(TAKEN_AT))? {
        let t = text.trim();
        snap.taken_at = Some(t.parse().map_err(|_| {
            SnapshotError::at_line(&name(TAKEN_AT), 1, format!("`{t}` is not Unix seconds"))
        })?);
    } else {
        snap.lacks(
            format!("{TAKEN_AT} (date +%s)"),
            "the capture time is unknown: the instant of the snapshot must be given",
        );
    }
    match &all {
        Some(text) => {
            let all = parse_r(text, &name(RESOURCE))?;
            let allocated = match read_part(&dir.join(ALLOCATED))? {
                Some(t) => Some(parse_r(&t, &name(ALLOCATED))?),
                None => {
                    snap.lacks(
                        format!("{ALLOCATED} (flux resource R -s allocated)"),
                        "what jobs hold of each node is unknown (running jobs' node lists still \
                         say which nodes are busy)",
                    );
                    None
                }
            };
            let down = match read_part(&dir.join(DOWN))? {
                Some(t) => Some(parse_r(&t, &name(DOWN))?),
                None => {
                    snap.lacks(
                        format!("{DOWN} (flux resource R -s down)"),
                        "which nodes are down or drained is unknown: every node counts as up",
                    );
                    None
                }
            };
            add_nodes(&mut snap, &all, allocated.as_ref(), down.as_ref());
        }
        None => snap.lacks(
            format!("{RESOURCE} (flux resource R)"),
            "no node list: nodes, their resources and states are unknown, and running jobs' \
             nodes cannot be checked",
        ),
    }
    match &jobs {
        Some(text) => parse_jobs(text, &name(JOBS), &mut snap)?,
        None => snap.lacks(
            format!("{JOBS} (flux jobs -A --json)"),
            "no jobs: running jobs and their planned ends are unknown, and no job is known to \
             be waiting",
        ),
    }
    // The limits matter to the jobs they hold: a capture with none held (a Flux without
    // flux-accounting has none) lacks nothing without them.
    let held = snap
        .pending
        .iter()
        .any(|j| matches!(j.hold, Some(Hold::Limit(_))));
    if held && !dir.join(MF_PRIORITY).is_file() {
        snap.lacks(
            format!("{MF_PRIORITY} (flux jobtap query mf_priority.so)"),
            "the flux-accounting limits are unknown: jobs they hold get no start",
        );
    }
    snap.finish();
    Ok((snap, jobs))
}

fn add_nodes(snap: &mut Snapshot, all: &Ranks, allocated: Option<&Ranks>, down: Option<&Ranks>) {
    for (&rank, &cores) in &all.cores {
        let gpus = all.gpus.get(&rank).copied().unwrap_or(0);
        let a_cores = allocated
            .and_then(|a| a.cores.get(&rank))
            .copied()
            .unwrap_or(0);
        let a_gpus = allocated
            .and_then(|a| a.gpus.get(&rank))
            .copied()
            .unwrap_or(0);
        let is_down = down.is_some_and(|d| d.cores.contains_key(&rank));
        let (state, text) = if is_down {
            (NodeState::Down, "down")
        } else if a_cores + a_gpus > 0 {
            (NodeState::Busy, "allocated")
        } else {
            (NodeState::Free, "free")
        };
        let mut available = snap.zeros();
        available[0] = cores;
        available[2] = gpus;
        let mut assigned = snap.zeros();
        assigned[0] = a_cores;
        assigned[2] = a_gpus;
        snap.nodes.push(Node {
            name: all
                .host
                .get(&rank)
                .cloned()
                .unwrap_or_else(|| format!("rank{rank}")),
            state,
            state_text: text.into(),
            available,
            assigned,
            jobs: Vec::new(),
            partitions: Vec::new(),
        });
    }
}

/// A job's id in `flux jobs --json`: its `jobid` (f58), else its numeric `id`.
pub(crate) fn job_id(j: &Value) -> Option<String> {
    j.get("jobid")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| j.get("id").and_then(Value::as_u64).map(|n| n.to_string()))
}

/// What holds a job in DEPEND: flux-accounting's limits when every one of its dependencies
/// is one of theirs ([`Dependency`]), else its dependencies (module docs).
fn depend_hold(j: &Value) -> Hold {
    let names: Vec<&str> = j
        .get("dependencies")
        .and_then(Value::as_array)
        .map(|d| d.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if names.is_empty() {
        Hold::Dependency("a dependency".into())
    } else if names.iter().all(|n| Dependency::from_name(n).is_some()) {
        Hold::Limit(names.join(","))
    } else {
        Hold::Dependency(names.join(","))
    }
}

/// Read `flux jobs --json` into `snap`: running jobs (`RUN`, `CLEANUP`) with their nodes and
/// planned ends, pending ones (`NEW`, `DEPEND`, `PRIORITY`, `SCHED`) by id, the others by id
/// and state.
pub fn parse_jobs(text: &str, file: &str, snap: &mut Snapshot) -> Result<(), SnapshotError> {
    let doc = parse_json(text, file)?;
    let jobs = doc.get("jobs").and_then(Value::as_array).ok_or_else(|| {
        SnapshotError::at_path(
            file,
            "$",
            "no `jobs` array (expected `flux jobs --json` output)",
        )
    })?;
    for (i, j) in jobs.iter().enumerate() {
        let at = format!("$.jobs[{i}]");
        let text = |k: &str| j.get(k).and_then(Value::as_str).map(str::to_string);
        let num = |k: &str| j.get(k).and_then(Value::as_f64);
        let id = job_id(j)
            .ok_or_else(|| SnapshotError::at_path(file, format!("{at}.jobid"), "missing"))?;
        let state = text("state")
            .ok_or_else(|| SnapshotError::at_path(file, format!("{at}.state"), "missing"))?;
        match state.as_str() {
            "NEW" | "DEPEND" | "PRIORITY" | "SCHED" => {
                // nnodes × cores per node when it names nodes, else cores anywhere; GPUs
                // with them (`flux jobs` fields: nnodes, ncores, ngpus, duration).
                let cores = num("ncores").map_or(1, |c| c.max(1.0) as u64);
                let gpus = num("ngpus").map_or(0, |g| g.max(0.0) as u64);
                let nodes = num("nnodes").map_or(0, |n| n.max(0.0) as u64);
                let mut per = snap.zeros();
                let (count, place) = if nodes > 0 {
                    per[0] = cores.div_ceil(nodes);
                    per[2] = gpus.div_ceil(nodes);
                    (nodes as u32, Arrangement::Scatter)
                } else {
                    per[0] = cores;
                    per[2] = gpus;
                    (1, Arrangement::Pack)
                };
                let urgency = num("urgency");
                let hold = if state == "DEPEND" {
                    Some(depend_hold(j))
                } else if urgency == Some(0.0) {
                    // flux job urgency 0: held (`flux-job(1)`, FLUX_JOB_URGENCY_HOLD).
                    Some(Hold::Held("urgency 0 (held)".into()))
                } else {
                    None
                };
                snap.pending.push(PendingJob {
                    id,
                    user: text("username"),
                    group: None,
                    account: text("bank"),
                    project: None,
                    qos: None,
                    queue: text("queue").into_iter().collect(),
                    submit: num("t_submit").map(|t| t.round() as i64),
                    walltime: num("duration")
                        .filter(|d| *d > 0.0)
                        .map(|d| d.round() as i64),
                    ask: Ask {
                        parts: vec![(count, per)],
                        place: Place {
                            arrangement: place,
                            sharing: Sharing::Shared,
                        },
                    },
                    priority: num("priority"),
                    reason: None,
                    hold,
                });
            }
            "RUN" | "CLEANUP" => {
                let start = num("t_run").ok_or_else(|| {
                    SnapshotError::at_path(file, format!("{at}.t_run"), "missing")
                })?;
                let start = start.round() as i64;
                // The allocation's end when given, else the time limit (0: none).
                let walltime = match (num("expiration"), num("duration")) {
                    (Some(e), _) if e > 0.0 => Some(e.round() as i64 - start),
                    (_, Some(d)) if d > 0.0 => Some(d.round() as i64),
                    _ => None,
                };
                let held = match text("nodelist") {
                    Some(l) => expand_hostlist(&l)
                        .map_err(|m| SnapshotError::at_path(file, format!("{at}.nodelist"), m))?
                        .into_iter()
                        .map(|node| Held {
                            node,
                            amounts: Vec::new(),
                        })
                        .collect(),
                    None => Vec::new(),
                };
                let mut total = snap.zeros();
                total[0] = num("ncores").map_or(0, |c| c as u64);
                snap.running.push(RunningJob {
                    id,
                    user: text("username"),
                    group: None,
                    account: text("bank"),
                    project: None,
                    qos: None,
                    queue: text("queue"),
                    start,
                    walltime,
                    held,
                    total,
                    elapsed: num("runtime").map(|r| r.round() as i64),
                });
            }
            _ => snap.other_jobs.push((id, state)),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Built from the documented formats (flux-core doc/man1/flux-resource.rst, RFC 20 R
    // version 1; doc/man1/flux-jobs.rst, JobInfo.to_dict): four ranks of 8 cores, two with
    // 2 GPUs; rank 3 down; 4 cores and a GPU of rank 0 allocated.
    const R_ALL: &str = r#"{"version":1,"execution":{"R_lite":[
      {"rank":"0-1","children":{"core":"0-7","gpu":"0-1"}},
      {"rank":"2-3","children":{"core":"0-7"}}],
      "starttime":0.0,"expiration":0.0,"nodelist":["fx[0-3]"]}}"#;
    const R_ALLOCATED: &str = r#"{"version":1,"execution":{"R_lite":[
      {"rank":"0","children":{"core":"0-3","gpu":"0"}}],
      "starttime":0.0,"expiration":0.0,"nodelist":["fx0"]}}"#;
    const R_DOWN: &str = r#"{"version":1,"execution":{"R_lite":[
      {"rank":"3","children":{"core":"0-7"}}],
      "starttime":0.0,"expiration":0.0,"nodelist":["fx3"]}}"#;
    const JOBS_JSON: &str = r#"{"jobs":[
      {"id":1234,"jobid":"fA1b2","userid":1001,"username":"ann","urgency":16,"priority":16,
       "state":"RUN","status":"RUN","queue":"batch","bank":"phys","ntasks":4,"ncores":4,
       "nnodes":1,"ranks":"0","nodelist":"fx0","duration":3600.0,"t_submit":1764580000.1,
       "t_run":1764583200.4,"expiration":1764586800.4,"runtime":1500.2},
      {"id":1235,"jobid":"fA1b3","username":"bob","state":"SCHED","ntasks":16,
       "duration":0.0,"t_submit":1764585000.0},
      {"id":1236,"jobid":"fA1b4","username":"cid","state":"DEPEND","t_submit":1764585001.0}
    ]}"#;

    fn dir(files: &[(&str, &str)]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for (n, t) in files {
            std::fs::write(d.path().join(n), t).unwrap();
        }
        d
    }

    #[test]
    fn a_flux_snapshot_reads_ranks_jobs_and_their_planned_ends() {
        let d = dir(&[
            (RESOURCE, R_ALL),
            (ALLOCATED, R_ALLOCATED),
            (DOWN, R_DOWN),
            (JOBS, JOBS_JSON),
            (TAKEN_AT, "1764590400\n"),
        ]);
        let s = read_flux_snapshot(d.path()).unwrap();
        assert_eq!(s.taken_at, Some(1_764_590_400));
        let nodes: Vec<(&str, NodeState, u64, u64)> = s
            .nodes
            .iter()
            .map(|n| (n.name.as_str(), n.state, n.available[0], n.available[2]))
            .collect();
        assert_eq!(
            nodes,
            [
                ("fx0", NodeState::Busy, 8, 2),
                ("fx1", NodeState::Free, 8, 2),
                ("fx2", NodeState::Free, 8, 0),
                ("fx3", NodeState::Down, 8, 0),
            ]
        );
        assert_eq!(s.nodes[0].assigned[..3], [4, 0, 1]);
        let j = &s.running[0];
        assert_eq!((j.id.as_str(), j.user.as_deref()), ("fA1b2", Some("ann")));
        assert_eq!(j.account.as_deref(), Some("phys"));
        assert_eq!(j.planned_end(), Some(1_764_586_800));
        assert_eq!(j.held[0].node, "fx0");
        assert_eq!(j.elapsed, Some(1500));
        let ids: Vec<&str> = s.pending.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(ids, ["fA1b3", "fA1b4"]);
        assert!(s.missing.is_empty(), "{:?}", s.missing);
        assert_eq!(s.check(), []);
    }

    /// flux-accounting's dependencies alone hold a job by a limit (names as `flux jobs`
    /// lists them: the `dependency-add` descriptions of `mf_priority`'s `depend_cb`); with any
    /// other it waits for a dependency. A folder with a job held by a limit and no
    /// `mf_priority.json` lacks it.
    #[test]
    fn flux_accounting_dependencies_are_limits() {
        let jobs = r#"{"jobs":[
          {"id":1,"jobid":"fL","username":"ann","state":"DEPEND","t_submit":1.0,
           "dependencies":["max-run-jobs-queue","max-running-jobs-user-limit"]},
          {"id":2,"jobid":"fD","username":"ann","state":"DEPEND","t_submit":2.0,
           "dependencies":["max-running-jobs-user-limit","after-finish=fA1b2"]}]}"#;
        let d = dir(&[(JOBS, jobs), (TAKEN_AT, "100\n")]);
        let s = read_flux_snapshot(d.path()).unwrap();
        assert_eq!(
            s.pending[0].hold,
            Some(Hold::Limit(
                "max-run-jobs-queue,max-running-jobs-user-limit".into()
            ))
        );
        assert_eq!(
            s.pending[1].hold,
            Some(Hold::Dependency(
                "max-running-jobs-user-limit,after-finish=fA1b2".into()
            ))
        );
        let parts: Vec<&str> = s.missing.iter().map(|m| m.part.as_str()).collect();
        assert_eq!(
            parts,
            [
                "resource.json (flux resource R)",
                "mf_priority.json (flux jobtap query mf_priority.so)"
            ]
        );
        std::fs::write(d.path().join(MF_PRIORITY), "{}").unwrap();
        let s = read_flux_snapshot(d.path()).unwrap();
        assert_eq!(s.missing.len(), 1, "{:?}", s.missing);
    }

    #[test]
    fn missing_parts_and_bad_input_are_said() {
        let d = dir(&[(JOBS, JOBS_JSON)]);
        let s = read_flux_snapshot(d.path()).unwrap();
        let parts: Vec<&str> = s.missing.iter().map(|m| m.part.as_str()).collect();
        assert_eq!(
            parts,
            ["taken_at.txt (date +%s)", "resource.json (flux resource R)"]
        );
        let e = parse_r(&R_ALL.replace("\"fx[0-3]\"", "\"fx[0-2]\""), "r.json").unwrap_err();
        assert_eq!(
            e.to_string(),
            "r.json: $.execution.nodelist: 3 hosts for 4 ranks"
        );
        let e = parse_r("{\"version\":2}", "r.json").unwrap_err();
        assert!(
            e.to_string().starts_with("r.json: $.version: expected 1"),
            "{e}"
        );
        let mut snap = Snapshot::new(Scheduler::Flux);
        let e = parse_jobs(
            &JOBS_JSON.replace("\"t_run\":1764583200.4,", ""),
            "j.json",
            &mut snap,
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "j.json: $.jobs[0].t_run: missing");
    }
}
