//! A run's settings, resolved in one place for the command line and Python alike: what the
//! caller gives (a flag, a keyword argument) wins, else the site's files say (a PBS_HOME's
//! sched_config and resource_group, qmgr output, slurm.conf), else the scheduler's default.
//! Each setting keeps where it came from ([`Origin`]), and [`Explained`] collects the rows
//! `--explain-config` prints. What PBS would log about a setting comes back as warnings; the
//! library never prints them.

use crate::fairshare::inputs::EntityKind;
use crate::model::Policy;
use crate::pbs::share::{AutoTree, FairshareConfig, UsageRes};
use crate::pbs::{Origin, PbsSite, SchedConfig, Setting};
use crate::sim::setup::check_decay;
use crate::slurm::conf::{Location, SlurmConf};

/// A setting that cannot be used: `Usage` when the caller gave it (a flag, an argument),
/// `Invalid` when a site's file did (the message names the file and line).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Invalid(String),
}

/// The `--explain-config` table: each setting, its value, where it came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Explained {
    /// `(setting, value, from)`, in the order they were resolved.
    pub rows: Vec<(String, String, String)>,
}

impl Explained {
    /// A row whose value came from `origin` (`default` for PBS's or Slurm's default).
    pub fn add(&mut self, name: &str, value: impl std::fmt::Display, origin: &Origin) {
        let origin = match origin {
            Origin::Default => "default".to_string(),
            o => o.to_string(),
        };
        self.rows
            .push((name.to_string(), value.to_string(), origin));
    }
    /// A row whose origin is told in words.
    pub fn add_row(&mut self, name: &str, value: impl std::fmt::Display, from: String) {
        self.rows.push((name.to_string(), value.to_string(), from));
    }
    pub fn add_setting<T: std::fmt::Display>(&mut self, name: &str, s: &Setting<T>) {
        self.add(name, &s.value, &s.origin);
    }
}

/// A setting from the caller when given (`flag_name` says how), else from the site, else the
/// default.
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
) -> Result<Option<Setting<T>>, SettingsError>
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
            SettingsError::Invalid(format!(
                "{}: unknown_shares {}: must be a whole number from 0 to {max}",
                s.origin, s.value,
            ))
        })?;
    Ok(Some(Setting::new(value, s.origin)))
}

/// The dispatch policy a PBS site's `strict_ordering` and `backfill_depth` give
/// ([`PbsSite::policy`]), and a warning when a `backfill_depth` is set that PBS ignores.
pub fn site_policy(site: &PbsSite) -> Result<(Setting<Policy>, Vec<String>), SettingsError> {
    let invalid = |e: crate::pbs::PbsConfigError| SettingsError::Invalid(e.to_string());
    let policy = site.policy().map_err(invalid)?;
    let depth = site.backfill_depth().map_err(invalid)?;
    let mut warnings = Vec::new();
    if policy.value == Policy::Fill && depth.origin != Origin::Default {
        // PBS backfills around top jobs only under strict ordering (the Altair admin guide,
        // "Implement Backfilling": "... around higher-priority jobs when using strict
        // ordering"; `fifo.cpp` `should_backfill_with_job`).
        warnings.push(format!(
            "{}: backfill_depth {} has no effect while strict_ordering is off: PBS backfills \
             around top jobs only under strict ordering (the policy is fill)",
            depth.origin, depth.value
        ));
    }
    Ok((policy, warnings))
}

/// Where a slurm.conf setting is, as an [`Origin`].
pub fn slurm_origin(at: Location) -> Origin {
    Origin::File {
        file: at.file,
        line: at.line,
    }
}

