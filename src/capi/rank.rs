//! Ranking values as PBS's `job_sort_formula` sort does, into the host's order array.

use super::args::{Bytes, check_len};
use super::status::{Failure, JobsortStatus, guard_status};
use crate::rank::{RankOptions, TieBreak, rank};

/// Rank `n` jobs by value: writes into `order` the job indices from the highest value to the
/// lowest, ties broken by submission order — `submit[i]` ascending when `submit` is not NULL
/// (e.g. submission times or PBS `qrank`), else input order — then by input order. This is
/// the order PBS's `job_sort_formula` sort gives. Values must be finite (as `jobsort_eval`
/// guarantees); `-0.0` equals `0.0`. `order` must not overlap `values` or `submit`
/// (`JOBSORT_STATUS_INVALID_ARGUMENT`, nothing written).
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
        for (what, column) in [("values", Some(values)), ("submit", submit)] {
            if let Some(i) = column.and_then(|c| c.iter().position(|v| !v.is_finite())) {
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
        }
    }
}
