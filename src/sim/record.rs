//! The recording: JSON lines, one header line with the settings, then one line per round,
//! written and flushed round by round so a crash leaves a readable prefix. The format is
//! documented in `docs/recording.md`.
//!
//! Same inputs ⇒ byte-identical recording: field order is fixed, numbers are written by
//! `serde_json` (shortest round-trip form), nothing depends on hash-map order or the clock.

use super::cluster::Machine;
use super::scheduler::{Decision, EventKind, PendReason, Policy, QueueOrder, Round, SimConfig};
use super::setup::{MAX_NODES, check_decay};
use crate::flux::limit::LimitsSpec;
use crate::pbs::share::FairshareConfig;
use crate::workload::pbs_accounting::select_request;
use crate::workload::{
    Horizon, JobField, JobSpec, MAX_JOB_CORES, MAX_SECONDS, Name, Request, SimJob, count,
};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::sync::Arc;

/// Value of the header's `format` field.
pub const FORMAT: &str = "jobsort-recording";
/// Current format version: 2 writes a pend or hold only when it changed and the ranked queue
/// only on request ([`Header::queue`]); version 1 (every decision and the queue every round)
/// is still read.
pub const VERSION: u32 = 2;

/// The trace a recording was made from.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct TraceInfo {
    pub name: String,
    /// SHA-256 of the trace file as stored.
    pub sha256: String,
    /// Jobs simulated.
    pub jobs: usize,
    /// Jobs dropped while loading, by reason.
    pub dropped: BTreeMap<String, usize>,
}

/// The cluster shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ClusterInfo {
    pub nodes: u32,
    pub cores: u32,
}

/// The header line.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Header {
    pub format: String,
    pub version: u32,
    pub trace: TraceInfo,
    /// Formula text (`null`: first come, first served).
    pub formula: Option<String>,
    pub policy: Policy,
    pub cluster: ClusterInfo,
    pub threshold: Option<f64>,
    pub fairshare: Option<FairshareConfig>,
    pub limits: Option<LimitsSpec>,
    /// Version 2: whether each round lists the ranked queue (`sim --record-queue`); version 1
    /// always does.
    #[serde(default)]
    pub queue: bool,
    /// Queue or partition priorities ordered before the formula
    /// ([`SimConfig::queue_order`]); written only when set, so recordings without it are
    /// what they were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_order: Option<QueueOrder>,
    /// A multi-resource machine, in the cluster format (`cluster::Machine::parse`); absent
    /// for `nodes × cores`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
}

impl Header {
    /// A header for a simulation.
    pub fn new(trace: TraceInfo, formula: Option<&str>, config: &SimConfig) -> Header {
        Header {
            format: FORMAT.into(),
            version: VERSION,
            trace,
            formula: formula.map(str::to_string),
            policy: config.policy,
            cluster: ClusterInfo {
                nodes: config.nodes,
                cores: config.cores,
            },
            threshold: config.threshold,
            fairshare: config.fairshare.clone(),
            limits: config.limits.clone(),
            queue: false,
            queue_order: config.queue_order.clone(),
            machine: None,
        }
    }
    /// The same header with the run's multi-resource machine (`None`: `nodes × cores`).
    pub fn with_machine(mut self, machine: Option<&Machine>) -> Header {
        self.machine = machine.map(Machine::to_text);
        self
    }
    /// The machine it records, when multi-resource.
    pub fn machine(&self) -> Result<Option<Machine>, String> {
        self.machine
            .as_deref()
            .map(|t| Machine::parse(t, "header `machine`").map_err(|e| e.to_string()))
            .transpose()
    }
    /// The same header with the ranked queue in every round (or not).
    pub fn with_queue(mut self, queue: bool) -> Header {
        self.queue = queue;
        self
    }
    /// Whether its rounds list the ranked queue.
    pub fn has_queue(&self) -> bool {
        self.version == 1 || self.queue
    }
    /// Whether its rounds list every decision (version 1), not only the changes ([`Changes`]).
    pub fn every_decision(&self) -> bool {
        self.version == 1
    }
    /// The simulation settings it records.
    pub fn config(&self) -> SimConfig {
        SimConfig {
            policy: self.policy,
            nodes: self.cluster.nodes,
            cores: self.cluster.cores,
            threshold: self.threshold,
            fairshare: self.fairshare.clone(),
            limits: self.limits.clone(),
            queue_order: self.queue_order.clone(),
        }
    }
}

