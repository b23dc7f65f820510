//! Fairshare options shared by `eval`, `rank` and `sim` (in progress): where the tree comes
//! from and how jobs map to entities; fills the fairshare keywords of each job.

use jobsort::jobs::Job;

#[derive(clap::Args, Debug, Default, Clone)]
pub struct FairshareOpts {}

impl FairshareOpts {
    /// Fill `fairshare_perc`, `fairshare_tree_usage` and `fairshare_factor` for every job
    /// (when a tree is given). Returns warnings to print; `Err` is a message for exit code 1.
    pub fn apply(&self, _jobs: &mut [Job]) -> Result<Vec<String>, String> {
        Ok(vec![])
    }
}
