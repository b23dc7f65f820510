//! The C ABI called from Rust: results through `jobsort_eval` / `jobsort_rank` equal the
//! Rust API's bit for bit (values and per-job error codes, every engine and option), the
//! diagnostics are the same data, and one compiled formula is shared by threads.

use jobsort::capi::*;
use jobsort::formula::diag::Severity;
use jobsort::rank::{RankOptions, TieBreak, rank};
use jobsort::{Catalog, CompileOptions, Engine, Formula, ResourceType};
use std::ffi::{CStr, CString, c_char};
use std::ptr;

const FORMULAS: &[&str] = &[
    "pow(2, -(fairshare_tree_usage/fairshare_perc)) * 1000 + ncpus",
    "ncpus * 2 + walltime / 3600",
    "log(mem) + sqrt(ncpus)",
    "ncpus // 3 + ncpus % 3 - job_priority ** 2",
    "walltime / ncpus if ncpus > 0 else 0",
    "1000 * fairshare_factor + eligible_time / 60 + queue_priority",
    "max(ncpus, 4) - min(walltime, 3600) / 100",
    "exp(ncpus) + gpu_hours * 0.5",
    "ncpus > 4 and walltime < 3600 or mem",
];

/// Deterministic inputs with the awkward values mixed in: zeros of both signs, tiny and
/// huge magnitudes, negatives.
fn column(seed: u64, n: usize) -> Vec<f64> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match i % 11 {
                0 => 0.0,
                1 => -0.0,
                2 => 1e-300,
                3 => 1e300,
                4 => -((x % 1000) as f64),
                5 => (x % 4) as f64,
                _ => (x % 1_000_000) as f64 / 997.0,
            }
        })
        .collect()
}

fn catalog() -> Catalog {
    Catalog::pbs().with_resource("gpu_hours", ResourceType::Float)
}

/// A C catalog with the same custom resource as [`catalog`].
fn c_catalog() -> *mut JobsortCatalog {
    let c = jobsort_catalog_new();
    assert!(!c.is_null());
    // SAFETY: live handle, NUL-terminated strings.
    let s = unsafe { jobsort_catalog_add_resource(c, c"gpu_hours".as_ptr(), c"float".as_ptr()) };
    assert_eq!(s, JobsortStatus::Ok);
    c
}

fn last_error() -> String {
    // SAFETY: valid until the next call on this thread.
    unsafe { CStr::from_ptr(jobsort_last_error()) }
        .to_string_lossy()
        .into_owned()
}

fn compile_c(src: &str, catalog: *const JobsortCatalog, flags: u32) -> *mut JobsortFormula {
    let src = CString::new(src).expect("no NUL");
    // SAFETY: NUL-terminated string, live catalog.
    let f = unsafe { jobsort_compile_with(src.as_ptr(), catalog, flags, ptr::null_mut()) };
    assert!(!f.is_null(), "{}", last_error());
    f
}