impl Header {
    /// Check the settings with the rules the command line applies ([`check_decay`]); the
    /// rest is checked where the settings are used, by [`super::setup::Setup::new`].
    fn check(&self) -> Result<(), String> {
        if let Some(fs) = &self.fairshare {
            check_decay(fs.decay_time, fs.decay_factor)
                .map_err(|e| format!("`fairshare.{}` {}", e.field, e.reason))?;
        }
        Ok(())
    }
}

/// Writes a recording to any sink, flushing after every line.
pub struct Recorder<W: Write> {
    out: W,
    line: String,
    queue: bool,
    changes: Changes,
}

impl<W: Write> Recorder<W> {
    /// Start a recording: writes the header line.
    pub fn new(mut out: W, header: &Header) -> io::Result<Recorder<W>> {
        let mut s = serde_json::to_string(header).map_err(io::Error::other)?;
        s.push('\n');
        out.write_all(s.as_bytes())?;
        out.flush()?;
        Ok(Recorder {
            out,
            line: String::new(),
            queue: header.queue,
            changes: Changes::default(),
        })
    }

    /// Append one round (and flush).
    pub fn round(&mut self, jobs: &[SimJob], round: &Round) -> io::Result<()> {
        self.line.clear();
        write_round(&mut self.line, jobs, round, self.queue, &mut self.changes);
        self.line.push('\n');
        self.out.write_all(self.line.as_bytes())?;
        self.out.flush()
    }

    /// The sink.
    pub fn into_inner(self) -> W {
        self.out
    }
}

fn js(out: &mut String, s: &str) {
    // serde_json escaping of a string never fails.
    out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into()));
}

/// A number; a value that is not finite as `"inf"`, `"-inf"` or `"nan"`
/// ([`crate::jobs::units::value_json`]), as every JSON output writes it.
fn num(out: &mut String, v: f64) {
    let v = crate::jobs::units::value_json(v);
    out.push_str(&serde_json::to_string(&v).unwrap_or_else(|_| "null".into()));
}

/// A submit event with the job's attributes (so a recording is self-contained).
fn write_submit(out: &mut String, job: &SimJob) {
    out.push_str("{\"submit\":");
    js(out, &job.id);
    let _ = write!(out, ",\"time\":{}", job.submit);
    match &job.request {
        Request::Procs(p) => {
            let _ = write!(out, ",\"procs\":{p}");
        }
        Request::Nodes { nodes, cores } => {
            let _ = write!(out, ",\"nnodes\":{nodes},\"ncores\":{cores}");
        }
        Request::Select(s) => {
            out.push_str(",\"select\":");
            js(out, &s.select_text());
            out.push_str(",\"place\":");
            js(out, &s.place.to_string());
        }
    }
    let _ = write!(out, ",\"walltime\":{},\"run\":{}", job.walltime, job.run);
    out.push_str(",\"mem\":");
    num(out, job.mem);
    out.push_str(",\"user\":");
    js(out, &job.user);
    out.push_str(",\"group\":");
    js(out, &job.group);
    out.push_str(",\"queue\":");
    js(out, &job.queue);
    if job.queue_priority() != 0.0 {
        out.push_str(",\"queue_priority\":");
        num(out, job.queue_priority());
    }
    if !job.resources().is_empty() {
        out.push_str(",\"resources\":{");
        for (i, (k, v)) in job.resources().iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            js(out, k);
            out.push(':');
            num(out, *v);
        }
        out.push('}');
    }
    out.push('}');
}

