//! The conventions every subcommand keeps: a closed pipe ends it quietly, exit
//! codes 1 for bad input and 2 for usage, one error prefix, `-` for stdin, no NaN threshold,
//! flags that are not formulas, sizes the machine can hold, nothing silent about job fields
//! and fairshare inputs, JSON under `--format json`, help that stays inside the repository.

use crate::common;

use common::cli::{
    code, command, jobsort, jobsort_stdin, json, kth, repo_file, stderr, stderr_has, stderr_starts,
    stdout, write,
};
use std::process::Stdio;

const JOBS: &str = r#"[{"id":"a","ncpus":2,"walltime":600},{"id":"b","ncpus":4,"walltime":60}]"#;

/// Run with stdout a pipe whose reading end is already closed: every write fails with EPIPE.
fn with_closed_stdout(args: &[&str]) -> std::process::Output {
    let mut child = command(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

#[test]
fn a_closed_stdout_pipe_ends_every_subcommand_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "jobs.json", JOBS);
    let rec = dir.path().join("rec.jsonl");
    let rec = rec.to_str().unwrap();
    let trace = kth();
    let made = jobsort([
        "sim",
        "--trace",
        &trace,
        "--first",
        "30",
        "--record",
        rec,
        "--record-queue",
    ]);
    assert!(made.status.success(), "{}", stderr(&made));
    let limits = repo_file("examples/limits.toml");
    let events = repo_file("examples/limit_events.jsonl");
    let rg = repo_file("examples/resource_group");
    let usage = repo_file("examples/usage.json");
    let snapshot = repo_file("tests/data/snapshot/pbs");
    let runs: [&[&str]; 13] = [
        &["rank", "ncpus", "--jobs", &jobs],
        &["rank", "ncpus", "--jobs", &jobs, "--format", "csv"],
        &["eval", "ncpus", "--jobs", &jobs, "--format", "json"],
        &["check", "ncpus", "--format", "json"],
        &[
            "sim", "--trace", &trace, "--first", "30", "--format", "json",
        ],
        // The recording on stdout, the report on stderr.
        &["sim", "--trace", &trace, "--first", "30", "--record", "-"],
        &["replay", rec, "--verify"],
        &["replay", rec, "--formula", "-walltime", "--per-round"],
        &["limits", "--config", &limits, "--events", &events],
        &["snapshot", &snapshot],
        &["snapshot", &snapshot, "--format", "json"],
        &["fairshare", "--resource-group", &rg, "--usage", &usage],
        &[
            "fairshare",
            "--resource-group",
            &rg,
            "-t",
            "--format",
            "json",
        ],
    ];
    for args in runs {
        let out = with_closed_stdout(args);
        assert_eq!(code(&out), Some(0), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).is_empty(), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn bad_input_exits_1_usage_exits_2_with_one_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty.swf", "");
    let out = jobsort(["sim", "--trace", &empty]);
    assert_eq!(code(&out), Some(1), "an empty trace is bad input");
    stderr_starts(&out, format!("jobsort sim: {empty}: no machine size"));
    let out = jobsort(["replay", "/nonexistent/rec.jsonl"]);
    assert_eq!(code(&out), Some(1));
    stderr_starts(
        &out,
        "jobsort replay: /nonexistent/rec.jsonl: cannot read: ",
    );
    let out = jobsort(["eval", "ncpus", "--jobs", "/nonexistent/jobs.json"]);
    assert_eq!(code(&out), Some(1));
    stderr_starts(&out, "jobsort eval: /nonexistent/jobs.json: ");
    let out = jobsort(["sim", "--trace", &empty, "--policy", "fifo"]);
    assert_eq!(code(&out), Some(2), "a bad flag value is a usage error");
    let out = jobsort(["replay", "--trace", &kth(), "--verify"]);
    assert_eq!(code(&out), Some(2));
    stderr_starts(&out, "jobsort replay: --verify needs");
    let out = jobsort(["snapshot", "/nonexistent/snap"]);
    assert_eq!(code(&out), Some(1));
    stderr_starts(&out, "jobsort snapshot: /nonexistent/snap: not a folder");
    let out = jobsort([
        "snapshot",
        &dir.path().display().to_string(),
        "--format",
        "yaml",
    ]);
    assert_eq!(code(&out), Some(2));
}

#[test]
fn dash_is_stdin_for_every_input_file() {
    let dir = tempfile::tempdir().unwrap();
    // `qstat -f -F json | jobsort rank F --jobs -`
    let qstat = r#"{"Jobs":{"1.srv":{"euser":"ann","Resource_List":{"ncpus":2}},
                            "2.srv":{"euser":"bob","Resource_List":{"ncpus":8}}}}"#;
    let v = json(&jobsort_stdin(
        ["rank", "ncpus", "--jobs", "-", "--format", "json"],
        qstat.as_bytes(),
    ));
    assert_eq!(v["order"][0]["id"], "2.srv");
    // The formula from stdin and the jobs too: stdin feeds one input only.
    let jobs = write(dir.path(), "jobs.json", JOBS);
    let out = jobsort_stdin(["rank", "-", "--jobs", "-"], b"ncpus");
    assert_eq!(code(&out), Some(2), "{}", stderr(&out));
    stderr_has(&out, "more than one input");
    let v = json(&jobsort_stdin(
        [
            "eval",
            "ncpus",
            "--jobs",
            &jobs,
            "--resourcedef",
            "-",
            "--format",
            "json",
        ],
        b"paws type=float\n",
    ));
    assert_eq!(v["jobs"][1]["value"], 4.0);

    // `sim --trace -`: the same run as from the file, the trace named `<stdin>`.
    let trace = kth();
    let gz = std::fs::read(&trace).unwrap();
    let sim = ["sim", "--trace", "-", "--first", "40", "--format", "json"];
    let piped = json(&jobsort_stdin(sim, &gz));
    let from_file = json(&jobsort([
        "sim", "--trace", &trace, "--first", "40", "--format", "json",
    ]));
    assert_eq!(piped["trace"]["name"], "<stdin>");
    assert_eq!(piped["trace"]["sha256"], from_file["trace"]["sha256"]);
    assert_eq!(piped["runs"], from_file["runs"]);

    // `replay -`
    let rec = dir.path().join("rec.jsonl");
    let out = jobsort([
        "sim",
        "--trace",
        &trace,
        "--first",
        "40",
        "--record",
        rec.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&jobsort_stdin(
        ["replay", "-", "--verify", "--format", "json"],
        &std::fs::read(&rec).unwrap(),
    ));
    assert_eq!(v["mismatches"], 0);
    assert!(v["decisions"].as_u64().unwrap() > 0);

    // `limits --events -`
    let limits = repo_file("examples/limits.toml");
    let events = std::fs::read(repo_file("examples/limit_events.jsonl")).unwrap();
    let out = jobsort_stdin(
        [
            "limits", "--config", &limits, "--events", "-", "--format", "json",
        ],
        &events,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        common::cli::json_lines(&out).len(),
        events
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .count()
    );
}

