//! Joining a job's records as they stream by: the live state of each job not yet ended,
//! dropped at its end (memory follows the jobs alive at once, not the records), and the
//! set of ended job ids (to tell a duplicated or late record from a new job).

use super::job::{ArrayRole, Fate, PbsJob, Requests, Where};
use super::record::{Line, attributes, find_byte, same, split_line};
use crate::workload::{JobId, LoadReport, Name, Names, WorkloadError};
use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use std::hash::Hasher;

/// A bad record: the reason it is counted under (`--lenient`), the whole message (strict),
/// and whether its job is dropped for it (counted as a dropped job, listed by its id) or
/// only the record, or one attribute of it, is skipped (counted as a record skipped: the
/// job, if any, is kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bad {
    pub reason: &'static str,
    pub detail: String,
    /// The id of the job dropped for it, when it drops one.
    pub drops_job: Option<Box<str>>,
}

impl Bad {
    /// A bad record (or attribute) that costs its job nothing more.
    pub fn new(reason: &'static str, detail: impl Into<String>) -> Bad {
        Bad {
            reason,
            detail: detail.into(),
            drops_job: None,
        }
    }

    /// The same, its job (`id`) dropped for it.
    pub fn dropping(self, id: &str) -> Bad {
        Bad {
            drops_job: Some(id.into()),
            ..self
        }
    }
}

/// Where the finished jobs go: each job once, with the line that finished it (`None` for
/// the jobs still open at the end of the logs). An `Err` is a bad record at that line.
pub trait JobSink {
    fn job(&mut self, job: Joined, at: Option<&Where>) -> Result<(), Bad>;
}

/// A job whose records are all read, as a sink gets it: its `Resource_List` values still
/// the list they were joined in ([`Joined::into_job`] puts them in the job's map).
pub struct Joined {
    pub job: Box<PbsJob>,
    pub requests: Requests,
}

impl Joined {
    pub fn into_job(self) -> PbsJob {
        let mut job = *self.job;
        job.resource_list = self
            .requests
            .iter()
            .map(|(r, v)| (r.clone(), v.to_string()))
            .collect();
        job
    }
}

struct Live {
    /// Boxed: a live job is moved into the map and out of it, and the joined job on to the
    /// sink, as a pointer (a `PbsJob` is a few hundred bytes).
    job: Box<PbsJob>,
    /// Its `Resource_List` values, handed over as they are ([`Joined`]).
    requests: Requests,
    running: bool,
    /// Hashes of the records seen (type and message), to tell a duplicated record.
    seen: Seen,
}

/// The hashes of a job's records: the usual three or four (Q, S, E) in place, more in a
/// list of their own.
#[derive(Default)]
struct Seen {
    first: [u64; 4],
    len: u8,
    more: Vec<u64>,
}

impl Seen {
    fn contains(&self, h: u64) -> bool {
        self.first[..self.len as usize].contains(&h) || self.more.contains(&h)
    }

    fn push(&mut self, h: u64) {
        match self.first.get_mut(self.len as usize) {
            Some(slot) => {
                *slot = h;
                self.len += 1;
            }
            None => self.more.push(h),
        }
    }
}

impl Live {
    fn new(id: &str, array: Option<ArrayRole>) -> Live {
        Live {
            job: Box::new(PbsJob::new(id, array)),
            requests: Requests::default(),
            running: false,
            seen: Seen::default(),
        }
    }

    fn into_job(self, fate: Fate) -> Joined {
        let mut job = self.job;
        job.fate = fate;
        Joined {
            job,
            requests: self.requests,
        }
    }
}

