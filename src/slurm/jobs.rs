//! Jobs for Slurm's multifactor priority: `squeue --json` (Slurm 22.05, `openapi/v0.0.38`
//! `jobs.c: _dump_job_info`) read into [`Job`] rows, and a job row's raw fields read as the
//! [`JobInputs`] of [`Multifactor::factors`](super::multifactor::Multifactor::factors).
//!
//! Job fields (job files and `squeue --json` alike): `accrue_time` (Unix seconds),
//! `min_nodes` (else `nodect`), `ncpus`, `time_limit` (minutes; else `walltime` in seconds,
//! rounded up to minutes; 0 or missing: the partition's MaxTime, as NO_VAL is),
//! `qos_priority`, `assoc` (the normalised association factor),
//! `fairshare` (else `fairshare_factor` from `--fairshare-tree`), `nice`, `site`, `mem`
//! (kilobytes, as job files read sizes), `gres_NAME` (a count); the partition is the job's
//! `queue`/`partition`. A factor column (`age`, `jobsize`, `tres_cpu`, ...) a job already has
//! is its value, not recomputed.

use super::multifactor::{Factors, JobInputs, Multifactor, STORED_PRIORITY};
use crate::catalog::{Catalog, ResourceType};
use crate::jobs::Job;
use crate::jobs::load::NotRanked;
use serde_json::Value;
use std::collections::BTreeMap;

/// The raw fields above, with the types the job loaders read them as.
pub const RAW_FIELDS: &[(&str, ResourceType)] = &[
    ("accrue_time", ResourceType::Long),
    ("min_nodes", ResourceType::Long),
    ("nodect", ResourceType::Long),
    ("ncpus", ResourceType::Long),
    ("time_limit", ResourceType::Long),
    ("walltime", ResourceType::Time),
    ("qos_priority", ResourceType::Long),
    ("fairshare_factor", ResourceType::Float),
    ("billing", ResourceType::Long),
    ("mem", ResourceType::Size),
    ("whole_node", ResourceType::Long),
    ("cpus_per_gpu", ResourceType::Long),
];

/// The catalog to load Slurm job files with: `catalog` plus the raw fields and a
/// `gres_NAME` count per generic resource in `gres` (formulas in the Slurm catalog do not
/// see these, so they are not added to it).
pub fn loading_catalog<'a>(catalog: &Catalog, gres: impl IntoIterator<Item = &'a str>) -> Catalog {
    let mut c = catalog.clone();
    for &(name, ty) in RAW_FIELDS {
        if c.resource(name).is_none() {
            c.add_resource(name, ty);
        }
    }
    for g in gres {
        c.add_resource(&format!("gres_{g}"), ResourceType::Long);
    }
    c
}

/// A job row's multifactor inputs.
pub fn job_inputs(job: &Job) -> JobInputs {
    let v = |name: &str| job.values.get(name).copied();
    let uint = |x: f64| {
        if x <= 0.0 {
            0
        } else {
            x.min(f64::from(u32::MAX)) as u32
        }
    };
    let ncpus = v("ncpus").map_or(0, uint);
    let min_nodes = v("min_nodes").or(v("nodect")).map_or(1, uint);
    // A job's time limit is never 0 in slurmctld (`slurm_opt.c: arg_set_time_limit` makes
    // `--time=0` INFINITE), and a job file's missing cell reads as 0: both are NO_VAL, the
    // partition's MaxTime (`set_priority_factors`).
    let time_limit = v("time_limit").map(uint).filter(|&t| t != 0).or_else(|| {
        v("walltime")
            .map(|s| uint((s / 60.0).ceil()))
            .filter(|&t| t != 0)
    });
    let mut tres = vec![
        ("cpu".to_string(), u64::from(ncpus)),
        ("node".to_string(), u64::from(min_nodes)),
    ];
    // slurmctld's billing TRES (`squeue`'s `tres_req_str`); else the factors compute it from
    // the partition's TRESBillingWeights.
    if let Some(b) = v("billing").filter(|&b| b > 0.0) {
        tres.push(("billing".into(), b as u64));
    }
    if let Some(kb) = v("mem") {
        tres.push(("mem".into(), (kb / 1024.0).max(0.0) as u64));
    }
    for (name, value) in &job.values {
        if let Some(g) = name.strip_prefix("gres_") {
            tres.push((format!("gres/{g}"), value.max(0.0) as u64));
        }
    }
    JobInputs {
        partition: job.queue.clone(),
        accrue_time: v("accrue_time").map(|t| t as i64),
        min_nodes,
        cpus: ncpus,
        whole_node: v("whole_node").is_some_and(|w| w > 0.0),
        cpus_per_gpu: v("cpus_per_gpu").map_or(0, uint),
        time_limit,
        qos_priority: v("qos_priority").map_or(0, uint),
        assoc: v("assoc").unwrap_or(0.0),
        fairshare: v("fairshare").or(v("fairshare_factor")).unwrap_or(0.0),
        nice: v("nice").map_or(0, |n| n as i64),
        site: v("site").map_or(0, |n| n as i64),
        tres,
    }
}

