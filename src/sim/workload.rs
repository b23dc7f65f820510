//! Workloads: the jobs a simulation replays ([`SimJob`]), the hygiene report of what was
//! dropped or adjusted while loading ([`LoadReport`]), and the JSON job-list reader
//! ([`crate::sim::load_workload`] picks the reader by file name).
//!
//! Conventions (documented in `docs/recording.md` too):
//! - times are integer seconds;
//! - a job with a requested time never runs past it: its effective run time is
//!   `min(run, walltime)` ([`SimJob::effective_run`]);
//! - a missing requested time falls back to the run time.

use crate::jobs::units::{parse_ctime, parse_plain_number, parse_size, parse_time};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// What a job asks of the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Request {
    /// `procs` cores placed anywhere (first fit over nodes, lowest node first; may span nodes).
    Procs(u32),
    /// `nodes` distinct nodes with `cores` free cores each.
    Nodes { nodes: u32, cores: u32 },
}

impl Request {
    /// Total cores the job holds while running.
    pub fn total_cores(self) -> u64 {
        match self {
            Request::Procs(p) => p as u64,
            Request::Nodes { nodes, cores } => nodes as u64 * cores as u64,
        }
    }
    /// Number of nodes it asks for (`Procs` counts as 0 = "any").
    pub fn node_count(self) -> u32 {
        match self {
            Request::Procs(_) => 0,
            Request::Nodes { nodes, .. } => nodes,
        }
    }
}

/// One job of a workload.
#[derive(Debug, Clone, PartialEq)]
pub struct SimJob {
    /// Job id as text (SWF job number, JSON `id`).
    pub id: String,
    /// Submit time (s).
    pub submit: i64,
    /// Run time in the trace (s), > 0.
    pub run: i64,
    /// Requested time (s); equals `run` when the trace has none.
    pub walltime: i64,
    /// Whether `walltime` came from the trace (else it is the run-time fallback).
    pub walltime_given: bool,
    pub request: Request,
    /// Requested memory in KB (total over the job; 0 when unknown).
    pub mem: f64,
    /// Fairshare / report entities.
    pub user: String,
    pub group: String,
    pub queue: String,
    /// PBS `queue_priority` keyword (0 unless a JSON job list gives it).
    pub queue_priority: f64,
    /// Extra numeric resources by name (formula inputs).
    pub resources: BTreeMap<String, f64>,
    /// The start time the trace recorded (SWF `submit + wait`), when known.
    pub recorded_start: Option<i64>,
}

impl SimJob {
    /// Run time actually simulated: the job is killed at its requested time.
    pub fn effective_run(&self) -> i64 {
        if self.walltime_given {
            self.run.min(self.walltime)
        } else {
            self.run
        }
    }
}

/// The largest time a job may give, in seconds (submit, run, requested time, recorded
/// start): 2^53 s, 285 million years, the range in which every whole second is exact as an
/// `f64` (the formula inputs `walltime` and `eligible_time` are `f64`).
///
/// The simulator adds times as `i64`: a start is `submit + wait`; an end is `start + run`; the
/// EASY reservation compares `t + walltime` and sorts `start + walltime`. Every round time is
/// a submit or an end, and a job starts at a round time, so no round time passes
/// `last submit + Σ run` (at worst the jobs run one after the other), and no sum passes
/// `last submit + Σ run + longest walltime`. Each time bounded here and that sum bounded by
/// [`Horizon`], none of those additions can overflow.
pub const MAX_SECONDS: i64 = 1 << 53;

/// The most cores one job may hold (`procs`, or `nnodes × ncores`): `u32::MAX`. Usage is
/// accrued as `cores × seconds` in `f64`, and the limits engine sums cores of running jobs as
/// `i64`: 2^31 jobs of this size would still fit.
pub const MAX_JOB_CORES: u64 = u32::MAX as u64;

/// The value of a job that is out of the simulator's range: which [`SimJob`] field and why.
/// Each loader names the field as its format spells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfRange {
    pub field: JobField,
    pub reason: String,
}

/// A range-checked field of a [`SimJob`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobField {
    Submit,
    Run,
    Walltime,
    /// The recorded start (submit + wait).
    Start,
    /// The processors, nodes or cores per node.
    Cores,
}