/// Serialize one round (no trailing newline).
/// A round as a version-2 line: the ranked queue only with `queue`, the decisions that
/// `changes` keeps.
pub fn write_round(
    out: &mut String,
    jobs: &[SimJob],
    round: &Round,
    queue: bool,
    changes: &mut Changes,
) {
    let _ = write!(
        out,
        "{{\"round\":{},\"time\":{},\"events\":[",
        round.number, round.time
    );
    for (i, e) in round.events.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let job = &jobs[e.job as usize];
        match e.kind {
            EventKind::End => {
                out.push_str("{\"end\":");
                js(out, &job.id);
                out.push('}');
            }
            EventKind::Submit => write_submit(out, job),
        }
    }
    out.push(']');
    if queue {
        out.push_str(",\"queue\":[");
        for (i, &(j, v)) in round.queue.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push('[');
            js(out, &jobs[j as usize].id);
            out.push(',');
            num(out, v);
            out.push(']');
        }
        out.push(']');
    }
    out.push_str(",\"decisions\":[");
    let mut first = true;
    for d in &round.decisions {
        let d = RecDecision::from_live(jobs, d);
        if changes.keep(&d) {
            if !first {
                out.push(',');
            }
            first = false;
            write_decision(out, &d);
        }
    }
    out.push_str("],\"hash\":");
    match &round.hash {
        Some(h) => js(out, h),
        None => out.push_str("null"),
    }
    out.push('}');
}

fn write_decision(out: &mut String, d: &RecDecision) {
    match d {
        RecDecision::Dispatch { job, nodes, cores } => {
            out.push_str("{\"dispatch\":");
            js(out, job);
            out.push_str(",\"nodes\":\"");
            write_node_ranges(out, nodes);
            let _ = write!(out, "\",\"cores\":{cores}}}");
        }
        RecDecision::Pend { job, reason } => {
            out.push_str("{\"pend\":");
            js(out, job);
            out.push_str(",\"reason\":");
            js(out, reason);
            out.push('}');
        }
        RecDecision::Hold { job, dependencies } => {
            out.push_str("{\"hold\":");
            js(out, job);
            out.push_str(",\"dependencies\":[");
            for (i, d) in dependencies.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                js(out, d);
            }
            out.push_str("]}");
        }
    }
}

/// A dispatch's nodes as runs of consecutive numbers, `0-127,130`, in their order (version 2;
/// version 1 wrote the array of every node).
fn write_node_ranges(out: &mut String, nodes: &[u32]) {
    let mut rest = nodes;
    let mut first = true;
    while let Some(&start) = rest.first() {
        let run = 1 + rest
            .windows(2)
            .take_while(|w| w[0].checked_add(1) == Some(w[1]))
            .count();
        if !first {
            out.push(',');
        }
        first = false;
        let end = rest[run - 1];
        if run == 1 {
            let _ = write!(out, "{start}");
        } else {
            let _ = write!(out, "{start}-{end}");
        }
        rest = &rest[run..];
    }
}

/// [`write_node_ranges`]'s text back as node numbers; at most [`MAX_NODES`] of them.
fn parse_node_ranges(text: &str) -> Result<Vec<u32>, String> {
    let mut nodes = Vec::new();
    if text.is_empty() {
        return Ok(nodes);
    }
    let bad = |part: &str| format!("`nodes`: `{part}` is not a node number or a range a-b");
    for part in text.split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b): (u32, u32) = (
            a.parse().map_err(|_| bad(part))?,
            b.parse().map_err(|_| bad(part))?,
        );
        if b < a {
            return Err(bad(part));
        }
        if nodes.len() as u64 + u64::from(b - a) + 1 > u64::from(MAX_NODES) {
            return Err(format!("`nodes`: more than {MAX_NODES} nodes"));
        }
        nodes.extend(a..=b);
    }
    Ok(nodes)
}

impl std::fmt::Display for RecDecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = String::new();
        write_decision(&mut s, self);
        f.write_str(&s)
    }
}

/// A decision as recorded (ids as text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecDecision {
    Dispatch {
        job: String,
        nodes: Vec<u32>,
        cores: u64,
    },
    Pend {
        job: String,
        reason: String,
    },
    Hold {
        job: String,
        dependencies: Vec<String>,
    },
}

impl RecDecision {
    /// The recorded form of a live decision.
    pub fn from_live(jobs: &[SimJob], d: &Decision) -> RecDecision {
        match d {
            Decision::Dispatch { job, alloc } => RecDecision::Dispatch {
                job: jobs[*job as usize].id.to_string(),
                nodes: alloc.nodes(),
                cores: alloc.cores(),
            },
            Decision::Pend { job, reason } => RecDecision::Pend {
                job: jobs[*job as usize].id.to_string(),
                reason: reason.name().into(),
            },
            Decision::Hold { job, dependencies } => RecDecision::Hold {
                job: jobs[*job as usize].id.to_string(),
                dependencies: dependencies.iter().map(|s| s.to_string()).collect(),
            },
        }
    }
    /// The job decided about.
    pub fn job(&self) -> &str {
        match self {
            RecDecision::Dispatch { job, .. }
            | RecDecision::Pend { job, .. }
            | RecDecision::Hold { job, .. } => job,
        }
    }
}

