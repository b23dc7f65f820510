//! Replaying a recording (SPEC §5.4).
//!
//! - [`verify`]: rebuild the job set from the recorded submit events, run the live scheduler
//!   with the recorded settings (or another formula) and compare, round by round (rounds are
//!   aligned by number), the round time, the events (submits and ends), the ranked queue (ids
//!   in order, values bit for bit) and every decision. Only complete rounds of a
//!   truncated recording (cut inside a line, or stopping before its jobs end) are compared; that is exact because a round depends only on jobs
//!   submitted up to it. [`Verifier`] does it a round at a time, for a recording read as it
//!   streams (the jobs first, [`RecordedJobs`], then the rounds).
//! - [`reconcile`]: follow the recording and evaluate another formula on the reconstructed
//!   state each round. A recorded `dispatch` captures the job at the round it was recorded,
//!   whatever its state (even still pending, before any RUN confirmation); capture sets it
//!   RUN in the same step, so its cores are charged from that round on. A later RUN event or
//!   a second dispatch of a captured job is a no-op; a job is captured at most once. A job
//!   with no recorded dispatch is never given an allocation: it is reported as uncaptured
//!   (usage unavailable) and the replay goes on. Cores are accounted in aggregate
//!   (`nodes × cores`), not per node.
//! - [`recording_from_trace`]: a real schedule (SWF `submit + wait`) as a recording.
//!
//! Files: this one the jobs and setup of a recording, `verify.rs`, `reconcile.rs` with
//! `kendall.rs` (the rank correlation it reports), `trace.rs` (a trace's schedule as a
//! recording).

mod kendall;
mod reconcile;
mod trace;
mod verify;

pub use kendall::kendall_tau;
pub use reconcile::{ReconcileReport, RoundReconcile, reconcile};
pub use trace::{Overcommit, check_capacity, recorded_metrics, recording_from_trace};
pub use verify::{Divergence, Verifier, VerifyReport, verify};

use super::record::{Header, RecDecision, RecEvent, Recording};
use super::scheduler::{Decision, SimError};
use super::setup::{Setup, SetupError};
use crate::workload::SimJob;

/// An error replaying.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReplayError {
    #[error("round {round}: {reason}")]
    Bad { round: u64, reason: String },
    /// The recorded settings (the header).
    #[error("header: {0}")]
    Setup(#[from] SetupError),
    #[error(transparent)]
    Sim(#[from] SimError),
}

/// The setup of a recording's jobs under its recorded settings: what `--verify` runs and
/// reconciliation follows.
pub fn recorded_setup(header: &Header, jobs: &[SimJob]) -> Result<Setup, ReplayError> {
    let machine = header
        .machine()
        .map_err(|reason| ReplayError::Bad { round: 0, reason })?;
    Ok(Setup::on_machine(&header.config(), jobs, machine)?)
}

/// The jobs of a recording's complete rounds, in submit order.
pub fn recorded_jobs(rec: &Recording) -> Result<Vec<SimJob>, ReplayError> {
    let mut jobs = RecordedJobs::default();
    for r in &rec.rounds {
        jobs.add(r.round, r.events.iter().cloned())?;
    }
    Ok(jobs.finish())
}

/// The jobs of a recording gathered round by round (as a
/// [`RecordingReader`](crate::sim::record::RecordingReader) reads them): each job once.
#[derive(Debug, Default)]
pub struct RecordedJobs {
    jobs: Vec<SimJob>,
    seen: std::collections::HashSet<String>,
}

impl RecordedJobs {
    /// The submits among the `events` of round `round`; a job submitted twice is an error.
    pub fn add(
        &mut self,
        round: u64,
        events: impl IntoIterator<Item = RecEvent>,
    ) -> Result<(), ReplayError> {
        for e in events {
            if let RecEvent::Submit(j) = e {
                if !self.seen.insert(j.id.to_string()) {
                    return Err(ReplayError::Bad {
                        round,
                        reason: format!("job `{}` submitted twice", j.id),
                    });
                }
                self.jobs.push(*j);
            }
        }
        Ok(())
    }

    /// The jobs in submit order.
    pub fn finish(self) -> Vec<SimJob> {
        let mut jobs = self.jobs;
        jobs.sort_by_key(|j| j.submit);
        jobs
    }
}

/// Live decision → recorded form (re-export for callers comparing by hand).
pub fn live_decision(jobs: &[SimJob], d: &Decision) -> RecDecision {
    RecDecision::from_live(jobs, d)
}
