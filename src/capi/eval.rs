//! Evaluating a compiled formula over the host's job columns, and the per-job error codes.

use super::args::{Bytes, check_len};
use super::compile::JobsortFormula;
use super::handles::handle_ref;
use super::status::{Failure, JobsortStatus, guard_status};
use crate::formula::pymath::EvalError;
use crate::formula::{ColumnError, CompiledFormula};
use std::ffi::{CStr, c_char};

/// PBS compatibility ([`JOBSORT_COMPILE_COMPAT_PBS`]) evaluates copies of the inputs rounded
/// as PBS passes them; evaluating this many jobs at a time bounds those copies at 8 MiB per
/// column whatever `n` is (a block is still split across threads like a whole table).
const COMPAT_BLOCK: usize = 1 << 20;

/// Evaluate the formula for `n` jobs. `columns` holds one pointer per input column (see
/// `jobsort_column_count` / `jobsort_column_index`), each to `n` doubles: `columns[k][i]`
/// is input `k` of job `i` (resources in PBS units: seconds, kilobytes; a job that did not
/// request a resource has 0). `columns` may be NULL only when the formula reads no column.
///
/// Writes `out[i]`, the value of job `i`, and `errors[i]`, 0 or the code of the error its
/// evaluation raised (then `out[i]` is 0, PBS's policy; see
/// [`jobsort_eval_error_message`]). A value is finite (a formula whose value is not is an
/// error, code `formula value is not finite`), except under `JOBSORT_COMPILE_COMPAT_PBS`: a
/// value beyond a 32-bit float's range is then `+inf` or `-inf` with error 0, as PBS stores it
/// in its `float formula_value` and sorts it (`jobsort_rank` ranks it so, first or last). Per-job errors do not make the call fail. `n = 0` fails
/// with `JOBSORT_STATUS_NO_JOBS` and writes nothing. The results are bit-identical to the
/// Rust API's `CompiledFormula::evaluate_columns`.
///
/// The results go straight into `out` and `errors`, which must not overlap each other or a
/// column (`JOBSORT_STATUS_INVALID_ARGUMENT`); nothing the size of `n` is allocated. The
/// call's own list of column pointers failing to allocate is `JOBSORT_STATUS_OUT_OF_MEMORY`.
///
/// # Safety
/// `formula` may be any value (it is checked); `columns` is NULL or points to as many pointers as
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
        let f = handle_ref(formula, "formula")?;
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
        let out_bytes = Bytes::of(out, n);
        let errors_bytes = Bytes::of(errors, n);
        if out_bytes.overlaps(errors_bytes) {
            return Err(Failure::new(
                JobsortStatus::InvalidArgument,
                "`out` and `errors` overlap",
            ));
        }
        let mut slices: Vec<&[f64]> = Vec::new();
        slices
            .try_reserve_exact(k)
            .map_err(|_| Failure::out_of_memory(&format!("the list of {k} column pointers")))?;
        for (j, &p) in pointers.iter().enumerate() {
            let column = || format!("columns[{j}] (column `{}`)", f.formula.inputs()[j]);
            if p.is_null() {
                return Err(Failure::new(
                    JobsortStatus::NullArgument,
                    format!("{} is NULL", column()),
                ));
            }
            let bytes = Bytes::of(p, n);
            for (output, name) in [(out_bytes, "out"), (errors_bytes, "errors")] {
                if bytes.overlaps(output) {
                    return Err(Failure::new(
                        JobsortStatus::InvalidArgument,
                        format!(
                            "`{name}` overlaps {}: the results would overwrite inputs still to be read",
                            column()
                        ),
                    ));
                }
            }
            // SAFETY: each column pointer is valid for `n` reads (caller contract).
            slices.push(unsafe { std::slice::from_raw_parts(p, n) });
        }
        // SAFETY: `out` and `errors` are valid for `n` writes (caller contract) and overlap
        // neither each other nor a column (checked above).
        let (out, errors) = unsafe {
            (
                std::slice::from_raw_parts_mut(out, n),
                std::slice::from_raw_parts_mut(errors, n),
            )
        };
        evaluate(&f.formula, &slices, out, errors)
    })
}

