//! Ranking values as PBS's `job_sort_formula` sort does, into the host's order array.

use super::args::{Bytes, check_len};
use super::status::{Failure, JobsortStatus, guard_status};
use crate::rank::{RankOptions, TieBreak, rank};

/// Rank `n` jobs by value: writes into `order` the job indices from the highest value to the
/// lowest, ties broken by submission order — `submit[i]` ascending when `submit` is not NULL
/// (e.g. submission times or PBS `qrank`), else input order — then by input order. This is
/// the order PBS's `job_sort_formula` sort gives. `-0.0` equals `0.0`. A value may be
/// infinite, as `jobsort_eval` gives it under `JOBSORT_COMPILE_COMPAT_PBS` for a value beyond
/// a 32-bit float: `+inf` ranks above every finite value and `-inf` below, infinities of one
/// sign tie, as PBS sorts its `float formula_value` (OpenPBS `src/scheduler/sort.cpp`,
/// `cmp_job_sort_formula`). A NaN value (which `jobsort_eval` never writes: PBS's comparisons
/// give it no place) and a `submit` that is not finite fail with `JOBSORT_STATUS_NOT_FINITE`.
/// `order` must not overlap `values` or `submit` (`JOBSORT_STATUS_INVALID_ARGUMENT`, nothing
/// written).
///
/// # Safety
/// `values` (and `submit`, unless NULL) are NULL or valid for `n` reads; `order` is NULL or
/// valid for `n` writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_rank(
    values: *const f64,
    n: usize,
    submit: *const f64,
    order: *mut usize,
) -> JobsortStatus {
    guard_status("jobsort_rank", || {
        if values.is_null() {
            return Err(Failure::null("values"));
        }
        if order.is_null() {
            return Err(Failure::null("order"));
        }
        check_len(n)?;
        let order_bytes = Bytes::of(order, n);
        for (what, p) in [("values", values), ("submit", submit)] {
            if !p.is_null() && Bytes::of(p, n).overlaps(order_bytes) {
                return Err(Failure::new(
                    JobsortStatus::InvalidArgument,
                    format!("`order` overlaps `{what}`: the order would overwrite them"),
                ));
            }
        }
        // SAFETY: valid for `n` reads (caller contract).
        let values = unsafe { std::slice::from_raw_parts(values, n) };
        let submit = if submit.is_null() {
            None
        } else {
            // SAFETY: valid for `n` reads (caller contract).
            Some(unsafe { std::slice::from_raw_parts(submit, n) })
        };
        // A value may be infinite (PBS sorts it), never NaN; a submission key is finite.
        let nan: fn(&f64) -> bool = |v| v.is_nan();
        let not_finite: fn(&f64) -> bool = |v| !v.is_finite();
        for (what, column, bad) in [
            ("values", Some(values), nan),
            ("submit", submit, not_finite),
        ] {
            if let Some(i) = column.and_then(|c| c.iter().position(bad)) {
                return Err(Failure::new(
                    JobsortStatus::NotFinite,
                    format!(
                        "{what}[{i}] is not finite ({})",
                        column.map_or(0.0, |c| c[i])
                    ),
                ));
            }
        }
        let ranked = rank(
            values,
            TieBreak {
                submit,
                ..TieBreak::default()
            },
            &RankOptions::default(),
        );
        // SAFETY: valid for `n` writes (caller contract).
        let order = unsafe { std::slice::from_raw_parts_mut(order, n) };
        for (slot, r) in order.iter_mut().zip(&ranked) {
            *slot = r.index;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capi::status::last_error;
    use std::ptr;

    #[test]
    fn rank_checks_and_orders() {
        let values = [1.0, 3.0, 1.0, -0.0, 0.0];
        let mut order = [9usize; 5];
        // SAFETY: arrays of length 5.
        unsafe {
            assert_eq!(
                jobsort_rank(values.as_ptr(), 5, ptr::null(), order.as_mut_ptr()),
                JobsortStatus::Ok
            );
            assert_eq!(order, [1, 0, 2, 3, 4]);
            let submit = [5.0, 0.0, 4.0, 2.0, 1.0];
            assert_eq!(
                jobsort_rank(values.as_ptr(), 5, submit.as_ptr(), order.as_mut_ptr()),
                JobsortStatus::Ok
            );
            assert_eq!(order, [1, 2, 0, 4, 3]);
            assert_eq!(
                jobsort_rank(values.as_ptr(), 0, ptr::null(), order.as_mut_ptr()),
                JobsortStatus::NoJobs
            );
            assert_eq!(
                jobsort_rank(ptr::null(), 5, ptr::null(), order.as_mut_ptr()),
                JobsortStatus::NullArgument
            );
            assert_eq!(
                jobsort_rank(values.as_ptr(), 5, ptr::null(), ptr::null_mut()),
                JobsortStatus::NullArgument
            );
            let nan = [1.0, f64::NAN];
            assert_eq!(
                jobsort_rank(nan.as_ptr(), 2, ptr::null(), order.as_mut_ptr()),
                JobsortStatus::NotFinite
            );
            assert_eq!(last_error(), "jobsort_rank: values[1] is not finite (NaN)");
            let late = [0.0, f64::INFINITY];
            assert_eq!(
                jobsort_rank(values.as_ptr(), 2, late.as_ptr(), order.as_mut_ptr()),
                JobsortStatus::NotFinite
            );
            assert_eq!(last_error(), "jobsort_rank: submit[1] is not finite (inf)");
        }
    }

    /// Infinite values rank as PBS sorts its `float formula_value` (`cmp_job_sort_formula`:
    /// `<` and `>`): `+inf` first, `-inf` last, equal infinities tied and broken by submission.
    #[test]
    fn infinite_values_rank_as_pbs_sorts_them() {
        let (inf, ninf) = (f64::INFINITY, f64::NEG_INFINITY);
        let values = [1.0, inf, ninf, inf, 0.0, ninf];
        let mut order = [9usize; 6];
        // SAFETY: arrays of length 6.
        unsafe {
            assert_eq!(
                jobsort_rank(values.as_ptr(), 6, ptr::null(), order.as_mut_ptr()),
                JobsortStatus::Ok
            );
            assert_eq!(order, [1, 3, 0, 4, 2, 5]);
            let submit = [0.0, 9.0, 5.0, 1.0, 0.0, 4.0];
            assert_eq!(
                jobsort_rank(values.as_ptr(), 6, submit.as_ptr(), order.as_mut_ptr()),
                JobsortStatus::Ok
            );
            assert_eq!(order, [3, 1, 0, 4, 5, 2]);
        }
    }
}
