//! flux-accounting's rules as jobsort models them: `mf_priority`'s priority and its formula in
//! the flux catalog ([`mf_priority`]), its limit engine (submit, run, end, holds and releases,
//! limit updates: [`limits`]), and those limits in simulated time ([`limit`]).

pub mod limit;
pub mod limits;
pub mod mf_priority;
