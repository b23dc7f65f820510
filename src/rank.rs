//! Ranking jobs by formula value: descending, ties by submission order then id (PBS
//! `cmp_sort`: formula value, then `qrank`), with PBS's `job_sort_formula_threshold` and top-k.
//!
//! Every job's value is compared through its IEEE total-order bits (descending, `-0.0` folded
//! into `0.0`, NaN last). A full ranking by value (no submission keys) is built directly in the
//! returned `Vec<Ranked>`: one stable MSD radix scatter into value buckets, further radix levels
//! for big buckets (one shared scratch buffer, digit width chosen for about eight jobs per
//! sub-bucket), a stable insertion sort for small ones — no full-size key,
//! index or scratch arrays. With submission keys every job becomes one packed integer key
//! (value bits, submission key, then the input position) sorted by an LSD radix sort (large
//! inputs) or pdqsort (small ones). Keys are unique, so the order is fully determined. Top-k
//! selects on the same keys (`select_nth_unstable`, O(n)) and sorts only the first k.

use std::cmp::Ordering;

/// Options for [`rank`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RankOptions {
    /// Jobs with value `<= threshold` are not runnable (PBS's threshold is inclusive).
    pub threshold: Option<f64>,
    /// Keep only the first `k` (selected without sorting the rest).
    pub top: Option<usize>,
}

/// One ranked job.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranked {
    /// Index of the job in the input.
    pub index: usize,
    pub value: f64,
    pub runnable: bool,
}

/// Tie-break keys for ranking, after the value: PBS's fairshare order, then submission order
/// (`submit`, or input order when absent), then id. All `None` (the default): input order.
#[derive(Debug, Clone, Copy, Default)]
pub struct TieBreak<'a> {
    /// PBS `fair_share`: each job's rank in the fairshare order (0 = most deserving, from
    /// [`crate::fairshare::inputs::Fairshare::entity_ranks`]). PBS's `cmp_sort` compares
    /// it (`compare_path`) right after the formula value; a job without one ranks after all.
    pub fair_share: Option<&'a [usize]>,
    pub submit: Option<&'a [f64]>,
    pub ids: Option<&'a [String]>,
}

/// Below this many jobs a comparison sort of the packed keys beats the radix sort.
const RADIX_MIN: usize = 1 << 12;

/// Order jobs by value descending (`-0.0` equals `0.0`, as [`value_key`]), then the fairshare
/// rank when given, then `submit` ascending (input order when none), then id, then input
/// position. `values` should be finite (evaluation guarantees it); a NaN value ranks after
/// every number, a NaN `submit` after every number.
pub fn rank(values: &[f64], ties: TieBreak<'_>, options: &RankOptions) -> Vec<Ranked> {
    let plain = ties.fair_share.is_none() && ties.submit.is_none();
    if plain && options.top.is_none_or(|k| k >= values.len()) {
        // The common case (a full ranking by value): sorted straight in the output.
        return rank_by_value(values, options.threshold);
    }
    let order = match (ties.fair_share, ties.submit, ties.ids) {
        (Some(_), _, _) => order_by_comparator(values, ties, options.top),
        (None, None, _) => order_by_value(values, options.top),
        (None, Some(submit), None) => order_by_value_submit(values, submit, options.top),
        (None, Some(submit), Some(ids)) => match options.top {
            Some(k) if k < values.len() => order_by_comparator(values, ties, Some(k)),
            _ => {
                let mut order = order_by_value_submit(values, submit, None);
                sort_equal_runs_by_id(&mut order, values, submit, ids);
                order
            }
        },
    };
    order
        .into_iter()
        .map(|index| {
            let value = values[index];
            let runnable = options.threshold.is_none_or(|t| value > t);
            Ranked {
                index,
                value,
                runnable,
            }
        })
        .collect()
}

/// The order of jobs only (indices), same rules as [`rank`].
pub fn order(values: &[f64], ties: TieBreak<'_>, top: Option<usize>) -> Vec<usize> {
    rank(
        values,
        ties,
        &RankOptions {
            threshold: None,
            top,
        },
    )
    .into_iter()
    .map(|r| r.index)
    .collect()
}

