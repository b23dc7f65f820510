//! A PBS site's configuration files as arguments (`--pbs-home`, `--sched-config`, `--qmgr`),
//! and the table `--explain-config` prints: every setting in effect and where it came from.
//! The rules are [`jobsort::pbs`]'s; this file reads the flags and lets each flag given on
//! the command line win over the files.

use super::input::InputPath;
use super::output::Out;
use super::report::{Failure, warn};
use jobsort::pbs::{NamedText, Origin, PbsSite, SchedConfig, Setting};
use jobsort::sim::Policy;
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

/// The dispatch policy the site's `strict_ordering` and `backfill_depth` give
/// ([`PbsSite::policy`]), with a warning when a `backfill_depth` is set that PBS ignores.
pub fn site_policy(site: &PbsSite) -> Result<Setting<Policy>, Failure> {
    let policy = site.policy().map_err(Failure::invalid)?;
    let depth = site.backfill_depth().map_err(Failure::invalid)?;
    if policy.value == Policy::Fill && depth.origin != Origin::Default {
        // PBS backfills around top jobs only under strict ordering (the Altair admin guide,
        // "Implement Backfilling": "... around higher-priority jobs when using strict
        // ordering"; `fifo.cpp` `should_backfill_with_job`).
        warn(&format!(
            "{}: backfill_depth {} has no effect while strict_ordering is off: PBS backfills \
             around top jobs only under strict ordering (the policy is fill)",
            depth.origin, depth.value
        ));
    }
    Ok(policy)
}

/// A setting from a flag when given, else from the site, else the default.
pub fn pick<T>(
    flag: Option<T>,
    flag_name: &str,
    site: Option<Setting<T>>,
    default: T,
) -> Setting<T> {
    match (flag, site) {
        (Some(v), _) => Setting::new(v, Origin::Flag(flag_name.to_string())),
        (None, Some(s)) => s,
        (None, None) => Setting::new(default, Origin::Default),
    }
}

/// The site's `unknown_shares` as a `T` up to `max` (`None` when not set); a negative value,
/// or one above `max`, is an error at its line.
pub fn site_unknown_shares<T>(
    sc: Option<&SchedConfig>,
    max: T,
) -> Result<Option<Setting<T>>, Failure>
where
    T: TryFrom<i64> + std::fmt::Display,
{
    let Some(s) = sc.and_then(|c| c.unknown_shares.clone()) else {
        return Ok(None);
    };
    let value = (s.value >= 0)
        .then(|| T::try_from(s.value).ok())
        .flatten()
        .ok_or_else(|| {
            Failure::invalid(format!(
                "{}: unknown_shares {}: must be a whole number from 0 to {max}",
                s.origin, s.value,
            ))
        })?;
    Ok(Some(Setting::new(value, s.origin)))
}

/// The `--explain-config` table: setting, value, where it came from.
#[derive(Debug, Default)]
pub struct Explained {
    rows: Vec<(String, String, String)>,
}

impl Explained {
    pub fn add(&mut self, name: &str, value: impl std::fmt::Display, origin: &Origin) {
        let origin = match origin {
            Origin::Default => "default".to_string(),
            o => o.to_string(),
        };
        self.rows
            .push((name.to_string(), value.to_string(), origin));
    }
    pub fn add_row(&mut self, name: &str, value: impl std::fmt::Display, from: String) {
        self.rows.push((name.to_string(), value.to_string(), from));
    }
    pub fn add_setting<T: std::fmt::Display>(&mut self, name: &str, s: &Setting<T>) {
        self.add(name, &s.value, &s.origin);
    }
    pub fn write(&self, out: &mut Out) -> std::io::Result<()> {
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
