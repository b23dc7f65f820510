//! The first k jobs of the order by value, without allocating once the buffers have grown.

use super::compare::{TieBreak, order_by_comparator};
use super::key::JobKey;

/// The first `top` jobs (all when `None`) of the order of [`rank`](super::rank) without
/// submission keys (value descending, then position), best first, as positions in `out`.
/// Nothing is allocated once `keys` (scratch) and `out` have grown to the size needed: callers
/// that rank every round (the simulator) keep both. At most `u32::MAX` values are ranked
/// (positions are `u32`).
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

/// The first `top` jobs of the order by value (then position), as indices: [`top_into`] with
/// fresh buffers, or the comparison sort beyond `u32` positions.
pub(super) fn order_by_value(values: &[f64], top: Option<usize>) -> Vec<usize> {
    if values.len() > u32::MAX as usize {
        return order_by_comparator(values, TieBreak::default(), top);
    }
    let (mut keys, mut out) = (Vec::new(), Vec::new());
    top_into(values, top, &mut keys, &mut out);
    out.into_iter().map(|i| i as usize).collect()
}
