//! Limit configuration from TOML or JSON.
//!
//! ```toml
//! [options]
//! count_sched_in_resources = false   # count SCHED jobs in max_running_jobs, max_nodes/max_cores
//! deny_unknown_queues = false        # reject jobs naming a queue not configured
//! sched_counted_once = false         # an urgency change does not count a SCHED job again
//! [[association]]
//! user = "user1"
//! bank = "A"
//! max_running_jobs = 2               # omitted or -1: flux default (5)
//! max_active_jobs = 10               # default 7; <= 0 means unlimited
//! max_nodes = 2                      # default 2147483647
//! max_cores = 8                      # default 2147483647
//! max_sched_jobs = 2147483647        # default 2147483647
//! queues = ["bronze", "silver"]      # empty or omitted: none of the [[queue]]s
//! active = true
//! default = false                    # this bank is the user's default (else the first)
//! [[queue]]
//! name = "bronze"
//! priority = 0
//! max_running_jobs = 100
//! max_nodes_per_assoc = 2147483647
//! max_sched_jobs = 2147483647
//! max_sched_nodes_per_assoc = 2147483647
//! max_sched_cores_per_assoc = 2147483647
//! ```
//! JSON has the same shape (`{"options": {...}, "association": [...], "queue": [...]}`;
//! `associations`/`queues` are accepted as aliases). Unknown keys are errors.

use std::collections::HashSet;

use serde::Deserialize;

use super::assoc::{AssocLimits, QueueLimits};
use super::error::LimitsFileError;

/// Engine options.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// Count SCHED jobs (not only RUN) in the association's and the queue's
    /// `max_running_jobs` and their nodes/cores in `max_nodes`/`max_cores`, and make a job
    /// leaving DEPEND pass every limit, closing flux's burst overshoots. Off by default
    /// (flux's behaviour).
    #[serde(default)]
    pub count_sched_in_resources: bool,
    /// Reject a job whose queue is not configured (flux `deny_unknown_queues`); by default
    /// such a job skips the queue limits.
    #[serde(default)]
    pub deny_unknown_queues: bool,
    /// Count a job in the SCHED counters once, even when an urgency change sends it
    /// through PRIORITY → SCHED again. Off by default: flux's `sched_cb` counts it again
    /// and nothing takes the extra count back, so the association's `cur_sched_jobs` (and
    /// the queue's SCHED jobs, nodes and cores) only grow
    /// ([`LimitEngine::urgency`](super::LimitEngine::urgency)).
    #[serde(default)]
    pub sched_counted_once: bool,
}

/// One association as configured.
#[derive(Clone, Debug, PartialEq)]
pub struct AssocConfig {
    /// User name.
    pub user: String,
    /// Bank.
    pub bank: String,
    /// Numeric user id (flux default 65534).
    pub userid: i64,
    /// Fairshare (flux default 0.5; shown in the query only).
    pub fairshare: f64,
    /// Whether this bank is the user's default bank.
    pub default_bank: bool,
    /// Limits with defaults filled in.
    pub limits: AssocLimits,
}

/// One queue as configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueConfig {
    /// Name.
    pub name: String,
    /// Limits with defaults filled in.
    pub limits: QueueLimits,
}

