//! What the readers of a site's own logs (sacct dumps, Flux job lists) share, and the SWF
//! reader's bad lines: a bad record is an error at `file:line` or, with
//! [`ReadOptions::lenient`], skipped and counted per reason; and the cluster's size, which
//! such logs never state, is told from the jobs' allocations.

use super::job::{LoadReport, MachineHint, ReadOptions, WorkloadError};
use crate::input::hostlist::{for_each_host, for_each_id};
use rustc_hash::FxHashMap;
use std::borrow::Borrow;
use std::hash::Hash;

/// A record that could not be made into a job: its line, the column (or field) at fault, the
/// kind of fault (the reason it is counted under when skipped) and what exactly was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRecord {
    pub line: usize,
    pub column: Option<String>,
    pub kind: &'static str,
    pub detail: String,
}

impl BadRecord {
    pub fn new(line: usize, kind: &'static str, detail: impl Into<String>) -> Self {
        BadRecord {
            line,
            column: None,
            kind,
            detail: detail.into(),
        }
    }

    pub fn in_column(mut self, column: &str) -> Self {
        self.column = Some(column.to_string());
        self
    }

    /// The error `file:line: column NAME: detail`.
    pub fn error(&self, file: &str) -> WorkloadError {
        WorkloadError::Line {
            file: file.to_string(),
            line: self.line,
            reason: match &self.column {
                Some(c) => format!("column {c}: {}", self.detail),
                None => self.detail.clone(),
            },
        }
    }
}

/// The one rule for a bad record: strict, it is the error; lenient, it is counted under
/// `bad record: <kind>` in `report.dropped` (the caller has counted it in `report.read`).
pub fn reject(
    bad: BadRecord,
    options: ReadOptions,
    file: &str,
    report: &mut LoadReport,
) -> Result<(), WorkloadError> {
    if !options.lenient {
        return Err(bad.error(file));
    }
    report.drop_job(
        &super::job::line_id(bad.line),
        &format!("bad record: {}", bad.kind),
    );
    Ok(())
}

/// The nodes and cores the jobs of a log were given, to tell the cluster's size: the distinct
/// nodes (names, or Flux ranks) the jobs ran on, and the most cores in use on one node at one
/// time (each job holding its cores evenly over its nodes, rounded up). The cluster had at
/// least these, so the recorded schedule fits it. Memory: one entry per job and node.
#[derive(Debug, Default)]
pub struct Census {
    names: FxHashMap<String, u32>,
    ranks: FxHashMap<u64, u32>,
    /// Node ids of every allocation, one after the other.
    nodes: Vec<u32>,
    /// (start, end, cores on each node, end of its nodes in `nodes`).
    allocations: Vec<(i64, i64, u32, usize)>,
}

impl Census {
    /// A job's allocation from `start` to `end`: its hostlist and its cores in all. A bad
    /// list is an error and leaves the census as it was.
    pub fn hosts(&mut self, list: &str, span: (i64, i64), cores: u64) -> Result<(), String> {
        let (before, next) = (self.nodes.len(), self.names.len() + self.ranks.len());
        let mut fresh = FxHashMap::default();
        let (names, nodes) = (&self.names, &mut self.nodes);
        let added = for_each_host(list, |h| {
            nodes.push(node_id(names, &mut fresh, next, h, str::to_string))
        });
        if added.is_ok() {
            self.names.extend(fresh);
        }
        self.close(before, added, span, cores)
    }

    /// A job's allocation as Flux ranks (an idset).
    pub fn ranks(&mut self, set: &str, span: (i64, i64), cores: u64) -> Result<(), String> {
        let (before, next) = (self.nodes.len(), self.names.len() + self.ranks.len());
        let mut fresh = FxHashMap::default();
        let (ranks, nodes) = (&self.ranks, &mut self.nodes);
        let added = for_each_id(set, |r| {
            nodes.push(node_id(ranks, &mut fresh, next, &r, |r| *r))
        });
        if added.is_ok() {
            self.ranks.extend(fresh);
        }
        self.close(before, added, span, cores)
    }

    /// Whether any allocation was given as ranks.
    pub fn has_ranks(&self) -> bool {
        !self.ranks.is_empty()
    }

    /// Keep the allocation just listed (a node listed twice, as a Flux nodelist may, counts
    /// once), or undo it when its list was bad.
    fn close(
        &mut self,
        before: usize,
        added: Result<(), String>,
        (start, end): (i64, i64),
        cores: u64,
    ) -> Result<(), String> {
        if let Err(e) = added {
            self.nodes.truncate(before);
            return Err(e);
        }
        let list = &mut self.nodes[before..];
        list.sort_unstable();
        let distinct = {
            let mut n = 0;
            for i in 0..list.len() {
                if i == 0 || list[i] != list[i - 1] {
                    list[n] = list[i];
                    n += 1;
                }
            }
            n
        };
        self.nodes.truncate(before + distinct);
        if distinct > 0 {
            let per_node = cores.div_ceil(distinct as u64).min(u32::MAX as u64) as u32;
            self.allocations
                .push((start, end, per_node, self.nodes.len()));
        }
        Ok(())
    }

    /// The size seen and how it was found (`None` when no job had an allocation). `what` names
    /// the columns it came from.
    pub fn machine(&self, what: &str) -> (MachineHint, Option<String>) {
        let nodes = self.names.len() + self.ranks.len();
        if nodes == 0 || self.allocations.is_empty() {
            return (MachineHint::default(), None);
        }
        let mut usage: Vec<Held> = Vec::with_capacity(self.nodes.len());
        let mut from = 0;
        for &(start, end, cores, to) in &self.allocations {
            usage.extend(self.nodes[from..to].iter().map(|&host| Held {
                start,
                end,
                host,
                cores,
            }));
            from = to;
        }
        let most = peak_cores(usage);
        let cores = most.clamp(1, u32::MAX as i64) as u32;
        let nodes = nodes.min(u32::MAX as usize) as u32;
        let note = format!(
            "{nodes} nodes x {cores} cores from the allocations of {} jobs ({what}): the nodes \
             they ran on and the most cores in use on one node at once (--nodes/--cores \
             override)",
            self.allocations.len()
        );
        (
            MachineHint {
                nodes: Some(nodes),
                cores: Some(cores),
            },
            Some(note),
        )
    }
}