/// A count of processors, nodes or cores from a number the file gives (rounded): an error
/// above `u32::MAX` (it used to saturate there without a word). Values below 1 are the
/// caller's to handle (a job with no processors is dropped).
pub fn count(v: f64) -> Result<u32, OutOfRange> {
    let r = v.round();
    if r > u32::MAX as f64 {
        return Err(OutOfRange {
            field: JobField::Cores,
            reason: format!("{v} is more than the {} a job may ask for", u32::MAX),
        });
    }
    Ok(r.max(0.0) as u32)
}

/// Check the times and size of a job against [`MAX_SECONDS`] and [`MAX_JOB_CORES`]: the one
/// rule for every job the simulator is given, whether from a trace, a JSON job list or a
/// recording.
pub fn check_job(job: &SimJob) -> Result<(), OutOfRange> {
    let time = |field: JobField, v: i64, min: i64| {
        if v < min || v > MAX_SECONDS {
            let what = if v < min {
                format!("{v} s is below {min}")
            } else {
                format!("{v} s is more than 2^53 s (285 million years)")
            };
            return Err(OutOfRange {
                field,
                reason: what,
            });
        }
        Ok(())
    };
    time(JobField::Submit, job.submit, 0)?;
    time(JobField::Run, job.run, 1)?;
    time(JobField::Walltime, job.walltime, 1)?;
    if let Some(s) = job.recorded_start {
        time(JobField::Start, s, 0)?;
    }
    let cores = job.request.total_cores();
    if cores > MAX_JOB_CORES {
        return Err(OutOfRange {
            field: JobField::Cores,
            reason: format!("{cores} cores in all is more than the {MAX_JOB_CORES} a job may hold"),
        });
    }
    Ok(())
}

/// The bound on the latest time a simulation can reach, `last submit + Σ run + longest
/// walltime` (see [`MAX_SECONDS`]), kept as jobs are added.
#[derive(Debug, Clone, Copy, Default)]
pub struct Horizon {
    last_submit: i64,
    runs: i64,
    longest_walltime: i64,
}

impl Horizon {
    /// Check `job` ([`check_job`]) and add it: an error when the workload would let the
    /// simulator's time pass `i64::MAX` (the job is then not added).
    pub fn add(&mut self, job: &SimJob) -> Result<(), OutOfRange> {
        check_job(job)?;
        let next = Horizon {
            last_submit: self.last_submit.max(job.submit),
            runs: self.runs.saturating_add(job.run),
            longest_walltime: self.longest_walltime.max(job.walltime),
        };
        let end = (next.last_submit + next.longest_walltime).checked_add(next.runs);
        if end.is_none() {
            return Err(OutOfRange {
                field: JobField::Run,
                reason: format!(
                    "the run times add up to more than {} s with this one: the simulated time \
                     (last submit + every run + the longest requested time) could pass the \
                     largest time, {} s",
                    i64::MAX - next.last_submit - next.longest_walltime,
                    i64::MAX
                ),
            });
        }
        *self = next;
        Ok(())
    }
}

/// Why jobs were dropped or adjusted while loading a workload.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct LoadReport {
    /// Jobs read (data lines / list entries).
    pub read: usize,
    /// Jobs kept.
    pub kept: usize,
    /// Dropped jobs by reason (`"runtime <= 0"`, `"no processors"`, ...).
    pub dropped: BTreeMap<String, usize>,
    /// Kept jobs whose requested time was missing (run time used instead).
    pub walltime_from_runtime: usize,
    /// Kept jobs that ran longer than requested in the trace (killed at the requested time).
    pub killed_at_walltime: usize,
}

impl LoadReport {
    /// Total jobs dropped.
    pub fn dropped_total(&self) -> usize {
        self.dropped.values().sum()
    }
    /// Count a dropped job.
    pub fn drop_job(&mut self, reason: &str) {
        *self.dropped.entry(reason.to_string()).or_insert(0) += 1;
    }
}

/// Machine description found in a trace (SWF header or an AleaNG `.machines` file).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MachineHint {
    pub nodes: Option<u32>,
    pub cores: Option<u32>,
}