/// What a version-2 recording keeps of each round's decisions: every dispatch, and a job's
/// pend or hold only when its previous decision was not the same (its first, or a new reason
/// or dependency list). The writer and `replay --verify` (over the live decisions) filter
/// with it alike, so the kept lists are equal exactly when the full lists are.
#[derive(Debug, Default)]
pub struct Changes {
    last: rustc_hash::FxHashMap<String, RecDecision>,
}

impl Changes {
    /// Whether `d` is kept (and remember it).
    pub fn keep(&mut self, d: &RecDecision) -> bool {
        if let RecDecision::Dispatch { job, .. } = d {
            self.last.remove(job.as_str());
            return true;
        }
        if self.last.get(d.job()) == Some(d) {
            return false;
        }
        self.last.insert(d.job().to_string(), d.clone());
        true
    }
}

/// A recorded event.
#[derive(Debug, Clone, PartialEq)]
pub enum RecEvent {
    Submit(Box<SimJob>),
    End(String),
    /// A RUN confirmation (state change to running), e.g. from a real scheduler's log.
    Run(String),
}

/// One recorded round.
#[derive(Debug, Clone, PartialEq)]
pub struct RecRound {
    /// Line number in the file (1-based).
    pub line: usize,
    pub round: u64,
    pub time: i64,
    pub events: Vec<RecEvent>,
    pub queue: Vec<(String, f64)>,
    pub decisions: Vec<RecDecision>,
    pub hash: Option<String>,
}

/// A parsed recording.
#[derive(Debug, Clone)]
pub struct Recording {
    pub header: Header,
    /// Complete rounds.
    pub rounds: Vec<RecRound>,
    /// The file ended in the middle of a line (a crash while writing): the partial line was
    /// ignored.
    pub truncated: bool,
}

/// A recording that cannot be read: `file:line: reason`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {reason}")]
pub struct RecordingError {
    pub file: String,
    pub line: usize,
    pub reason: String,
}

/// Parse a recording. A last line without its newline (or that is not valid JSON and is
/// the last line) is a truncation, not an error; anything else malformed is an error.
pub fn parse_recording(text: &str, file: &str) -> Result<Recording, RecordingError> {
    read_recording(text.as_bytes(), file)
}

/// [`parse_recording`] of a recording's bytes, plain or gzip ([`decoded`]).
pub fn read_recording(input: impl io::BufRead, file: &str) -> Result<Recording, RecordingError> {
    let input = decoded(input).map_err(|e| RecordingError {
        file: file.into(),
        line: 1,
        reason: format!("cannot read: {e}"),
    })?;
    let mut reader = RecordingReader::new(input, file)?;
    let mut rounds = Vec::new();
    while let Some(r) = reader.next_round()? {
        rounds.push(r);
    }
    Ok(Recording {
        header: reader.header,
        rounds,
        truncated: reader.truncated,
    })
}

/// A recording read round by round ([`parse_recording`]'s rules), holding one line at a time:
/// what `replay --verify` reads a recording of any length with.
pub struct RecordingReader<R> {
    input: R,
    file: String,
    pub header: Header,
    /// Lines read so far (the header is line 1).
    line: usize,
    /// Bytes read so far.
    offset: u64,
    buf: Vec<u8>,
    horizon: Horizon,
    truncated: bool,
    done: bool,
}

