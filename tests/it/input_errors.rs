//! The message each input format gives for a bad file, one case per file:
//! `tests/data/errors/<format>/<case>.<ext>`, read by the command in `<format>/args` (one line,
//! `{}` standing for the case's path), with the exit status and stderr kept as an insta snapshot
//! `tests/data/errors/snapshots/errors@<format>__<case>.<ext>.snap`. A new case is a new file
//! (`tests/data/errors/README.md` says how to add and bless one).
//!
//! Every message must say where: it names the case's file (with a line or a JSON path after it,
//! which the snapshot shows).

use crate::cmd_transcripts::{split_args, transcript_parts};
use std::path::Path;

/// The command of a format's folder, with `{}` replaced by the case's path from the
/// repository root.
fn command(case: &Path) -> Vec<String> {
    let folder = case.parent().expect("a case is in a format's folder");
    let args_file = folder.join("args");
    let line = std::fs::read_to_string(&args_file)
        .unwrap_or_else(|e| panic!("{}: {e}", args_file.display()));
    let relative = case
        .strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .expect("a case is in the repository")
        .to_string_lossy()
        .into_owned();
    let args = split_args(line.trim()).unwrap_or_else(|e| panic!("{}: {e}", args_file.display()));
    assert!(
        args.iter().any(|a| a == "{}"),
        "{}: no `{{}}` for the case's path",
        args_file.display()
    );
    args.into_iter()
        .map(|a| if a == "{}" { relative.clone() } else { a })
        .collect()
}

#[test]
fn input_error_messages() {
    let mut cases = 0;
    insta::with_settings!({
        snapshot_path => "../data/errors/snapshots",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::glob!("..", "data/errors/*/*.*", |path| {
            // The snapshots are beside the format folders, not cases.
            if path.parent().unwrap().ends_with("snapshots") {
                return;
            }
            cases += 1;
            let args = command(path);
            let (status, _stdout, stderr) = transcript_parts(&args, None);
            let name = path.file_name().unwrap().to_string_lossy();
            assert!(
                stderr.contains(&*name),
                "{}: the message does not name the file:\n{stderr}",
                path.display()
            );
            insta::assert_snapshot!(
                "errors",
                format!("$ jobsort {}\nstatus: {status}\n{stderr}", args.join(" "))
            );
        });
    });
    assert!(cases >= 28, "only {cases} cases in tests/data/errors/");
}
