//! Flux job lists as workloads: `flux jobs -a -A --json` (one `{"jobs": [...]}` object) and
//! `flux job list -A` (one raw job-list object per line). Facts and sources in
//! `shared/reference/scheduler_data.md` §3 (flux-core `doc/man1/flux-jobs.rst`,
//! `src/modules/job-list/job_util.c`, `src/bindings/python/flux/job/info.py`).
//!
//! - **Told apart** from our own JSON job list ([`super::json`]) by Flux's field names: a job
//!   object with `t_submit` and without `submit` ([`looks_like_flux`]).
//! - **Times** are float epoch seconds (UTC), rounded to whole seconds (so their order is
//!   kept): submit `t_submit`, start `t_run`, end `t_cleanup` (the run's end; `runtime` is
//!   `t_cleanup − t_run`), else `t_inactive`. "A missing key should be considered
//!   unavailable": a job without `t_run` never started (counted: pending, or ended before it
//!   ran when it is INACTIVE or has a `result`); one without an end is still running
//!   (counted). `t_depend` and the later states' times are not used.
//! - **Sizes**: cores `ncores`, else `ntasks` (a core a task, Flux's default); nodes `nnodes`.
//!   With nodes known and the cores a whole number per node, `nodes × cores`, else the cores
//!   placed anywhere. `duration` (0 = unlimited) is the requested time. Memory is not listed
//!   (job-list has no memory attribute; it is not placed). GPUs are not a job-list attribute
//!   either (flux-framework/flux-core#4832 asks for `ngpus`); a job that ran under
//!   sched-simple carries its allocation's summary, `annotations.sched.resource_summary`
//!   (`rank[0-1]/core[0-3],gpu[0-1]`, [`resource_summary`]), in both layouts. A job whose
//!   summary has GPUs asks for one chunk per rank with that rank's cores and GPUs,
//!   scattered, and has the resource `ngpus` (its GPUs in all); without GPUs the
//!   request stays the cores' shape above. Without a summary (a scheduler may not write
//!   one) a job's GPUs are not known.
//! - **Entities**: user `username`, else `userid`; queue `queue` (else `default`); group
//!   `unknown`; account `bank` (flux-accounting's bank, as job-list lists it:
//!   flux-framework/flux-core#4697; else empty); no QOS (Flux has none). `urgency` (0–31, default 16) is the resource `urgency`.
//! - **Id**: `jobid` (the F58 text of `--json`), else `id`.
//! - **Cluster size** from the jobs' `ranks` (distinct broker ranks; the `nodelist` can repeat a
//!   host when several brokers share it), else `nodelist`.
//! - **Bad records** (an invalid or truncated JSON line, a missing `t_submit`, a duplicated id,
//!   an end before the start or a start before the submit) stop the read at `file:line` (or
//!   `file: jobs[i]`); lenient, they are counted per reason. A `{"jobs": [...]}` document that
//!   is not valid JSON is an error either way: nothing after the fault can be read.

use super::job::*;
use super::site_log::{BadRecord, Census};
use rustc_hash::FxHashMap;
use serde::Deserialize;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt;

/// Whether a JSON text is a Flux job list: its first job object (the first line's object, or
/// the first of its `"jobs"` array) has `t_submit` and no `submit`. Reads no further than that
/// object.
pub fn looks_like_flux(text: &str) -> bool {
    sniff_flux(text) == Some(true)
}

/// [`looks_like_flux`], or `None` when `text` ends before its first job object does (or has
/// none): only more of the text can tell.
pub fn sniff_flux(text: &str) -> Option<bool> {
    if text.trim_start().starts_with('[') {
        // Both Flux layouts are objects: an array is never one.
        return Some(false);
    }
    let found = Cell::new(None);
    let mut de = serde_json::Deserializer::from_str(text.trim_start());
    let _ = serde::de::DeserializeSeed::deserialize(
        Sniff {
            found: &found,
            top: true,
        },
        &mut de,
    );
    found.get()
}

