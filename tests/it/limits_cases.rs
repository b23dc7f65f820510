//! flux-accounting limit conformance: every `flux_limits_sequence` and
//! `flux_limit_predicates` case of `tests/data/cases/slurm_flux.json`.
//!
//! A sequence case `ID` is translated into `tests/data/limits/ID/`:
//! - `config.toml`: the associations and queues of the case;
//! - `events.jsonl`: the case's steps as event blocks separated by blank lines (block k
//!   is step k; the scheduler's `alloc` is an explicit `run` event);
//! - `checkpoints.json`: per step, the association the step's counters refer to, the
//!   mapping of the case's job names to event job ids, and explicit checks for the prose
//!   expectations ("both run", "still held", ...).
//!
//! The numeric and named expectations (dependency adds/removes, rejects, counters, queue
//! usage, held counts) are read from the case file at test time; every key of every step
//! is either checked or explained in `checkpoints.json` (an unknown key fails the test).
//!
//! Deliberate difference: when a case lists several dependencies of one job, they are
//! compared in flux's check order (reference §2.5 table: queue limits first). t1052 lists
//! `["max-running-jobs-user-limit", "max-run-jobs-queue"]`; the upstream test waits for both
//! events without asserting their order, and `depend_cb` adds the queue limit first.

use std::path::PathBuf;

use jobsort::flux::limits::assoc::{AssocLimits, CheckContext, Counters, Pending, QueueUsage};
use jobsort::flux::limits::events::{apply, parse_event_line};
use jobsort::flux::limits::{
    AssocConfig, Dependency, JobSpec, LimitEngine, LimitsConfig, Options, QueueConfig, QueueLimits,
    SubmitOutcome,
};
use serde_json::{Value, json};

use crate::common;

fn cases() -> Vec<Value> {
    common::cases(common::SLURM_FLUX)
}

fn case(id: &str) -> Value {
    common::case(common::SLURM_FLUX, id)
}

fn data_dir(id: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/limits")
        .join(id)
}

#[test]
fn every_limit_case_is_translated() {
    let mut n = 0;
    for c in cases() {
        if c["kind"] == "flux_limits_sequence" {
            let id = c["id"].as_str().unwrap();
            for f in ["config.toml", "events.jsonl", "checkpoints.json"] {
                assert!(data_dir(id).join(f).exists(), "{id}: missing {f}");
            }
            n += 1;
        }
    }
    assert_eq!(
        n, 6,
        "the number of flux_limits_sequence cases changed: translate the new ones"
    );
}

/// Replaces dependency names inside every string of `v`.
fn rename(v: &Value, map: &[(String, String)]) -> Value {
    match v {
        Value::String(s) => {
            let mut s = s.clone();
            for (from, to) in map {
                s = s.replace(from.as_str(), to);
            }
            Value::String(s)
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| rename(x, map)).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, x)| (k.clone(), rename(x, map))).collect())
        }
        other => other.clone(),
    }
}

