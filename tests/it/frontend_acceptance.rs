//! The front end's acceptance behaviours and the PBS conformance cases for
//! formula acceptance (`tests/data/cases/openpbs.json`).

use jobsort::catalog::ResourceType;
use jobsort::formula::check::{CheckOptions, Checked, check};
use jobsort::formula::diag::{Severity, codes};
use jobsort::formula::syntax::Span;
use jobsort::{Catalog, Formula};

fn run(src: &str) -> Checked {
    check(src, &Catalog::pbs(), &CheckOptions::default())
}

fn run_with(src: &str, cat: &Catalog, options: CheckOptions) -> Checked {
    check(src, cat, &options)
}

fn codes_of(c: &Checked) -> Vec<&'static str> {
    c.diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn division_by_an_unrequested_resource_warns() {
    let c = run("walltime/ncpus");
    assert!(c.is_valid());
    assert_eq!(codes_of(&c), [codes::MAYBE_DIV_ZERO]);
    let d = &c.diagnostics[0];
    assert_eq!(d.severity, Severity::Warning);
    assert!(
        d.message
            .contains("ncpus is 0 when a job does not request it"),
        "{}",
        d.message
    );
    assert_eq!(d.span, Span::new(9, 14));
    // And at run time such a job gets 0 with "float division by zero".
    let f = Formula::compile("walltime/ncpus", &Catalog::pbs()).unwrap();
    let (w, n) = (vec![3600.0, 3600.0], vec![0.0, 4.0]);
    let cols: Vec<&[f64]> = f
        .inputs()
        .iter()
        .map(|name| if name == "ncpus" { &n[..] } else { &w[..] })
        .collect();
    let ev = f.evaluate_columns(&cols, 2);
    assert_eq!(ev.values, [0.0, 900.0]);
    assert_eq!(
        ev.error(0).map(|e| e.message()),
        Some("float division by zero")
    );
    assert_eq!(ev.error(1), None);
}

#[test]
fn division_by_fairshare_perc_names_zero_share_entities() {
    let cat = Catalog::pbs().with_resource("x", ResourceType::Float);
    let c = run_with("x/fairshare_perc", &cat, CheckOptions::default());
    assert_eq!(codes_of(&c), [codes::MAYBE_DIV_ZERO]);
    assert!(
        c.diagnostics[0]
            .message
            .contains("fairshare_perc is 0 for entities with no shares; PBS gives those jobs 0"),
        "{}",
        c.diagnostics[0].message
    );
}

#[test]
fn hand_written_fairshare_factor_gets_the_lint() {
    for src in [
        "pow(2, -(fairshare_tree_usage/fairshare_perc))",
        "2 ** -(fairshare_tree_usage/fairshare_perc)",
        "ncpus + 2**-(fairshare_tree_usage / fair_share_perc)",
    ] {
        let c = run(src);
        assert!(c.is_valid(), "{src}");
        let lint: Vec<_> = c
            .diagnostics
            .iter()
            .filter(|d| d.code == codes::FAIRSHARE_FACTOR)
            .collect();
        assert_eq!(lint.len(), 1, "{src}: {:?}", c.diagnostics);
        assert_eq!(lint[0].severity, Severity::Note);
        assert!(lint[0].message.contains("fairshare_factor"));
    }
    assert!(!codes_of(&run("fairshare_factor")).contains(&codes::FAIRSHARE_FACTOR));
    assert!(
        !codes_of(&run("pow(3, -(fairshare_tree_usage/fairshare_perc))"))
            .contains(&codes::FAIRSHARE_FACTOR)
    );
}

#[test]
fn guards_narrow_and_suppress_the_warning() {
    for src in [
        "walltime/ncpus if ncpus > 0 else 0",
        "ncpus > 0 and walltime/ncpus",
        "walltime/ncpus if ncpus else 0",
        "0 if ncpus == 0 else walltime/ncpus",
        "walltime/ncpus if not ncpus < 1 else 0",
        "ncpus == 0 or walltime/ncpus",
        "walltime/(ncpus-1) if ncpus >= 2 else 0",
        "walltime/max(ncpus, 1)",
        "eligible_time/fairshare_perc if fairshare_perc > 0 else 0",
        "walltime/ncpus if 0 < ncpus < 100 else 0",
        "walltime/ncpus if ncpus > 0 and mem > 0 else 0",
    ] {
        let c = run(src);
        assert!(c.is_valid(), "{src}");
        assert_eq!(codes_of(&c), Vec::<&str>::new(), "{src}");
    }
    // A guard on the wrong variable or the wrong side does not.
    for src in [
        "walltime/ncpus if mem > 0 else 0",
        "walltime/ncpus if ncpus >= 0 else 0",
    ] {
        assert_eq!(codes_of(&run(src)), [codes::MAYBE_DIV_ZERO], "{src}");
    }
    // An inverted guard makes the division fail for every job that reaches it.
    for src in [
        "0 if ncpus > 0 else walltime/ncpus",
        "ncpus > 0 or walltime/ncpus",
    ] {
        assert_eq!(codes_of(&run(src)), [codes::DIV_ZERO], "{src}");
    }
}

