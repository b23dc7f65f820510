//! How close a simulated schedule comes to the one the trace recorded (`jobsort sim
//! --fidelity`): the start-time error of every job both schedules started, the mean wait of
//! each, and the jobs that differ most.
//!
//! A job is compared when the trace recorded its start (SWF `submit + wait`, an accounting
//! log's `S` record) and the simulation started it too; the others are counted. The error of
//! a job is `simulated start − recorded start` in seconds (negative: the simulation started it
//! earlier). Percentiles are [`metrics::percentile`]'s (linear interpolation); both mean waits
//! are over the compared jobs only, so they are over the same set.
//!
//! What a trace does not record (downtime, reservations, held jobs, limits, node pools) shows
//! in two sums over the recorded schedule: [`Fidelity::recorded_idle_waiting`], the time no
//! core was in use while a job waited, which no scheduler does on the cluster the simulation
//! is given; and [`Fidelity::recorded_head_fits`], the time the oldest waiting job fit in the
//! free cores and still waited, which first-come-first-served and EASY never do (a priority
//! order may: its top job can be another).

use super::metrics;
#[cfg(test)]
use crate::workload::Name;
use crate::workload::SimJob;

/// A job within this many seconds of its recorded start counts as "within a minute".
pub const WITHIN: i64 = 60;

/// The comparison of one run with the recorded schedule.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Fidelity {
    /// Jobs with a recorded and a simulated start.
    pub compared: usize,
    /// Jobs the trace recorded no start for (not compared).
    pub not_recorded: usize,
    /// Jobs the trace started that the simulation never started (not compared).
    pub not_simulated: usize,
    /// `|simulated − recorded|` start, seconds: mean, median, 95th percentile, largest.
    pub mean_abs_error: f64,
    pub median_abs_error: f64,
    pub p95_abs_error: f64,
    pub max_abs_error: f64,
    /// Mean of `simulated − recorded` (negative: the simulation starts jobs early).
    pub mean_error: f64,
    /// Share of the compared jobs within [`WITHIN`] seconds of their recorded start.
    pub within_minute: f64,
    /// Mean wait (start − submit) of the compared jobs in each schedule, seconds.
    pub mean_wait_recorded: f64,
    pub mean_wait_simulated: f64,
    /// `(simulated − recorded) / recorded` mean wait; `None` when the recorded mean is 0.
    pub mean_wait_error: Option<f64>,
    /// Seconds during which the recorded schedule had no core in use and a job waiting.
    pub recorded_idle_waiting: i64,
    /// Seconds during which the recorded schedule's oldest waiting job (by submit time) fit
    /// in the cluster's free cores (counted in aggregate) and still waited, and the seconds
    /// from its first submit to its last end.
    pub recorded_head_fits: i64,
    pub recorded_span: i64,
    /// The jobs whose starts differ most, largest first.
    pub largest: Vec<Divergence>,
}

/// One job's two starts.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Divergence {
    pub id: String,
    pub user: String,
    pub cores: u64,
    pub submit: i64,
    pub recorded_wait: i64,
    pub simulated_wait: i64,
    /// `simulated − recorded` start (s).
    pub error: i64,
}

