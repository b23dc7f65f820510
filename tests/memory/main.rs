//! The tests that measure this process's memory or a child's: a counting global allocator
//! (`heap`, one per binary, so these are kept out of `tests/it/`), a child's peak RSS, which
//! counts this process's pages at the spawn, and a child re-run of this binary under an
//! address-space limit. Every test here holds `heap::alone()` for its whole run, so they run
//! one at a time and no test's allocations count in another's measurement.

#[path = "../common/mod.rs"]
mod common;
mod heap;

mod capi_oom;
mod endless_input_memory;
mod jobs_memory;
mod json_trace_memory;
mod replay_memory;
mod replay_stdin_memory;
mod trace_memory;
