//! How long jobs really run, learned from a site's history: each user's share of the
//! walltime they ask for.
//!
//! Jobs end before their walltime — most of them long before — and a scheduler plans with
//! the walltime, so a forecast that assumes full walltimes is late. The model here is the
//! simplest that uses what a site's accounting gives: for each user, the **median** of
//! `run time / requested walltime` over their finished jobs that gave a walltime (at least
//! [`MIN_JOBS`] of them; else every user's jobs together). A waiting job is predicted to
//! run that share of its walltime (at least a minute, at most the walltime). A running job
//! is predicted to end at its start plus that share of its walltime; one that has already
//! run past that is predicted to end halfway through what its walltime leaves.
//!
//! [`RuntimeModel::fit`] says how well the model predicts the history it was learned from
//! (median absolute error, in seconds and relative), so a site can judge it.

use super::plan::Runtimes;
use crate::model::snapshot::{PendingJob, Snapshot};
use crate::workload::{SimJob, Workload};
use std::collections::HashMap;

/// A user needs this many finished jobs with a walltime for a ratio of their own.
pub const MIN_JOBS: usize = 5;

/// Each user's median run-time share of the walltime.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RuntimeModel {
    /// By user name.
    pub users: HashMap<String, f64>,
    /// Every job's median: for users with too few jobs.
    pub overall: f64,
    /// Jobs it was learned from (finished, with a walltime).
    pub jobs: usize,
}

/// How well a model predicts the jobs it was learned from.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Fit {
    pub jobs: usize,
    /// Median |predicted − actual run time|, seconds, with the model and with full walltimes.
    pub median_error: f64,
    pub median_error_walltime: f64,
    /// Share of jobs predicted within 10 minutes, with the model and with full walltimes.
    pub within_10_min: f64,
    pub within_10_min_walltime: f64,
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 1.0;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

impl RuntimeModel {
    /// Learn from a workload's finished jobs that gave a walltime.
    pub fn learn(history: &Workload) -> RuntimeModel {
        RuntimeModel::learn_from(&history.jobs)
    }

    /// Learn from these finished jobs, those that gave a walltime (a part of a history: the
    /// jobs that had ended by some instant, for a forecast made then).
    pub fn learn_from<'a>(jobs: impl IntoIterator<Item = &'a SimJob>) -> RuntimeModel {
        let mut by_user: HashMap<&str, Vec<f64>> = HashMap::new();
        let mut all = Vec::new();
        for j in jobs {
            if !j.walltime_given() || j.walltime <= 0 {
                continue;
            }
            let ratio = (j.run as f64 / j.walltime as f64).clamp(0.0, 1.0);
            by_user.entry(j.user.as_str()).or_default().push(ratio);
            all.push(ratio);
        }
        let jobs = all.len();
        let overall = median(&mut all);
        let users = by_user
            .into_iter()
            .filter(|(_, v)| v.len() >= MIN_JOBS)
            .map(|(u, mut v)| (u.to_string(), median(&mut v)))
            .collect();
        RuntimeModel {
            users,
            overall,
            jobs,
        }
    }

    /// The share of its walltime a job of `user` runs.
    pub fn ratio(&self, user: Option<&str>) -> f64 {
        user.and_then(|u| self.users.get(u))
            .copied()
            .unwrap_or(self.overall)
    }

    /// A run time for a job of `user` asking `walltime`: its share, at least a minute, at
    /// most the walltime.
    pub fn predict(&self, user: Option<&str>, walltime: i64) -> i64 {
        ((self.ratio(user) * walltime as f64).round() as i64)
            .max(60)
            .min(walltime)
    }

    /// How well it predicts `history`'s jobs.
    pub fn fit(&self, history: &Workload) -> Fit {
        let mut e = Vec::new();
        let mut ew = Vec::new();
        for j in &history.jobs {
            if !j.walltime_given() || j.walltime <= 0 {
                continue;
            }
            let p = self.predict(Some(j.user.as_str()), j.walltime);
            e.push((p - j.run).abs() as f64);
            ew.push((j.walltime - j.run).abs() as f64);
        }
        let within = |v: &[f64]| {
            if v.is_empty() {
                0.0
            } else {
                v.iter().filter(|&&x| x <= 600.0).count() as f64 / v.len() as f64
            }
        };
        let (w1, w2) = (within(&e), within(&ew));
        Fit {
            jobs: e.len(),
            median_error: if e.is_empty() { 0.0 } else { median(&mut e) },
            median_error_walltime: if ew.is_empty() { 0.0 } else { median(&mut ew) },
            within_10_min: w1,
            within_10_min_walltime: w2,
        }
    }
}

impl Runtimes for RuntimeModel {
    fn running_end(&self, snap: &Snapshot, i: usize, now: i64) -> Option<i64> {
        let job = &snap.running[i];
        let end = job.planned_end()?;
        let w = job.walltime?;
        let predicted = job.start + self.predict(job.user.as_deref(), w);
        Some(if predicted > now {
            predicted
        } else {
            now + (end - now).max(0) / 2
        })
    }

    fn run_time(&self, job: &PendingJob, walltime: i64) -> i64 {
        self.predict(job.user.as_deref(), walltime)
    }
}

/// Each job's run time as a file gives it (`id,seconds` lines: its real or expected run
/// time): a plan with what is known of when jobs end, to tell a forecast's error from the
/// run-time assumption's, or to replay a recorded schedule from a snapshot of it. A job the
/// file does not list runs its whole walltime, the scheduler's assumption. A line names a job
/// by its id as the snapshot has it, or by the id before the server's suffix (`1234` for
/// `1234.srv`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KnownRuntimes {
    /// Seconds, by the id as written.
    pub by_id: HashMap<String, i64>,
}