/// The factor columns of the Slurm catalog for one job's factors, by column name.
pub fn factor_columns(m: &Multifactor, f: &Factors) -> Vec<(String, f64)> {
    let mut cols = vec![
        ("age".to_string(), f.age),
        ("assoc".to_string(), f.assoc),
        ("fairshare".to_string(), f.fairshare),
        ("jobsize".to_string(), f.jobsize),
        ("partition".to_string(), f.partition),
        ("qos".to_string(), f.qos),
        ("site".to_string(), f.site as f64),
        ("nice".to_string(), f.nice as f64),
    ];
    cols.extend(m.tres_columns().into_iter().zip(f.tres.iter().copied()));
    cols
}

/// Give every job its factor columns at `now` (Unix seconds), computed from its raw fields
/// by `m`; a column the job already has is kept (given factors win). Returns each job's
/// factors as they end up (given ones included), for `sprio`-style output.
pub fn fill_factors(jobs: &mut [Job], m: &Multifactor, now: i64) -> Vec<Factors> {
    jobs.iter_mut()
        .map(|job| {
            let computed = m.factors(&job_inputs(job), now);
            for (name, value) in factor_columns(m, &computed) {
                job.values.entry(name).or_insert(value);
            }
            if m.incr_only {
                // Not known: 0, below every priority.
                job.values.entry(STORED_PRIORITY.into()).or_insert(0.0);
            }
            let v = |name: &str| job.values[name];
            Factors {
                age: v("age"),
                assoc: v("assoc"),
                fairshare: v("fairshare"),
                jobsize: v("jobsize"),
                partition: v("partition"),
                qos: v("qos"),
                tres: m.tres_columns().iter().map(|c| v(c)).collect(),
                site: v("site") as i64,
                nice: v("nice") as i64,
            }
        })
        .collect()
}

/// An error in `squeue --json` output.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct SqueueError {
    pub file: String,
    pub message: String,
}

/// The jobs of `squeue --json` output: those `sprio` lists, and the others with why not.
#[derive(Debug, Clone, Default)]
pub struct Squeue {
    pub jobs: Vec<Job>,
    pub not_ranked: Vec<NotRanked>,
}

/// Which jobs are read as ranked: every job, or the ones `sprio` lists at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqueueJobs {
    All,
    /// As `sprio` at `now` (Unix seconds) lists them
    /// (`priority_multifactor.c: priority_p_get_priority_factors_list`): pending jobs only,
    /// not held (priority 0), with a begin time that is set and not in the future — the
    /// submit time instead under `PriorityFlags=ACCRUE_ALWAYS` (`accrue_always`).
    Sprio {
        now: i64,
        accrue_always: bool,
        /// `PriorityFlags=CALCULATE_RUNNING`: jobs in any state pass the state check, and
        /// running ones are ranked with their priority as it is recomputed.
        calculate_running: bool,
    },
}

/// Why `sprio` would not list a job, `None` when it would: its state (a string, or the
/// array of state and flags newer Slurm writes), priority, begin time and state reason.
fn not_listed_because(
    job: &serde_json::Value,
    now: i64,
    accrue_always: bool,
    calculate_running: bool,
) -> (String, Option<String>) {
    let state = match job.get("job_state") {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(serde_json::Value::Array(a)) => a
            .iter()
            .filter_map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(","),
        _ => String::new(),
    };
    let base = state.split(',').next().unwrap_or_default();
    let reason = job
        .get("state_reason")
        .and_then(|r| r.as_str())
        .filter(|r| !r.is_empty() && *r != "None");
    // CALCULATE_RUNNING: running and suspended jobs are listed too (their priority is
    // recomputed by `decay_apply_weighted_factors`); a finished one is listed by sprio with
    // the factors of its last calculation, which squeue does not show.
    let listed_state = match base {
        "PENDING" => true,
        "RUNNING" | "SUSPENDED" => calculate_running,
        _ => false,
    };
    let why = match base {
        _ if listed_state => {
            let priority = job.get("priority").and_then(slurm_number);
            let (field, what) = if accrue_always {
                ("submit_time", "submit time")
            } else {
                ("begin_time", "begin time")
            };
            // 22.05's openapi v0.0.38 writes `details->begin_time` as `eligible_time`
            // (`job_mgr.c: pack_job`); `begin_time` is newer data parsers' name.
            let (field, begin) = match job.get(field) {
                None if !accrue_always => ("eligible_time", job.get("eligible_time")),
                b => (field, b),
            };
            let begin = begin.and_then(slurm_number);
            if priority == Some(0) {
                Some(match reason {
                    Some(r) => format!("held ({r}): priority 0"),
                    None => "held: priority 0".to_string(),
                })
            } else if begin.is_some_and(|b| b > now) {
                Some(format!("waiting for its {what}"))
            } else if begin == Some(0) {
                Some(format!("not eligible yet: {field} unset"))
            } else {
                None
            }
        }
        "RUNNING" => Some("running".into()),
        "COMPLETING" | "COMPLETED" | "CANCELLED" | "FAILED" | "TIMEOUT" | "PREEMPTED"
        | "NODE_FAIL" | "OUT_OF_MEMORY" | "BOOT_FAIL" | "DEADLINE"
            if calculate_running =>
        {
            Some(format!(
                "{}: under CALCULATE_RUNNING sprio lists it with the factors of its last \
                 calculation, which squeue --json does not show",
                base.to_ascii_lowercase()
            ))
        }
        "SUSPENDED" => Some("suspended".into()),
        "COMPLETING" => Some("completing".into()),
        "" => Some("no job_state".into()),
        _ => Some(format!("not pending: {}", base.to_ascii_lowercase())),
    };
    (state, why)
}

