//! Snapshot tests (insta) of the rendered diagnostics for a corpus of bad and hazardous
//! formulas, so wording and spans are reviewed like code. Update with
//! `INSTA_UPDATE=always cargo test --test frontend_snapshots` (or `cargo insta review`) and
//! review the diff of `tests/snapshots/`.

use jobsort::Catalog;
use jobsort::catalog::ResourceType;
use jobsort::formula::check::{CheckOptions, check};
use jobsort::formula::diag::render;

/// (formula, --compat pbs)
const CORPUS: &[(&str, bool)] = &[
    // lexical
    ("ncpus * 3e", false),
    ("1..2 + ncpus", false),
    ("08x * ncpus", false),
    ("ncpus + 007", false),
    ("0x1F + ncpus", false),
    ("ncpus ＋ 1", false),
    ("\"ncpus\" * 2", false),
    ("ncpus[0]", false),
    ("{ncpus}", false),
    ("math.sqrt(ncpus)", false),
    ("os.system", false),
    ("ncpus; 1", false),
    ("ncpus = 1", false),
    ("lambda x: x", false),
    ("ncpus if None else 1", false),
    ("ncpus && mem", false),
    ("ncpus ^ 2", false),
    ("ncpus in mem", false),
    // syntax
    ("", false),
    ("ncpus +", false),
    ("(ncpus + 1", false),
    ("ncpus + 1)", false),
    ("ncpus walltime", false),
    ("ncpus if mem", false),
    ("else 1", false),
    ("max(ncpus,, 1)", false),
    ("2 (ncpus)", false),
    // names and types
    ("ncpu * 2", false),
    ("walltme / 3600", false),
    ("fair_share_factor", false),
    ("accelerator + ncpus", false),
    ("ncpus + arch", false),
    ("sqr(ncpus)", false),
    ("gamma(ncpus)", false),
    ("int(walltime / 60)", false),
    ("sqrt", false),
    ("ncpus(2)", false),
    ("sqrt(ncpus, 2)", false),
    ("max(ncpus)", false),
    ("round(walltime, ncpus)", false),
    ("round(walltime, 1.5)", false),
    ("math", false),
    ("true", false),
    // hazards
    ("walltime/ncpus", false),
    ("x/fairshare_perc", false),
    ("walltime // (ncpus - 1)", false),
    ("walltime % mem", false),
    ("pow(2, -(fairshare_tree_usage/fairshare_perc))", false),
    ("ncpus + 1/0", false),
    ("log(0) + ncpus", false),
    ("log(ncpus)", false),
    ("log(walltime, ncpus)", false),
    ("sqrt(x)", false),
    ("asin(ncpus)", false),
    ("2 ** ncpus", false),
    ("exp(walltime / 60)", false),
    ("(-2) ** x", false),
    ("0 if ncpus > 0 else walltime/ncpus", false),
    ("3 * 4", false),
    ("inf", false),
    ("fair_share_perc * 100", false),
    ("gamma + e", false),
    ("eligible_time * 1000", true),
    ("fmod(walltime, ncpus)", false),
];

#[test]
fn rendered_diagnostics_corpus() {
    assert!(CORPUS.len() >= 40);
    let catalog = Catalog::pbs()
        .with_resource("x", ResourceType::Float)
        .with_resource("gamma", ResourceType::Long)
        .with_resource("e", ResourceType::Float);
    let mut out = String::new();
    for &(src, compat_pbs) in CORPUS {
        let options = CheckOptions {
            compat_pbs,
            deny_warnings: false,
        };
        let c = check(src, &catalog, &options);
        assert!(
            !c.diagnostics.is_empty(),
            "corpus formula `{src}` has no diagnostic"
        );
        let codes: Vec<&str> = c.diagnostics.iter().map(|d| d.code).collect();
        out.push_str(&format!(
            "=== {src:?}{}\nvalid: {}; codes: {}; range: {:?}\n",
            if compat_pbs { " (--compat pbs)" } else { "" },
            c.is_valid(),
            codes.join(" "),
            c.range
        ));
        out.push_str(&render(src, "<formula>", &c.diagnostics, false));
        out.push('\n');
    }
    assert!(!out.contains('\u{1b}'), "no colour codes without colour");
    insta::assert_snapshot!("diagnostics_corpus", out);
}