/// Ascending key for ascending f64 order (`-0.0` as `0.0`, NaN last).
#[inline]
fn ascending_key(v: f64) -> u64 {
    if v.is_nan() {
        return u64::MAX;
    }
    let bits = (v + 0.0).to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// The order's key of a value: an integer that ascends as the value descends (IEEE total
/// order with `-0.0` equal to `0.0`, NaN after every number). The least key ranks first.
#[inline]
pub fn value_key(v: f64) -> u64 {
    if v.is_nan() {
        return u64::MAX;
    }
    !ascending_key(v)
}

/// A job's place in the order of [`rank`] without submission keys, as one integer: the value's
/// [`value_key`], then the position that breaks ties (the input position, or any number that
/// ascends with it, such as a submit order). The least key is the top job; keys of distinct
/// positions are distinct, so any sort of them gives the same order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JobKey(u128);

impl JobKey {
    /// The key of the job at `position` with `value`.
    #[inline]
    pub fn new(value: f64, position: u32) -> JobKey {
        JobKey((u128::from(value_key(value)) << 64) | u128::from(position))
    }
    /// The position the key was made with.
    #[inline]
    pub fn position(self) -> u32 {
        self.0 as u32
    }
}

/// The first `top` jobs (all when `None`) of the order of [`rank`] without submission keys
/// (value descending, then position), best first, as positions in `out`. Nothing is allocated
/// once `keys` (scratch) and `out` have grown to the size needed: callers that rank every
/// round (the simulator) keep both. At most `u32::MAX` values are ranked (positions are `u32`).
pub fn top_into(values: &[f64], top: Option<usize>, keys: &mut Vec<JobKey>, out: &mut Vec<u32>) {
    let values = &values[..values.len().min(u32::MAX as usize)];
    let n = values.len();
    let k = top.unwrap_or(n).min(n);
    let all = values
        .iter()
        .enumerate()
        .map(|(i, &v)| JobKey::new(v, i as u32));
    keys.clear();
    out.clear();
    if k < n && k <= 64 {
        // A short prefix: one pass keeping the best k sorted (most jobs lose to the k-th with
        // one comparison). The keys are unique, so this is the prefix a full sort gives.
        for key in all {
            if keys.len() == k {
                match keys.last() {
                    Some(&worst) if key < worst => {
                        keys.pop();
                    }
                    _ => continue,
                }
            }
            let at = keys.partition_point(|x| *x < key);
            keys.insert(at, key);
        }
    } else {
        keys.extend(all);
        if k < n {
            if k > 0 {
                keys.select_nth_unstable(k - 1);
            }
            keys.truncate(k);
        }
        keys.sort_unstable();
    }
    out.extend(keys.iter().map(|key| key.position()));
}

fn order_by_value(values: &[f64], top: Option<usize>) -> Vec<usize> {
    let n = values.len();
    if n > u32::MAX as usize {
        return order_by_comparator(values, TieBreak::default(), top);
    }
    // (descending value key << 64) | position: unique, so any sort gives the same order.
    let mut keys: Vec<u128> = values
        .iter()
        .enumerate()
        .map(|(i, &v)| (u128::from(value_key(v)) << 64) | i as u128)
        .collect();
    match top {
        Some(k) if k < n => sort_or_select(&mut keys, top, 8, 8),
        _ => msd_bucket_sort(&mut keys),
    }
    keys.into_iter().map(|k| (k as u64) as usize).collect()
}

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

/// `(shift, base)` of a `FINE_BITS` digit just below the common prefix of the keys.
fn fine_plan(keys: impl Iterator<Item = u64>) -> Option<(u32, u64)> {
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for k in keys {
        lo = lo.min(k);
        hi = hi.max(k);
    }
    let diff = lo ^ hi;
    if diff == 0 {
        return None;
    }
    let shift = (63 - diff.leading_zeros()).saturating_sub(FINE_BITS - 1);
    Some((shift, lo >> shift))
}

/// Inputs up to this size are ordered by one pdqsort, without radix passes.
const RANK_CUT: usize = 1 << 11;

/// The total order of [`rank`] without submission keys: value descending, then position.
#[inline]
fn by_value_then_index(a: &Ranked, b: &Ranked) -> Ordering {
    value_key(a.value)
        .cmp(&value_key(b.value))
        .then(a.index.cmp(&b.index))
}

/// Where the keys of a slice differ: `(shift, base)` so that `(key >> shift) - base` is a
/// `bits`-bit digit just below their common prefix; `None` when all keys are equal.
fn digit_plan(keys: impl Iterator<Item = u64>, bits: u32) -> Option<(u32, u64)> {
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for k in keys {
        lo = lo.min(k);
        hi = hi.max(k);
    }
    let diff = lo ^ hi;
    if diff == 0 {
        return None;
    }
    let top = 63 - diff.leading_zeros();
    let shift = top.saturating_sub(bits - 1);
    Some((shift, lo >> shift))
}

/// Prefix sums of the digit histogram: bucket `d` is `starts[d] .. starts[d + 1]`.
fn bucket_starts(digits: impl Iterator<Item = usize>, bits: u32) -> Vec<usize> {
    let mut starts = vec![0usize; (1 << bits) + 1];
    for d in digits {
        starts[d + 1] += 1;
    }
    for d in 0..(1 << bits) {
        starts[d + 1] += starts[d];
    }
    starts
}

/// A full ranking by value (ties by position), built directly in the returned vector: one
/// MSD radix scatter of the jobs (in position order, so stable) into their value buckets,
/// then each bucket is ordered in place (insertion sort, or further MSD levels for big buckets).
/// No intermediate key, index or scratch arrays of the full size are allocated.
fn rank_by_value(values: &[f64], threshold: Option<f64>) -> Vec<Ranked> {
    let n = values.len();
    let make = |index: usize, value: f64| Ranked {
        index,
        value,
        runnable: threshold.is_none_or(|t| value > t),
    };
    let plan = if n <= RANK_CUT {
        None
    } else {
        fine_plan(values.iter().map(|&v| value_key(v)))
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

/// Sort unique u128 keys (high 64 bits: the sort key; low bits: the position, ascending in
/// the input) by MSD radix: one stable scatter pass on the 11 bits just below the slice's
/// common key prefix, then the same on each bucket, down to cache-sized buckets that pdqsort
/// finishes. Depth is bounded (each level consumes at least one differing key bit), and
/// equal sort keys keep position order.
fn msd_bucket_sort(keys: &mut [u128]) {
    let mut scratch = vec![0u128; keys.len()];
    msd_level(keys, &mut scratch);
}

fn msd_level(keys: &mut [u128], scratch: &mut [u128]) {
    const BITS: u32 = 11;
    let n = keys.len();
    if n < 2048 {
        keys.sort_unstable();
        return;
    }
    let hi = |k: &u128| (*k >> 64) as u64;
    let (mut lo_key, mut hi_key) = (u64::MAX, 0u64);
    for k in keys.iter() {
        let h = hi(k);
        lo_key = lo_key.min(h);
        hi_key = hi_key.max(h);
    }
    let diff = lo_key ^ hi_key;
    if diff == 0 {
        // Every sort key is equal: the keys are already in position order.
        return;
    }
    let top = 63 - diff.leading_zeros();
    let shift = top.saturating_sub(BITS - 1);
    let base = lo_key >> shift;
    let bucket = |k: &u128| ((hi(k) >> shift) - base) as usize;
    let mut starts = vec![0usize; (1 << BITS) + 1];
    for k in keys.iter() {
        starts[bucket(k) + 1] += 1;
    }
    for d in 0..(1 << BITS) {
        starts[d + 1] += starts[d];
    }
    let mut next = starts.clone();
    for k in keys.iter() {
        let d = bucket(k);
        scratch[next[d]] = *k;
        next[d] += 1;
    }
    keys.copy_from_slice(scratch);
    for d in 0..(1 << BITS) {
        let (a, b) = (starts[d], starts[d + 1]);
        if b - a > 1 {
            msd_level(&mut keys[a..b], &mut scratch[a..b]);
        }
    }
}

fn order_by_value_submit(values: &[f64], submit: &[f64], top: Option<usize>) -> Vec<usize> {
    #[derive(Clone, Copy)]
    struct Item {
        key: u128,
        index: u32,
    }
    let n = values.len();
    if n > u32::MAX as usize || submit.len() < n {
        return order_by_comparator(
            values,
            TieBreak {
                submit: Some(submit),
                ..TieBreak::default()
            },
            top,
        );
    }
    let mut items: Vec<Item> = values
        .iter()
        .zip(submit)
        .enumerate()
        .map(|(i, (&v, &s))| Item {
            key: (u128::from(value_key(v)) << 64) | u128::from(ascending_key(s)),
            index: i as u32,
        })
        .collect();
    let full = |a: &Item, b: &Item| (a.key, a.index).cmp(&(b.key, b.index));
    match top {
        Some(k) if k < n => {
            if k > 0 {
                items.select_nth_unstable_by(k - 1, full);
            }
            items.truncate(k);
            items.sort_unstable_by(full);
        }
        _ if n < RADIX_MIN => items.sort_unstable_by(full),
        // Stable LSD radix on the 16 key bytes: equal keys stay in input order.
        _ => radix_sort(&mut items, 16, |it, b| (it.key >> (8 * b)) as u8),
    }
    items.into_iter().map(|it| it.index as usize).collect()
}

/// Sort (or select the first `top` of) unique u128 keys whose sort key is bytes
/// `first_byte .. first_byte + bytes` (lower bytes only hold the already-unique position).
fn sort_or_select(keys: &mut Vec<u128>, top: Option<usize>, first_byte: usize, bytes: usize) {
    let n = keys.len();
    match top {
        Some(k) if k < n => {
            if k > 0 {
                keys.select_nth_unstable(k - 1);
            }
            keys.truncate(k);
            keys.sort_unstable();
        }
        _ if n < RADIX_MIN => keys.sort_unstable(),
        _ => radix_sort(keys, bytes, |k, b| (k >> (8 * (first_byte + b))) as u8),
    }
}

/// Stable LSD radix sort over `bytes` key bytes (byte 0 least significant). Histograms for
/// every byte come from one pass; a byte with a single value everywhere is skipped.
fn radix_sort<T: Copy>(items: &mut Vec<T>, bytes: usize, byte: impl Fn(&T, usize) -> u8) {
    let n = items.len();
    if n < 2 {
        return;
    }
    let mut counts = vec![[0usize; 256]; bytes];
    for it in items.iter() {
        for (b, c) in counts.iter_mut().enumerate() {
            c[byte(it, b) as usize] += 1;
        }
    }
    let mut buf: Vec<T> = items.clone();
    for (b, c) in counts.iter().enumerate() {
        if c.contains(&n) {
            continue;
        }
        let mut offsets = [0usize; 256];
        let mut sum = 0;
        for (o, &x) in offsets.iter_mut().zip(c.iter()) {
            *o = sum;
            sum += x;
        }
        for it in items.iter() {
            let d = byte(it, b) as usize;
            buf[offsets[d]] = *it;
            offsets[d] += 1;
        }
        std::mem::swap(items, &mut buf);
    }
}

/// Within runs of equal (value, submit), order by id then position.
fn sort_equal_runs_by_id(order: &mut [usize], values: &[f64], submit: &[f64], ids: &[String]) {
    let same = |a: usize, b: usize| {
        value_key(values[a]) == value_key(values[b])
            && ascending_key(submit[a]) == ascending_key(submit[b])
    };
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && same(order[start], order[end]) {
            end += 1;
        }
        if end - start > 1 {
            order[start..end].sort_by(|&a, &b| {
                let ia = ids.get(a).map(String::as_str);
                let ib = ids.get(b).map(String::as_str);
                ia.cmp(&ib).then(a.cmp(&b))
            });
        }
        start = end;
    }
}

/// The general comparison sort (used with a fairshare tie-break, for top-k with ids, and
/// beyond u32 positions): the definition the fast paths are tested against.
fn order_by_comparator(values: &[f64], ties: TieBreak<'_>, top: Option<usize>) -> Vec<usize> {
    let fair_share = |i: usize| {
        ties.fair_share
            .map(|r| r.get(i).copied().unwrap_or(usize::MAX))
    };
    let cmp = |&a: &usize, &b: &usize| -> Ordering {
        value_key(values[a])
            .cmp(&value_key(values[b]))
            .then_with(|| fair_share(a).cmp(&fair_share(b)))
            .then_with(|| match ties.submit {
                Some(s) => ascending_key(s.get(a).copied().unwrap_or(f64::NAN))
                    .cmp(&ascending_key(s.get(b).copied().unwrap_or(f64::NAN))),
                None => a.cmp(&b),
            })
            .then_with(|| match ties.ids {
                Some(ids) => ids.get(a).cmp(&ids.get(b)),
                None => Ordering::Equal,
            })
            .then_with(|| a.cmp(&b))
    };
    let mut order: Vec<usize> = (0..values.len()).collect();
    match top {
        Some(k) if k < order.len() => {
            if k > 0 {
                order.select_nth_unstable_by(k - 1, cmp);
            }
            order.truncate(k);
            order.sort_unstable_by(cmp);
        }
        _ => order.sort_unstable_by(cmp),
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descending_with_ties_by_submission_order_then_id() {
        let values = [1.0, 3.0, 1.0, 3.0];
        let ids: Vec<String> = ["d", "c", "b", "a"].iter().map(|s| s.to_string()).collect();
        let r = rank(
            &values,
            TieBreak {
                ids: Some(&ids),
                ..TieBreak::default()
            },
            &RankOptions::default(),
        );
        assert_eq!(
            r.iter().map(|r| r.index).collect::<Vec<_>>(),
            vec![1, 3, 0, 2]
        );
        let submit = [5.0, 5.0, 5.0, 5.0];
        let r = rank(
            &values,
            TieBreak {
                submit: Some(&submit),
                ids: Some(&ids),
                ..TieBreak::default()
            },
            &RankOptions::default(),
        );
        assert_eq!(
            r.iter().map(|r| r.index).collect::<Vec<_>>(),
            vec![3, 1, 2, 0]
        );
    }

    #[test]
    fn threshold_is_inclusive_and_top_k_selects() {
        let values = [1.0, 5.0, 2.0, 4.0];
        let opts = RankOptions {
            threshold: Some(2.0),
            top: Some(3),
        };
        let r = rank(&values, TieBreak::default(), &opts);
        assert_eq!(
            r.iter().map(|r| (r.index, r.runnable)).collect::<Vec<_>>(),
            vec![(1, true), (3, true), (2, false)]
        );
    }

    /// The fast paths (radix and pdqsort, with and without top-k, and the simulator's
    /// [`top_into`] and [`JobKey`]) agree with the plain comparison sort on data with many
    /// ties, signed zeros and negative values.
    #[test]
    fn fast_paths_equal_the_comparison_sort() {
        let mut x: u64 = 0x9E3779B97F4A7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for n in [
            0usize,
            1,
            2,
            7,
            100,
            RADIX_MIN - 1,
            RADIX_MIN + 5,
            20_000,
            70_000,
        ] {
            let values: Vec<f64> = (0..n)
                .map(|_| match next() % 7 {
                    0 => 0.0,
                    1 => -0.0,
                    2 => -((next() % 50) as f64),
                    // spread over many exponents, and clustered just below 1
                    3 => 2f64.powf(-((next() % 1_000_000) as f64) / 1000.0),
                    4 => 1.0 - (next() % 4096) as f64 * f64::EPSILON,
                    // distinct values: uniform mantissas, deep radix levels
                    5 => 0.5 + (next() >> 11) as f64 / (1u64 << 54) as f64,
                    _ => (next() % 100) as f64 * 0.25,
                })
                .collect();
            let submit: Vec<f64> = (0..n).map(|_| (next() % 10) as f64).collect();
            let ids: Vec<String> = (0..n).map(|_| format!("{}", next() % 7)).collect();
            let fair_share: Vec<usize> = (0..n).map(|_| (next() % 5) as usize).collect();
            let cases = [
                TieBreak::default(),
                TieBreak {
                    submit: Some(&submit),
                    ..TieBreak::default()
                },
                TieBreak {
                    submit: Some(&submit),
                    ids: Some(&ids),
                    ..TieBreak::default()
                },
                TieBreak {
                    fair_share: Some(&fair_share),
                    submit: Some(&submit),
                    ids: Some(&ids),
                },
            ];
            // The simulator's order (no tie-break keys: ties by position), into its buffers.
            let want = order_by_comparator(&values, TieBreak::default(), None);
            let (mut keys, mut out) = (Vec::new(), Vec::new());
            for k in [0, 1, 3, 64, 65, n / 2, n, n + 1] {
                top_into(&values, Some(k), &mut keys, &mut out);
                let got: Vec<usize> = out.iter().map(|&i| i as usize).collect();
                assert_eq!(got, want[..k.min(n)].to_vec(), "top_into n={n} k={k}");
            }
            top_into(&values, None, &mut keys, &mut out);
            assert!(out.iter().map(|&i| i as usize).eq(want.iter().copied()));
            let best = (0..n).map(|i| JobKey::new(values[i], i as u32)).min();
            assert_eq!(best.map(|b| b.position() as usize), want.first().copied());
            for ties in cases {
                let want = order_by_comparator(&values, ties, None);
                assert_eq!(order(&values, ties, None), want, "n={n}");
                // The full ranking carries each job's value and the (inclusive) threshold.
                let ranked = rank(
                    &values,
                    ties,
                    &RankOptions {
                        threshold: Some(1.0),
                        top: None,
                    },
                );
                assert_eq!(ranked.len(), n);
                for (r, &i) in ranked.iter().zip(&want) {
                    assert_eq!(r.index, i);
                    assert_eq!(r.value.to_bits(), values[i].to_bits());
                    assert_eq!(r.runnable, values[i] > 1.0);
                }
                for k in [0, 1, 3, n / 2, n, n + 1] {
                    let got = order(&values, ties, Some(k));
                    assert_eq!(got, want[..k.min(n)].to_vec(), "n={n} k={k}");
                }
            }
        }
    }

    #[test]
    fn negative_zero_ties_with_zero_and_nan_ranks_last() {
        let values = [-0.0, f64::NAN, 0.0, -1.0, 2.0];
        assert_eq!(
            order(&values, TieBreak::default(), None),
            vec![4, 0, 2, 3, 1]
        );
        let (mut keys, mut out) = (Vec::new(), Vec::new());
        top_into(&values, None, &mut keys, &mut out);
        assert_eq!(out, vec![4, 0, 2, 3, 1]);
    }

    /// PBS `fair_share`: the fairshare rank decides between equal values, before submission
    /// order; the value still comes first, and a NaN value ranks last as without fairshare
    /// (issue 18 item 28: the old fairshare comparator took NaN as equal to every value).
    #[test]
    fn fair_share_breaks_value_ties_and_nan_ranks_last() {
        let values = [1.0, f64::NAN, 1.0, 2.0, 1.0, -0.0, 0.0];
        let fair_share = [2, 0, 1, 3, 1, 1, 0];
        let submit = [1.0, 2.0, 3.0, 4.0, 0.0, 6.0, 7.0];
        let ties = TieBreak {
            fair_share: Some(&fair_share),
            submit: Some(&submit),
            ids: None,
        };
        assert_eq!(order(&values, ties, None), vec![3, 4, 2, 0, 6, 5, 1]);
        assert_eq!(order(&values, ties, Some(3)), vec![3, 4, 2]);
        let r = rank(
            &values,
            ties,
            &RankOptions {
                threshold: Some(0.0),
                top: None,
            },
        );
        let runnable: Vec<bool> = r.iter().map(|r| r.runnable).collect();
        assert_eq!(runnable, [true, true, true, true, false, false, false]);
    }
}
