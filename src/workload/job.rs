//! The jobs a simulation replays, their range checks, the load report and the workload,
//! and reading a trace file's text (plain or gzip).

use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use crate::input::text::{self, escaped};

pub use super::names::{JobId, Name, Names, Shared};
pub(crate) use super::names::{JobNumbers, plain_digits};

/// What a job asks of the cluster.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Request {
    /// `procs` cores placed anywhere (first fit over nodes, lowest node first; may span nodes).
    Procs(u32),
    /// `nodes` distinct nodes with `cores` free cores each.
    Nodes { nodes: u32, cores: u32 },
    /// Chunks of named resources with a placement (memory, GPUs, exclusive nodes).
    Select(Arc<Select>),
}

impl Request {
    /// Total cores the job asks for (a `Select`'s `ncpus` over its chunks).
    pub fn total_cores(&self) -> u64 {
        match self {
            Request::Procs(p) => *p as u64,
            Request::Nodes { nodes, cores } => *nodes as u64 * *cores as u64,
            Request::Select(s) => s.total(crate::model::machine::NCPUS),
        }
    }
    /// Number of nodes it asks for (`Procs` counts as 0 = "any"; a `Select` its chunks under
    /// `scatter`/`vscatter`, 1 under `pack`, else 0).
    pub fn node_count(&self) -> u32 {
        match self {
            Request::Procs(_) => 0,
            Request::Nodes { nodes, .. } => *nodes,
            Request::Select(s) => s.node_count(),
        }
    }
}

/// A request of chunks with named consumable resources: a PBS `select` with its `place`, or
/// a Slurm job's shape. Amounts are whole numbers in the resource's unit: `ncpus`
/// and `ngpus` counted, `mem` (and any resource given as a size) in KB. A multi-resource
/// machine places it as [`Shape`](crate::sim::cluster::Shape)
/// ([`Shape::on`](crate::sim::cluster::Shape::on)), checking the resources the machine
/// names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Select {
    /// The `+` parts, in order.
    pub parts: Vec<SelectPart>,
    pub place: crate::model::place::Place,
}

/// `count` chunks, each with `resources` (`(name, amount)`, in the order given).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SelectPart {
    pub count: u32,
    pub resources: Vec<(String, u64)>,
}

impl Select {
    /// The nodes it asks for: its chunks under `scatter`/`vscatter` (one node each), 1
    /// under `pack`, else 0 ("any").
    pub fn node_count(&self) -> u32 {
        use crate::model::place::Arrangement;
        match self.place.arrangement {
            Arrangement::Scatter | Arrangement::VScatter => self
                .parts
                .iter()
                .fold(0u32, |n, p| n.saturating_add(p.count)),
            Arrangement::Pack => 1,
            Arrangement::Free => 0,
        }
    }

    /// The `select` text of the parts (`2:ncpus=4:mem=8388608kb+1:ncpus=1`), `mem` in KB,
    /// which [`select_request`](crate::workload::pbs_accounting::select_request) reads
    /// back to the same parts.
    pub fn select_text(&self) -> String {
        let mut out = String::new();
        for (i, p) in self.parts.iter().enumerate() {
            if i > 0 {
                out.push('+');
            }
            out.push_str(&p.count.to_string());
            for (r, v) in &p.resources {
                let unit = if r == crate::model::machine::MEM {
                    "kb"
                } else {
                    ""
                };
                out.push_str(&format!(":{r}={v}{unit}"));
            }
        }
        out
    }

    /// Whether it asks for more than cores placed as cores are: a chunk amount of a
    /// resource other than `ncpus` (PBS's `mpiprocs` and `ompthreads` describe the chunk's
    /// processes, not a consumable), or exclusive nodes.
    pub fn asks_beyond_cores(&self) -> bool {
        use crate::model::place::Sharing;
        const NOT_CONSUMED: [&str; 3] = ["ncpus", "mpiprocs", "ompthreads"];
        self.place.sharing != Sharing::Shared
            || self.parts.iter().any(|p| {
                p.resources
                    .iter()
                    .any(|(r, v)| *v > 0 && !NOT_CONSUMED.contains(&r.as_str()))
            })
    }

    /// The request's total of `resource` over every chunk.
    pub fn total(&self, resource: &str) -> u64 {
        self.parts
            .iter()
            .map(|p| {
                let each: u64 = p
                    .resources
                    .iter()
                    .filter(|(r, _)| r == resource)
                    .map(|(_, v)| v)
                    .sum();
                each.saturating_mul(u64::from(p.count))
            })
            .fold(0, u64::saturating_add)
    }
}

/// One job of a workload, as a reader gives it: every field a [`SimJob`] holds, public, for
/// building one (`SimJob::from(JobSpec { .. })`) or reading it whole ([`SimJob::spec`]).
#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    /// Job id as text (SWF job number, JSON `id`).
    pub id: JobId,
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
    /// Fairshare / report entities (shared per workload: [`Names`]).
    pub user: Name,
    pub group: Name,
    /// Slurm `Account` (flux-accounting's bank): the account of the job's association; empty
    /// when the trace names none.
    pub account: Name,
    /// Slurm `QOS`; empty when the trace names none.
    pub qos: Name,
    /// The queue (PBS), partition (Slurm) or queue (Flux).
    pub queue: Name,
    /// PBS `queue_priority` keyword (0 unless a JSON job list gives it).
    pub queue_priority: f64,
    /// Extra numeric resources by name (formula inputs).
    pub resources: BTreeMap<String, f64>,
    /// The start time the trace recorded (SWF `submit + wait`), when known.
    pub recorded_start: Option<i64>,
}

#[cfg(test)]
impl JobSpec {
    /// A job for the tests to set what they test on (`JobSpec { user, ..JobSpec::test("1") }`):
    /// id `id`, submitted at 0, one processor for one second of one requested, user `u`,
    /// group `g`, queue `q`, nothing else.
    pub(crate) fn test(id: &str) -> JobSpec {
        JobSpec {
            id: id.into(),
            submit: 0,
            run: 1,
            walltime: 1,
            walltime_given: true,
            request: Request::Procs(1),
            mem: 0.0,
            user: "u".into(),
            group: "g".into(),
            account: "".into(),
            qos: "".into(),
            queue: "q".into(),
            queue_priority: 0.0,
            resources: BTreeMap::new(),
            recorded_start: None,
        }
    }
}