/// The sniffing visitor: `top` is the outer object (which may hold `"jobs"`).
struct Sniff<'c> {
    found: &'c Cell<Option<bool>>,
    top: bool,
}

impl<'de> serde::de::DeserializeSeed<'de> for Sniff<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Sniff<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a job object")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (mut t_submit, mut submit) = (false, false);
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "jobs" if self.top => {
                    return map.next_value_seed(FirstJob(self.found));
                }
                "t_submit" => t_submit = true,
                "submit" => submit = true,
                _ => {}
            }
            map.next_value::<serde::de::IgnoredAny>()?;
        }
        self.found.set(Some(t_submit && !submit));
        Ok(())
    }
}

/// The `"jobs"` array: its first element decides.
struct FirstJob<'c>(&'c Cell<Option<bool>>);

impl<'de> serde::de::DeserializeSeed<'de> for FirstJob<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for FirstJob<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of jobs")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        seq.next_element_seed(Sniff {
            found: self.0,
            top: false,
        })?;
        // Decided: stop reading.
        Err(serde::de::Error::custom("sniffed"))
    }
}

/// A state or result: the raw number of `flux job list` or the name of `flux jobs --json`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Code {
    Number(u64),
    Name(String),
}

/// The fields of a Flux job the reader uses (others are skipped).
#[derive(Debug, Default, Deserialize)]
struct FluxJob {
    id: Option<u64>,
    jobid: Option<serde_json::Value>,
    userid: Option<u64>,
    username: Option<String>,
    urgency: Option<f64>,
    t_submit: Option<f64>,
    t_run: Option<f64>,
    t_cleanup: Option<f64>,
    t_inactive: Option<f64>,
    state: Option<Code>,
    result: Option<Code>,
    ntasks: Option<u64>,
    nnodes: Option<u64>,
    ncores: Option<u64>,
    nodelist: Option<String>,
    ranks: Option<serde_json::Value>,
    queue: Option<String>,
    bank: Option<String>,
    duration: Option<f64>,
    annotations: Option<serde_json::Value>,
}

impl FluxJob {
    /// INACTIVE (64, or the name), or with a result: it ended.
    fn inactive(&self) -> bool {
        self.result.is_some()
            || self.t_inactive.is_some()
            || match &self.state {
                Some(Code::Number(n)) => *n == 64,
                Some(Code::Name(s)) => s.eq_ignore_ascii_case("INACTIVE"),
                None => false,
            }
    }
}

/// Parse a Flux job list (see the module doc). `file` names it in errors.
pub fn parse_flux_jobs(
    text: &str,
    file: &str,
    read: ReadOptions,
) -> Result<Workload, WorkloadError> {
    let mut r = FluxReader {
        file,
        read,
        w: Workload::default(),
        seen: FxHashMap::default(),
        horizon: Horizon::default(),
        census: Census::default(),
        names: Names::default(),
        failed: None,
    };
    let trimmed = text.trim_start();
    let document = trimmed.starts_with('{') && {
        // `{"jobs": [...]}`: the first key is `jobs`.
        let mut de = serde_json::Deserializer::from_str(trimmed);
        let first = Cell::new(false);
        let _ = serde::de::DeserializeSeed::deserialize(FirstKeyIsJobs(&first), &mut de);
        first.get()
    };
    if document {
        let mut de = serde_json::Deserializer::from_str(text);
        let read = serde::de::DeserializeSeed::deserialize(Document(&mut r), &mut de);
        if let Err(e) = read.and_then(|()| de.end()) {
            return Err(r.failed.take().unwrap_or_else(|| WorkloadError::Line {
                file: file.into(),
                line: e.line(),
                reason: format!("invalid JSON: {e}"),
            }));
        }
    } else {
        for (i, line) in text.split_inclusive('\n').enumerate() {
            let ended = line.ends_with('\n');
            if line.trim().is_empty() {
                continue;
            }
            r.w.report.read += 1;
            let at = Where::Line(i + 1);
            match serde_json::from_str::<FluxJob>(line) {
                Ok(job) => r.job(&job, at)?,
                Err(e) => {
                    let (kind, detail) = if !ended && e.is_eof() {
                        (
                            "truncated last line",
                            format!("the last line is cut short: {e}"),
                        )
                    } else {
                        ("invalid JSON", format!("invalid JSON: {e}"))
                    };
                    r.bad(at, BadRecord::new(i + 1, kind, detail))?;
                }
            }
        }
    }
    let (machine, note) = r.census.machine(if r.census_ranks() {
        "ranks, ncores/ntasks"
    } else {
        "nodelist, ncores/ntasks"
    });
    r.w.machine = machine;
    r.w.machine_derived = note;
    r.w.finish();
    Ok(r.w)
}

