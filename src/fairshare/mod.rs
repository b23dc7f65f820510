//! Fairshare trees and the values formulas use (`fairshare_perc`, `fairshare_tree_usage`,
//! `fairshare_factor`).
//!
//! - [`pbs`]: the OpenPBS tree, bit for bit (`f32` percentages and usage factors), decay,
//!   accrual and `compare_path`.
//! - [`usage_file`]: PBS's binary usage file (v2 read/write, v1 read), JSON usage maps,
//!   atomic writes ([`crate::files`]) that keep `FILE.bak` (`usage.bak`), and pbsfs's
//!   `usage.touch`.
//! - [`tree`]: a generic share tree (JSON `{"nodes": [...]}`, `sshare -a -l -P`, flux DB).
//! - [`slurm`]: Slurm classic and Fair Tree. [`flux`]: the flux-accounting weighted walk.
//! - [`inputs`]: loading any of these and mapping jobs to entities.
//!
//! Nothing here prints; errors are [`FairshareError`] values naming the file and line.

mod c_text;
pub mod flux;
pub mod inputs;
pub mod pbs;
pub mod pow2;
pub mod slurm;
pub mod tree;
pub mod usage_file;

use std::fmt;

/// An error in fairshare input: where (`file`, optional line or record) and what.
#[derive(Debug, Clone, PartialEq)]
pub struct FairshareError {
    /// File name (or a description like `<json>`).
    pub file: String,
    /// 1-based line number, or record number for binary files, when known.
    pub line: Option<usize>,
    pub message: String,
}

impl FairshareError {
    /// An error at `file:line`.
    pub fn at(file: &str, line: usize, message: impl Into<String>) -> FairshareError {
        FairshareError {
            file: file.to_string(),
            line: Some(line),
            message: message.into(),
        }
    }
    /// An error about a whole file.
    pub fn file(file: &str, message: impl Into<String>) -> FairshareError {
        FairshareError {
            file: file.to_string(),
            line: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for FairshareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.file, l, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for FairshareError {}

/// Which fairshare algorithm computes the values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Algorithm {
    /// OpenPBS (`f32`, `2^-(uf/perc)`).
    #[default]
    Pbs,
    /// Slurm classic (`PriorityFlags=NO_FAIR_TREE`).
    SlurmClassic,
    /// Slurm `PriorityFlags=DEPTH_OBLIVIOUS` (classic shares, depth-oblivious effective
    /// usage).
    SlurmDepthOblivious,
    /// Slurm Fair Tree (rank/N; ties as Slurm's code, no merging of tied accounts).
    SlurmFairTree,
    /// flux-accounting weighted tree (tied banks merged).
    Flux,
}

impl Algorithm {
    /// Parse `pbs`, `slurm-classic`, `slurm-depth-oblivious`, `slurm-fairtree`, `flux`.
    pub fn parse(s: &str) -> Option<Algorithm> {
        Some(match s {
            "pbs" => Algorithm::Pbs,
            "slurm-classic" => Algorithm::SlurmClassic,
            "slurm-depth-oblivious" => Algorithm::SlurmDepthOblivious,
            "slurm-fairtree" => Algorithm::SlurmFairTree,
            "flux" => Algorithm::Flux,
            _ => return None,
        })
    }
    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Pbs => "pbs",
            Algorithm::SlurmClassic => "slurm-classic",
            Algorithm::SlurmDepthOblivious => "slurm-depth-oblivious",
            Algorithm::SlurmFairTree => "slurm-fairtree",
            Algorithm::Flux => "flux",
        }
    }
}

pub use pbs::{EntityValues, PbsTree};
