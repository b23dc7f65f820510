//! Fairshare values of jobs: each job's entity (PBS `fairshare_entity`,
//! [`JobSet::entity`]) looked up in a fairshare tree ([`Fairshare`]), written into the jobs'
//! columns as the formula keywords.

use super::JobSet;
use crate::fairshare::inputs::{EntityKind, Fairshare};

fn entities(jobs: &JobSet, kind: EntityKind) -> Result<Vec<String>, String> {
    (0..jobs.len()).map(|i| jobs.entity(i, kind)).collect()
}

impl Fairshare {
    /// Fill the jobs' `fairshare_perc`, `fairshare_tree_usage` and `fairshare_factor` columns
    /// from their entities ([`Fairshare::entity_keywords`]: PBS adds entities it does not
    /// know under `unknown`). Returns warnings.
    pub fn fill_jobs(
        &mut self,
        jobs: &mut JobSet,
        kind: EntityKind,
    ) -> Result<Vec<String>, String> {
        let (values, warnings) = self.entity_keywords(&entities(jobs, kind)?);
        for (k, name) in ["fairshare_perc", "fairshare_tree_usage", "fairshare_factor"]
            .into_iter()
            .enumerate()
        {
            jobs.set_column(name, values.iter().map(|v| v[k]).collect())
                .expect("one value per job");
        }
        Ok(warnings)
    }

    /// PBS's fairshare order of jobs as a dense rank per job, 0 = most deserving: the key of
    /// [`TieBreak::fair_share`](crate::rank::TieBreak). `None` for share trees. Call after
    /// [`fill_jobs`](Self::fill_jobs) so every entity exists.
    pub fn fair_share_ranks(
        &self,
        jobs: &JobSet,
        kind: EntityKind,
    ) -> Result<Option<Vec<usize>>, String> {
        self.entity_ranks(&entities(jobs, kind)?)
    }

    /// Which jobs' entities have no share of the machine (`tree_percentage` 0: a 0-share
    /// entity or group on the path, or `unknown` with `unknown_shares` 0). PBS's scheduler
    /// never runs them when `fair_share` and `fairshare_enforce_no_shares` are on
    /// (`query_jobs` in OpenPBS `src/scheduler/job_info.cpp`: NEVER_RUN, "Job has zero shares
    /// for fairshare"). `None` for share trees. Call after [`fill_jobs`](Self::fill_jobs).
    pub fn zero_share_jobs(
        &self,
        jobs: &JobSet,
        kind: EntityKind,
    ) -> Result<Option<Vec<bool>>, String> {
        let Fairshare::Pbs(t) = self else {
            return Ok(None);
        };
        entities(jobs, kind)?
            .iter()
            .map(|e| {
                t.find(e)
                    .map(|n| t.node(n).tree_percentage == 0.0)
                    .ok_or_else(|| format!("entity {e} is not in the fairshare tree"))
            })
            .collect::<Result<Vec<bool>, String>>()
            .map(Some)
    }
}
