//! Snapshot tests (insta) of the rendered diagnostics for a corpus of bad and hazardous
//! formulas, so wording and spans are reviewed like code.
//!
//! Each case is one file `tests/diagnostics/<area>_<what>.formula`: the formula (one line; the
//! file's final newline is not part of it), optionally after a header line
//! `# options: --compat pbs`. Its snapshot is
//! `tests/diagnostics/snapshots/diagnostics@<file>.snap`. Adding a case is adding a file: run
//! `INSTA_UPDATE=always cargo test --test it frontend_snapshots::` (or `cargo insta review`) and
//! review the new snapshot.

use jobsort::Catalog;
use jobsort::catalog::ResourceType;
use jobsort::formula::check::{CheckOptions, check};
use jobsort::formula::diag::render;
use std::path::Path;

/// The header line that carries a case's options.
const OPTIONS: &str = "# options:";

/// A case file: its formula and whether it is checked with `--compat pbs`.
fn read_case(path: &Path) -> (String, bool) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = text.strip_suffix('\n').unwrap_or(&text);
    let (options, formula) = match text.strip_prefix(OPTIONS) {
        Some(rest) => rest.split_once('\n').unwrap_or((rest, "")),
        None => ("", text),
    };
    let compat_pbs = match options.trim() {
        "" => false,
        "--compat pbs" => true,
        other => panic!("{}: unknown options `{other}`", path.display()),
    };
    assert!(
        !formula.contains('\n'),
        "{}: a case is one line",
        path.display()
    );
    (formula.to_string(), compat_pbs)
}

#[test]
fn rendered_diagnostics() {
    let catalog = Catalog::pbs()
        .with_resource("x", ResourceType::Float)
        .with_resource("gamma", ResourceType::Long)
        .with_resource("e", ResourceType::Float);
    let mut cases = 0;
    insta::with_settings!({
        snapshot_path => "../diagnostics/snapshots",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::glob!("..", "diagnostics/*.formula", |path| {
            cases += 1;
            let (src, compat_pbs) = read_case(path);
            let options = CheckOptions {
                compat_pbs,
                deny_warnings: false,
            };
            let c = check(&src, &catalog, &options);
            assert!(
                !c.diagnostics.is_empty(),
                "{}: `{src}` has no diagnostic",
                path.display()
            );
            let codes: Vec<&str> = c.diagnostics.iter().map(|d| d.code).collect();
            let mut out = format!(
                "=== {src:?}{}\nvalid: {}; codes: {}; range: {:?}\n",
                if compat_pbs { " (--compat pbs)" } else { "" },
                c.is_valid(),
                codes.join(" "),
                c.range
            );
            out.push_str(&render(&src, "<formula>", &c.diagnostics, false));
            assert!(!out.contains('\u{1b}'), "no colour codes without colour");
            insta::assert_snapshot!("diagnostics", out);
        });
    });
    assert!(cases >= 64, "only {cases} cases in tests/diagnostics/");
}
