//! `replay --verify`: the live scheduler against the recorded rounds.

use super::{ReplayError, recorded_jobs, recorded_setup};
use crate::sim::priority::Priority;
use crate::sim::record::{Changes, Header, RecDecision, RecEvent, RecRound, Recording};
use crate::sim::scheduler::{Event, EventKind, Simulator};
use crate::sim::setup::Setup;
use crate::workload::SimJob;

/// Where a verification first disagreed.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Divergence {
    pub round: u64,
    pub time: i64,
    /// The job of the first differing decision (`None` when the round itself differs).
    pub job: Option<String>,
    /// The recorded decision (or round time), as JSON text; `null` when absent.
    pub recorded: String,
    /// The live one.
    pub live: String,
}

/// The result of `replay --verify` (SPEC §6 `replay` shape plus detail).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct VerifyReport {
    /// Recorded rounds compared.
    pub rounds: u64,
    /// Recorded events (submits and ends) compared.
    pub events: u64,
    /// Recorded decisions compared.
    pub decisions: u64,
    /// Differing events and decisions (a missing, extra or moved event or decision counts
    /// once in each round it differs in; a round whose time differs counts once, and a round
    /// whose ranked queue differs — an id or a value's bits — once, plus its differing
    /// events and decisions; a round the live schedule has past the end of a complete
    /// recording counts as its decisions, at least one).
    pub mismatches: u64,
    pub first_divergence: Option<Divergence>,
    /// Rounds whose input hash differs (the formula values or the state differed).
    pub input_mismatches: u64,
    /// The recording stops before its schedule does: it ends mid-line, or before every job
    /// the header counts was submitted, or while a job it dispatched has not ended. Verified
    /// up to its last complete round.
    pub truncated: bool,
    /// How it stops early, when `truncated`.
    pub truncation: Option<String>,
    /// The formula the live scheduler used.
    pub formula: Option<String>,
}

impl VerifyReport {
    /// Count `n` mismatches; the first one seen is the first divergence.
    fn mismatch(&mut self, n: u64, divergence: impl FnOnce() -> Divergence) {
        self.mismatches += n;
        if self.first_divergence.is_none() {
            self.first_divergence = Some(divergence());
        }
    }
}

/// `replay --verify`: drive the recorded jobs through the live scheduler with the recorded
/// settings and `formula` (pass the recorded formula compiled, or another one) and compare.
pub fn verify(
    rec: &Recording,
    formula: Option<&dyn Priority>,
) -> Result<VerifyReport, ReplayError> {
    let jobs = recorded_jobs(rec)?;
    let setup = recorded_setup(&rec.header, &jobs)?;
    let mut v = Verifier::new(&jobs, &setup, formula, &rec.header)?;
    for r in &rec.rounds {
        v.round(r);
    }
    Ok(v.finish(rec.truncated))
}

/// [`verify`] one recorded round at a time, for a recording read as it streams
/// ([`RecordingReader`](crate::sim::record::RecordingReader)): the jobs come first (a first
/// pass, [`RecordedJobs`](super::RecordedJobs)), then the rounds in order.
pub struct Verifier<'a> {
    sim: Simulator<'a>,
    jobs: &'a [SimJob],
    report: VerifyReport,
    /// The recording lists the ranked queue of each round.
    queue: bool,
    /// A version-2 recording keeps only the changed decisions: the live ones are filtered
    /// the same way before they are compared.
    changes: Option<Changes>,
    /// The jobs the header says were simulated (0 where it does not say).
    header_jobs: usize,
    /// Recorded submits so far.
    submitted: usize,
    /// Jobs recorded as dispatched and not (yet) as ended.
    running: std::collections::HashSet<String>,
}

