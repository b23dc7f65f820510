//! Metrics of a run (SPEC §5.5; definitions in `reference/simulators.md` §2).
//!
//! Over the jobs that started, with `w = start − submit`, `r = end − start` (the simulated run,
//! i.e. after the kill at the requested time), `p` = cores:
//! - wait: mean, median, p95;
//! - bounded slowdown `max((w + r) / max(r, τ), 1)` with τ = 10 s: mean, p95;
//! - utilization `Σ p·r / (P · (last end − first submit))`;
//! - makespan `last end − first submit`;
//! - Jain's index `(Σx)² / (n·Σx²)` over per-user mean waits (1 when every mean is 0): how
//!   alike the users' waits are, not whether each got its due — under fairshare a heavy user
//!   waits longer by design, so it falls as the fairshare weight grows;
//! - Jain's index over per-user mean bounded slowdowns: how alike the users' waits are
//!   relative to the length of their jobs (a user of long jobs waiting long is not counted
//!   as treated worse);
//! - per-entity delivered share `Σ p·r of the entity / Σ p·r` vs its target share.
//!
//! Percentiles use linear interpolation between closest ranks (NumPy's default): for sorted
//! `x[0..n]`, `q` in [0, 1], position `h = (n − 1)·q`, value
//! `x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋])`.

use crate::pbs::share::number_first_seen;
use crate::workload::{Name, SimJob};

/// The bounded-slowdown threshold τ (seconds).
pub const BSLD_TAU: f64 = 10.0;

/// The metrics of one run (SPEC §6 `metrics` object).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct Metrics {
    pub mean_wait: f64,
    pub median_wait: f64,
    pub p95_wait: f64,
    pub mean_bsld: f64,
    pub p95_bsld: f64,
    pub utilization: f64,
    pub makespan: f64,
    pub jain_user_wait: f64,
    pub jain_user_bsld: f64,
}

/// Delivered vs target share of one entity.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ShareRow {
    pub entity: String,
    pub target: f64,
    pub delivered: f64,
}

/// A job's bounded slowdown `max((w + r) / max(r, τ), 1)`: its wait `w` and run `r` in
/// seconds, τ = [`BSLD_TAU`].
pub fn bounded_slowdown(wait: f64, run: f64) -> f64 {
    ((wait + run) / run.max(BSLD_TAU)).max(1.0)
}

/// Linear-interpolated percentile of sorted values (`q` in [0, 1]); 0 for no values.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => 0.0,
        1 => sorted[0],
        n => {
            let (lo, frac) = rank_position(n, q);
            let hi = (lo + 1).min(n - 1);
            sorted[lo] + frac * (sorted[hi] - sorted[lo])
        }
    }
}

/// Where percentile `q` of `n > 1` sorted values falls: the lower index, and the fraction of
/// the way to the next value.
fn rank_position(n: usize, q: f64) -> (usize, f64) {
    let h = (n - 1) as f64 * q.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    (lo, h - lo as f64)
}

/// [`percentile`] of values in any order, by selection (O(n), no full sort); reorders `xs`.
pub fn percentile_select(xs: &mut [f64], q: f64) -> f64 {
    match xs.len() {
        0 => 0.0,
        1 => xs[0],
        n => {
            let (lo, frac) = rank_position(n, q);
            let (_, &mut at_lo, above) = xs.select_nth_unstable_by(lo, f64::total_cmp);
            // The next order statistic is the least of the part above `lo`.
            let at_hi = above
                .iter()
                .copied()
                .min_by(f64::total_cmp)
                .unwrap_or(at_lo);
            at_lo + frac * (at_hi - at_lo)
        }
    }
}

/// [`percentile_select`] at several `qs` in ascending order: each selection searches only
/// the part above the previous one (the same values, bit for bit); reorders `xs`.
pub fn percentiles_select<const N: usize>(xs: &mut [f64], qs: [f64; N]) -> [f64; N] {
    let n = xs.len();
    if n < 2 {
        return qs.map(|q| percentile_select(xs, q));
    }
    let mut out = [0.0; N];
    // Positions below `base` hold values no greater than those from `base` on.
    let mut base = 0;
    let mut last: Option<(usize, f64, f64)> = None;
    for (slot, q) in out.iter_mut().zip(qs) {
        let (lo, frac) = rank_position(n, q);
        let (at_lo, at_hi) = match last {
            Some((l, a, b)) if l == lo => (a, b),
            _ => {
                debug_assert!(lo >= base, "the quantiles are in ascending order");
                let (_, &mut at_lo, above) =
                    xs[base..].select_nth_unstable_by(lo - base, f64::total_cmp);
                let at_hi = above
                    .iter()
                    .copied()
                    .min_by(f64::total_cmp)
                    .unwrap_or(at_lo);
                base = lo + 1;
                (at_lo, at_hi)
            }
        };
        last = Some((lo, at_lo, at_hi));
        *slot = at_lo + frac * (at_hi - at_lo);
    }
    out
}