#[test]
fn nan_thresholds_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "jobs.json", JOBS);
    for nan in ["nan", "NaN"] {
        let out = jobsort(["rank", "ncpus", "--jobs", &jobs, "--threshold", nan]);
        assert_eq!(
            code(&out),
            Some(2),
            "rank --threshold {nan}: {}",
            stderr(&out)
        );
        stderr_has(&out, "NaN is no threshold");
        let out = jobsort(["sim", "--trace", &kth(), "--first", "5", "--threshold", nan]);
        assert_eq!(
            code(&out),
            Some(2),
            "sim --threshold {nan}: {}",
            stderr(&out)
        );
    }
    let v = json(&jobsort([
        "rank",
        "ncpus",
        "--jobs",
        &jobs,
        "--threshold=-inf",
        "--format",
        "json",
    ]));
    assert_eq!(
        v["order"][1]["runnable"], true,
        "an infinite threshold is a number"
    );
}

#[test]
fn a_flag_that_is_not_one_is_a_usage_error_with_a_suggestion() {
    let out = jobsort(["check", "--version"]);
    assert_eq!(code(&out), Some(2), "{}", stderr(&out));
    stderr_has(&out, "jobsort --version");
    let out = jobsort(["eval", "--formt", "json", "--jobs", "x.json"]);
    assert_eq!(code(&out), Some(2));
    stderr_has(&out, "`--format`");
    let out = jobsort(["sim", "--trace", "x.swf", "--formula", "--policy", "strict"]);
    assert_eq!(code(&out), Some(2));
    stderr_has(&out, "--formula needs a formula");
    // Also after an alias of a flag (`--fairshare-tree` for `--resource-group`).
    let out = jobsort([
        "sim",
        "--trace",
        "x.swf",
        "--fairshare-tree",
        "rg",
        "--formula",
        "--policy",
        "strict",
    ]);
    assert_eq!(code(&out), Some(2));
    stderr_has(&out, "--formula needs a formula");
    // Formulas that start with `-` still work, a double negation of a PBS name too.
    for formula in ["-walltime", "--ncpus"] {
        let out = jobsort(["check", formula]);
        assert_eq!(code(&out), Some(0), "{formula}: {}", stderr(&out));
    }
}

