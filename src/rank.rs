//! Ranking jobs by formula value: descending, ties by submission order then id (PBS
//! `cmp_sort`: formula value, then `qrank`), with PBS's `job_sort_formula_threshold` and top-k.

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

/// Tie-break keys for ranking: submission order (`submit`, or input order when absent), then id.
#[derive(Debug, Clone, Copy)]
pub struct TieBreak<'a> {
    pub submit: Option<&'a [f64]>,
    pub ids: Option<&'a [String]>,
}

/// Order jobs by value descending (`-0.0` equals `0.0`), then `submit` ascending (input order
/// when none), then id, then input position. `values` must be finite (evaluation guarantees it).
pub fn rank(values: &[f64], ties: TieBreak<'_>, options: &RankOptions) -> Vec<Ranked> {
    let cmp = |&a: &usize, &b: &usize| -> Ordering {
        // Descending by value; finite values compare totally after normalising -0.0.
        let (va, vb) = (values[a] + 0.0, values[b] + 0.0);
        vb.partial_cmp(&va)
            .unwrap_or(Ordering::Equal)
            .then_with(|| match ties.submit {
                Some(s) => s[a].partial_cmp(&s[b]).unwrap_or(Ordering::Equal),
                None => a.cmp(&b),
            })
            .then_with(|| match ties.ids {
                Some(ids) => ids[a].cmp(&ids[b]),
                None => Ordering::Equal,
            })
            .then_with(|| a.cmp(&b))
    };
    let mut order: Vec<usize> = (0..values.len()).collect();
    match options.top {
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
                submit: None,
                ids: Some(&ids),
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
        let r = rank(
            &values,
            TieBreak {
                submit: None,
                ids: None,
            },
            &opts,
        );
        assert_eq!(
            r.iter().map(|r| (r.index, r.runnable)).collect::<Vec<_>>(),
            vec![(1, true), (3, true), (2, false)]
        );
    }
}
