//! flux-accounting's `mf_priority` jobtap plugin priority, exactly
//! (`src/plugins/mf_priority.cpp: priority_calculation`):
//!
//! ```text
//! urgency == 0  (FLUX_JOB_URGENCY_HOLD)     → 0           (FLUX_JOB_PRIORITY_MIN)
//! urgency == 31 (FLUX_JOB_URGENCY_EXPEDITE) → 4294967295  (FLUX_JOB_PRIORITY_MAX)
//! priority = round(fshare_weight * fairshare + queue_weight * queue_factor + (urgency - 16))
//! priority < 0 → 0
//! ```
//!
//! `round` is C's: halves away from zero. The plugin's weights are integers. Since
//! flux-accounting v0.47.0 the urgency term is weighted too and a bank factor is added
//! (`doc/components/job-priorities.rst`):
//!
//! ```text
//! priority = round(fshare_weight * fairshare + queue_weight * queue_factor
//!                  + bank_weight * bank_factor + urgency_weight * (urgency - 16))
//! ```
//!
//! [`FluxWeights::default`] follows flux-accounting v0.60.0: fairshare 100000, queue 10000,
//! bank 0, urgency 1000 (`FSHARE_WEIGHT_DEFAULT`, `QUEUE_WEIGHT_DEFAULT`,
//! `BANK_WEIGHT_DEFAULT`, `URGENCY_WEIGHT_DEFAULT` in the Python bindings'
//! `fluxacct/accounting/__init__.py`, which `create_db.py` writes to
//! `priority_factor_weight_table` and `flux account-priority-update` sends to the plugin).
//! Before v0.47.0 the urgency term was unweighted (`urgency=1` gives that formula).

use crate::catalog::Catalog;

/// `FLUX_JOB_PRIORITY_MAX` (`flux/core.h`).
pub const PRIORITY_MAX: u32 = u32::MAX;

/// The weights of `mf_priority`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FluxWeights {
    pub fairshare: i64,
    pub queue: i64,
    pub bank: i64,
    pub urgency: i64,
}

impl Default for FluxWeights {
    /// flux-accounting v0.60.0's defaults: fairshare 100000, queue 10000, bank 0, urgency
    /// 1000 (`FSHARE_WEIGHT_DEFAULT`, `QUEUE_WEIGHT_DEFAULT`, `BANK_WEIGHT_DEFAULT`,
    /// `URGENCY_WEIGHT_DEFAULT`; the urgency weight is 1000 since v0.47.0).
    fn default() -> FluxWeights {
        FluxWeights {
            fairshare: 100_000,
            queue: 10_000,
            bank: 0,
            urgency: 1000,
        }
    }
}

/// One job's factors.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FluxFactors {
    /// The association's fair-share value in [0, 1].
    pub fairshare: f64,
    /// The queue's integer priority (0 for no or an unknown queue).
    pub queue: i64,
    /// The bank's priority.
    pub bank: f64,
    /// The job's urgency, 0…31 (default 16).
    pub urgency: i64,
}

/// Whose queue factor a job's priority uses.
///
/// flux-accounting's `new_cb` stores the queue factor of each new job on the job's
/// association (`Association::queue_factor`), and `priority_calculation` (called by
/// `priority_cb`) reads it from there, not from the job
/// (`src/plugins/mf_priority.cpp`). A job's first priority uses its own queue, but every
/// later computation (an urgency change, `flux account-priority-update`'s reprioritize, a
/// release from DEPEND) uses the queue of the association's last submitted job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QueueFactorSource {
    /// flux-accounting's behaviour, what a site sees once priorities have been recomputed:
    /// the queue factor of the association's last submitted job.
    #[default]
    AssociationLastJob,
    /// The job's own queue factor, as the priority formula intends.
    Job,
}

/// What [`queue_factors`] needs of a job.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueueFactorJob<'a> {
    /// The submitting user; `None`: the job is its own association.
    pub user: Option<&'a str>,
    /// The bank; `None` stands for the user's default bank (one association).
    pub bank: Option<&'a str>,
    /// Submission time, if known.
    pub submit: Option<f64>,
    /// The job's own queue factor (its queue's priority).
    pub queue_factor: f64,
}