#[test]
fn eval_through_the_c_abi_equals_the_rust_api_bit_for_bit() {
    let n = 1000;
    let cat = c_catalog();
    for (fi, src) in FORMULAS.iter().enumerate() {
        for flags in [
            0,
            JOBSORT_COMPILE_INTERP,
            JOBSORT_COMPILE_COMPAT_PBS,
            JOBSORT_COMPILE_INTERP | JOBSORT_COMPILE_COMPAT_PBS,
        ] {
            let options = CompileOptions {
                engine: if flags & JOBSORT_COMPILE_INTERP != 0 {
                    Engine::Interp
                } else {
                    Engine::Jit
                },
                compat_pbs: flags & JOBSORT_COMPILE_COMPAT_PBS != 0,
                deny_warnings: false,
            };
            let rust = Formula::compile_with(src, &catalog(), &options)
                .unwrap_or_else(|d| panic!("{src} does not compile:\n{d}"));
            let f = compile_c(src, cat, flags);

            let mut count = 0usize;
            // SAFETY: live handle.
            assert_eq!(
                unsafe { jobsort_column_count(f, &mut count) },
                JobsortStatus::Ok
            );
            assert_eq!(count, rust.inputs().len());
            let data: Vec<Vec<f64>> = (0..count)
                .map(|k| column((fi * 10 + k) as u64 + 1, n))
                .collect();
            for (k, name) in rust.inputs().iter().enumerate() {
                let (mut index, mut c_name): (usize, *const c_char) = (usize::MAX, ptr::null());
                let cname = CString::new(name.column()).expect("no NUL");
                // SAFETY: live handle, NUL-terminated string.
                unsafe {
                    assert_eq!(
                        jobsort_column_index(f, cname.as_ptr(), &mut index),
                        JobsortStatus::Ok
                    );
                    assert_eq!(jobsort_column_name(f, k, &mut c_name), JobsortStatus::Ok);
                    assert_eq!(CStr::from_ptr(c_name).to_str(), Ok(name.column()));
                }
                assert_eq!(index, k);
            }

            let slices: Vec<&[f64]> = data.iter().map(Vec::as_slice).collect();
            let expected = rust.evaluate_columns(&slices, n);
            let pointers: Vec<*const f64> = data.iter().map(|c| c.as_ptr()).collect();
            let (mut values, mut errors) = (vec![f64::NAN; n], vec![255u8; n]);
            // SAFETY: `count` columns of `n` values, outputs of `n`.
            let status = unsafe {
                jobsort_eval(
                    f,
                    pointers.as_ptr(),
                    n,
                    values.as_mut_ptr(),
                    errors.as_mut_ptr(),
                )
            };
            assert_eq!(status, JobsortStatus::Ok, "{}", last_error());
            for (i, (got, want)) in values.iter().zip(&expected.values).enumerate() {
                assert_eq!(got.to_bits(), want.to_bits(), "{src} flags {flags} job {i}");
            }
            assert_eq!(errors, expected.errors, "{src} flags {flags}");
            // And every engine agrees with the reference interpreter (SPEC §1.5).
            let reference = Formula::compile_with(
                src,
                &catalog(),
                &CompileOptions {
                    engine: Engine::Interp,
                    ..options
                },
            )
            .expect("compiles")
            .evaluate_columns(&slices, n);
            for (i, (got, want)) in values.iter().zip(&reference.values).enumerate() {
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "{src} flags {flags} job {i} vs interp"
                );
            }
            assert_eq!(errors, reference.errors, "{src} flags {flags} vs interp");
            // SAFETY: live handle, freed once.
            unsafe { jobsort_free(f) };
        }
    }
    // The inputs above do exercise per-job errors (else the error half proves nothing).
    let f = compile_c("log(mem) + sqrt(ncpus)", cat, 0);
    let mem = column(1, n);
    let ncpus = column(2, n);
    let mut k = 0usize;
    // SAFETY: live handle, NUL-terminated string.
    unsafe { jobsort_column_index(f, c"mem".as_ptr(), &mut k) };
    let pointers = if k == 0 {
        [mem.as_ptr(), ncpus.as_ptr()]
    } else {
        [ncpus.as_ptr(), mem.as_ptr()]
    };
    let (mut values, mut errors) = (vec![0.0; n], vec![0u8; n]);
    // SAFETY: as above.
    unsafe {
        jobsort_eval(
            f,
            pointers.as_ptr(),
            n,
            values.as_mut_ptr(),
            errors.as_mut_ptr(),
        );
        jobsort_free(f);
        jobsort_catalog_free(cat);
    }
    assert!(errors.iter().filter(|&&e| e != 0).count() > n / 10);
    for (v, e) in values.iter().zip(&errors) {
        assert!(v.is_finite());
        if *e != 0 {
            assert_eq!(v.to_bits(), 0.0f64.to_bits());
        }
    }
}

