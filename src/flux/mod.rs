//! flux-accounting's rules as jobsort models them: its limits in simulated time (`limit`, over
//! the limit engine of `crate::limits`).

pub mod limit;
