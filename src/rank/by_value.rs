//! A full ranking by value (ties by position), sorted straight into the returned `Vec<Ranked>`.

use super::compare::Ranked;
use super::key::value_key;
use super::radix::{bucket_starts, digit_plan};
use super::threshold::Threshold;
use std::cmp::Ordering;

/// Digit width of an MSD radix pass of [`rank_by_value`] over a bucket of `len` jobs: about
/// eight jobs per sub-bucket, so most finish with a short insertion sort.
fn digit_bits(len: usize) -> u32 {
    (usize::BITS - len.leading_zeros())
        .saturating_sub(3)
        .clamp(4, 12)
}

/// Width of the first (histogram) digit of [`rank_by_value`].
const FINE_BITS: u32 = 16;

/// Jobs per first-level bucket of [`rank_by_value`] (fine digits are merged up to this).
const RANK_TARGET: usize = 1 << 10;

/// Inputs up to this size are ordered by one pdqsort, without radix passes.
const RANK_CUT: usize = 1 << 11;

/// The total order of [`rank`](super::rank) without submission keys: value descending, then
/// position.
#[inline]
fn by_value_then_index(a: &Ranked, b: &Ranked) -> Ordering {
    value_key(a.value)
        .cmp(&value_key(b.value))
        .then(a.index.cmp(&b.index))
}

/// A full ranking by value (ties by position), built directly in the returned vector: one
/// MSD radix scatter of the jobs (in position order, so stable) into their value buckets,
/// then each bucket is ordered in place (insertion sort, or further MSD levels for big buckets).
/// No intermediate key, index or scratch arrays of the full size are allocated.
pub(super) fn rank_by_value(values: &[f64], threshold: Option<Threshold>) -> Vec<Ranked> {
    let n = values.len();
    let make = |index: usize, value: f64| Ranked {
        index,
        value,
        runnable: threshold.is_none_or(|t| t.admits(value)),
    };
    let plan = if n <= RANK_CUT {
        None
    } else {
        digit_plan(values.iter().map(|&v| value_key(v)), FINE_BITS)
    };
    let Some((shift, base)) = plan else {
        let mut out: Vec<Ranked> = values
            .iter()
            .enumerate()
            .map(|(i, &v)| make(i, v))
            .collect();
        if n <= RANK_CUT {
            out.sort_unstable_by(by_value_then_index);
        }
        // else: every key is equal, and the jobs are already in position order.
        return out;
    };
    // Histogram on a fine 16-bit digit, then fine digits are merged, in order, into buckets
    // of about `RANK_TARGET` jobs each: one scatter balances even skewed value distributions.
    let fine = |v: f64| ((value_key(v) >> shift) - base) as usize;
    let mut counts = vec![0u32; 1 << FINE_BITS];
    for &v in values {
        counts[fine(v)] += 1;
    }
    let mut coarse = vec![0u16; 1 << FINE_BITS];
    let mut starts = vec![0usize];
    let mut acc = 0usize;
    for (f, &c) in counts.iter().enumerate() {
        coarse[f] = (starts.len() - 1) as u16;
        acc += c as usize;
        if acc - starts[starts.len() - 1] >= RANK_TARGET && starts.len() < (1 << FINE_BITS) - 1 {
            starts.push(acc);
        }
    }
    if starts[starts.len() - 1] != n {
        starts.push(n);
    }
    let buckets = starts.len() - 1;
    let digit = |v: f64| coarse[fine(v)] as usize;
    let mut out: Vec<Ranked> = Vec::with_capacity(n);
    {
        let slots = &mut out.spare_capacity_mut()[..n];
        let mut next = starts.clone();
        for (i, &v) in values.iter().enumerate() {
            let d = digit(v);
            slots[next[d]].write(make(i, v));
            next[d] += 1;
        }
    }
    // SAFETY: `digit` is a pure function of the value, so the scatter above saw the same
    // digits as the histogram: bucket `d` received exactly `starts[d + 1] - starts[d]` jobs,
    // written to the distinct slots `starts[d] .. starts[d + 1]`, which partition `0 .. n`.
    // Every one of the first `n` slots is therefore initialised.
    unsafe { out.set_len(n) };
    // One scratch buffer, as long as the largest bucket that needs another radix level.
    let widest = (0..buckets)
        .map(|d| starts[d + 1] - starts[d])
        .filter(|&len| len > SMALL)
        .max()
        .unwrap_or(0);
    let mut scratch = vec![make(0, 0.0); widest];
    for d in 0..buckets {
        let (a, b) = (starts[d], starts[d + 1]);
        order_bucket(&mut out[a..b], &mut scratch[..(b - a).min(widest)]);
    }
    out
}

/// Buckets up to this size are finished by insertion sort.
const SMALL: usize = 24;

/// Stable insertion sort by value key: jobs arrive in position order among equal keys (the
/// scatters are stable), so this yields [`by_value_then_index`] order.
fn insertion_sort_by_key(jobs: &mut [Ranked]) {
    for i in 1..jobs.len() {
        let item = jobs[i];
        let key = value_key(item.value);
        let mut j = i;
        while j > 0 && value_key(jobs[j - 1].value) > key {
            jobs[j] = jobs[j - 1];
            j -= 1;
        }
        jobs[j] = item;
    }
}

/// Order a bucket of jobs (in position order among equal keys) by [`by_value_then_index`].
/// `scratch` is as long as `jobs` whenever `jobs` is longer than `SMALL`.
fn order_bucket(jobs: &mut [Ranked], scratch: &mut [Ranked]) {
    if jobs.len() <= SMALL {
        insertion_sort_by_key(jobs);
        return;
    }
    if scratch.len() < jobs.len() {
        jobs.sort_unstable_by(by_value_then_index);
        return;
    }
    let bits = digit_bits(jobs.len());
    let Some((shift, base)) = digit_plan(jobs.iter().map(|r| value_key(r.value)), bits) else {
        // All keys equal: the stable scatters kept them in position order.
        return;
    };
    let digit = |r: &Ranked| ((value_key(r.value) >> shift) - base) as usize;
    let starts = bucket_starts(jobs.iter().map(digit), bits);
    let copy = &mut scratch[..jobs.len()];
    copy.copy_from_slice(jobs);
    let mut next = starts.clone();
    for r in copy.iter() {
        let d = digit(r);
        jobs[next[d]] = *r;
        next[d] += 1;
    }
    for d in 0..(1 << bits) {
        let (a, b) = (starts[d], starts[d + 1]);
        order_bucket(&mut jobs[a..b], &mut scratch[a..b]);
    }
}