impl<R: std::io::BufRead> RecordingReader<R> {
    /// Read the header line.
    pub fn new(mut input: R, file: &str) -> Result<RecordingReader<R>, RecordingError> {
        let err = |reason: String| RecordingError {
            file: file.into(),
            line: 1,
            reason,
        };
        let mut buf = Vec::new();
        let (complete, cut) = match read_line(&mut input, &mut buf) {
            Err(e) if cut_short(&e) => (false, true),
            r => (r.map_err(|e| err(e.to_string()))?, false),
        };
        if !complete {
            // A gzip stream cut before its first line decoded is cut, not empty.
            return Err(err(if buf.is_empty() && !cut {
                "empty recording"
            } else {
                "truncated before the end of the header"
            }
            .into()));
        }
        let first = utf8(&buf, 0).map_err(err)?;
        let offset = buf.len() as u64 + 1;
        // A first line that is no JSON object with a `format` is no recording at all (a job
        // file, a trace): say so, not what its JSON lacks.
        let format = serde_json::from_str::<serde_json::Value>(first)
            .ok()
            .and_then(|v| v.get("format").and_then(|f| f.as_str().map(str::to_string)));
        if format.is_none() {
            return Err(err(
                "not a jobsort recording (its first line is no recording header: `jobsort sim \
                 --record FILE` writes one)"
                    .into(),
            ));
        }
        let header: Header =
            serde_json::from_str(first).map_err(|e| err(format!("bad header: {e}")))?;
        if header.format != FORMAT {
            return Err(err(format!(
                "not a jobsort recording (format `{}`)",
                header.format
            )));
        }
        if !(1..=VERSION).contains(&header.version) {
            return Err(err(format!(
                "unsupported recording version {} (this jobsort reads 1 to {VERSION})",
                header.version
            )));
        }
        header.check().map_err(err)?;
        Ok(RecordingReader {
            input,
            file: file.into(),
            header,
            line: 1,
            offset,
            buf,
            horizon: Horizon::default(),
            truncated: false,
            done: false,
        })
    }

    /// The file ended in the middle of a line (read up to there).
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// The next complete round, `None` at the end (or at a truncation).
    pub fn next_round(&mut self) -> Result<Option<RecRound>, RecordingError> {
        while !self.done {
            let complete = match read_line(&mut self.input, &mut self.buf) {
                Err(e) if cut_short(&e) => {
                    self.truncated = true;
                    self.done = true;
                    break;
                }
                r => r.map_err(|e| self.error(self.line + 1, e.to_string()))?,
            };
            if !complete {
                // A partial last line (a crash while writing) is a truncation.
                self.truncated = !self.buf.is_empty();
                self.done = true;
                break;
            }
            self.line += 1;
            let lineno = self.line;
            let start = self.offset;
            self.offset += self.buf.len() as u64 + 1;
            let l = utf8(&self.buf, start).map_err(|r| self.error(lineno, r))?;
            if l.trim().is_empty() {
                continue;
            }
            let v: Value = match serde_json::from_str(l) {
                Ok(v) => v,
                Err(e) => {
                    let last = match self.input.fill_buf() {
                        Ok(rest) => rest.is_empty(),
                        Err(io) if cut_short(&io) => true,
                        Err(io) => return Err(self.error(lineno, io.to_string())),
                    };
                    if last && e.is_eof() {
                        self.truncated = true;
                        self.done = true;
                        break;
                    }
                    return Err(self.error(lineno, format!("invalid JSON: {e}")));
                }
            };
            return parse_round(&v, lineno, &mut self.horizon)
                .map(Some)
                .map_err(|r| self.error(lineno, r));
        }
        Ok(None)
    }

    fn error(&self, line: usize, reason: String) -> RecordingError {
        RecordingError {
            file: self.file.clone(),
            line,
            reason,
        }
    }
}

/// A recording's bytes decoded: gzip (`sim --record FILE.gz`, told by its magic bytes) or
/// as they are.
pub fn decoded<'a>(mut input: impl io::BufRead + 'a) -> io::Result<Box<dyn io::BufRead + 'a>> {
    Ok(if input.fill_buf()?.starts_with(&[0x1f, 0x8b]) {
        Box::new(io::BufReader::with_capacity(
            1 << 16,
            flate2::bufread::MultiGzDecoder::new(input),
        ))
    } else {
        Box::new(input)
    })
}

/// Whether a read error is the input ending early: a gzip stream cut before its trailer
/// (a crash while writing) is a truncation, as a cut plain file is.
fn cut_short(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::UnexpectedEof
}

/// Read one line into `buf` (without its `\n`); `false` when the input ended before a `\n`
/// (what was read is in `buf`).
fn read_line(input: &mut impl std::io::BufRead, buf: &mut Vec<u8>) -> std::io::Result<bool> {
    buf.clear();
    input.read_until(b'\n', buf)?;
    Ok(buf.pop_if(|b| *b == b'\n').is_some())
}