#[test]
fn sizes_the_machine_cannot_hold_are_refused() {
    let out = jobsort([
        "sim",
        "--trace",
        &kth(),
        "--first",
        "5",
        "--nodes",
        "4294967295",
    ]);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    stderr_starts(
        &out,
        "jobsort sim: --nodes 4294967295: too many nodes to simulate",
    );
    // The same for a trace header.
    let swf = "; MaxNodes: 4000000000\n; MaxProcs: 4000000000\n1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n";
    let out = jobsort_stdin(["sim", "--trace", "-"], swf.as_bytes());
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    stderr_has(&out, "<stdin>: 4000000000 nodes: too many nodes");
}

#[test]
fn misspelled_job_fields_and_inputs_no_job_has_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(
        dir.path(),
        "jobs.json",
        r#"[{"id":"a","ncpu":2},{"id":"b","ncpu":4}]"#,
    );
    let out = jobsort(["eval", "ncpus", "--jobs", &jobs]);
    assert_eq!(code(&out), Some(0));
    let err = stderr(&out);
    assert!(
        err.contains("`ncpu` is no PBS keyword, resource or job attribute and is not read (2 jobs have it); did you mean `ncpus`?"),
        "{err}"
    );
    assert!(
        err.contains("no job has `ncpus`: every job reads 0"),
        "{err}"
    );
    let out = jobsort(["eval", "ncpus", "--jobs", &jobs, "--strict"]);
    assert_eq!(code(&out), Some(1));
    stderr_starts(&out, format!("jobsort eval: {jobs}: $[0].ncpu: "));
    let csv = write(
        dir.path(),
        "jobs.csv",
        "id,walltme,Resource_List.ncpu\na,60,1\n",
    );
    let err = stderr(&jobsort(["rank", "walltime", "--jobs", &csv]));
    assert!(err.contains("column `walltme`"), "{err}");
    assert!(err.contains("did you mean `walltime`?"), "{err}");
    assert!(err.contains("`Resource_List.ncpu`"), "{err}");
}

#[test]
fn json_files_must_be_json_a_bom_is_fine_and_no_jobs_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let not_json = write(dir.path(), "jobs.json", "id,ncpus\na,1\n");
    let out = jobsort(["eval", "ncpus", "--jobs", &not_json]);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    stderr_starts(&out, format!("jobsort eval: {not_json}:1:1: invalid JSON"));
    let bom = write(dir.path(), "bom.json", &format!("\u{feff}{JOBS}"));
    let v = json(&jobsort([
        "eval", "ncpus", "--jobs", &bom, "--format", "json",
    ]));
    assert_eq!(v["jobs"].as_array().unwrap().len(), 2);
    let empty = write(dir.path(), "empty.csv", "");
    let out = jobsort(["eval", "ncpus", "--jobs", &empty]);
    assert_eq!(code(&out), Some(0));
    stderr_has(&out, format!("warning: {empty}: no jobs read"));
}