/// A line of a run-times file that is not `id,seconds`: `file:line: what`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct RuntimesError {
    pub file: String,
    /// 1-based; 0 when the file cannot be read.
    pub line: usize,
    pub message: String,
}

impl KnownRuntimes {
    /// Read `path` ([`KnownRuntimes::parse`]).
    pub fn load(path: &std::path::Path) -> Result<KnownRuntimes, RuntimesError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| RuntimesError {
            file: file.clone(),
            line: 0,
            message: format!("cannot read: {e}"),
        })?;
        KnownRuntimes::parse(&text, &file)
    }

    /// One `id,seconds` line per job (spaces around either ignored; seconds a whole
    /// non-negative number); blank lines and lines starting with `#` are skipped, and a first
    /// line `id,seconds` is a header. A job listed twice, a line without a comma, an empty id
    /// or seconds that are no such number are errors at their line.
    pub fn parse(text: &str, file: &str) -> Result<KnownRuntimes, RuntimesError> {
        let mut by_id: HashMap<String, i64> = HashMap::new();
        let mut line_of: HashMap<String, usize> = HashMap::new();
        let err = |line: usize, message: String| RuntimesError {
            file: file.to_string(),
            line,
            message,
        };
        let mut first = true;
        for (k, raw) in text.lines().enumerate() {
            let n = k + 1;
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let header = first && line.replace(' ', "").eq_ignore_ascii_case("id,seconds");
            first = false;
            if header {
                continue;
            }
            let Some((id, secs)) = line.split_once(',') else {
                return Err(err(n, format!("`{line}` is not `id,seconds`")));
            };
            let (id, secs) = (id.trim(), secs.trim());
            if id.is_empty() {
                return Err(err(n, "no job id before the comma".into()));
            }
            let seconds = crate::input::units::digits(secs)
                .and_then(|s| i64::try_from(s).ok())
                .ok_or_else(|| {
                    err(
                        n,
                        format!("`{secs}` is not a run time in whole seconds (0 or more)"),
                    )
                })?;
            if let Some(at) = line_of.get(id) {
                return Err(err(
                    n,
                    format!("job {id} is listed twice (first at line {at})"),
                ));
            }
            line_of.insert(id.to_string(), n);
            by_id.insert(id.to_string(), seconds);
        }
        Ok(KnownRuntimes { by_id })
    }

    /// The run time the file gives the job `id`: listed as is, else by the id before its
    /// server's suffix.
    pub fn of(&self, id: &str) -> Option<i64> {
        self.by_id.get(id).copied().or_else(|| {
            let (number, _) = id.split_once('.')?;
            self.by_id.get(number).copied()
        })
    }

    /// The ids the file lists that name no job of `snap`, running or waiting (a misspelt
    /// id, a job of another capture), sorted.
    pub fn unmatched(&self, snap: &Snapshot) -> Vec<&str> {
        let mut named: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for id in snap
            .running
            .iter()
            .map(|j| j.id.as_str())
            .chain(snap.pending.iter().map(|j| j.id.as_str()))
        {
            named.insert(id);
            if let Some((number, _)) = id.split_once('.') {
                named.insert(number);
            }
        }
        let mut out: Vec<&str> = self
            .by_id
            .keys()
            .map(String::as_str)
            .filter(|id| !named.contains(id))
            .collect();
        out.sort_unstable();
        out
    }
}

impl Runtimes for KnownRuntimes {
    /// Its start plus its known run time (the planner keeps the end within its walltime and
    /// after the snapshot's instant); else its planned end.
    fn running_end(&self, snap: &Snapshot, i: usize, _now: i64) -> Option<i64> {
        let job = &snap.running[i];
        match self.of(&job.id) {
            Some(run) => Some(job.start.saturating_add(run)),
            None => job.planned_end(),
        }
    }

    fn run_time(&self, job: &PendingJob, walltime: i64) -> i64 {
        self.of(&job.id).unwrap_or(walltime)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A job is found by its id as written, else by the id before its server's suffix; the
    /// file's ids that name no job are listed.
    #[test]
    fn known_run_times_name_jobs_with_or_without_the_servers_suffix() {
        let known =
            KnownRuntimes::parse("id,seconds\n# a comment\n12.srv, 60\n13,90\n\n99,5\n", "rt")
                .unwrap();
        assert_eq!(known.of("12.srv"), Some(60));
        assert_eq!(known.of("13.srv"), Some(90));
        assert_eq!(known.of("12"), None);
        let mut snap = Snapshot::new(crate::model::snapshot::Scheduler::Pbs);
        for id in ["12.srv", "13.srv"] {
            snap.pending.push(PendingJob {
                id: id.into(),
                user: None,
                group: None,
                account: None,
                project: None,
                qos: None,
                queue: Vec::new(),
                submit: None,
                walltime: Some(3600),
                ask: crate::model::snapshot::Ask {
                    parts: vec![(1, vec![1, 0, 0])],
                    place: Default::default(),
                },
                priority: None,
                reason: None,
                hold: None,
            });
        }
        assert_eq!(known.unmatched(&snap), ["99"]);
        assert_eq!(known.run_time(&snap.pending[1], 3600), 90);
        let unlisted = KnownRuntimes::default();
        assert_eq!(unlisted.run_time(&snap.pending[1], 3600), 3600);
    }

    /// Only a first line may be the header; later it is a bad line.
    #[test]
    fn a_header_after_the_first_line_is_an_error() {
        let e = KnownRuntimes::parse("1,5\nid,seconds\n", "rt").unwrap_err();
        assert_eq!(
            e.to_string(),
            "rt:2: `seconds` is not a run time in whole seconds (0 or more)"
        );
    }
}