/// A line as text; `start` is its offset in the file, for the error.
fn utf8(line: &[u8], start: u64) -> Result<&str, String> {
    std::str::from_utf8(line)
        .map_err(|e| format!("not UTF-8 text (byte {})", start + e.valid_up_to() as u64))
}

/// The latest round time a recording may give: a round time plus a requested time (at most
/// [`MAX_SECONDS`]) must stay an `i64`.
const MAX_ROUND_TIME: i64 = i64::MAX - MAX_SECONDS;

fn parse_round(v: &Value, line: usize, horizon: &mut Horizon) -> Result<RecRound, String> {
    let o = v.as_object().ok_or("a round must be an object")?;
    let int = |k: &str| {
        o.get(k)
            .and_then(Value::as_i64)
            .ok_or_else(|| format!("`{k}` must be an integer"))
    };
    let round = int("round")? as u64;
    let time = int("time")?;
    if !(0..=MAX_ROUND_TIME).contains(&time) {
        return Err(format!(
            "`time` {time}: must be between 0 and {MAX_ROUND_TIME} s"
        ));
    }
    let arr = |k: &str| {
        o.get(k)
            .and_then(Value::as_array)
            .ok_or_else(|| format!("`{k}` must be an array"))
    };
    let mut events = Vec::new();
    for (i, e) in arr("events")?.iter().enumerate() {
        events.push(parse_event(e, time, horizon).map_err(|r| format!("events[{i}]: {r}"))?);
    }
    let mut queue = Vec::new();
    let listed: &[Value] = match o.get("queue") {
        None => &[],
        Some(_) => arr("queue")?,
    };
    for (i, q) in listed.iter().enumerate() {
        let pair = q
            .as_array()
            .filter(|a| a.len() == 2)
            .ok_or_else(|| format!("queue[{i}]: expected [id, value]"))?;
        let id = id_of(&pair[0]).ok_or_else(|| format!("queue[{i}]: bad id"))?;
        let value = crate::jobs::units::value_from_json(&pair[1]).ok_or_else(|| {
            format!("queue[{i}]: value must be a number (or \"inf\", \"-inf\", \"nan\")")
        })?;
        queue.push((id, value));
    }
    let mut decisions = Vec::new();
    for (i, d) in arr("decisions")?.iter().enumerate() {
        decisions.push(parse_decision(d).map_err(|r| format!("decisions[{i}]: {r}"))?);
    }
    let hash = o.get("hash").and_then(Value::as_str).map(str::to_string);
    Ok(RecRound {
        line,
        round,
        time,
        events,
        queue,
        decisions,
        hash,
    })
}