#[test]
fn rank_through_the_c_abi_equals_the_rust_api() {
    let n = 500;
    // Many ties: values from a small set.
    let values: Vec<f64> = column(7, n)
        .iter()
        .map(|v| (v.abs() % 5.0).floor() - 2.0)
        .collect();
    let submit: Vec<f64> = column(8, n)
        .iter()
        .map(|v| (v.abs() % 50.0).floor())
        .collect();
    for submit in [None, Some(submit.as_slice())] {
        let expected: Vec<usize> = rank(
            &values,
            TieBreak {
                submit,
                ..TieBreak::default()
            },
            &RankOptions::default(),
        )
        .iter()
        .map(|r| r.index)
        .collect();
        let mut order = vec![usize::MAX; n];
        let submit_ptr = submit.map_or(ptr::null(), <[f64]>::as_ptr);
        // SAFETY: arrays of `n`.
        let status = unsafe { jobsort_rank(values.as_ptr(), n, submit_ptr, order.as_mut_ptr()) };
        assert_eq!(status, JobsortStatus::Ok);
        assert_eq!(order, expected);
    }
}

#[test]
fn diagnostics_through_the_c_abi_are_the_rust_diagnostics() {
    // One invalid formula, one that compiles with warnings/notes.
    for (src, ok) in [
        ("ncpus * bogus_name + 1/0", false),
        (FORMULAS[0], true),
        ("fair_share_perc * 2", true),
    ] {
        let rust = Formula::compile(src, &Catalog::pbs());
        assert_eq!(rust.is_ok(), ok, "{src}");
        let expected: Vec<_> = match &rust {
            Ok(f) => f.diagnostics().to_vec(),
            Err(d) => d.0.clone(),
        };
        let csrc = CString::new(src).expect("no NUL");
        let mut diags: *mut JobsortDiagnostics = ptr::null_mut();
        // SAFETY: NUL-terminated string; NULL catalog means PBS's names.
        let f = unsafe { jobsort_compile(csrc.as_ptr(), ptr::null(), &mut diags) };
        assert_eq!(f.is_null(), !ok);
        assert_eq!(
            jobsort_last_status(),
            if ok {
                JobsortStatus::Ok
            } else {
                JobsortStatus::InvalidFormula
            }
        );
        assert!(!diags.is_null());
        let mut count = 0;
        // SAFETY: live handles; out-pointers to locals.
        unsafe {
            assert_eq!(
                jobsort_diagnostics_count(diags, &mut count),
                JobsortStatus::Ok
            );
            assert_eq!(count, expected.len());
            for (i, d) in expected.iter().enumerate() {
                let mut severity = JobsortSeverity::Note;
                let (mut code, mut message): (*const c_char, *const c_char) =
                    (ptr::null(), ptr::null());
                let (mut start, mut end) = (0, 0);
                assert_eq!(
                    jobsort_diagnostic_severity(diags, i, &mut severity),
                    JobsortStatus::Ok
                );
                assert_eq!(
                    jobsort_diagnostic_code(diags, i, &mut code),
                    JobsortStatus::Ok
                );
                assert_eq!(
                    jobsort_diagnostic_message(diags, i, &mut message),
                    JobsortStatus::Ok
                );
                assert_eq!(
                    jobsort_diagnostic_span(diags, i, &mut start, &mut end),
                    JobsortStatus::Ok
                );
                let want = match d.severity {
                    Severity::Error => JobsortSeverity::Error,
                    Severity::Warning => JobsortSeverity::Warning,
                    Severity::Note => JobsortSeverity::Note,
                };
                assert_eq!(severity, want);
                assert_eq!(CStr::from_ptr(code).to_str(), Ok(d.code));
                assert_eq!(CStr::from_ptr(message).to_str(), Ok(d.message.as_str()));
                assert_eq!((start, end), (d.span.start, d.span.end));
            }
            jobsort_diagnostics_free(diags);
            jobsort_free(f);
        }
        if !ok {
            let first = expected.iter().find(|d| d.is_error()).expect("an error");
            // The accessor calls cleared the last error; compile again to read it.
            // SAFETY: as above.
            let f = unsafe { jobsort_compile(csrc.as_ptr(), ptr::null(), ptr::null_mut()) };
            assert!(f.is_null());
            assert_eq!(
                last_error(),
                format!(
                    "jobsort_compile: the formula has errors; first: error[{}] at bytes {}..{}: {}",
                    first.code, first.span.start, first.span.end, first.message
                )
            );
        }
    }
}