fn dep_names_in(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => {
            for d in Dependency::ALL {
                if s.contains(d.name()) && !out.iter().any(|x| x == d.name()) {
                    out.push(d.name().to_string());
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| dep_names_in(x, out)),
        Value::Object(o) => o.values().for_each(|x| dep_names_in(x, out)),
        _ => {}
    }
}

/// The steps of a case; a `same_as` case takes the referenced case's steps with its
/// dependency names replaced, pairing them in order of first appearance.
fn steps_of(c: &Value) -> Vec<Value> {
    if let Some(other) = c["expected"]["same_as"].as_str() {
        let base = case(other);
        let steps = base["expected"]["steps"].as_array().unwrap().clone();
        let mut from = Vec::new();
        dep_names_in(&Value::Array(steps.clone()), &mut from);
        let to: Vec<String> = c["expected"]["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert_eq!(from.len(), to.len(), "{}: dependency mapping", c["id"]);
        let map: Vec<(String, String)> = from.into_iter().zip(to).collect();
        return steps.iter().map(|s| rename(s, &map)).collect();
    }
    c["expected"]["steps"].as_array().unwrap().clone()
}

struct Step<'a> {
    case: &'a str,
    index: usize,
    engine: &'a LimitEngine,
    changes: &'a [Value],
    cp: &'a Value,
}

const COUNTERS: [&str; 5] = [
    "cur_run_jobs",
    "cur_active_jobs",
    "cur_sched_jobs",
    "cur_nodes",
    "cur_cores",
];

impl Step<'_> {
    fn at(&self) -> String {
        format!("{} step {}", self.case, self.index)
    }

    fn map_job(&self, name: &str) -> Option<String> {
        if let Some(j) = self.cp["jobs"].get(name).and_then(Value::as_str) {
            return Some(j.to_string());
        }
        self.engine.job(name).map(|_| name.to_string())
    }

    fn assoc(&self) -> usize {
        let s = self.cp["assoc"].as_str().expect("checkpoint assoc");
        let (u, b) = s.split_once('/').unwrap();
        self.engine
            .find_association(u, Some(b))
            .unwrap_or_else(|| panic!("{}: no association {s}", self.at()))
    }

    fn state(&self, job: &str) -> String {
        let j = self
            .engine
            .job(job)
            .unwrap_or_else(|| panic!("{}: no job {job}", self.at()));
        serde_json::to_value(j.state)
            .unwrap()
            .as_str()
            .unwrap()
            .to_string()
    }

    fn dep_changes(&self, job: &str, kind: &str) -> Vec<String> {
        self.changes
            .iter()
            .filter(|c| c["job"] == job)
            .filter_map(|c| c.get(kind).and_then(Value::as_str).map(str::to_string))
            .collect()
    }

    fn check_deps(&self, job: &str, kind: &str, expected: &Value) {
        let mut want: Vec<&str> = match expected {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().map(|v| v.as_str().unwrap()).collect(),
            other => panic!("{}: bad dependency list {other}", self.at()),
        };
        // flux's check order (see the module comment).
        want.sort_by_key(|n| Dependency::from_name(n).expect("known dependency name"));
        let got = self.dep_changes(job, kind);
        assert_eq!(got, want, "{}: {kind} of {job}", self.at());
    }

    fn check_counter(&self, key: &str, want: &Value) {
        let s = self.engine.summary(self.assoc()).unwrap();
        let v = serde_json::to_value(&s).unwrap();
        let got = if key == "held_jobs" {
            json!(s.held_jobs.len())
        } else {
            v[key].clone()
        };
        assert_eq!(&got, want, "{}: {key}", self.at());
    }

    fn check_queue_usage(&self, queue: &str, field: &str, want: &Value) {
        let a = &self.engine.associations()[self.assoc()];
        let qi = self
            .engine
            .queues()
            .iter()
            .position(|q| q.name == queue)
            .unwrap();
        let u = a.queue_usage.get(&qi).copied().unwrap_or_default();
        let got = serde_json::to_value(u).unwrap()[field].clone();
        assert_eq!(&got, want, "{}: queue_usage.{queue}.{field}", self.at());
    }

    fn target(&self, job: Option<&str>) -> String {
        job.map(str::to_string)
            .or_else(|| self.cp["job"].as_str().map(str::to_string))
            .unwrap_or_else(|| panic!("{}: which job? (checkpoint needs \"job\")", self.at()))
    }

    fn check_prose(&self, job: &str, text: &str) {
        if text == "alloc" || text == "run" {
            assert_eq!(self.state(job), "run", "{}: {job} {text}", self.at());
        } else if text.starts_with("still held") {
            assert_eq!(self.state(job), "depend", "{}: {job} {text}", self.at());
            if let Some(i) = text.find("deps[0]=") {
                let name = text[i + 8..].trim_end_matches(')');
                let first = self.engine.job(job).unwrap().deps[0];
                assert_eq!(first.name(), name, "{}: {job} deps[0]", self.at());
            }
        } else {
            panic!("{}: unhandled prose {text:?} for {job}", self.at());
        }
    }

    fn check(&self, exp: &Value, job: Option<&str>) {
        match exp {
            Value::String(_) => {
                // Prose ("both run", "running jobs unaffected"): the checkpoint's explicit
                // states/changes check it.
                assert!(
                    self.cp.get("states").is_some() || self.cp.get("changes").is_some(),
                    "{}: prose expectation without explicit checks",
                    self.at()
                );
            }
            Value::Object(map) => {
                for (k, v) in map {
                    if COUNTERS.contains(&k.as_str()) || k == "held_jobs" {
                        self.check_counter(k, v);
                    } else if let Some(rest) = k.strip_prefix("queue_usage.") {
                        let (q, f) = rest.split_once('.').unwrap();
                        self.check_queue_usage(q, f, v);
                    } else if k == "all_counters" {
                        for c in COUNTERS {
                            self.check_counter(c, v);
                        }
                        self.check_counter("held_jobs", v);
                        for q in [
                            "cur_run_jobs",
                            "cur_nodes",
                            "cur_sched_jobs",
                            "cur_sched_nodes",
                            "cur_sched_cores",
                        ] {
                            for queue in self.engine.queues() {
                                self.check_queue_usage(&queue.name, q, v);
                            }
                        }
                    } else if k == "dependency_add" || k == "dependency_remove" {
                        self.check_deps(&self.target(job), k, v);
                    } else if k == "then" {
                        self.check_prose(&self.target(job), v.as_str().unwrap());
                    } else if k == "each" {
                        for j in self.cp["each"].as_array().expect("checkpoint each") {
                            self.check(v, j.as_str());
                        }
                    } else if k == "accepted" {
                        let t = self.target(job);
                        let rejected = self
                            .changes
                            .iter()
                            .any(|c| c["job"] == t.as_str() && c.get("rejected").is_some());
                        assert_eq!(
                            !rejected,
                            v.as_bool().unwrap(),
                            "{}: accepted {t}",
                            self.at()
                        );
                        assert_ne!(self.state(&t), "inactive", "{}: {t}", self.at());
                    } else if k == "rejected" {
                        let t = self.target(job);
                        let msg: Vec<&Value> = self
                            .changes
                            .iter()
                            .filter(|c| c["job"] == t.as_str())
                            .filter_map(|c| c.get("rejected"))
                            .collect();
                        assert_eq!(msg, vec![v], "{}: rejected {t}", self.at());
                    } else if k == "counts" {
                        self.check(v, job);
                    } else if let Some(j) = self.map_job(k) {
                        match v {
                            Value::String(s) => self.check_prose(&j, s),
                            _ => self.check(v, Some(&j)),
                        }
                    } else if self.cp["explains"].get(k).is_some() {
                        // Not a limit-engine observable; the reason is in checkpoints.json.
                    } else {
                        panic!("{}: unhandled expectation key {k:?}", self.at());
                    }
                }
            }
            other => panic!("{}: unhandled expectation {other}", self.at()),
        }
    }

    fn check_explicit(&self) {
        if let Some(states) = self.cp["states"].as_object() {
            for (j, s) in states {
                assert_eq!(&json!(self.state(j)), s, "{}: state of {j}", self.at());
            }
        }
        if let Some(ch) = self.cp.get("changes") {
            assert_eq!(
                &Value::Array(self.changes.to_vec()),
                ch,
                "{}: changes",
                self.at()
            );
        }
        if let Some(r) = self.cp["rejected"].as_object() {
            for (j, m) in r {
                self.check(&json!({ "rejected": m }), Some(j));
            }
        }
        if let Some(q) = self.cp["queue_usage"].as_object() {
            for (queue, fields) in q {
                for (f, v) in fields.as_object().unwrap() {
                    self.check_queue_usage(queue, f, v);
                }
            }
        }
    }
}