fn id_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A recorded event. A submit's job is checked with the rules of the trace loaders
/// ([`Horizon::add`], [`count`]): a recording holds only jobs a trace could have given.
fn parse_event(e: &Value, time: i64, horizon: &mut Horizon) -> Result<RecEvent, String> {
    let o = e.as_object().ok_or("an event must be an object")?;
    // `submit` first: a submit event also carries a `run` (run time) field.
    let Some(id) = o.get("submit") else {
        if let Some(id) = o.get("end") {
            return Ok(RecEvent::End(id_of(id).ok_or("bad `end` id")?));
        }
        if let Some(id) = o.get("run") {
            return Ok(RecEvent::Run(id_of(id).ok_or("bad `run` id")?));
        }
        return Err("expected `submit`, `end` or `run`".into());
    };
    let id = id_of(id).ok_or("bad `submit` id")?;
    let get = |k: &str| o.get(k).and_then(Value::as_f64);
    let text = |k: &str, d: &str| Name::from(o.get(k).and_then(Value::as_str).unwrap_or(d));
    let counted = |k: &str, v: f64| count(v).map_err(|e| format!("`{k}`: {}", e.reason));
    let select = o.get("select").and_then(Value::as_str);
    let request = match (select, get("nnodes"), get("ncores"), get("procs")) {
        (Some(text), ..) => {
            let place = o.get("place").and_then(Value::as_str);
            let s = select_request(text, place).map_err(|e| format!("`select`: {e}"))?;
            Request::Select(Arc::new(s))
        }
        (None, Some(n), Some(c), _) => Request::Nodes {
            nodes: counted("nnodes", n)?,
            cores: counted("ncores", c)?,
        },
        (None, _, _, Some(p)) => Request::Procs(counted("procs", p)?),
        _ => return Err("a submit needs `procs`, `nnodes`+`ncores` or `select`".into()),
    };
    let run = get("run").ok_or("a submit needs `run`")?.round() as i64;
    let walltime = get("walltime").map_or(run, |w| w.round() as i64);
    let mut resources = BTreeMap::new();
    if let Some(r) = o.get("resources").and_then(Value::as_object) {
        for (k, v) in r {
            resources.insert(
                k.clone(),
                v.as_f64()
                    .ok_or_else(|| format!("resource `{k}` must be a number"))?,
            );
        }
    }
    let job = JobSpec {
        id: id.into(),
        submit: get("time").map_or(time, |t| t.round() as i64),
        run,
        walltime,
        walltime_given: true,
        request,
        mem: get("mem").unwrap_or(0.0),
        user: text("user", "unknown"),
        group: text("group", "unknown"),
        account: "".into(),
        qos: "".into(),
        queue: text("queue", "default"),
        queue_priority: get("queue_priority").unwrap_or(0.0),
        resources,
        recorded_start: None,
    };
    // A recorded job was kept by its loader: no processors or no run time is an error here.
    let name = match job.request {
        Request::Procs(_) => "`procs`",
        Request::Nodes { .. } => "`nnodes` × `ncores`",
        Request::Select(_) => "`select`",
    };
    if job.request.total_cores() == 0 {
        return Err(format!("{name}: a submitted job needs at least one core"));
    }
    horizon.add(&job).map_err(|e| {
        let field = match e.field {
            JobField::Submit => "`time`",
            JobField::Run => "`run`",
            JobField::Walltime => "`walltime`",
            JobField::Start => "`start`",
            JobField::Cores => name,
        };
        format!("{field}: {}", e.reason)
    })?;
    Ok(RecEvent::Submit(Box::new(job.into())))
}

fn parse_decision(d: &Value) -> Result<RecDecision, String> {
    let o = d.as_object().ok_or("a decision must be an object")?;
    if let Some(id) = o.get("dispatch") {
        let job = id_of(id).ok_or("bad `dispatch` id")?;
        let nodes = match o.get("nodes") {
            None | Some(Value::Null) => vec![],
            Some(Value::Array(a)) => a
                .iter()
                .map(|n| {
                    n.as_u64()
                        .map(|x| x as u32)
                        .ok_or("`nodes` must hold node numbers")
                })
                .collect::<Result<_, _>>()?,
            Some(Value::String(ranges)) => parse_node_ranges(ranges)?,
            Some(_) => return Err("`nodes` must be node ranges (or an array)".into()),
        };
        let cores = o
            .get("cores")
            .and_then(Value::as_u64)
            .ok_or("`cores` must be a non-negative integer")?;
        if cores > MAX_JOB_CORES {
            return Err(format!(
                "`cores` {cores}: more than the {MAX_JOB_CORES} a job may hold"
            ));
        }
        return Ok(RecDecision::Dispatch { job, nodes, cores });
    }
    if let Some(id) = o.get("pend") {
        let job = id_of(id).ok_or("bad `pend` id")?;
        let reason = o
            .get("reason")
            .and_then(Value::as_str)
            .ok_or("`reason` must be a string")?;
        if PendReason::parse(reason).is_none() {
            return Err(format!("unknown pend reason `{reason}`"));
        }
        return Ok(RecDecision::Pend {
            job,
            reason: reason.into(),
        });
    }
    if let Some(id) = o.get("hold") {
        let job = id_of(id).ok_or("bad `hold` id")?;
        let deps = o
            .get("dependencies")
            .and_then(Value::as_array)
            .ok_or("`dependencies` must be an array")?
            .iter()
            .map(|d| {
                d.as_str()
                    .map(str::to_string)
                    .ok_or("dependencies are strings")
            })
            .collect::<Result<_, _>>()?;
        return Ok(RecDecision::Hold {
            job,
            dependencies: deps,
        });
    }
    Err("expected `dispatch`, `pend` or `hold`".into())
}

#[cfg(test)]
mod node_ranges {
    use super::*;

