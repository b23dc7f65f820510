//! One loader for a snapshot folder, whichever scheduler made it: which scheduler's captures
//! the folder holds (by file names, confirmed by content), read by that scheduler's reader
//! (`pbs::snapshot`, `slurm::snapshot`, `flux::snapshot`), and the parts checked against each other
//! ([`Snapshot::check`]). A disagreement (a running job on a node the node list lacks) is
//! counted and kept with the snapshot, or with `strict` an error; never dropped.

use crate::flux::snapshot as flux;
use crate::model::limits::Limits;
use crate::model::snapshot::{Disagreement, Scheduler, Snapshot, SnapshotError};
use crate::pbs::PbsSite;
use crate::pbs::snapshot as pbs;
use crate::slurm::conf::SlurmConf;
use crate::slurm::snapshot as slurm;
use std::path::Path;

/// A scheduler's configuration that came with the snapshot.
// One per snapshot: a PBS site's settings are large, the others' small, and no boxing pays.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum SiteConfig {
    Pbs(PbsSite),
    /// slurm.conf, when the folder holds it.
    Slurm(Option<SlurmConf>),
    /// A Flux snapshot holds no configuration.
    Flux,
}

/// A loaded snapshot, its configuration and the disagreements between its parts.
#[derive(Debug, Clone)]
pub struct LoadedSnapshot {
    pub snapshot: Snapshot,
    pub config: SiteConfig,
    pub disagreements: Vec<Disagreement>,
    /// The scheduler's limits on running jobs over the snapshot's jobs (`pbs::limits` from
    /// `qmgr.txt`, `slurm::limits` from the `sacctmgr` tables, `flux::snapshot_limits` from
    /// `flux jobtap query mf_priority.so`); unknown when the folder lacks them.
    pub limits: Limits,
}

/// The capture files that tell each scheduler's snapshot.
const NAMES: [(Scheduler, &[&str]); 3] = [
    (Scheduler::Pbs, &[pbs::PBSNODES, pbs::QSTAT, pbs::RSTAT]),
    (
        Scheduler::Slurm,
        &[
            slurm::NODES,
            slurm::SINFO,
            slurm::SQUEUE,
            slurm::RESERVATIONS,
        ],
    ),
    (
        Scheduler::Flux,
        &[flux::RESOURCE, flux::JOBS, flux::ALLOCATED, flux::DOWN],
    ),
];

/// What a scheduler's JSON captures hold that the others' do not: PBS names its version
/// (`pbs_version`), Slurm its plugin (`meta`), Flux's R its `execution` and its job lists
/// `t_submit`.
fn content_says(head: &str) -> Option<Scheduler> {
    if head.contains("\"pbs_version\"") {
        Some(Scheduler::Pbs)
    } else if head.contains("\"meta\"") {
        Some(Scheduler::Slurm)
    } else if head.contains("\"execution\"") || head.contains("\"t_submit\"") {
        Some(Scheduler::Flux)
    } else {
        None
    }
}

/// Which scheduler's captures `dir` holds, by the names of the files there: PBS's
/// (`pbsnodes.json`, `qstat.json`, `pbs_rstat.txt`), Slurm's (`nodes.json` or `sinfo.json`,
/// `squeue.json`, `reservations.json`) or Flux's (`resource.json`, `jobs.json`,
/// `resource_allocated.json`, `resource_down.json`), of one scheduler only; a JSON capture
/// whose content is another scheduler's output is an error.
pub fn detect(dir: &Path) -> Result<Scheduler, SnapshotError> {
    let d = dir.display().to_string();
    if !dir.is_dir() {
        return Err(SnapshotError::new(&d, None, "not a folder"));
    }
    let found: Vec<(Scheduler, Vec<&str>)> = NAMES
        .iter()
        .map(|(s, names)| {
            let here: Vec<&str> = names
                .iter()
                .copied()
                .filter(|f| dir.join(f).is_file())
                .collect();
            (*s, here)
        })
        .filter(|(_, here)| !here.is_empty())
        .collect();
    let which = match found.as_slice() {
        [(s, _)] => *s,
        [] => {
            let expected: Vec<String> = NAMES
                .iter()
                .map(|(s, names)| format!("{}'s {}", s.name(), names.join(", ")))
                .collect();
            return Err(SnapshotError::new(
                &d,
                None,
                format!(
                    "no snapshot here: expected {} (contrib/capture/ makes them)",
                    expected.join(", or ")
                ),
            ));
        }
        several => {
            let list: Vec<String> = several
                .iter()
                .map(|(s, here)| format!("{}'s {}", s.name(), here.join(", ")))
                .collect();
            return Err(SnapshotError::new(
                &d,
                None,
                format!(
                    "holds captures of several schedulers: {}",
                    list.join(" and ")
                ),
            ));
        }
    };
    let names = NAMES
        .iter()
        .find(|(s, _)| *s == which)
        .map_or(&[][..], |n| n.1);
    for f in names.iter().filter(|f| f.ends_with(".json")) {
        let path = dir.join(f);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let mut n = text.len().min(4096);
        while !text.is_char_boundary(n) {
            n -= 1;
        }
        if let Some(other) = content_says(&text[..n]).filter(|o| *o != which) {
            return Err(SnapshotError::new(
                &path.display().to_string(),
                None,
                format!(
                    "its name is {}'s but its content is {}'s output",
                    which.name(),
                    other.name()
                ),
            ));
        }
    }
    Ok(which)
}

