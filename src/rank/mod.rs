//! Ranking jobs by formula value: descending, ties by submission order then the id's sequence
//! number (PBS `cmp_sort`: formula value, then `qrank`), with PBS's
//! `job_sort_formula_threshold` and top-k.
//!
//! Every job's value is compared through its IEEE total-order bits (descending, `-0.0` folded
//! into `0.0`, NaN last). A full ranking by value (no submission keys) is built directly in the
//! returned `Vec<Ranked>`: one stable MSD radix scatter into value buckets, further radix levels
//! for big buckets (one shared scratch buffer, digit width chosen for about eight jobs per
//! sub-bucket), a stable insertion sort for small ones — no full-size key,
//! index or scratch arrays. With submission keys every job becomes one packed integer key
//! (value bits, submission key, then the input position) sorted by an LSD radix sort (large
//! inputs) or pdqsort (small ones). Keys are unique, so the order is fully determined. Top-k
//! selects on the same keys (a sorted prefix for small k, else `select_nth_unstable`, O(n))
//! and sorts only the first k.
//!
//! Files: the entry points [`rank`] and [`order`] here; `compare` the definition (the
//! comparison sort every fast path is tested against) and the types it orders; `key` the
//! integer keys ([`value_key`], [`JobKey`]); `top` the allocation-free top-k by value
//! ([`top_into`], used by the simulator and by [`rank`]'s top-k without submission keys);
//! `by_value` the full ranking by value built in its output; `packed` the sorts with
//! submission keys; `radix` the radix passes they share; `threshold` PBS's threshold, which
//! is never NaN; `moves` two orders of the same jobs compared (`rank --compare`).

mod by_value;
mod compare;
mod key;
mod moves;
mod packed;
mod radix;
mod threshold;
mod top;

pub use compare::{Ranked, TieBreak, cmp_job_ids};
pub use key::{JobKey, value_key};
pub use moves::Moves;
pub use threshold::{NanThreshold, Threshold};
pub use top::top_into;

use by_value::rank_by_value;
use compare::order_by_comparator;
use packed::{order_by_value_submit, sort_equal_runs_by_id};
use top::order_by_value;

/// Options for [`rank`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RankOptions {
    /// Jobs with value `<= threshold` are not runnable (PBS's threshold is inclusive).
    pub threshold: Option<Threshold>,
    /// Keep only the first `k` (selected without sorting the rest).
    pub top: Option<usize>,
}

/// Order jobs by value descending (`-0.0` equals `0.0`, as [`value_key`]), then the fairshare
/// rank when given, then `submit` ascending (input order when none), then id
/// ([`cmp_job_ids`]: sequence number, array index, text), then input position. `values` should be finite (evaluation guarantees it); a NaN value ranks after
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
            let runnable = options.threshold.is_none_or(|t| t.admits(value));
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

#[cfg(test)]
mod tests {
    use super::packed::RADIX_MIN;
    use super::*;
    use crate::table::Texts;

    #[test]
    fn descending_with_ties_by_submission_order_then_id() {
        let values = [1.0, 3.0, 1.0, 3.0];
        let ids: Texts = ["d", "c", "b", "a"].into_iter().collect();
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

    /// PBS's `cmp_sort` (OpenPBS `src/scheduler/sort.cpp`) ends with `qrank`, the order the
    /// jobs were queued in: between equal values and equal submission keys the job with the
    /// lower sequence number comes first (`96.vm` before `108.vm`, which text puts first),
    /// array subjobs by their index, on every path (full, top-k, with and without fairshare).
    #[test]
    fn ties_by_sequence_number_not_id_text() {
        let ids: Texts = [
            "108.vm",
            "96.vm",
            "12[10].vm",
            "12[2].vm",
            "12[].vm",
            "x.vm",
            "9.vm",
        ]
        .into_iter()
        .collect();
        let values = [1.0; 7];
        let submit = [5.0; 7];
        let fair_share = [0; 7];
        let want = vec![6, 4, 3, 2, 1, 0, 5];
        for fs in [None, Some(&fair_share[..])] {
            let ties = TieBreak {
                fair_share: fs,
                submit: Some(&submit),
                ids: Some(&ids),
            };
            assert_eq!(order(&values, ties, None), want);
            assert_eq!(order(&values, ties, Some(3)), want[..3].to_vec());
        }
        assert_eq!(cmp_job_ids("96.vm", "108.vm"), std::cmp::Ordering::Less);
        assert_eq!(cmp_job_ids("12[].vm", "12[0].vm"), std::cmp::Ordering::Less);
        assert_eq!(cmp_job_ids("b", "a"), std::cmp::Ordering::Greater);
    }

    #[test]
    fn threshold_is_inclusive_and_top_k_selects() {
        let values = [1.0, 5.0, 2.0, 4.0];
        let opts = RankOptions {
            threshold: Some(Threshold::new(2.0).unwrap()),
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
            let ids: Texts = (0..n).map(|_| format!("{}", next() % 7)).collect();
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
                        threshold: Some(Threshold::new(1.0).unwrap()),
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
    /// (the old fairshare comparator took NaN as equal to every value).
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
                threshold: Some(Threshold::new(0.0).unwrap()),
                top: None,
            },
        );
        let runnable: Vec<bool> = r.iter().map(|r| r.runnable).collect();
        assert_eq!(runnable, [true, true, true, true, false, false, false]);
    }
}