#[test]
fn deny_warnings_flag_turns_warnings_into_errors() {
    // `fair_share_perc` is PBS's deprecated alias: a warning.
    let src = "fair_share_perc * 2";
    let rust = Formula::compile(src, &Catalog::pbs()).expect("compiles with a warning");
    assert!(
        rust.diagnostics()
            .iter()
            .any(|d| d.severity == Severity::Warning)
    );
    let csrc = CString::new(src).expect("no NUL");
    // SAFETY: NUL-terminated string.
    unsafe {
        let f = jobsort_compile_with(csrc.as_ptr(), ptr::null(), 0, ptr::null_mut());
        assert!(!f.is_null(), "{}", last_error());
        jobsort_free(f);
        let f = jobsort_compile_with(
            csrc.as_ptr(),
            ptr::null(),
            JOBSORT_COMPILE_DENY_WARNINGS,
            ptr::null_mut(),
        );
        assert!(f.is_null());
        assert_eq!(jobsort_last_status(), JobsortStatus::InvalidFormula);
    }
}

/// Raw pointers are not `Send`; the handle is documented as shareable, so wrap it.
#[derive(Clone, Copy)]
struct Shared(*const JobsortFormula);
// SAFETY: a compiled formula is immutable and `Sync` (see the capi module docs).
unsafe impl Send for Shared {}
// SAFETY: as above.
unsafe impl Sync for Shared {}

impl Shared {
    /// The handle (a method, so a closure captures the whole `Shared`, not its field).
    fn get(self) -> *const JobsortFormula {
        self.0
    }
}

#[test]
fn one_compiled_formula_is_shared_by_threads() {
    let src = FORMULAS[0];
    let f = Shared(compile_c(src, ptr::null(), 0));
    let rust = Formula::compile(src, &Catalog::pbs()).expect("compiles");
    let n = 2000;
    let data: Vec<Vec<f64>> = (0..rust.inputs().len())
        .map(|k| {
            column(100 + k as u64, n)
                .iter()
                .map(|v| v.abs() % 1.0)
                .collect()
        })
        .collect();
    let slices: Vec<&[f64]> = data.iter().map(Vec::as_slice).collect();
    let expected = rust.evaluate_columns(&slices, n);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let data = &data;
                scope.spawn(move || {
                    let f = f;
                    let pointers: Vec<*const f64> = data.iter().map(|c| c.as_ptr()).collect();
                    let (mut values, mut errors) = (vec![0.0; n], vec![0u8; n]);
                    for _ in 0..5 {
                        // SAFETY: shared immutable handle; arrays of `n`.
                        let s = unsafe {
                            jobsort_eval(
                                f.0,
                                pointers.as_ptr(),
                                n,
                                values.as_mut_ptr(),
                                errors.as_mut_ptr(),
                            )
                        };
                        assert_eq!(s, JobsortStatus::Ok);
                    }
                    (values, errors)
                })
            })
            .collect();
        for h in handles {
            let (values, errors) = h.join().expect("thread");
            assert!(
                values
                    .iter()
                    .zip(&expected.values)
                    .all(|(a, b)| a.to_bits() == b.to_bits())
            );
            assert_eq!(errors, expected.errors);
        }
    });
    // SAFETY: live handle, freed once after the threads are done.
    unsafe { jobsort_free(f.0.cast_mut()) };
}

#[test]
fn a_formula_reading_no_column_takes_null_columns() {
    let f = compile_c("42 + 0 * 1", ptr::null(), 0);
    let mut count = 9;
    let (mut values, mut errors) = ([0.0; 3], [9u8; 3]);
    // SAFETY: live handle; no columns; outputs of 3.
    unsafe {
        assert_eq!(jobsort_column_count(f, &mut count), JobsortStatus::Ok);
        assert_eq!(count, 0);
        assert_eq!(
            jobsort_eval(f, ptr::null(), 3, values.as_mut_ptr(), errors.as_mut_ptr()),
            JobsortStatus::Ok
        );
        jobsort_free(f);
    }
    assert_eq!(values, [42.0; 3]);
    assert_eq!(errors, [0; 3]);
}

