//! Dispatch policies: how a scheduler starts the jobs of its ordered queue (PBS's
//! `strict_ordering` and `backfill_depth`, EASY, conservative and Slurm's backfill with its
//! knobs). PBS's and Slurm's configuration readers give one; the simulator runs it.

/// Dispatch policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// PBS `strict_ordering`: stop at the first job that does not fit.
    Strict,
    /// EASY backfilling: one reservation for the top blocked job.
    Easy,
    /// PBS with `strict_ordering` false (its default): no reservation, every job that fits
    /// starts, in sorted order (`fifo.cpp`: without strict ordering there are no top jobs).
    Fill,
    /// PBS `strict_ordering` with `backfill_depth` N ≥ 2: reservations for the top N blocked
    /// jobs, and a later job starts only if it delays none of them.
    Backfill(u32),
    /// Conservative backfilling: every blocked job gets a reservation (the limit of
    /// [`Policy::Backfill`]).
    Conservative,
    /// Slurm's `sched/backfill`: conservative backfilling within its knobs
    /// ([`SlurmBackfill`]).
    Slurm(SlurmBackfill),
}

/// The knobs of Slurm's backfill scheduler the simulation honours (`SchedulerParameters`;
/// `src/plugins/sched/backfill/backfill.c`, `_load_config` and `_attempt_backfill`):
///
/// - `bf_max_job_test`: a pass tests at most this many jobs, in priority order; below them
///   only Slurm's main scheduler starts jobs, in order until the first that cannot start.
/// - `bf_window` (minutes): a job that cannot start within it gets no reservation ("StartTime
///   set to time after current backfill window. No reservation created"), and the plan ends
///   at `now + bf_window` rounded down to `bf_resolution` (`window_end`): no reservation is
///   held past it.
/// - `bf_resolution` (seconds): a reservation ends at its job's requested end rounded down to
///   the resolution, and holds at least one slot (`_add_reservation`: `end_reserve =
///   (end_reserve / backfill_resolution) * backfill_resolution`, at least `start_time +
///   backfill_resolution`). Slurm also rounds the planned start down; here it is not (the
///   job's resources are busy until then in the plan: only a job of another node could end in
///   the hole that leaves).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SlurmBackfill {
    pub bf_max_job_test: u32,
    /// Minutes.
    pub bf_window: u32,
    /// Seconds.
    pub bf_resolution: u32,
}

impl Default for SlurmBackfill {
    /// Slurm's defaults: 500 jobs, 1440 minutes, 60 seconds (`DEF_BF_MAX_JOB_TEST`,
    /// `BACKFILL_WINDOW`, `BACKFILL_RESOLUTION`).
    fn default() -> SlurmBackfill {
        SlurmBackfill {
            bf_max_job_test: 500,
            bf_window: 1440,
            bf_resolution: 60,
        }
    }
}

impl SlurmBackfill {
    /// Slurm's bounds (`_load_config`): `bf_max_job_test` 1 to 1,000,000
    /// (`MAX_BF_MAX_JOB_TEST`), `bf_window` 1 minute to 30 days (`MAX_BACKFILL_WINDOW`),
    /// `bf_resolution` 1 to 3600 seconds (`MAX_BACKFILL_RESOLUTION`). The first knob out of
    /// range, with why.
    pub fn check(&self) -> Result<(), String> {
        let bad = |name: &str, v: u32, range: &str| Err(format!("{name}={v}: must be {range}"));
        if !(1..=1_000_000).contains(&self.bf_max_job_test) {
            return bad("bf_max_job_test", self.bf_max_job_test, "1 to 1000000");
        }
        if !(1..=43_200).contains(&self.bf_window) {
            return bad("bf_window", self.bf_window, "1 to 43200 minutes");
        }
        if !(1..=3600).contains(&self.bf_resolution) {
            return bad("bf_resolution", self.bf_resolution, "1 to 3600 seconds");
        }
        Ok(())
    }

    /// The plan's horizon at `now`: `now + bf_window` rounded down to the resolution.
    pub(crate) fn window_end(&self, now: i64) -> i64 {
        let r = i64::from(self.bf_resolution);
        now.saturating_add(i64::from(self.bf_window) * 60)
            .div_euclid(r)
            * r
    }

    /// The end of the reservation of a job planned from `start` to `end`: `end` rounded down
    /// to the resolution, at least one slot after `start`.
    pub(crate) fn reserved_end(&self, start: i64, end: i64) -> i64 {
        let r = i64::from(self.bf_resolution);
        (end.div_euclid(r) * r).max(start.saturating_add(r))
    }
}

impl Policy {
    /// What [`Policy::parse`] takes, for messages.
    pub const NAMES: &'static str =
        "strict, easy, fill, conservative, slurm or backfill:N (N a depth)";

    /// Parse `strict`, `easy`, `fill`, `conservative`, `slurm` (Slurm's backfill with its
    /// default knobs) or `backfill:N` (N ≥ 2; `backfill:0` is `strict` and `backfill:1` is
    /// `easy`).
    pub fn parse(s: &str) -> Option<Policy> {
        match s {
            "strict" => Some(Policy::Strict),
            "easy" => Some(Policy::Easy),
            "fill" => Some(Policy::Fill),
            "conservative" => Some(Policy::Conservative),
            "slurm" => Some(Policy::Slurm(SlurmBackfill::default())),
            _ => {
                let n: u32 = s.strip_prefix("backfill:")?.parse().ok()?;
                Some(Policy::with_depth(n))
            }
        }
    }
    /// The policy of PBS's `strict_ordering` with `backfill_depth` N.
    pub fn with_depth(n: u32) -> Policy {
        match n {
            0 => Policy::Strict,
            1 => Policy::Easy,
            n => Policy::Backfill(n),
        }
    }
    /// Name as on the command line (`backfill:N` for a depth of N).
    pub fn name(self) -> String {
        match self {
            Policy::Strict => "strict".into(),
            Policy::Easy => "easy".into(),
            Policy::Fill => "fill".into(),
            Policy::Backfill(n) => format!("backfill:{n}"),
            Policy::Conservative => "conservative".into(),
            Policy::Slurm(_) => "slurm".into(),
        }
    }
    /// How many blocked jobs get a reservation (`None`: no limit).
    pub fn depth(self) -> Option<u32> {
        match self {
            Policy::Strict | Policy::Fill => Some(0),
            Policy::Easy => Some(1),
            Policy::Backfill(n) => Some(n),
            Policy::Conservative | Policy::Slurm(_) => None,
        }
    }
    /// Whether dispatch plans reservations, and so needs the running jobs by requested end.
    pub fn reserves(self) -> bool {
        matches!(
            self,
            Policy::Easy | Policy::Backfill(_) | Policy::Conservative | Policy::Slurm(_)
        )
    }
}

impl std::fmt::Display for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}