/// One job of a workload: the fields every job has in place, the ones most jobs leave empty
/// (account, QOS, queue priority, resources) in a [`JobRare`] behind one pointer, `None` when
/// all are empty; the recorded start and `walltime_given` packed in one word. At most 112
/// bytes (checked when compiling: a million-job trace holds a million of them). Built from a
/// [`JobSpec`].
#[derive(Clone, PartialEq)]
pub struct SimJob {
    /// Job id as text (SWF job number, JSON `id`).
    pub id: JobId,
    /// Submit time (s).
    pub submit: i64,
    /// Run time in the trace (s), > 0.
    pub run: i64,
    /// Requested time (s); equals `run` when the trace has none ([`SimJob::walltime_given`]).
    pub walltime: i64,
    pub request: Request,
    /// Requested memory in KB (total over the job; 0 when unknown).
    pub mem: f64,
    /// Fairshare / report entities (shared per workload: [`Names`]).
    pub user: Name,
    pub group: Name,
    /// The queue (PBS), partition (Slurm) or queue (Flux).
    pub queue: Name,
    /// The recorded start plus one in the low bits (0: none), [`GIVEN`] when the walltime
    /// came from the trace.
    start_given: u64,
    rare: Option<Box<JobRare>>,
}

/// The fields of a [`SimJob`] most traces leave empty (SWF has none of them): held apart,
/// behind one pointer, only by the jobs that have one.
#[derive(Debug, Clone, PartialEq)]
struct JobRare {
    account: Name,
    qos: Name,
    queue_priority: f64,
    resources: BTreeMap<String, f64>,
}

/// The bit of `SimJob::start_given` that says the walltime came from the trace (a recorded
/// start is at most [`MAX_SECONDS`] = 2^53, plus one, in the bits below).
const GIVEN: u64 = 1 << 63;

const _: () = assert!(std::mem::size_of::<SimJob>() <= 112);

/// No resources (the jobs without a [`JobRare`]).
static NO_RESOURCES: BTreeMap<String, f64> = BTreeMap::new();

impl From<JobSpec> for SimJob {
    fn from(s: JobSpec) -> SimJob {
        let rare = (!s.account.is_empty()
            || !s.qos.is_empty()
            || s.queue_priority.to_bits() != 0
            || !s.resources.is_empty())
        .then(|| {
            Box::new(JobRare {
                account: s.account,
                qos: s.qos,
                queue_priority: s.queue_priority,
                resources: s.resources,
            })
        });
        let mut job = SimJob {
            id: s.id,
            submit: s.submit,
            run: s.run,
            walltime: s.walltime,
            request: s.request,
            mem: s.mem,
            user: s.user,
            group: s.group,
            queue: s.queue,
            start_given: 0,
            rare,
        };
        job.set_recorded_start(s.recorded_start);
        job.set_walltime_given(s.walltime_given);
        job
    }
}

impl fmt::Debug for SimJob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.spec().fmt(f)
    }
}

impl SimJob {
    /// Run time actually simulated: the job is killed at its requested time.
    pub fn effective_run(&self) -> i64 {
        if self.walltime_given() {
            self.run.min(self.walltime)
        } else {
            self.run
        }
    }

    /// All its fields, as a [`JobSpec`] (a copy).
    pub fn spec(&self) -> JobSpec {
        JobSpec {
            id: self.id.clone(),
            submit: self.submit,
            run: self.run,
            walltime: self.walltime,
            walltime_given: self.walltime_given(),
            request: self.request.clone(),
            mem: self.mem,
            user: self.user.clone(),
            group: self.group.clone(),
            account: self.account().clone(),
            qos: self.qos().clone(),
            queue: self.queue.clone(),
            queue_priority: self.queue_priority(),
            resources: self.resources().clone(),
            recorded_start: self.recorded_start(),
        }
    }

    /// Whether `walltime` came from the trace (else it is the run-time fallback).
    pub fn walltime_given(&self) -> bool {
        self.start_given & GIVEN != 0
    }

    pub fn set_walltime_given(&mut self, given: bool) {
        self.start_given = (self.start_given & !GIVEN) | if given { GIVEN } else { 0 };
    }

    /// The start time the trace recorded (SWF `submit + wait`), when known.
    pub fn recorded_start(&self) -> Option<i64> {
        match self.start_given & !GIVEN {
            0 => None,
            s => Some((s - 1) as i64),
        }
    }

    /// Set the recorded start. One outside `0..=MAX_SECONDS` is kept as the nearest bound
    /// (the readers refuse such a job: [`check_job`] sees the bound, out of range too, for a
    /// negative start).
    pub fn set_recorded_start(&mut self, start: Option<i64>) {
        let bits = match start {
            None => 0,
            Some(s) => s.clamp(-1, MAX_SECONDS + 1).wrapping_add(1) as u64 & !GIVEN,
        };
        self.start_given = (self.start_given & GIVEN) | bits;
    }

    fn rare_mut(&mut self) -> &mut JobRare {
        self.rare.get_or_insert_with(|| {
            Box::new(JobRare {
                account: Name::empty().clone(),
                qos: Name::empty().clone(),
                queue_priority: 0.0,
                resources: BTreeMap::new(),
            })
        })
    }

    /// Slurm `Account` (flux-accounting's bank): the account of the job's association; empty
    /// when the trace names none.
    pub fn account(&self) -> &Name {
        match &self.rare {
            Some(r) => &r.account,
            None => Name::empty(),
        }
    }

    /// Slurm `QOS`; empty when the trace names none.
    pub fn qos(&self) -> &Name {
        match &self.rare {
            Some(r) => &r.qos,
            None => Name::empty(),
        }
    }

    /// PBS `queue_priority` keyword (0 unless a JSON job list gives it).
    pub fn queue_priority(&self) -> f64 {
        self.rare.as_ref().map_or(0.0, |r| r.queue_priority)
    }

    pub fn set_queue_priority(&mut self, p: f64) {
        if self.rare.is_none() && p.to_bits() == 0 {
            return;
        }
        self.rare_mut().queue_priority = p;
    }