#[test]
fn attribute_access_explains_the_fix() {
    let c = run("math.sqrt(ncpus)");
    assert!(!c.is_valid());
    assert_eq!(c.diagnostics.len(), 1);
    assert!(
        c.diagnostics[0].message.contains("write `sqrt(x)`"),
        "{}",
        c.diagnostics[0].message
    );
    assert_eq!(c.diagnostics[0].span, Span::new(0, 9));
}

#[test]
fn unknown_names_get_suggestions() {
    let c = run("ncpu * 2");
    assert_eq!(codes_of(&c), [codes::UNKNOWN_NAME]);
    assert!(
        c.diagnostics[0]
            .notes
            .iter()
            .any(|n| n == "did you mean `ncpus`?")
    );
    let c = run("fair_share_factor");
    assert!(c.diagnostics[0].message.contains("`fairshare_factor`"));
    let c = run("sqr(ncpus)");
    assert_eq!(codes_of(&c), [codes::UNKNOWN_FUNCTION]);
    assert!(c.diagnostics[0].notes.iter().any(|n| n.contains("`sqrt`")));
    let c = run("walltme + elegible_time");
    assert_eq!(c.diagnostics.len(), 2, "every unknown name is reported");
}

#[test]
fn compat_pbs_notes_float32_ties() {
    let opts = CheckOptions {
        compat_pbs: true,
        deny_warnings: false,
    };
    let c = run_with("eligible_time * 1000", &Catalog::pbs(), opts);
    assert!(c.is_valid());
    assert_eq!(codes_of(&c), [codes::FLOAT32]);
    assert!(c.diagnostics[0].message.contains("2^24"));
    // Not without --compat pbs, and not when the range stays small.
    assert!(run("eligible_time * 1000").diagnostics.is_empty());
    let c = run_with("accrue_type * 1000 + job_priority", &Catalog::pbs(), opts);
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
}

#[test]
fn constant_errors_are_errors_and_possible_ones_warnings() {
    assert_eq!(codes_of(&run("ncpus + 1/0")), [codes::DIV_ZERO]);
    assert_eq!(codes_of(&run("ncpus + log(0)")), [codes::ALWAYS_FAILS]);
    assert_eq!(codes_of(&run("ncpus + sqrt(-1)")), [codes::ALWAYS_FAILS]);
    assert_eq!(codes_of(&run("ncpus % (2 - 2)")), [codes::DIV_ZERO]);
    assert_eq!(codes_of(&run("ncpus + 10.0 ** 400")), [codes::ALWAYS_FAILS]);
    assert_eq!(codes_of(&run("sqrt(-1 - ncpus)")), [codes::ALWAYS_FAILS]);
    // Unreachable branches do not count, as in Python.
    assert!(run("ncpus + (0 and 1/0)").diagnostics.is_empty());
    assert!(run("ncpus if ncpus >= 0 else 1/0").diagnostics.is_empty());
    assert_eq!(codes_of(&run("log(ncpus)")), [codes::MAYBE_DOMAIN]);
    assert_eq!(
        codes_of(&run("sqrt(queue_priority)")),
        [codes::MAYBE_DOMAIN]
    );
    // In PBS `2 ** walltime` is an int, too large for a float from walltime = 1024: pbs_sched
    // crashes on it (W0407; E0305 under --compat pbs).
    assert_eq!(
        codes_of(&run("2 ** walltime")),
        [codes::MAYBE_OVERFLOW, codes::MAYBE_CRASHES_PBS]
    );
    assert_eq!(
        codes_of(&run("exp(eligible_time)")),
        [codes::MAYBE_OVERFLOW]
    );
    assert!(
        run("ncpus ** 2 + sqrt(walltime) + log(ncpus + 1)")
            .diagnostics
            .is_empty()
    );
    assert_eq!(codes_of(&run("1 + 2")), [codes::CONSTANT]);
}

#[test]
fn deprecated_and_shadowed_names_warn() {
    let c = run("fair_share_perc");
    assert!(c.is_valid());
    assert_eq!(codes_of(&c), [codes::DEPRECATED]);
    let cat = Catalog::pbs()
        .with_resource("gamma", ResourceType::Long)
        .with_resource("e", ResourceType::Float);
    let c = run_with("gamma + e * 2", &cat, CheckOptions::default());
    assert!(c.is_valid());
    assert_eq!(codes_of(&c), [codes::SHADOWED, codes::SHADOWED]);
    assert_eq!(c.ir.unwrap().inputs, ["gamma", "e"]);
}

#[test]
fn deny_warnings_turns_warnings_into_errors() {
    let opts = CheckOptions {
        compat_pbs: false,
        deny_warnings: true,
    };
    let c = run_with("walltime/ncpus", &Catalog::pbs(), opts);
    assert!(!c.is_valid());
    assert!(c.ir.is_none());
    assert_eq!(c.diagnostics[0].severity, Severity::Error);
    assert_eq!(c.diagnostics[0].code, codes::MAYBE_DIV_ZERO);
    let c = run_with("walltime/ncpus if ncpus > 0 else 0", &Catalog::pbs(), opts);
    assert!(c.is_valid());
}

