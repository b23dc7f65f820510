//! CLI transcripts: each `tests/cmd/<name>.cmd` is one run of the `jobsort` binary, its exit
//! status, stdout and stderr kept as an insta snapshot `tests/cmd/snapshots/cmd@<name>.cmd.snap`.
//! A new case is a new file (`tests/cmd/README.md` says how to write and bless one).
//!
//! The case format, shared with `tests/schedules/` ([`split_args`]):
//! - lines starting with `#` are comments (say what the case shows);
//! - the first other line is the arguments, split as a shell would on spaces, with `'…'` and
//!   `"…"` quoting (no escapes, no variables, no globs);
//! - an optional line `--- stdin` starts the standard input: every line after it.
//!
//! The binary runs with the repository root as its working directory, so paths in a case are
//! relative to it and the case runs the same from any cwd.

use crate::common::cli;
use std::path::Path;

/// The line that starts a case's standard input.
const STDIN: &str = "--- stdin";

/// Split a line of arguments as a shell would: on unquoted spaces, with `'…'` and `"…"`
/// quoting whole or part of a word. Unbalanced quotes are an error.
pub fn split_args(line: &str) -> Result<Vec<String>, String> {
    let mut args = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    args.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if let Some(q) = quote {
        return Err(format!("unbalanced {q} in `{line}`"));
    }
    if in_word {
        args.push(word);
    }
    Ok(args)
}

/// A case file: its arguments and its standard input, if it has one.
fn read_case(path: &Path) -> (Vec<String>, Option<String>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (head, stdin) = match text.split_once(&format!("\n{STDIN}\n")) {
        Some((head, stdin)) => (head, Some(stdin.to_string())),
        None => (text.as_str(), None),
    };
    let mut lines = head
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with('#') && !l.trim().is_empty());
    let (n, line) = lines
        .next()
        .unwrap_or_else(|| panic!("{}: no line of arguments", path.display()));
    if let Some((m, extra)) = lines.next() {
        panic!(
            "{}:{}: one line of arguments only (the first is line {}): `{extra}`",
            path.display(),
            m + 1,
            n + 1
        );
    }
    let args = split_args(line).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), n + 1));
    (args, stdin)
}

/// Run `jobsort ARGS` from the repository root, with `stdin` or stdin closed: the exit status
/// (`signal` when a signal ended it), stdout and stderr.
pub fn transcript_parts(args: &[String], stdin: Option<&str>) -> (String, String, String) {
    let mut cmd = cli::command(args);
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    let out = match stdin {
        Some(input) => {
            use std::io::Write;
            use std::process::Stdio;
            let mut child = cmd
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("run jobsort");
            let mut pipe = child.stdin.take().expect("piped stdin");
            // A program that exits without reading all of stdin closes the pipe: not an error.
            let _ = pipe.write_all(input.as_bytes());
            drop(pipe);
            child.wait_with_output().expect("wait for jobsort")
        }
        None => cmd
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run jobsort"),
    };
    let status = cli::code(&out).map_or("signal".to_string(), |c| c.to_string());
    (status, cli::stdout(&out), cli::stderr(&out))
}

/// The transcript to snapshot: the command, its exit status, stdout and stderr.
pub fn transcript(args: &[String], stdin: Option<&str>) -> String {
    let (status, stdout, stderr) = transcript_parts(args, stdin);
    format!(
        "$ jobsort {}\nstatus: {status}\n--- stdout\n{stdout}--- stderr\n{stderr}",
        shown(args)
    )
}

/// The arguments as a line a shell would split back: a word with a space, a quote or nothing
/// in it is quoted.
fn shown(args: &[String]) -> String {
    let word = |a: &String| {
        if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '"' || c == '\'') {
            if a.contains('\'') {
                format!("\"{a}\"")
            } else {
                format!("'{a}'")
            }
        } else {
            a.clone()
        }
    };
    args.iter().map(word).collect::<Vec<_>>().join(" ")
}

#[test]
fn transcripts() {
    let mut cases = 0;
    insta::with_settings!({
        snapshot_path => "../cmd/snapshots",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::glob!("..", "cmd/*.cmd", |path| {
            cases += 1;
            let (args, stdin) = read_case(path);
            let out = transcript(&args, stdin.as_deref());
            assert!(!out.contains('\u{1b}'), "no colour codes without colour");
            insta::assert_snapshot!("cmd", out);
        });
    });
    assert!(cases >= 25, "only {cases} cases in tests/cmd/");
}

#[test]
fn split_args_quotes_like_a_shell() {
    assert_eq!(
        split_args(r#"eval --formula 'ncpus * 2' x"y z"w"#).unwrap(),
        ["eval", "--formula", "ncpus * 2", "xy zw"]
    );
    assert_eq!(split_args("a ''").unwrap(), ["a", ""]);
    assert!(split_args("a 'b").unwrap_err().contains("unbalanced '"));
}