/// [`CompiledFormula::evaluate_into`] the caller's buffers, in [`COMPAT_BLOCK`]s for a
/// PBS-compatible formula.
fn evaluate(
    formula: &CompiledFormula,
    columns: &[&[f64]],
    out: &mut [f64],
    errors: &mut [u8],
) -> Result<(), Failure> {
    // The columns were checked to fit, so `evaluate_into` cannot refuse them.
    let unexpected =
        |e: ColumnError| Failure::new(JobsortStatus::Panic, format!("internal error: {e}"));
    if !formula.options().compat_pbs || out.len() <= COMPAT_BLOCK {
        return formula
            .evaluate_into(columns, out, errors)
            .map_err(unexpected);
    }
    let mut block: Vec<&[f64]> = Vec::new();
    block
        .try_reserve_exact(columns.len())
        .map_err(|_| Failure::out_of_memory("the list of column pointers of a block"))?;
    let blocks = out
        .chunks_mut(COMPAT_BLOCK)
        .zip(errors.chunks_mut(COMPAT_BLOCK));
    for (b, (out, errors)) in blocks.enumerate() {
        let start = b * COMPAT_BLOCK;
        block.clear();
        block.extend(columns.iter().map(|c| &c[start..start + out.len()]));
        formula
            .evaluate_into(&block, out, errors)
            .map_err(unexpected)?;
    }
    Ok(())
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
        EvalError::IntDivisionByZero => c"division by zero",
        EvalError::IntFloorDivisionByZero => c"integer division or modulo by zero",
        EvalError::IntModuloByZero => c"integer modulo by zero",
        EvalError::IntTooLargeForFloat => c"int too large to convert to float",
        EvalError::IntDivisionTooLarge => c"integer division result too large for a float",
        EvalError::IntResultTooLarge => {
            c"the value is an int too large for a float: pbs_sched logs -1 and crashes"
        }
        EvalError::IntTooLargeToModel => {
            c"an int of more than 65536 bits: jobsort does not compute it"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capi::handles::handle_ref;
    use crate::capi::status::last_error;
    use crate::capi::{JOBSORT_COMPILE_COMPAT_PBS, jobsort_compile_with, jobsort_free};
    use std::ptr;

    fn compile(source: &CStr, flags: u32) -> *mut JobsortFormula {
        // SAFETY: NUL-terminated source; NULL catalog and diagnostics are allowed.
        let f =
            unsafe { jobsort_compile_with(source.as_ptr(), ptr::null(), flags, ptr::null_mut()) };
        assert!(!f.is_null(), "{}", last_error());
        f
    }

    #[test]
    fn compat_blocks_give_the_values_of_one_evaluation() {
        let f = compile(c"ncpus / 3 + walltime / 7", JOBSORT_COMPILE_COMPAT_PBS);
        let n = 2 * COMPAT_BLOCK + 1001;
        let ncpus: Vec<f64> = (0..n).map(|i| (i % 977) as f64 + 0.123456789).collect();
        let walltime: Vec<f64> = (0..n).map(|i| (i % 13) as f64 * 1e7 / 3.0).collect();
        let handle = handle_ref(f, "formula").unwrap_or_else(|_| panic!("a live formula"));
        let compiled = &handle.formula;
        let mut by_name = [ncpus.as_slice(), walltime.as_slice()];
        if compiled.inputs()[0] == "walltime" {
            by_name.swap(0, 1);
        }
        let expected = compiled.evaluate_columns(&by_name, n);
        let columns = by_name.map(<[f64]>::as_ptr);
        let (mut out, mut errors) = (vec![f64::NAN; n], vec![9u8; n]);
        // SAFETY: two columns of `n` doubles, outputs of `n` elements.
        let status = unsafe {
            jobsort_eval(
                f,
                columns.as_ptr(),
                n,
                out.as_mut_ptr(),
                errors.as_mut_ptr(),
            )
        };
        assert_eq!(status, JobsortStatus::Ok, "{}", last_error());
        assert!(
            out.iter()
                .zip(&expected.values)
                .all(|(a, b)| a.to_bits() == b.to_bits())
        );
        assert_eq!(errors, expected.errors);
        // SAFETY: live handle, freed once.
        unsafe { jobsort_free(f) };
    }

    #[test]
    fn outputs_overlapping_each_other_or_a_column_are_refused() {
        let f = compile(c"ncpus * 2", 0);
        let mut ncpus = vec![1.0, 2.0, 3.0, 4.0];
        let mut errors = [0u8; 4];
        let inputs = [ncpus.as_ptr()];
        // SAFETY: `out` is the column itself: valid for 4 reads and writes; the call refuses
        // it before forming any slice.
        let status = unsafe {
            jobsort_eval(
                f,
                inputs.as_ptr(),
                4,
                ncpus.as_mut_ptr(),
                errors.as_mut_ptr(),
            )
        };
        assert_eq!(status, JobsortStatus::InvalidArgument);
        assert_eq!(
            last_error(),
            "jobsort_eval: `out` overlaps columns[0] (column `ncpus`): the results would \
             overwrite inputs still to be read"
        );
        assert_eq!(ncpus, [1.0, 2.0, 3.0, 4.0]);
        let mut out = [0.0f64; 4];
        // SAFETY: `errors` is the first bytes of `out`: valid for 4 writes; refused.
        let status = unsafe {
            jobsort_eval(
                f,
                inputs.as_ptr(),
                4,
                out.as_mut_ptr(),
                out.as_mut_ptr().cast(),
            )
        };
        assert_eq!(status, JobsortStatus::InvalidArgument);
        assert_eq!(last_error(), "jobsort_eval: `out` and `errors` overlap");
        // Adjacent arrays do not overlap.
        let mut both = [0.0f64; 8];
        let (left, right) = both.split_at_mut(4);
        let inputs = [left.as_ptr()];
        left.copy_from_slice(&[1.0, 2.0, 3.0, 4.0]);
        // SAFETY: disjoint arrays of 4 elements.
        let status = unsafe {
            jobsort_eval(
                f,
                inputs.as_ptr(),
                4,
                right.as_mut_ptr(),
                errors.as_mut_ptr(),
            )
        };
        assert_eq!(status, JobsortStatus::Ok, "{}", last_error());
        assert_eq!(right, [2.0, 4.0, 6.0, 8.0]);
        // SAFETY: live handle, freed once.
        unsafe { jobsort_free(f) };
    }

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