/// A loaded workload: jobs in submit order (ties by file order) plus metadata.
#[derive(Debug, Clone, Default)]
pub struct Workload {
    /// Trace name (file name).
    pub name: String,
    /// SHA-256 (hex) of the trace bytes as stored (compressed bytes for `.gz`).
    pub sha256: String,
    pub jobs: Vec<SimJob>,
    pub report: LoadReport,
    pub machine: MachineHint,
    /// SWF `UnixStartTime`, when given.
    pub unix_start_time: Option<i64>,
    /// SWF header lines (`Label: value`), in file order.
    pub header: Vec<(String, String)>,
}

/// A load error: where and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorkloadError {
    /// An I/O error reading the file.
    #[error("{file}: {message}")]
    Io { file: String, message: String },
    /// A malformed line or entry: `file:line: reason`.
    #[error("{file}:{line}: {reason}")]
    Line {
        file: String,
        line: usize,
        reason: String,
    },
    /// A malformed JSON entry: `file: path: reason`.
    #[error("{file}: {path}: {reason}")]
    Json {
        file: String,
        path: String,
        reason: String,
    },
}

/// Read a whole file, transparently gunzipping it when it starts with the gzip magic bytes
/// (whatever its name). Returns `(decoded text, sha256 hex of the stored bytes)`.
pub fn read_text(path: &Path) -> Result<(String, String), WorkloadError> {
    use sha2::Digest;
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| WorkloadError::Io {
        file: file.clone(),
        message: e.to_string(),
    })?;
    let sha = hex(&sha2::Sha256::digest(&bytes));
    Ok((decode_text(bytes, &file)?, sha))
}

/// The text of a file's bytes: gunzipped when they start with the gzip magic bytes (every
/// member of a multi-member file), then checked to be UTF-8. `file` names it in errors.
pub fn decode_text(bytes: Vec<u8>, file: &str) -> Result<String, WorkloadError> {
    use std::io::Read;
    let bytes = if is_gzip(&bytes) {
        // The last member's trailer holds its decoded size (mod 2^32): the whole text for
        // a one-member file, read into one allocation. Deflate cannot expand past 1032:1.
        let trailer = bytes.len().checked_sub(4).map(|at| &bytes[at..]);
        let hint = trailer.map_or(0, |t| u32::from_le_bytes([t[0], t[1], t[2], t[3]]) as usize);
        let mut out = Vec::with_capacity(hint.min(bytes.len().saturating_mul(1032)));
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_end(&mut out)
            .map_err(|e| WorkloadError::Io {
                file: file.into(),
                message: format!("gzip: {e}"),
            })?;
        out
    } else {
        bytes
    };
    String::from_utf8(bytes).map_err(|e| WorkloadError::Io {
        file: file.into(),
        message: format!("not UTF-8 text: {e}"),
    })
}

/// Whether bytes start with the gzip magic number.
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// Lower-case hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    use fmt::Write;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// The JSON job list's layout, when the caller knows it (a `.jsonl` name): JSON lines.
/// Otherwise the content decides ([`parse_json_jobs`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonLayout {
    /// Decide from the text: `[` starts a document; `{` one whose object has a `"jobs"`
    /// array, else JSON lines.
    Auto,
    /// One job object per line.
    Lines,
}

/// Parse a JSON job list: an array of objects, an object with a `"jobs"` array, or JSON lines
/// (one object per line; a first object without `"jobs"` starts JSON lines). The fields are
/// those of `eval` and `rank`'s job files (README, "Job schema"):
///
/// | field | spellings |
/// |---|---|
/// | job id | `id`, `Job_Id`, `job_id`, `jobid` (default: the entry's position) |
/// | submit time (s) | `submit`, `qrank`, `qtime` |
/// | run time (s) | `run` |
/// | processors | `ncpus` (also `procs`) |
/// | nodes | `nodect` (also `nnodes`); cores per node `ncores`, else `ncpus / nodect` |
/// | requested time (s or `HH:MM:SS`) | `walltime` |
/// | requested memory (KB or `4gb`) | `mem` |
/// | entities | `user`/`euser`/`Job_Owner` (`user@host`), `group`/`egroup`, `queue` |
/// | `queue_priority` keyword | `queue_priority` |
/// | recorded start (s) | `start` |
///
/// The resources (`ncpus`, `nodect`, `walltime`, `mem` and custom numeric resources) may be
/// flat or under `resources` / `Resource_List`; PBS's `select` and `place` there are chunk
/// specifications, not values, and are skipped. Jobs with `run <= 0` or no processors are
/// dropped and counted; a kept job out of the simulator's range ([`check_job`], [`Horizon`])
/// is an error naming its entry and field.
///
/// Each entry is read as it is parsed, its strings borrowed from `text` where they have no
/// escapes: no document tree is built.
pub fn parse_json_jobs(text: &str, file: &str) -> Result<Workload, WorkloadError> {
    parse_json_jobs_as(text, file, JsonLayout::Auto)
}

