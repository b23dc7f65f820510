//! A PBS site's scheduler configuration, read as PBS reads it: `sched_priv/sched_config`
//! ([`sched_config`]), the server, queue and scheduler attributes of `qmgr -c 'print server'`
//! / `'print sched'` output ([`qmgr`]), and the fairshare files under `PBS_HOME/sched_priv`
//! (`resource_group`, `usage`, `holidays`). [`PbsSite`] holds them and turns them into the
//! settings a simulation or a ranking uses, each with where it came from ([`Origin`]). PBS's
//! fairshare usage in simulated time ([`share`]: the tree of `crate::fairshare::pbs` with
//! usage accrued and decayed as a simulation runs). A site's state at one instant from
//! `pbsnodes`, `qstat` and `pbs_rstat` outputs ([`snapshot`]). The limits pbs_sched enforces
//! on running jobs (`max_run`, `max_run_res`, and the old `max_running`, `max_user_run`,
//! `max_group_run`, `max_user_res`, `max_group_res`) as caps and each job's draws on them,
//! with the comment pbs_sched writes on a job a cap holds ([`limits`]).

pub mod limits;
pub mod order;
pub mod qmgr;
pub mod sched_config;
pub mod share;
pub mod snapshot;

pub use qmgr::{Qmgr, QmgrError, parse_qmgr};
pub use sched_config::{SchedConfig, parse_sched_config};

use crate::model::Policy;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// Where a setting came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A line of a configuration file.
    File { file: String, line: usize },
    /// A file as a whole (a `resource_group` found under `PBS_HOME`).
    WholeFile(String),
    /// PBS's default.
    Default,
    /// A command-line flag.
    Flag(String),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::File { file, line } => write!(f, "{file}:{line}"),
            Origin::WholeFile(file) => f.write_str(file),
            Origin::Default => f.write_str("PBS default"),
            Origin::Flag(flag) => write!(f, "{flag}"),
        }
    }
}

/// A value and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting<T> {
    pub value: T,
    pub origin: Origin,
}

impl<T> Setting<T> {
    pub fn new(value: T, origin: Origin) -> Setting<T> {
        Setting { value, origin }
    }
    /// PBS's default.
    pub fn default_value(value: T) -> Setting<T> {
        Setting::new(value, Origin::Default)
    }
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Setting<U> {
        Setting::new(f(self.value), self.origin)
    }
}

/// Something PBS would log about a configuration line, or a setting jobsort reads but does
/// not simulate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub origin: Origin,
    pub message: String,
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.origin, self.message)
    }
}

/// A configuration that cannot be used: where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PbsConfigError {
    #[error("{file}: {message}")]
    Io { file: String, message: String },
    #[error(transparent)]
    Qmgr(#[from] QmgrError),
    #[error("{origin}: {message}")]
    Setting { origin: Origin, message: String },
}

/// A site's configuration: whichever of the files were given or found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PbsSite {
    pub sched_config: Option<SchedConfig>,
    pub qmgr: Option<Qmgr>,
    /// `sched_priv/resource_group`: the file and its text.
    pub resource_group: Option<(String, String)>,
    /// `sched_priv/usage`, when it exists.
    pub usage: Option<PathBuf>,
    /// Notes beyond those of the files (e.g. a holidays file whose prime time is not
    /// simulated).
    pub notes: Vec<Note>,
}

/// A configuration file's text and the name its diagnostics give it (its path, `<stdin>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedText {
    pub name: String,
    pub text: String,
}

fn read(path: &Path) -> Result<String, PbsConfigError> {
    std::fs::read_to_string(path).map_err(|e| PbsConfigError::Io {
        file: path.display().to_string(),
        message: e.to_string(),
    })
}

impl PbsSite {
    /// Read a site's files: `PBS_HOME` (its `sched_priv/sched_config`, `resource_group`,
    /// `usage` and `holidays`, each where it exists), a `sched_config` given on its own
    /// (instead of `PBS_HOME`'s), and `qmgr` output. A `PBS_HOME` without a
    /// `sched_priv/sched_config` is an error: it is not a PBS_HOME.
    pub fn read(
        home: Option<&Path>,
        sched_config: Option<&Path>,
        qmgr: Option<&Path>,
    ) -> Result<PbsSite, PbsConfigError> {
        let named = |p: &Path| {
            read(p).map(|text| NamedText {
                name: p.display().to_string(),
                text,
            })
        };
        PbsSite::from_texts(
            home,
            sched_config.map(named).transpose()?,
            qmgr.map(named).transpose()?,
        )
    }

