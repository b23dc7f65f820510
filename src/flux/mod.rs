//! flux-accounting's rules as jobsort models them: `mf_priority`'s priority and its formula in
//! the flux catalog ([`mf_priority`]), its limit engine (submit, run, end, holds and releases,
//! limit updates: [`limits`]), those limits in simulated time ([`limit`]), an instance's
//! state at one instant from `flux resource R` and `flux jobs --json` ([`snapshot`]), and
//! flux-accounting's limits on that instant's jobs from `flux jobtap query mf_priority.so`
//! ([`snapshot_limits`]).

pub mod limit;
pub mod limits;
pub mod mf_priority;
pub mod snapshot;
pub mod snapshot_limits;