/// A number as `squeue --json` writes it: plain (22.05), or `{"set": true, "number": N}`
/// (newer data parsers); an unset one is none.
fn slurm_number(v: &serde_json::Value) -> Option<i64> {
    match v {
        serde_json::Value::Object(o) => o
            .get("set")
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(true)
            .then(|| o.get("number").and_then(serde_json::Value::as_i64))
            .flatten(),
        _ => v.as_i64(),
    }
}

/// Each `{"set": .., "infinite": .., "number": N}` of the data_parser plugins made the
/// plain number it stands for: `N` when set and finite, else `null` (as openapi/v0.0.38
/// writes an unset or infinite number).
pub fn plain_numbers(v: Value) -> Value {
    match v {
        Value::Object(o) => {
            let is_number_object = o.contains_key("number")
                && o.contains_key("set")
                && o.keys()
                    .all(|k| matches!(k.as_str(), "set" | "infinite" | "number"));
            if is_number_object {
                let set = o.get("set").and_then(Value::as_bool).unwrap_or(true);
                let infinite = o.get("infinite").and_then(Value::as_bool).unwrap_or(false);
                if set && !infinite {
                    o.get("number").cloned().unwrap_or(Value::Null)
                } else {
                    Value::Null
                }
            } else {
                Value::Object(o.into_iter().map(|(k, v)| (k, plain_numbers(v))).collect())
            }
        }
        Value::Array(a) => Value::Array(a.into_iter().map(plain_numbers).collect()),
        other => other,
    }
}