#[test]
fn fairshare_keywords_without_a_tree_are_not_silent() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "jobs.json", JOBS);
    let out = jobsort(["rank", "fairshare_perc * 10", "--jobs", &jobs]);
    assert_eq!(code(&out), Some(1), "every job would tie: {}", stderr(&out));
    stderr_has(&out, "every job would get the same value");
    let out = jobsort(["rank", "fairshare_perc + ncpus", "--jobs", &jobs]);
    assert_eq!(code(&out), Some(0));
    stderr_has(
        &out,
        "warning: no fairshare tree is given: `fairshare_perc` reads 0",
    );
    let out = jobsort(["eval", "fairshare_perc", "--jobs", &jobs]);
    assert_eq!(code(&out), Some(0), "eval lists values: a warning");
    let trace = kth();
    let out = jobsort([
        "sim",
        "--trace",
        &trace,
        "--first",
        "5",
        "--formula",
        "fairshare_factor",
    ]);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    let out = jobsort([
        "sim",
        "--trace",
        &trace,
        "--first",
        "5",
        "--formula",
        "fairshare_factor + ncpus",
    ]);
    assert_eq!(code(&out), Some(0));
    stderr_has(&out, "`fairshare_factor` reads 0");
    // replay: a recording made without fairshare, reconciled against a fairshare formula.
    let rec = dir.path().join("rec.jsonl");
    let rec = rec.to_str().unwrap();
    let made = jobsort(["sim", "--trace", &trace, "--first", "5", "--record", rec]);
    assert!(made.status.success(), "{}", stderr(&made));
    let out = jobsort(["replay", rec, "--formula", "fairshare_perc"]);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    stderr_has(
        &out,
        "jobsort replay: the formula reads only `fairshare_perc`",
    );
    let out = jobsort(["replay", rec, "--formula", "fairshare_perc - walltime"]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    stderr_has(&out, "`fairshare_perc` reads 0 for every job");
    // A resource_group whose entities run no job of the trace.
    let rg = write(
        dir.path(),
        "resource_group",
        "alice 10 root 50\nbob 11 root 50\n",
    );
    let out = jobsort([
        "sim",
        "--trace",
        &trace,
        "--first",
        "5",
        "--formula",
        "fairshare_factor",
        "--resource-group",
        &rg,
    ]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    stderr_has(
        &out,
        format!("warning: {rg}: no trace job's euser is in the tree"),
    );
    // The hint names the trace's own users: KTH's first jobs are u12, u13, u14 (SWF user
    // numbers), not the names a resource_group would give.
    stderr_has(&out, "(the trace's are u12, u13, u14, ...)");
}

#[test]
fn format_json_is_json_and_help_stays_in_the_repository() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "jobs.json", JOBS);
    let rec = dir.path().join("rec.jsonl");
    let rec = rec.to_str().unwrap();
    let trace = kth();
    json(&jobsort(["check", "ncpus", "--format", "json"]));
    json(&jobsort([
        "eval", "ncpus", "--jobs", &jobs, "--format", "json",
    ]));
    json(&jobsort([
        "rank",
        "ncpus",
        "--jobs",
        &jobs,
        "--format",
        "json",
        "--explain",
    ]));
    json(&jobsort([
        "sim", "--trace", &trace, "--first", "20", "--format", "json", "--record", rec,
    ]));
    json(&jobsort(["replay", rec, "--verify", "--format", "json"]));
    json(&jobsort([
        "replay",
        rec,
        "--formula",
        "-walltime",
        "--per-round",
        "--format",
        "json",
    ]));
    let help = String::from_utf8(jobsort(["limits", "--help"]).stdout).unwrap();
    assert!(help.contains("JSON Lines"), "{help}");
    json(&jobsort([
        "snapshot",
        &repo_file("tests/data/snapshot/slurm"),
        "--format",
        "json",
    ]));
    for cmd in [
        "check", "eval", "rank", "sim", "replay", "limits", "snapshot",
    ] {
        let help = String::from_utf8(jobsort([cmd, "--help"]).stdout).unwrap();
        assert!(
            !help.contains("SPEC"),
            "`{cmd} --help` points outside the repository: {help}"
        );
    }
}