/// The record types that are counted and not joined, with what they are
/// (OpenPBS `src/include/acct.h`).
fn other_type(kind: u8) -> Option<&'static str> {
    Some(match kind {
        b'C' => "record type C (checkpointed)",
        b'M' => "record type M (moved to another server)",
        b'a' => "record type a (attributes altered)",
        b'z' => "record type z (suspended)",
        b'r' => "record type r (resumed)",
        b'u' => "record type u (phased job update)",
        b'c' => "record type c (phased job next phase)",
        b'e' => "record type e (phased job last phase)",
        b'P' => "record type P (provisioning start)",
        b'p' => "record type p (provisioning end)",
        b'L' => "record type L (floating licences)",
        b'U' => "record type U (reservation submitted)",
        b'Y' => "record type Y (reservation confirmed)",
        b'B' => "record type B (reservation begins)",
        b'K' => "record type K (reservation removed)",
        b'k' => "record type k (reservation removed by its owner)",
        b'F' => "record type F (reservation finished)",
        b's' => "record type s (start, assigned resources pruned)",
        _ => return None,
    })
}

/// The job id's part before the server suffix (`123[4].srv` → `123[4]`): the same job may
/// be written with and without it.
fn key_of(id: &str) -> &str {
    match find_byte(id.as_bytes(), b'.') {
        Some(dot) => &id[..dot],
        None => id,
    }
}

fn array_role(key: &str) -> Result<Option<ArrayRole>, String> {
    let Some(open) = key.find('[') else {
        return Ok(None);
    };
    let Some(inner) = key[open + 1..].strip_suffix(']') else {
        return Err(format!("job id `{key}` has an unclosed `[`"));
    };
    if inner.is_empty() {
        return Ok(Some(ArrayRole::Parent));
    }
    inner
        .parse()
        .map(|i| Some(ArrayRole::Subjob(i)))
        .map_err(|_| format!("job id `{key}`: `{inner}` is not an array index"))
}

fn epoch(key: &str, v: &str) -> Result<i64, Bad> {
    // Digits alone (as PBS writes a time) without `str::parse`'s sign and overflow steps;
    // the same value, and `str::parse` for any other text.
    let t = match crate::input::units::digits(v) {
        Some(n) => i64::try_from(n).ok(),
        None => v.parse::<i64>().ok(),
    };
    t.filter(|t| *t >= 0).ok_or_else(|| {
        Bad::new(
            "bad attribute value",
            format!("`{key}={v}` is not a time in epoch seconds"),
        )
    })
}

fn set(slot: &mut Option<String>, v: &str) {
    if !slot.as_deref().is_some_and(|old| same(old, v)) {
        *slot = Some(v.to_string());
    }
}

/// [`set`] for a name the jobs share.
fn set_name(slot: &mut Option<Name>, v: &str, names: &mut Names) {
    if !slot.as_deref().is_some_and(|old| same(old, v)) {
        *slot = Some(names.get(v));
    }
}

/// Apply one Q/S/E/R record's attributes to its job. A bad attribute is skipped and the
/// others applied; the first one is returned.
fn apply(live: &mut Live, message: &str, names: &mut Names) -> Option<Bad> {
    let mut first = None;
    let mut nth = 0;
    for kv in attributes(message) {
        if let Err(b) = apply_one(live, &mut nth, kv, names) {
            first.get_or_insert(b);
        }
    }
    first
}

/// The job attributes a record may hold besides its `Resource_List.*`, `resources_used.*`
/// and `resource_assigned.*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    User,
    Group,
    Account,
    Project,
    Queue,
    Jobname,
    ArrayIndices,
    Ctime,
    Qtime,
    Etime,
    Start,
    End,
    ExitStatus,
    RunCount,
    EligibleTime,
    ExecVnode,
    ExecHost,
    /// Known and not needed: job details, usage, and Torque's extras.
    Unused,
}

