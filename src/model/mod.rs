//! The vocabulary the scheduler folders (`pbs`, `slurm`) and the simulator share, below all
//! of them: a site's machine as node types with their resources (`machine`), and the
//! dispatch policies a scheduler's configuration selects (`policy`), and PBS's `place=` of a
//! job's request (`place`), and a site's state at one instant (`snapshot`: nodes, running
//! jobs, reservations, what a capture lacked), and the limits on running jobs in one shape
//! (`limits`: caps, each job's draws). Configuration and snapshot readers
//! return these; the simulator runs them; neither reaches into the other.

pub mod limits;
pub mod machine;
pub mod place;
pub mod policy;
pub mod snapshot;

pub use machine::{Machine, MachineError, NodeType};
pub use policy::{Policy, SlurmBackfill};
