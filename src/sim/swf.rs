//! Standard Workload Format (SWF 2.2) reader: plain or gzip, header metadata, replay
//! conventions of `data/traces/README.md`:
//!
//! - processors: field 5 when > 0, else field 8; none → dropped (`"no processors"`);
//! - run time (field 4) ≤ 0 or missing → dropped (`"runtime <= 0"`);
//! - requested time (field 9) missing → the run time; a job never runs past a given
//!   requested time (killed there);
//! - requested memory (field 10, KB per processor) × processors → `mem` (KB), 0 when missing;
//! - user N (field 12) → entity `u<N>`, group N (field 13) → `g<N>`, queue N (field 15) →
//!   `q<N>`; a non-numeric user field (AleaNG's `user_A`) is taken as the name;
//! - recorded start = submit + wait (field 3) when the wait is known.
//!
//! Times may be written as decimals; they are rounded to whole seconds. A kept job whose
//! times or size are out of the simulator's range ([`super::workload::check_job`]: times up
//! to 2^53 s, at most `u32::MAX` processors; run times that add up past what `i64` seconds
//! hold, [`Horizon`]) is an error naming the line and the field.

use super::workload::{
    Horizon, JobField, MachineHint, Request, SimJob, Workload, WorkloadError, count, read_text,
};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// Load an SWF file (gzip transparently). Also reads an AleaNG `<file>.machines` beside it
/// for the machine size when the header has none.
pub fn load_swf(path: &Path) -> Result<Workload, WorkloadError> {
    let (text, sha) = read_text(path)?;
    let mut w = parse_swf(&text, &path.display().to_string())?;
    w.name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    w.sha256 = sha;
    if w.machine.nodes.is_none() {
        let mut m = path.as_os_str().to_owned();
        m.push(".machines");
        if let Ok(mtext) = std::fs::read_to_string(&m) {
            w.machine = parse_machines(&mtext, &Path::new(&m).display().to_string())?;
        }
    }
    Ok(w)
}

/// Parse an AleaNG `.machines` file: `cluster_id name nodes CPUs_per_node ...` per line;
/// several lines add their nodes (they must share the cores per node).
pub fn parse_machines(text: &str, file: &str) -> Result<MachineHint, WorkloadError> {
    let mut nodes = 0u32;
    let mut cores = None;
    for (i, line) in text.lines().enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() || f[0].starts_with(';') || f[0].starts_with('#') {
            continue;
        }
        let bad = |reason: &str| WorkloadError::Line {
            file: file.into(),
            line: i + 1,
            reason: reason.into(),
        };
        if f.len() < 4 {
            return Err(bad("expected `cluster_id name nodes cpus_per_node ...`"));
        }
        let n: u32 = f[2]
            .parse()
            .map_err(|_| bad("node count is not an integer"))?;
        let c: u32 = f[3]
            .parse()
            .map_err(|_| bad("CPUs per node is not an integer"))?;
        if cores.is_some_and(|k| k != c) {
            return Err(bad(
                "clusters with different CPUs per node are not supported",
            ));
        }
        cores = Some(c);
        nodes += n;
    }
    Ok(MachineHint {
        nodes: (nodes > 0).then_some(nodes),
        cores,
    })
}

