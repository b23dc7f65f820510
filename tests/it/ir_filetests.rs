//! IR filetests: each `tests/ir/<name>.ir` is a formula's IR in the text form
//! [`parse_ir`] reads (the inverse of the IR's `Display`), then a line `--- jobs` and one job a
//! line (`ncpus=4 walltime=3600`; an input a job does not name is 0). The runner reads the IR,
//! optimises it, and evaluates every job with the interpreter and the JIT, before and after
//! optimising: the four must agree bit for bit (the value, or the error). The optimised IR and
//! each job's value or error are kept as an insta snapshot `tests/ir/snapshots/ir@<name>.ir.snap`.
//! Comment lines start with `#`. A new case is a new file (`tests/ir/README.md`).

use jobsort::Catalog;
use jobsort::formula::interp::eval_job;
use jobsort::formula::ir::Ir;
use jobsort::formula::ir_text::parse_ir;
use jobsort::formula::jit;
use jobsort::formula::opt::optimize;
use jobsort::formula::pymath::EvalError;
use std::path::Path;

/// The line between the IR and the jobs.
const JOBS: &str = "--- jobs";

/// A case file: the IR and each job's inputs, in the IR's input order.
fn read_case(path: &Path, catalog: &Catalog) -> (Ir, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (ir_text, jobs) = text
        .split_once(&format!("\n{JOBS}\n"))
        .unwrap_or_else(|| panic!("{}: no `{JOBS}` line", path.display()));
    // Comment lines become blank lines, so parse_ir's line numbers are the file's.
    let ir_text: String = ir_text
        .lines()
        .map(|l| {
            if l.trim_start().starts_with('#') {
                ""
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let ir = parse_ir(&ir_text, catalog).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let names: Vec<String> = ir.inputs.iter().map(|i| i.to_string()).collect();
    let first_job_line = ir_text.lines().count() + 2;
    let mut rows = Vec::new();
    for (k, line) in jobs.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = format!("{}:{}", path.display(), first_job_line + k);
        let mut row = vec![0.0; names.len()];
        for pair in line.split_whitespace() {
            let (name, value) = pair
                .split_once('=')
                .unwrap_or_else(|| panic!("{at}: expected NAME=VALUE, found `{pair}`"));
            let i = names
                .iter()
                .position(|n| n == name)
                .unwrap_or_else(|| panic!("{at}: `{name}` is not an input of the IR ({names:?})"));
            row[i] = value
                .parse()
                .unwrap_or_else(|e| panic!("{at}: `{value}`: {e}"));
        }
        rows.push(row);
    }
    assert!(!rows.is_empty(), "{}: no job", path.display());
    (ir, rows)
}

/// A value or an error, as bits so that two results compare exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Value(u64),
    Error(u8),
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Value(bits) => write!(f, "{:?}", f64::from_bits(*bits)),
            Outcome::Error(code) => {
                let e = EvalError::ALL
                    .iter()
                    .find(|e| e.code() == *code)
                    .expect("a known error code");
                write!(f, "error: {}", e.message())
            }
        }
    }
}

fn interp(ir: &Ir, rows: &[Vec<f64>]) -> Vec<Outcome> {
    rows.iter()
        .map(|row| match eval_job(ir, row) {
            Ok(v) => Outcome::Value(v.to_bits()),
            Err(e) => Outcome::Error(e.code()),
        })
        .collect()
}

fn jitted(ir: &Ir, rows: &[Vec<f64>]) -> Vec<Outcome> {
    let kernel = jit::compile(ir).unwrap_or_else(|e| panic!("JIT: {e}\n{ir}"));
    let n = rows.len();
    let columns: Vec<Vec<f64>> = (0..ir.inputs.len())
        .map(|i| rows.iter().map(|r| r[i]).collect())
        .collect();
    let columns: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
    let mut values = vec![0.0; n];
    let mut errors = vec![0u8; n];
    assert!(kernel.run(&columns, n, &mut values, &mut errors));
    values
        .iter()
        .zip(&errors)
        .map(|(v, e)| match e {
            0 => Outcome::Value(v.to_bits()),
            e => Outcome::Error(*e),
        })
        .collect()
}

#[test]
fn ir_filetests() {
    let catalog = Catalog::pbs();
    let mut cases = 0;
    insta::with_settings!({
        snapshot_path => "../ir/snapshots",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::glob!("..", "ir/*.ir", |path| {
            cases += 1;
            let (ir, rows) = read_case(path, &catalog);
            let opt = optimize(&ir);
            let reference = interp(&ir, &rows);
            for (what, got) in [
                ("the JIT", jitted(&ir, &rows)),
                ("the interpreter after optimising", interp(&opt, &rows)),
                ("the JIT after optimising", jitted(&opt, &rows)),
            ] {
                assert_eq!(got, reference, "{}: {what} differs from the interpreter", path.display());
            }
            let mut out = format!("optimised:\n{opt}\nvalues:\n");
            for (row, outcome) in rows.iter().zip(&reference) {
                let inputs: Vec<String> = ir
                    .inputs
                    .iter()
                    .zip(row)
                    .map(|(name, v)| format!("{name}={v:?}"))
                    .collect();
                out.push_str(&format!("{} -> {outcome}\n", inputs.join(" ")));
            }
            insta::assert_snapshot!("ir", out);
        });
    });
    assert!(cases >= 6, "only {cases} cases in tests/ir/");
}