fn run_sequence(id: &str) {
    let c = case(id);
    assert_eq!(c["kind"], "flux_limits_sequence");
    let steps = steps_of(&c);
    let dir = data_dir(id);
    let config = LimitsConfig::load(&dir.join("config.toml")).expect("config");
    let mut engine = LimitEngine::from_config(&config).expect("engine");
    let cps: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(dir.join("checkpoints.json")).expect("checkpoints"),
    )
    .expect("checkpoints.json");
    let text = std::fs::read_to_string(dir.join("events.jsonl")).expect("events");
    let blocks: Vec<Vec<(usize, &str)>> = {
        let mut blocks = vec![Vec::new()];
        for (i, l) in text.lines().enumerate() {
            if l.trim().is_empty() {
                if !blocks.last().unwrap().is_empty() {
                    blocks.push(Vec::new());
                }
            } else {
                blocks.last_mut().unwrap().push((i + 1, l));
            }
        }
        blocks
    };
    assert_eq!(blocks.len(), steps.len(), "{id}: one event block per step");
    assert_eq!(cps.len(), steps.len(), "{id}: one checkpoint per step");
    let mut number = 0;
    let mut added = Vec::new();
    for (k, block) in blocks.iter().enumerate() {
        let mut changes = Vec::new();
        for (line, l) in block {
            let op = parse_event_line("events.jsonl", *line, l).expect("event line");
            number += 1;
            let rec = apply(&mut engine, number, &op)
                .unwrap_or_else(|e| panic!("{id}: events.jsonl:{line}: {e}"));
            engine.check_consistency().unwrap();
            for ch in rec.changes {
                let v = serde_json::to_value(ch).unwrap();
                if let Some(d) = v.get("dependency_add").and_then(Value::as_str)
                    && !added.iter().any(|x| x == d)
                {
                    added.push(d.to_string());
                }
                changes.push(v);
            }
        }
        let step = Step {
            case: id,
            index: k,
            engine: &engine,
            changes: &changes,
            cp: &cps[k],
        };
        step.check(&steps[k]["expect"], None);
        if let Some(counts) = steps[k].get("counts") {
            step.check(counts, None);
        }
        step.check_explicit();
    }
    if let Some(deps) = c["expected"]["dependencies"].as_array() {
        let want: Vec<&str> = deps.iter().map(|d| d.as_str().unwrap()).collect();
        assert_eq!(added, want, "{id}: dependencies added");
    }
}

