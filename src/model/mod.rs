//! The vocabulary the scheduler folders (`pbs`, `slurm`) and the simulator share, below all
//! of them: a site's machine as node types with their resources (`machine`), and the
//! dispatch policies a scheduler's configuration selects (`policy`), and PBS's `place=` of a
//! job's request (`place`). Configuration readers
//! return these; the simulator runs them; neither reaches into the other.

pub mod machine;
pub mod place;
pub mod policy;

pub use machine::{Machine, MachineError, NodeType};
pub use policy::{Policy, SlurmBackfill};