fn eval_one_column(f: *const JobsortFormula, column: &[f64], out: &mut [f64]) -> JobsortStatus {
    let mut errors = vec![0u8; column.len()];
    let columns = [column.as_ptr()];
    // SAFETY: one column of `len` doubles, outputs of `len`; the handle is checked.
    unsafe {
        jobsort_eval(
            f,
            columns.as_ptr(),
            column.len(),
            out.as_mut_ptr(),
            errors.as_mut_ptr(),
        )
    }
}

/// A freed handle is refused by every call, even after a new formula took its place (with
/// handles that were addresses, the new formula sat where the old one had been and the old
/// handle evaluated it), and freeing it twice is refused too.
#[test]
fn a_freed_handle_is_refused_even_when_a_new_formula_takes_its_place() {
    let ncpus = [1.0, 2.0, 3.0];
    for _ in 0..50 {
        let old = compile_c("ncpus * 2", ptr::null(), 0);
        // SAFETY: live handle, freed once.
        unsafe { jobsort_free(old) };
        assert_eq!(jobsort_last_status(), JobsortStatus::Ok);
        let new = compile_c("ncpus * 3", ptr::null(), 0);

        let mut out = [-1.0; 3];
        assert_eq!(
            eval_one_column(old, &ncpus, &mut out),
            JobsortStatus::WrongHandle
        );
        assert_eq!(
            last_error(),
            "jobsort_eval: `formula` is not a live jobsort formula handle: it was freed"
        );
        assert_eq!(out, [-1.0; 3], "nothing is written through a freed handle");
        let mut count = 9;
        // SAFETY: the handle is checked; `count` is writable.
        assert_eq!(
            unsafe { jobsort_column_count(old, &mut count) },
            JobsortStatus::WrongHandle
        );
        assert_eq!(count, 9);
        // SAFETY: a double free is checked and refused.
        unsafe { jobsort_free(old) };
        assert_eq!(jobsort_last_status(), JobsortStatus::WrongHandle);

        assert_eq!(eval_one_column(new, &ncpus, &mut out), JobsortStatus::Ok);
        assert_eq!(out, [3.0, 6.0, 9.0]);
        // SAFETY: live handle, freed once.
        unsafe { jobsort_free(new) };
    }

    // A freed catalog and a freed diagnostics list alike.
    let catalog = c_catalog();
    // SAFETY: live handle, freed once.
    unsafe { jobsort_catalog_free(catalog) };
    // SAFETY: NUL-terminated formula; the catalog handle is checked.
    let f = unsafe { jobsort_compile(c"gpu_hours".as_ptr(), catalog, ptr::null_mut()) };
    assert!(f.is_null());
    assert_eq!(
        last_error(),
        "jobsort_compile: `catalog` is not a live jobsort catalog handle: it was freed"
    );
    let mut diags: *mut JobsortDiagnostics = ptr::null_mut();
    // SAFETY: NUL-terminated formula; `diags` is writable.
    let f = unsafe { jobsort_compile(c"ncpus +".as_ptr(), ptr::null(), &mut diags) };
    assert!(f.is_null() && !diags.is_null());
    // SAFETY: live handle, freed once; then checked and refused.
    unsafe {
        jobsort_diagnostics_free(diags);
        let mut count = 0;
        assert_eq!(
            jobsort_diagnostics_count(diags, &mut count),
            JobsortStatus::WrongHandle
        );
    }
    assert!(last_error().ends_with("it was freed"), "{}", last_error());
}