/// Jain's fairness index of `xs`; 1 for an empty set or all zeros.
pub fn jain(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if xs.is_empty() || s2 == 0.0 {
        1.0
    } else {
        s * s / (xs.len() as f64 * s2)
    }
}

fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        0.0
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

/// Compute the metrics of a run: `start`/`end` per job (`None` = never started), machine
/// size `capacity` in cores.
pub fn compute(
    jobs: &[SimJob],
    start: &[Option<i64>],
    end: &[Option<i64>],
    capacity: u64,
) -> Metrics {
    let (user_of, names) = users(jobs);
    compute_by_user(jobs, start, end, capacity, &user_of, &names)
}

/// Each job's user, numbered in first-seen order, and the users' names. The jobs are
/// numbered by their names' shared texts (a pointer each, as a loader's [`Names`] made them),
/// then those texts by what they say (equal names made apart are one user): the numbers of
/// numbering the texts themselves, without hashing a text per job.
///
/// [`Names`]: crate::workload::Names
pub fn users(jobs: &[SimJob]) -> (Vec<u32>, Vec<&str>) {
    numbered(jobs, |j| &j.user)
}

/// Each job's queue, numbered as [`users`] numbers users, and the queues' names.
pub fn queues(jobs: &[SimJob]) -> (Vec<u32>, Vec<&str>) {
    numbered(jobs, |j| &j.queue)
}

/// Names numbered in first-seen order, and the names in that order: the groups of jobs known
/// by their names' text alone (a snapshot's users and queues).
pub fn number_names<'a>(names: impl ExactSizeIterator<Item = &'a str>) -> (Vec<u32>, Vec<&'a str>) {
    let mut seen = Vec::new();
    let of = number_first_seen(names, |&n| seen.push(n));
    (of, seen)
}

fn numbered<'a>(
    jobs: &'a [SimJob],
    name: impl Fn(&'a SimJob) -> &'a Name,
) -> (Vec<u32>, Vec<&'a str>) {
    let mut shared: Vec<&str> = Vec::new();
    let of_shared = number_first_seen(jobs.iter().map(|j| name(j).by_text_shared()), |u| {
        shared.push(u.0.as_str())
    });
    let mut names = Vec::new();
    let of_text = number_first_seen(shared.iter().copied(), |&u| names.push(u));
    let of_job = of_shared.iter().map(|&k| of_text[k as usize]).collect();
    (of_job, names)
}

/// [`compute`] with the users numbered already ([`users`]): job `i`'s user is
/// `user_of[i]`, named `names[user_of[i]]`. One pass over the jobs, no hashing.
pub fn compute_by_user(
    jobs: &[SimJob],
    start: &[Option<i64>],
    end: &[Option<i64>],
    capacity: u64,
    user_of: &[u32],
    names: &[&str],
) -> Metrics {
    metrics_pass(jobs, start, end, capacity, user_of, names).0
}

/// [`compute_by_user`], and from the same pass the users' delivered shares against equal
/// targets: the rows [`shares`] gives with `entity = user_of` and `1 / users` each (the same
/// sums, in the same order, bit for bit).
pub fn compute_with_user_shares(
    jobs: &[SimJob],
    start: &[Option<i64>],
    end: &[Option<i64>],
    capacity: u64,
    user_of: &[u32],
    names: &[&str],
) -> (Metrics, Vec<ShareRow>) {
    let (metrics, used, area) = metrics_pass(jobs, start, end, capacity, user_of, names);
    let target = vec![1.0 / names.len().max(1) as f64; names.len()];
    (metrics, share_rows(&used, area, names, &target))
}