    /// Extra numeric resources by name (formula inputs).
    pub fn resources(&self) -> &BTreeMap<String, f64> {
        self.rare.as_ref().map_or(&NO_RESOURCES, |r| &r.resources)
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

/// The value of a job that is out of the simulator's range: which [`JobSpec`] field and why.
/// Each loader names the field as its format spells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfRange {
    pub field: JobField,
    pub reason: String,
}

/// A range-checked field of a [`JobSpec`].
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
pub fn check_job(job: &JobSpec) -> Result<(), OutOfRange> {
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
    // A job may have run 0 seconds (it started and ended in the same second).
    time(JobField::Run, job.run, 0)?;
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
    pub fn add(&mut self, job: &JobSpec) -> Result<(), OutOfRange> {
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

/// Why jobs were dropped or adjusted while loading a workload, and the records that were not
/// jobs. `read = kept + dropped` (a bad record counts as a job read and dropped).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct LoadReport {
    /// Jobs read (data lines / list entries).
    pub read: usize,
    /// Jobs kept.
    pub kept: usize,
    /// Dropped jobs by reason (`"runtime <= 0"`, `"no processors"`, ...).
    pub dropped: BTreeMap<String, usize>,
    /// Records skipped because they are not jobs, by what they are (PBS records of other
    /// types, `"record type L (floating licences)"`; sacct job steps), and, when lenient,
    /// PBS records skipped as bad whose job is kept (`"duplicate record"`, `"truncated last
    /// line"`): not in `read`.
    pub records_skipped: BTreeMap<String, usize>,
    /// Kept jobs whose requested time was missing (run time used instead).
    pub walltime_from_runtime: usize,
    /// Kept jobs that ran longer than requested in the trace (killed at the requested time).
    pub killed_at_walltime: usize,
    /// Kept jobs that started and ran 0 seconds (sacct `Elapsed 00:00:00`, a job that failed
    /// at once): they held their cores at the scheduling round they started in, so they are
    /// simulated (starting, and ending at the same second), counted here.
    pub zero_runtime: usize,
    /// The dropped jobs one by one, in the order they were dropped: the first
    /// [`DROPPED_LISTED`] (a trace may drop millions); those past it are counted in
    /// `dropped_unlisted`. Not in the report's JSON (`--list-dropped` adds it).
    #[serde(skip)]
    pub dropped_jobs: Vec<DroppedJob>,
    /// Dropped jobs past the first [`DROPPED_LISTED`], counted but not listed.
    #[serde(skip)]
    pub dropped_unlisted: usize,
}

/// How many dropped jobs a [`LoadReport`] lists one by one (the rest are counted).
pub const DROPPED_LISTED: usize = 100_000;

/// One dropped job: its id as the trace names it (`line N` for a record dropped before its
/// id is known: a bad record), and why it was dropped (a key of [`LoadReport::dropped`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DroppedJob {
    pub id: Box<str>,
    pub reason: Box<str>,
}

/// The id a dropped record is listed by when its id is not known: its line.
pub fn line_id(line: usize) -> String {
    format!("line {line}")
}

/// How a reader treats bad records: an error at file:line (strict), or skipped and counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReadOptions {
    pub lenient: bool,
}

impl LoadReport {
    /// Total jobs dropped.
    pub fn dropped_total(&self) -> usize {
        self.dropped.values().sum()
    }
    /// Count a dropped job (the reason is copied only the first time it is met) and list it
    /// by `id` (the first [`DROPPED_LISTED`] of them; the rest are counted in
    /// `dropped_unlisted`).
    pub fn drop_job(&mut self, id: &str, reason: &str) {
        count_one(&mut self.dropped, reason);
        if self.dropped_jobs.len() < DROPPED_LISTED {
            self.dropped_jobs.push(DroppedJob {
                id: id.into(),
                reason: reason.into(),
            });
        } else {
            self.dropped_unlisted += 1;
        }
    }
    /// Add `other`'s dropped jobs (counts and list, its listed after these, within
    /// [`DROPPED_LISTED`]) to these.
    pub fn add_dropped(&mut self, other: LoadReport) {
        for (reason, n) in other.dropped {
            *self.dropped.entry(reason).or_insert(0) += n;
        }
        let room = DROPPED_LISTED.saturating_sub(self.dropped_jobs.len());
        let listed = other.dropped_jobs.len();
        self.dropped_jobs
            .extend(other.dropped_jobs.into_iter().take(room));
        self.dropped_unlisted += other.dropped_unlisted + listed.saturating_sub(room);
    }
    /// Total records skipped as not jobs.
    pub fn skipped_total(&self) -> usize {
        self.records_skipped.values().sum()
    }
    /// Count a record that is not a job (what it is copied only the first time it is met).
    pub fn skip_record(&mut self, what: &str) {
        count_one(&mut self.records_skipped, what);
    }
}

/// One more under `key`, the key copied only the first time it is met.
fn count_one(counts: &mut BTreeMap<String, usize>, key: &str) {
    match counts.get_mut(key) {
        Some(n) => *n += 1,
        None => {
            counts.insert(key.to_string(), 1);
        }
    }
}

/// Machine description found in a trace (SWF header or an AleaNG `.machines` file).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MachineHint {
    pub nodes: Option<u32>,
    pub cores: Option<u32>,
}

impl MachineHint {
    /// The cluster a run uses: `nodes` and `cores` given by the caller (flags, arguments) win
    /// over the trace's; with `nodes` alone the cores per node default to 1. `None` when
    /// neither says a size.
    pub fn resolve(self, nodes: Option<u32>, cores: Option<u32>) -> Option<(u32, u32)> {
        let n = nodes.or(self.nodes)?;
        let c = cores.or(self.cores).or(nodes.map(|_| 1))?;
        Some((n, c))
    }
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
    /// Where `machine` came from when the trace states no size and the reader derived it from
    /// the jobs' allocations (a site log's node lists and cores), for the load report; `None`
    /// when a header or `.machines` file gave it, or nothing did.
    pub machine_derived: Option<String>,
}

/// A load error: where and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorkloadError {
    /// An I/O error reading the file.
    #[error("{}: {}", escaped(file), escaped(message))]
    Io { file: String, message: String },
    /// A malformed line or entry: `file:line: reason`.
    #[error("{}:{line}: {}", escaped(file), escaped(reason))]
    Line {
        file: String,
        line: usize,
        reason: String,
    },
    /// A byte no text holds, at `file:line:column` (the column in bytes, from 1).
    #[error("{}:{line}:{column}: {}", escaped(file), escaped(reason))]
    Column {
        file: String,
        line: usize,
        column: usize,
        reason: String,
    },
    /// A malformed JSON entry: `file: path: reason`.
    #[error("{}: {}: {}", escaped(file), escaped(path), escaped(reason))]
    Json {
        file: String,
        path: String,
        reason: String,
    },
    /// A text that is none of the formats read.
    #[error(
        "{file}: not a format jobsort reads (tried {tried}): its first line is `{first_line}`",
        tried = super::load::FORMATS_TRIED
    )]
    Unrecognised { file: String, first_line: String },
}

/// Read a whole file, transparently gunzipping it when it starts with the gzip magic bytes
/// (whatever its name). Returns `(decoded text, sha256 hex of the stored bytes)`. A trace
/// parser that can take the text in pieces reads a [`TraceText`] instead.
pub fn read_text(path: &Path) -> Result<(String, String), WorkloadError> {
    let mut input = TraceText::open(path)?;
    let text = input.read_to_string()?;
    Ok((text, input.sha256()))
}

/// The text of a file's bytes: gunzipped when they start with the gzip magic bytes (every
/// member of a multi-member file), then checked to be UTF-8. `file` names it in errors.
pub fn decode_text(bytes: Vec<u8>, file: &str) -> Result<String, WorkloadError> {
    TraceText::new(&bytes[..], file, bytes.len())?.read_to_string()
}