    /// [`PbsSite::read`] with the `sched_config` and the `qmgr` output already read (from
    /// stdin, say): each named as its diagnostics name it. `PBS_HOME`'s files are read from
    /// `home`; a `sched_config` given wins over its own.
    pub fn from_texts(
        home: Option<&Path>,
        sched_config: Option<NamedText>,
        qmgr: Option<NamedText>,
    ) -> Result<PbsSite, PbsConfigError> {
        let mut site = PbsSite::default();
        let sched_priv = home.map(|h| h.join("sched_priv"));
        let sc = match (sched_config, &sched_priv) {
            (Some(given), _) => Some(given),
            (None, Some(sp)) => {
                let p = sp.join("sched_config");
                if !p.is_file() {
                    return Err(PbsConfigError::Io {
                        file: p.display().to_string(),
                        message: "no such file: the PBS_HOME given has no sched_priv/sched_config"
                            .into(),
                    });
                }
                Some(NamedText {
                    text: read(&p)?,
                    name: p.display().to_string(),
                })
            }
            (None, None) => None,
        };
        if let Some(sc) = sc {
            site.sched_config = Some(parse_sched_config(&sc.text, &sc.name));
        }
        if let Some(sp) = &sched_priv {
            let rg = sp.join("resource_group");
            if rg.is_file() {
                site.resource_group = Some((rg.display().to_string(), read(&rg)?));
            }
            let usage = sp.join("usage");
            if usage.is_file() {
                site.usage = Some(usage);
            }
            let holidays = sp.join("holidays");
            if holidays.is_file() && has_year(&read(&holidays)?) {
                site.notes.push(Note {
                    origin: Origin::WholeFile(holidays.display().to_string()),
                    message: "prime and non-prime time are not simulated: the prime-time \
                              values of sched_config are in effect all the time"
                        .into(),
                });
            }
        }
        if let Some(q) = qmgr {
            site.qmgr = Some(parse_qmgr(&q.text, &q.name)?);
        }
        Ok(site)
    }

    /// Every note: the files' and the site's.
    pub fn notes(&self) -> impl Iterator<Item = &Note> {
        self.sched_config
            .iter()
            .flat_map(|c| c.notes.iter())
            .chain(&self.notes)
    }

    /// `job_sort_formula`: the scheduler's (`set sched`), else the server's.
    pub fn formula(&self) -> Option<&Setting<String>> {
        let q = self.qmgr.as_ref()?;
        q.sched_attr("job_sort_formula")
            .or_else(|| q.server_attr("job_sort_formula"))
    }

    /// `job_sort_formula_threshold` (a scheduler attribute; the server's in older PBS).
    pub fn threshold(&self) -> Result<Option<Setting<f64>>, PbsConfigError> {
        let Some(q) = &self.qmgr else {
            return Ok(None);
        };
        let Some(s) = q
            .sched_attr("job_sort_formula_threshold")
            .or_else(|| q.server_attr("job_sort_formula_threshold"))
        else {
            return Ok(None);
        };
        match s.value.trim().parse::<f64>() {
            Ok(v) if !v.is_nan() => Ok(Some(Setting::new(v, s.origin.clone()))),
            _ => Err(PbsConfigError::Setting {
                origin: s.origin.clone(),
                message: format!("job_sort_formula_threshold `{}` is not a number", s.value),
            }),
        }
    }

    /// The server's `backfill_depth` (unset: PBS behaves as 1).
    pub fn backfill_depth(&self) -> Result<Setting<u32>, PbsConfigError> {
        let Some(s) = self
            .qmgr
            .as_ref()
            .and_then(|q| q.server_attr("backfill_depth"))
        else {
            return Ok(Setting::default_value(1));
        };
        s.value
            .trim()
            .parse::<u32>()
            .map(|v| Setting::new(v, s.origin.clone()))
            .map_err(|_| PbsConfigError::Setting {
                origin: s.origin.clone(),
                message: format!("backfill_depth `{}`: must be a whole number ≥ 0", s.value),
            })
    }

    /// The dispatch policy PBS runs with `strict_ordering` and `backfill_depth`
    /// (`fifo.cpp`, `should_backfill_with_job`; scheduler_data.md §7.1): no strict ordering →
    /// no top jobs, every job that fits starts ([`Policy::Fill`]); strict ordering with depth
    /// N → reservations for the top N blocked jobs ([`Policy::with_depth`]: 0 strict, 1 EASY).
    /// A queue's own `backfill_depth` is not simulated yet: an error that says so.
    pub fn policy(&self) -> Result<Setting<Policy>, PbsConfigError> {
        let strict = self
            .sched_config
            .as_ref()
            .and_then(|c| c.strict_ordering.clone())
            .unwrap_or(Setting::default_value(false));
        if !strict.value {
            return Ok(strict.map(|_| Policy::Fill));
        }
        if let Some(q) = &self.qmgr
            && let Some((queue, s)) = q
                .queues
                .iter()
                .find_map(|(n, a)| a.get("backfill_depth").map(|s| (n, s)))
        {
            return Err(PbsConfigError::Setting {
                origin: s.origin.clone(),
                message: format!(
                    "queue {queue} has its own backfill_depth {}: per-queue backfill depth is \
                     not simulated yet (give --policy or --backfill-depth for the whole run)",
                    s.value
                ),
            });
        }
        let depth = self.backfill_depth()?;
        // The origin: the depth's line when it was set, else strict_ordering's.
        let origin = match depth.origin {
            Origin::Default => strict.origin,
            o => o,
        };
        Ok(Setting::new(Policy::with_depth(depth.value), origin))
    }