/// The one pass over the jobs behind [`compute_by_user`] and [`compute_with_user_shares`]: the
/// metrics, each user's core-seconds run (`None`: the user has no job) and their sum.
fn metrics_pass(
    jobs: &[SimJob],
    start: &[Option<i64>],
    end: &[Option<i64>],
    capacity: u64,
    user_of: &[u32],
    names: &[&str],
) -> (Metrics, Vec<Option<f64>>, f64) {
    let mut waits = Vec::with_capacity(jobs.len());
    let mut bslds = Vec::with_capacity(jobs.len());
    let mut area = 0.0;
    // Per user: wait sum, started jobs, core-seconds run (`None`: the user has no job) and
    // bounded-slowdown sum.
    let mut per_user: Vec<(f64, usize, Option<f64>, f64)> = vec![(0.0, 0, None, 0.0); names.len()];
    let mut first_submit = None::<i64>;
    let mut last_end = None::<i64>;
    for (i, j) in jobs.iter().enumerate() {
        first_submit = Some(first_submit.map_or(j.submit, |f| f.min(j.submit)));
        let u = &mut per_user[user_of[i] as usize];
        let used = u.2.get_or_insert(0.0);
        let (Some(s), Some(e)) = (start[i], end[i]) else {
            continue;
        };
        let w = (s - j.submit) as f64;
        let r = (e - s) as f64;
        let bsld = bounded_slowdown(w, r);
        waits.push(w);
        bslds.push(bsld);
        let a = j.request.total_cores() as f64 * r;
        area += a;
        *used += a;
        u.0 += w;
        u.1 += 1;
        u.3 += bsld;
        last_end = Some(last_end.map_or(e, |l| l.max(e)));
    }
    let makespan = match (first_submit, last_end) {
        (Some(f), Some(l)) => (l - f) as f64,
        _ => 0.0,
    };
    // Jain's index sums the means of the users with a started job in user-name order (the
    // sums are then reproducible).
    let mut started: Vec<u32> = (0..names.len() as u32)
        .filter(|&u| per_user[u as usize].1 > 0)
        .collect();
    started.sort_unstable_by(|&a, &b| names[a as usize].cmp(names[b as usize]));
    let user_means: Vec<f64> = started
        .iter()
        .map(|&u| per_user[u as usize].0 / per_user[u as usize].1 as f64)
        .collect();
    let user_bslds: Vec<f64> = started
        .iter()
        .map(|&u| per_user[u as usize].3 / per_user[u as usize].1 as f64)
        .collect();
    let mean_wait = mean(&waits);
    let mean_bsld = mean(&bslds);
    let [median_wait, p95_wait] = percentiles_select(&mut waits, [0.5, 0.95]);
    let metrics = Metrics {
        mean_wait,
        median_wait,
        p95_wait,
        mean_bsld,
        p95_bsld: percentile_select(&mut bslds, 0.95),
        utilization: if makespan > 0.0 && capacity > 0 {
            area / (capacity as f64 * makespan)
        } else {
            0.0
        },
        makespan,
        jain_user_wait: jain(&user_means),
        jain_user_bsld: jain(&user_bslds),
    };
    let used = per_user.iter().map(|u| u.2).collect();
    (metrics, used, area)
}

/// The started jobs and their mean wait in one group of jobs (a user, a queue).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GroupWait {
    pub name: String,
    pub started: usize,
    pub mean_wait: f64,
}

/// Each job's wait (`start − submit`, seconds; `None`: it never started), the input of
/// [`group_waits`] for a run's jobs.
pub fn waits(jobs: &[SimJob], start: &[Option<i64>]) -> Vec<Option<f64>> {
    jobs.iter()
        .zip(start)
        .map(|(j, s)| s.map(|s| (s - j.submit) as f64))
        .collect()
}

/// Each group's started jobs and mean wait: job `i` waited `waits[i]` (`None`: it never
/// started) and is in group `group_of[i]`, named `names[g]`. One row per group with a started
/// job, sorted by name. A simulated run's jobs ([`waits`]) and a planned snapshot's
/// (`forecast::compare`) alike.
pub fn group_waits(waits: &[Option<f64>], group_of: &[u32], names: &[&str]) -> Vec<GroupWait> {
    let mut sums: Vec<(f64, usize)> = vec![(0.0, 0); names.len()];
    for (w, &g) in waits.iter().zip(group_of) {
        if let Some(w) = w {
            let g = &mut sums[g as usize];
            g.0 += w;
            g.1 += 1;
        }
    }
    let mut rows: Vec<GroupWait> = sums
        .iter()
        .enumerate()
        .filter(|(_, g)| g.1 > 0)
        .map(|(k, g)| GroupWait {
            name: names[k].to_string(),
            started: g.1,
            mean_wait: g.0 / g.1 as f64,
        })
        .collect();
    rows.sort_by(|a, b| a.name.cmp(&b.name));
    rows
}