impl Key {
    /// The key `k` is: told by its length and first bytes (one jump, where a `match` on
    /// the text tries the keys one after the other), then compared whole.
    #[inline]
    fn of(k: &str) -> Option<Key> {
        use Key::*;
        let b = k.as_bytes();
        let (&first, &second) = (b.first()?, b.get(1)?);
        let (text, key) = match (b.len(), first) {
            (3, b'e') => ("end", End),
            (4, b'u') => ("user", User),
            (5, b'g') => ("group", Group),
            (5, b'q') if second == b'u' => ("queue", Queue),
            (5, b'q') => ("qtime", Qtime),
            (5, b'c') => ("ctime", Ctime),
            (5, b'e') => ("etime", Etime),
            (5, b's') => ("start", Start),
            (5, b'o') => ("owner", Unused),
            (6, b'r') => ("resvID", Unused),
            (6, b'd') => ("depend", Unused),
            (6, b'a') => ("alt_id", Unused),
            (7, b'a') => ("account", Account),
            (7, b'p') => ("project", Project),
            (7, b'j') => ("jobname", Jobname),
            (7, b's') => ("session", Unused),
            (8, b'g') => ("gridname", Unused),
            (8, b'r') => ("resvname", Unused),
            (9, b'r') => ("run_count", RunCount),
            (9, b'e') => ("exec_host", ExecHost),
            (10, b'e') => ("exec_vnode", ExecVnode),
            (11, b'E') => ("Exit_status", ExitStatus),
            (13, b'a') if second == b'r' => ("array_indices", ArrayIndices),
            (13, b'a') => ("accounting_id", Unused),
            (13, b'e') => ("eligible_time", EligibleTime),
            (17, b'u') => ("unique_node_count", Unused),
            (21, b't') => ("total_execution_slots", Unused),
            _ => return None,
        };
        same(k, text).then_some(key)
    }
}

/// One attribute; `nth` counts the record's `Resource_List` values.
fn apply_one(
    live: &mut Live,
    nth: &mut usize,
    kv: Result<(&str, &str), String>,
    names: &mut Names,
) -> Result<(), Bad> {
    let (k, v) = kv.map_err(|e| Bad::new("bad attribute", e))?;
    // The most frequent keys first: requests, then usage (which is not needed).
    if let Some(r) = k.strip_prefix("Resource_List.") {
        live.requests.set(*nth, r, v, names);
        *nth += 1;
        return Ok(());
    }
    if k.starts_with("resources_used.") || k.starts_with("resource_assigned.") {
        return Ok(());
    }
    let job = &mut live.job;
    match Key::of(k) {
        Some(Key::User) => set_name(&mut job.user, v, names),
        Some(Key::Group) => set_name(&mut job.group, v, names),
        Some(Key::Account) => set_name(&mut job.account, v, names),
        Some(Key::Project) => set_name(&mut job.project, v, names),
        Some(Key::Queue) => set_name(&mut job.queue, v, names),
        Some(Key::Jobname) => set(&mut job.jobname, v),
        Some(Key::ArrayIndices) => set(&mut job.array_indices, v),
        Some(Key::Ctime) => job.ctime = Some(epoch(k, v)?),
        Some(Key::Qtime) => job.qtime = Some(epoch(k, v)?),
        Some(Key::Etime) => job.etime = Some(epoch(k, v)?).filter(|&t| t > 0),
        // `start=0`: never set (ji_stime); E's `end` the time the record was written.
        Some(Key::Start) => job.start = Some(epoch(k, v)?).filter(|&t| t > 0).or(job.start),
        Some(Key::End) => job.end = Some(epoch(k, v)?).filter(|&t| t > 0),
        Some(Key::ExitStatus) => {
            job.exit_status = Some(v.parse().map_err(|_| {
                Bad::new(
                    "bad attribute value",
                    format!("`Exit_status={v}` is not an integer"),
                )
            })?)
        }
        Some(Key::RunCount) => {
            job.run_count = v.parse().map_err(|_| {
                Bad::new(
                    "bad attribute value",
                    format!("`run_count={v}` is not a whole number"),
                )
            })?
        }
        Some(Key::EligibleTime) => {
            let s = crate::input::units::parse_time(v)
                .map_err(|e| Bad::new("bad attribute value", format!("`{k}`: {e}")))?;
            job.eligible_time = Some(s.round() as i64);
        }
        Some(Key::ExecVnode) => set(&mut job.exec_vnode, v),
        Some(Key::ExecHost) => set(&mut job.exec_host, v),
        Some(Key::Unused) => {}
        None => {
            return Err(Bad::new(
                "unknown attribute",
                format!("unknown attribute `{k}`"),
            ));
        }
    }
    Ok(())
}