    /// Each queue's `Priority`, by queue name (the `queue_priority` formula keyword).
    pub fn queue_priorities(&self) -> Result<BTreeMap<String, Setting<f64>>, PbsConfigError> {
        let mut out = BTreeMap::new();
        let Some(q) = &self.qmgr else {
            return Ok(out);
        };
        for (name, attrs) in &q.queues {
            if let Some(s) = attrs.get("priority") {
                let v: f64 = s
                    .value
                    .trim()
                    .parse()
                    .ok()
                    .filter(|v: &f64| v.fract() == 0.0 && (-1024.0..=1023.0).contains(v))
                    .ok_or_else(|| PbsConfigError::Setting {
                        origin: s.origin.clone(),
                        message: format!(
                            "queue {name} Priority `{}`: must be a whole number from -1024 to 1023",
                            s.value
                        ),
                    })?;
                out.insert(name.clone(), Setting::new(v, s.origin.clone()));
            }
        }
        Ok(out)
    }
}

/// Whether a holidays file turns prime-time switching on (a `YEAR` line; `prime.cpp`: year 0
/// means no prime time).
fn has_year(text: &str) -> bool {
    text.lines().any(|l| {
        let mut w = l.split_whitespace();
        w.next() == Some("YEAR")
            && w.next()
                .and_then(|y| y.parse::<i64>().ok())
                .is_some_and(|y| y != 0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(sched_config: &str, qmgr: &str) -> PbsSite {
        PbsSite {
            sched_config: Some(parse_sched_config(sched_config, "sched_config")),
            qmgr: Some(parse_qmgr(qmgr, "qmgr").unwrap()),
            ..PbsSite::default()
        }
    }

    #[test]
    fn policy_follows_strict_ordering_and_backfill_depth() {
        let p = |sc: &str, q: &str| site(sc, q).policy().map(|s| s.value);
        // PBS's defaults: strict_ordering false → no top jobs.
        assert_eq!(p("", ""), Ok(Policy::Fill));
        assert_eq!(p("strict_ordering: false ALL", ""), Ok(Policy::Fill));
        // strict_ordering with backfill_depth unset behaves as 1.
        assert_eq!(p("strict_ordering: true ALL", ""), Ok(Policy::Easy));
        assert_eq!(
            p("strict_ordering: true ALL", "set server backfill_depth = 0"),
            Ok(Policy::Strict)
        );
        assert_eq!(
            p("strict_ordering: true ALL", "set server backfill_depth = 3"),
            Ok(Policy::Backfill(3))
        );
        let e = p(
            "strict_ordering: true ALL",
            "create queue q\nset queue q backfill_depth = 0",
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("qmgr:2: queue q has its own backfill_depth 0")
        );
        // Without strict ordering the depth does not matter (no top jobs at all).
        assert_eq!(p("", "set server backfill_depth = 3"), Ok(Policy::Fill));
    }

    #[test]
    fn formula_threshold_and_queue_priorities() {
        let s = site(
            "",
            "create queue a\nset queue a Priority = 20\ncreate queue b\n\
             set server job_sort_formula = \"ncpus\"\nset sched job_sort_formula_threshold = -5\n",
        );
        assert_eq!(s.formula().unwrap().value, "ncpus");
        assert_eq!(s.threshold().unwrap().unwrap().value, -5.0);
        let qp = s.queue_priorities().unwrap();
        assert_eq!(qp.len(), 1);
        assert_eq!(qp["a"].value, 20.0);
        assert_eq!(qp["a"].origin.to_string(), "qmgr:2");
        let bad = site("", "set sched job_sort_formula_threshold = nan\n");
        assert!(bad.threshold().is_err());
        let bad = site("", "create queue a\nset queue a Priority = 5000\n");
        assert!(
            bad.queue_priorities()
                .unwrap_err()
                .to_string()
                .contains("-1024 to 1023")
        );
    }

    #[test]
    fn a_pbs_home_is_read_from_its_sched_priv() {
        let dir = tempfile::tempdir().unwrap();
        let sp = dir.path().join("sched_priv");
        std::fs::create_dir(&sp).unwrap();
        std::fs::write(sp.join("sched_config"), "fair_share: true ALL\n").unwrap();
        std::fs::write(sp.join("resource_group"), "grp 10 root 5\n").unwrap();
        std::fs::write(
            sp.join("holidays"),
            "YEAR 2026\n*\n  1  Jan 1 New Year's Day\n",
        )
        .unwrap();
        let s = PbsSite::read(Some(dir.path()), None, None).unwrap();
        assert!(
            s.sched_config
                .as_ref()
                .unwrap()
                .fair_share
                .as_ref()
                .unwrap()
                .value
        );
        assert_eq!(s.resource_group.as_ref().unwrap().1, "grp 10 root 5\n");
        assert_eq!(s.usage, None);
        assert_eq!(s.notes().count(), 1);
        let empty = tempfile::tempdir().unwrap();
        let e = PbsSite::read(Some(empty.path()), None, None).unwrap_err();
        assert!(
            e.to_string().contains("has no sched_priv/sched_config"),
            "{e}"
        );
    }
}
