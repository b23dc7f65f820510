//! Limits inside the simulation: per-user running-job and core caps that hold jobs with named
//! dependencies (flux-accounting's names `max-running-jobs-user-limit` and
//! `max-resources-user-limit`).
//!
//! This is the simulator's own minimal engine behind a small surface ([`LimitState::check`],
//! [`LimitState::on_start`], [`LimitState::on_end`]), so the crate's full limits engine can be
//! wired in behind the same calls. A held job is re-checked every round in rank order; a job
//! started in a round counts against the caps of the jobs after it in that same round.

use std::collections::BTreeMap;

/// Caps of one user (absent = unlimited).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserLimits {
    pub max_running_jobs: Option<u32>,
    pub max_cores: Option<u64>,
}

/// The limits file: defaults for every user plus per-user overrides (TOML or JSON).
///
/// ```toml
/// [default]
/// max_running_jobs = 4
/// [users.u12]
/// max_cores = 32
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    #[serde(default)]
    pub default: UserLimits,
    #[serde(default)]
    pub users: BTreeMap<String, UserLimits>,
}

impl LimitsConfig {
    /// Parse TOML (or JSON when the text starts with `{`).
    pub fn parse(text: &str) -> Result<LimitsConfig, String> {
        if text.trim_start().starts_with('{') {
            serde_json::from_str(text).map_err(|e| e.to_string())
        } else {
            toml::from_str(text).map_err(|e| e.to_string())
        }
    }
    fn for_user(&self, user: &str) -> UserLimits {
        let d = self.default;
        match self.users.get(user) {
            Some(u) => UserLimits {
                max_running_jobs: u.max_running_jobs.or(d.max_running_jobs),
                max_cores: u.max_cores.or(d.max_cores),
            },
            None => d,
        }
    }
}

/// Dependency name: the user is at `max_running_jobs`.
pub const DEP_RUNNING_JOBS: &str = "max-running-jobs-user-limit";
/// Dependency name: the job would take the user past `max_cores`.
pub const DEP_RESOURCES: &str = "max-resources-user-limit";

/// Running counters per user (index = user id assigned by the simulator).
#[derive(Debug, Clone)]
pub struct LimitState {
    caps: Vec<UserLimits>,
    running_jobs: Vec<u32>,
    running_cores: Vec<u64>,
}

impl LimitState {
    /// Counters for users `names` (index = user id).
    pub fn new(cfg: &LimitsConfig, names: &[String]) -> LimitState {
        LimitState {
            caps: names.iter().map(|n| cfg.for_user(n)).collect(),
            running_jobs: vec![0; names.len()],
            running_cores: vec![0; names.len()],
        }
    }
    /// The dependencies that hold a job of `user` asking for `cores` (empty = may run).
    pub fn check(&self, user: u32, cores: u64) -> Vec<&'static str> {
        let u = user as usize;
        let cap = self.caps[u];
        let mut deps = Vec::new();
        if cap.max_running_jobs.is_some_and(|m| self.running_jobs[u] >= m) {
            deps.push(DEP_RUNNING_JOBS);
        }
        if cap.max_cores.is_some_and(|m| self.running_cores[u] + cores > m) {
            deps.push(DEP_RESOURCES);
        }
        deps
    }
    /// A job of `user` started.
    pub fn on_start(&mut self, user: u32, cores: u64) {
        self.running_jobs[user as usize] += 1;
        self.running_cores[user as usize] += cores;
    }
    /// A job of `user` ended.
    pub fn on_end(&mut self, user: u32, cores: u64) {
        let u = user as usize;
        self.running_jobs[u] = self.running_jobs[u].saturating_sub(1);
        self.running_cores[u] = self.running_cores[u].saturating_sub(cores);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_hold_with_named_dependencies() {
        let cfg = LimitsConfig::parse("[default]\nmax_running_jobs = 1\n[users.b]\nmax_cores = 4\nmax_running_jobs = 5\n").unwrap();
        let mut s = LimitState::new(&cfg, &["a".into(), "b".into()]);
        assert!(s.check(0, 8).is_empty());
        s.on_start(0, 8);
        assert_eq!(s.check(0, 1), vec![DEP_RUNNING_JOBS]);
        assert_eq!(s.check(1, 5), vec![DEP_RESOURCES]);
        s.on_end(0, 8);
        assert!(s.check(0, 1).is_empty());
        assert!(LimitsConfig::parse("[default]\nmax_jobs = 1\n").is_err());
    }
}