/// What one record did to its job: left it open, finished it, or ended it as a bad job
/// (its E does not make a run); a bad attribute alone leaves the rest of the record applied.
enum Step {
    Open(Option<Bad>),
    Finished(Fate, Option<Bad>),
    Bad(Bad),
}

/// Apply one Q/S/T/R/D/A/E record to its open job; `hash` is the record's ([`Joiner`]'s
/// `record`: none for an E).
fn step(live: &mut Live, line: &Line<'_>, hash: Option<u64>, names: &mut Names) -> Step {
    let kind = line.kind;
    if let Some(hash) = hash {
        if live.seen.contains(hash) {
            return Step::Open(Some(Bad::new(
                "duplicate record",
                format!(
                    "{} record of job `{}` repeats an earlier one",
                    kind as char, line.id
                ),
            )));
        }
        live.seen.push(hash);
    }
    match kind {
        b'Q' => Step::Open(apply(live, line.message, names)),
        b'S' | b'T' => {
            // T (restart from a checkpoint) is written instead of S and says nothing
            // more: E gives the start.
            live.job.start = None;
            let bad = if kind == b'S' {
                apply(live, line.message, names)
            } else {
                None
            };
            live.running = true;
            live.job.starts += 1;
            Step::Open(bad)
        }
        b'R' => {
            // The run is lost and the job queued again: its next S starts it anew.
            let bad = apply(live, line.message, names);
            live.job.start = None;
            live.job.end = None;
            live.running = false;
            live.job.reruns += 1;
            Step::Open(bad)
        }
        b'D' | b'A' if live.running => {
            // Deleted or aborted while running: the E follows.
            live.job.deleted_while_running = true;
            Step::Open(None)
        }
        b'D' => Step::Finished(Fate::DeletedQueued, None),
        b'A' => Step::Finished(Fate::AbortedQueued, None),
        _ => {
            let bad = apply(live, line.message, names);
            let j = &live.job;
            let Some(start) = j.start else {
                return Step::Bad(Bad::new(
                    "E without a start",
                    format!(
                        "E record of job `{}` without a start (no S record, no `start`)",
                        line.id
                    ),
                ));
            };
            let skew = match (j.end, j.qtime) {
                (None, _) => Some(("E without an end", "no `end`".to_string())),
                (Some(end), _) if end < start => Some((
                    "end before start",
                    format!("`end` {end} is before `start` {start} (clock skew?)"),
                )),
                (_, Some(q)) if start < q => Some((
                    "start before qtime",
                    format!("`start` {start} is before `qtime` {q} (clock skew?)"),
                )),
                _ => None,
            };
            match skew {
                Some((reason, what)) => Step::Bad(Bad::new(
                    reason,
                    format!("E record of job `{}`: {what}", line.id),
                )),
                None => Step::Finished(Fate::Ended, bad),
            }
        }
    }
}

/// The ids of the jobs that ended, to tell a late or repeated record from a new job: kept
/// for the whole read, so the usual ids (`123`, `123[4]`) are kept as numbers (8 or 16
/// bytes), any other as its text.
#[derive(Default)]
struct Ended {
    jobs: FxHashSet<u64>,
    subjobs: FxHashSet<(u64, u64)>,
    others: FxHashSet<Box<str>>,
}

/// A job id (without its server suffix) as [`Ended`] keeps it.
enum EndedId<'a> {
    Job(u64),
    Subjob(u64, u64),
    Other(&'a str),
}

/// A whole number written as PBS writes one (no sign, no leading zero), that fits.
fn number(s: &str) -> Option<u64> {
    if s.len() > 1 && s.starts_with('0') {
        return None;
    }
    // Past 19 digits only `str::parse` tells whether it fits.
    match crate::input::units::digits(s) {
        Some(n) => Some(n),
        None if s.bytes().all(|b| b.is_ascii_digit()) => s.parse().ok(),
        None => None,
    }
}