/// [`parse_json_jobs`] with the layout given.
pub fn parse_json_jobs_as(
    text: &str,
    file: &str,
    layout: JsonLayout,
) -> Result<Workload, WorkloadError> {
    let mut list = JsonList::new(file);
    let trimmed = text.trim_start();
    if layout == JsonLayout::Auto && trimmed.starts_with(['[', '{']) {
        let mut de = serde_json::Deserializer::from_str(text);
        let read = serde::de::DeserializeSeed::deserialize(Document(&mut list), &mut de);
        if let Err(e) = read.and_then(|()| if list.found { de.end() } else { Ok(()) }) {
            return Err(list
                .failed
                .take()
                .unwrap_or_else(|| invalid_json(file, e.line(), &e)));
        }
    }
    if !list.found {
        // An object without `"jobs"`: the first of JSON lines.
        let mut entry = Entry::default();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let mut de = serde_json::Deserializer::from_str(line);
            serde::de::DeserializeSeed::deserialize(&mut entry, &mut de)
                .and_then(|()| de.end())
                .map_err(|e| invalid_json(file, i + 1, &e))?;
            list.entry(&entry, || format!("line {}", i + 1))?;
        }
    }
    list.w.finish();
    Ok(list.w)
}

fn invalid_json(file: &str, line: usize, e: &serde_json::Error) -> WorkloadError {
    WorkloadError::Line {
        file: file.to_string(),
        line,
        reason: format!("invalid JSON: {e}"),
    }
}

/// A JSON value of a job entry, its strings borrowed from the text when they have no escapes.
#[derive(Debug)]
enum Field<'a> {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    Str(Cow<'a, str>),
    Seq(Vec<Field<'a>>),
    /// An object's entries in order (a repeated key: the last one counts).
    Map(Vec<(Cow<'a, str>, Field<'a>)>),
}

impl Field<'_> {
    /// The value as JSON text, for messages.
    fn to_value(&self) -> Value {
        match self {
            Field::Null => Value::Null,
            Field::Bool(b) => Value::Bool(*b),
            Field::Number(n) => Value::Number(n.clone()),
            Field::Str(s) => Value::String(s.to_string()),
            Field::Seq(v) => Value::Array(v.iter().map(Field::to_value).collect()),
            Field::Map(m) => Value::Object(
                m.iter()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect(),
            ),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Field<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(FieldVisitor)
    }
}

struct FieldVisitor;

impl<'de> serde::de::Visitor<'de> for FieldVisitor {
    type Value = Field<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Field<'de>, E> {
        Ok(Field::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Field<'de>, E> {
        Ok(Field::Bool(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Field<'de>, E> {
        Ok(Field::Number(v.into()))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Field<'de>, E> {
        Ok(Field::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Field<'de>, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Field::Null, Field::Number))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Field<'de>, E> {
        Ok(Field::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Field<'de>, E> {
        Ok(Field::Str(Cow::Owned(v.to_string())))
    }
    fn visit_string<E>(self, v: String) -> Result<Field<'de>, E> {
        Ok(Field::Str(Cow::Owned(v)))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Field<'de>, A::Error> {
        let mut v = Vec::new();
        while let Some(x) = seq.next_element()? {
            v.push(x);
        }
        Ok(Field::Seq(v))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Field<'de>, A::Error> {
        let mut v = Vec::with_capacity(map.size_hint().unwrap_or(12));
        while let Some(k) = map.next_key::<Cow<'de, str>>()? {
            v.push((k, map.next_value()?));
        }
        Ok(Field::Map(v))
    }
}

/// The whole document: an array of jobs, or an object whose `"jobs"` array is read (its
/// other keys skipped). Each job goes to the list as it is parsed.
struct Document<'l, 'f>(&'l mut JsonList<'f>);

impl<'de> serde::de::DeserializeSeed<'de> for Document<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Document<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of jobs or an object with a \"jobs\" array")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.found = true;
        let mut entry = Entry::default();
        let mut i = 0;
        while seq.next_element_seed(&mut entry)?.is_some() {
            if let Err(e) = self.0.entry(&entry, || format!("jobs[{i}]")) {
                self.0.failed = Some(e);
                return Err(serde::de::Error::custom("stopped at a bad job"));
            }
            i += 1;
        }
        Ok(())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "jobs" && !self.0.found {
                map.next_value_seed(Jobs(&mut *self.0))?;
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// The `"jobs"` value of a document object: an array.
struct Jobs<'l, 'f>(&'l mut JsonList<'f>);

impl<'de> serde::de::DeserializeSeed<'de> for Jobs<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Jobs<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of jobs")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        Document(self.0).visit_seq(seq)
    }
}

/// The jobs read so far from a JSON job list.
struct JsonList<'f> {
    file: &'f str,
    w: Workload,
    seen: rustc_hash::FxHashSet<String>,
    horizon: Horizon,
    /// Whether the document held a job array.
    found: bool,
    /// The error that stopped the parse inside a document.
    failed: Option<WorkloadError>,
}