/// A formula freed while other threads evaluate it: each call either ran on the whole
/// formula (it holds the formula until it returns) or was refused; none reads freed memory.
#[test]
fn freeing_a_formula_other_threads_are_evaluating_is_safe() {
    let f = Shared(compile_c("ncpus * 2 + 1", ptr::null(), 0));
    let ncpus: Vec<f64> = (0..4096).map(f64::from).collect();
    let expected: Vec<f64> = ncpus.iter().map(|v| v * 2.0 + 1.0).collect();
    let freed = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..3 {
            let (ncpus, expected, freed) = (&ncpus, &expected, &freed);
            scope.spawn(move || {
                let mut out = vec![0.0; ncpus.len()];
                let mut refused = 0;
                while refused < 3 {
                    match eval_one_column(f.get(), ncpus, &mut out) {
                        JobsortStatus::Ok => assert_eq!(&out, expected),
                        JobsortStatus::WrongHandle => {
                            assert!(freed.load(std::sync::atomic::Ordering::SeqCst));
                            assert!(last_error().ends_with("it was freed"), "{}", last_error());
                            refused += 1;
                        }
                        s => panic!("{s:?}: {}", last_error()),
                    }
                }
            });
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        freed.store(true, std::sync::atomic::Ordering::SeqCst);
        // SAFETY: live handle, freed once while the threads still call with it.
        unsafe { jobsort_free(f.0.cast_mut()) };
        assert_eq!(jobsort_last_status(), JobsortStatus::Ok);
    });
}

/// `order` is written while `values` and `submit` are read: an overlap is refused with the
/// documented status, and nothing is written.
#[test]
fn rank_refuses_an_order_overlapping_its_inputs() {
    let mut buffer = [3.0, 1.0, 2.0, 5.0, 4.0, 0.0];
    let values = buffer.as_ptr();
    let submit = [1.0, 2.0, 3.0];
    for (order_at, submit_at, what) in [
        (0, None, "values"),
        (2, None, "values"),
        (3, Some(3), "submit"),
    ] {
        // SAFETY: `order` (and `submit`, when given an offset) point into `buffer`: 6
        // elements of 8 bytes, read as `usize` by `order`; the call refuses the overlap
        // before reading or writing.
        let status = unsafe {
            let order = buffer.as_mut_ptr().add(order_at).cast::<usize>();
            let submit = submit_at.map_or(submit.as_ptr(), |k| values.add(k));
            jobsort_rank(values, 3, submit, order)
        };
        assert_eq!(status, JobsortStatus::InvalidArgument, "{what}");
        assert_eq!(
            last_error(),
            format!("jobsort_rank: `order` overlaps `{what}`: the order would overwrite them")
        );
        assert_eq!(buffer, [3.0, 1.0, 2.0, 5.0, 4.0, 0.0]);
    }
    // Adjacent arrays do not overlap.
    let mut order = [9usize; 3];
    // SAFETY: arrays of 3.
    let status = unsafe { jobsort_rank(values, 3, submit.as_ptr(), order.as_mut_ptr()) };
    assert_eq!(status, JobsortStatus::Ok, "{}", last_error());
    assert_eq!(order, [0, 2, 1]);
}

