//! `replay - --verify` streams a recording from a pipe as it streams one from a file: stdin is
//! read once, copied to an unnamed temporary file for the second pass, and never held in
//! memory. The bound is on the replaying process's own peak RSS (`wait4`'s rusage of that one
//! child): verifying a large recording from a pipe takes little more than verifying a tiny one.
//!
//! Alone in its binary while it runs (`heap::alone`): a child's peak RSS counts the parent's
//! pages at the spawn, so no other test may grow them between the two measurements.

use crate::common;
use crate::heap;

use std::path::{Path, PathBuf};
use std::process::Stdio;

/// Jobs queued at once on a one-core machine: with `--record-queue` every round lists the
/// whole ranked queue, so the recording grows with the square of this (26 MB for 2000).
const JOBS: usize = 2000;

#[test]
fn a_recording_on_stdin_is_verified_without_being_held_whole() {
    let _alone = heap::alone();
    let dir = tempfile::tempdir().unwrap();
    let big = record(dir.path(), "big", JOBS);
    let len = std::fs::metadata(&big).unwrap().len();
    assert!(len > 20_000_000, "recording of {len} bytes");
    let tiny = record(dir.path(), "tiny", 10);

    let (report, base) = verify_from_pipe(&tiny);
    assert_eq!(report["mismatches"], 0, "{report}");
    let (report, peak) = verify_from_pipe(&big);
    assert_eq!(report["mismatches"], 0, "{report}");
    assert_eq!(report["rounds"], JOBS as u64 + 1, "{report}");
    // Read whole, the text alone would be `len` bytes more (and its parsed rounds several
    // times that).
    assert!(
        peak < base + len / 2,
        "replay - --verify peaked at {peak} bytes for a {len}-byte recording, {base} for a tiny one"
    );
}

/// A recording of `jobs` one-second jobs all queued at time 0 on one core.
fn record(dir: &Path, name: &str, jobs: usize) -> PathBuf {
    let mut swf = String::from("; MaxNodes: 1\n; MaxProcs: 1\n");
    for i in 1..=jobs {
        swf.push_str(&format!(
            "{i} 0 -1 1 1 -1 -1 1 1 -1 1 {} 1 -1 1 -1 -1 -1\n",
            i % 7
        ));
    }
    let trace = common::cli::write(dir, &format!("{name}.swf"), &swf);
    let rec = dir.join(format!("{name}.rec"));
    let made = common::cli::jobsort([
        "sim",
        "--trace",
        &trace,
        "--policy",
        "strict",
        "--formula",
        "walltime",
        "--record",
        rec.to_str().unwrap(),
        "--record-queue",
    ]);
    assert!(made.status.success(), "{}", common::cli::stderr(&made));
    rec
}

/// `replay - --verify --format json` with `rec` written into its stdin through a pipe: the
/// report and the process's peak RSS in bytes.
fn verify_from_pipe(rec: &Path) -> (serde_json::Value, u64) {
    // The child is spawned before this process reads the file: a fork's copy of the parent
    // counts in the child's peak RSS. It is waited for by `wait4` (its peak RSS), not `wait`.
    #[allow(clippy::zombie_processes)]
    let mut child = common::cli::command(["replay", "-", "--verify", "--format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut file = std::fs::File::open(rec).unwrap();
    let feed = std::thread::spawn(move || std::io::copy(&mut file, &mut stdin));
    let mut stdout = child.stdout.take().unwrap();
    let read = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).map(|_| s)
    });
    let (status, peak_kb) = wait4(child.id());
    feed.join().unwrap().unwrap();
    let report: serde_json::Value = serde_json::from_str(&read.join().unwrap().unwrap()).unwrap();
    assert_eq!(status, 0, "{report}");
    (report, peak_kb * 1024)
}

/// Wait for `pid` and return its exit code and its own peak RSS in KiB.
fn wait4(pid: u32) -> (i32, u64) {
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value, which wait4 overwrites.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own unwaited child; both pointers are to live locals.
    let got = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(got, pid as libc::pid_t, "wait4");
    assert!(
        libc::WIFEXITED(status),
        "replay did not exit: status {status}"
    );
    (libc::WEXITSTATUS(status), usage.ru_maxrss as u64)
}
