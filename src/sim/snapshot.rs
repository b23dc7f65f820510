//! One loader for a snapshot folder, whichever scheduler made it: which scheduler's captures
//! the folder holds (by file names, confirmed by content), read by that scheduler's reader
//! (`pbs::snapshot`, `slurm::snapshot`), and the parts checked against each other
//! ([`Snapshot::check`]). A disagreement (a running job on a node the node list lacks) is
//! counted and kept with the snapshot, or with `strict` an error; never dropped.

use crate::model::snapshot::{Disagreement, Scheduler, Snapshot, SnapshotError};
use crate::pbs::PbsSite;
use crate::pbs::snapshot as pbs;
use crate::slurm::conf::SlurmConf;
use crate::slurm::snapshot as slurm;
use std::path::Path;

/// A scheduler's configuration that came with the snapshot.
#[derive(Debug, Clone)]
pub enum SiteConfig {
    Pbs(PbsSite),
    /// slurm.conf, when the folder holds it.
    Slurm(Option<SlurmConf>),
}

/// A loaded snapshot, its configuration and the disagreements between its parts.
#[derive(Debug, Clone)]
pub struct LoadedSnapshot {
    pub snapshot: Snapshot,
    pub config: SiteConfig,
    pub disagreements: Vec<Disagreement>,
}

/// Which scheduler's captures `dir` holds: a PBS file name (`pbsnodes.json`, `qstat.json`,
/// `pbs_rstat.txt`) or a Slurm one (`nodes.json`, `squeue.json`, `reservations.json`), not
/// both; a JSON capture whose content is the other scheduler's is an error.
pub fn detect(dir: &Path) -> Result<Scheduler, SnapshotError> {
    let here = |f: &str| dir.join(f).is_file();
    let pbs_files: Vec<&str> = [pbs::PBSNODES, pbs::QSTAT, pbs::RSTAT]
        .into_iter()
        .filter(|f| here(f))
        .collect();
    let slurm_files: Vec<&str> = [slurm::NODES, slurm::SQUEUE, slurm::RESERVATIONS]
        .into_iter()
        .filter(|f| here(f))
        .collect();
    let d = dir.display().to_string();
    if !dir.is_dir() {
        return Err(SnapshotError::new(&d, None, "not a folder"));
    }
    let which = match (pbs_files.is_empty(), slurm_files.is_empty()) {
        (false, true) => Scheduler::Pbs,
        (true, false) => Scheduler::Slurm,
        (false, false) => {
            return Err(SnapshotError::new(
                &d,
                None,
                format!(
                    "holds captures of two schedulers: PBS's {} and Slurm's {}",
                    pbs_files.join(", "),
                    slurm_files.join(", ")
                ),
            ));
        }
        (true, true) => {
            return Err(SnapshotError::new(
                &d,
                None,
                format!(
                    "no snapshot here: expected PBS's {} or Slurm's {} (contrib/capture/ \
                     makes them)",
                    [pbs::PBSNODES, pbs::QSTAT, pbs::RSTAT].join(", "),
                    [slurm::NODES, slurm::SQUEUE, slurm::RESERVATIONS].join(", ")
                ),
            ));
        }
    };
    // Content: PBS's JSON names its version (`pbs_version`); Slurm's has `meta` (and no
    // `pbs_version`).
    let json_files: &[&str] = match which {
        Scheduler::Pbs => &[pbs::PBSNODES, pbs::QSTAT],
        _ => &[slurm::NODES, slurm::SQUEUE, slurm::RESERVATIONS],
    };
    for f in json_files {
        let path = dir.join(f);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let mut n = text.len().min(4096);
        while !text.is_char_boundary(n) {
            n -= 1;
        }
        let head = &text[..n];
        let pbs_like = head.contains("\"pbs_version\"");
        let slurm_like = head.contains("\"meta\"") && !pbs_like;
        let wrong = match which {
            Scheduler::Pbs => slurm_like,
            _ => pbs_like,
        };
        if wrong {
            let other = if pbs_like { "PBS" } else { "Slurm" };
            return Err(SnapshotError::new(
                &path.display().to_string(),
                None,
                format!(
                    "its name is {}'s but its content is {other}'s output",
                    which.name()
                ),
            ));
        }
    }
    Ok(which)
}

/// Load the snapshot in `dir` (see the module docs). With `strict`, any disagreement
/// between its parts is an error naming the first and how many there are.
pub fn load_snapshot(dir: &Path, strict: bool) -> Result<LoadedSnapshot, SnapshotError> {
    let (snapshot, config) = match detect(dir)? {
        Scheduler::Pbs => {
            let s = pbs::read_pbs_snapshot(dir)?;
            (s.snapshot, SiteConfig::Pbs(s.site))
        }
        Scheduler::Slurm => {
            let s = slurm::read_slurm_snapshot(dir)?;
            (s.snapshot, SiteConfig::Slurm(s.conf))
        }
        Scheduler::Flux => {
            return Err(SnapshotError::new(
                &dir.display().to_string(),
                None,
                "Flux snapshots are not read yet",
            ));
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

    #[test]
    fn the_scheduler_is_told_by_file_names_and_confirmed_by_content() {
        let p = dir(&[("pbsnodes.json", PBSNODES)]);
        assert_eq!(detect(p.path()).unwrap(), Scheduler::Pbs);
        let s = dir(&[("nodes.json", SLURM_NODES)]);
        assert_eq!(detect(s.path()).unwrap(), Scheduler::Slurm);
        let both = dir(&[("pbsnodes.json", PBSNODES), ("nodes.json", SLURM_NODES)]);
        let e = detect(both.path()).unwrap_err();
        assert!(
            e.message.starts_with("holds captures of two schedulers"),
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