/// Where a job is: a line of JSON lines, or an entry of a document's `"jobs"`.
#[derive(Debug, Clone, Copy)]
enum Where {
    Line(usize),
    Entry(usize),
}

struct FluxReader<'a> {
    file: &'a str,
    read: ReadOptions,
    w: Workload,
    /// Job id → where it was kept from.
    seen: FxHashMap<String, String>,
    horizon: Horizon,
    census: Census,
    /// The users' and queues' names, one text each.
    names: Names,
    /// The error that stopped a document's parse.
    failed: Option<WorkloadError>,
}

impl FluxReader<'_> {
    fn census_ranks(&self) -> bool {
        self.census.has_ranks()
    }

    /// A bad record: the error (strict), or counted.
    fn bad(&mut self, at: Where, bad: BadRecord) -> Result<(), WorkloadError> {
        if self.read.lenient {
            let id = match at {
                Where::Line(line) => super::job::line_id(line),
                Where::Entry(i) => format!("jobs[{i}]"),
            };
            self.w
                .report
                .drop_job(&id, &format!("bad record: {}", bad.kind));
            return Ok(());
        }
        let reason = match &bad.column {
            Some(c) => format!("`{c}`: {}", bad.detail),
            None => bad.detail.clone(),
        };
        Err(match at {
            Where::Line(line) => WorkloadError::Line {
                file: self.file.into(),
                line,
                reason,
            },
            Where::Entry(i) => WorkloadError::Json {
                file: self.file.into(),
                path: format!("jobs[{i}]"),
                reason,
            },
        })
    }

    fn job(&mut self, j: &FluxJob, at: Where) -> Result<(), WorkloadError> {
        match self.make(j, at) {
            Ok(()) => Ok(()),
            Err(bad) => self.bad(at, bad),
        }
    }

    fn make(&mut self, j: &FluxJob, at: Where) -> Result<(), BadRecord> {
        let line = match at {
            Where::Line(l) => l,
            Where::Entry(_) => 0,
        };
        let bad = |field: &str, kind: &'static str, detail: String| {
            BadRecord::new(line, kind, detail).in_column(field)
        };
        let id = match (&j.jobid, j.id) {
            (Some(serde_json::Value::String(s)), _) => s.clone(),
            (Some(serde_json::Value::Number(n)), _) => n.to_string(),
            (_, Some(id)) => id.to_string(),
            _ => return Err(bad("id", "missing field", "no `jobid` or `id`".into())),
        };
        let time = |t: Option<f64>| t.map(|t| t.round() as i64);
        let submit = time(j.t_submit)
            .ok_or_else(|| bad("t_submit", "missing time", "no submit time".into()))?;
        let Some(start) = time(j.t_run) else {
            self.w.report.drop_job(
                &id,
                if j.inactive() {
                    "never started (ended before it ran)"
                } else {
                    "pending (never started)"
                },
            );
            return Ok(());
        };
        let Some(end) = time(j.t_cleanup.or(j.t_inactive)) else {
            self.w.report.drop_job(&id, "running (not ended)");
            return Ok(());
        };
        let end_field = if j.t_cleanup.is_some() {
            "t_cleanup"
        } else {
            "t_inactive"
        };
        if end < start {
            return Err(bad(
                end_field,
                "end before start",
                format!("{end} is before `t_run` {start}"),
            ));
        }
        if start < submit {
            return Err(bad(
                "t_run",
                "start before submit",
                format!("{start} is before `t_submit` {submit}"),
            ));
        }
        let run = end - start;
        // A job that ran 0 seconds is kept (it started); one that ends before it started
        // is not a run.
        if run < 0 {
            self.w.report.drop_job(&id, "runtime < 0");
            return Ok(());
        }
        let (cores, cores_field) = match (j.ncores, j.ntasks) {
            (Some(c), _) if c > 0 => (c, "ncores"),
            (_, Some(t)) if t > 0 => (t, "ntasks"),
            _ => {
                self.w.report.drop_job(&id, "no processors");
                return Ok(());
            }
        };
        let range = |v: u64, field: &str| {
            u32::try_from(v).map_err(|_| {
                bad(
                    field,
                    "out of range",
                    format!("{v} is more than the {} a job may ask for", u32::MAX),
                )
            })
        };
        let request = match j.nnodes.filter(|&n| n > 0) {
            Some(n) if cores % n == 0 => Request::Nodes {
                nodes: range(n, "nnodes")?,
                cores: (cores / n) as u32,
            },
            _ => Request::Procs(range(cores, cores_field)?),
        };
        // sched-simple's summary of R: the GPUs, and the cores that go with them, per rank.
        let summary = j
            .annotations
            .as_ref()
            .and_then(|a| a.get("sched")?.get("resource_summary")?.as_str())
            .filter(|s| !s.is_empty());
        let groups = match summary {
            Some(s) => resource_summary(s)
                .map_err(|e| bad("annotations.sched.resource_summary", "unparsable value", e))?,
            None => Vec::new(),
        };
        let gpus: u64 = groups
            .iter()
            .map(|g| u64::from(g.ranks) * u64::from(g.gpus))
            .sum();
        let request = if gpus > 0 {
            gpu_request(&groups)
        } else {
            request
        };
        let (walltime, walltime_given) = match j.duration {
            Some(d) if d.round() >= 1.0 => (d.round() as i64, true),
            // No requested time: the run time stands in (at least the 1 s a request is).
            _ => (run.max(1), false),
        };
        if let Some(first) = self.seen.get(&id) {
            return Err(bad(
                "id",
                "duplicate job id",
                format!("job `{id}` again (first at {first})"),
            ));
        }
        let mut resources = BTreeMap::new();
        if let Some(u) = j.urgency {
            resources.insert("urgency".to_string(), u);
        }
        if gpus > 0 {
            resources.insert("ngpus".to_string(), gpus as f64);
        }
        let job = JobSpec {
            id: id.as_str().into(),
            submit,
            run,
            walltime,
            walltime_given,
            request,
            mem: 0.0,
            user: match (&j.username, j.userid) {
                (Some(u), _) if !u.is_empty() => self.names.get(u),
                (_, Some(uid)) => self.names.get_owned(uid.to_string()),
                _ => self.names.get("unknown"),
            },
            group: self.names.get("unknown"),
            account: self.names.get(j.bank.as_deref().unwrap_or("")),
            qos: self.names.get(""),
            queue: self.names.get(j.queue.as_deref().unwrap_or("default")),
            queue_priority: 0.0,
            resources,
            recorded_start: Some(start),
        };
        self.horizon.add(&job).map_err(|e| {
            let field = match e.field {
                JobField::Submit => "t_submit",
                JobField::Run | JobField::Start => "t_run",
                JobField::Walltime => "duration",
                JobField::Cores => cores_field,
            };
            bad(field, "out of range", e.reason)
        })?;
        let place = match at {
            Where::Line(l) => format!("line {l}"),
            Where::Entry(i) => format!("jobs[{i}]"),
        };
        let span = (start, end);
        match (&j.ranks, &j.nodelist) {
            (Some(serde_json::Value::String(r)), _) => self.census.ranks(r, span, cores),
            (Some(serde_json::Value::Number(n)), _) => {
                self.census.ranks(&n.to_string(), span, cores)
            }
            (_, Some(list)) if !list.is_empty() => self.census.hosts(list, span, cores),
            _ => Ok(()),
        }
        .map_err(|e| bad("ranks", "unparsable value", e))?;
        self.seen.insert(job.id.to_string(), place);
        self.w.push_kept(job);
        Ok(())
    }
}

