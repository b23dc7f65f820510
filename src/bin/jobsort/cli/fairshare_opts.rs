//! Fairshare options shared by `eval`, `rank` and `sim`: where the tree comes from and how
//! jobs map to entities; fills the fairshare keywords of each job.

use jobsort::fairshare::Algorithm;
use jobsort::fairshare::inputs::{EntityKind, Fairshare, TreeSource, TreeSourceError};
use jobsort::fairshare::tree::SiblingOrder;
use jobsort::jobs::JobSet;
use std::path::PathBuf;

#[derive(clap::Args, Debug, Default, Clone)]
pub struct FairshareOpts {
    /// PBS `resource_group` file: fill fairshare_perc, fairshare_tree_usage and
    /// fairshare_factor from the PBS tree.
    #[arg(long, value_name = "FILE", conflicts_with = "fairshare_tree")]
    pub resource_group: Option<PathBuf>,
    /// PBS usage file (binary) or JSON/TOML usage map for --resource-group.
    #[arg(long, value_name = "FILE", requires = "resource_group")]
    pub usage: Option<PathBuf>,
    /// Share tree for the Slurm/flux algorithms: JSON `{"nodes": [...]}`, parsable
    /// `sshare -a -l -P` output, or a flux-accounting database (detected by content).
    #[arg(long, value_name = "FILE")]
    pub fairshare_tree: Option<PathBuf>,
    /// slurm-classic, slurm-fairtree (default for --fairshare-tree; for sshare output, the
    /// controller's mode as the capture shows it) or flux (default for a flux database); pbs
    /// with --resource-group.
    #[arg(long = "algorithm", value_name = "ALGORITHM")]
    pub fairshare_algorithm: Option<String>,
    /// Job attribute naming its fairshare entity: euser, egroup, account, queue, egroup:euser.
    #[arg(long, value_name = "KIND", default_value = "euser")]
    pub entity: String,
    /// Shares of PBS's `unknown` group (`unknown_shares`).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub unknown_shares: i32,
    /// Read the resource_group and usage file as PBS does where that differs from what they
    /// say (bad lines and records skipped with warnings, long lines split, big shares wrapped).
    #[arg(long = "fairshare-lenient")]
    pub fairshare_lenient: bool,
    /// Slurm Fair Tree: the order slurmctld holds sibling associations in, which decides
    /// siblings with exactly equal LevelFS: `input` (default), `reverse`, or names first.
    #[arg(long, value_name = "ORDER")]
    pub slurm_tie_order: Option<String>,
}

impl FairshareOpts {
    /// The entity kind, or a message.
    pub fn entity_kind(&self) -> Result<EntityKind, String> {
        EntityKind::parse(&self.entity).ok_or_else(|| {
            format!(
                "fairshare_entity {} is erroneous (or deprecated): use euser, egroup, account, queue or egroup:euser",
                self.entity
            )
        })
    }

    /// Load the tree (`None` when no tree was given), with warnings.
    pub fn load(&self) -> Result<Option<(Fairshare, Vec<String>)>, String> {
        let algorithm = match &self.fairshare_algorithm {
            None => None,
            Some(s) => Some(Algorithm::parse(s).ok_or_else(|| {
                format!("unknown --algorithm `{s}` (pbs, slurm-classic, slurm-fairtree, flux)")
            })?),
        };
        let source = TreeSource {
            resource_group: self.resource_group.clone(),
            usage: self.usage.clone(),
            fairshare_tree: self.fairshare_tree.clone(),
            algorithm,
            unknown_shares: self.unknown_shares,
            lenient: self.fairshare_lenient,
            sibling_order: self.slurm_tie_order.as_deref().map(SiblingOrder::parse),
        };
        source.load().map_err(|e| match e {
            TreeSourceError::NotPbs(_) => {
                "--resource-group uses the pbs algorithm; give --fairshare-tree for the others"
                    .to_string()
            }
            TreeSourceError::SiblingOrder(e) => format!("--slurm-tie-order: {e}"),
            TreeSourceError::Load(e) => e,
        })
    }

    /// Fill `fairshare_perc`, `fairshare_tree_usage` and `fairshare_factor` for every job
    /// (when a tree is given), and return the warnings to print and the loaded tree (for
    /// `rank --fair-share`, whose tie-break is [`Fairshare::fair_share_ranks`] as
    /// `jobsort::rank::TieBreak::fair_share`). `Err` is a message for exit code 1. Values are
    /// unrounded; `--compat pbs` rounds them to 6 decimals in the evaluator, as PBS passes them.
    pub fn apply_loaded(
        &self,
        jobs: &mut JobSet,
    ) -> Result<(Vec<String>, Option<Fairshare>), String> {
        let kind = self.entity_kind()?;
        let Some((mut fs, mut warnings)) = self.load()? else {
            return Ok((vec![], None));
        };
        warnings.extend(fs.fill_jobs(jobs, kind)?);
        Ok((warnings, Some(fs)))
    }
}
