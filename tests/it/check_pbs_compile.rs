//! `check --compat pbs` warns where CPython, so pbs_sched, cannot compile what jobsort
//! accepts: operations nested deeper than CPython's compiler goes (`W0409`) and a line break
//! in the formula (`W0410`). The limit is checked against the machine's python3 running the
//! text pbs_sched runs (`formula_evaluate`, OpenPBS `src/scheduler/job_info.cpp`).

use jobsort::Catalog;
use jobsort::formula::check::{CheckOptions, check};
use jobsort::formula::diag::codes;
use jobsort::formula::hazards::PYTHON_MAX_DEPTH;
use std::process::Command;

fn codes_of(src: &str, compat_pbs: bool) -> Vec<&'static str> {
    let options = CheckOptions {
        compat_pbs,
        deny_warnings: false,
    };
    check(src, &Catalog::pbs(), &options)
        .diagnostics
        .iter()
        .map(|d| d.code)
        .collect()
}

/// Whether python3 evaluates `formula` without an error in pbs_sched's text: the formula in
/// `eval("...")` inside a `try` at module level.
fn pbs_sched_evaluates(formula: &str) -> bool {
    let program = format!(
        "globals_dict = {{'ncpus': 2, 'walltime': 3}}\n_PBS_PYTHON_EXCEPTIONSTR_=\"\"\nex = None\ntry:\n\t_FORMANS_ = eval(\"{formula}\", globals_dict, locals())\nexcept Exception as ex:\t_PBS_PYTHON_EXCEPTIONSTR_=str(ex)\nprint(repr(_PBS_PYTHON_EXCEPTIONSTR_))\n"
    );
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_string());
    let out = Command::new(&python)
        .args(["-c", &program])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python} (python3 is required for this test): {e}"));
    String::from_utf8_lossy(&out.stdout).trim() == "''"
}

#[test]
fn chains_deeper_than_cpython_compiles_are_warned_at_the_same_length() {
    let chain = |n: usize| vec!["ncpus"; n].join(" + ");
    let longest = PYTHON_MAX_DEPTH as usize + 1;
    for (src, compiles) in [
        (chain(longest), true),
        (chain(longest + 1), false),
        (format!("walltime < ({})", chain(longest - 1)), true),
        (format!("walltime < ({})", chain(longest)), false),
    ] {
        assert_eq!(
            pbs_sched_evaluates(&src),
            compiles,
            "python3 on {} terms",
            src.len()
        );
        let warned = codes_of(&src, true).contains(&codes::TOO_DEEP_FOR_PYTHON);
        assert_eq!(warned, !compiles, "{} bytes", src.len());
        assert!(!codes_of(&src, false).contains(&codes::TOO_DEEP_FOR_PYTHON));
    }
}

#[test]
fn a_line_break_is_warned_under_compat_pbs() {
    for src in ["ncpus +\n walltime", "(ncpus +\n walltime)", "ncpus\r\n+ 1"] {
        let c = check(
            src,
            &Catalog::pbs(),
            &CheckOptions {
                compat_pbs: true,
                deny_warnings: false,
            },
        );
        let d = c
            .diagnostics
            .iter()
            .find(|d| d.code == codes::LINE_BREAK)
            .unwrap_or_else(|| panic!("{src:?}: {:?}", c.diagnostics));
        assert!(d.message.contains("every job gets 0"), "{}", d.message);
        assert!(!codes_of(src, false).contains(&codes::LINE_BREAK));
    }
    // Python itself refuses the line break outside brackets.
    assert!(!pbs_sched_evaluates("ncpus +\\n walltime"));
    assert!(!codes_of("ncpus + walltime", true).contains(&codes::LINE_BREAK));
}
