//! Values of compiled formulas through the public API (front end + reference evaluator),
//! for the exact behaviours of SPEC §1.2/§1.5 and the front end's acceptance list.

use jobsort::formula::{CompileOptions, Engine};
use jobsort::{Catalog, EvalError, Formula};

fn compile(src: &str) -> jobsort::CompiledFormula {
    Formula::compile_with(
        src,
        &Catalog::pbs(),
        &CompileOptions {
            engine: Engine::Interp,
            ..Default::default()
        },
    )
    .unwrap_or_else(|d| panic!("{src}: {d}"))
}

/// A formula without inputs.
fn value(src: &str) -> Result<f64, EvalError> {
    compile(src).eval_one(&[])
}

#[test]
fn python_operator_semantics() {
    assert_eq!(value("-2**2"), Ok(-4.0));
    assert_eq!(value("2**-1"), Ok(0.5));
    assert_eq!(value("2**3**2"), Ok(512.0));
    assert_eq!(value("-7 % 3"), Ok(2.0));
    assert_eq!(value("7 // -2"), Ok(-4.0));
    assert_eq!(value("0 or 5"), Ok(5.0));
    assert_eq!(value("1 < 2 < 3"), Ok(1.0));
    assert_eq!(value("3 > 2 > 2"), Ok(0.0));
    assert_eq!(value("1 if 0 else 2 if 1 else 3"), Ok(2.0));
    assert_eq!(value("not 0 + 1"), Ok(0.0));
    assert_eq!(value("True + True"), Ok(2.0));
    assert_eq!(value("1_000 + .5 + 5. + 1e-3"), Ok(1005.501));
    assert_eq!(
        value("e * pi"),
        Ok(std::f64::consts::E * std::f64::consts::PI)
    );
}

#[test]
fn inputs_are_named_columns() {
    let f = compile("ncpus*2 + eligible_time/3600");
    assert_eq!(f.inputs(), ["ncpus", "eligible_time"]);
    assert_eq!(f.eval_one(&[4.0, 7200.0]), Ok(10.0));
    let f = compile("fair_share_perc * 10");
    assert_eq!(f.inputs(), ["fairshare_perc"]);
}

#[test]
fn guarded_division_gives_no_error_for_zero() {
    let f = compile("walltime/ncpus if ncpus > 0 else 0");
    assert_eq!(f.inputs(), ["ncpus", "walltime"]);
    assert_eq!(f.eval_one(&[0.0, 3600.0]), Ok(0.0));
    assert_eq!(f.eval_one(&[2.0, 3600.0]), Ok(1800.0));
    let f = compile("ncpus > 0 and walltime/ncpus");
    assert_eq!(f.eval_one(&[0.0, 3600.0]), Ok(0.0));
    let f = compile("walltime/ncpus");
    assert_eq!(
        f.eval_one(&[3600.0, 0.0]),
        Err(EvalError::FloatDivisionByZero)
    );
}