/// Load the snapshot in `dir` (see the module docs). With `strict`, any disagreement
/// between its parts is an error naming the first and how many there are.
pub fn load_snapshot(dir: &Path, strict: bool) -> Result<LoadedSnapshot, SnapshotError> {
    let (snapshot, config, limits) = match detect(dir)? {
        Scheduler::Pbs => {
            let s = pbs::read_pbs_snapshot(dir)?;
            let limits = crate::pbs::limits::pbs_limits(&s).map_err(|e| match e.origin {
                crate::pbs::Origin::File { file, line } => {
                    SnapshotError::at_line(&file, line, e.message)
                }
                other => SnapshotError::new(&other.to_string(), None, e.message),
            })?;
            (s.snapshot, SiteConfig::Pbs(s.site), limits)
        }
        Scheduler::Slurm => {
            let s = slurm::read_slurm_snapshot(dir)?;
            let limits = crate::slurm::limits::slurm_limits(&s);
            (s.snapshot, SiteConfig::Slurm(s.conf), limits)
        }
        Scheduler::Flux => {
            let (s, limits) = crate::flux::snapshot_limits::read_flux_site(dir)?;
            (s, SiteConfig::Flux, limits)
        }
    };
    let disagreements = snapshot.check();
    if strict && let Some(first) = disagreements.first() {
        let more = match disagreements.len() - 1 {
            0 => String::new(),
            n => format!(" (and {n} more)"),
        };
        return Err(SnapshotError::new(
            &dir.display().to_string(),
            None,
            format!("the snapshot's parts disagree: {first}{more}"),
        ));
    }
    Ok(LoadedSnapshot {
        snapshot,
        config,
        disagreements,
        limits,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(files: &[(&str, &str)]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for (n, t) in files {
            std::fs::write(d.path().join(n), t).unwrap();
        }
        d
    }

    // pbsnodes -av -F json's prologue and nodes (OpenPBS src/cmds/pbsnodes.c main,
    // encode_to_json); qstat -f -F json's (qstat.c), both built from the documented format.
    const PBSNODES: &str = r#"{"timestamp":100,"pbs_version":"23.06.06","pbs_server":"s",
      "nodes":{"n1":{"state":"job-busy","jobs":["1.s"],
        "resources_available":{"ncpus":4,"mem":"8gb"},"resources_assigned":{"ncpus":4}}}}"#;
    const QSTAT: &str = r#"{"timestamp":100,"pbs_version":"23.06.06","pbs_server":"s",
      "Jobs":{"1.s":{"job_state":"R","stime":"Thu Jan  1 00:00:50 1970",
        "exec_vnode":"(n2:ncpus=4)","Resource_List":{"ncpus":4,"walltime":"00:01:00"}}}}"#;
    // scontrol show nodes --json, openapi/v0.0.38 (nodes.c _dump_node).
    const SLURM_NODES: &str = r#"{"meta":{"plugin":{"type":"openapi/v0.0.38"}},
      "nodes":[{"name":"c1","state":"idle","state_flags":[],"cpus":4,"real_memory":1000,
        "alloc_cpus":0,"alloc_memory":0}]}"#;

    // flux resource R (RFC 20 R version 1, flux-core doc/man1/flux-resource.rst).
    const FLUX_R: &str = r#"{"version":1,"execution":{"R_lite":[{"rank":"0",
      "children":{"core":"0-3"}}],"starttime":0,"expiration":0,"nodelist":["f0"]}}"#;

    #[test]
    fn the_scheduler_is_told_by_file_names_and_confirmed_by_content() {
        let p = dir(&[("pbsnodes.json", PBSNODES)]);
        assert_eq!(detect(p.path()).unwrap(), Scheduler::Pbs);
        let s = dir(&[("nodes.json", SLURM_NODES)]);
        assert_eq!(detect(s.path()).unwrap(), Scheduler::Slurm);
        let both = dir(&[("pbsnodes.json", PBSNODES), ("nodes.json", SLURM_NODES)]);
        let e = detect(both.path()).unwrap_err();
        assert!(
            e.message
                .starts_with("holds captures of several schedulers"),
            "{e}"
        );
        let f = dir(&[("resource.json", FLUX_R)]);
        assert_eq!(detect(f.path()).unwrap(), Scheduler::Flux);
        let misnamed = dir(&[("resource.json", SLURM_NODES)]);
        let e = detect(misnamed.path()).unwrap_err();
        assert!(
            e.message
                .ends_with("its name is Flux's but its content is Slurm's output"),
            "{e}"
        );
        let misnamed = dir(&[("qstat.json", SLURM_NODES)]);
        let e = detect(misnamed.path()).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("qstat.json: its name is PBS's but its content is Slurm's output"),
            "{e}"
        );
        let empty = dir(&[]);
        let e = detect(empty.path()).unwrap_err();
        assert!(e.message.starts_with("no snapshot here"), "{e}");
    }

    #[test]
    fn disagreeing_parts_are_counted_or_with_strict_refused() {
        // The running job's exec_vnode names n2, which pbsnodes does not list; n1 lists a
        // job that does not hold it.
        let d = dir(&[("pbsnodes.json", PBSNODES), ("qstat.json", QSTAT)]);
        let loaded = load_snapshot(d.path(), false).unwrap();
        assert_eq!(loaded.disagreements.len(), 2);
        assert_eq!(loaded.snapshot.running.len(), 1, "the job is kept");
        assert_eq!(loaded.snapshot.running[0].planned_end(), Some(110));
        assert!(matches!(loaded.config, SiteConfig::Pbs(_)));
        let e = load_snapshot(d.path(), true).unwrap_err();
        assert!(
            e.to_string().ends_with(
                ": the snapshot's parts disagree: running job 1.s is on node `n2`, which the \
                 node list lacks (and 1 more)"
            ),
            "{e}"
        );
    }
}