#[test]
fn flux_limits_max_jobs_t1005() {
    run_sequence("flux-limits-max-jobs-t1005");
}

#[test]
fn flux_limits_queue_running_t1052() {
    run_sequence("flux-limits-queue-running-t1052");
}

#[test]
fn flux_limits_partial_release_t1090() {
    run_sequence("flux-limits-partial-release-t1090");
}

#[test]
fn flux_limits_queue_partial_release_t1091() {
    run_sequence("flux-limits-queue-partial-release-t1091");
}

#[test]
fn flux_limits_sched_resources_t1095() {
    run_sequence("flux-limits-sched-resources-t1095");
}

#[test]
fn flux_limits_queue_resources_sched_t1101() {
    run_sequence("flux-limits-queue-resources-sched-t1101");
}

// ---- predicate cases -------------------------------------------------------------------

fn queues_of(c: &Value) -> Vec<QueueConfig> {
    c["input"]["queues"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, q)| {
            let mut limits = QueueLimits::default();
            if let Some(v) = q["max_running_jobs"].as_i64() {
                limits.max_running_jobs = v;
            }
            if let Some(v) = q["max_nodes_per_assoc"].as_i64() {
                limits.max_nodes_per_assoc = v;
            }
            QueueConfig {
                name: name.clone(),
                limits,
            }
        })
        .collect()
}

/// Answers for one predicate check, computed two ways: directly with the predicate, and
/// by driving an engine (filler jobs to reach the counters, then a probe job whose
/// dependencies are the predicates that fail).
struct Probe {
    direct: CheckContextOwned,
    deps: Vec<Dependency>,
}

struct CheckContextOwned {
    limits: AssocLimits,
    counters: Counters,
    queue: Option<(QueueLimits, QueueUsage)>,
    nnodes: i64,
    ncores: i64,
}