#[test]
fn value_range_is_reported() {
    assert_eq!(run("accrue_type * 2 + 1").range, Some((1.0, 9.0)));
    assert_eq!(run("ncpus > 4").range, Some((0.0, 1.0)));
    assert_eq!(run("fairshare_factor * 100").range, Some((0.0, 100.0)));
    assert_eq!(run("-walltime").range, Some((f64::NEG_INFINITY, 0.0)));
    assert_eq!(run("min(ncpus, 10) - 5").range, Some((-5.0, 5.0)));
    // A job that errs gets 0, so 0 is in the range.
    assert_eq!(run("1 + 1/fairshare_perc").range.map(|r| r.0), Some(0.0));
    assert_eq!(run("bogus").range, None);
}

#[test]
fn syntax_limits_are_errors_not_crashes() {
    let c = run(&"(".repeat(100_000));
    assert!(!c.is_valid());
    let c = run(&format!("{}ncpus{}", "(".repeat(300), ")".repeat(300)));
    assert_eq!(codes_of(&c), [codes::TOO_DEEP]);
    let c = run(&"ncpus+".repeat(12_000));
    assert!(!c.is_valid());
}

/// Formulas PBS accepts that jobsort deliberately rejects, and why. Every entry must be a
/// `formula_accept` case of the file (checked below), so this list cannot go stale.
const DELIBERATE_DIFFERENCES: &[(&str, &str)] = &[
    (
        "(ncpus-1) and bogus",
        "PBS validates by running the formula with every name = 1, so the short-circuit \
         never looks `bogus` up; jobsort checks every name statically (unknown name)",
    ),
    (
        "1/0 + bogus",
        "PBS's validation run stops at the ZeroDivisionError and ignores it, never \
         looking `bogus` up; jobsort rejects the unknown name (a formula without it would \
         still be rejected for the constant division by zero)",
    ),
    (
        "ncpus=1",
        "PBS's set-time `exec('ans=ncpus=1')` is a chained assignment, and at run time \
         eval raises SyntaxError so every job gets 0; jobsort rejects the assignment",
    ),
];

#[test]
fn openpbs_formula_conformance_cases() {
    let path = crate::common::OPENPBS;
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let cases: serde_json::Value = serde_json::from_str(&text).unwrap();
    let cases = cases.as_array().expect("a JSON array of cases");
    let mut seen_accept = 0;
    let mut seen_reject = 0;
    let mut differences_seen = Vec::new();
    for case in cases {
        let kind = case["kind"].as_str().unwrap_or("");
        if kind != "formula_accept" && kind != "formula_reject" {
            continue;
        }
        let formula = case["input"]["formula"].as_str().expect("input.formula");
        let mut cat = Catalog::pbs();
        if let Some(custom) = case["input"]["custom_resources"].as_object() {
            for (name, ty) in custom {
                let ty: ResourceType = ty.as_str().unwrap().parse().unwrap();
                cat.add_resource(name, ty);
            }
        }
        let c = run_with(formula, &cat, CheckOptions::default());
        let pbs_accepts = case["expected"]["accepted"].as_bool().unwrap();
        assert_eq!(pbs_accepts, kind == "formula_accept");
        if kind == "formula_accept" {
            seen_accept += 1;
            if let Some((_, why)) = DELIBERATE_DIFFERENCES.iter().find(|(f, _)| *f == formula) {
                assert!(
                    !c.is_valid(),
                    "{formula}: expected jobsort to reject ({why})"
                );
                differences_seen.push(formula);
            } else {
                assert!(
                    c.is_valid(),
                    "{formula}: PBS accepts it; jobsort said {:?}",
                    c.diagnostics
                );
                assert!(c.ir.is_some());
            }
        } else {
            seen_reject += 1;
            assert!(
                !c.is_valid(),
                "{formula}: PBS rejects it; jobsort accepted it"
            );
            // PBS's error class maps to ours.
            let want = match case["expected"]["error_code"].as_u64() {
                Some(15124) => Some(vec![codes::UNKNOWN_NAME, codes::UNSUPPORTED]),
                Some(15125) => Some(vec![codes::INVALID_TYPE]),
                Some(15123) => Some(vec![codes::SYNTAX]),
                _ => None,
            };
            if let Some(want) = want {
                assert!(
                    c.diagnostics.iter().any(|d| want.contains(&d.code)),
                    "{formula}: expected one of {want:?}, got {:?}",
                    c.diagnostics
                );
            }
        }
    }
    assert!(
        seen_accept >= 15 && seen_reject >= 7,
        "{seen_accept} {seen_reject}"
    );
    assert_eq!(
        differences_seen.len(),
        DELIBERATE_DIFFERENCES.len(),
        "a deliberate difference is no longer in the case file: {differences_seen:?}"
    );
}