/// Compare a run's starts (`start[i]` for `jobs[i]`, `None`: never started) with the recorded
/// ones on a cluster of `capacity` cores, listing the `largest` jobs that differ most (ties:
/// the earlier job in the trace).
pub fn compare(jobs: &[SimJob], start: &[Option<i64>], capacity: u64, largest: usize) -> Fidelity {
    let mut errors: Vec<(i64, usize)> = Vec::with_capacity(jobs.len());
    let (mut not_recorded, mut not_simulated) = (0, 0);
    let (mut wait_recorded, mut wait_simulated) = (0i128, 0i128);
    for (i, (job, sim)) in jobs.iter().zip(start).enumerate() {
        match (job.recorded_start(), *sim) {
            (None, _) => not_recorded += 1,
            (Some(_), None) => not_simulated += 1,
            (Some(rec), Some(sim)) => {
                errors.push((sim - rec, i));
                wait_recorded += i128::from(rec - job.submit);
                wait_simulated += i128::from(sim - job.submit);
            }
        }
    }
    let n = errors.len();
    let per_job = |total: i128| if n == 0 { 0.0 } else { total as f64 / n as f64 };
    let signed: i128 = errors.iter().map(|&(e, _)| i128::from(e)).sum();
    let mut abs: Vec<f64> = errors
        .iter()
        .map(|&(e, _)| e.unsigned_abs() as f64)
        .collect();
    let within = abs.iter().filter(|&&e| e <= WITHIN as f64).count();
    let mean_abs = if n == 0 {
        0.0
    } else {
        abs.iter().sum::<f64>() / n as f64
    };
    let max_abs = abs.iter().copied().fold(0.0, f64::max);
    let median = metrics::percentile_select(&mut abs, 0.5);
    let p95 = metrics::percentile_select(&mut abs, 0.95);
    let (mean_wait_recorded, mean_wait_simulated) =
        (per_job(wait_recorded), per_job(wait_simulated));
    let (recorded_idle_waiting, recorded_head_fits, recorded_span) = gaps(jobs, capacity);
    // Largest |error| first, then trace order.
    errors.sort_unstable_by_key(|&(e, i)| (std::cmp::Reverse(e.unsigned_abs()), i));
    errors.truncate(largest);
    Fidelity {
        compared: n,
        not_recorded,
        not_simulated,
        mean_abs_error: mean_abs,
        median_abs_error: median,
        p95_abs_error: p95,
        max_abs_error: max_abs,
        mean_error: per_job(signed),
        within_minute: if n == 0 {
            0.0
        } else {
            within as f64 / n as f64
        },
        mean_wait_recorded,
        mean_wait_simulated,
        mean_wait_error: (mean_wait_recorded != 0.0)
            .then(|| (mean_wait_simulated - mean_wait_recorded) / mean_wait_recorded),
        recorded_idle_waiting,
        recorded_head_fits,
        recorded_span,
        largest: errors
            .into_iter()
            .map(|(error, i)| {
                let j = &jobs[i];
                let rec = j.recorded_start().unwrap_or(j.submit);
                Divergence {
                    id: j.id.to_string(),
                    user: j.user.to_string(),
                    cores: j.request.total_cores(),
                    submit: j.submit,
                    recorded_wait: rec - j.submit,
                    simulated_wait: rec + error - j.submit,
                    error,
                }
            })
            .collect(),
    }
}