/// A node's id: one already `known`, one given earlier in the same allocation (`fresh`), or
/// the next free one (`next` is the count known), added to `fresh`.
fn node_id<K, Q>(
    known: &FxHashMap<K, u32>,
    fresh: &mut FxHashMap<K, u32>,
    next: usize,
    key: &Q,
    owned: impl FnOnce(&Q) -> K,
) -> u32
where
    K: Borrow<Q> + Hash + Eq,
    Q: Hash + Eq + ?Sized,
{
    match known.get(key).or_else(|| fresh.get(key)) {
        Some(&id) => id,
        None => {
            let id = (next + fresh.len()) as u32;
            fresh.insert(owned(key), id);
            id
        }
    }
}

/// Cores held on one host from `start` to `end`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Held {
    pub(crate) start: i64,
    pub(crate) end: i64,
    pub(crate) host: u32,
    pub(crate) cores: u32,
}

/// The most cores in use at once on one host: the one rule every site log's reader sizes its
/// cluster by (PBS accounting logs, and [`Census`] for sacct and Flux). A job ending frees its cores for one
/// starting at that second; a job that starts and ends in the same second holds its cores
/// with the others starting then. The holdings sorted in place by host and start, and each
/// host's ends sorted in a scratch list of that host's size, merged with its starts: no heap
/// of open holdings and no list of every end (`docs/perf.md`, "A quiet machine").
pub(crate) fn peak_cores(mut usage: Vec<Held>) -> i64 {
    usage.sort_unstable_by_key(|h| (h.host, h.start));
    let mut peak = 0i64;
    // A host's ends: the second, whether the holding began in it, the cores.
    let mut ends: Vec<(i64, bool, i64)> = Vec::new();
    for host in usage.chunk_by(|a, b| a.host == b.host) {
        ends.clear();
        ends.extend(
            host.iter()
                .map(|h| (h.end, h.end == h.start, i64::from(h.cores))),
        );
        ends.sort_unstable();
        let (mut in_use, mut k) = (0i64, 0);
        for h in host {
            // Ends before this second, and the ones in it of holdings that began earlier.
            while let Some(&(e, zero, cores)) = ends.get(k)
                && (e, zero) < (h.start, true)
            {
                in_use -= cores;
                k += 1;
            }
            in_use += i64::from(h.cores);
            peak = peak.max(in_use);
        }
    }
    peak
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_is_the_error_lenient_counts_it() {
        let bad = BadRecord::new(3, "unparsable time", "`x` is not a time").in_column("Start");
        let mut report = LoadReport::default();
        let e = reject(bad.clone(), ReadOptions::default(), "f", &mut report).unwrap_err();
        assert_eq!(e.to_string(), "f:3: column Start: `x` is not a time");
        assert_eq!(report, LoadReport::default());
        reject(bad, ReadOptions { lenient: true }, "f", &mut report).unwrap();
        assert_eq!(report.dropped["bad record: unparsable time"], 1);
    }

    /// sacct's and Flux's census sizes the cluster by the rule the PBS reader uses
    /// ([`peak_cores`]): a job that ran 0 seconds holds its cores in its second, beside a job
    /// running then (the census's own sweep counted its end before its start: 4, not 7).
    #[test]
    fn the_census_counts_a_job_of_no_length_as_the_pbs_reader_does() {
        let mut c = Census::default();
        c.hosts("n1", (0, 10), 4).unwrap();
        c.hosts("n1", (5, 5), 3).unwrap();
        assert_eq!(c.machine("NodeList").0.cores, Some(7));
    }

    #[test]
    fn the_census_counts_distinct_nodes_and_the_fullest_node_at_once() {
        let mut c = Census::default();
        assert_eq!(c.machine("NodeList").0, MachineHint::default());
        // 12 cores a node on n1-n3 from 0 to 10.
        c.hosts("n[1-3]", (0, 10), 36).unwrap();
        // 2 cores a node on n3 and n4 from 10 (n3 is free again: ends come first).
        c.hosts("n3,n4", (10, 20), 4).unwrap();
        let (m, note) = c.machine("NodeList, AllocTRES");
        assert_eq!((m.nodes, m.cores), (Some(4), Some(12)));
        assert!(
            note.unwrap()
                .starts_with("4 nodes x 12 cores from the allocations of 2 jobs")
        );
        // Two jobs sharing n4 from 15 on: 2 + 11 cores there at once.
        c.hosts("n4", (15, 30), 11).unwrap();
        assert_eq!(c.machine("").0.cores, Some(13));
        assert!(c.hosts("n5,n[5", (0, 1), 1).is_err());
        assert!(c.hosts("n6,n[7-6]", (0, 1), 1).is_err());
        assert_eq!(c.machine("").0.nodes, Some(4));
        let mut f = Census::default();
        // A nodelist repeating a host is one node; ranks are the nodes.
        f.ranks("[0-3]", (0, 5), 16).unwrap();
        f.hosts("asp,asp", (0, 5), 2).unwrap();
        assert_eq!(
            f.machine("ranks").0,
            MachineHint {
                nodes: Some(5),
                cores: Some(4)
            }
        );
    }
}
