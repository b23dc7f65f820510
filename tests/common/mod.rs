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