/// [`Fidelity::recorded_idle_waiting`], [`Fidelity::recorded_head_fits`] and
/// [`Fidelity::recorded_span`] over the jobs with a recorded start. At one time, ends free
/// cores before submits queue jobs and starts take them.
fn gaps(jobs: &[SimJob], capacity: u64) -> (i64, i64, i64) {
    #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    enum Event {
        End,
        Submit,
        Start,
    }
    let mut events: Vec<(i64, Event, usize)> = Vec::with_capacity(3 * jobs.len());
    for (i, j) in jobs.iter().enumerate() {
        if let Some(s) = j.recorded_start() {
            events.push((j.submit, Event::Submit, i));
            events.push((s, Event::Start, i));
            events.push((s + j.run, Event::End, i));
        }
    }
    events.sort_unstable();
    // Waiting jobs by (submit, index): the first is the oldest.
    let mut waiting: std::collections::BTreeSet<(i64, usize)> = Default::default();
    let (mut used, mut idle, mut fits) = (0u64, 0i64, 0i64);
    let mut last = None;
    for &(t, event, i) in &events {
        if let (Some(last), Some(&(_, head))) = (last, waiting.first())
            && t > last
        {
            if used == 0 {
                idle += t - last;
            }
            if capacity.saturating_sub(used) >= jobs[head].request.total_cores() {
                fits += t - last;
            }
        }
        last = Some(t);
        let j = &jobs[i];
        match event {
            Event::End => used = used.saturating_sub(j.request.total_cores()),
            Event::Submit => {
                waiting.insert((j.submit, i));
            }
            Event::Start => {
                waiting.remove(&(j.submit, i));
                used += j.request.total_cores();
            }
        }
    }
    let span = match (events.first(), events.last()) {
        (Some(a), Some(b)) => b.0 - a.0,
        _ => 0,
    };
    (idle, fits, span)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Request;

    fn job(id: &str, submit: i64, recorded: Option<i64>) -> SimJob {
        SimJob::from(crate::sim::JobSpec {
            id: id.into(),
            submit,
            run: 10,
            walltime: 10,
            walltime_given: false,
            request: Request::Procs(2),
            mem: 0.0,
            user: format!("u{id}").into(),
            group: Name::default(),
            account: "".into(),
            qos: "".into(),
            queue: Name::default(),
            queue_priority: 0.0,
            resources: Default::default(),
            recorded_start: recorded,
        })
    }

    #[test]
    fn errors_waits_and_the_largest_divergences_by_hand() {
        // Recorded starts 0+5, 10+0, 20+100, 30+40; a job with no record; one the
        // simulation never started.
        let jobs = [
            job("1", 0, Some(5)),
            job("2", 10, Some(10)),
            job("3", 20, Some(120)),
            job("4", 30, Some(70)),
            job("5", 40, None),
            job("6", 50, Some(60)),
        ];
        // Errors: +0, +90, -100, -10.
        let start = [Some(5), Some(100), Some(20), Some(60), Some(45), None];
        let f = compare(&jobs, &start, 100, 2);
        assert_eq!((f.compared, f.not_recorded, f.not_simulated), (4, 1, 1));
        assert_eq!(f.mean_abs_error, 50.0); // (0 + 90 + 100 + 10) / 4
        // |errors| sorted 0, 10, 90, 100: median (10 + 90) / 2; p95 at h = 2.85.
        assert_eq!(f.median_abs_error, 50.0);
        assert!((f.p95_abs_error - (90.0 + 0.85 * 10.0)).abs() < 1e-9);
        assert_eq!(f.max_abs_error, 100.0);
        assert_eq!(f.mean_error, -5.0); // (0 + 90 - 100 - 10) / 4
        assert_eq!(f.within_minute, 0.5);
        // Recorded waits 5, 0, 100, 40; simulated 5, 90, 0, 30.
        assert_eq!(
            (f.mean_wait_recorded, f.mean_wait_simulated),
            (36.25, 31.25)
        );
        assert_eq!(f.mean_wait_error, Some(-5.0 / 36.25));
        let ids: Vec<(&str, i64, i64, i64)> = f
            .largest
            .iter()
            .map(|d| (d.id.as_str(), d.recorded_wait, d.simulated_wait, d.error))
            .collect();
        assert_eq!(ids, [("3", 100, 0, -100), ("2", 0, 90, 90)]);
        // 100 cores: every waiting job always fit; waits [0,5) [20,120) [30,70) [50,60),
        // by the oldest waiting job: [0,5), then [20,120).
        assert_eq!((f.recorded_head_fits, f.recorded_span), (105, 130));
        // Recorded runs [5,15) [10,20) [120,130) [70,80) [60,70): idle with a job waiting
        // in [0,5), [20,60) and [80,120).
        assert_eq!(f.recorded_idle_waiting, 5 + 40 + 40);
    }

    #[test]
    fn the_recorded_head_fits_only_while_its_cores_are_free() {
        // Two cores, two-core jobs (`job` asks for 2): job 1 runs [0,50); job 2, submitted
        // at 10, waits for it and starts at 50: it never fit while it waited. Job 3,
        // submitted at 100, starts at 130 on an idle cluster: it fit for 30 s.
        let mut jobs = [
            job("1", 0, Some(0)),
            job("2", 10, Some(50)),
            job("3", 100, Some(130)),
        ];
        jobs[0].run = 50;
        let f = compare(&jobs, &[Some(0), Some(50), Some(100)], 2, 10);
        assert_eq!((f.recorded_head_fits, f.recorded_span), (30, 140));
        assert_eq!(f.recorded_idle_waiting, 30);
        let f = compare(&jobs, &[Some(0), Some(50), Some(100)], 4, 10);
        assert_eq!(f.recorded_head_fits, 40 + 30);
    }

    #[test]
    fn nothing_to_compare_is_zeros_not_nan() {
        let f = compare(&[job("1", 0, None)], &[Some(3)], 4, 10);
        assert_eq!((f.compared, f.not_recorded), (0, 1));
        assert_eq!(
            (f.mean_abs_error, f.median_abs_error, f.within_minute),
            (0.0, 0.0, 0.0)
        );
        assert_eq!(f.mean_wait_error, None);
        assert!(f.largest.is_empty());
    }
}