/// Every file argument of every subcommand takes `-` for stdin, with the output the file gives
/// (PBS `resource_group` and usage files, Slurm `slurm.conf`, trees, `sshare` captures, cluster
/// files; each went "-: cannot read" or, for `--usage -`, read as "no usage" before). Each
/// case runs once with the file and once with its text on stdin.
#[test]
fn every_file_argument_reads_stdin_as_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rg = repo_file("examples/resource_group");
    let usage = repo_file("examples/usage.json");
    let jobs = write(
        d,
        "jobs.json",
        r#"[{"id":"1","user":"alice","ncpus":2},{"id":"2","user":"bob","ncpus":8}]"#,
    );
    let conf = write(
        d,
        "slurm.conf",
        "PriorityType=priority/multifactor\nPriorityWeightJobSize=100\nPriorityWeightFairshare=1000\n\
         NodeName=n[1-2] CPUs=8\nPartitionName=batch Nodes=ALL Default=YES\n",
    );
    let sshare = write(
        d,
        "sshare.txt",
        "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare\n\
         root|||1.000000|45||1.000000|0.500000\n A||40|0.400000|20|0.444444|0.444444|0.462937\n\
         \x20 A|u1|1|0.400000|20|0.444444|0.444444|0.462937\n",
    );
    let machine = write(d, "cluster.txt", "count=2 ncpus=4 mem=8gb\n");
    let trace = write(
        d,
        "t.swf",
        "1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n2 1 0 10 4 -1 -1 4 20 -1 1 2 1 -1 1 -1 -1 -1\n",
    );
    let ff = "fairshare_factor";
    // (args with the file, the file's position in them)
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["fairshare", "--resource-group", &rg], &rg),
        (
            vec!["fairshare", "--resource-group", &rg, "--usage", &usage],
            &usage,
        ),
        (vec!["fairshare", "--sshare", &sshare], &sshare),
        (vec!["fairshare", "--fairshare-tree", &sshare], &sshare),
        (
            vec!["rank", ff, "--jobs", &jobs, "--resource-group", &rg],
            &rg,
        ),
        (
            vec![
                "rank",
                ff,
                "--jobs",
                &jobs,
                "--resource-group",
                &rg,
                "--usage",
                &usage,
            ],
            &usage,
        ),
        (
            vec![
                "eval",
                ff,
                "--jobs",
                &jobs,
                "--resource-group",
                &rg,
                "--usage",
                &usage,
            ],
            &usage,
        ),
        (
            vec!["rank", ff, "--jobs", &jobs, "--fairshare-tree", &sshare],
            &sshare,
        ),
        (
            vec!["rank", "jobsize", "--jobs", &jobs, "--slurm-conf", &conf],
            &conf,
        ),
        (vec!["slurm-formula", &conf], &conf),
        (
            vec![
                "sim",
                "--trace",
                &trace,
                "--machine",
                &machine,
                "--format",
                "json",
            ],
            &machine,
        ),
        (
            vec![
                "sim",
                "--trace",
                &trace,
                "--slurm-conf",
                &conf,
                "--format",
                "json",
            ],
            &conf,
        ),
        (
            vec![
                "sim",
                "--trace",
                &trace,
                "--slurm-conf",
                &conf,
                "--share-tree",
                &sshare,
            ],
            &sshare,
        ),
    ];
    for (args, file) in cases {
        let from_file = jobsort(&args);
        assert_eq!(
            code(&from_file),
            Some(0),
            "{args:?}: {}",
            stderr(&from_file)
        );
        let piped: Vec<&str> = args
            .iter()
            .map(|a| if *a == file { "-" } else { a })
            .collect();
        let out = jobsort_stdin(&piped, &std::fs::read(file).unwrap());
        assert_eq!(code(&out), Some(0), "{piped:?}: {}", stderr(&out));
        assert_eq!(stdout(&out), stdout(&from_file), "{piped:?}");
    }
    // One stdin: two inputs on `-` is a usage error, before anything is read.
    let out = jobsort_stdin(["rank", ff, "--jobs", "-", "--resource-group", "-"], b"");
    assert_eq!(code(&out), Some(2), "{}", stderr(&out));
    stderr_has(&out, "more than one input");
}