fn ended_id(key: &str) -> EndedId<'_> {
    if let Some(n) = number(key) {
        return EndedId::Job(n);
    }
    let sub = key.strip_suffix(']').and_then(|k| k.split_once('['));
    match sub.and_then(|(seq, i)| Some((number(seq)?, number(i)?))) {
        Some((seq, i)) => EndedId::Subjob(seq, i),
        None => EndedId::Other(key),
    }
}

impl Ended {
    fn has(&self, key: &str) -> bool {
        match ended_id(key) {
            EndedId::Job(n) => self.jobs.contains(&n),
            EndedId::Subjob(seq, i) => self.subjobs.contains(&(seq, i)),
            EndedId::Other(k) => self.others.contains(k),
        }
    }

    fn add(&mut self, key: &str) {
        match ended_id(key) {
            EndedId::Job(n) => self.jobs.insert(n),
            EndedId::Subjob(seq, i) => self.subjobs.insert((seq, i)),
            EndedId::Other(k) => self.others.insert(k.into()),
        };
    }
}

/// The joiner: feed it lines, then [`Joiner::finish`].
pub struct Joiner {
    lenient: bool,
    live: FxHashMap<JobId, Live>,
    ended: Ended,
    pub report: LoadReport,
    /// Records read (lines that were not empty).
    pub records: u64,
    /// The users', groups', accounts', projects', queues' and resources' names.
    names: Names,
}

impl Joiner {
    pub fn new(lenient: bool) -> Joiner {
        Joiner {
            lenient,
            live: FxHashMap::default(),
            ended: Ended::default(),
            report: LoadReport::default(),
            records: 0,
            names: Names::default(),
        }
    }

    /// A bad record: an error when strict; when lenient, counted under its reason as a
    /// dropped job when its job is dropped for it, else as a record skipped (so jobs read
    /// are always jobs kept plus jobs dropped).
    pub fn bad(&mut self, at: &Where, bad: Bad) -> Result<(), WorkloadError> {
        if self.lenient {
            if let Some(id) = &bad.drops_job {
                self.report.drop_job(id, bad.reason);
            } else {
                self.report.skip_record(bad.reason);
            }
            Ok(())
        } else {
            Err(WorkloadError::Line {
                file: at.file.to_string(),
                line: at.line,
                reason: bad.detail,
            })
        }
    }

    /// One line (without its newline).
    pub fn line(
        &mut self,
        text: &str,
        at: &Where,
        sink: &mut dyn JobSink,
    ) -> Result<(), WorkloadError> {
        if text.trim().is_empty() {
            return Ok(());
        }
        self.records += 1;
        match split_line(text) {
            Ok(line) => match self.record(line, at, sink) {
                Ok(()) => Ok(()),
                Err(b) => self.bad(at, b),
            },
            Err(e) => self.bad(at, Bad::new("not an accounting record", e)),
        }
    }

    fn record(&mut self, line: Line<'_>, at: &Where, sink: &mut dyn JobSink) -> Result<(), Bad> {
        let kind = line.kind;
        if !matches!(kind, b'Q' | b'S' | b'T' | b'E' | b'R' | b'D' | b'A') {
            return match other_type(kind) {
                Some(what) => {
                    self.report.skip_record(what);
                    Ok(())
                }
                None => Err(Bad::new(
                    "unknown record type",
                    format!("unknown record type `{}`", kind as char),
                )),
            };
        }
        let key = key_of(line.id);
        // An E always ends its job (a finished or a bad one), so no later record is compared
        // with it, and no earlier one can be the same record (it would have ended the job):
        // its hash, of its longest message, is not needed.
        let hash = (kind != b'E').then(|| {
            let mut h = FxHasher::default();
            h.write_u8(kind);
            h.write(line.message.as_bytes());
            h.finish()
        });
        // One look-up for a job already open; a new one is checked against the ended jobs.
        let step = match self.live.get_mut(key) {
            Some(live) => step(live, &line, hash, &mut self.names),
            None => {
                if self.ended.has(key) {
                    return Err(Bad::new(
                        "record after the job ended",
                        format!(
                            "{} record of job `{}` after its end (a duplicated record?)",
                            kind as char, line.id
                        ),
                    ));
                }
                let array = array_role(key).map_err(|e| Bad::new("bad job id", e))?;
                self.report.read += 1;
                let live = self
                    .live
                    .entry(key.into())
                    .or_insert_with(|| Live::new(line.id, array));
                step(live, &line, hash, &mut self.names)
            }
        };
        match step {
            Step::Open(bad) => bad.map_or(Ok(()), Err),
            Step::Finished(fate, bad) => {
                let job = self.end_job(key).expect("live").into_job(fate);
                // A job the sink refuses is dropped (its record's own bad attribute, if
                // any, is then not counted again).
                sink.job(job, Some(at)).map_err(|b| b.dropping(line.id))?;
                bad.map_or(Ok(()), Err)
            }
            Step::Bad(bad) => {
                self.end_job(key);
                Err(bad.dropping(line.id))
            }
        }
    }

