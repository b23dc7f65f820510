//! What every reader of a site's files shares, below the job rows, the schedulers' folders and
//! the simulator alike, so a file means one thing in every subcommand: PBS's units of time and
//! size (`units`), host lists (`hostlist`), the job field table every job reader maps
//! into (`fields`), the bounds and quoting of text (`text`).

pub mod fields;
pub mod hostlist;
pub mod text;
pub mod units;