/// How much decoded text [`TraceText::next_lines`] gives at a time (whole lines: more when a
/// line is longer).
const CHUNK: usize = 1 << 18;

/// A trace file's text as it streams, for parsers that take it in pieces of whole lines
/// ([`TraceText::next_lines`]) instead of all at once: the stored bytes are hashed as they
/// are read ([`TraceText::sha256`]), gunzipped when they start with the gzip magic bytes
/// (every member of a multi-member file), and checked to be UTF-8 piece by piece. Only a
/// piece of the text is held at a time, whatever the size of the trace.
///
/// The errors are those of the file decoded whole: a gzip error wins over text that is not
/// UTF-8, and that over what a parser says of the text before it ([`TraceText::drain`]).
pub struct TraceText<R: Read> {
    decode: Decode<R>,
    file: String,
    /// Decoded bytes: `buf[..end]`; the first `given` of them are the piece given out last.
    buf: Vec<u8>,
    end: usize,
    given: usize,
    /// Decoded offset of `buf[0]`.
    offset: u64,
    /// The decoder gave everything.
    eof: bool,
    /// The decoded size, as far as it is known before decoding.
    size_hint: usize,
    /// The line of `buf[0]` (from 1) and its column (bytes of its line before it, plus 1).
    line: usize,
    column: usize,
}

/// The stored bytes, hashed as they pass.
struct Hashing<R> {
    inner: R,
    sha: sha2::Sha256,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        use sha2::Digest;
        let n = self.inner.read(out)?;
        self.sha.update(&out[..n]);
        Ok(n)
    }
}

/// The stored bytes (the two first read already, to see whether they are gzip).
type Stored<R> = Hashing<std::io::Chain<std::io::Cursor<Vec<u8>>, R>>;

// One per file read: the gzip decoder's size does not matter.
#[allow(clippy::large_enum_variant)]
enum Decode<R: Read> {
    Plain(Stored<R>),
    Gzip(flate2::read::MultiGzDecoder<Stored<R>>),
    /// One of the two on a thread of its own, a few pieces ahead of the parser.
    Ahead(Box<Ahead<R>>),
}

impl<R: Read> Decode<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Decode::Plain(r) => r.read(out),
            Decode::Gzip(r) => r.read(out),
            Decode::Ahead(a) => a.read(out),
        }
    }
    fn stored(&mut self) -> &mut Stored<R> {
        match self {
            Decode::Plain(r) => r,
            Decode::Gzip(r) => r.get_mut(),
            Decode::Ahead(a) => a.decoder().stored(),
        }
    }
    fn gzip(&self) -> bool {
        match self {
            Decode::Plain(_) => false,
            Decode::Gzip(_) => true,
            Decode::Ahead(a) => a.gzip,
        }
    }
}

/// Decoded pieces the thread keeps ready, of [`PIECE`] bytes each: reading, hashing and
/// gunzipping run beside the parser with at most this many pieces between them (and one
/// filling, one being read: 640 KiB in all). With them all ready the thread waits by
/// sleeping in short turns ([`send_polling`]), not for the reader to wake it.
const AHEAD: usize = 8;

/// How much white space [`TraceText::head`] reads before it gives up looking for text.
const HEAD: usize = 1 << 20;
const PIECE: usize = 1 << 16;

/// How far ahead of the reader its jobs' memory is faulted in ([`TraceText::fault_ahead`]):
/// a few pieces' jobs (a 256 KiB piece of SWF is about 300 KB of jobs).
const FAULT_AHEAD: usize = 1 << 20;

/// A decoder (reading the stored bytes, hashing them, gunzipping) on its own thread: it
/// fills pieces of [`PIECE`] bytes and sends them, in order, then an empty piece at the end
/// of the text or the error that stopped it; the reader takes them as a `Read`. The thread
/// hands the decoder back when it stops, for what comes after the text (the hash, the rest
/// of the stored bytes after an error).
struct Ahead<R: Read> {
    gzip: bool,
    /// `None` once the text ended, the decoder failed (it is not read again) or the thread
    /// was told to stop.
    pieces: Option<std::sync::mpsc::Receiver<std::io::Result<Vec<u8>>>>,
    /// Used pieces back to the thread, to fill again.
    spare: std::sync::mpsc::Sender<Vec<u8>>,
    piece: Vec<u8>,
    at: usize,
    thread: Option<std::thread::JoinHandle<Decode<R>>>,
    /// The decoder, once the thread handed it back.
    back: Option<Decode<R>>,
    /// Memory the reader is about to write, faulted in by the thread between its pieces.
    fault: Arc<FaultAhead>,
}

/// Memory a reader is about to write (the spare capacity of the vector its jobs go into),
/// faulted in by the decoding thread after each piece it sends ([`TraceText::fault_ahead`]).
///
/// A fresh page costs its first writer a page fault (about 1.4 µs here: a third of a LANL-CM5
/// run's jobs vector of 13.7 MB is 4.7 ms of faults); taken on the decoding thread, which
/// mostly waits for the reader, it is off the reader's path. `MADV_POPULATE_WRITE` maps the
/// pages without writing them, so faulting in memory that has since moved or been freed
/// changes no one's bytes; an error (an old kernel, an unmapped range) stops it.
#[derive(Default)]
struct FaultAhead {
    /// The addresses to fault in, `[start, end)` (empty: none).
    window: std::sync::Mutex<(usize, usize)>,
}

impl FaultAhead {
    /// Fault in the window from `done` (how far this thread got; restarted when the window
    /// moved), whole pages only. `false` once faulting in failed.
    #[cfg(target_os = "linux")]
    fn run(&self, done: &mut usize) -> bool {
        let (start, end) = *self.window.lock().unwrap_or_else(|e| e.into_inner());
        if *done < start || *done > end {
            *done = start;
        }
        // SAFETY: sysconf has no preconditions.
        let page = match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
            p if p > 0 => p as usize,
            _ => return false,
        };
        let from = done.next_multiple_of(page);
        let to = end / page * page;
        if from < to {
            // SAFETY: MADV_POPULATE_WRITE only maps pages (as a write would, without
            // writing); it reads and changes no memory, whoever owns the range now.
            let r = unsafe {
                libc::madvise(
                    from as *mut libc::c_void,
                    to - from,
                    libc::MADV_POPULATE_WRITE,
                )
            };
            if r != 0 {
                return false;
            }
        }
        *done = end;
        true
    }

    #[cfg(not(target_os = "linux"))]
    fn run(&self, _: &mut usize) -> bool {
        false
    }
}