/// The dispatch policy of a simulation: `policy` (the caller's), else `backfill_depth` (the
/// caller's, PBS's meaning), else slurm.conf's scheduler, else the PBS site's, else EASY.
/// Also the warnings PBS would log about the site's choice.
pub fn sim_policy(
    policy: Option<Policy>,
    backfill_depth: Option<u32>,
    slurm: Option<&SlurmConf>,
    site: Option<&PbsSite>,
) -> Result<(Setting<Policy>, Vec<String>), SettingsError> {
    Ok(match (policy, backfill_depth, slurm, site) {
        (Some(p), _, _, _) => (Setting::new(p, Origin::Flag("--policy".into())), vec![]),
        (None, Some(d), _, _) => (
            Setting::new(
                Policy::with_depth(d),
                Origin::Flag("--backfill-depth".into()),
            ),
            vec![],
        ),
        (None, None, Some(conf), _) => {
            let (policy, at) = conf
                .sim_policy()
                .map_err(|e| SettingsError::Invalid(e.to_string()))?;
            (
                Setting::new(policy, at.map_or(Origin::Default, slurm_origin)),
                vec![],
            )
        }
        (None, None, None, Some(site)) => site_policy(site)?,
        (None, None, None, None) => (Setting::new(Policy::Easy, Origin::Default), vec![]),
    })
}

/// `job_sort_formula_threshold`: the caller's, else the site's (qmgr), else none.
pub fn threshold(
    flag: Option<f64>,
    site: Option<&PbsSite>,
) -> Result<Option<Setting<f64>>, SettingsError> {
    Ok(match (flag, site) {
        (Some(t), _) => Some(Setting::new(t, Origin::Flag("--threshold".into()))),
        (None, Some(site)) => site
            .threshold()
            .map_err(|e| SettingsError::Invalid(e.to_string()))?,
        (None, None) => None,
    })
}

/// How the caller's settings are named in messages: command-line flags (`--decay-factor
/// 1.5: ...`) or Python keyword arguments (`decay_factor: 1.5: ...`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ArgStyle {
    #[default]
    Flags,
    Keywords,
}

impl ArgStyle {
    /// The setting named by its flag (`--decay-factor`), as this style names it at the head
    /// of a message.
    pub fn name(self, flag: &str) -> String {
        match self {
            ArgStyle::Flags => flag.to_string(),
            ArgStyle::Keywords => format!("{}:", flag.trim_start_matches('-').replace('-', "_")),
        }
    }
}

/// What the caller gives of a simulation's PBS fairshare (`jobsort sim`'s flags, Python's
/// keyword arguments); `None` is "not given".
#[derive(Debug, Clone, Default)]
pub struct FairshareFlags {
    /// How messages name what the caller gave.
    pub style: ArgStyle,
    /// A `resource_group` file: its name (for messages) and text.
    pub resource_group: Option<(String, String)>,
    pub auto_tree: Option<AutoTree>,
    pub entity: Option<EntityKind>,
    pub decay_time: Option<i64>,
    pub decay_factor: Option<f64>,
    pub unknown_shares: Option<u32>,
    pub usage_res: Option<String>,
}

impl FairshareFlags {
    /// Whether any is given.
    pub fn given(&self) -> bool {
        self.resource_group.is_some()
            || self.auto_tree.is_some()
            || self.entity.is_some()
            || self.decay_time.is_some()
            || self.decay_factor.is_some()
            || self.unknown_shares.is_some()
            || self.usage_res.is_some()
    }

