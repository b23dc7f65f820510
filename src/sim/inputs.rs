//! Where each formula input of a simulated job comes from.

use super::workload::SimJob;

/// Where a formula input comes from.
#[derive(Debug, Clone)]
pub(crate) enum Source {
    Ncpus,
    Walltime,
    Mem,
    EligibleTime,
    FsPerc,
    FsTreeUsage,
    FsFactor,
    QueuePriority,
    Const(f64),
    Nodect,
    Resource(String),
}

impl Source {
    pub(crate) fn of(name: &str) -> Source {
        match name {
            "ncpus" => Source::Ncpus,
            "walltime" => Source::Walltime,
            "mem" => Source::Mem,
            "eligible_time" => Source::EligibleTime,
            "fairshare_perc" | "fair_share_perc" => Source::FsPerc,
            "fairshare_tree_usage" => Source::FsTreeUsage,
            "fairshare_factor" => Source::FsFactor,
            "queue_priority" => Source::QueuePriority,
            "job_priority" => Source::Const(0.0),
            "accrue_type" => Source::Const(2.0),
            "nodect" => Source::Nodect,
            other => Source::Resource(other.to_string()),
        }
    }
    pub(crate) fn is_fairshare(&self) -> bool {
        matches!(
            self,
            Source::FsPerc | Source::FsTreeUsage | Source::FsFactor
        )
    }
}

/// A job's value of an input that does not change while it waits (0 for the others).
pub(crate) fn static_input(src: &Source, job: &SimJob) -> f64 {
    match src {
        Source::Ncpus => job.request.total_cores() as f64,
        Source::Walltime => job.walltime as f64,
        Source::Mem => job.mem,
        Source::QueuePriority => job.queue_priority,
        Source::Const(c) => *c,
        Source::Nodect => job.request.node_count() as f64,
        Source::Resource(name) => job.resources.get(name).copied().unwrap_or(0.0),
        _ => 0.0,
    }
}