impl CheckContextOwned {
    fn ctx(&self) -> CheckContext<'_> {
        CheckContext {
            limits: &self.limits,
            counters: &self.counters,
            queue: self.queue.as_ref().map(|(l, u)| (l, u)),
            nnodes: self.nnodes,
            ncores: self.ncores,
            pending: Pending::default(),
            count_sched_in_resources: false,
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn probe(
    queues: &[QueueConfig],
    limits: AssocLimits,
    run_jobs: &[(Option<&str>, i64, i64)],
    sched_jobs: &[(Option<&str>, i64, i64)],
    queue: Option<&str>,
    nnodes: i64,
    ncores: i64,
) -> Probe {
    // Fillers are submitted with no limits in the way, then the real limits are set.
    let mut e = LimitEngine::new(Options::default());
    for q in queues {
        let mut open = q.clone();
        open.limits = QueueLimits {
            max_running_jobs: i64::MAX,
            max_nodes_per_assoc: i64::MAX,
            ..QueueLimits::default()
        };
        e.add_queue(&open).unwrap();
    }
    e.add_association(&AssocConfig {
        user: "u".into(),
        bank: "b".into(),
        userid: 1,
        fairshare: 0.5,
        default_bank: true,
        limits: AssocLimits {
            max_running_jobs: i64::MAX,
            max_active_jobs: 0,
            // flux's `get_queue_info` rejects a known queue not in the list.
            queues: queues.iter().map(|q| q.name.clone()).collect(),
            ..AssocLimits::default()
        },
    })
    .unwrap();
    let mut n = 0;
    let mut submit = |e: &mut LimitEngine, q: Option<&str>, nn: i64, nc: i64| {
        n += 1;
        let id = format!("f{n}");
        let out = e
            .submit(JobSpec {
                id: id.clone(),
                user: "u".into(),
                bank: None,
                queue: q.map(str::to_string),
                nnodes: nn,
                ncores: nc,
            })
            .unwrap();
        assert_eq!(out, SubmitOutcome::Ready);
        id
    };
    for &(q, nn, nc) in run_jobs {
        let id = submit(&mut e, q, nn, nc);
        e.run(&id).unwrap();
    }
    for &(q, nn, nc) in sched_jobs {
        submit(&mut e, q, nn, nc);
    }
    // Now the real limits (no release pass can matter: nothing is held).
    for q in queues {
        let l = &q.limits;
        e.update_queue(
            &q.name,
            &jobsort::flux::limits::QueueUpdate {
                max_running_jobs: Some(l.max_running_jobs),
                max_nodes_per_assoc: Some(l.max_nodes_per_assoc),
                ..Default::default()
            },
        )
        .unwrap();
    }
    e.update_association(
        "u",
        "b",
        &jobsort::flux::limits::AssocUpdate {
            max_running_jobs: Some(limits.max_running_jobs),
            max_nodes: Some(limits.max_nodes),
            max_cores: Some(limits.max_cores),
            ..Default::default()
        },
    )
    .unwrap();
    let a = &e.associations()[0];
    let qi = queue.and_then(|q| e.queues().iter().position(|x| x.name == q));
    let direct = CheckContextOwned {
        limits: limits.clone(),
        counters: a.counters,
        queue: qi.map(|i| {
            (
                queues[i].limits.clone(),
                a.queue_usage.get(&i).copied().unwrap_or_default(),
            )
        }),
        nnodes,
        ncores,
    };
    let out = e
        .submit(JobSpec {
            id: "probe".into(),
            user: "u".into(),
            bank: None,
            queue: queue.map(str::to_string),
            nnodes,
            ncores,
        })
        .unwrap();
    let deps = match out {
        SubmitOutcome::Held(d) => d,
        SubmitOutcome::Ready => Vec::new(),
        SubmitOutcome::Rejected(m) => panic!("probe rejected: {m}"),
    };
    Probe { direct, deps }
}

fn assert_predicate(p: &Probe, name: &str, dep: Dependency, want: bool, at: &str) {
    let direct = if dep == Dependency::MaxResourcesUser {
        p.direct.ctx().under_max_resources()
    } else {
        !p.direct.ctx().hits(dep)
    };
    assert_eq!(direct, want, "{at}: {name} (predicate)");
    assert_eq!(
        !p.deps.contains(&dep),
        want,
        "{at}: {name} (engine: deps {:?})",
        p.deps
    );
}

#[test]
fn flux_limits_unit_dependencies_test03() {
    let c = case("flux-limits-unit-dependencies_test03");
    assert_eq!(c["kind"], "flux_limit_predicates");
    let queues = queues_of(&c);
    let checks = c["expected"]["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 9);
    for (i, chk) in checks.iter().enumerate() {
        let at = format!("dependencies_test03 check {i}");
        let a = &chk["assoc"];
        let g = |k: &str| a[k].as_i64();
        let limits = AssocLimits {
            max_running_jobs: g("max_run_jobs").unwrap_or(i64::MAX),
            max_nodes: g("max_nodes").unwrap_or(i64::MAX),
            max_cores: g("max_cores").unwrap_or(i64::MAX),
            ..AssocLimits::default()
        };
        let queue = chk["queue"].as_str();
        let cur_run = g("cur_run_jobs").unwrap_or(0);
        let q_run = queue
            .and_then(|q| a[format!("{q}.cur_run_jobs")].as_i64())
            .unwrap_or(0);
        assert!(q_run <= cur_run, "{at}: queue running jobs are a subset");
        let (cur_nodes, cur_cores) = (g("cur_nodes").unwrap_or(0), g("cur_cores").unwrap_or(0));
        // Running fillers: q_run in the queue, the rest without a queue; the first one
        // carries the node/core usage.
        let mut run = Vec::new();
        for k in 0..cur_run.max(i64::from(cur_nodes > 0 || cur_cores > 0)) {
            let q = if k < q_run { queue } else { None };
            let (nn, nc) = if k == 0 {
                (cur_nodes, cur_cores)
            } else {
                (0, 0)
            };
            run.push((q, nn, nc));
        }
        let job = &chk["job"];
        let (nn, nc) = (
            job["nnodes"].as_i64().unwrap_or(0),
            job["ncores"].as_i64().unwrap_or(0),
        );
        let p = probe(&queues, limits, &run, &[], queue, nn, nc);
        let mut checked = 0;
        if let Some(w) = chk["under_max_run_jobs"].as_bool() {
            assert_predicate(
                &p,
                "under_max_run_jobs",
                Dependency::MaxRunningJobsUser,
                w,
                &at,
            );
            checked += 1;
        }
        if let Some(w) = chk["under_queue_max_run_jobs"].as_bool() {
            assert_predicate(
                &p,
                "under_queue_max_run_jobs",
                Dependency::MaxRunJobsQueue,
                w,
                &at,
            );
            checked += 1;
        }
        if let Some(w) = chk["under_max_resources"].as_bool() {
            assert_predicate(
                &p,
                "under_max_resources",
                Dependency::MaxResourcesUser,
                w,
                &at,
            );
            checked += 1;
        }
        assert!(checked > 0, "{at}: nothing checked");
    }
}

#[test]
fn flux_limits_unit_queue_limits_test05() {
    let c = case("flux-limits-unit-queue_limits_test05");
    assert_eq!(c["kind"], "flux_limit_predicates");
    let queues = queues_of(&c);
    let checks = c["expected"]["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 4);
    let unlimited = AssocLimits {
        max_running_jobs: i64::MAX,
        ..AssocLimits::default()
    };
    for (i, chk) in checks.iter().enumerate() {
        let at = format!("queue_limits_test05 check {i}");
        let mut checked = 0;
        if let Some(w) = chk["under_queue_max_resources"].as_bool() {
            let b = &chk["bronze"];
            let run_n = b["cur_nodes"].as_i64().unwrap();
            let sched_n = b["cur_sched_nodes"].as_i64().unwrap();
            let run: Vec<_> = (0..run_n).map(|_| (Some("bronze"), 1, 1)).collect();
            let sched: Vec<_> = (0..sched_n).map(|_| (Some("bronze"), 1, 1)).collect();
            let nn = chk["job_nnodes"].as_i64().unwrap();
            let p = probe(
                &queues,
                unlimited.clone(),
                &run,
                &sched,
                Some("bronze"),
                nn,
                nn,
            );
            assert_predicate(
                &p,
                "under_queue_max_resources",
                Dependency::MaxResourcesQueue,
                w,
                &at,
            );
            checked += 1;
        }
        if let Some(w) = chk["under_queue_max_sched_jobs"].as_bool() {
            let q = chk["queue"].as_str().unwrap();
            let name = q.split_whitespace().next().unwrap();
            assert!(q.contains("unknown") && !queues.iter().any(|x| x.name == name));
            let p = probe(&queues, unlimited.clone(), &[], &[], Some(name), 1, 1);
            assert_predicate(
                &p,
                "under_queue_max_sched_jobs",
                Dependency::MaxSchedJobsQueue,
                w,
                &at,
            );
            checked += 1;
        }
        assert!(checked > 0, "{at}: nothing checked");
    }
}