/// Which plugin wrote a document, as its `meta` says (`openapi/v0.0.38`,
/// `data_parser/v0.0.40`), with the Slurm release when given.
pub fn plugin(doc: &Value) -> String {
    let meta = doc.get("meta");
    let p = meta.and_then(|m| m.get("plugin"));
    let of = |k: &str| {
        p.and_then(|p| p.get(k))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let mut name = of("data_parser")
        .or(of("type"))
        .unwrap_or("an unnamed plugin")
        .to_string();
    if let Some(r) = meta
        .and_then(|m| m.get("Slurm"))
        .and_then(|s| s.get("release"))
        .and_then(Value::as_str)
    {
        name.push_str(&format!(", Slurm {r}"));
    }
    name
}

/// The jobs of `squeue --json` output (`{"jobs": [...]}`): every one, or those `sprio` lists
/// (see [`SqueueJobs`]) and the others as [`NotRanked`].
/// Each job's QOS name is looked up in `qos_priority` (`sacctmgr show qos
/// format=name,priority`); a QOS not in it has priority 0. Fields: `job_id`, `user_name`,
/// `account`, `partition`, `qos`, `accrue_time`, `submit_time`, `cpus` (`min_cpus` for a
/// pending job) and `max_cpus` (0 when unset: `job_mgr.c: pack_job`), `node_count`,
/// `time_limit` (minutes, `null` for the partition's), `nice`, `tres_req_str` (its `node=` is
/// a pending job's node count: its `node_count` is Slurm's guess); for which are
/// listed, `job_state`, `priority`, `begin_time` (22.05: `eligible_time`) and `state_reason`.
pub fn parse_squeue_json(
    text: &str,
    file: &str,
    qos_priority: &BTreeMap<String, u32>,
    which: SqueueJobs,
) -> Result<Squeue, SqueueError> {
    let err = |message: String| SqueueError {
        file: file.to_string(),
        message,
    };
    let doc: serde_json::Value =
        serde_json::from_str(text).map_err(|e| err(format!("not JSON: {e}")))?;
    // Slurm 23.02 and later (data_parser v0.0.40+) write numbers as objects: made plain, the
    // document reads as 22.05's openapi v0.0.38 does.
    let doc = plain_numbers(doc);
    let jobs = doc.get("jobs").and_then(|j| j.as_array()).ok_or_else(|| {
        err(format!(
            "no `jobs` array (expected `squeue --json` output; this one is of {})",
            plugin(&doc)
        ))
    })?;
    let mut out = Squeue::default();
    for (i, j) in jobs.iter().enumerate() {
        let at = |field: &str, m: &str| err(format!("jobs[{i}].{field}: {m}"));
        let int = |field: &str| -> Result<Option<i64>, SqueueError> {
            match j.get(field) {
                None | Some(serde_json::Value::Null) => Ok(None),
                Some(x) => x
                    .as_i64()
                    .map(Some)
                    .ok_or_else(|| at(field, "expected an integer")),
            }
        };
        let text_of = |field: &str| j.get(field).and_then(|x| x.as_str()).map(str::to_string);
        let id = int("job_id")?.ok_or_else(|| at("job_id", "missing"))?;
        if let SqueueJobs::Sprio {
            now,
            accrue_always,
            calculate_running,
        } = which
            && let (state, Some(reason)) =
                not_listed_because(j, now, accrue_always, calculate_running)
        {
            out.not_ranked.push(NotRanked {
                id: id.to_string(),
                state,
                reason,
            });
            continue;
        }
        let mut job = Job::new(id.to_string());
        job.user = text_of("user_name");
        job.account = text_of("account");
        job.queue = text_of("partition");
        job.submit = int("submit_time")?.map(|t| t as f64);
        let mut set = |name: &str, v: Option<i64>| {
            if let Some(v) = v {
                job.values.insert(name.to_string(), v as f64);
            }
        };
        // A started job (listed under CALCULATE_RUNNING) has its `total_cpus` (squeue's
        // `cpus`) and allocated TRES, which set_priority_factors prefers to the request.
        let started = matches!(
            j.get("job_state").and_then(|s| match s {
                serde_json::Value::Array(a) => a.first().and_then(|x| x.as_str()),
                other => other.as_str(),
            }),
            Some("RUNNING" | "SUSPENDED")
        );
        let cpus = match int("max_cpus")? {
            Some(m) if m > 0 && !started => Some(m),
            _ => int("cpus")?,
        };
        set("ncpus", cpus);
        // A pending job's `node_count` is the nodes Slurm last guessed it would take
        // (`node_cnt_wag`); job size counts its `details->min_nodes`, which `tres_req_str`
        // gives as `node=` (`job_set_req_tres`).
        let req_nodes = if started {
            None
        } else {
            text_of("tres_req_str").and_then(|t| {
                parse_tres_str(&t)
                    .ok()?
                    .into_iter()
                    .find(|(n, _)| n == "node")
                    .map(|(_, c)| c as i64)
            })
        };
        set("min_nodes", req_nodes.or(int("node_count")?));
        // What the select plugin's test at submission made of a pending job's CPUs, which
        // job size reads (Multifactor::job_size_cpus): whole nodes (`--exclusive`, squeue's
        // `"shared": "none"`), CPUs per GPU (`cpus_per_tres` `gres:gpu:N`).
        if !started {
            if text_of("shared").as_deref() == Some("none") {
                set("whole_node", Some(1));
            }
            let per_gpu = text_of("cpus_per_tres").and_then(|t| {
                t.split(',').find_map(|item| {
                    let rest = item
                        .strip_prefix("gres:gpu:")
                        .or(item.strip_prefix("gres/gpu:"))?;
                    rest.rsplit(':').next()?.parse::<i64>().ok()
                })
            });
            set("cpus_per_gpu", per_gpu);
        }
        set("time_limit", int("time_limit")?);
        set("accrue_time", int("accrue_time")?);
        set("nice", int("nice")?.map(unwrap_nice));
        // The priority slurmctld stores now, which INCR_ONLY's does not fall below.
        set(
            STORED_PRIORITY,
            j.get("priority").and_then(slurm_number).filter(|&p| p > 0),
        );
        let qos = text_of("qos").unwrap_or_default();
        set(
            "qos_priority",
            Some(i64::from(*qos_priority.get(&qos).unwrap_or(&0))),
        );
        let tres_field = match text_of("tres_alloc_str") {
            Some(a) if started && !a.is_empty() => "tres_alloc_str",
            _ => "tres_req_str",
        };
        if let Some(tres) = text_of(tres_field) {
            for (name, count) in parse_tres_str(&tres).map_err(|m| at(tres_field, &m))? {
                match name.as_str() {
                    "mem" => {
                        job.values.insert("mem".into(), count as f64 * 1024.0);
                    }
                    "billing" => {
                        job.values.insert("billing".into(), count as f64);
                    }
                    other => {
                        if let Some(g) = other.strip_prefix("gres/") {
                            job.values
                                .insert(format!("gres_{}", g.replace(':', "_")), count as f64);
                        }
                    }
                }
            }
        }
        // A job submitted to several partitions (`"partition": "batch,short"`) has one
        // priority per partition (`_get_priority_internal`: priority_array) and sprio lists
        // one row per partition (`_filter_job`), each with that partition's factor and TRES
        // totals; the scheduler queues it once per partition. One row each, same id.
        let parts: Vec<String> = job
            .queue
            .as_deref()
            .map(|q| {
                q.split(',')
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        if parts.len() > 1 {
            for part in parts {
                let mut row = job.clone();
                row.queue = Some(part);
                out.jobs.push(row);
            }
        } else {
            out.jobs.push(job);
        }
    }
    Ok(out)
}

/// The nice value `squeue --json` (openapi v0.0.38) writes: `job->nice - NICE_OFFSET`
/// computed in uint32 (`openapi/v0.0.38/jobs.c: _dump_job_info`), so `--nice=-500` is
/// written 4294966796. Slurm's nice is within ±(NICE_OFFSET − 3) (`slurm_opt.c: arg_set_nice`),
/// so a value of 2^31 or more is a wrapped negative one: 2^32 is taken off.
pub fn unwrap_nice(n: i64) -> i64 {
    if (0x8000_0000..=0xffff_ffff).contains(&n) {
        n - 0x1_0000_0000
    } else {
        n
    }
}

/// `cpu=4,mem=2000M,node=1,billing=4,gres/gpu=2` (`slurmdb_make_tres_string_from_simple`
/// with memory in MB and a unit suffix): counts by TRES name, memory in MB.
pub fn parse_tres_str(s: &str) -> Result<Vec<(String, u64)>, String> {
    s.split(',')
        .filter(|x| !x.trim().is_empty())
        .map(|item| {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| format!("`{item}` is not NAME=COUNT"))?;
            let (digits, mult) = match value.chars().last() {
                Some('K') => (&value[..value.len() - 1], 1.0 / 1024.0),
                Some('M') => (&value[..value.len() - 1], 1.0),
                Some('G') => (&value[..value.len() - 1], 1024.0),
                Some('T') => (&value[..value.len() - 1], 1024.0 * 1024.0),
                _ => (value, 1.0),
            };
            let n: f64 = digits
                .parse()
                .map_err(|_| format!("`{value}` is not a count in `{item}`"))?;
            Ok((name.to_ascii_lowercase(), (n * mult).round() as u64))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQUEUE: &str = r#"{"meta": {"plugin": {"type": "openapi/v0.0.38"}},
      "jobs": [
        {"job_id": 7, "job_state": "PENDING", "user_name": "ann", "account": "phys",
         "partition": "short", "qos": "high", "accrue_time": 1700000000,
         "submit_time": 1699999990, "cpus": 4, "max_cpus": 0, "node_count": 1,
         "time_limit": 60, "nice": -5, "tres_req_str": "cpu=4,mem=2G,node=1,billing=4,gres/gpu=2"},
        {"job_id": 8, "job_state": "RUNNING", "cpus": 1, "node_count": 1},
        {"job_id": 9, "job_state": "PENDING", "partition": "batch", "qos": "normal",
         "cpus": 2, "max_cpus": 6, "node_count": 2, "time_limit": null, "nice": 0,
         "accrue_time": 0}
      ]}"#;

    #[test]
    fn squeue_json_to_inputs() {
        let qos = BTreeMap::from([("high".to_string(), 100), ("normal".to_string(), 10)]);
        let read = parse_squeue_json(
            SQUEUE,
            "squeue.json",
            &qos,
            SqueueJobs::Sprio {
                now: 1_700_000_100,
                accrue_always: false,
                calculate_running: false,
            },
        )
        .unwrap();
        let jobs = read.jobs;
        assert_eq!(jobs.len(), 2, "pending jobs only");
        let a = job_inputs(&jobs[0]);
        assert_eq!(a.partition.as_deref(), Some("short"));
        assert_eq!((a.cpus, a.min_nodes, a.time_limit), (4, 1, Some(60)));
        assert_eq!((a.nice, a.qos_priority), (-5, 100));
        assert_eq!(a.accrue_time, Some(1_700_000_000));
        assert!(a.tres.contains(&("mem".to_string(), 2048)));
        assert!(a.tres.contains(&("gres/gpu".to_string(), 2)));
        // slurmctld's billing TRES as squeue gives it (tres_req_cnt[TRES_ARRAY_BILLING]).
        assert!(a.tres.contains(&("billing".to_string(), 4)));
        // max_cpus, when set, is the count job size uses (set_priority_factors).
        let b = job_inputs(&jobs[1]);
        assert_eq!((b.cpus, b.min_nodes, b.time_limit), (6, 2, None));
        let e = parse_squeue_json(
            "{\"jobs\": [{\"job_state\": \"PENDING\"}]}",
            "q",
            &qos,
            SqueueJobs::All,
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "q: jobs[0].job_id: missing");
    }

    // A pending job's `node_count` is Slurm's guess of the nodes it will take
    // (`node_cnt_wag`, set at each attempt by node_scheduler.c `select_nodes`), while job size
    // counts its `details->min_nodes` (priority_multifactor.c `_get_priority_internal`), which
    // `tres_req_str` gives as `node=` (job_mgr.c `job_set_req_tres`). 12 CPUs on 8-CPU nodes,
    // no -N: node_count 2, node=1, and sprio's job size is that of one node.
    #[test]
    fn a_pending_jobs_nodes_are_its_minimum_not_slurms_guess() {
        let text = r#"{"jobs": [
          {"job_id": 1005, "job_state": "PENDING", "partition": "batch", "cpus": 12,
           "max_cpus": 0, "node_count": 2, "time_limit": 1,
           "tres_req_str": "cpu=12,mem=1200M,node=1,billing=12"}
        ]}"#;
        let read = parse_squeue_json(text, "squeue.json", &BTreeMap::new(), SqueueJobs::All)
            .unwrap()
            .jobs;
        assert_eq!(job_inputs(&read[0]).min_nodes, 1);
    }

    #[test]
    fn only_the_jobs_sprio_lists_are_ranked() {
        // priority_multifactor.c: priority_p_get_priority_factors_list skips jobs that are not
        // pending, whose begin time is unset or in the future, and held ones (priority 0).
        let text = r#"{"jobs": [
          {"job_id": 1, "job_state": "PENDING", "priority": 1200, "begin_time": 100},
          {"job_id": 2, "job_state": "PENDING", "priority": 0, "state_reason": "JobHeldUser",
           "begin_time": 100},
          {"job_id": 3, "job_state": "PENDING", "priority": 900, "begin_time": 5000},
          {"job_id": 4, "job_state": "PENDING", "priority": 900, "begin_time": 0},
          {"job_id": 5, "job_state": "RUNNING", "priority": 1500},
          {"job_id": 6, "job_state": "COMPLETED"},
          {"job_id": 7, "job_state": ["PENDING"], "priority": {"set": true, "number": 7},
           "begin_time": {"set": true, "number": 100}},
          {"job_id": 8, "job_state": ["SUSPENDED"]}
        ]}"#;
        let sprio = |accrue_always| SqueueJobs::Sprio {
            now: 1000,
            accrue_always,
            calculate_running: false,
        };
        let read = parse_squeue_json(text, "q", &BTreeMap::new(), sprio(false)).unwrap();
        let ids: Vec<&str> = read.jobs.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(ids, ["1", "7"]);
        let not: Vec<(&str, &str, &str)> = read
            .not_ranked
            .iter()
            .map(|n| (n.id.as_str(), n.state.as_str(), n.reason.as_str()))
            .collect();
        assert_eq!(
            not,
            [
                ("2", "PENDING", "held (JobHeldUser): priority 0"),
                ("3", "PENDING", "waiting for its begin time"),
                ("4", "PENDING", "not eligible yet: begin_time unset"),
                ("5", "RUNNING", "running"),
                ("6", "COMPLETED", "not pending: completed"),
                ("8", "SUSPENDED", "suspended"),
            ]
        );
        // ACCRUE_ALWAYS: the submit time decides, not the begin time (jobs 3 and 4 have none
        // given: they are listed).
        let read = parse_squeue_json(text, "q", &BTreeMap::new(), sprio(true)).unwrap();
        let ids: Vec<&str> = read.jobs.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(ids, ["1", "3", "4", "7"]);
        let all = parse_squeue_json(text, "q", &BTreeMap::new(), SqueueJobs::All).unwrap();
        assert_eq!((all.jobs.len(), all.not_ranked.len()), (8, 0));
    }

    /// squeue --json of 22.05 (live): a pending `--exclusive` job has `"shared": "none"`, a
    /// `--cpus-per-gpu=4` one `"cpus_per_tres": "gres:gpu:4"`, both with `"cpus": 1`; job
    /// size takes the select plugin's CPUs for them (Multifactor::job_size_cpus). A started
    /// job's `cpus` is its `total_cpus` already: nothing is rebuilt for it.
    #[test]
    fn pending_whole_node_and_cpus_per_gpu_are_read() {
        let text = r#"{"jobs": [
          {"job_id": 13, "job_state": "PENDING", "partition": "gpu", "cpus": 1, "max_cpus": 0,
           "shared": "none", "cpus_per_tres": "", "tres_req_str": "cpu=1,node=1"},
          {"job_id": 21, "job_state": "PENDING", "partition": "gpu", "cpus": 1, "max_cpus": 0,
           "shared": null, "cpus_per_tres": "gres:gpu:4", "tres_req_str": "cpu=1,node=1,gres/gpu=4"},
          {"job_id": 4, "job_state": "RUNNING", "partition": "gpu", "cpus": 16, "max_cpus": 0,
           "shared": "none", "cpus_per_tres": "gres:gpu:4", "tres_req_str": "cpu=1,node=1"}
        ]}"#;
        let read = parse_squeue_json(text, "q", &BTreeMap::new(), SqueueJobs::All).unwrap();
        let inputs: Vec<(bool, u32, u32)> = read
            .jobs
            .iter()
            .map(|j| {
                let i = job_inputs(j);
                (i.whole_node, i.cpus_per_gpu, i.cpus)
            })
            .collect();
        assert_eq!(inputs, [(true, 0, 1), (false, 4, 1), (false, 0, 16)]);
    }

    #[test]
    fn calculate_running_lists_running_jobs() {
        // priority_multifactor.c, priority_p_get_priority_factors_list: `if (!(flags &
        // PRIORITY_FLAGS_CALCULATE_RUNNING) && !IS_JOB_PENDING(job_ptr)) continue;`, and
        // decay_apply_weighted_factors recomputes a running job's priority under the flag;
        // set_priority_factors takes total_cpus and tres_alloc_cnt once they are set.
        let text = r#"{"jobs": [
          {"job_id": 1, "job_state": "PENDING", "priority": 10, "eligible_time": 900,
           "cpus": 2, "max_cpus": 0, "tres_req_str": "cpu=2,gres/gpu=1"},
          {"job_id": 2, "job_state": "RUNNING", "priority": 10, "eligible_time": 900,
           "cpus": 8, "max_cpus": 12, "tres_req_str": "cpu=4,gres/gpu=1",
           "tres_alloc_str": "cpu=8,gres/gpu=2"},
          {"job_id": 3, "job_state": "COMPLETED", "priority": 10, "eligible_time": 900}
        ]}"#;
        let which = |calculate_running| SqueueJobs::Sprio {
            now: 1000,
            accrue_always: false,
            calculate_running,
        };
        let read = parse_squeue_json(text, "q", &BTreeMap::new(), which(true)).unwrap();
        let ids: Vec<&str> = read.jobs.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(ids, ["1", "2"]);
        let run = job_inputs(&read.jobs[1]);
        assert_eq!(run.cpus, 8);
        assert!(run.tres.contains(&("gres/gpu".to_string(), 2)));
        assert_eq!(read.not_ranked[0].id, "3");
        assert!(
            read.not_ranked[0]
                .reason
                .starts_with("completed: under CALCULATE_RUNNING")
        );
        let read = parse_squeue_json(text, "q", &BTreeMap::new(), which(false)).unwrap();
        let ids: Vec<&str> = read.jobs.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(ids, ["1"]);
    }

    #[test]
    fn a_job_in_two_partitions_is_a_row_in_each() {
        // priority_multifactor.c: _get_priority_internal keeps one priority per partition
        // of part_ptr_list (priority_array), and _filter_job gives sprio one row per
        // partition, its PARTITION factor that partition's.
        let text = r#"{"jobs": [
          {"job_id": 5, "job_state": "PENDING", "partition": "batch,short", "cpus": 4,
           "node_count": 1, "tres_req_str": "cpu=4,node=1,billing=4"},
          {"job_id": 6, "job_state": "PENDING", "partition": "batch", "cpus": 1}
        ]}"#;
        let read = parse_squeue_json(text, "q", &BTreeMap::new(), SqueueJobs::All).unwrap();
        let rows: Vec<(&str, &str)> = read
            .jobs
            .iter()
            .map(|j| (j.id.as_str(), j.queue.as_deref().unwrap()))
            .collect();
        assert_eq!(rows, [("5", "batch"), ("5", "short"), ("6", "batch")]);
        // Each row's factors are its partition's: short's PriorityJobFactor 3 of 10 and
        // 4 CPUs of its 32; batch's 10/10 and 4 of 64.
        let conf = crate::slurm::conf::SlurmConf::parse(
            "PriorityWeightPartition=1000\nPriorityWeightTRES=CPU=1000\n\
             NodeName=n[1-4] CPUs=16\n\
             PartitionName=batch Nodes=ALL PriorityJobFactor=10\n\
             PartitionName=short Nodes=n[1-2] PriorityJobFactor=3\n",
            "slurm.conf",
        )
        .unwrap();
        let m = Multifactor::from_conf(&conf, 0);
        let f: Vec<(f64, Vec<f64>)> = read.jobs[..2]
            .iter()
            .map(|j| {
                let f = m.factors(&job_inputs(j), 0);
                (f.partition, f.tres)
            })
            .collect();
        assert_eq!(f, [(1.0, vec![4.0 / 64.0]), (0.3, vec![4.0 / 32.0])]);
    }

    #[test]
    fn eligible_time_is_the_begin_time_of_22_05() {
        // Slurm 22.05's squeue --json has no begin_time: details->begin_time is written as
        // eligible_time (job_mgr.c pack_job; openapi/v0.0.38 jobs.c _dump_job_info). sprio
        // skips a job whose begin time is in the future (--begin) or unset (a dependency
        // not yet satisfied: job_independent sets it when the job becomes independent):
        // priority_multifactor.c, priority_p_get_priority_factors_list, the `use_time` check.
        let text = r#"{"jobs": [
          {"job_id": 1, "job_state": "PENDING", "priority": 10, "eligible_time": 900},
          {"job_id": 2, "job_state": "PENDING", "priority": 10, "eligible_time": 5000},
          {"job_id": 3, "job_state": "PENDING", "priority": 10, "eligible_time": 0,
           "state_reason": "Dependency"}
        ]}"#;
        let which = SqueueJobs::Sprio {
            now: 1000,
            accrue_always: false,
            calculate_running: false,
        };
        let read = parse_squeue_json(text, "q", &BTreeMap::new(), which).unwrap();
        let ids: Vec<&str> = read.jobs.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(ids, ["1"]);
        let not: Vec<(&str, &str)> = read
            .not_ranked
            .iter()
            .map(|n| (n.id.as_str(), n.reason.as_str()))
            .collect();
        assert_eq!(
            not,
            [
                ("2", "waiting for its begin time"),
                ("3", "not eligible yet: eligible_time unset"),
            ]
        );
    }

    #[test]
    fn negative_nice_unwrapped() {
        // openapi/v0.0.38/jobs.c, _dump_job_info: `job->nice - NICE_OFFSET` on the uint32
        // nice, so `--nice=-500` is printed 4294967296 - 500 = 4294966796; sprio shows -500
        // (priority_multifactor.c, _get_priority_internal: `(int64_t) nice - NICE_OFFSET`).
        let text = r#"{"jobs": [
          {"job_id": 1, "job_state": "PENDING", "nice": 4294966796},
          {"job_id": 2, "job_state": "PENDING", "nice": 500},
          {"job_id": 3, "job_state": "PENDING", "nice": 2147483645}
        ]}"#;
        let read = parse_squeue_json(text, "q", &BTreeMap::new(), SqueueJobs::All).unwrap();
        let nice: Vec<i64> = read.jobs.iter().map(|j| job_inputs(j).nice).collect();
        assert_eq!(nice, [-500, 500, 2147483645]);
    }

    #[test]
    fn a_missing_time_limit_is_the_partitions() {
        // A job file where one job gives no time_limit: the set reads its cell as 0, which
        // is no limit Slurm stores (slurm_opt.c, arg_set_time_limit: 0 is INFINITE), so it
        // is NO_VAL and set_priority_factors (priority_multifactor.c) divides by the
        // partition's MaxTime: SMALL_RELATIVE_TO_TIME with PriorityFavorSmall on 4 nodes of
        // 16 CPUs, MaxTime=2-0 (2880 min), 1 node, 4 CPUs: 1 - (max(1*64/4, 4) / 2880) / 64.
        let conf = crate::slurm::conf::SlurmConf::parse(
            "PriorityType=priority/multifactor\nPriorityWeightJobSize=1000\n\
             PriorityFlags=SMALL_RELATIVE_TO_TIME\nPriorityFavorSmall=YES\n\
             NodeName=n[1-4] CPUs=16\nPartitionName=batch Nodes=ALL MaxTime=2-0\n",
            "slurm.conf",
        )
        .unwrap();
        let m = Multifactor::from_conf(&conf, 0);
        let set: crate::jobs::JobSet = [
            Job::new("1").with("ncpus", 4.0).with("time_limit", 60.0),
            Job::new("2").with("ncpus", 4.0),
        ]
        .into_iter()
        .map(|mut j| {
            j.queue = Some("batch".into());
            j
        })
        .collect();
        let rows = set.rows();
        let f: Vec<f64> = rows
            .iter()
            .map(|j| m.factors(&job_inputs(j), 0).jobsize)
            .collect();
        assert_eq!(job_inputs(&rows[1]).time_limit, None);
        assert_eq!(f[0], 1.0 - 16.0 / 60.0 / 64.0);
        assert_eq!(f[1], 1.0 - 16.0 / 2880.0 / 64.0);
    }

    #[test]
    fn job_file_fields() {
        let job = Job::new("1")
            .with("walltime", 5400.0 + 1.0)
            .with("nodect", 3.0)
            .with("ncpus", 12.0)
            .with("fairshare_factor", 0.25);
        let i = job_inputs(&job);
        assert_eq!((i.time_limit, i.min_nodes, i.cpus), (Some(91), 3, 12));
        assert_eq!(i.fairshare, 0.25);
    }
}
