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
    /// Job ids (one buffer for all: [`Texts`]), compared by [`cmp_job_ids`]: by sequence
    /// number, not as text.
    pub ids: Option<&'a Texts>,
}

/// The order of two job ids after equal submission order: PBS's jobs were queued in the
/// order of their sequence numbers (`108.vm` after `96.vm`, where text puts it first), so
/// the number an id starts with is compared first, then an array index (`12[3].vm` after
/// `12[].vm` and `12[2].vm`), then the text. Ids that start with no number come after those
/// that do, by text.
pub fn cmp_job_ids(a: &str, b: &str) -> Ordering {
    let (ka, kb) = (id_key(a), id_key(b));
    ka.0.is_none()
        .cmp(&kb.0.is_none())
        .then(ka.cmp(&kb))
        .then_with(|| a.cmp(b))
}

/// An id's sequence number (its leading digits; `None` for none, or more than fit a `u64`)
/// and array index (the digits of a `[N]` right after them).
fn id_key(id: &str) -> (Option<u64>, Option<u64>) {
    let digits = id.bytes().take_while(u8::is_ascii_digit).count();
    let Some(seq) = whole(&id[..digits]) else {
        return (None, None);
    };
    let index = id[digits..]
        .strip_prefix('[')
        .and_then(|r| r.split_once(']'))
        .and_then(|(n, _)| whole(n));
    (Some(seq), index)
}

/// 1 to 19 ASCII digits as a number (every such text fits a `u64`).
fn whole(s: &str) -> Option<u64> {
    (!s.is_empty() && s.len() <= 19 && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
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
                Some(ids) => cmp_job_ids(ids.get(a).unwrap_or(""), ids.get(b).unwrap_or("")),
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
