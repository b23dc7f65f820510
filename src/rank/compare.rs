//! What the order is: one ranked job, the tie-break keys after the value, and the comparison
//! sort that defines the order (every fast path is tested against it).

use super::key::{ascending_key, value_key};
use crate::table::Texts;
use std::cmp::Ordering;

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
    /// Job ids (one buffer for all: [`Texts`]), compared as strings.
    pub ids: Option<&'a Texts>,
}

/// The general comparison sort (used with a fairshare tie-break, for top-k with ids, and
/// beyond u32 positions): the definition the fast paths are tested against.
pub(super) fn order_by_comparator(
    values: &[f64],
    ties: TieBreak<'_>,
    top: Option<usize>,
) -> Vec<usize> {
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
