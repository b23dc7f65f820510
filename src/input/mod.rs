//! What every reader of a site's files shares, below the job rows, the schedulers' folders and
//! the simulator alike, so a file means one thing in every subcommand: host lists
//! (`hostlist`).

pub mod hostlist;
