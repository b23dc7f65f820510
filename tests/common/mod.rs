//! Shared by the integration tests (`tests/it/`, `tests/memory/`): the conformance cases
//! (`tests/data/cases/`, copies of `../shared/cases/`), the whole traces of `../shared/` when it
//! is there ([`shared_or_skip`]), and [`cli`], the runner of the `jobsort` binary.
#![allow(dead_code)]

pub mod cli;

use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;

/// OpenPBS's conformance cases (a copy of `../shared/cases/openpbs.json`).
pub const OPENPBS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/cases/openpbs.json");

/// Slurm's and flux-accounting's conformance cases (a copy of
/// `../shared/cases/slurm_flux.json`).
pub const SLURM_FLUX: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/cases/slurm_flux.json"
);

/// The folder of data too big for the repository (the whole traces): `$JOBSORT_SHARED`, else
/// `shared/` beside the repository.
pub fn shared_dir() -> PathBuf {
    std::env::var_os("JOBSORT_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared")))
}

/// The file `relative` of [`shared_dir`], or `None` when that folder is not there: then the
/// calling test skips what needs it, after a line `skipped: ../shared not found: ...` written
/// past the harness's capture, so that `cargo test` shows every skip (`grep -c` counts them).
/// A folder that is there without the file is an error.
pub fn shared_or_skip(relative: &str) -> Option<PathBuf> {
    let dir = shared_dir();
    if !dir.is_dir() {
        let test = std::thread::current()
            .name()
            .unwrap_or("a test")
            .to_string();
        let line = format!("skipped: ../shared not found: {relative} ({test})\n");
        let _ = std::io::stderr().write_all(line.as_bytes());
        return None;
    }
    let path = dir.join(relative);
    assert!(path.is_file(), "{} is not there", path.display());
    Some(path)
}

/// Every case in a cases file (a JSON array).
pub fn cases(file: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("read {file}: {e}"));
    serde_json::from_str::<Vec<Value>>(&text).unwrap_or_else(|e| panic!("parse {file}: {e}"))
}

/// The case with this `id`.
pub fn case(file: &str, id: &str) -> Value {
    cases(file)
        .into_iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("case {id} not in {file}"))
}

/// The math functions the random-formula generators call, with the arity each is called with
/// (`log` and `round` twice: one and two arguments). One list for the CPython differential test
/// and the checker's soundness test.
#[allow(dead_code)] // not every test binary including this module generates formulas
pub const MATH_FUNCTIONS: &[(&str, usize)] = &[
    ("abs", 1),
    ("fabs", 1),
    ("min", 2),
    ("max", 3),
    ("pow", 2),
    ("sqrt", 1),
    ("exp", 1),
    ("log", 1),
    ("log", 2),
    ("log10", 1),
    ("log2", 1),
    ("ceil", 1),
    ("floor", 1),
    ("trunc", 1),
    ("round", 1),
    ("round", 2),
    ("fmod", 2),
    ("copysign", 2),
    ("hypot", 2),
    ("sin", 1),
    ("cos", 1),
    ("tan", 1),
    ("asin", 1),
    ("acos", 1),
    ("atan", 1),
    ("atan2", 2),
    ("sinh", 1),
    ("cosh", 1),
    ("tanh", 1),
    ("expm1", 1),
    ("log1p", 1),
    ("degrees", 1),
    ("radians", 1),
];