/// One group of a `resource_summary`: `ranks` broker ranks (nodes), each with `cores` cores
/// and `gpus` GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RankGroup {
    ranks: u32,
    cores: u32,
    gpus: u32,
}

/// sched-simple's `resource_summary` annotation: groups of ranks with the same cores and
/// GPUs, `rank[0-1]/core[0-3],gpu[0-1] rank2/core[0-1]` (`rlist_dumps`,
/// flux-core `src/common/librlist/rlist.c`; its forms in `src/common/librlist/test/rlist.c`:
/// `rank0/core[0-3]`, `rank[0-3]/core[0-3],gpu[1,3]`, `rank0/gpu0`). Each idset is counted.
fn resource_summary(s: &str) -> Result<Vec<RankGroup>, String> {
    let count = |set: &str| {
        let mut n = 0u64;
        crate::input::hostlist::for_each_id(set, |_| n += 1)?;
        u32::try_from(n).map_err(|_| format!("`{set}`: more than {} ids", u32::MAX))
    };
    s.split_whitespace()
        .map(|group| {
            let (ranks, children) = group
                .strip_prefix("rank")
                .and_then(|g| g.split_once('/'))
                .ok_or_else(|| format!("`{group}` is not `rank<ids>/core<ids>[,gpu<ids>]`"))?;
            let mut g = RankGroup {
                ranks: count(ranks)?,
                cores: 0,
                gpus: 0,
            };
            for child in crate::input::hostlist::split_outside_brackets(children)? {
                if let Some(ids) = child.strip_prefix("core") {
                    g.cores = count(ids)?;
                } else if let Some(ids) = child.strip_prefix("gpu") {
                    g.gpus = count(ids)?;
                } else {
                    return Err(format!(
                        "`{child}` in `{group}` is not `core<ids>` or `gpu<ids>`"
                    ));
                }
            }
            Ok(g)
        })
        .collect()
}

