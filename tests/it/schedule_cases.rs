//! Schedule filetests: each folder `tests/schedules/<case>/` holds a small trace (or job file)
//! and a `flags` file, the arguments of `jobsort sim` (the trace, the policy, the cluster, the
//! formula, ...; comment lines `#` say what the case shows). The simulator runs in the case's
//! folder, so paths in `flags` are relative to it; the runner adds `--per-job` and keeps each
//! job's `id submit cores start end` as an insta snapshot
//! `tests/schedules/snapshots/schedules@<case>__flags.snap`, small enough to check by hand. A new
//! case is a new folder (`tests/schedules/README.md`).

use crate::cmd_transcripts::split_args;
use crate::common::cli;
use std::path::Path;

/// The arguments in a case's `flags` file: the one line that is not a comment.
fn flags(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with('#') && !l.trim().is_empty())
        .collect();
    match lines.as_slice() {
        [(n, line)] => {
            split_args(line).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), n + 1))
        }
        _ => panic!(
            "{}: one line of arguments, found {}",
            path.display(),
            lines.len()
        ),
    }
}

/// `jobsort sim --per-job FILE FLAGS` in `dir`: each job's `id submit cores start end`, in the
/// order of the per-job file (`-` for a job that never started).
fn schedule(dir: &Path, args: &[String]) -> String {
    let out_dir = tempfile::tempdir().unwrap();
    let per_job = out_dir.path().join("jobs.csv");
    // `--per-job` goes first: after a `--` in the flags it would be read as a formula.
    let mut cmd = cli::command(["sim".as_ref(), "--per-job".as_ref(), per_job.as_os_str()]);
    cmd.args(&args[1..])
        .current_dir(dir)
        .stdin(std::process::Stdio::null());
    let out = cmd.output().expect("run jobsort");
    assert_eq!(
        cli::code(&out),
        Some(0),
        "{}: jobsort sim {}:\n{}",
        dir.display(),
        args.join(" "),
        cli::stderr(&out)
    );
    let csv = std::fs::read_to_string(&per_job).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
    };
    let (formula, id, submit, cores, start, end) = (
        col("formula"),
        col("id"),
        col("submit"),
        col("cores"),
        col("start"),
        col("end"),
    );
    let mut text = String::from("formula id submit cores start end\n");
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let or_dash = |s: &str| {
            if s.is_empty() {
                "-".to_string()
            } else {
                s.to_string()
            }
        };
        text.push_str(&format!(
            "{} {} {} {} {} {}\n",
            f[formula],
            f[id],
            f[submit],
            f[cores],
            or_dash(f[start]),
            or_dash(f[end])
        ));
    }
    text
}

#[test]
fn schedules() {
    let mut cases = 0;
    insta::with_settings!({
        snapshot_path => "../schedules/snapshots",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::glob!("..", "schedules/*/flags", |path| {
            cases += 1;
            let dir = path.parent().unwrap();
            let args = flags(path);
            assert_eq!(args.first().map(String::as_str), Some("sim"), "{}", path.display());
            insta::assert_snapshot!(
                "schedules",
                format!("$ jobsort {}\n{}", args.join(" "), schedule(dir, &args))
            );
        });
    });
    assert!(cases >= 8, "only {cases} cases in tests/schedules/");
}
