//! The one way CLI tests run the `jobsort` binary: no colour, stdin closed (or given), the
//! whole output captured; and the checks they share on what it printed.

use serde_json::Value;
use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The binary, with `NO_COLOR` set.
pub fn command<I, S>(args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_jobsort"));
    cmd.args(args).env("NO_COLOR", "1");
    cmd
}

/// Run `jobsort ARGS` with stdin closed.
pub fn jobsort<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    command(args)
        .stdin(Stdio::null())
        .output()
        .expect("run jobsort")
}

/// Run `jobsort ARGS` with `input` on stdin.
pub fn jobsort_stdin<I, S>(args: I, input: &[u8]) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut child = command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run jobsort");
    let mut stdin = child.stdin.take().expect("piped stdin");
    // A program that exits without reading all of stdin closes the pipe: not an error here.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().expect("wait for jobsort")
}

/// Run `jobsort ARGS` with stdin closed: the exit code (-1 when a signal ended the program),
/// stdout and stderr, for tests that look at all three.
pub fn run<I, S>(args: I) -> (i32, String, String)
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let out = jobsort(args);
    (code(&out).unwrap_or(-1), stdout(&out), stderr(&out))
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The exit code (`None` when a signal ended the program).
pub fn code(out: &Output) -> Option<i32> {
    out.status.code()
}

/// Stdout as one JSON document, after asserting the run succeeded.
pub fn json(out: &Output) -> Value {
    assert!(out.status.success(), "jobsort failed: {}", stderr(out));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON document: {e}: {}", stdout(out)))
}

/// Stdout as JSON lines.
pub fn json_lines(out: &Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Write `text` to `dir/name`; the path as a string, for arguments.
pub fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// A file of this repository (`examples/jobs.json`).
pub fn repo_file(relative: &str) -> String {
    format!("{}/{relative}", env!("CARGO_MANIFEST_DIR"))
}

/// The KTH SP2 trace's first 5,000 jobs (`tests/data/traces/`).
pub fn kth() -> String {
    repo_file("tests/data/traces/KTH-SP2-1996-2.1-cln-first5000.swf.gz")
}

/// Assert that stderr contains `text`.
#[track_caller]
pub fn stderr_has(out: &Output, text: impl AsRef<str>) {
    let err = stderr(out);
    assert!(
        err.contains(text.as_ref()),
        "stderr lacks {:?}:\n{err}",
        text.as_ref()
    );
}

/// Assert that stderr starts with `text`.
#[track_caller]
pub fn stderr_starts(out: &Output, text: impl AsRef<str>) {
    let err = stderr(out);
    assert!(
        err.starts_with(text.as_ref()),
        "stderr does not start with {:?}:\n{err}",
        text.as_ref()
    );
}

/// A PBS_HOME under `dir` with a `sched_priv/sched_config` of `sched_config` and, if given, a
/// `resource_group`; its path.
pub fn pbs_home(dir: &Path, sched_config: &str, resource_group: Option<&str>) -> String {
    let sp = dir.join("home/sched_priv");
    std::fs::create_dir_all(&sp).unwrap();
    std::fs::write(sp.join("sched_config"), sched_config).unwrap();
    if let Some(rg) = resource_group {
        std::fs::write(sp.join("resource_group"), rg).unwrap();
    }
    dir.join("home").display().to_string()
}

/// `jobsort sim --format json ARGS`, which must succeed: its first run's mean wait.
pub fn sim_mean_wait(args: &[&str]) -> f64 {
    let mut a = vec!["sim", "--format", "json"];
    a.extend_from_slice(args);
    let out = jobsort(&a);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    json(&out)["runs"][0]["metrics"]["mean_wait"]
        .as_f64()
        .unwrap()
}