/// A job's GPUs as chunks: each group's ranks one chunk each (a rank is a node: distinct,
/// scattered) with that rank's cores and GPUs, as R allocated them.
fn gpu_request(groups: &[RankGroup]) -> Request {
    use super::shape::{chunks, part};
    use crate::model::machine::{NCPUS, NGPUS};
    use crate::model::place::Arrangement;
    let parts = groups
        .iter()
        .filter(|g| g.ranks > 0)
        .map(|g| {
            part(
                g.ranks,
                &[(NCPUS, u64::from(g.cores)), (NGPUS, u64::from(g.gpus))],
            )
        })
        .collect();
    chunks(parts, Arrangement::Scatter)
}

/// Whether a document's first key is `jobs`.
struct FirstKeyIsJobs<'c>(&'c Cell<bool>);

impl<'de> serde::de::DeserializeSeed<'de> for FirstKeyIsJobs<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for FirstKeyIsJobs<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let key = map.next_key::<std::borrow::Cow<'de, str>>()?;
        self.0.set(key.as_deref() == Some("jobs"));
        Err(serde::de::Error::custom("decided"))
    }
}

/// `{"jobs": [...]}`: each job read as it is parsed.
struct Document<'r, 'a>(&'r mut FluxReader<'a>);

impl<'de> serde::de::DeserializeSeed<'de> for Document<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Document<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object with a \"jobs\" array")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "jobs" {
                map.next_value_seed(Jobs(&mut *self.0))?;
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

struct Jobs<'r, 'a>(&'r mut FluxReader<'a>);

impl<'de> serde::de::DeserializeSeed<'de> for Jobs<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Jobs<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of jobs")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0;
        while let Some(job) = seq.next_element::<FluxJob>()? {
            self.0.w.report.read += 1;
            if let Err(e) = self.0.job(&job, Where::Entry(i)) {
                self.0.failed = Some(e);
                return Err(serde::de::Error::custom("stopped at a bad job"));
            }
            i += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
