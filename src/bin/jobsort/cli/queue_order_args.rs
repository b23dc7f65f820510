//! The order of queues before the formula's ([`QueueOrder`]): PBS `by_queue` with the queues'
//! `Priority`, Slurm partitions' `PriorityTier`, or flags for a trace without a site.

use super::report::Failure;
use super::site_args::Explained;
use super::slurm_args::name_value;
use jobsort::pbs::{Origin, PbsSite, Setting};
use jobsort::sim::scheduler::{QueueOrder, QueueOrderKind};
use jobsort::sim::workload::SimJob;
use jobsort::slurm::conf::SlurmConf;
use std::collections::BTreeMap;

#[derive(clap::Args, Debug, Default)]
pub struct QueueOrderArgs {
    /// A queue's Priority, as PBS's `by_queue` uses it: queues are taken one after another,
    /// high first (equal ones by name), each queue's jobs in the formula's order. Repeatable;
    /// wins over the site's `set queue NAME Priority`, and turns by_queue on unless
    /// --by-queue false.
    #[arg(
        long = "queue-priority",
        value_name = "NAME=N",
        value_parser = name_number,
        conflicts_with = "partition_tiers"
    )]
    pub queue_priorities: Vec<(String, i64)>,
    /// A Slurm partition's PriorityTier: jobs of a higher tier first, then (the partitions of
    /// one tier together) the formula's order. Repeatable; wins over --slurm-conf.
    #[arg(long = "partition-tier", value_name = "NAME=N", value_parser = name_number)]
    pub partition_tiers: Vec<(String, i64)>,
    /// PBS `by_queue` (default: the site's sched_config, else PBS's code default, false; true
    /// with --queue-priority). False orders the whole queue by the formula alone.
    #[arg(long = "by-queue", value_name = "BOOL")]
    pub by_queue: Option<bool>,
}

/// `NAME=N` with N a whole number.
fn name_number(s: &str) -> Result<(String, i64), String> {
    name_value(s, "a whole number")
}

impl QueueOrderArgs {
    /// Whether any of these flags is given.
    pub(super) fn given(&self) -> bool {
        !self.queue_priorities.is_empty()
            || !self.partition_tiers.is_empty()
            || self.by_queue.is_some()
    }

    /// The queue order from the flags and the site (PBS files or a slurm.conf), each setting
    /// in `explained`; `None` when queues do not order jobs. The site's `round_robin` comes
    /// before `by_queue`, as in PBS.
    pub(super) fn resolve(
        &self,
        site: Option<&PbsSite>,
        slurm: Option<&SlurmConf>,
        explained: &mut Explained,
    ) -> Result<Option<QueueOrder>, Failure> {
        if slurm.is_some() || !self.partition_tiers.is_empty() {
            if !self.queue_priorities.is_empty() || self.by_queue.is_some() {
                return Err(Failure::usage(
                    "--queue-priority and --by-queue are PBS settings: a Slurm site orders \
                     partitions by PriorityTier (--partition-tier)",
                ));
            }
            let mut priorities = BTreeMap::new();
            for p in slurm.map(|c| c.partitions.as_slice()).unwrap_or_default() {
                priorities.insert(p.name.clone(), i64::from(p.priority_tier));
            }
            for (name, tier) in &self.partition_tiers {
                priorities.insert(name.clone(), *tier);
                explained.add(
                    &format!("partition {name} PriorityTier"),
                    tier,
                    &Origin::Flag("--partition-tier".into()),
                );
            }
            return Ok(Some(QueueOrder {
                kind: QueueOrderKind::Slurm,
                priorities,
            }));
        }
        let sc = site.and_then(|s| s.sched_config.as_ref());
        let flagged = !self.queue_priorities.is_empty();
        let by_queue = match (self.by_queue, sc.and_then(|c| c.by_queue.clone())) {
            (Some(on), _) => Setting::new(on, Origin::Flag("--by-queue".into())),
            (None, _) if flagged => Setting::new(true, Origin::Flag("--queue-priority".into())),
            (None, Some(s)) => s,
            (None, None) => Setting::default_value(false),
        };
        let round_robin = sc.and_then(|c| c.round_robin.clone()).filter(|s| s.value);
        if let Some(rr) = &round_robin {
            // `fifo.cpp: next_job` takes round_robin before by_queue.
            explained.add(
                "round_robin",
                "true (one job from each queue of a Priority in turn, higher Priority first; \
                 by_queue does not apply)",
                &rr.origin,
            );
            return Ok(Some(QueueOrder {
                kind: QueueOrderKind::PbsRoundRobin,
                priorities: self.priorities(site)?,
            }));
        }
        if site.is_none() && !flagged && self.by_queue.is_none() {
            return Ok(None);
        }
        let on = by_queue.value && round_robin.is_none();
        explained.add(
            "by_queue",
            if on {
                "true (queues one after another by Priority, high first; the formula orders \
                 each queue)"
            } else {
                "false (one order over every queue)"
            },
            &by_queue.origin,
        );
        if !on {
            return Ok(None);
        }
        Ok(Some(QueueOrder {
            kind: QueueOrderKind::Pbs,
            priorities: self.priorities(site)?,
        }))
    }

    /// Each queue's `Priority`: the site's, with `--queue-priority` winning.
    pub(super) fn priorities(
        &self,
        site: Option<&PbsSite>,
    ) -> Result<BTreeMap<String, i64>, Failure> {
        let mut priorities: BTreeMap<String, i64> = match site {
            Some(s) => s
                .queue_priorities()
                .map_err(Failure::invalid)?
                .into_iter()
                .map(|(q, p)| (q, p.value as i64))
                .collect(),
            None => BTreeMap::new(),
        };
        // (`sim` lists each queue's Priority, the flags' among them.)
        priorities.extend(self.queue_priorities.iter().cloned());
        Ok(priorities)
    }
}

/// `order` unless every job is in the same tier, when it orders nothing (and the run keeps
/// its fast paths and its recording stays as without it).
pub(super) fn in_effect(order: Option<QueueOrder>, jobs: &[SimJob]) -> Option<QueueOrder> {
    let o = order?;
    let tiers = o.tiers(jobs);
    tiers.windows(2).any(|w| w[0] != w[1]).then_some(o)
}