impl<'a> Verifier<'a> {
    /// The live scheduler over the recorded jobs (in submit order) and their setup, comparing
    /// rounds as `header`'s recording writes them (its version, with or without the queue).
    pub fn new(
        jobs: &'a [SimJob],
        setup: &'a Setup,
        formula: Option<&'a dyn Priority>,
        header: &Header,
    ) -> Result<Verifier<'a>, ReplayError> {
        Ok(Verifier {
            sim: Simulator::new(jobs, setup, formula)?.with_hashing(true),
            jobs,
            report: VerifyReport {
                rounds: 0,
                decisions: 0,
                mismatches: 0,
                first_divergence: None,
                input_mismatches: 0,
                truncated: false,
                truncation: None,
                formula: formula.map(|f| f.source().to_string()),
                events: 0,
            },
            queue: header.has_queue(),
            changes: (!header.every_decision()).then(Changes::default),
            header_jobs: header.trace.jobs,
            submitted: 0,
            running: Default::default(),
        })
    }

    /// Compare the next recorded round with the live one.
    pub fn round(&mut self, r: &RecRound) {
        let (jobs, report) = (self.jobs, &mut self.report);
        let null = || "null".to_string();
        let at = |job: Option<String>, recorded: String, live: String| Divergence {
            round: r.round,
            time: r.time,
            job,
            recorded,
            live,
        };
        report.rounds += 1;
        report.events += r.events.len() as u64;
        for e in &r.events {
            match e {
                RecEvent::Submit(_) => self.submitted += 1,
                RecEvent::End(id) => {
                    self.running.remove(id);
                }
                RecEvent::Run(_) => {}
            }
        }
        for d in &r.decisions {
            if let RecDecision::Dispatch { job, .. } = d {
                self.running.insert(job.clone());
            }
        }
        let live = self.sim.step();
        // Decisions compared: every decision of the round, also where the recording keeps
        // only the changes (the live round has them all).
        report.decisions += match (&live, &self.changes) {
            (Some(live), Some(_)) => live.decisions.len(),
            _ => r.decisions.len(),
        } as u64;
        let Some(live) = live else {
            report.mismatch(r.decisions.len().max(1) as u64, || {
                let first = r.decisions.first();
                at(
                    first.map(|d| d.job().to_string()),
                    first.map(|d| d.to_string()).unwrap_or_else(null),
                    "no round (the live schedule had already ended)".into(),
                )
            });
            return;
        };
        let inputs_differ = live.hash.is_some() && r.hash.is_some() && live.hash != r.hash;
        if inputs_differ {
            report.input_mismatches += 1;
        }
        if live.time != r.time || live.number != r.round {
            report.mismatch(1, || {
                at(
                    None,
                    format!("{{\"round\":{},\"time\":{}}}", r.round, r.time),
                    format!("{{\"round\":{},\"time\":{}}}", live.number, live.time),
                )
            });
        }
        if !self.queue && inputs_differ {
            // Without the queue, its ids and value bits are in the hash alone.
            report.mismatch(1, || {
                let hash = |h: &Option<String>| h.as_deref().unwrap_or("").to_string();
                at(
                    None,
                    format!("{{\"hash\":\"{}\"}}", hash(&r.hash)),
                    format!(
                        "{{\"hash\":\"{}\"}} (the ranked queue, a value or the free cores differ)",
                        hash(&live.hash)
                    ),
                )
            });
        }
        if self.queue
            && let Some((recorded, live_q)) = queue_divergence(&r.queue, &live.queue, jobs)
        {
            report.mismatch(1, || {
                at(
                    recorded.or(live_q).map(|(id, _)| id.to_string()),
                    recorded.map_or_else(null, queue_entry),
                    live_q.map_or_else(null, queue_entry),
                )
            });
        }
        let recorded: Vec<_> = r.events.iter().map(recorded_event).collect();
        let live_events: Vec<_> = live.events.iter().map(|e| live_event(jobs, e)).collect();
        if let Some(i) = (0..recorded.len().max(live_events.len()))
            .find(|&i| recorded.get(i) != live_events.get(i))
        {
            // Each event on one side only counts once (an end moved to another round: once
            // in each); the same events in another order, once.
            let mut count = rustc_hash::FxHashMap::default();
            for e in &recorded {
                *count.entry(e).or_insert(0i64) += 1;
            }
            for e in &live_events {
                *count.entry(e).or_insert(0i64) -= 1;
            }
            let n: u64 = count.values().map(|c| c.unsigned_abs()).sum();
            let text = |e: Option<&(&str, String)>| {
                e.map_or_else(null, |(kind, id)| {
                    format!("{{\"{kind}\":{}}}", serde_json::Value::from(id.as_str()))
                })
            };
            // The divergence shows an event on one side only (a recorded one first), else
            // the first position where the order differs.
            let (a, b) = match (
                recorded.iter().find(|e| count[e] > 0),
                live_events.iter().find(|e| count[e] < 0),
            ) {
                (Some(e), _) => (Some(e), None),
                (None, Some(e)) => (None, Some(e)),
                (None, None) => (recorded.get(i), live_events.get(i)),
            };
            report.mismatch(n.max(1), || {
                at(a.or(b).map(|(_, id)| id.clone()), text(a), text(b))
            });
        }
        let mut live_kept: Vec<RecDecision> = live
            .decisions
            .iter()
            .map(|d| RecDecision::from_live(jobs, d))
            .collect();
        if let Some(changes) = &mut self.changes {
            live_kept.retain(|d| changes.keep(d));
        }
        for i in 0..live_kept.len().max(r.decisions.len()) {
            let (a, b) = (r.decisions.get(i), live_kept.get(i));
            if a != b {
                report.mismatch(1, || {
                    at(
                        a.or(b).map(|d| d.job().to_string()),
                        a.map(|d| d.to_string()).unwrap_or_else(null),
                        b.map(|d| d.to_string()).unwrap_or_else(null),
                    )
                });
            }
        }
    }

    /// The report; `truncated`: the recording ended mid-line. A recording that stops before
    /// its jobs end (cut at a line's end: a crash between two rounds) is truncated too: it
    /// holds fewer submits than its header counts, or a job it dispatched has no end while
    /// the live schedule goes on. A complete recording whose live schedule goes on has a
    /// mismatch for each live round past its end.
    pub fn finish(mut self, truncated: bool) -> VerifyReport {
        let report = &mut self.report;
        let submitted = format!(
            "{} of the header's {} jobs submitted",
            self.submitted, self.header_jobs
        );
        report.truncation = if truncated {
            Some("it ends in the middle of a line".into())
        } else if self.submitted < self.header_jobs {
            Some(format!("it ends before its jobs do: {submitted}"))
        } else {
            None
        };
        let mut next = match report.truncation {
            Some(_) => None,
            None => self.sim.step(),
        };
        if next.is_some() && !self.running.is_empty() {
            report.truncation = Some(format!(
                "it ends before its jobs do: {submitted}, {} dispatched without an end",
                self.running.len()
            ));
            next = None;
        }
        report.truncated = report.truncation.is_some();
        while let Some(live) = next {
            let mut kept: Vec<RecDecision> = live
                .decisions
                .iter()
                .map(|d| RecDecision::from_live(self.jobs, d))
                .collect();
            if let Some(changes) = &mut self.changes {
                kept.retain(|d| changes.keep(d));
            }
            let (round, time) = (live.number, live.time);
            report.mismatch(kept.len().max(1) as u64, || Divergence {
                round,
                time,
                job: kept.first().map(|d| d.job().to_string()),
                recorded: "no round (the recording had ended)".into(),
                live: kept.first().map_or_else(
                    || format!("{{\"round\":{round},\"time\":{time}}}"),
                    |d| d.to_string(),
                ),
            });
            next = self.sim.step();
        }
        self.report
    }
}

