//! Evaluating a compiled formula over the host's job columns, and the per-job error codes.

use super::args::check_len;
use super::compile::JobsortFormula;
use super::handles::handle_ref;
use super::status::{Failure, JobsortStatus, guard_status};
use crate::formula::pymath::EvalError;
use std::ffi::{CStr, c_char};

/// Evaluate the formula for `n` jobs. `columns` holds one pointer per input column (see
/// [`jobsort_column_count`] / [`jobsort_column_index`]), each to `n` doubles: `columns[k][i]`
/// is input `k` of job `i` (resources in PBS units: seconds, kilobytes; a job that did not
/// request a resource has 0). `columns` may be NULL only when the formula reads no column.
///
/// Writes `out[i]`, the value of job `i`, and `errors[i]`, 0 or the code of the error its
/// evaluation raised (then `out[i]` is 0, PBS's policy; see
/// [`jobsort_eval_error_message`]). Per-job errors do not make the call fail. `n = 0` fails
/// with `JOBSORT_STATUS_NO_JOBS` and writes nothing. The results are bit-identical to the
/// Rust API's `CompiledFormula::evaluate_columns`.
///
/// # Safety
/// `formula` is NULL or a live handle; `columns` is NULL or points to as many pointers as
/// the formula has columns, each NULL or valid for `n` reads; `out` and `errors` are NULL
/// or valid for `n` writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_eval(
    formula: *const JobsortFormula,
    columns: *const *const f64,
    n: usize,
    out: *mut f64,
    errors: *mut u8,
) -> JobsortStatus {
    guard_status("jobsort_eval", || {
        // SAFETY: caller contract.
        let f = unsafe { handle_ref(formula, "formula") }?;
        let k = f.columns.len();
        if k > 0 && columns.is_null() {
            return Err(Failure::null("columns"));
        }
        if out.is_null() {
            return Err(Failure::null("out"));
        }
        if errors.is_null() {
            return Err(Failure::null("errors"));
        }
        check_len(n)?;
        let pointers: &[*const f64] = if k == 0 {
            &[]
        } else {
            // SAFETY: `columns` holds `k` pointers (caller contract).
            unsafe { std::slice::from_raw_parts(columns, k) }
        };
        let mut slices: Vec<&[f64]> = Vec::with_capacity(k);
        for (j, &p) in pointers.iter().enumerate() {
            if p.is_null() {
                return Err(Failure::new(
                    JobsortStatus::NullArgument,
                    format!("columns[{j}] (column `{}`) is NULL", f.formula.inputs()[j]),
                ));
            }
            // SAFETY: each column pointer is valid for `n` reads (caller contract).
            slices.push(unsafe { std::slice::from_raw_parts(p, n) });
        }
        let evaluation = f.formula.evaluate_columns(&slices, n);
        // SAFETY: `out` and `errors` are valid for `n` writes (caller contract).
        let (out, errors) = unsafe {
            (
                std::slice::from_raw_parts_mut(out, n),
                std::slice::from_raw_parts_mut(errors, n),
            )
        };
        out.copy_from_slice(&evaluation.values);
        errors.copy_from_slice(&evaluation.errors);
        Ok(())
    })
}

/// The message of a per-job evaluation error code from [`jobsort_eval`]'s `errors` array
/// (`"float division by zero"`, `"math domain error"`, ...); `""` for 0 (no error) and
/// `"unknown evaluation error code"` for a code jobsort never writes. Static; do not free.
#[unsafe(no_mangle)]
pub extern "C" fn jobsort_eval_error_message(code: u8) -> *const c_char {
    if code == 0 {
        return c"".as_ptr();
    }
    EvalError::from_code(code)
        .map_or(c"unknown evaluation error code", eval_error_c_message)
        .as_ptr()
}

/// [`EvalError::message`] as a static C string (no allocation, so nothing for a leak
/// checker to report; a unit test keeps the two in step).
fn eval_error_c_message(e: EvalError) -> &'static CStr {
    match e {
        EvalError::FloatDivisionByZero => c"float division by zero",
        EvalError::FloatFloorDivisionByZero => c"float floor division by zero",
        EvalError::FloatModulo => c"float modulo",
        EvalError::PowRange => c"(34, 'Numerical result out of range')",
        EvalError::ZeroToNegativePower => c"0.0 cannot be raised to a negative power",
        EvalError::NegativeToFractionalPower => {
            c"negative number cannot be raised to a fractional power"
        }
        EvalError::MathDomain => c"math domain error",
        EvalError::MathRange => c"math range error",
        EvalError::InfinityToInteger => c"cannot convert float infinity to integer",
        EvalError::NanToInteger => c"cannot convert float NaN to integer",
        EvalError::NotFinite => c"formula value is not finite",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eval_error_messages_follow_the_codes() {
        for e in EvalError::ALL {
            // SAFETY: static strings.
            let m = unsafe { CStr::from_ptr(jobsort_eval_error_message(e.code())) };
            assert_eq!(m.to_str().unwrap(), e.message());
        }
        // SAFETY: static strings.
        unsafe {
            assert_eq!(CStr::from_ptr(jobsort_eval_error_message(0)), c"");
            assert_eq!(
                CStr::from_ptr(jobsort_eval_error_message(200)),
                c"unknown evaluation error code"
            );
        }
    }
}