/// The PBS resources that are chunk specifications, not values (`Resource_List.select`,
/// `Resource_List.place`): skipped.
const NOT_VALUES: [&str; 2] = ["select", "place"];

impl<'f> JsonList<'f> {
    fn new(file: &'f str) -> Self {
        JsonList {
            file,
            w: Workload::default(),
            seen: Default::default(),
            horizon: Horizon::default(),
            found: false,
            failed: None,
        }
    }

    /// One entry; `path` names it in errors (`jobs[3]`, `line 4`).
    fn entry(&mut self, e: &Entry, path: impl Fn() -> String) -> Result<(), WorkloadError> {
        let file = self.file;
        let err = |reason: String| WorkloadError::Json {
            file: file.to_string(),
            path: path(),
            reason,
        };
        let index = self.w.report.read;
        self.w.report.read += 1;
        if !e.object {
            return Err(err("expected an object".into()));
        }
        if let Some(k) = e.bad_resources {
            return Err(err(format!("`{k}` must be an object")));
        }
        let (fields, custom) = (&e.fields, &e.custom);
        let get = |names: &[&str]| -> Option<(&str, &Field)> {
            fields
                .iter()
                .rev()
                .find(|(k, _)| names.contains(k))
                .map(|(k, v)| (*k, v))
        };
        let num = |names: &[&str]| -> Result<Option<f64>, WorkloadError> {
            match get(names) {
                None | Some((_, Field::Null)) => Ok(None),
                Some((_, Field::Number(n))) => Ok(n.as_f64()),
                Some((k, other)) => Err(err(format!(
                    "`{k}` must be a number, got {}",
                    other.to_value()
                ))),
            }
        };
        // A number, or a PBS string (`01:30:00`, `4gb`) read by `parse`.
        let pbs = |names: &[&str],
                   parse: fn(&str) -> Result<f64, String>|
         -> Result<Option<f64>, WorkloadError> {
            match get(names) {
                Some((k, Field::Str(s))) => {
                    parse(s).map(Some).map_err(|m| err(format!("`{k}`: {m}")))
                }
                _ => num(names),
            }
        };
        let text_field = |names: &[&str]| -> Result<Option<String>, WorkloadError> {
            match get(names) {
                None | Some((_, Field::Null)) => Ok(None),
                Some((_, Field::Str(s))) => Ok(Some(s.to_string())),
                Some((_, Field::Number(n))) => Ok(Some(n.to_string())),
                Some((k, other)) => Err(err(format!(
                    "`{k}` must be a string, got {}",
                    other.to_value()
                ))),
            }
        };
        let id = text_field(&["id", "Job_Id", "job_id", "jobid"])?
            .unwrap_or_else(|| (index + 1).to_string());
        if self.seen.contains(&id) {
            return Err(err(format!("duplicate job id `{id}`")));
        }
        self.seen.insert(id.clone());
        let submit = match num(&["submit", "qrank"])? {
            Some(s) => s,
            None => match get(&["qtime"]) {
                Some((_, Field::Str(s))) => parse_plain_number(s)
                    .or_else(|| parse_ctime(s))
                    .ok_or_else(|| err(format!("`qtime`: `{s}` is not a time stamp")))?,
                _ => num(&["qtime"])?.ok_or_else(|| err("missing `submit`".into()))?,
            },
        };
        let run = num(&["run"])?.ok_or_else(|| err("missing `run`".into()))?;
        let counted = |k: &str, v: f64| count(v).map_err(|e| err(format!("`{k}`: {}", e.reason)));
        let nodes = get(&["nodect", "nnodes"]).map_or("nodect", |(k, _)| k);
        let cpus = get(&["ncpus", "procs"]).map_or("ncpus", |(k, _)| k);
        let request = match (
            num(&["ncpus", "procs"])?,
            num(&["nodect", "nnodes"])?,
            num(&["ncores"])?,
        ) {
            (_, Some(n), Some(c)) if n >= 1.0 && c >= 1.0 => Some(Request::Nodes {
                nodes: counted(nodes, n)?,
                cores: counted("ncores", c)?,
            }),
            (Some(p), Some(n), None) if n >= 1.0 && p >= 1.0 => {
                let (p, n) = (counted(cpus, p)?, counted(nodes, n)?);
                if p % n != 0 {
                    return Err(err(format!(
                        "`{cpus}` {p} is not a whole number of cores on each of the `{nodes}` {n} nodes"
                    )));
                }
                Some(Request::Nodes {
                    nodes: n,
                    cores: p / n,
                })
            }
            (_, Some(n), None) if n >= 1.0 => Some(Request::Nodes {
                nodes: counted(nodes, n)?,
                cores: 1,
            }),
            (Some(p), _, _) if p >= 1.0 => Some(Request::Procs(counted(cpus, p)?)),
            _ => None,
        };
        let run = run.round() as i64;
        if run <= 0 {
            self.w.report.drop_job("runtime <= 0");
            return Ok(());
        }
        let Some(request) = request else {
            self.w.report.drop_job("no processors");
            return Ok(());
        };
        let (walltime, given) = match pbs(&["walltime"], parse_time)? {
            Some(wt) if wt > 0.0 => (wt.round() as i64, true),
            _ => (run, false),
        };
        let mut resources = BTreeMap::new();
        for (k, v) in custom {
            match v {
                Field::Number(n) => {
                    resources.insert(k.to_string(), n.as_f64().unwrap_or(0.0));
                }
                _ => return Err(err(format!("resource `{k}` must be a number"))),
            }
        }
        let owner = text_field(&["Job_Owner"])?;
        let user = match text_field(&["user", "euser"])? {
            Some(u) => Some(u),
            None => owner.map(|o| o.split('@').next().unwrap_or_default().to_string()),
        };
        let job = SimJob {
            id,
            submit: submit.round() as i64,
            run,
            walltime,
            walltime_given: given,
            request,
            mem: pbs(&["mem"], parse_size)?.unwrap_or(0.0),
            user: user.unwrap_or_else(|| "unknown".into()),
            group: text_field(&["group", "egroup"])?.unwrap_or_else(|| "unknown".into()),
            queue: text_field(&["queue"])?.unwrap_or_else(|| "default".into()),
            queue_priority: num(&["queue_priority"])?.unwrap_or(0.0),
            resources,
            recorded_start: num(&["start"])?.map(|s| s.round() as i64),
        };
        self.horizon.add(&job).map_err(|e| {
            let name = match e.field {
                JobField::Submit => "`submit`".to_string(),
                JobField::Run => "`run`".into(),
                JobField::Walltime => "`walltime`".into(),
                JobField::Start => "`start`".into(),
                JobField::Cores => match request {
                    Request::Nodes { .. } => format!("`{nodes}` × `ncores`"),
                    Request::Procs(_) => format!("`{cpus}`"),
                },
            };
            err(format!("{name}: {}", e.reason))
        })?;
        self.w.push_kept(job);
        Ok(())
    }
}

