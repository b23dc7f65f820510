//! Joining a job's records as they stream by: the live state of each job not yet ended,
//! dropped at its end (memory follows the jobs alive at once, not the records), and the
//! set of ended job ids (to tell a duplicated or late record from a new job).

use super::job::{ArrayRole, Fate, PbsJob, Where};
use super::record::{Line, attributes, split_line};
use crate::sim::workload::{LoadReport, WorkloadError};
use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use std::hash::Hasher;

/// A bad record: the reason it is counted under (`--lenient`) and the whole message
/// (strict).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bad {
    pub reason: &'static str,
    pub detail: String,
}

impl Bad {
    pub fn new(reason: &'static str, detail: impl Into<String>) -> Bad {
        Bad {
            reason,
            detail: detail.into(),
        }
    }
}

/// Where the finished jobs go: each job once, with the line that finished it (`None` for
/// the jobs still open at the end of the logs). An `Err` is a bad record at that line.
pub trait JobSink {
    fn job(&mut self, job: PbsJob, at: Option<&Where>) -> Result<(), Bad>;
}

struct Live {
    job: PbsJob,
    running: bool,
    /// Hashes of the records seen (type and message), to tell a duplicated record.
    seen: Vec<u64>,
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
    match id.find('.') {
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
    v.parse::<i64>().ok().filter(|t| *t >= 0).ok_or_else(|| {
        Bad::new(
            "bad attribute value",
            format!("`{key}={v}` is not a time in epoch seconds"),
        )
    })
}

fn set(slot: &mut Option<String>, v: &str) {
    if slot.as_deref() != Some(v) {
        *slot = Some(v.to_string());
    }
}

/// Apply one Q/S/E/R record's attributes to `job`. A bad attribute is skipped and the
/// others applied; the first one is returned.
fn apply(job: &mut PbsJob, message: &str) -> Option<Bad> {
    let mut first = None;
    for kv in attributes(message) {
        if let Err(b) = apply_one(job, kv) {
            first.get_or_insert(b);
        }
    }
    first
}

fn apply_one(job: &mut PbsJob, kv: Result<(&str, &str), String>) -> Result<(), Bad> {
    let (k, v) = kv.map_err(|e| Bad::new("bad attribute", e))?;
    // The most frequent keys first: requests, then usage (which is not needed).
    if let Some(r) = k.strip_prefix("Resource_List.") {
        if job.resource_list.get(r).map(String::as_str) != Some(v) {
            job.resource_list.insert(r.to_string(), v.to_string());
        }
        return Ok(());
    }
    if k.starts_with("resources_used.") || k.starts_with("resource_assigned.") {
        return Ok(());
    }
    {
        match k {
            "user" => set(&mut job.user, v),
            "group" => set(&mut job.group, v),
            "account" => set(&mut job.account, v),
            "project" => set(&mut job.project, v),
            "queue" => set(&mut job.queue, v),
            "jobname" => set(&mut job.jobname, v),
            "array_indices" => set(&mut job.array_indices, v),
            "ctime" => job.ctime = Some(epoch(k, v)?),
            "qtime" => job.qtime = Some(epoch(k, v)?),
            "etime" => job.etime = Some(epoch(k, v)?).filter(|&t| t > 0),
            // `start=0`: never set (ji_stime); E's `end` the time the record was written.
            "start" => job.start = Some(epoch(k, v)?).filter(|&t| t > 0).or(job.start),
            "end" => job.end = Some(epoch(k, v)?).filter(|&t| t > 0),
            "Exit_status" => {
                job.exit_status = Some(v.parse().map_err(|_| {
                    Bad::new(
                        "bad attribute value",
                        format!("`Exit_status={v}` is not an integer"),
                    )
                })?)
            }
            "run_count" => {
                job.run_count = v.parse().map_err(|_| {
                    Bad::new(
                        "bad attribute value",
                        format!("`run_count={v}` is not a whole number"),
                    )
                })?
            }
            "eligible_time" => {
                let s = crate::jobs::units::parse_time(v)
                    .map_err(|e| Bad::new("bad attribute value", format!("`{k}`: {e}")))?;
                job.eligible_time = Some(s.round() as i64);
            }
            "exec_vnode" => set(&mut job.exec_vnode, v),
            "exec_host" => set(&mut job.exec_host, v),
            // Known and not needed: job details, usage, and Torque's extras.
            "accounting_id"
            | "gridname"
            | "resvname"
            | "resvID"
            | "depend"
            | "session"
            | "alt_id"
            | "owner"
            | "total_execution_slots"
            | "unique_node_count" => {}
            _ => {
                if let Some(r) = k.strip_prefix("Resource_List.") {
                    if job.resource_list.get(r).map(String::as_str) != Some(v) {
                        job.resource_list.insert(r.to_string(), v.to_string());
                    }
                } else if !(k.starts_with("resources_used.") || k.starts_with("resource_assigned."))
                {
                    return Err(Bad::new(
                        "unknown attribute",
                        format!("unknown attribute `{k}`"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The joiner: feed it lines, then [`Joiner::finish`].
pub struct Joiner {
    lenient: bool,
    live: FxHashMap<Box<str>, Live>,
    ended: FxHashSet<Box<str>>,
    pub report: LoadReport,
    /// Records read (lines that were not empty).
    pub records: u64,
}

impl Joiner {
    pub fn new(lenient: bool) -> Joiner {
        Joiner {
            lenient,
            live: FxHashMap::default(),
            ended: FxHashSet::default(),
            report: LoadReport::default(),
            records: 0,
        }
    }

    /// A bad record: an error when strict, counted under its reason when lenient.
    pub fn bad(&mut self, at: &Where, bad: Bad) -> Result<(), WorkloadError> {
        if self.lenient {
            self.report.drop_job(bad.reason);
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
                Some(reason) => {
                    self.report.drop_job(reason);
                    Ok(())
                }
                None => Err(Bad::new(
                    "unknown record type",
                    format!("unknown record type `{}`", kind as char),
                )),
            };
        }
        let key = key_of(line.id);
        if self.ended.contains(key) {
            return Err(Bad::new(
                "record after the job ended",
                format!(
                    "{} record of job `{}` after its end (a duplicated record?)",
                    kind as char, line.id
                ),
            ));
        }
        let mut h = FxHasher::default();
        h.write_u8(kind);
        h.write(line.message.as_bytes());
        let hash = h.finish();
        if !self.live.contains_key(key) {
            let array = array_role(key).map_err(|e| Bad::new("bad job id", e))?;
            self.report.read += 1;
            self.live.insert(
                key.into(),
                Live {
                    job: PbsJob::new(line.id, array),
                    running: false,
                    seen: Vec::new(),
                },
            );
        }
        let live = self.live.get_mut(key).expect("inserted above");
        if live.seen.contains(&hash) {
            return Err(Bad::new(
                "duplicate record",
                format!(
                    "{} record of job `{}` repeats an earlier one",
                    kind as char, line.id
                ),
            ));
        }
        live.seen.push(hash);
        let mut bad = None;
        let finished = match kind {
            b'Q' => {
                bad = apply(&mut live.job, line.message);
                None
            }
            b'S' | b'T' => {
                // T (restart from a checkpoint) is written instead of S and says nothing
                // more: E gives the start.
                live.job.start = None;
                if kind == b'S' {
                    bad = apply(&mut live.job, line.message);
                }
                live.running = true;
                live.job.starts += 1;
                None
            }
            b'R' => {
                // The run is lost and the job queued again: its next S starts it anew.
                bad = apply(&mut live.job, line.message);
                live.job.start = None;
                live.job.end = None;
                live.running = false;
                live.job.reruns += 1;
                None
            }
            b'D' | b'A' if live.running => {
                // Deleted or aborted while running: the E follows.
                live.job.deleted_while_running = true;
                None
            }
            b'D' => Some(Fate::DeletedQueued),
            b'A' => Some(Fate::AbortedQueued),
            _ => {
                bad = apply(&mut live.job, line.message);
                let j = &live.job;
                let Some(start) = j.start else {
                    let e = format!(
                        "E record of job `{}` without a start (no S record, no `start`)",
                        line.id
                    );
                    self.end_job(key);
                    return Err(Bad::new("E without a start", e));
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
                if let Some((reason, what)) = skew {
                    self.end_job(key);
                    return Err(Bad::new(
                        reason,
                        format!("E record of job `{}`: {what}", line.id),
                    ));
                }
                Some(Fate::Ended)
            }
        };
        if let Some(fate) = finished {
            let mut job = self.end_job(key).expect("live").job;
            job.fate = fate;
            sink.job(job, Some(at))?;
        }
        bad.map_or(Ok(()), Err)
    }

    fn end_job(&mut self, key: &str) -> Option<Live> {
        let (k, live) = self.live.remove_entry(key)?;
        self.ended.insert(k);
        Some(live)
    }

    /// The end of the logs: the jobs still open are handed over as queued or running.
    pub fn finish(mut self, sink: &mut dyn JobSink) -> Result<LoadReport, WorkloadError> {
        let mut open: Vec<_> = self.live.drain().map(|(_, l)| l).collect();
        // A stable order for what is handed over (the map's is not).
        open.sort_by(|a, b| a.job.id.cmp(&b.job.id));
        for mut l in open {
            l.job.fate = if l.running {
                Fate::RunningAtEnd
            } else {
                Fate::QueuedAtEnd
            };
            if let Err(b) = sink.job(l.job, None) {
                // Only a finished job's line can be bad; open jobs are counted.
                self.report.drop_job(b.reason);
            }
        }
        Ok(self.report)
    }
}