/// How one group's mean wait changes from one run to another.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct WaitChange {
    pub name: String,
    /// The group's started jobs in the first run.
    pub jobs: usize,
    /// Mean wait in the first run and in the other (seconds).
    pub base: f64,
    pub other: f64,
    /// `other − base`: positive when the group waits longer.
    pub change: f64,
}

/// The groups' mean-wait changes from `base` to `other` (rows of [`group_waits`] of the same
/// jobs, sorted by name), largest change (either way) first, ties by name; a group with no started job in one
/// of the runs is left out.
pub fn wait_changes(base: &[GroupWait], other: &[GroupWait]) -> Vec<WaitChange> {
    let mut rows: Vec<WaitChange> = base
        .iter()
        .filter_map(|b| {
            let k = other
                .binary_search_by(|o| o.name.as_str().cmp(&b.name))
                .ok()?;
            let o = &other[k];
            Some(WaitChange {
                name: b.name.clone(),
                jobs: b.started,
                base: b.mean_wait,
                other: o.mean_wait,
                change: o.mean_wait - b.mean_wait,
            })
        })
        .collect();
    rows.sort_by(|a, b| {
        b.change
            .abs()
            .total_cmp(&a.change.abs())
            .then_with(|| a.name.cmp(&b.name))
    });
    rows
}

/// Each run's mean wait per user and per queue against the first run's, largest changes
/// first (the comparison a complete trace's delivered shares cannot show: every formula runs
/// the same work). `sim --trace` and `sim --snapshot` print it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WaitChanges {
    /// For each run after the first: the users' changes, largest first.
    pub users: Vec<Vec<WaitChange>>,
    /// The same per queue; empty when the jobs name fewer than two queues (one queue says
    /// nothing the whole run's figures do not).
    pub queues: Vec<Vec<WaitChange>>,
}

impl WaitChanges {
    /// From each run's per-job waits (`runs[r][i]`: job `i`'s wait in run `r`, `None` when it
    /// never started), each job's user (`users.0[i]`, named in `users.1`) and queue.
    pub fn new(
        runs: &[Vec<Option<f64>>],
        users: (&[u32], &[&str]),
        queues: (&[u32], &[&str]),
    ) -> WaitChanges {
        let by = |(group_of, names): (&[u32], &[&str])| -> Vec<Vec<WaitChange>> {
            let waits: Vec<Vec<GroupWait>> = runs
                .iter()
                .map(|w| group_waits(w, group_of, names))
                .collect();
            waits
                .iter()
                .skip(1)
                .map(|other| wait_changes(&waits[0], other))
                .collect()
        };
        WaitChanges {
            users: by(users),
            queues: if queues.1.len() > 1 {
                by(queues)
            } else {
                Vec::new()
            },
        }
    }
}

/// Delivered share per entity against its target: job `i` belongs to entity `entity[i]`,
/// named `names[e]` with target share `target[e]`. One row per entity that has a job, sorted
/// by entity name.
pub fn shares(
    jobs: &[SimJob],
    start: &[Option<i64>],
    end: &[Option<i64>],
    entity: &[u32],
    names: &[&str],
    target: &[f64],
) -> Vec<ShareRow> {
    let mut used: Vec<Option<f64>> = vec![None; names.len()];
    let mut total = 0.0;
    for (i, j) in jobs.iter().enumerate() {
        let e = used[entity[i] as usize].get_or_insert(0.0);
        if let (Some(s), Some(t)) = (start[i], end[i]) {
            let a = j.request.total_cores() as f64 * (t - s) as f64;
            *e += a;
            total += a;
        }
    }
    share_rows(&used, total, names, target)
}