/// The queue factor each job's priority uses. With
/// [`QueueFactorSource::AssociationLastJob`] every job of an association (same user and
/// bank) gets the queue factor of the association's last submitted job: the latest
/// submission time, jobs without one counting as earlier than those with one, and the later
/// in `jobs` among equals. With [`QueueFactorSource::Job`], each job's own.
pub fn queue_factors(jobs: &[QueueFactorJob<'_>], source: QueueFactorSource) -> Vec<f64> {
    let own: Vec<f64> = jobs.iter().map(|j| j.queue_factor).collect();
    if source == QueueFactorSource::Job {
        return own;
    }
    let key = |i: usize| (jobs[i].submit.unwrap_or(f64::NEG_INFINITY), i);
    let mut last: std::collections::HashMap<(&str, Option<&str>), usize> = Default::default();
    for (i, j) in jobs.iter().enumerate() {
        let Some(user) = j.user else { continue };
        let e = last.entry((user, j.bank)).or_insert(i);
        let (a, b) = (key(*e), key(i));
        if b.0 > a.0 || (b.0 == a.0 && b.1 > a.1) {
            *e = i;
        }
    }
    jobs.iter()
        .enumerate()
        .map(|(i, j)| match j.user {
            Some(user) => own[last[&(user, j.bank)]],
            None => own[i],
        })
        .collect()
}

/// 0.5 − 2⁻⁵⁴, the largest double below one half: `floor(x + HALF_DOWN)` is C's
/// `round(x)` for every `x` in [0, 2⁵²) (where `floor(x + 0.5)` is wrong for this very
/// value), and 0 for `x` < 0.5.
const HALF_DOWN: f64 = 0.499_999_999_999_999_94;

impl FluxWeights {
    /// The sum before rounding, in the plugin's order of additions.
    fn sum(&self, f: &FluxFactors) -> f64 {
        self.fairshare as f64 * f.fairshare
            + (self.queue * f.queue) as f64
            + self.bank as f64 * f.bank
            + (self.urgency * (f.urgency - 16)) as f64
    }

    /// The job's priority as `priority_calculation` returns it.
    pub fn priority(&self, f: &FluxFactors) -> u32 {
        match f.urgency {
            0 => 0,
            31 => PRIORITY_MAX,
            _ => {
                let p = self.sum(f).round();
                if p < 0.0 {
                    0
                } else if p >= 4_294_967_295.0 {
                    PRIORITY_MAX
                } else {
                    p as u32
                }
            }
        }
    }

    /// The priority as a formula in the flux catalog; its value is [`Self::priority`].
    pub fn formula(&self) -> String {
        let mut terms = Vec::new();
        let mut push = |w: i64, text: &str| match w {
            0 => {}
            1 => terms.push(text.to_string()),
            _ => terms.push(format!("{w} * {text}")),
        };
        push(self.fairshare, "fairshare");
        push(self.queue, "queue_factor");
        push(self.bank, "bank_factor");
        push(self.urgency, "(urgency - 16)");
        if terms.is_empty() {
            terms.push("0".into());
        }
        format!(
            "0 if urgency == 0 else (4294967295 if urgency == 31 else \
             min(4294967295, max(0, floor({} + {HALF_DOWN:?}))))",
            terms.join(" + ")
        )
    }

    /// The flux catalog.
    pub fn catalog(&self) -> Catalog {
        Catalog::flux()
    }

    /// Parse `fairshare=100000,queue=10000,bank=0,urgency=1000` (any subset; the rest keep
    /// their defaults).
    pub fn parse(text: &str) -> Result<FluxWeights, String> {
        let mut w = FluxWeights::default();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| format!("`{item}` is not FACTOR=WEIGHT"))?;
            let value: i64 = value
                .trim()
                .parse()
                .map_err(|_| format!("`{value}` is not an integer weight in `{item}`"))?;
            match name.trim().to_ascii_lowercase().as_str() {
                "fairshare" => w.fairshare = value,
                "queue" => w.queue = value,
                "bank" => w.bank = value,
                "urgency" => w.urgency = value,
                other => {
                    return Err(format!(
                        "unknown factor `{other}` (fairshare, queue, bank, urgency)"
                    ));
                }
            }
        }
        Ok(w)
    }
}

