//! The order PBS's scheduler takes jobs in after it has sorted them (`fifo.cpp`
//! `next_job`): with `by_queue` the queues one after another by `Priority`, each in the
//! formula's order; with `round_robin` one job from each queue of a `Priority` in turn; and the
//! jobs it never runs (`query_jobs`: NEVER_RUN, e.g. no fairshare shares) after all the others
//! (`cmp_sort` in `src/scheduler/sort.cpp`).

use crate::rank::Ranked;
use std::collections::BTreeMap;

/// `ranked` (the formula's order, every job) regrouped as PBS takes the jobs: by queue tier
/// (`tiers[job]`, `by_queue`), the jobs that never run (`never[job]`, made not runnable) after
/// those that can in each tier, then, with `round_robin` (each queue's `Priority`, and each
/// job's queue), one job from each queue of a priority in turn. Stable: each part keeps
/// `ranked`'s order.
pub fn queue_order(
    mut ranked: Vec<Ranked>,
    tiers: Option<&[u32]>,
    never: &[bool],
    round_robin: Option<(&BTreeMap<String, i64>, &[&str])>,
) -> Vec<Ranked> {
    let never = |i: usize| never.get(i) == Some(&true);
    ranked.sort_by_key(|r| (tiers.map_or(0, |t| t[r.index]), never(r.index)));
    for r in &mut ranked {
        if never(r.index) {
            r.runnable = false;
        }
    }
    match round_robin {
        Some((priorities, queues)) => round_robin_order(ranked, priorities, &|i| queues[i], &never),
        None => ranked,
    }
}

/// PBS `round_robin` (`fifo.cpp: next_job`): the queues grouped by `Priority`, higher first
/// (`queue_list`); within a group one job from each queue in turn (queues here by name; PBS
/// keeps the server's order), a queue that has no job left skipped, until the group is done.
/// Each queue's jobs in `ranked`'s order; the jobs that never run (`find_runnable_resresv_ind`
/// skips them) after all the others, in that order.
fn round_robin_order<'q>(
    ranked: Vec<Ranked>,
    priorities: &BTreeMap<String, i64>,
    queue: &dyn Fn(usize) -> &'q str,
    never: &dyn Fn(usize) -> bool,
) -> Vec<Ranked> {
    let mut by_queue: BTreeMap<(std::cmp::Reverse<i64>, &str), std::collections::VecDeque<Ranked>> =
        BTreeMap::new();
    let mut last = Vec::new();
    for r in ranked {
        if never(r.index) {
            last.push(r);
            continue;
        }
        let q = queue(r.index);
        let p = priorities.get(q).copied().unwrap_or(0);
        by_queue
            .entry((std::cmp::Reverse(p), q))
            .or_default()
            .push_back(r);
    }
    let mut out = Vec::new();
    let mut levels: Vec<Vec<std::collections::VecDeque<Ranked>>> = Vec::new();
    let mut level = None;
    for ((p, _), jobs) in by_queue {
        if level != Some(p) {
            levels.push(Vec::new());
            level = Some(p);
        }
        if let Some(l) = levels.last_mut() {
            l.push(jobs);
        }
    }
    out.extend(interleave(levels));
    out.extend(last);
    out
}

/// `round_robin`'s turns (`next_job`): the levels one after another (queues of one
/// `Priority`, higher first), and within a level one item from each queue in turn, a queue
/// that has none left skipped, until the level is done. The one definition of the turns:
/// `rank` and the simulator (its tiered order) both take them.
pub fn interleave<T>(levels: Vec<Vec<std::collections::VecDeque<T>>>) -> Vec<T> {
    let mut out = Vec::with_capacity(levels.iter().flatten().map(|q| q.len()).sum());
    for mut queues in levels {
        while queues.iter().any(|q| !q.is_empty()) {
            for q in &mut queues {
                out.extend(q.pop_front());
            }
        }
    }
    out
}
