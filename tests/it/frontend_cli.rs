//! `jobsort check` end to end: formula sources, flags, exit codes and the JSON shape of
//! SPEC §6.

use crate::common;

use common::cli::jobsort_stdin;
use std::process::Output;

/// `jobsort ARGS`, with `stdin` (or nothing) on stdin.
fn jobsort(args: &[&str], stdin: Option<&str>) -> Output {
    jobsort_stdin(args, stdin.unwrap_or("").as_bytes())
}

fn json(args: &[&str]) -> (i32, serde_json::Value) {
    let mut all = vec!["check", "--format", "json"];
    all.extend_from_slice(args);
    let out = jobsort(&all, None);
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stdout)));
    (out.status.code().unwrap(), v)
}

#[test]
fn valid_formula_exits_0_with_json_shape() {
    let (code, v) = json(&["ncpus*2 + eligible_time/3600"]);
    assert_eq!(code, 0);
    assert_eq!(v["valid"], true);
    assert_eq!(v["diagnostics"].as_array().unwrap().len(), 0);
    // An unbounded side of the range is null.
    assert_eq!(v["range"], serde_json::json!([0.0, null]));
    let (_, v) = json(&["accrue_type * 2 + 1"]);
    assert_eq!(v["range"], serde_json::json!([1.0, 9.0]));
}

#[test]
fn invalid_formula_exits_1_with_diagnostics() {
    let (code, v) = json(&["ncpu + 1"]);
    assert_eq!(code, 1);
    assert_eq!(v["valid"], false);
    assert_eq!(v["range"], serde_json::Value::Null);
    let d = &v["diagnostics"][0];
    assert_eq!(d["severity"], "error");
    assert_eq!(d["code"], "E0201");
    assert_eq!(d["message"], "unknown name `ncpu`");
    assert_eq!(d["span"], serde_json::json!([0, 4]));
}

#[test]
fn warnings_keep_exit_0_unless_denied() {
    let (code, v) = json(&["walltime/ncpus"]);
    assert_eq!(code, 0);
    assert_eq!(v["diagnostics"][0]["severity"], "warning");
    assert_eq!(v["diagnostics"][0]["code"], "W0401");
    assert_eq!(v["diagnostics"][0]["span"], serde_json::json!([9, 14]));
    let (code, v) = json(&["--deny-warnings", "walltime/ncpus"]);
    assert_eq!(code, 1);
    assert_eq!(v["valid"], false);
    assert_eq!(v["diagnostics"][0]["severity"], "error");
}

#[test]
fn compat_pbs_note() {
    let (code, v) = json(&["--compat", "pbs", "eligible_time * 1000"]);
    assert_eq!(code, 0);
    assert_eq!(v["diagnostics"][0]["severity"], "note");
    assert_eq!(v["diagnostics"][0]["code"], "N0502");
    let (_, v) = json(&["eligible_time * 1000"]);
    assert!(v["diagnostics"].as_array().unwrap().is_empty());
}

#[test]
fn formula_starting_with_minus_and_after_double_dash() {
    let out = jobsort(&["check", "-walltime"], None);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (code, v) = json(&["--", "-walltime"]);
    assert_eq!(code, 0);
    assert_eq!(v["range"], serde_json::json!([null, 0.0]));
    let (code, _) = json(&["-ncpus * 2"]);
    assert_eq!(code, 0);
}

