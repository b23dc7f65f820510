//! The C ABI under a memory limit: a host whose own buffers fit must not be
//! aborted by `jobsort_eval` making n-sized copies of its own. Each case runs in a child
//! process (this test binary re-run with the case in `JOBSORT_CAPI_OOM_CHILD`) that allocates the host's columns and
//! outputs, warms up (JIT, thread pool), then caps its address space (`RLIMIT_AS`) a little
//! above what it uses and evaluates again: the call must return `JOBSORT_STATUS_OK` with the
//! same values, not die of SIGABRT.

use jobsort::capi::*;
use std::ffi::CStr;
use std::process::Command;
use std::ptr;

use crate::heap;

/// Set in the child so a case runs there (never in the harness's own process: it caps the
/// whole process).
const CHILD: &str = "JOBSORT_CAPI_OOM_CHILD";
/// Jobs per evaluation: 8 Mi jobs, 136 MiB of host buffers (one column, values, errors).
const N: usize = 1 << 23;
/// Address space the child may still map after the warm-up: far less than the 72 MiB an
/// n-sized copy of the values and errors takes, plenty for small allocations.
const HEADROOM: u64 = 24 << 20;

fn run_child(case: &str) {
    let out = Command::new(std::env::current_exe().expect("test binary path"))
        .args([
            &format!("{}::under_a_memory_limit", module_in_crate()),
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, case)
        .output()
        .expect("run the child");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "child `{case}` failed ({}): the C ABI must not abort the host when its buffers fit\n{text}",
        out.status
    );
    assert!(
        text.contains("1 passed"),
        "child `{case}` did not run:\n{text}"
    );
}

/// This file's module path without the crate's name: the prefix of its tests' names in the
/// harness (`capi_oom`).
fn module_in_crate() -> &'static str {
    module_path!().split_once("::").map_or("", |(_, m)| m)
}

/// The address space this process maps now (`VmSize`), in bytes.
fn mapped_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse().ok())
        .expect("VmSize in /proc/self/status");
    kib << 10
}

fn limit_address_space(bytes: u64) {
    let limit = libc::rlimit {
        rlim_cur: bytes,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: a plain system call on a valid struct.
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) }, 0);
}

/// In the child: compile `formula` with `flags`, evaluate `N` jobs once unlimited, then again
/// under the cap, and check both calls agree.
fn eval_under_a_memory_limit(formula: &CStr, flags: u32) {
    // SAFETY: NUL-terminated strings; NULL catalog and diagnostics are allowed.
    let f = unsafe { jobsort_compile_with(formula.as_ptr(), ptr::null(), flags, ptr::null_mut()) };
    assert!(!f.is_null(), "compile {formula:?}");
    let ncpus: Vec<f64> = (0..N).map(|i| (i % 1000) as f64 * 0.25).collect();
    let columns = [ncpus.as_ptr()];
    let mut values = vec![0.0f64; N];
    let mut errors = vec![1u8; N];
    // SAFETY: one column of N doubles, outputs of N elements.
    let eval = |values: &mut [f64], errors: &mut [u8]| unsafe {
        jobsort_eval(
            f,
            columns.as_ptr(),
            N,
            values.as_mut_ptr(),
            errors.as_mut_ptr(),
        )
    };
    assert_eq!(eval(&mut values, &mut errors), JobsortStatus::Ok);
    let expected = values.clone();
    values.fill(0.0);
    errors.fill(1);

    limit_address_space(mapped_bytes() + HEADROOM);
    let status = eval(&mut values, &mut errors);
    // SAFETY: the message is valid until the next call on this thread.
    let message = unsafe { CStr::from_ptr(jobsort_last_error()) }.to_string_lossy();
    assert_eq!(status, JobsortStatus::Ok, "{message}");
    limit_address_space(libc::RLIM_INFINITY);
    assert!(values == expected, "values differ under the limit");
    assert!(errors.iter().all(|&e| e == 0));
    // SAFETY: live handle, freed once.
    unsafe { jobsort_free(f) };
}

/// The cases: a name (the child's `JOBSORT_CAPI_OOM_CHILD`), the formula and the compile flags.
const CASES: [(&str, &CStr, u32); 3] = [
    ("jit", c"ncpus * 2 + 1", 0),
    ("interpreter", c"ncpus * 2 + 1", JOBSORT_COMPILE_INTERP),
    // PBS compatibility rounds the inputs in bounded blocks, not an n-sized copy.
    ("compat_pbs", c"ncpus / 3", JOBSORT_COMPILE_COMPAT_PBS),
];

/// In the harness: run every case in its own child. In a child: run the one case it names.
#[test]
fn under_a_memory_limit() {
    let _alone = heap::alone();
    match std::env::var(CHILD) {
        Ok(case) => {
            let (_, formula, flags) = CASES
                .iter()
                .find(|(name, _, _)| *name == case)
                .unwrap_or_else(|| panic!("unknown case {case}"));
            eval_under_a_memory_limit(formula, *flags);
        }
        Err(_) => CASES.iter().for_each(|(name, _, _)| run_child(name)),
    }
}