/// Every job row's `queue_factor` as `mf_priority` uses it ([`queue_factors`] by `source`);
/// rows without one are left as they are.
pub fn fill_queue_factors(rows: &mut [crate::jobs::Job], source: QueueFactorSource) {
    if !rows.iter().any(|j| j.values.contains_key("queue_factor")) {
        return;
    }
    let keys: Vec<QueueFactorJob<'_>> = rows
        .iter()
        .map(|j| QueueFactorJob {
            user: j.user.as_deref(),
            bank: j.account.as_deref(),
            submit: j.submit,
            queue_factor: j.values.get("queue_factor").copied().unwrap_or(0.0),
        })
        .collect();
    let factors = queue_factors(&keys, source);
    for (job, f) in rows.iter_mut().zip(factors) {
        job.values.insert("queue_factor".into(), f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::Formula;
    use crate::table::JobTable;

    #[test]
    fn priority_calculation() {
        let w = FluxWeights::default();
        let f = |fairshare, queue, urgency| FluxFactors {
            fairshare,
            queue,
            bank: 0.0,
            urgency,
        };
        // mf_priority.cpp: round(100000 * 0.5 + 10000 * 1 + (16 - 16)).
        assert_eq!(w.priority(&f(0.5, 1, 16)), 60_000);
        assert_eq!(w.priority(&f(0.5, 0, 0)), 0, "held");
        assert_eq!(w.priority(&f(0.0, 0, 31)), PRIORITY_MAX, "expedited");
        assert_eq!(w.priority(&f(0.0, 0, 1)), 0, "negative is 0");
        // C round: halves away from zero (0.000025 * 100000 = 2.5 → 3 here, Python says 2).
        assert_eq!(w.priority(&f(0.000025, 0, 16)), 3);
        // job-priorities.rst worked example: bank weight 1000, bank priority 100.
        let docs = FluxWeights {
            bank: 1000,
            ..FluxWeights::default()
        };
        let ex = FluxFactors {
            fairshare: 0.5,
            queue: 1,
            bank: 100.0,
            urgency: 16,
        };
        assert_eq!(docs.priority(&ex), 160_000);
    }

    /// flux-accounting's default urgency weight is 1000 (`URGENCY_WEIGHT_DEFAULT` in
    /// `src/bindings/python/fluxacct/accounting/__init__.py`, since v0.47.0): fair-share
    /// 0.82346, no queue factor, urgency 24 is
    /// round(82346 + 1000 * 8) = 90346, not the unweighted 82354.
    #[test]
    fn default_urgency_weight_is_flux_accountings_1000() {
        let w = FluxWeights::default();
        assert_eq!(
            (w.fairshare, w.queue, w.bank, w.urgency),
            (100_000, 10_000, 0, 1000)
        );
        let job = FluxFactors {
            fairshare: 0.82346,
            queue: 0,
            bank: 0.0,
            urgency: 24,
        };
        assert_eq!(w.priority(&job), 90_346);
        assert_eq!(
            FluxWeights::parse("urgency=1").unwrap().priority(&job),
            82_354
        );
        assert!(
            w.formula().contains("1000 * (urgency - 16)"),
            "{}",
            w.formula()
        );
    }

    /// `new_cb` stores the queue factor on the association and `priority_cb` reads it
    /// there: after a recomputation every job of ann/A uses queue priority 7 of ann's last
    /// job (75346 with fair-share 0.05346), not its own 0 (5346); bob/A keeps its own.
    #[test]
    fn queue_factor_of_the_associations_last_job() {
        let job = |user, bank, submit, queue_factor| QueueFactorJob {
            user: Some(user),
            bank,
            submit,
            queue_factor,
        };
        let jobs = [
            job("ann", Some("A"), Some(100.0), 0.0),
            job("ann", Some("A"), Some(200.0), 7.0),
            job("bob", Some("A"), Some(150.0), 0.0),
            job("ann", Some("B"), Some(300.0), 3.0),
            job("ann", Some("A"), None, 1.0),
        ];
        let got = queue_factors(&jobs, QueueFactorSource::default());
        assert_eq!(got, [7.0, 7.0, 0.0, 3.0, 7.0]);
        let own = queue_factors(&jobs, QueueFactorSource::Job);
        assert_eq!(own, [0.0, 7.0, 0.0, 3.0, 1.0]);
        let w = FluxWeights::default();
        let f = |queue| FluxFactors {
            fairshare: 0.05346,
            queue,
            bank: 0.0,
            urgency: 16,
        };
        assert_eq!(w.priority(&f(got[0] as i64)), 75_346);
        assert_eq!(w.priority(&f(own[0] as i64)), 5_346);
    }

    #[test]
    fn floor_half_down_is_c_round() {
        let mut xs = vec![0.0, 0.5, 1.5, 2.5, 0.49999999999999994, 0.5000000000000001];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let x = (seed >> 11) as f64 / (1u64 << 53) as f64 * 4.3e9;
            xs.extend([
                x,
                x.floor() + 0.5,
                f64::from_bits((x.floor() + 0.5).to_bits() - 1),
            ]);
        }
        for x in xs {
            assert_eq!((x + HALF_DOWN).floor(), x.round(), "{x:?}");
        }
    }

    #[test]
    fn formula_evaluates_to_the_priority() {
        let w = FluxWeights::parse("fairshare=100000, queue=10000, bank=7, urgency=1000").unwrap();
        let text = w.formula();
        let formula = Formula::compile(&text, &w.catalog()).unwrap();
        let n = 320;
        let jobs: Vec<FluxFactors> = (0..n)
            .map(|i| FluxFactors {
                fairshare: f64::from(i) / 319.0,
                queue: i64::from(i % 4) - 1,
                bank: f64::from(i % 3) * 0.25,
                urgency: i64::from(i % 32),
            })
            .collect();
        let col = |g: &dyn Fn(&FluxFactors) -> f64| jobs.iter().map(g).collect::<Vec<f64>>();
        let table = JobTable::new(jobs.len())
            .with_column("fairshare", col(&|f| f.fairshare))
            .unwrap()
            .with_column("queue_factor", col(&|f| f.queue as f64))
            .unwrap()
            .with_column("bank_factor", col(&|f| f.bank))
            .unwrap()
            .with_column("urgency", col(&|f| f.urgency as f64))
            .unwrap();
        let values = formula.evaluate(&table).values;
        for (f, v) in jobs.iter().zip(values) {
            assert_eq!(v, f64::from(w.priority(f)), "{f:?}");
        }
        assert!(FluxWeights::parse("age=3").is_err());
    }
}