    fn end_job(&mut self, key: &str) -> Option<Live> {
        let live = self.live.remove(key)?;
        self.ended.add(key);
        Some(live)
    }

    /// The end of the logs: the jobs still open are handed over as queued or running.
    pub fn finish(mut self, sink: &mut dyn JobSink) -> Result<LoadReport, WorkloadError> {
        let mut open: Vec<_> = self.live.drain().map(|(_, l)| l).collect();
        // A stable order for what is handed over (the map's is not).
        open.sort_by(|a, b| a.job.id.cmp(&b.job.id));
        for l in open {
            let fate = if l.running {
                Fate::RunningAtEnd
            } else {
                Fate::QueuedAtEnd
            };
            let id = l.job.id.clone();
            if let Err(b) = sink.job(l.into_job(fate), None) {
                // Only a finished job's line can be bad; open jobs are counted.
                self.report.drop_job(id.as_str(), b.reason);
            }
        }
        Ok(self.report)
    }
}

#[cfg(test)]
mod tests {
    use super::{Key, Seen};

    #[test]
    fn every_key_is_told_by_its_whole_text() {
        use Key::*;
        let keys = [
            ("user", User),
            ("group", Group),
            ("account", Account),
            ("project", Project),
            ("queue", Queue),
            ("jobname", Jobname),
            ("array_indices", ArrayIndices),
            ("ctime", Ctime),
            ("qtime", Qtime),
            ("etime", Etime),
            ("start", Start),
            ("end", End),
            ("Exit_status", ExitStatus),
            ("run_count", RunCount),
            ("eligible_time", EligibleTime),
            ("exec_vnode", ExecVnode),
            ("exec_host", ExecHost),
        ];
        let unused = [
            "accounting_id",
            "gridname",
            "resvname",
            "resvID",
            "depend",
            "session",
            "alt_id",
            "owner",
            "total_execution_slots",
            "unique_node_count",
        ];
        let all = keys
            .iter()
            .copied()
            .chain(unused.iter().map(|&k| (k, Unused)));
        for (text, key) in all {
            assert_eq!(Key::of(text), Some(key), "{text}");
            // One byte different anywhere, one more or one less: not a key.
            for i in 0..text.len() {
                let mut b = text.as_bytes().to_vec();
                b[i] = b'#';
                let other = String::from_utf8(b).unwrap();
                assert_eq!(Key::of(&other), None, "{other}");
            }
            assert_eq!(Key::of(&text[1..]), None, "{text}");
            assert_eq!(Key::of(&format!("{text}s")), None, "{text}");
        }
        for other in ["", "u", "User", "Resource_List.ncpus", "resources_used.mem"] {
            assert_eq!(Key::of(other), None, "{other}");
        }
    }

    #[test]
    fn seen_holds_every_hash_past_the_first_four() {
        let mut seen = Seen::default();
        for h in 1..=9 {
            assert!(!seen.contains(h), "{h}");
            seen.push(h);
            assert!((1..=h).all(|k| seen.contains(k)), "{h}");
        }
        assert!(!seen.contains(0) && !seen.contains(10));
    }
}