/// A usage file that does not exist is an error (a mistyped path tied every job at the
/// no-usage value, with a warning and exit 0); `fairshare -s`, `-d` and `-e`, which write it,
/// start it with a note, as pbsfs does.
#[test]
fn a_usage_file_that_does_not_exist_is_an_error_unless_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let rg = repo_file("examples/resource_group");
    let jobs = write(dir.path(), "jobs.json", r#"[{"id":"1","user":"alice"}]"#);
    let missing = dir.path().join("usgae.json");
    let missing = missing.to_str().unwrap();
    for cmd in ["rank", "eval"] {
        let out = jobsort([
            cmd,
            "fairshare_factor",
            "--jobs",
            &jobs,
            "--resource-group",
            &rg,
            "--usage",
            missing,
        ]);
        assert_eq!(code(&out), Some(1), "{cmd}: {}", stderr(&out));
        stderr_has(&out, "usgae.json: cannot read");
    }
    let out = jobsort(["fairshare", "--resource-group", &rg, "--usage", missing]);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    let usage = dir.path().join("usage");
    let usage = usage.to_str().unwrap();
    let out = jobsort([
        "fairshare",
        "--resource-group",
        &rg,
        "--usage",
        usage,
        "-s",
        "alice",
        "10",
    ]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    stderr_has(&out, "does not exist; starting with no usage");
    assert!(std::path::Path::new(usage).exists());
}

/// Run with stderr on `/dev/full` (every write fails with ENOSPC), stdout captured.
fn with_full_stderr(args: &[&str]) -> std::process::Output {
    command(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap()
}

/// A stderr that cannot be written loses the diagnostics and notes, as a closed stdout pipe
/// ends the output: no panic (Rust's `eprintln!` panics there, exit 101), the exit code the
/// run would have had, and stdout written in full.
#[test]
fn a_full_or_closed_stderr_loses_diagnostics_without_a_panic() {
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "jobs.json", JOBS);
    let edges = repo_file("tests/data/sacct/edges.txt");
    let conf = write(
        dir.path(),
        "slurm.conf",
        "PriorityType=priority/multifactor\nPriorityWeightAge=1000\nPriorityWeightFairshare=10000\n",
    );
    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        // A warning (possible division by zero) and the summary.
        (vec!["check", "ncpus/(ncpus-2)"], 0, ""),
        // Per-job evaluation errors, on stderr.
        (vec!["eval", "walltime/(ncpus-2)", "--jobs", &jobs], 0, "a "),
        (
            vec![
                "eval",
                "walltime/(ncpus-2)",
                "--jobs",
                &jobs,
                "--format",
                "csv",
            ],
            0,
            "id,",
        ),
        (
            vec!["rank", "walltime/(ncpus-2)", "--jobs", &jobs],
            0,
            "rank",
        ),
        // Notes on the trace's cluster size, then the report on stdout.
        (
            vec!["replay", "--trace", &edges, "--formula", "ncpus"],
            0,
            "reconciled",
        ),
        // The recording on stdout, and the report on stderr: the report is this run's
        // output, so failing to write it is exit 1 (the recording is whole).
        (
            vec!["sim", "--trace", &edges, "--record", "-"],
            1,
            "\"round\"",
        ),
        // The formula on stdout, its check on stderr.
        (vec!["slurm-formula", &conf], 0, ""),
        (vec!["flux-formula"], 0, ""),
        // An error: still exit 1.
        (vec!["eval", "ncpu", "--jobs", &jobs], 1, ""),
    ];
    for (args, want, stdout_has) in cases {
        let full = with_full_stderr(&args);
        // Closed (`2>&-`): the program starts with no file descriptor 2, which the Rust
        // runtime opens on /dev/null, so a report on stderr is written and lost: exit 0.
        let closed = with_closed_stderr(&args);
        let closed_want = if args.contains(&"--record") { 0 } else { want };
        for (how, out, want) in [("full", full, want), ("closed", closed, closed_want)] {
            let text = String::from_utf8_lossy(&out.stdout);
            assert_ne!(out.status.code(), Some(101), "{args:?} ({how}) panicked");
            assert!(!text.contains("panicked"), "{args:?} ({how}): {text}");
            assert_eq!(out.status.code(), Some(want), "{args:?} ({how})");
            assert!(text.contains(stdout_has), "{args:?} ({how}): {text}");
        }
    }
}

