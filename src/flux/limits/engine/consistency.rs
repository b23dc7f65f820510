//! A recount of every counter from the job states, checked against the kept counters: the
//! invariant the property tests and limit storms check after every operation.

use std::collections::BTreeMap;

use super::LimitEngine;
use crate::flux::limits::assoc::{Counters, QueueUsage};
use crate::flux::limits::job::JobState;

impl LimitEngine {
    /// Recounts every association's counters from the job states and compares them with
    /// the kept counters; also checks held lists against job states. For tests and
    /// debugging; returns the first discrepancy.
    pub fn check_consistency(&self) -> Result<(), String> {
        // The recount starts from the SCHED counts flux never takes back (urgency changes).
        let mut counters: Vec<Counters> =
            self.assocs.iter().map(|a| a.sched_leak.counters).collect();
        let mut qusage: Vec<BTreeMap<usize, QueueUsage>> = self
            .assocs
            .iter()
            .map(|a| a.sched_leak.queues.clone())
            .collect();
        let mut no_queue: Vec<Option<QueueUsage>> = self
            .assocs
            .iter()
            .map(|a| a.no_queue_usage.map(|_| a.sched_leak.no_queue))
            .collect();
        for (id, job) in &self.jobs {
            let c = &mut counters[job.assoc];
            let usage = match (job.queue, &job.queue_name) {
                (Some(qi), _) => Some(qusage[job.assoc].entry(qi).or_default()),
                (None, None) => Some(no_queue[job.assoc].get_or_insert_with(QueueUsage::default)),
                (None, Some(_)) => None,
            };
            match job.state {
                JobState::Inactive => continue,
                JobState::Depend => {
                    if job.deps.is_empty() {
                        return Err(format!("job {id} is in DEPEND without dependencies"));
                    }
                    if !self.assocs[job.assoc].held.contains(id) {
                        return Err(format!("job {id} is held but not in the held list"));
                    }
                }
                JobState::Sched => {
                    c.cur_sched_jobs += 1;
                    c.cur_sched_nodes += job.nnodes;
                    c.cur_sched_cores += job.ncores;
                    if let Some(q) = usage {
                        q.cur_sched_jobs += 1;
                        q.cur_sched_nodes += job.nnodes;
                        q.cur_sched_cores += job.ncores;
                    }
                }
                JobState::Run => {
                    c.cur_run_jobs += 1;
                    c.cur_nodes += job.nnodes;
                    c.cur_cores += job.ncores;
                    if let Some(q) = usage {
                        q.cur_run_jobs += 1;
                        q.cur_nodes += job.nnodes;
                    }
                }
            }
            c.cur_active_jobs += 1;
        }
        for (i, a) in self.assocs.iter().enumerate() {
            if a.counters != counters[i] {
                return Err(format!(
                    "{}/{}: counters {:?} but recount {:?}",
                    a.user, a.bank, a.counters, counters[i]
                ));
            }
            for (qi, u) in &a.queue_usage {
                let want = qusage[i].get(qi).copied().unwrap_or_default();
                if *u != want {
                    return Err(format!(
                        "{}/{}: queue {} usage {:?} but recount {:?}",
                        a.user, a.bank, self.queues[*qi].name, u, want
                    ));
                }
            }
            if let Some(u) = a.no_queue_usage {
                let want = no_queue[i].unwrap_or_default();
                if u != want {
                    return Err(format!(
                        "{}/{}: usage without a queue {:?} but recount {:?}",
                        a.user, a.bank, u, want
                    ));
                }
            }
            for h in &a.held {
                match self.jobs.get(h) {
                    Some(j) if j.state == JobState::Depend && j.assoc == i => {}
                    _ => return Err(format!("{}/{}: held job {h} is not held", a.user, a.bank)),
                }
            }
        }
        Ok(())
    }
}
