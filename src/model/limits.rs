//! A scheduler's limits on running jobs in one shape: caps on what a set of running jobs may
//! hold together (PBS's `max_run` for one user, Slurm's `GrpTRES=cpu=64` of an association),
//! each job's draws on them, and the per-job limits that keep a job from ever running
//! (Slurm's `MaxWall` of a QOS).
//!
//! Each scheduler's folder builds [`Limits`] from a snapshot and its configuration
//! (`pbs::limits`, `slurm::limits`); the planner (`forecast::plan`) and `rank` read them. A
//! cap's usage at the snapshot is the sum of the running jobs' draws; a waiting job may start
//! when every cap it draws on has room for it for as long as it runs. When several caps are
//! full, the first of the job's draws names the reason: draws are in the scheduler's own
//! check order.

use super::snapshot::Hold;

/// A cap on what the running jobs that draw on it may hold together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cap {
    /// What a job this cap holds back is told, in the scheduler's words: PBS's comment
    /// (`Not Running: User has reached server running job limit.`), Slurm's reason name
    /// (`AssocGrpCpuLimit`).
    pub reason: String,
    /// The same in plain words, naming the entity and the limit: `user alice may run 2
    /// jobs at once on the server`.
    pub plain: String,
    /// The most the running jobs drawing on it may hold together (jobs, CPUs, KB...).
    pub limit: u64,
}

/// What one job takes of one cap while it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Draw {
    /// An index into [`Limits::caps`].
    pub cap: usize,
    pub amount: u64,
}

/// A per-job limit the job exceeds: no number of ended jobs lets it run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Never {
    /// The scheduler's words (`QOSMaxWallDurationPerJobLimit`).
    pub reason: String,
    /// Plain words (`asks 48:00:00; QOS normal allows 24:00:00 per job`).
    pub plain: String,
}

/// The limits that bear on one snapshot's jobs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Limits {
    pub caps: Vec<Cap>,
    /// Each running job's draws, in `Snapshot::running` order.
    pub running: Vec<Vec<Draw>>,
    /// Each waiting job's draws in the scheduler's check order, in `Snapshot::pending`
    /// order; or the per-job limit it exceeds.
    pub pending: Vec<Result<Vec<Draw>, Never>>,
    /// What each waiting job counts toward once it runs, in `Snapshot::pending` order: its
    /// checks, and any cap it counts toward without being checked against it (a Slurm
    /// association's limit that the job's QOS overrides still counts the job).
    pub started: Vec<Vec<Draw>>,
    /// Whether the scheduler's limits are known (its configuration was there): a job the
    /// scheduler says a limit holds is then planned by these caps; unknown, it is not planned.
    pub known: bool,
}

impl Limits {
    /// Limits unknown (no configuration says them) for `running` running and `pending`
    /// waiting jobs.
    pub fn unknown(running: usize, pending: usize) -> Limits {
        Limits {
            caps: Vec::new(),
            running: vec![Vec::new(); running],
            pending: (0..pending).map(|_| Ok(Vec::new())).collect(),
            started: vec![Vec::new(); pending],
            known: false,
        }
    }

    /// No limits, known to be none (the configuration sets none, or does not enforce them).
    pub fn none(running: usize, pending: usize) -> Limits {
        Limits {
            known: true,
            ..Limits::unknown(running, pending)
        }
    }

    /// Whether a waiting job with `hold` is planned at all: one nothing holds, or one the
    /// scheduler says a limit holds while these limits are known (they then say when it
    /// starts). Any other hold keeps it out.
    pub fn plans(&self, hold: Option<&Hold>) -> bool {
        match hold {
            None => true,
            Some(Hold::Limit(_)) => self.known,
            Some(_) => false,
        }
    }

    /// Each cap's usage by the running jobs.
    pub fn usage(&self) -> Vec<u64> {
        let mut used = vec![0u64; self.caps.len()];
        for d in self.running.iter().flatten() {
            used[d.cap] = used[d.cap].saturating_add(d.amount);
        }
        used
    }

    /// The first cap among `draws` that has no room for them over `used`, if any.
    pub fn blocking(&self, draws: &[Draw], used: &[u64]) -> Option<usize> {
        draws
            .iter()
            .find(|d| used[d.cap].saturating_add(d.amount) > self.caps[d.cap].limit)
            .map(|d| d.cap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_full_cap_in_check_order_is_the_reason() {
        let cap = |reason: &str, limit| Cap {
            reason: reason.into(),
            plain: String::new(),
            limit,
        };
        let limits = Limits {
            caps: vec![cap("jobs", 2), cap("cpus", 64)],
            running: vec![
                vec![Draw { cap: 0, amount: 1 }, Draw { cap: 1, amount: 32 }],
                vec![Draw { cap: 1, amount: 32 }],
            ],
            pending: vec![Ok(vec![
                Draw { cap: 1, amount: 8 },
                Draw { cap: 0, amount: 1 },
            ])],
            started: vec![vec![Draw { cap: 1, amount: 8 }, Draw { cap: 0, amount: 1 }]],
            known: true,
        };
        let used = limits.usage();
        assert_eq!(used, [1, 64]);
        let draws = limits.pending[0].as_ref().unwrap();
        assert_eq!(limits.blocking(draws, &used), Some(1));
        assert_eq!(limits.blocking(&draws[1..], &used), None);
    }
}
