//! Fairshare values of job rows: each job's entity (PBS `fairshare_entity`) looked up in a
//! fairshare tree ([`Fairshare`]), written into the row as the formula keywords.

use super::Job;
use crate::fairshare::inputs::{EntityKind, Fairshare};

impl EntityKind {
    /// The entity name of `job`, or an error naming the missing field.
    pub fn entity_of(self, job: &Job) -> Result<String, String> {
        let need = |v: &Option<String>, field: &str| {
            v.clone().ok_or_else(|| {
                format!(
                    "job {} has no `{field}` (needed for its fairshare entity)",
                    job.id
                )
            })
        };
        Ok(match self {
            EntityKind::Euser => need(&job.user, "user")?,
            EntityKind::Egroup => need(&job.group, "group")?,
            EntityKind::Account => need(&job.account, "account")?,
            EntityKind::Queue => need(&job.queue, "queue")?,
            EntityKind::EgroupEuser => format!(
                "{}:{}",
                need(&job.group, "group")?,
                need(&job.user, "user")?
            ),
        })
    }
}

fn entities(jobs: &[Job], kind: EntityKind) -> Result<Vec<String>, String> {
    jobs.iter().map(|j| kind.entity_of(j)).collect()
}

impl Fairshare {
    /// Fill each job's `fairshare_perc`, `fairshare_tree_usage` and `fairshare_factor` from
    /// its entity ([`Fairshare::entity_keywords`]: PBS adds entities it does not know under
    /// `unknown`). Returns warnings.
    pub fn fill_jobs(&mut self, jobs: &mut [Job], kind: EntityKind) -> Result<Vec<String>, String> {
        let (values, warnings) = self.entity_keywords(&entities(jobs, kind)?);
        for (job, v) in jobs.iter_mut().zip(values) {
            job.values.insert("fairshare_perc".into(), v[0]);
            job.values.insert("fairshare_tree_usage".into(), v[1]);
            job.values.insert("fairshare_factor".into(), v[2]);
        }
        Ok(warnings)
    }

    /// PBS's fairshare order of jobs as a dense rank per job, 0 = most deserving: the key of
    /// [`TieBreak::fair_share`](crate::rank::TieBreak). `None` for share trees. Call after
    /// [`fill_jobs`](Self::fill_jobs) so every entity exists.
    pub fn fair_share_ranks(
        &self,
        jobs: &[Job],
        kind: EntityKind,
    ) -> Result<Option<Vec<usize>>, String> {
        self.entity_ranks(&entities(jobs, kind)?)
    }
}