impl<R: Read + Send + 'static> Ahead<R> {
    /// `decode` on a thread ([`Decode::Ahead`]); `decode` as it was when no thread can be had.
    fn start(decode: Decode<R>) -> Decode<R> {
        use std::sync::mpsc;
        let gzip = decode.gzip();
        // The decoder goes to the thread once it runs: a failed spawn leaves it here.
        let (give, take) = mpsc::channel::<Decode<R>>();
        let (send, pieces) = mpsc::sync_channel(AHEAD);
        let (spare, spares) = mpsc::channel::<Vec<u8>>();
        let fault = Arc::new(FaultAhead::default());
        let window = Arc::clone(&fault);
        let reader_cpu = current_cpu();
        let thread = std::thread::Builder::new()
            .name("trace-decode".into())
            .spawn(move || {
                leave_cpu(reader_cpu);
                let mut decode = take.recv().expect("the decoder is sent after the spawn");
                let (mut faulting, mut done) = (true, 0);
                loop {
                    let mut buf = spares.try_recv().unwrap_or_default();
                    buf.resize(PIECE, 0);
                    let mut n = 0;
                    let failed = loop {
                        if n == buf.len() {
                            break None;
                        }
                        match decode.read(&mut buf[n..]) {
                            Ok(0) => break None,
                            Ok(k) => n += k,
                            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                            Err(e) => break Some(e),
                        }
                    };
                    buf.truncate(n);
                    let end = n == 0;
                    if n > 0 && !send_polling(&send, Ok(buf)) {
                        break; // the reader is gone
                    }
                    if faulting {
                        faulting = window.run(&mut done);
                    }
                    if let Some(e) = failed {
                        send_polling(&send, Err(e));
                        break;
                    }
                    if end {
                        send_polling(&send, Ok(Vec::new()));
                        break;
                    }
                }
                decode
            });
        match thread {
            Ok(thread) => match give.send(decode) {
                Ok(()) => Decode::Ahead(Box::new(Ahead {
                    gzip,
                    pieces: Some(pieces),
                    spare,
                    piece: Vec::new(),
                    at: 0,
                    thread: Some(thread),
                    back: None,
                    fault,
                })),
                // The thread is gone before its decoder came: decode here.
                Err(mpsc::SendError(decode)) => decode,
            },
            Err(_) => decode,
        }
    }
}

/// Send `item` (a piece, the error that stopped decoding, or the empty piece that ends the
/// text) to the reader, waiting while [`AHEAD`] pieces are ready by sleeping 100 µs at a time
/// (or until the reader, finding none ready, wakes it); `false` once the reader is gone.
///
/// Not `SyncSender::send`, which the reader would wake after each piece it takes: the kernel
/// may wake a thread on its waker's CPU, and the two then shared one CPU for milliseconds
/// while the other idled. With `send`, a whole load of LLNL-Atlas (4 MB) took 7.4 ms or
/// 10.5 ms from one run to the next, about 100 context switches in the slow runs against 20
/// (docs/perf.md).
fn send_polling<T>(send: &std::sync::mpsc::SyncSender<T>, mut item: T) -> bool {
    use std::sync::mpsc::TrySendError;
    loop {
        match send.try_send(item) {
            Ok(()) => return true,
            Err(TrySendError::Disconnected(_)) => return false,
            Err(TrySendError::Full(back)) => {
                item = back;
                std::thread::park_timeout(std::time::Duration::from_micros(100));
            }
        }
    }
}

/// The CPU this thread runs on (Linux), for [`leave_cpu`].
#[cfg(target_os = "linux")]
fn current_cpu() -> Option<usize> {
    // SAFETY: sched_getcpu has no preconditions.
    usize::try_from(unsafe { libc::sched_getcpu() }).ok()
}

#[cfg(not(target_os = "linux"))]
fn current_cpu() -> Option<usize> {
    None
}