/// The resources a [`SimJob`] holds in its own fields (the rest go to `resources`).
const RESOURCE_FIELDS: [&str; 7] = [
    "ncpus", "procs", "nodect", "nnodes", "ncores", "walltime", "mem",
];

/// The fields of one job entry that the simulator reads, as the parser meets them (the key
/// as written, the value; a later spelling of a field wins), and its custom resources. One
/// is reused for every entry of a list; other keys are skipped unparsed.
#[derive(Default)]
struct Entry<'a> {
    /// Whether the entry is an object.
    object: bool,
    fields: Vec<(&'static str, Field<'a>)>,
    custom: Vec<(Cow<'a, str>, Field<'a>)>,
    /// `resources` or `Resource_List` when it was not an object.
    bad_resources: Option<&'static str>,
}

/// The name of a field a job entry may have, as a `'static` string.
fn job_field(key: &str) -> Option<&'static str> {
    const NAMES: [&str; 23] = [
        "id",
        "Job_Id",
        "job_id",
        "jobid",
        "submit",
        "qrank",
        "qtime",
        "run",
        "user",
        "euser",
        "Job_Owner",
        "group",
        "egroup",
        "queue",
        "queue_priority",
        "start",
        "ncpus",
        "procs",
        "nodect",
        "nnodes",
        "ncores",
        "walltime",
        "mem",
    ];
    NAMES.into_iter().find(|n| *n == key)
}