    /// The fairshare settings (`None` without a tree): each one given wins over the site's
    /// sched_config, which wins over PBS's default; the tree is `auto_tree`, else
    /// `resource_group`, else the site's resource_group when its `fair_share` is on. Each
    /// setting goes into `explained`.
    pub fn config(
        &self,
        site: Option<&PbsSite>,
        explained: &mut Explained,
    ) -> Result<Option<FairshareConfig>, SettingsError> {
        let sc = site.and_then(|s| s.sched_config.as_ref());
        let decay_time = pick(
            self.decay_time,
            "--decay-time",
            sc.and_then(|c| c.fairshare_decay_time.clone()),
            86_400,
        );
        let decay_factor = pick(
            self.decay_factor,
            "--decay-factor",
            sc.and_then(|c| c.fairshare_decay_factor.clone()),
            0.5,
        );
        let site_unknown = site_unknown_shares(sc, u32::MAX)?;
        let unknown_shares = pick(self.unknown_shares, "--unknown-shares", site_unknown, 0);
        let entity = pick(
            self.entity,
            "--entity",
            sc.and_then(|c| c.fairshare_entity.clone()),
            EntityKind::Euser,
        );
        check_decay(decay_time.value, decay_factor.value).map_err(|e| {
            let (flag, origin) = if e.field == "decay_time" {
                ("--decay-time", &decay_time.origin)
            } else {
                ("--decay-factor", &decay_factor.origin)
            };
            match origin {
                Origin::Flag(_) => {
                    SettingsError::Usage(format!("{} {}", self.style.name(flag), e.reason))
                }
                o => SettingsError::Invalid(format!("{o}: fairshare_{} {}", e.field, e.reason)),
            }
        })?;
        let fair_share = sc.and_then(|c| c.fair_share.clone());
        let with_tree = |text: String| FairshareConfig {
            auto_tree: None,
            resource_group: Some(text),
            entity: entity.value,
            ..FairshareConfig::auto(AutoTree::User)
        };
        let base = match (&self.resource_group, self.auto_tree) {
            (_, Some(auto)) => {
                explained.add(
                    "fairshare tree",
                    format!("equal shares by {}", auto.name()),
                    &Origin::Flag("--auto-tree".into()),
                );
                FairshareConfig::auto(auto)
            }
            (Some((name, text)), None) => {
                explained.add(
                    "fairshare tree",
                    format!("resource_group {name}"),
                    &Origin::Flag("--resource-group".into()),
                );
                with_tree(text.clone())
            }
            (None, None) => match (&fair_share, site.and_then(|s| s.resource_group.as_ref())) {
                (Some(on), Some((file, text))) if on.value => {
                    explained.add(
                        "fairshare tree",
                        format!("resource_group {file}"),
                        &on.origin,
                    );
                    with_tree(text.clone())
                }
                (Some(on), None) if on.value => {
                    return Err(SettingsError::Invalid(format!(
                        "{}: fair_share is on, but there is no resource_group (give --pbs-home \
                         with a sched_priv/resource_group, or --resource-group FILE, or \
                         --auto-tree)",
                        on.origin
                    )));
                }
                _ => {
                    let origin = fair_share.map_or(Origin::Default, |s| s.origin);
                    explained.add("fairshare tree", "none (fair_share off)", &origin);
                    return Ok(None);
                }
            },
        };
        if base.auto_tree.is_none() {
            explained.add_setting("fairshare_entity", &entity.clone().map(EntityKind::name));
        }
        explained.add_setting("fairshare_decay_time", &decay_time);
        explained.add_setting("fairshare_decay_factor", &decay_factor);
        explained.add_setting("unknown_shares", &unknown_shares);
        let usage_res = pick(
            self.usage_res.clone(),
            "--usage-res",
            sc.and_then(|c| c.fairshare_usage_res.clone()),
            "cput".to_string(),
        );
        let usage = UsageRes::parse(&usage_res.value).map_err(|e| match &usage_res.origin {
            Origin::Flag(_) => {
                SettingsError::Usage(format!("{} {e}", self.style.name("--usage-res")))
            }
            o => SettingsError::Invalid(format!("{o}: fairshare_usage_res {e}")),
        })?;
        let how = if usage.is_default() {
            "usage: cores x seconds run, the CPU time of a job whose CPUs are all busy"
        } else {
            "usage: its increase while a job runs"
        };
        explained.add(
            "fairshare_usage_res",
            format!("{} ({how})", usage_res.value),
            &usage_res.origin,
        );
        Ok(Some(FairshareConfig {
            decay_time: decay_time.value,
            decay_factor: decay_factor.value,
            unknown_shares: unknown_shares.value,
            // PBS's default is recorded as no setting: recordings stay as they were.
            usage_res: (!usage.is_default()).then_some(usage_res.value),
            ..base
        }))
    }
}