/// Move this thread (the decoder, just started) off `cpu` (the reader's) if it started
/// there and may run elsewhere, then let it run anywhere again: a placement, not a pin.
///
/// A new thread may start on its parent's CPU while another CPU idles, and the kernel can
/// take milliseconds to spread them (a 2-CPU VM, `HZ=250`: the decoder ran 1.9 ms on the
/// reader's CPU while the other was idle and the reader waited), which is a load's whole
/// margin. Leaving the reader's CPU is what the kernel does sooner or later anyway.
#[cfg(target_os = "linux")]
fn leave_cpu(cpu: Option<usize>) {
    let Some(cpu) = cpu else { return };
    if current_cpu() != Some(cpu) || cpu >= libc::CPU_SETSIZE as usize {
        return;
    }
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: a zeroed cpu_set_t is an empty set; the calls read and write only `allowed`
    // and `elsewhere`, of `size` bytes, and change only this thread's affinity.
    unsafe {
        let mut allowed: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, size, &mut allowed) != 0
            || !libc::CPU_ISSET(cpu, &allowed)
            || libc::CPU_COUNT(&allowed) < 2
        {
            return;
        }
        let mut elsewhere = allowed;
        libc::CPU_CLR(cpu, &mut elsewhere);
        if libc::sched_setaffinity(0, size, &elsewhere) == 0 {
            libc::sched_setaffinity(0, size, &allowed);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn leave_cpu(_: Option<usize>) {}

impl<R: Read> Ahead<R> {
    /// The decoder, back from its thread (told to stop first if it was still decoding).
    fn decoder(&mut self) -> &mut Decode<R> {
        if let Some(thread) = self.thread.take() {
            self.pieces = None;
            match thread.join() {
                Ok(d) => self.back = Some(d),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        self.back
            .as_mut()
            .expect("a joined thread hands its decoder back")
    }
}

impl<R: Read> Read for Ahead<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.piece.len() {
            let next = match &self.pieces {
                Some(p) => p.try_recv().or_else(|_| {
                    // None ready: the thread may be waiting for room (`send_polling`).
                    if let Some(t) = &self.thread {
                        t.thread().unpark();
                    }
                    p.recv()
                }),
                None => return Ok(0),
            };
            match next {
                Ok(Ok(piece)) if piece.is_empty() => self.pieces = None,
                Ok(Ok(piece)) => {
                    let used = std::mem::replace(&mut self.piece, piece);
                    let _ = self.spare.send(used);
                    self.at = 0;
                }
                Ok(Err(e)) => {
                    self.pieces = None;
                    return Err(e);
                }
                // The thread stopped without a word: it panicked (join says how).
                Err(_) => {
                    self.decoder();
                    return Ok(0);
                }
            }
        }
        let n = out.len().min(self.piece.len() - self.at);
        out[..n].copy_from_slice(&self.piece[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Why the next piece of text could not be had.
enum Failed {
    /// Reading or gunzipping the stored bytes.
    Decode(WorkloadError),
    /// The piece is not UTF-8.
    Utf8(WorkloadError),
}

impl TraceText<std::fs::File> {
    /// Open a trace file (named by its path in errors).
    pub fn open(path: &Path) -> Result<TraceText<std::fs::File>, WorkloadError> {
        let file = path.display().to_string();
        let io = |e: std::io::Error| WorkloadError::Io {
            file: file.clone(),
            message: e.to_string(),
        };
        let f = std::fs::File::open(path).map_err(io)?;
        let size = f.metadata().map_err(io)?.len();
        // A gzip trailer holds its member's decoded size (mod 2^32): the whole text for a
        // one-member file. Deflate cannot expand past 1032:1.
        let mut trailer = [0; 4];
        let gz_size = size
            .checked_sub(4)
            .and_then(|at| std::os::unix::fs::FileExt::read_exact_at(&f, &mut trailer, at).ok())
            .map(|()| u64::from(u32::from_le_bytes(trailer)).min(size.saturating_mul(1032)));
        let mut text = TraceText::new(f, &file, size as usize)?;
        if let (Decode::Gzip(_), Some(n)) = (&text.decode, gz_size) {
            text.size_hint = n as usize;
        }
        Ok(text.ahead())
    }
}

impl<R: Read + Send + 'static> TraceText<R> {
    /// The same text, decoded on a thread of its own a few pieces ahead of the reader (as it
    /// was when no thread can be had).
    pub fn ahead(self) -> TraceText<R> {
        let decode = match self.decode {
            Decode::Ahead(a) => Decode::Ahead(a),
            d => Ahead::start(d),
        };
        TraceText { decode, ..self }
    }
}

impl<R: Read> TraceText<R> {
    /// The text of `stored`, the bytes of `file` (its name in errors); `stored_len` is how
    /// many there are, as far as known (a size hint).
    pub fn new(
        mut stored: R,
        file: &str,
        stored_len: usize,
    ) -> Result<TraceText<R>, WorkloadError> {
        let mut magic = vec![0; 2];
        let mut got = 0;
        while got < 2 {
            match stored.read(&mut magic[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(WorkloadError::Io {
                        file: file.into(),
                        message: e.to_string(),
                    });
                }
            }
        }
        magic.truncate(got);
        let gzip = is_gzip(&magic);
        let stored = Hashing {
            inner: std::io::Cursor::new(magic).chain(stored),
            sha: sha2::Digest::new(),
        };
        Ok(TraceText {
            decode: if gzip {
                Decode::Gzip(flate2::read::MultiGzDecoder::new(stored))
            } else {
                Decode::Plain(stored)
            },
            file: file.into(),
            buf: Vec::new(),
            end: 0,
            given: 0,
            offset: 0,
            eof: false,
            size_hint: stored_len,
            line: 1,
            column: 1,
        })
    }

    /// About how many bytes the text has (exact for plain text, and for a one-member gzip
    /// file below 4 GiB).
    pub fn size_hint(&self) -> usize {
        self.size_hint
    }

    /// The next [`FAULT_AHEAD`] bytes of `v`'s spare capacity, where the reader's next jobs
    /// go, faulted in by the decoding thread (when it has one) while the reader reads the
    /// pieces before them. Called after each piece; the contents of `v` are not touched.
    pub fn fault_ahead<T>(&self, v: &Vec<T>) {
        if let Decode::Ahead(a) = &self.decode {
            let size = std::mem::size_of::<T>().max(1);
            let ahead = (v.capacity() - v.len()).min(FAULT_AHEAD / size);
            let start = v.as_ptr_range().end as usize;
            *a.fault.window.lock().unwrap_or_else(|e| e.into_inner()) =
                (start, start + ahead * size);
        }
    }

    fn decode_error(&self, e: std::io::Error) -> WorkloadError {
        WorkloadError::Io {
            file: self.file.clone(),
            message: if self.decode.gzip() {
                format!("gzip: {e}")
            } else {
                e.to_string()
            },
        }
    }

    /// Decode into `buf` until it holds `want` bytes or the text ended. A NUL byte is an
    /// error as soon as it is decoded: no text holds one, and what does (`/dev/zero`, a gzip
    /// bomb of zeros) may never end.
    fn fill(&mut self, want: usize) -> Result<(), Failed> {
        while !self.eof && self.end < want {
            if self.end == self.buf.len() {
                self.buf.resize(want.max(CHUNK), 0);
            }
            match self.decode.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => {
                    let new = self.end;
                    self.end += n;
                    if let Some(at) = text::nul_at(&self.buf[new..self.end]) {
                        return Err(Failed::Decode(self.at_byte(new + at, text::NUL_BYTE)));
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Failed::Decode(self.decode_error(e))),
            }
        }
        Ok(())
    }

    /// The error `reason` at `buf[at]`, by line and column.
    fn at_byte(&mut self, at: usize, reason: &str) -> WorkloadError {
        // Read no further: the error stands for the rest of the text.
        self.eof = true;
        let (line, column) = text::line_column(&self.buf[..self.end], at, self.line, self.column);
        WorkloadError::Column {
            file: self.file.clone(),
            line,
            column,
            reason: reason.into(),
        }
    }

    /// Drop the piece given out last.
    fn forget_given(&mut self) {
        let given = &self.buf[..self.given];
        (self.line, self.column) = text::line_column(given, given.len(), self.line, self.column);
        self.buf.copy_within(self.given..self.end, 0);
        self.end -= self.given;
        self.offset += self.given as u64;
        self.given = 0;
    }

    /// The next piece of whole lines; with `cut`, a line longer than [`CHUNK`] is given in
    /// pieces of whole characters (for a JSON document, which may be one long line).
    fn piece(&mut self, cut: bool) -> Result<Option<&str>, Failed> {
        self.forget_given();
        let mut want = CHUNK;
        let len = loop {
            self.fill(want)?;
            if self.eof {
                break self.end;
            }
            if let Some(i) = self.buf[..self.end].iter().rposition(|&b| b == b'\n') {
                break i + 1;
            }
            if cut {
                // Up to the last whole character (a bad byte is the UTF-8 check's to say).
                break match std::str::from_utf8(&self.buf[..self.end]) {
                    Err(e) if e.error_len().is_none() => e.valid_up_to(),
                    _ => self.end,
                };
            }
            if self.end >= text::MAX_LINE {
                let line = self.line;
                self.eof = true;
                return Err(Failed::Decode(WorkloadError::Line {
                    file: self.file.clone(),
                    line,
                    reason: format!(
                        "a line longer than {} MiB: no line of a trace or log is this long \
                         (is this a text file?)",
                        text::MAX_LINE >> 20
                    ),
                }));
            }
            // A line longer than the buffer.
            want = self.end * 2;
        };
        if len == 0 {
            return Ok(None);
        }
        self.given = len;
        match std::str::from_utf8(&self.buf[..len]) {
            Ok(text) => Ok(Some(text)),
            Err(e) => Err(Failed::Utf8(self.utf8_error(e, self.offset))),
        }
    }

    fn utf8_error(&self, e: std::str::Utf8Error, start: u64) -> WorkloadError {
        // As `String::from_utf8` of the whole text says it.
        let at = start + e.valid_up_to() as u64;
        let what = match e.error_len() {
            Some(n) => format!("invalid utf-8 sequence of {n} bytes from index {at}"),
            None => format!("incomplete utf-8 byte sequence from index {at}"),
        };
        WorkloadError::Io {
            file: self.file.clone(),
            message: format!("not UTF-8 text: {what}"),
        }
    }

    /// The next piece of the text: whole lines (the last one of the text may lack its line
    /// end), about 256 KiB of them; `None` at the end.
    pub fn next_lines(&mut self) -> Result<Option<&str>, WorkloadError> {
        self.next(false)
    }

    /// [`TraceText::next_lines`], but a line longer than a piece (a JSON document on one
    /// line) comes in pieces of whole characters instead of whole.
    pub fn next_text(&mut self) -> Result<Option<&str>, WorkloadError> {
        self.next(true)
    }

    fn next(&mut self, cut: bool) -> Result<Option<&str>, WorkloadError> {
        match self.piece(cut) {
            Ok(Some(_)) => Ok(std::str::from_utf8(&self.buf[..self.given]).ok()),
            Ok(None) => Ok(None),
            Err(Failed::Decode(e)) => Err(e),
            Err(Failed::Utf8(e)) => Err(self.rest(e, true)),
        }
    }

    /// The piece [`TraceText::next_lines`] gave last (empty before the first).
    pub fn last_lines(&self) -> &str {
        std::str::from_utf8(&self.buf[..self.given]).unwrap_or_default()
    }

    /// Whether the whole text has been decoded: after [`TraceText::head`], whether the head
    /// is all of it.
    pub fn decoded_all(&self) -> bool {
        self.eof
    }

    /// The start of the text, not consumed: at least one byte that is not white space, unless
    /// the text has none or starts with more than [`HEAD`] bytes of it (then the white space
    /// alone: the reader of the format so chosen reads on past it, a piece at a time). For
    /// choosing the format.
    pub fn head(&mut self) -> Result<&str, WorkloadError> {
        self.forget_given();
        let mut want = CHUNK.min(4096);
        loop {
            match self.fill(want) {
                Ok(()) => {}
                Err(Failed::Decode(e) | Failed::Utf8(e)) => return Err(e),
            }
            if self.eof
                || self.end >= HEAD
                || !self.buf[..self.end].iter().all(u8::is_ascii_whitespace)
            {
                break;
            }
            want = self.end * 2;
        }
        let bytes = &self.buf[..self.end];
        Ok(match std::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
        })
    }

    /// The error for a parser that stopped at `error` (what it said of the text so far): the
    /// rest is decoded as the file decoded whole would have been, and a gzip error in it, else
    /// text that is not UTF-8, is the error instead. Only the next [`text::MAX_DRAIN`] bytes
    /// are looked at: an input that never ends (a pipe from `yes`) still gives its error.
    pub fn drain(&mut self, error: WorkloadError) -> WorkloadError {
        self.rest(error, false)
    }

    fn rest(&mut self, mut error: WorkloadError, mut not_utf8: bool) -> WorkloadError {
        let until = self.offset.saturating_add(text::MAX_DRAIN);
        loop {
            if self.offset > until {
                return error;
            }
            match self.piece(true) {
                Ok(None) => return error,
                Ok(Some(_)) => {}
                Err(Failed::Decode(e)) => return e,
                Err(Failed::Utf8(e)) => {
                    if !not_utf8 {
                        (error, not_utf8) = (e, true);
                    }
                }
            }
        }
    }

    /// The rest of the text, whole: its lines checked as [`TraceText::next_lines`] checks
    /// them (no NUL byte, no line longer than [`text::MAX_LINE`]).
    pub fn read_to_string(&mut self) -> Result<String, WorkloadError> {
        self.forget_given();
        let start = self.offset as usize;
        let mut out = String::new();
        out.reserve(self.size_hint.saturating_sub(start).min(1 << 30));
        while let Some(piece) = self.next_lines()? {
            out.push_str(piece);
        }
        Ok(out)
    }

    /// The SHA-256 of the stored bytes (all of them: what is left is read first), in hex.
    pub fn sha256(&mut self) -> String {
        use sha2::Digest;
        let stored = self.decode.stored();
        let _ = std::io::copy(stored, &mut std::io::sink());
        hex(&stored.sha.clone().finalize())
    }
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

impl Workload {
    /// Add a kept job, updating the report counters.
    pub fn push_kept(&mut self, job: impl Into<SimJob>) {
        let job = job.into();
        if job.run == 0 {
            self.report.zero_runtime += 1;
        }
        if !job.walltime_given() {
            self.report.walltime_from_runtime += 1;
        } else if job.run > job.walltime {
            self.report.killed_at_walltime += 1;
        }
        self.jobs.push(job);
    }

    /// Sort jobs by submit time (stable: ties keep file order) and fill `report.kept`. The
    /// jobs' vector is then cut to their number (it grew by doubling: up to twice the jobs).
    pub fn finish(&mut self) {
        // Most traces are in submit order already: no sort (whose scratch space for a
        // million jobs is half their size again).
        if !self.jobs.is_sorted_by_key(|j| j.submit) {
            self.jobs.sort_by_key(|j| j.submit);
        }
        self.jobs.shrink_to_fit();
        self.report.kept = self.jobs.len();
    }

    /// Keep only the first `n` jobs (in submit order), e.g. a CI-sized slice of a trace.
    /// The `kept`, `walltime_from_runtime`, `killed_at_walltime` and `zero_runtime` counters are recomputed
    /// for the slice; `read` and `dropped` stay those of the whole file.
    pub fn truncate(&mut self, n: usize) {
        self.jobs.truncate(n);
        self.report.kept = self.jobs.len();
        self.report.walltime_from_runtime =
            self.jobs.iter().filter(|j| !j.walltime_given()).count();
        self.report.killed_at_walltime = self
            .jobs
            .iter()
            .filter(|j| j.walltime_given() && j.run > j.walltime)
            .count();
        self.report.zero_runtime = self.jobs.iter().filter(|j| j.run == 0).count();
    }
}

#[cfg(all(test, target_os = "linux"))]
mod fault_ahead_tests {
    use super::FaultAhead;

    /// Which of the pages of `[from, to)` (page-aligned) are in memory.
    fn resident(from: usize, to: usize, page: usize) -> Vec<bool> {
        let mut v = vec![0u8; (to - from) / page];
        // SAFETY: the range is mapped (a live vector's capacity); `v` has a byte a page.
        let r = unsafe { libc::mincore(from as *mut libc::c_void, to - from, v.as_mut_ptr()) };
        assert_eq!(r, 0, "mincore: {}", std::io::Error::last_os_error());
        v.iter().map(|b| b & 1 == 1).collect()
    }

    /// The window's pages are mapped, nothing in the vector changes, a moved window starts
    /// over, and a range that cannot be written stops faulting in (without a fault of the
    /// caller's).
    #[test]
    fn faulting_ahead_maps_the_window_and_changes_no_bytes() {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
        let mut v: Vec<u64> = Vec::with_capacity(4 << 20);
        v.extend(0..1000);
        let spare = v.as_ptr_range().end as usize;
        let end = v.as_ptr() as usize + v.capacity() * 8;
        let (from, to) = (spare.next_multiple_of(page), end / page * page);
        // A fresh allocation of 32 MiB: its pages past the written ones are not mapped yet.
        assert!(resident(from, to, page).iter().any(|r| !r));
        let f = FaultAhead::default();
        *f.window.lock().unwrap() = (spare, end);
        let mut done = 0;
        assert!(f.run(&mut done));
        assert_eq!(done, end);
        assert!(resident(from, to, page).iter().all(|&r| r));
        assert!(v.iter().copied().eq(0..1000));
        // Done already: a second run maps nothing more and still succeeds.
        assert!(f.run(&mut done));
        v.extend(1000..v.capacity() as u64);
        assert!(v.iter().copied().eq(0..v.capacity() as u64));

        // A window elsewhere (the vector moved) starts from its own start.
        let w: Vec<u8> = Vec::with_capacity(8 << 20);
        let (ws, we) = (w.as_ptr() as usize, w.as_ptr() as usize + w.capacity());
        *f.window.lock().unwrap() = (ws, we);
        assert!(f.run(&mut done));
        assert_eq!(done, we);
        let (a, b) = (ws.next_multiple_of(page), we / page * page);
        assert!(resident(a, b, page).iter().all(|&r| r));

        // A range that cannot be written (as a range unmapped since): an error, which
        // stops it.
        // SAFETY: a fresh private anonymous mapping, read only, that nothing else points into.
        let read_only = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                4 * page,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(read_only, libc::MAP_FAILED);
        let at = read_only as usize;
        *f.window.lock().unwrap() = (at, at + 4 * page);
        let failed = !f.run(&mut done);
        // SAFETY: the mapping made above, used no more.
        assert_eq!(unsafe { libc::munmap(read_only, 4 * page) }, 0);
        assert!(failed);
    }
}

#[cfg(test)]
mod ahead_tests {
    use super::{AHEAD, PIECE, TraceText};
    use std::io::Read;
    use std::sync::mpsc;
    use std::time::Duration;

    /// Stored bytes that say when they are dropped (with the decoder that holds them).
    struct Told {
        bytes: std::io::Cursor<Vec<u8>>,
        dropped: mpsc::Sender<()>,
    }

    impl Read for Told {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            self.bytes.read(out)
        }
    }

    impl Drop for Told {
        fn drop(&mut self) {
            let _ = self.dropped.send(());
        }
    }

    /// A reader that stops after its first piece, of a text far longer than the pieces the
    /// thread keeps ready: the thread, waiting for room, sees the reader gone and ends (its
    /// decoder, and the stored bytes, dropped) instead of waiting on forever.
    #[test]
    fn the_decoding_thread_ends_when_its_reader_stops_early() {
        let line = "1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n";
        let text = line.repeat(4 * AHEAD * PIECE / line.len());
        let (dropped, told) = mpsc::channel();
        let stored = Told {
            bytes: std::io::Cursor::new(text.clone().into_bytes()),
            dropped,
        };
        let mut ahead = TraceText::new(stored, "t", text.len()).unwrap().ahead();
        let first = ahead.next_lines().unwrap().unwrap().to_string();
        assert!(first.starts_with(line) && first.len() < text.len());
        // Give the thread time to fill its pieces and wait for room.
        std::thread::sleep(Duration::from_millis(20));
        assert!(
            told.try_recv().is_err(),
            "dropped while the reader was there"
        );
        drop(ahead);
        assert!(
            told.recv_timeout(Duration::from_secs(10)).is_ok(),
            "the decoding thread did not end"
        );
    }

    /// Moving the decoding thread off its reader's CPU leaves the CPUs it may run on as they
    /// were: a placement, never a pin.
    #[cfg(target_os = "linux")]
    #[test]
    fn leaving_the_readers_cpu_keeps_the_thread_free_to_run_anywhere() {
        let allowed = || {
            let size = std::mem::size_of::<libc::cpu_set_t>();
            // SAFETY: a zeroed cpu_set_t is an empty set; the call writes `size` bytes of it.
            unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                assert_eq!(libc::sched_getaffinity(0, size, &mut set), 0);
                (0..libc::CPU_SETSIZE as usize)
                    .filter(|&c| libc::CPU_ISSET(c, &set))
                    .collect::<Vec<_>>()
            }
        };
        std::thread::spawn(move || {
            let before = allowed();
            let here = super::current_cpu();
            assert!(here.is_some_and(|c| before.contains(&c)));
            super::leave_cpu(here);
            assert_eq!(allowed(), before);
        })
        .join()
        .unwrap();
    }
}

#[cfg(test)]
mod dropped_list_tests {
    use super::{DROPPED_LISTED, LoadReport};

    /// A report lists the first [`DROPPED_LISTED`] dropped jobs and counts the rest, read
    /// alone or added to another; the counts by reason are all of them.
    #[test]
    fn dropped_jobs_are_listed_up_to_the_cap_and_the_rest_counted() {
        let mut r = LoadReport::default();
        for i in 0..DROPPED_LISTED + 5 {
            r.drop_job(&i.to_string(), "runtime <= 0");
        }
        assert_eq!(r.dropped_jobs.len(), DROPPED_LISTED);
        assert_eq!(r.dropped_unlisted, 5);
        assert_eq!(r.dropped_total(), DROPPED_LISTED + 5);
        assert_eq!(&*r.dropped_jobs[DROPPED_LISTED - 1].id, "99999");
        let mut first = LoadReport::default();
        first.drop_job("line 3", "bad record: not a number");
        let mut second = LoadReport::default();
        for i in 0..DROPPED_LISTED {
            second.drop_job(&i.to_string(), "no processors");
        }
        first.add_dropped(second);
        assert_eq!(&*first.dropped_jobs[0].id, "line 3");
        assert_eq!(first.dropped_jobs.len(), DROPPED_LISTED);
        assert_eq!(first.dropped_unlisted, 1);
        assert_eq!(first.dropped["no processors"], DROPPED_LISTED);
        assert_eq!(first.dropped_total(), DROPPED_LISTED + 1);
    }
}
