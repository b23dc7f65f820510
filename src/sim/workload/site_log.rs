//! What the readers of a site's own logs (sacct dumps, Flux job lists) share: a bad record is
//! an error at `file:line` or, with [`ReadOptions::lenient`], skipped and counted per reason;
//! and the cluster's size, which such logs never state, is told from the jobs' allocations.

use super::hostlist::{for_each_host, for_each_id};
use super::job::{LoadReport, MachineHint, ReadOptions, WorkloadError};
use rustc_hash::FxHashSet;

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
    report.drop_job(&format!("bad record: {}", bad.kind));
    Ok(())
}

/// The nodes and cores the jobs of a log were given: distinct node names (or Flux ranks) and
/// the most cores a job held on one node. The cluster had at least these.
#[derive(Debug, Default)]
pub struct Census {
    names: FxHashSet<String>,
    ranks: FxHashSet<u64>,
    cores_per_node: u32,
    jobs: usize,
}

impl Census {
    /// A job's allocation: its hostlist, its nodes and cores in all.
    pub fn hosts(&mut self, list: &str, nodes: u32, cores: u64) -> Result<(), String> {
        for_each_host(list, |h| {
            if !self.names.contains(h) {
                self.names.insert(h.to_string());
            }
        })?;
        self.cores(nodes, cores);
        Ok(())
    }

    /// A job's allocation as Flux ranks (an idset).
    pub fn ranks(&mut self, set: &str, nodes: u32, cores: u64) -> Result<(), String> {
        for_each_id(set, |r| {
            self.ranks.insert(r);
        })?;
        self.cores(nodes, cores);
        Ok(())
    }

    /// Whether any allocation was given as ranks.
    pub fn has_ranks(&self) -> bool {
        !self.ranks.is_empty()
    }

    fn cores(&mut self, nodes: u32, cores: u64) {
        if nodes > 0 {
            let per_node = cores.div_ceil(nodes as u64).min(u32::MAX as u64) as u32;
            self.cores_per_node = self.cores_per_node.max(per_node);
        }
        self.jobs += 1;
    }

    /// The size seen and how it was found (`None` when no job had an allocation). `what` names
    /// the columns it came from.
    pub fn machine(&self, what: &str) -> (MachineHint, Option<String>) {
        let nodes = self.names.len().max(self.ranks.len());
        if nodes == 0 || self.cores_per_node == 0 {
            return (MachineHint::default(), None);
        }
        let nodes = nodes.min(u32::MAX as usize) as u32;
        let note = format!(
            "{nodes} nodes x {} cores from the allocations of {} jobs ({what}): the nodes they \
             ran on and the most cores one job held on a node (--nodes/--cores override)",
            self.cores_per_node, self.jobs
        );
        (
            MachineHint {
                nodes: Some(nodes),
                cores: Some(self.cores_per_node),
            },
            Some(note),
        )
    }
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

    #[test]
    fn the_census_counts_distinct_nodes_and_the_fullest_node() {
        let mut c = Census::default();
        assert_eq!(c.machine("NodeList").0, MachineHint::default());
        c.hosts("n[1-3]", 3, 36).unwrap();
        c.hosts("n3,n4", 2, 3).unwrap();
        let (m, note) = c.machine("NodeList, AllocTRES");
        assert_eq!((m.nodes, m.cores), (Some(4), Some(12)));
        assert!(
            note.unwrap()
                .starts_with("4 nodes x 12 cores from the allocations of 2 jobs")
        );
        let mut f = Census::default();
        f.ranks("[0-3]", 4, 16).unwrap();
        assert_eq!(f.machine("ranks").0.nodes, Some(4));
    }
}
