//! Shared by the integration tests: the conformance cases in `../shared/cases/`, and [`cli`],
//! the runner of the `jobsort` binary. Each test crate uses a part of it.
#![allow(dead_code)]

pub mod cli;

use serde_json::Value;

/// `../shared/cases/slurm_flux.json`.
pub const SLURM_FLUX: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/cases/slurm_flux.json"
);

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
