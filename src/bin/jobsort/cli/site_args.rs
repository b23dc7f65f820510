//! A PBS site's configuration files as arguments (`--pbs-home`, `--sched-config`, `--qmgr`),
//! and the table `--explain-config` prints: every setting in effect and where it came from.
//! The rules are [`jobsort::pbs`]'s; this file reads the flags and lets each flag given on
//! the command line win over the files.

use super::input::InputPath;
use super::output::Out;
use super::report::{Failure, warn};
use jobsort::pbs::{NamedText, PbsSite};
pub use jobsort::sim::settings::{Explained, pick, site_unknown_shares};
use std::path::PathBuf;

/// A PBS site's configuration.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct PbsSiteArgs {
    /// A PBS_HOME (or a copy of one): its sched_priv/sched_config sets strict_ordering,
    /// fair_share and every fairshare_* setting; its sched_priv/resource_group is the
    /// fairshare tree when fair_share is on. Flags given on the command line win.
    #[arg(long = "pbs-home", value_name = "DIR")]
    pub pbs_home: Option<PathBuf>,
    /// A sched_config file (instead of PBS_HOME's; `-` reads stdin).
    #[arg(long = "sched-config", value_name = "FILE")]
    pub sched_config: Option<InputPath>,
    /// `qmgr -c 'print server'` output (with `print sched` and `print node @default`
    /// appended, if you use them; `-` reads stdin): sets job_sort_formula,
    /// job_sort_formula_threshold, backfill_depth, queue priorities, custom resources and
    /// the nodes.
    #[arg(long = "qmgr", value_name = "FILE")]
    pub qmgr: Option<InputPath>,
}

impl PbsSiteArgs {
    /// The site's files that may be `-` (stdin), for [`super::input::one_stdin`].
    pub fn inputs(&self) -> [Option<&InputPath>; 2] {
        [self.sched_config.as_ref(), self.qmgr.as_ref()]
    }

    /// The site's files, read (`None` when no flag names one); what PBS would log about them
    /// is printed as warnings.
    pub fn read(&self) -> Result<Option<PbsSite>, Failure> {
        if self.pbs_home.is_none() && self.sched_config.is_none() && self.qmgr.is_none() {
            return Ok(None);
        }
        let named = |input: &InputPath| -> Result<NamedText, Failure> {
            Ok(NamedText {
                text: input.read_text()?,
                name: input.name(),
            })
        };
        let site = PbsSite::from_texts(
            self.pbs_home.as_deref(),
            self.sched_config.as_ref().map(named).transpose()?,
            self.qmgr.as_ref().map(named).transpose()?,
        )
        .map_err(Failure::invalid)?;
        for n in site.notes() {
            warn(&n.to_string());
        }
        Ok(Some(site))
    }
}

/// Printing the `--explain-config` table ([`Explained`], resolved by the library).
pub trait WriteExplained {
    fn write(&self, out: &mut Out) -> std::io::Result<()>;
}

impl WriteExplained for Explained {
    fn write(&self, out: &mut Out) -> std::io::Result<()> {
        let w0 = self
            .rows
            .iter()
            .map(|r| r.0.len())
            .max()
            .unwrap_or(7)
            .max(7);
        let w1 = self
            .rows
            .iter()
            .map(|r| r.1.chars().count().min(60))
            .max()
            .unwrap_or(5)
            .max(5);
        writeln!(out, "{:<w0$}  {:<w1$}  from", "setting", "value")?;
        for (n, v, o) in &self.rows {
            writeln!(out, "{n:<w0$}  {v:<w1$}  {o}")?;
        }
        Ok(())
    }
}