impl<'de> serde::de::DeserializeSeed<'de> for &mut Entry<'de> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.object = false;
        self.fields.clear();
        self.custom.clear();
        self.bad_resources = None;
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for &mut Entry<'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a job object")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.object = true;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let lists = match key.as_ref() {
                "resources" => Some("resources"),
                "Resource_List" => Some("Resource_List"),
                _ => None,
            };
            if let Some(list) = lists {
                match map.next_value::<Field<'de>>()? {
                    Field::Map(rs) => {
                        for (rk, rv) in rs {
                            if NOT_VALUES.contains(&rk.as_ref()) {
                                continue;
                            }
                            match RESOURCE_FIELDS.into_iter().find(|r| *r == rk) {
                                Some(r) => self.fields.push((r, rv)),
                                None => self.custom.push((rk, rv)),
                            }
                        }
                    }
                    _ => self.bad_resources = Some(list),
                }
            } else if let Some(k) = job_field(&key) {
                self.fields.push((k, map.next_value()?));
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(())
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
}

impl Workload {
    /// Add a kept job, updating the report counters.
    pub fn push_kept(&mut self, job: SimJob) {
        if !job.walltime_given {
            self.report.walltime_from_runtime += 1;
        } else if job.run > job.walltime {
            self.report.killed_at_walltime += 1;
        }
        self.jobs.push(job);
    }

    /// Sort jobs by submit time (stable: ties keep file order) and fill `report.kept`.
    pub fn finish(&mut self) {
        self.jobs.sort_by_key(|j| j.submit);
        self.report.kept = self.jobs.len();
    }

    /// Keep only the first `n` jobs (in submit order), e.g. a CI-sized slice of a trace.
    /// The `kept`, `walltime_from_runtime` and `killed_at_walltime` counters are recomputed
    /// for the slice; `read` and `dropped` stay those of the whole file.
    pub fn truncate(&mut self, n: usize) {
        self.jobs.truncate(n);
        self.report.kept = self.jobs.len();
        self.report.walltime_from_runtime = self.jobs.iter().filter(|j| !j.walltime_given).count();
        self.report.killed_at_walltime = self
            .jobs
            .iter()
            .filter(|j| j.walltime_given && j.run > j.walltime)
            .count();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_list_reads_fields_and_drops_with_reasons() {
        let text = r#"[
            {"id": "a", "submit": 0, "run": 10, "procs": 2, "walltime": 20, "user": "alice"},
            {"id": "b", "submit": 5, "run": 0, "procs": 2},
            {"id": "c", "submit": 1, "run": 30, "nnodes": 2, "ncores": 4, "walltime": 10},
            {"id": "d", "submit": 2, "run": 3}
        ]"#;
        let w = parse_json_jobs(text, "jobs.json").unwrap();
        assert_eq!(
            w.jobs.iter().map(|j| j.id.as_str()).collect::<Vec<_>>(),
            ["a", "c"]
        );
        assert_eq!(w.jobs[1].request, Request::Nodes { nodes: 2, cores: 4 });
        assert_eq!(w.jobs[1].effective_run(), 10);
        assert_eq!(w.report.dropped["runtime <= 0"], 1);
        assert_eq!(w.report.dropped["no processors"], 1);
        assert_eq!(w.report.killed_at_walltime, 1);
    }

