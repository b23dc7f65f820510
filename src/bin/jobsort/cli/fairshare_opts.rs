//! Fairshare options shared by `eval`, `rank` and `sim`: where the tree comes from and how
//! jobs map to entities; fills the fairshare keywords of each job.

use super::report::Failure;
use super::site_args::{Explained, pick, site_unknown_shares};
use jobsort::fairshare::Algorithm;
use jobsort::fairshare::inputs::{EntityKind, Fairshare, TreeSource, TreeSourceError};
use jobsort::fairshare::tree::SiblingOrder;
use jobsort::jobs::JobSet;
use jobsort::pbs::{Origin, PbsSite};
use std::path::PathBuf;

#[derive(clap::Args, Debug, Default, Clone)]
pub struct FairshareOpts {
    /// PBS `resource_group` file: fill fairshare_perc, fairshare_tree_usage and
    /// fairshare_factor from the PBS tree.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "fairshare_tree",
        value_parser = crate::cli::input::path_or_stdin,
    )]
    pub resource_group: Option<PathBuf>,
    /// PBS usage file (binary) or JSON/TOML usage map for the PBS tree (--resource-group, or
    /// the site's with --pbs-home and fair_share on).
    #[arg(long, value_name = "FILE", value_parser = crate::cli::input::path_or_stdin)]
    pub usage: Option<PathBuf>,
    /// Share tree for the Slurm/flux algorithms: JSON `{"nodes": [...]}`, parsable
    /// `sshare -a -l -P` output, or a flux-accounting database (detected by content).
    #[arg(long, value_name = "FILE", value_parser = crate::cli::input::path_or_stdin)]
    pub fairshare_tree: Option<PathBuf>,
    /// slurm-classic, slurm-depth-oblivious, slurm-fairtree (default for --fairshare-tree; for sshare output, the
    /// controller's mode as the capture shows it) or flux (default for a flux database); pbs
    /// with --resource-group.
    #[arg(long = "algorithm", value_name = "ALGORITHM")]
    pub fairshare_algorithm: Option<String>,
    /// Job attribute naming its fairshare entity: euser, egroup, account, queue, egroup:euser
    /// (default: the site's fairshare_entity, else euser).
    #[arg(long, value_name = "KIND")]
    pub entity: Option<String>,
    /// Shares of PBS's `unknown` group (default: the site's `unknown_shares`, else 0).
    #[arg(long, value_name = "N")]
    pub unknown_shares: Option<i32>,
    /// The old spelling of `--lenient` for the fairshare files (`--lenient` reads them so).
    #[arg(long = "fairshare-lenient", hide = true)]
    pub fairshare_lenient: bool,
    /// Slurm Fair Tree: the order slurmctld holds sibling associations in, which decides
    /// siblings with exactly equal LevelFS: `input` (default), `reverse`, names first, or a
    /// file of `sacctmgr -P show assoc format=Cluster,Account,User,Lft` (the order after
    /// slurmctld starts).
    #[arg(long, value_name = "ORDER")]
    pub slurm_tie_order: Option<String>,
}

/// `--slurm-tie-order`: `input`, `reverse`, a file of `sacctmgr -P show assoc` with an `Lft`
/// column (when a file of that name exists), or names.
pub fn sibling_order(arg: &str) -> Result<SiblingOrder, String> {
    let path = std::path::Path::new(arg);
    if !matches!(arg, "input" | "reverse") && path.is_file() {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{arg}: cannot read: {e}"))?;
        return jobsort::slurm::assoc::lft_order(&text, arg, None).map_err(|e| e.to_string());
    }
    Ok(SiblingOrder::parse(arg))
}

impl FairshareOpts {
    /// The entity kind, or a message.
    pub fn entity_kind(&self) -> Result<EntityKind, String> {
        let entity = self.entity.as_deref().unwrap_or("euser");
        EntityKind::parse(entity).ok_or_else(|| {
            format!(
                "fairshare_entity {entity} is erroneous (or deprecated): use euser, egroup, account, queue or egroup:euser",
            )
        })
    }