/// The share rows of the entities with a job (`used[e]`, their core-seconds run, of `total`),
/// sorted by entity name.
fn share_rows(used: &[Option<f64>], total: f64, names: &[&str], target: &[f64]) -> Vec<ShareRow> {
    let mut rows: Vec<ShareRow> = used
        .iter()
        .enumerate()
        .filter_map(|(e, a)| {
            a.map(|a| ShareRow {
                target: target[e],
                delivered: if total > 0.0 { a / total } else { 0.0 },
                entity: names[e].to_string(),
            })
        })
        .collect();
    rows.sort_by(|a, b| a.entity.cmp(&b.entity));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_interpolate_linearly() {
        let x = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&x, 0.5), 2.5);
        assert!((percentile(&x, 0.95) - 3.85).abs() < 1e-12);
        assert_eq!(percentile(&[7.0], 0.95), 7.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }

    #[test]
    fn selection_equals_sorting() {
        let mut x: u64 = 7;
        for n in [0usize, 1, 2, 3, 10, 101, 1000] {
            let v: Vec<f64> = (0..n)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((x >> 40) % 500) as f64 * 0.5
                })
                .collect();
            let mut sorted = v.clone();
            sorted.sort_by(f64::total_cmp);
            for q in [0.0, 0.25, 0.5, 0.95, 0.999, 1.0] {
                let mut w = v.clone();
                assert_eq!(
                    percentile_select(&mut w, q).to_bits(),
                    percentile(&sorted, q).to_bits(),
                    "n={n} q={q}"
                );
            }
            // Several at once, each searching above the last (a repeated one included).
            let qs = [0.0, 0.25, 0.5, 0.5, 0.95, 0.999, 1.0];
            let mut w = v.clone();
            let many = percentiles_select(&mut w, qs);
            for (got, q) in many.iter().zip(qs) {
                assert_eq!(
                    got.to_bits(),
                    percentile(&sorted, q).to_bits(),
                    "n={n} q={q}"
                );
            }
        }
    }

    /// Users are numbered by their texts in first-seen order, whether their names were made
    /// by one table (shared) or apart (equal texts, two pointers).
    #[test]
    fn users_are_texts_shared_or_made_apart() {
        use crate::workload::{JobSpec, Name, Names};
        let mut table = Names::default();
        let ann = table.get("ann");
        let job = |user: Name| {
            SimJob::from(JobSpec {
                user,
                ..JobSpec::test("1")
            })
        };
        let jobs = [
            job("bob".into()),
            job(ann.clone()),
            job("ann".into()),
            job(Name::from("bob")),
            job(ann),
            job("cy".into()),
            job("ann".into()),
        ];
        let (of_job, names) = users(&jobs);
        assert_eq!(names, ["bob", "ann", "cy"]);
        assert_eq!(of_job, [0, 1, 1, 0, 1, 2, 1]);
    }

    /// The per-user shares of the metrics' pass are [`shares`]' rows with equal targets, bit
    /// for bit (jobs never started among them).
    #[test]
    fn user_shares_in_the_metrics_pass_are_the_shares_rows() {
        use crate::workload::{JobSpec, Request};
        let mut x: u64 = 11;
        let mut next = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let users = ["ann", "bob", "cy", "dee", "eve"];
        let n = 500;
        let jobs: Vec<SimJob> = (0..n)
            .map(|i| {
                SimJob::from(JobSpec {
                    submit: i as i64 * 3,
                    request: Request::Procs(1 + next(37) as u32),
                    user: users[next(5) as usize].into(),
                    ..JobSpec::test(&i.to_string())
                })
            })
            .collect();
        let start: Vec<Option<i64>> = jobs
            .iter()
            .map(|j| (next(9) != 0).then(|| j.submit + next(1000) as i64))
            .collect();
        let end: Vec<Option<i64>> = start
            .iter()
            .map(|s| s.map(|s| s + 1 + next(7777) as i64))
            .collect();
        let (user_of, names) = self::users(&jobs);
        let (m, rows) = compute_with_user_shares(&jobs, &start, &end, 64, &user_of, &names);
        let target = vec![1.0 / names.len() as f64; names.len()];
        let expected = shares(&jobs, &start, &end, &user_of, &names, &target);
        assert_eq!(rows.len(), expected.len());
        for (a, b) in rows.iter().zip(&expected) {
            assert_eq!(a.entity, b.entity);
            assert_eq!(a.target.to_bits(), b.target.to_bits(), "{}", a.entity);
            assert_eq!(a.delivered.to_bits(), b.delivered.to_bits(), "{}", a.entity);
        }
        assert!(m.utilization > 0.0 && m.mean_wait > 0.0);
    }

    #[test]
    fn jain_index() {
        assert_eq!(jain(&[1.0, 1.0, 1.0]), 1.0);
        assert_eq!(jain(&[1.0, 0.0]), 0.5);
        assert_eq!(jain(&[0.0, 0.0]), 1.0);
    }
}