/// A whole configuration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LimitsConfig {
    /// Options.
    pub options: Options,
    /// Associations in file order (the first of a user is its default bank).
    pub associations: Vec<AssocConfig>,
    /// Queues in file order.
    pub queues: Vec<QueueConfig>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    options: Options,
    #[serde(default, alias = "associations")]
    association: Vec<RawAssoc>,
    #[serde(default, alias = "queues")]
    queue: Vec<RawQueue>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAssoc {
    #[serde(alias = "username")]
    user: String,
    bank: String,
    userid: Option<i64>,
    fairshare: Option<f64>,
    #[serde(default)]
    default: bool,
    max_running_jobs: Option<i64>,
    max_active_jobs: Option<i64>,
    max_nodes: Option<i64>,
    max_cores: Option<i64>,
    max_sched_jobs: Option<i64>,
    queues: Option<Vec<String>>,
    active: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawQueue {
    #[serde(alias = "queue")]
    name: String,
    priority: Option<i64>,
    max_running_jobs: Option<i64>,
    max_nodes_per_assoc: Option<i64>,
    max_sched_jobs: Option<i64>,
    max_sched_nodes_per_assoc: Option<i64>,
    max_sched_cores_per_assoc: Option<i64>,
}

/// A configured value: omitted or -1 gives the default.
pub fn limit_or_default(v: Option<i64>, default: i64) -> i64 {
    match v {
        None | Some(-1) => default,
        Some(v) => v,
    }
}

fn line_of(text: &str, byte: usize) -> usize {
    text.as_bytes()[..byte.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

impl LimitsConfig {
    /// Parses TOML, or JSON when the text starts with `{` (after whitespace). `name` is
    /// the file name used in error locations.
    pub fn parse(name: &str, text: &str) -> Result<LimitsConfig, LimitsFileError> {
        let raw: RawConfig = if text.trim_start().starts_with('{') {
            serde_json::from_str(text).map_err(|e| {
                LimitsFileError::new(
                    format!("{name}:{}", e.line()),
                    strip_position(&e.to_string()),
                )
            })?
        } else {
            toml::from_str(text).map_err(|e| {
                let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(1);
                LimitsFileError::new(format!("{name}:{line}"), e.message().to_string())
            })?
        };
        Self::from_raw(name, raw)
    }

    fn from_raw(name: &str, raw: RawConfig) -> Result<LimitsConfig, LimitsFileError> {
        let mut queues = Vec::new();
        let mut qnames = HashSet::new();
        for (i, q) in raw.queue.into_iter().enumerate() {
            let at = || format!("{name}: queue[{i}]");
            if q.name.is_empty() {
                return Err(LimitsFileError::new(at(), "queue name is empty"));
            }
            if !qnames.insert(q.name.clone()) {
                return Err(LimitsFileError::new(
                    at(),
                    format!("duplicate queue \"{}\"", q.name),
                ));
            }
            let d = QueueLimits::default();
            queues.push(QueueConfig {
                name: q.name,
                limits: QueueLimits {
                    priority: limit_or_default(q.priority, d.priority),
                    max_running_jobs: limit_or_default(q.max_running_jobs, d.max_running_jobs),
                    max_nodes_per_assoc: limit_or_default(
                        q.max_nodes_per_assoc,
                        d.max_nodes_per_assoc,
                    ),
                    max_sched_jobs: limit_or_default(q.max_sched_jobs, d.max_sched_jobs),
                    max_sched_nodes_per_assoc: limit_or_default(
                        q.max_sched_nodes_per_assoc,
                        d.max_sched_nodes_per_assoc,
                    ),
                    max_sched_cores_per_assoc: limit_or_default(
                        q.max_sched_cores_per_assoc,
                        d.max_sched_cores_per_assoc,
                    ),
                },
            });
        }
        let mut associations = Vec::new();
        let mut keys = HashSet::new();
        for (i, a) in raw.association.into_iter().enumerate() {
            let at = || format!("{name}: association[{i}] ({}/{})", a.user, a.bank);
            if a.user.is_empty() || a.bank.is_empty() {
                return Err(LimitsFileError::new(
                    at(),
                    "user and bank must not be empty",
                ));
            }
            if !keys.insert((a.user.clone(), a.bank.clone())) {
                return Err(LimitsFileError::new(at(), "duplicate association"));
            }
            let queues_list = a.queues.clone().unwrap_or_default();
            if let Some(q) = queues_list.iter().find(|q| !qnames.contains(*q)) {
                return Err(LimitsFileError::new(
                    at(),
                    format!("queue \"{q}\" is not defined by any [[queue]]"),
                ));
            }
            let d = AssocLimits::default();
            associations.push(AssocConfig {
                userid: a.userid.unwrap_or(65534),
                fairshare: a.fairshare.unwrap_or(0.5),
                default_bank: a.default,
                limits: AssocLimits {
                    max_running_jobs: limit_or_default(a.max_running_jobs, d.max_running_jobs),
                    max_active_jobs: limit_or_default(a.max_active_jobs, d.max_active_jobs),
                    max_nodes: limit_or_default(a.max_nodes, d.max_nodes),
                    max_cores: limit_or_default(a.max_cores, d.max_cores),
                    max_sched_jobs: limit_or_default(a.max_sched_jobs, d.max_sched_jobs),
                    queues: queues_list,
                    active: a.active.unwrap_or(true),
                },
                user: a.user,
                bank: a.bank,
            });
        }
        Ok(LimitsConfig {
            options: raw.options,
            associations,
            queues,
        })
    }

    /// Reads and parses a configuration file.
    pub fn load(path: &std::path::Path) -> Result<LimitsConfig, LimitsFileError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| LimitsFileError::new(name.clone(), format!("cannot read: {e}")))?;
        Self::parse(&name, &text)
    }
}

/// serde_json appends " at line L column C"; the location is already in front.
pub(crate) fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_reset() {
        let c = LimitsConfig::parse(
            "c.toml",
            "[[association]]\nuser='u'\nbank='A'\nmax_running_jobs=-1\nmax_nodes=3\n",
        )
        .unwrap();
        let l = &c.associations[0].limits;
        assert_eq!(l.max_running_jobs, 5);
        assert_eq!(l.max_active_jobs, 7);
        assert_eq!(l.max_nodes, 3);
        assert_eq!(l.max_cores, 2147483647);
        assert!(!c.options.count_sched_in_resources);
    }

    #[test]
    fn toml_error_has_line() {
        let e = LimitsConfig::parse(
            "c.toml",
            "[[association]]\nuser='u'\nbank='A'\nmax_nodes='x'\n",
        )
        .unwrap_err();
        assert_eq!(e.location, "c.toml:4");
    }
}