/// A custom resource a formula could never read is refused with the reason: a keyword of the
/// language (`if`), a function's or constant's name (`sqrt`, `pi`: PBS evaluates the formula
/// with `eval(formula, resources, locals())` (`formula_evaluate`, OpenPBS
/// `src/scheduler/job_info.cpp`), where the math names bound before are found first), a PBS
/// keyword; and a built-in resource keeps its type.
#[test]
fn catalog_refuses_names_a_formula_cannot_read_and_keeps_built_in_types() {
    let c = jobsort_catalog_new();
    let add = |name: &CStr, ty: &CStr| {
        // SAFETY: live handle, NUL-terminated strings.
        unsafe { jobsort_catalog_add_resource(c, name.as_ptr(), ty.as_ptr()) }
    };
    for (name, reason) in [
        (c"if", "`if` is a keyword of the formula language"),
        (c"and", "`and` is a keyword of the formula language"),
        (c"True", "`True` is a keyword of the formula language"),
        (c"lambda", "`lambda` is a Python keyword"),
        (c"sqrt", "`sqrt` is a function of the formula language"),
        (c"max", "`max` is a function of the formula language"),
        (c"pi", "`pi` is a constant of the formula language"),
        (c"gamma", "`gamma` is a name of Python's math module"),
        (c"eligible_time", "`eligible_time` is a PBS keyword"),
    ] {
        assert_eq!(
            add(name, c"long"),
            JobsortStatus::InvalidArgument,
            "{name:?}"
        );
        let e = last_error();
        assert!(
            e.starts_with(&format!(
                "jobsort_catalog_add_resource: cannot declare a resource {}: {reason}",
                name.to_str().unwrap_or("")
            )),
            "{e}"
        );
    }
    assert_eq!(add(c"ncpus", c"string"), JobsortStatus::InvalidArgument);
    assert_eq!(
        last_error(),
        "jobsort_catalog_add_resource: cannot declare a resource ncpus: `ncpus` is a built-in \
         resource of type long, which cannot change"
    );
    // The same type again changes nothing; a custom resource may be redeclared.
    assert_eq!(add(c"ncpus", c"long"), JobsortStatus::Ok);
    assert_eq!(add(c"gpu_hours", c"long"), JobsortStatus::Ok);
    assert_eq!(add(c"gpu_hours", c"float"), JobsortStatus::Ok);
    // `ncpus` is still the built-in: never negative, so `sqrt(ncpus)` draws no warning.
    let mut diags: *mut JobsortDiagnostics = ptr::null_mut();
    // SAFETY: live catalog; `diags` writable.
    let f = unsafe { jobsort_compile(c"sqrt(ncpus) + gpu_hours".as_ptr(), c, &mut diags) };
    assert!(!f.is_null(), "{}", last_error());
    let mut count = 9;
    // SAFETY: live handles.
    unsafe {
        assert_eq!(
            jobsort_diagnostics_count(diags, &mut count),
            JobsortStatus::Ok
        );
        jobsort_diagnostics_free(diags);
        jobsort_free(f);
        jobsort_catalog_free(c);
    }
    assert_eq!(count, 0);
}

/// Under `JOBSORT_COMPILE_COMPAT_PBS` a value beyond a 32-bit float is `±inf` with no error,
/// as PBS stores it in its `float formula_value` (OpenPBS `src/scheduler/data_types.h`) and
/// logs it (`Formula Evaluation = inf`, `fifo.cpp: init_scheduling_cycle`); `jobsort_rank`
/// takes those values and ranks them as PBS's `cmp_job_sort_formula` sorts them, so eval and
/// rank agree with each other and with the CLI's `rank --compat pbs`.
#[test]
fn compat_pbs_infinite_values_are_kept_by_eval_and_ranked_by_rank() {
    let f = compile_c("ncpus * 1e36", ptr::null(), JOBSORT_COMPILE_COMPAT_PBS);
    let ncpus = [400.0, -400.0, 0.0, 1.0, 800.0];
    let columns = [ncpus.as_ptr()];
    let (mut values, mut errors) = ([9.0; 5], [9u8; 5]);
    let mut order = [usize::MAX; 5];
    // SAFETY: live handle; one column of 5; outputs of 5.
    unsafe {
        assert_eq!(
            jobsort_eval(
                f,
                columns.as_ptr(),
                5,
                values.as_mut_ptr(),
                errors.as_mut_ptr()
            ),
            JobsortStatus::Ok
        );
        jobsort_free(f);
        assert_eq!(
            jobsort_rank(values.as_ptr(), 5, ptr::null(), order.as_mut_ptr()),
            JobsortStatus::Ok,
            "{}",
            last_error()
        );
    }
    let inf = f64::INFINITY;
    // 4e38 is beyond a 32-bit float (3.4e38 at most); 1e36 is not.
    assert_eq!(values, [inf, -inf, 0.0, f64::from(1e36f32), inf]);
    assert_eq!(errors, [0; 5]);
    assert_eq!(order, [0, 4, 3, 2, 1]);
}