    /// These options with what a PBS site's files say where no flag is given: its
    /// `fairshare_entity` and `unknown_shares`, and — with `fair_share` on and no tree flag —
    /// its `sched_priv/resource_group` and `usage` as the tree. Each setting goes into
    /// `explained`. PBS reads the tree only with fair_share on; on without a resource_group
    /// is an error.
    pub fn with_site(
        &self,
        site: Option<&PbsSite>,
        explained: &mut Explained,
    ) -> Result<FairshareOpts, Failure> {
        let sc = site.and_then(|s| s.sched_config.as_ref());
        let mut opts = self.clone();
        let entity = pick(
            self.entity.clone(),
            "--entity",
            sc.and_then(|c| c.fairshare_entity.clone())
                .map(|s| s.map(|k| k.name().to_string())),
            "euser".to_string(),
        );
        let site_unknown = site_unknown_shares(sc, i32::MAX)?;
        let unknown_shares = pick(self.unknown_shares, "--unknown-shares", site_unknown, 0);
        let fair_share = sc.and_then(|c| c.fair_share.clone());
        let given = |flag: &str, file: &Option<PathBuf>| {
            file.as_ref()
                .map(|f| (f.display().to_string(), Origin::Flag(flag.to_string())))
        };
        let tree = match given("--resource-group", &self.resource_group)
            .or_else(|| given("--fairshare-tree", &self.fairshare_tree))
        {
            Some(tree) => Some(tree),
            None => match (&fair_share, site.and_then(|s| s.resource_group.as_ref())) {
                (Some(on), Some((file, _))) if on.value => {
                    opts.resource_group = Some(PathBuf::from(file));
                    if opts.usage.is_none() {
                        opts.usage = site.and_then(|s| s.usage.clone());
                    }
                    Some((file.clone(), on.origin.clone()))
                }
                (Some(on), None) if on.value => {
                    return Err(Failure::invalid(format!(
                        "{}: fair_share is on, but there is no resource_group (give --pbs-home \
                         with a sched_priv/resource_group, or --resource-group FILE)",
                        on.origin
                    )));
                }
                _ => None,
            },
        };
        if opts.usage.is_some() && opts.resource_group.is_none() {
            return Err(Failure::usage(
                "--usage is the usage of a PBS tree: give --resource-group FILE, or --pbs-home \
                 DIR whose sched_config has fair_share on",
            ));
        }
        match tree {
            Some((file, origin)) => {
                explained.add("fairshare tree", &file, &origin);
                if let Some(usage) = &opts.usage {
                    let origin = match &self.usage {
                        Some(_) => Origin::Flag("--usage".into()),
                        None => Origin::WholeFile(usage.display().to_string()),
                    };
                    explained.add("fairshare usage", usage.display(), &origin);
                }
                explained.add_setting("fairshare_entity", &entity);
                explained.add_setting("unknown_shares", &unknown_shares);
            }
            None => {
                let origin = fair_share.map_or(Origin::Default, |s| s.origin);
                explained.add("fairshare tree", "none (fair_share off)", &origin);
            }
        }
        opts.entity = Some(entity.value);
        opts.unknown_shares = Some(unknown_shares.value);
        Ok(opts)
    }

    /// Load the tree (`None` when no tree was given), with warnings.
    pub fn load(&self) -> Result<Option<(Fairshare, Vec<String>)>, String> {
        let algorithm = match &self.fairshare_algorithm {
            None => None,
            Some(s) => Some(Algorithm::parse(s).ok_or_else(|| {
                format!("unknown --algorithm `{s}` (pbs, slurm-classic, slurm-depth-oblivious, slurm-fairtree, flux)")
            })?),
        };
        let sibling_order = match self.slurm_tie_order.as_deref().map(sibling_order) {
            None => None,
            Some(Ok(o)) => Some(o),
            Some(Err(e)) => return Err(format!("--slurm-tie-order: {e}")),
        };
        let source = TreeSource {
            resource_group: self.resource_group.clone(),
            usage: self.usage.clone(),
            fairshare_tree: self.fairshare_tree.clone(),
            algorithm,
            unknown_shares: self.unknown_shares.unwrap_or(0),
            lenient: self.fairshare_lenient,
            sibling_order,
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
