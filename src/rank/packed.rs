//! The order with submission keys: each job one packed integer key (value key, then submission
//! key), sorted or top-k selected with its position as the last tie-break, and the id
//! tie-break within runs of equal keys.

use super::compare::{TieBreak, cmp_job_ids, order_by_comparator};
use super::key::{ascending_key, value_key};
use super::radix::radix_sort;
use crate::table::Texts;

/// Below this many jobs a comparison sort of the packed keys beats the radix sort.
pub(super) const RADIX_MIN: usize = 1 << 12;

/// The first `top` jobs (all when `None`) by value descending, then `submit` ascending, then
/// position.
pub(super) fn order_by_value_submit(
    values: &[f64],
    submit: &[f64],
    top: Option<usize>,
) -> Vec<usize> {
    /// The key is `(value key, submission key)` compared as one 128-bit number; two `u64`s
    /// (not a `u128`, aligned to 16) keep an item at 24 bytes.
    #[derive(Clone, Copy)]
    struct Item {
        key: [u64; 2],
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
            key: [value_key(v), ascending_key(s)],
            index: i as u32,
        })
        .collect();
    let full = |a: &Item, b: &Item| (a.key, a.index).cmp(&(b.key, b.index));
    const _: () = assert!(std::mem::size_of::<Item>() == 24);
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
        _ => radix_sort(&mut items, 16, |it, b| {
            (it.key[1 - b / 8] >> (8 * (b % 8))) as u8
        }),
    }
    items.into_iter().map(|it| it.index as usize).collect()
}

/// Within runs of equal (value, submit), order by id then position.
pub(super) fn sort_equal_runs_by_id(
    order: &mut [usize],
    values: &[f64],
    submit: &[f64],
    ids: &Texts,
) {
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
                cmp_job_ids(ids.get(a).unwrap_or(""), ids.get(b).unwrap_or("")).then(a.cmp(&b))
            });
        }
        start = end;
    }
}