/// Parse SWF text. `file` names the source in errors (`file:line: reason`).
pub fn parse_swf(text: &str, file: &str) -> Result<Workload, WorkloadError> {
    let mut w = Workload::default();
    let mut max_procs = None;
    let mut max_nodes = None;
    let mut seen = HashSet::new();
    let mut horizon = Horizon::default();
    for (i, raw) in text.lines().enumerate() {
        let lineno = i + 1;
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(h) = line.strip_prefix(';') {
            if let Some((label, value)) = h.split_once(':') {
                let label = label.trim();
                let value = value.trim();
                if !label.is_empty() && !label.contains(' ') {
                    let bad = |what: &str| WorkloadError::Line {
                        file: file.into(),
                        line: lineno,
                        reason: format!("header `{label}`: {what}"),
                    };
                    match label {
                        "MaxProcs" => {
                            max_procs =
                                Some(value.parse::<u32>().map_err(|_| bad("not an integer"))?)
                        }
                        "MaxNodes" => {
                            max_nodes =
                                Some(value.parse::<u32>().map_err(|_| bad("not an integer"))?)
                        }
                        "UnixStartTime" => {
                            w.unix_start_time =
                                Some(value.parse::<i64>().map_err(|_| bad("not an integer"))?)
                        }
                        _ => {}
                    }
                    w.header.push((label.to_string(), value.to_string()));
                }
            }
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let bad = |reason: String| WorkloadError::Line {
            file: file.into(),
            line: lineno,
            reason,
        };
        if fields.len() != 18 {
            return Err(bad(format!("expected 18 fields, found {}", fields.len())));
        }
        let num = |k: usize| -> Result<f64, WorkloadError> {
            let s = fields[k - 1];
            match s.parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(v),
                _ => Err(bad(format!(
                    "field {k} ({}) is not a number: `{s}`",
                    FIELD_NAMES[k - 1]
                ))),
            }
        };
        w.report.read += 1;
        let id = fields[0];
        if id.parse::<f64>().is_err() {
            return Err(bad(format!("field 1 (job number) is not a number: `{id}`")));
        }
        if !seen.insert(id.to_string()) {
            return Err(bad(format!("duplicate job number {id}")));
        }
        let submit = num(2)?;
        if submit < 0.0 {
            return Err(bad(format!("field 2 (submit time) is negative: {submit}")));
        }
        let wait = num(3)?;
        let run = num(4)?.round() as i64;
        let alloc = num(5)?;
        let req_procs = num(8)?;
        let req_time = num(9)?;
        let req_mem = num(10)?;
        let queue = num(15)?;
        let procs = if alloc > 0.0 { alloc } else { req_procs };
        if run <= 0 {
            w.report.drop_job("runtime <= 0");
            continue;
        }
        if procs < 1.0 {
            w.report.drop_job("no processors");
            continue;
        }
        let procs = count(procs).map_err(|e| {
            let k = if alloc > 0.0 { 5 } else { 8 };
            bad(format!("field {k} ({}): {}", FIELD_NAMES[k - 1], e.reason))
        })?;
        let (walltime, given) = if req_time > 0.0 {
            (req_time.round() as i64, true)
        } else {
            (run, false)
        };
        let entity = |k: usize, prefix: &str| -> String {
            let s = fields[k - 1];
            match s.parse::<f64>() {
                Ok(v) if v < 0.0 => "unknown".to_string(),
                Ok(v) => format!("{prefix}{}", v as i64),
                Err(_) => s.to_string(),
            }
        };
        let submit = submit.round() as i64;
        let job = SimJob {
            id: id.to_string(),
            submit,
            run,
            walltime,
            walltime_given: given,
            request: Request::Procs(procs),
            mem: if req_mem > 0.0 {
                req_mem * procs as f64
            } else {
                0.0
            },
            user: entity(12, "u"),
            group: entity(13, "g"),
            queue: if queue >= 0.0 {
                format!("q{}", queue as i64)
            } else {
                "default".into()
            },
            queue_priority: 0.0,
            resources: BTreeMap::new(),
            recorded_start: (wait >= 0.0).then(|| submit.saturating_add(wait.round() as i64)),
        };
        horizon.add(&job).map_err(|e| {
            let k = match e.field {
                JobField::Submit => 2,
                JobField::Start => 3,
                JobField::Run => 4,
                JobField::Walltime => 9,
                JobField::Cores if alloc > 0.0 => 5,
                JobField::Cores => 8,
            };
            bad(format!("field {k} ({}): {}", FIELD_NAMES[k - 1], e.reason))
        })?;
        w.push_kept(job);
    }
    w.machine = match (max_nodes, max_procs) {
        (Some(n), Some(p)) if n > 0 && p >= n && p % n == 0 => MachineHint {
            nodes: Some(n),
            cores: Some(p / n),
        },
        (Some(n), _) if n > 0 => MachineHint {
            nodes: Some(n),
            cores: Some(1),
        },
        (None, Some(p)) if p > 0 => MachineHint {
            nodes: Some(p),
            cores: Some(1),
        },
        _ => MachineHint::default(),
    };
    w.finish();
    Ok(w)
}

const FIELD_NAMES: [&str; 18] = [
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user",
    "group",
    "executable",
    "queue",
    "partition",
    "preceding job",
    "think time",
];

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "; MaxNodes: 4\n; MaxProcs: 8\n; UnixStartTime: 1000\n\
1 0 5 100 2 -1 -1 2 200 -1 1 3 7 -1 1 -1 -1 -1\n\
2 10 -1 50 -1 -1 -1 4 -1 16 1 4 7 -1 -1 -1 -1 -1\n\
3 20 0 0 1 -1 -1 1 10 -1 1 3 7 -1 1 -1 -1 -1\n\
4 30 0 10 -1 -1 -1 -1 10 -1 1 3 7 -1 1 -1 -1 -1\n\
5 40 0 30 1 -1 -1 1 20 -1 1 3 7 -1 1 -1 -1 -1\n";

    #[test]
    fn header_fields_conventions_and_drop_reasons() {
        let w = parse_swf(SMALL, "t.swf").unwrap();
        assert_eq!(
            w.machine,
            MachineHint {
                nodes: Some(4),
                cores: Some(2)
            }
        );
        assert_eq!(w.unix_start_time, Some(1000));
        assert_eq!(w.jobs.len(), 3);
        let j1 = &w.jobs[0];
        assert_eq!(
            (j1.user.as_str(), j1.group.as_str(), j1.queue.as_str()),
            ("u3", "g7", "q1")
        );
        assert_eq!(j1.recorded_start, Some(5));
        let j2 = &w.jobs[1];
        assert_eq!(j2.request, Request::Procs(4)); // field 5 missing → field 8
        assert_eq!((j2.walltime, j2.walltime_given), (50, false)); // requested time missing → runtime
        assert_eq!(j2.mem, 64.0);
        assert_eq!(j2.recorded_start, None);
        assert_eq!(w.jobs[2].effective_run(), 20); // killed at its requested time
        assert_eq!(w.report.dropped["runtime <= 0"], 1);
        assert_eq!(w.report.dropped["no processors"], 1);
        assert_eq!(
            (
                w.report.read,
                w.report.kept,
                w.report.walltime_from_runtime,
                w.report.killed_at_walltime
            ),
            (5, 3, 1, 1)
        );
    }

    #[test]
    fn bad_lines_say_file_and_line() {
        let e = parse_swf("; MaxProcs: 4\n1 0 0 10 1\n", "x.swf").unwrap_err();
        assert_eq!(e.to_string(), "x.swf:2: expected 18 fields, found 5");
        let e =
            parse_swf("\n1 0 0 ten 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n", "x.swf").unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.swf:2: field 4 (run time) is not a number: `ten`"
        );
        let e = parse_swf("; MaxProcs: many\n", "x.swf").unwrap_err();
        assert_eq!(e.to_string(), "x.swf:1: header `MaxProcs`: not an integer");
    }

    #[test]
    fn machines_file() {
        let m = parse_machines("36\tfer\t5\t2\t1\t256\t6.6\t8\n", "m").unwrap();
        assert_eq!(
            m,
            MachineHint {
                nodes: Some(5),
                cores: Some(2)
            }
        );
    }
}