/// A recorded event as `(kind, job id)`, the kind as the recording names it.
fn recorded_event(e: &RecEvent) -> (&'static str, String) {
    match e {
        RecEvent::Submit(j) => ("submit", j.id.to_string()),
        RecEvent::End(id) => ("end", id.clone()),
        RecEvent::Run(id) => ("run", id.clone()),
    }
}

/// A live event as [`recorded_event`] gives a recorded one.
fn live_event(jobs: &[SimJob], e: &Event) -> (&'static str, String) {
    let kind = match e.kind {
        EventKind::Submit => "submit",
        EventKind::End => "end",
    };
    (kind, jobs[e.job as usize].id.to_string())
}

/// One side's entry at a position of the ranked queue: `(id, value)`, `None` past its end.
type QueueEntry<'a> = Option<(&'a str, f64)>;

/// The first entry where a recorded queue and the live one differ, as `(recorded, live)`
/// (`None` on the side that has no entry there); `None` when they agree. Values are compared
/// bit for bit: both sides are the same `f64` written as its shortest round-trip text, so
/// equal bits are the exact test (`0.0` and `-0.0` differ, as they do in the text).
fn queue_divergence<'a>(
    recorded: &'a [(String, f64)],
    live: &[(u32, f64)],
    jobs: &'a [SimJob],
) -> Option<(QueueEntry<'a>, QueueEntry<'a>)> {
    let n = recorded.len().max(live.len());
    (0..n).find_map(|i| {
        let a = recorded.get(i).map(|(id, v)| (id.as_str(), *v));
        let b = live.get(i).map(|&(j, v)| (jobs[j as usize].id.as_str(), v));
        let same = match (a, b) {
            (Some((x, u)), Some((y, v))) => x == y && u.to_bits() == v.to_bits(),
            _ => false,
        };
        (!same).then_some((a, b))
    })
}

/// A queue entry as the recording writes it: `["id",value]`.
fn queue_entry((id, value): (&str, f64)) -> String {
    let v = crate::jobs::units::value_json(value).to_string();
    format!("[{},{v}]", serde_json::Value::from(id))
}