#[test]
fn formula_from_stdin_file_and_qmgr_line() {
    let out = jobsort(&["check", "--format", "json", "-"], Some("ncpus * 2\n"));
    assert_eq!(out.status.code(), Some(0));
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("formula.txt");
    std::fs::write(
        &f,
        "set server job_sort_formula=\"walltime/ncpus if ncpus > 0 else 0\"\n",
    )
    .unwrap();
    let (code, v) = json(&["--file", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{v}");
    assert!(v["diagnostics"].as_array().unwrap().is_empty());
    // A qmgr line as the argument: spans are in the unquoted formula.
    let (code, v) = json(&["set server job_sort_formula = \"ncpu\""]);
    assert_eq!(code, 1);
    assert_eq!(v["diagnostics"][0]["span"], serde_json::json!([0, 4]));
    // A formula file that cannot be read is bad input (1), not a usage error (2).
    let out = jobsort(&["check", "--file", "/nonexistent/formula"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with("jobsort check: /nonexistent/formula: "),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/formula"));
}

#[test]
fn custom_resources_from_flags_and_resourcedef() {
    let (code, _) = json(&["paws + bias"]);
    assert_eq!(code, 1);
    let (code, _) = json(&[
        "--resource",
        "paws:float",
        "--resource",
        "bias:long",
        "paws + bias",
    ]);
    assert_eq!(code, 0);
    let (code, v) = json(&["--resource", "flag:boolean", "flag + 1"]);
    assert_eq!(code, 1);
    assert_eq!(v["diagnostics"][0]["code"], "E0202");
    let dir = tempfile::tempdir().unwrap();
    let rd = dir.path().join("resourcedef");
    std::fs::write(&rd, "# custom\npaws type=float flag=h\nbias type=long\n").unwrap();
    let (code, _) = json(&["--resourcedef", rd.to_str().unwrap(), "paws + bias"]);
    assert_eq!(code, 0);
    std::fs::write(&rd, "paws type=float\nbias type=complex\n").unwrap();
    let out = jobsort(
        &["check", "--resourcedef", rd.to_str().unwrap(), "paws"],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "a bad resourcedef file is bad input"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "{}:2: unknown resource type `complex`",
            rd.display()
        )),
        "{err}"
    );
    let out = jobsort(&["check", "--resource", "nocolon", "ncpus"], None);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(jobsort(&["check"], None).status.code(), Some(2));
    assert_eq!(
        jobsort(&["check", "--format", "xml", "ncpus"], None)
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        jobsort(&["check", "--compat", "slurm", "ncpus"], None)
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn text_output_renders_on_stderr_without_colour() {
    let out = jobsort(&["check", "math.sqrt(ncpus)"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "text mode writes nothing to stdout");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "[E0103] Error: attribute access such as `math.sqrt` is not supported: write `sqrt(x)`"
        ),
        "{err}"
    );
    assert!(err.contains("math.sqrt(ncpus)"));
    assert!(
        !err.contains('\u{1b}'),
        "NO_COLOR and no terminal: no colour"
    );
    assert!(err.contains("invalid: 1 error"));
    let out = jobsort(&["check", "walltime/ncpus if ncpus > 0 else 0"], None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim(), "valid: 0 warnings, 0 notes; value in [0, inf]");
}

/// Completions and man pages come from the parser's own definitions: every subcommand and a
/// recent flag appear in them, and `man --dir` writes one page per subcommand.
#[test]
fn completions_and_man_pages_cover_every_subcommand() {
    let bash = common::cli::jobsort(["completions", "bash"]);
    assert!(bash.status.success());
    let script = String::from_utf8_lossy(&bash.stdout);
    let subcommands = [
        "check",
        "eval",
        "explain",
        "rank",
        "fairshare",
        "limits",
        "sim",
        "replay",
        "snapshot",
        "why",
        "forecast",
        "slurm-formula",
        "flux-formula",
        "completions",
        "man",
    ];
    for sub in subcommands {
        assert!(script.contains(sub), "bash completion lacks {sub}");
    }
    assert!(
        script.contains("--compare"),
        "bash completion lacks rank --compare"
    );
    let zsh = common::cli::jobsort(["completions", "zsh"]);
    assert!(String::from_utf8_lossy(&zsh.stdout).starts_with("#compdef jobsort"));
    let dir = tempfile::tempdir().unwrap();
    let man = common::cli::jobsort(["man", "--dir", dir.path().to_str().unwrap()]);
    assert!(
        man.status.success(),
        "{}",
        String::from_utf8_lossy(&man.stderr)
    );
    for sub in subcommands {
        let page = std::fs::read_to_string(dir.path().join(format!("jobsort-{sub}.1")))
            .unwrap_or_else(|e| panic!("jobsort-{sub}.1: {e}"));
        assert!(page.contains(".TH jobsort-"), "{sub}: not a man page");
    }
    let top = common::cli::jobsort(["man"]);
    assert!(String::from_utf8_lossy(&top.stdout).contains(".TH jobsort 1"));
    let bad = common::cli::jobsort(["completions", "tcsh"]);
    assert_eq!(bad.status.code(), Some(2));
}