    #[test]
    fn runs_of_nodes_round_trip_in_their_order() {
        for nodes in [
            vec![],
            vec![7],
            vec![0, 1, 2, 3],
            vec![0, 1, 2, 5, 7, 8, 3, 4, u32::MAX - 1, u32::MAX],
            vec![4, 4, 5],
        ] {
            let mut s = String::new();
            write_node_ranges(&mut s, &nodes);
            assert_eq!(parse_node_ranges(&s).unwrap(), nodes, "{s}");
        }
        let mut s = String::new();
        write_node_ranges(&mut s, &[0, 1, 2, 5, 7, 8, 3]);
        assert_eq!(s, "0-2,5,7-8,3");
    }

    #[test]
    fn bad_ranges_are_errors_and_huge_ones_are_refused_before_allocating() {
        for bad in ["a", "1-", "-1", "3-1", "1,,2", "1-2-3", " 1"] {
            assert!(parse_node_ranges(bad).is_err(), "{bad}");
        }
        let e = parse_node_ranges("0-4294967295").unwrap_err();
        assert!(e.contains("more than"), "{e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Read};

    /// A recording whose bytes after `limit` cannot be read.
    struct Until<'a> {
        text: &'a [u8],
        limit: usize,
    }

    impl Read for Until<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.limit == 0 && !self.text.is_empty() {
                return Err(io::Error::other("not yet written"));
            }
            let n = out.len().min(self.limit).min(self.text.len());
            out[..n].copy_from_slice(&self.text[..n]);
            (self.text, self.limit) = (&self.text[n..], self.limit - n);
            Ok(n)
        }
    }

    fn header() -> String {
        let config = SimConfig::new(Policy::Strict, 1, 1);
        serde_json::to_string(&Header::new(TraceInfo::default(), None, &config)).unwrap()
    }

    #[test]
    fn rounds_are_read_one_line_at_a_time() {
        let round = |n: u64| {
            format!(
                "{{\"round\":{n},\"time\":{n},\"events\":[],\"queue\":[[\"a\",1.5]],\"decisions\":[]}}\n"
            )
        };
        let text = format!("{}\n{}{}", header(), round(0), round(1));
        // Only the header and the first round can be read: the first round comes out before
        // the rest of the file is there.
        let limit = header().len() + 1 + round(0).len();
        let input = BufReader::with_capacity(
            16,
            Until {
                text: text.as_bytes(),
                limit,
            },
        );
        let mut reader = RecordingReader::new(input, "r").unwrap();
        let first = reader.next_round().unwrap().unwrap();
        assert_eq!((first.line, first.round, first.queue.len()), (2, 0, 1));
        let e = reader.next_round().unwrap_err();
        assert_eq!(e.to_string(), "r:3: not yet written");
        // The whole file; then cut inside its last line: a truncation.
        let mut reader = RecordingReader::new(text.as_bytes(), "r").unwrap();
        assert!(reader.next_round().unwrap().is_some());
        assert!(reader.next_round().unwrap().is_some());
        assert!(reader.next_round().unwrap().is_none());
        assert!(!reader.truncated());
        let cut = &text[..text.len() - 3];
        let rec = parse_recording(cut, "r").unwrap();
        assert_eq!((rec.rounds.len(), rec.truncated), (1, true));
    }

    /// A ranked queue value that is not finite (a formula that overflows a 32-bit float under
    /// `--compat pbs` is `inf`, as PBS logs it) is written as a string and read back, never as
    /// `null` (which the reader refuses).
    #[test]
    fn queue_values_that_are_not_finite_round_trip() {
        let mut line = String::new();
        for v in [f64::INFINITY, f64::NEG_INFINITY, 2.5] {
            num(&mut line, v);
            line.push(' ');
        }
        assert_eq!(line, "\"inf\" \"-inf\" 2.5 ");
        let text = format!(
            "{}\n{{\"round\":0,\"time\":0,\"events\":[],\"queue\":[[\"a\",\"inf\"],[\"b\",\"-inf\"],[\"c\",2.5]],\"decisions\":[]}}\n",
            header()
        );
        let rec = parse_recording(&text, "r").unwrap();
        let values: Vec<f64> = rec.rounds[0].queue.iter().map(|q| q.1).collect();
        assert_eq!(values, [f64::INFINITY, f64::NEG_INFINITY, 2.5]);
    }
}