/// Run with stderr closed (`sh -c 'exec jobsort ARGS 2>&-'`), stdout captured.
fn with_closed_stderr(args: &[&str]) -> std::process::Output {
    std::process::Command::new("sh")
        .arg("-c")
        .arg(r#"exec "$0" "$@" 2>&-"#)
        .arg(env!("CARGO_BIN_EXE_jobsort"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .output()
        .unwrap()
}

/// One vocabulary for the formula: FORMULA, `--formula` and `--file` in every subcommand that
/// reads formulas (`sim` took only `--formula`, `check`/`eval`/`rank` only FORMULA and
/// `--file`), and one `--lenient` for reading inputs as the scheduler does (`rank`'s
/// fairshare files too; `--fairshare-lenient` stays as an old spelling).
#[test]
fn formulas_and_leniency_are_spelled_alike_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = repo_file("examples/jobs.json");
    let file = write(dir.path(), "f.txt", "ncpus * 2\n");
    for cmd in ["check", "eval", "rank"] {
        let positional = jobsort([cmd, "ncpus * 2", "--jobs", &jobs]);
        let flag = jobsort([cmd, "--formula", "ncpus * 2", "--jobs", &jobs]);
        let from_file = jobsort([cmd, "--file", &file, "--jobs", &jobs]);
        if cmd == "check" {
            continue; // check takes no jobs: a usage error alike for all three
        }
        assert_eq!(code(&positional), Some(0), "{cmd}: {}", stderr(&positional));
        assert_eq!(stdout(&flag), stdout(&positional), "{cmd}");
        assert_eq!(stdout(&from_file), stdout(&positional), "{cmd}");
    }
    let check = jobsort(["check", "--formula=-walltime"]);
    assert_eq!(code(&check), Some(0), "{}", stderr(&check));
    let both = jobsort(["check", "ncpus", "--formula", "ncpus"]);
    assert_eq!(code(&both), Some(2));
    let trace = write(
        dir.path(),
        "t.swf",
        "1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n2 1 0 30 4 -1 -1 4 40 -1 1 2 1 -1 1 -1 -1 -1\n",
    );
    let base = [
        "--trace", &trace, "--nodes", "1", "--cores", "4", "--format", "json",
    ];
    let runs = |args: &[&str]| {
        let out = jobsort(args.iter().chain(base.iter()));
        assert_eq!(code(&out), Some(0), "{args:?}: {}", stderr(&out));
        json(&out)["runs"].clone()
    };
    let by_flag = runs(&["sim", "--formula", "ncpus * 2"]);
    assert_eq!(runs(&["sim", "ncpus * 2"]), by_flag);
    assert_eq!(runs(&["sim", "--file", &file]), by_flag);
    // `--lenient` reads a resource_group as PBS does for rank, as `fairshare --lenient` does.
    let rg = write(dir.path(), "rg", "alice 10 root 5\nbad line\n");
    let strict = jobsort([
        "rank",
        "fairshare_factor",
        "--jobs",
        &jobs,
        "--resource-group",
        &rg,
    ]);
    assert_eq!(code(&strict), Some(1), "{}", stderr(&strict));
    for lenient in ["--lenient", "--fairshare-lenient"] {
        let out = jobsort([
            "rank",
            "fairshare_factor",
            "--jobs",
            &jobs,
            "--resource-group",
            &rg,
            lenient,
        ]);
        assert_eq!(code(&out), Some(0), "{lenient}: {}", stderr(&out));
    }
}

/// Messages that said too little or the wrong thing: a formula the shell split gets a tip to
/// quote it; `replay` of a file that is no recording says so (not what its JSON lacks);
/// slurm.conf that cannot be read is `file: cannot read`, not `file:0:`; `fairshare`'s
/// errors carry the command's prefix before pbsfs's words.
#[test]
fn messages_say_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let out = jobsort(["check", "ncpus", "*", "2"]);
    assert_eq!(code(&out), Some(2));
    stderr_has(&out, "tip: a formula with spaces or `*` goes in quotes");
    let q = write(dir.path(), "q.json", "{\n  \"Jobs\": {}\n}\n");
    let out = jobsort(["replay", &q, "--verify"]);
    assert_eq!(code(&out), Some(1));
    stderr_has(&out, "q.json:1: not a jobsort recording");
    let missing = dir.path().join("missing.conf");
    let out = jobsort(["slurm-formula", missing.to_str().unwrap()]);
    assert_eq!(code(&out), Some(1));
    stderr_has(&out, "missing.conf: cannot read");
    assert!(!stderr(&out).contains("missing.conf:0"), "{}", stderr(&out));
    let rg = repo_file("examples/resource_group");
    let out = jobsort(["fairshare", "--resource-group", &rg, "-g", "erin"]);
    assert_eq!(
        (code(&out), stderr(&out)),
        (
            Some(1),
            "jobsort fairshare: Fairshare Entity erin does not exist.\n".to_string()
        )
    );
}

/// An input that never ends is an error, quickly, wherever it is given: a formula's file (read
/// up to its bound, one byte past it), a trace or job file on stdin (stopped at its first NUL
/// byte: it is streamed, never read whole first), a configuration file.
#[test]
fn endless_inputs_are_errors_not_reads_for_ever() {
    let started = std::time::Instant::now();
    let out = jobsort(["check", "--file", "/dev/zero"]);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    stderr_starts(
        &out,
        "jobsort check: /dev/zero: longer than 1 MiB (the most this file may hold)",
    );
    let zero = || std::fs::File::open("/dev/zero").unwrap();
    let out = command(["sim", "--trace", "-"])
        .stdin(zero())
        .output()
        .unwrap();
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    stderr_starts(
        &out,
        "jobsort sim: <stdin>:1:1: a NUL byte: this is not text",
    );
    let out = command(["rank", "ncpus", "--jobs", "-"])
        .stdin(zero())
        .output()
        .unwrap();
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    stderr_has(&out, "<stdin>:1:1: a NUL byte: this is not text");
    let out = jobsort(["check", "ncpus", "--resourcedef", "/dev/zero"]);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    stderr_has(&out, "/dev/zero: longer than 64 MiB");
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
}

/// What an error quotes of a file is shown with its control characters escaped, as formula
/// diagnostics show them: a file cannot clear the screen or ring the bell of the terminal
/// showing the error (it echoed ESC and BEL raw).
#[test]
fn errors_quote_files_with_control_characters_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let esc = "\u{1b}]0;owned\u{7}\u{1b}[2J";
    let swf = write(
        dir.path(),
        "t.swf",
        &format!("1 0 0 {esc} 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n"),
    );
    let jobs = write(dir.path(), "jobs.csv", &format!("id,walltime\na,{esc}\n"));
    let conf = write(dir.path(), "slurm.conf", &format!("Bogus{esc}=1\n"));
    for args in [
        vec!["sim", "--trace", &swf],
        vec!["rank", "ncpus", "--jobs", &jobs],
        vec!["slurm-formula", &conf],
    ] {
        let out = jobsort(&args);
        assert_eq!(code(&out), Some(1), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(!err.contains(['\u{1b}', '\u{7}']), "{args:?}: {err:?}");
        assert!(err.contains("\\u{1b}]0;owned\\u{7}"), "{args:?}: {err}");
    }
}

/// A size past what a count of KB holds is a usage error naming the largest, not that
/// largest taken silently.
#[test]
fn a_memory_size_past_64_bits_is_an_error_naming_the_largest() {
    let out = jobsort([
        "sim",
        "--trace",
        &kth(),
        "--first",
        "5",
        "--mem",
        "99999999999999999999tb",
    ]);
    assert_eq!(code(&out), Some(2), "{}", stderr(&out));
    stderr_has(
        &out,
        "`99999999999999999999tb` is more than the largest size, 18446744073709551615 KB",
    );
}
