//! The flags of `jobsort fairshare`.

use std::path::PathBuf;

/// Arguments of `jobsort fairshare` (boxed: the option set is large).
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub(super) opts: Box<Opts>,
}

/// The options of `jobsort fairshare`.
#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["resource_group", "fairshare_tree", "sshare", "flux_db"])))]
#[command(group(clap::ArgGroup::new("mode").args(["print", "tree", "get", "compare", "set", "decay", "trim"])))]
pub struct Opts {
    /// PBS `resource_group` file (lines `name id parent shares`).
    #[arg(long, value_name = "FILE", value_parser = crate::cli::input::path_or_stdin)]
    pub(super) resource_group: Option<PathBuf>,
    /// PBS usage file (binary v1/v2) or a JSON/TOML usage map `{"entity": usage}`.
    #[arg(
        long,
        value_name = "FILE",
        requires = "resource_group",
        value_parser = crate::cli::input::path_or_stdin,
    )]
    pub(super) usage: Option<PathBuf>,
    /// Generic JSON tree `{"nodes": [...]}` (or sshare output / flux DB, detected by content).
    #[arg(long, value_name = "FILE", value_parser = crate::cli::input::path_or_stdin)]
    pub(super) fairshare_tree: Option<PathBuf>,
    /// Parsable `sshare -a -l -P` output.
    #[arg(long, value_name = "FILE", value_parser = crate::cli::input::path_or_stdin)]
    pub(super) sshare: Option<PathBuf>,
    /// flux-accounting SQLite database.
    #[arg(long, value_name = "PATH", value_parser = crate::cli::input::path_or_stdin)]
    pub(super) flux_db: Option<PathBuf>,
    /// pbs (default for --resource-group), slurm-classic, slurm-depth-oblivious, slurm-fairtree (default for
    /// --fairshare-tree; for --sshare, the controller's mode as the capture shows it), flux
    /// (default for --flux-db).
    #[arg(long, value_name = "ALGORITHM")]
    pub(super) algorithm: Option<String>,
    /// Shares of the `unknown` group (PBS `unknown_shares`).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub(super) unknown_shares: i32,
    /// Read input as PBS does, where it differs from what the input says: skip bad
    /// resource_group lines and usage records with warnings, split lines over 255 bytes, wrap
    /// shares above INT_MAX, read `-s` values with strtod (`inf`, `0x10`, ` 5`, `-5`).
    #[arg(long)]
    pub(super) lenient: bool,
    /// The `fairshare_usage_res` named in `-p` and `-g` output.
    #[arg(long, default_value = "cput", value_name = "RES")]
    pub(super) usage_res: String,
    /// `fairshare_decay_factor` for `-d` (0 < f < 1), used as PBS does: rounded to `f32`.
    #[arg(long, default_value_t = 0.5, value_name = "F")]
    pub(super) decay_factor: f64,
    /// Slurm Fair Tree: the order in which slurmctld holds sibling associations, which
    /// decides siblings with exactly equal LevelFS: `input` (default), `reverse`, or names
    /// (`acct,acct/user,...`) first in that order. sshare does not show it, and it can
    /// change when slurmctld restarts.
    #[arg(long, value_name = "ORDER")]
    pub(super) slurm_tie_order: Option<String>,
    /// Slurm `FairShareDampeningFactor` (classic).
    #[arg(long, default_value_t = 1.0, value_name = "D")]
    pub(super) damp: f64,
    /// Print the table (default).
    #[arg(short = 'p')]
    pub(super) print: bool,
    /// Print the tree.
    #[arg(short = 't')]
    pub(super) tree: bool,
    /// Print one entity in detail.
    #[arg(short = 'g', value_name = "ENT")]
    pub(super) get: Option<String>,
    /// Print the more deserving of two entities.
    #[arg(short = 'c', num_args = 2, value_names = ["E1", "E2"])]
    pub(super) compare: Option<Vec<String>>,
    /// Set an entity's usage and write the usage file. A VAL that starts with `-` goes after
    /// `--` (`-s ENT -- -5`): pbsfs's getopt takes `-s ENT -5` for options and fails, and so
    /// does this.
    #[arg(short = 's', num_args = 1..=2, value_names = ["ENT", "VAL"], allow_negative_numbers = true)]
    pub(super) set: Option<Vec<String>>,
    /// The VAL of `-s ENT -- VAL`.
    #[arg(last = true, hide = true, value_name = "VAL")]
    pub(super) after_dashes: Vec<String>,
    /// Decay all usage once and write the usage file.
    #[arg(short = 'd')]
    pub(super) decay: bool,
    /// Trim: keep only usage of entities in resource_group and write the usage file.
    #[arg(short = 'e')]
    pub(super) trim: bool,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    pub(super) format: String,
}