    #[test]
    fn json_list_reads_the_job_schema_of_eval_and_rank() {
        // The fields as `eval`/`rank` job files and `qstat -f -F json` spell them.
        let text = r#"{"jobs": [
            {"Job_Id": "1.srv", "Job_Owner": "ann@login1", "egroup": "phys", "queue": "workq",
             "qtime": 100, "run": 50, "Resource_List": {"ncpus": 8, "nodect": 2,
             "walltime": "01:00:00", "mem": "4gb", "select": "2:ncpus=4", "place": "scatter",
             "scratch": 7}},
            {"id": 2, "euser": "bob", "submit": 5, "run": 10, "ncpus": 3, "walltime": 60,
             "mem": 1024, "queue_priority": 20, "start": 9},
            {"id": "3", "submit": 6, "run": 10, "nnodes": 2, "ncores": 2, "procs": 99}
        ], "pbs_version": "23.06"}"#;
        let w = parse_json_jobs(text, "j.json").unwrap();
        let [b, c, a] = &w.jobs[..] else {
            panic!("{:?}", w.jobs)
        };
        assert_eq!((b.id.as_str(), b.user.as_str()), ("2", "bob"));
        assert_eq!(
            (b.request, b.walltime, b.mem),
            (Request::Procs(3), 60, 1024.0)
        );
        assert_eq!((b.queue_priority, b.recorded_start), (20.0, Some(9)));
        assert_eq!((b.group.as_str(), b.queue.as_str()), ("unknown", "default"));
        assert_eq!(c.request, Request::Nodes { nodes: 2, cores: 2 });
        assert_eq!(
            (a.id.as_str(), a.user.as_str(), a.group.as_str()),
            ("1.srv", "ann", "phys")
        );
        assert_eq!((a.submit, a.run, a.walltime), (100, 50, 3600));
        assert_eq!(a.request, Request::Nodes { nodes: 2, cores: 4 });
        assert_eq!(a.mem, 4.0 * 1024.0 * 1024.0);
        assert_eq!(a.resources, BTreeMap::from([("scratch".to_string(), 7.0)]));
        let e = parse_json_jobs(
            r#"[{"submit": 0, "run": 1, "ncpus": 7, "nodect": 2}]"#,
            "j.json",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "j.json: jobs[0]: `ncpus` 7 is not a whole number of cores on each of the `nodect` 2 nodes"
        );
        let e = parse_json_jobs(
            r#"[{"submit": 0, "run": 1, "ncpus": 1, "walltime": "1:xx"}]"#,
            "j.json",
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("j.json: jobs[0]: `walltime`: "), "{e}");
    }

    #[test]
    fn json_lines_are_read_line_by_line_and_bad_json_says_where() {
        let text = "{\"submit\": 0, \"run\": 10, \"ncpus\": 1}\n\n{\"submit\": 1, \"run\": 5, \"procs\": 2}\n";
        let w = parse_json_jobs(text, "j.jsonl").unwrap();
        assert_eq!(
            w.jobs
                .iter()
                .map(|j| (j.id.as_str(), j.request))
                .collect::<Vec<_>>(),
            [("1", Request::Procs(1)), ("2", Request::Procs(2))]
        );
        let e = parse_json_jobs("{\"submit\": 0, \"run\": 1}\n{\"submit\": \n", "j.jsonl")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("j.jsonl:2: invalid JSON: "), "{e}");
        let e = parse_json_jobs("[{\"submit\": 0, \"run\": 1},\n {\"run\" 1}]", "j.json")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("j.json:2: invalid JSON: "), "{e}");
        let e = parse_json_jobs(
            "[{\"submit\": 0, \"run\": 1, \"ncpus\": 1, \"user\": [1, {\"a\": true}]}]",
            "j.json",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "j.json: jobs[0]: `user` must be a string, got [1,{\"a\":true}]"
        );
    }

    #[test]
    fn json_errors_name_the_entry() {
        let e =
            parse_json_jobs(r#"[{"submit": 0, "run": "x", "procs": 1}]"#, "f.json").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f.json: jobs[0]: `run` must be a number, got \"x\""
        );
    }
}
