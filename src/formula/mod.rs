//! The formula compiler: text → checked, typed IR → an evaluator (interpreter or JIT).
//!
//! ```text
//! lexer (logos) → parser (lalrpop) → AST → sema (catalog) → IR → hazards → opt → interp | jit
//! ```

pub mod ast;
pub mod check;
pub mod diag;
pub mod explain;
pub mod hazards;
pub mod interp;
pub mod ir;
pub mod ir_text;
pub mod jit;
pub mod lexer;
pub mod monotone;
pub mod opt;
pub mod parser;
pub mod pyint;
pub mod pymath;
pub mod sema;
pub mod syntax;
pub mod threads;

use crate::catalog::{Catalog, Input};
use crate::table::JobTable;
pub use check::{CheckOptions, Checked};
use diag::{Diagnostic, Diagnostics, codes};
use ir::Ir;
use pymath::EvalError;
use rayon::prelude::*;
use syntax::Span;

/// Tables with at least this many jobs are evaluated on several threads (rayon). The result
/// is identical to the single-threaded run: every job is evaluated independently.
pub const PARALLEL_THRESHOLD: usize = 1 << 16;

/// Jobs per parallel task.
const PARALLEL_CHUNK: usize = 1 << 14;

/// Which backend evaluates a compiled formula.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// The Cranelift JIT (falls back to `Interp` where Cranelift cannot run).
    #[default]
    Jit,
    /// The reference tree-walking evaluator.
    Interp,
}

/// Options for [`Formula::compile_with`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CompileOptions {
    pub engine: Engine,
    /// `--compat pbs`: write inputs as PBS writes them into the Python text it evaluates
    /// (fairshare values to 6 decimals, other values with OpenPBS's `float_digits(v, 4)`),
    /// evaluate whole numbers as Python ints where that can matter ([`pyint`]), and store
    /// each result as a 32-bit float, as PBS does.
    pub compat_pbs: bool,
    /// `--deny-warnings`
    pub deny_warnings: bool,
}

/// Namespace for compiling formulas.
pub struct Formula;

impl Formula {
    /// Parse, check and compile `source` with the default options (JIT engine).
    pub fn compile(source: &str, catalog: &Catalog) -> Result<CompiledFormula, Diagnostics> {
        Formula::compile_with(source, catalog, &CompileOptions::default())
    }

    /// Parse, check and compile `source`. Errors (and warnings under `deny_warnings`) are
    /// returned as data; warnings and notes of a successful compile stay available through
    /// [`CompiledFormula::diagnostics`].
    pub fn compile_with(
        source: &str,
        catalog: &Catalog,
        options: &CompileOptions,
    ) -> Result<CompiledFormula, Diagnostics> {
        let checked = check::check(
            source,
            catalog,
            &CheckOptions {
                compat_pbs: options.compat_pbs,
                deny_warnings: options.deny_warnings,
            },
        );
        let has_errors = checked.diagnostics.iter().any(Diagnostic::is_error);
        match checked.ir {
            Some(ir) if !has_errors => Ok(CompiledFormula::build(
                source,
                &ir,
                checked.diagnostics,
                checked.range,
                options,
            )),
            _ => Err(Diagnostics(checked.diagnostics)),
        }
    }
}

/// A checked formula ready to evaluate; compile once, evaluate every scheduling cycle.
/// `Send + Sync`: share one across threads (clones share the native code).
#[derive(Debug, Clone)]
pub struct CompiledFormula {
    source: String,
    ir: Ir,
    fairshare_inputs: Vec<bool>,
    diagnostics: Vec<Diagnostic>,
    range: Option<(f64, f64)>,
    options: CompileOptions,
    /// The native kernel when the JIT engine is in use.
    kernel: Option<jit::Kernel>,
    /// Under `--compat pbs`, when Python ints can change a value or an error: the model that
    /// evaluates them (over the unoptimised IR; no JIT).
    int_model: Option<pyint::IntModel>,
}

/// The columns given to [`CompiledFormula::try_evaluate_columns`] do not fit the formula.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ColumnError {
    /// Not one column per input.
    #[error("the formula reads {expected} columns but {got} were given")]
    Count { expected: usize, got: usize },
    /// A column holds fewer values than jobs requested.
    #[error("column {index} (`{name}`) has {got} values but {n} jobs were requested")]
    TooShort {
        index: usize,
        name: String,
        got: usize,
        n: usize,
    },
    /// The output buffers of [`CompiledFormula::evaluate_into`] differ in length.
    #[error("{values} value slots but {errors} error slots")]
    Outputs { values: usize, errors: usize },
}

/// Per-job results: a value for every job (0 where the evaluation erred) and an error code
/// (0 = none, else an [`EvalError`] code).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Evaluation {
    pub values: Vec<f64>,
    pub errors: Vec<u8>,
}

impl Evaluation {
    /// The error of job `i`, if its evaluation failed.
    pub fn error(&self, i: usize) -> Option<EvalError> {
        self.errors.get(i).and_then(|&c| EvalError::from_code(c))
    }
    /// How many jobs erred.
    pub fn error_count(&self) -> usize {
        self.errors.iter().filter(|&&c| c != 0).count()
    }
    pub fn len(&self) -> usize {
        self.values.len()
    }
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl CompiledFormula {
    /// Compile an already checked IR (the back half of [`Formula::compile_with`]): optimise it
    /// ([`opt::optimize`]) and, for [`Engine::Jit`], build the native kernel. If Cranelift
    /// cannot run on this host the interpreter is used and a note (`N0901`) says so.
    pub fn from_ir(ir: &Ir, options: &CompileOptions) -> CompiledFormula {
        CompiledFormula::build("", ir, Vec::new(), None, options)
    }

    /// [`CompiledFormula::from_ir`] for an IR whose spans index `source`: under `--compat
    /// pbs` its integer literals are Python ints (without the source only `True` and `False`
    /// are known to be).
    pub fn from_ir_with_source(ir: &Ir, source: &str, options: &CompileOptions) -> CompiledFormula {
        CompiledFormula::build(source, ir, Vec::new(), None, options)
    }

    fn build(
        source: &str,
        ir: &Ir,
        mut diagnostics: Vec<Diagnostic>,
        range: Option<(f64, f64)>,
        options: &CompileOptions,
    ) -> CompiledFormula {
        let int_model = if options.compat_pbs {
            pyint::IntModel::needed(ir, source)
        } else {
            None
        };
        // The optimiser folds constants as floats: under the int model the IR stays as checked.
        let ir = if int_model.is_some() {
            ir.clone()
        } else {
            opt::optimize(ir)
        };
        let kernel = match options.engine {
            Engine::Interp => None,
            Engine::Jit if int_model.is_some() => {
                diagnostics.push(Diagnostic::note(
                    codes::INT_SEMANTICS,
                    "under --compat pbs whole numbers are Python ints and they can change this formula's values or errors; evaluating with the interpreter, which models them",
                    Span::new(0, source.len()),
                ));
                None
            }
            Engine::Jit => match jit::compile(&ir) {
                Ok(k) => Some(k),
                Err(e) => {
                    diagnostics.push(Diagnostic::note(
                        codes::JIT_UNAVAILABLE,
                        format!("{e}; evaluating with the interpreter instead"),
                        Span::new(0, source.len()),
                    ));
                    None
                }
            },
        };
        CompiledFormula {
            source: source.to_string(),
            fairshare_inputs: ir.inputs.iter().map(Input::is_fairshare).collect(),
            ir,
            diagnostics,
            range,
            options: *options,
            kernel,
            int_model,
        }
    }

    /// The engine that actually evaluates (`Interp` when the JIT was requested but is not
    /// available here).
    pub fn engine(&self) -> Engine {
        if self.kernel.is_some() {
            Engine::Jit
        } else {
            Engine::Interp
        }
    }

    /// Whether the native kernel has an f64x2 SIMD main loop.
    pub fn is_simd(&self) -> bool {
        self.kernel.as_ref().is_some_and(jit::Kernel::is_simd)
    }

    /// The formula text as given.
    pub fn source(&self) -> &str {
        &self.source
    }
    /// The (optimised) IR.
    pub fn ir(&self) -> &Ir {
        &self.ir
    }
    /// The values the formula reads from each job, in the order
    /// [`CompiledFormula::evaluate_columns`] expects their columns.
    pub fn inputs(&self) -> &[Input] {
        &self.ir.inputs
    }
    /// Warnings and notes from the checker.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }
    /// The interval of values the checker proved the formula stays in (`None` if unknown).
    pub fn range(&self) -> Option<(f64, f64)> {
        self.range
    }
    pub fn options(&self) -> &CompileOptions {
        &self.options
    }

    /// Evaluate one job given its input values (indexed like [`CompiledFormula::inputs`]).
    pub fn eval_one(&self, inputs: &[f64]) -> Result<f64, EvalError> {
        if self.options.compat_pbs {
            let rounded: Vec<f64> = inputs
                .iter()
                .zip(&self.fairshare_inputs)
                .map(|(&v, &fs)| pbs_round_input(v, fs))
                .collect();
            match &self.int_model {
                Some(m) => m.eval_job(&self.ir, &rounded),
                None => interp::eval_job(&self.ir, &rounded),
            }
            .map(pbs_store)
        } else {
            interp::eval_job(&self.ir, inputs)
        }
    }

    /// Evaluate every job of a table. Columns the table lacks read as 0 (a job that did not
    /// request a resource has 0, as in PBS).
    pub fn evaluate(&self, table: &JobTable) -> Evaluation {
        let columns = table.bind(&self.ir.inputs);
        self.evaluate_columns(&columns, table.len())
    }

    /// Evaluate over raw columns: `columns[k][i]` is input `k` of job `i`.
    ///
    /// # Panics
    /// If `columns` does not have one column per input, each with at least `n` values
    /// ([`CompiledFormula::try_evaluate_columns`] returns that as an error instead).
    pub fn evaluate_columns(&self, columns: &[&[f64]], n: usize) -> Evaluation {
        match self.try_evaluate_columns(columns, n) {
            Ok(e) => e,
            Err(e) => panic!("evaluate_columns: {e}"),
        }
    }

    /// [`CompiledFormula::evaluate_columns`] that reports ill-fitting columns as an error.
    /// Tables of [`PARALLEL_THRESHOLD`] jobs or more are split across threads; the result is
    /// the same as evaluating them one by one.
    pub fn try_evaluate_columns(
        &self,
        columns: &[&[f64]],
        n: usize,
    ) -> Result<Evaluation, ColumnError> {
        let mut values = vec![0.0; n];
        let mut errors = vec![0u8; n];
        self.evaluate_into(columns, &mut values, &mut errors)?;
        Ok(Evaluation { values, errors })
    }

    /// Evaluate `values.len()` jobs straight into caller-owned buffers (no allocation for the
    /// results; for embedders such as the C ABI). `errors` must be as long as `values`.
    pub fn evaluate_into(
        &self,
        columns: &[&[f64]],
        values: &mut [f64],
        errors: &mut [u8],
    ) -> Result<(), ColumnError> {
        let n = values.len();
        if errors.len() != n {
            return Err(ColumnError::Outputs {
                values: n,
                errors: errors.len(),
            });
        }
        if columns.len() != self.ir.inputs.len() {
            return Err(ColumnError::Count {
                expected: self.ir.inputs.len(),
                got: columns.len(),
            });
        }
        if let Some((index, c)) = columns.iter().enumerate().find(|(_, c)| c.len() < n) {
            return Err(ColumnError::TooShort {
                index,
                name: self.ir.inputs[index].column().to_string(),
                got: c.len(),
                n,
            });
        }
        if self.options.compat_pbs {
            // PBS rounds the inputs before Python sees them and stores the result as a float.
            let rounded: Vec<Vec<f64>> = columns
                .iter()
                .zip(&self.fairshare_inputs)
                .map(|(c, &fs)| c[..n].iter().map(|&v| pbs_round_input(v, fs)).collect())
                .collect();
            let refs: Vec<&[f64]> = rounded.iter().map(Vec::as_slice).collect();
            self.run(&refs, values, errors);
            for (v, &e) in values.iter_mut().zip(errors.iter()) {
                if e == 0 {
                    *v = pbs_store(*v);
                }
            }
        } else {
            self.run(columns, values, errors);
        }
        Ok(())
    }

    /// Evaluate `values.len()` jobs (no compat processing), in parallel when large.
    fn run(&self, columns: &[&[f64]], values: &mut [f64], errors: &mut [u8]) {
        let n = values.len();
        if n < PARALLEL_THRESHOLD {
            self.run_serial(columns, 0, values, errors);
            return;
        }
        threads::cap_global_pool();
        values
            .par_chunks_mut(PARALLEL_CHUNK)
            .zip(errors.par_chunks_mut(PARALLEL_CHUNK))
            .enumerate()
            .for_each(|(k, (v, e))| self.run_serial(columns, k * PARALLEL_CHUNK, v, e));
    }

    /// Evaluate jobs `start .. start + values.len()` on this thread.
    fn run_serial(&self, columns: &[&[f64]], start: usize, values: &mut [f64], errors: &mut [u8]) {
        let len = values.len();
        // The first chunk (and every serial run) reads the columns as given; only later
        // parallel chunks need offset views.
        let offset: Vec<&[f64]>;
        let cols: &[&[f64]] = if start == 0 {
            columns
        } else {
            offset = columns.iter().map(|c| &c[start..start + len]).collect();
            &offset
        };
        if let Some(k) = &self.kernel
            && k.run(cols, len, values, errors)
        {
            return;
        }
        let mut row = vec![0.0; cols.len()];
        for i in 0..len {
            for (slot, col) in row.iter_mut().zip(cols) {
                *slot = col[i];
            }
            let result = match &self.int_model {
                Some(m) => m.eval_job(&self.ir, &row),
                None => interp::eval_job(&self.ir, &row),
            };
            match result {
                Ok(v) => {
                    values[i] = v;
                    errors[i] = 0;
                }
                Err(e) => {
                    values[i] = 0.0;
                    errors[i] = e.code();
                }
            }
        }
    }
}

/// OpenPBS's `float_digits(fl, digits)` (`src/lib/Libutil/misc_utils.c`): how many decimals
/// pbs_sched prints, at most `digits`. It stops at the first decimal position whose next three
/// digits are all 0 or all 9 (`FLOAT_DIGITS_ERROR_FACTOR` 1000), so 2.0004 prints as `2` and
/// 2.9996 as `3`.
pub fn float_digits(fl: f64, digits: usize) -> usize {
    // TRUNCATE(x): (unsigned long)(x), saturating above ULONG_MAX.
    let truncate = |x: f64| {
        if x > u64::MAX as f64 {
            u64::MAX
        } else {
            x as u64
        }
    };
    let mut fl = fl.abs();
    let mut i = 0;
    while i < digits {
        let num = truncate((fl - truncate(fl) as f64) * 1000.0);
        if !(1..999).contains(&num) {
            break;
        }
        fl *= 10.0;
        i += 1;
    }
    i
}

/// The text pbs_sched writes for an input into the Python it evaluates
/// (`formula_evaluate`, `src/scheduler/job_info.cpp`): a fairshare keyword with `%f`, any
/// other value with `%.*f` and `float_digits(v, 4)` decimals. Without a decimal point it is a
/// Python int.
pub fn pbs_input_text(v: f64, fairshare: bool) -> String {
    if !v.is_finite() {
        // printf's `inf`/`nan`, which Python reads as `math.inf`/`math.nan`.
        return format!("{v}").to_lowercase();
    }
    let digits = if fairshare { 6 } else { float_digits(v, 4) };
    format!("{v:.digits$}")
}

/// The value Python sees for an input ([`pbs_input_text`] read back). A whole number written
/// without a decimal point is an int, which has no negative zero: `-0` is `+0.0`.
pub fn pbs_round_input(v: f64, fairshare: bool) -> f64 {
    if !v.is_finite() {
        return v;
    }
    let r: f64 = pbs_input_text(v, fairshare).parse().unwrap_or(v);
    if !fairshare && r == 0.0 { 0.0 } else { r }
}

/// PBS stores the formula value in a C `float`.
fn pbs_store(v: f64) -> f64 {
    v as f32 as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiled_formula_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<CompiledFormula>();
    }

    #[test]
    fn pbs_rounding_of_inputs() {
        assert_eq!(pbs_round_input(0.1234567, true), 0.123457);
        assert_eq!(pbs_round_input(0.123456, false), 0.1235);
        assert_eq!(pbs_store(16777217.0), 16777216.0);
    }

    /// What pbs_sched's Python computes (OpenPBS `formula_evaluate` writes whole numbers
    /// without a decimal point; CPython 3.11 `Objects/longobject.c`: `long_true_divide`
    /// "division by zero", `l_mod` "integer modulo by zero", `l_divmod` "integer division or
    /// modulo by zero", exact `long_pow`, and `PyFloat_AsDouble` failing on an int beyond a
    /// double), for both engines.
    #[test]
    fn whole_numbers_are_python_ints_under_compat_pbs() {
        let catalog = Catalog::pbs();
        for engine in [Engine::Jit, Engine::Interp] {
            let options = CompileOptions {
                engine,
                compat_pbs: true,
                ..CompileOptions::default()
            };
            let eval = |src: &str, inputs: &[f64]| {
                Formula::compile_with(src, &catalog, &options)
                    .unwrap()
                    .eval_one(inputs)
            };
            assert_eq!(
                eval("1/(ncpus-2)", &[2.0]),
                Err(EvalError::IntDivisionByZero)
            );
            assert_eq!(eval("1/(ncpus-2)", &[2.5]), Ok(2.0));
            assert_eq!(
                eval("mem % (ncpus-1)", &[5.0, 1.0]),
                Err(EvalError::IntModuloByZero)
            );
            assert_eq!(
                eval("mem // (ncpus-1)", &[5.0, 1.0]),
                Err(EvalError::IntFloorDivisionByZero)
            );
            // A fairshare keyword is written with %f: always a float.
            assert_eq!(
                eval("1/fairshare_perc", &[0.0]),
                Err(EvalError::FloatDivisionByZero)
            );
            // 16**256 == 2**1024 is exact in Python: the quotient is exact.
            assert_eq!(eval("ncpus ** 256 // ncpus ** 255", &[16.0]), Ok(16.0));
            // 2**53 + 1 is exact as an int: the comparison sees the 1.
            assert_eq!(eval("ncpus * 2**52 + 1 > 2**53", &[2.0]), Ok(1.0));
        }
        // 16**256 == 2**1024 is too large for a double: pbs_sched crashes (the checker says
        // so, E0305), the model's value is that error.
        let checked = check::check("ncpus ** 256", &catalog, &CheckOptions::default());
        let ir = checked.ir.unwrap();
        let model = pyint::IntModel::new(&ir, "ncpus ** 256");
        assert_eq!(
            model.eval_job(&ir, &[16.0]),
            Err(EvalError::IntResultTooLarge)
        );
        assert_eq!(model.eval_job(&ir, &[15.0]), Ok(1.200500425311841e301));
        // Without --compat pbs: floats, as before.
        let f = Formula::compile("1/(ncpus-2)", &catalog).unwrap();
        assert_eq!(f.eval_one(&[2.0]), Err(EvalError::FloatDivisionByZero));
    }

    /// OpenPBS `float_digits` (`src/lib/Libutil/misc_utils.c`) with `FLOAT_NUM_DIGITS` 4, as
    /// `formula_evaluate` (`src/scheduler/job_info.cpp`) prints resources with `%.*f`: it
    /// stops where the next three digits are 000 or 999, so a value within 0.001 of a whole
    /// number is written as that whole number (a Python int).
    #[test]
    fn inputs_are_written_as_pbs_sched_writes_them() {
        let text = |v| pbs_input_text(v, false);
        assert_eq!(text(2.0), "2");
        assert_eq!(text(2.0004), "2");
        assert_eq!(text(2.9996), "3");
        assert_eq!(text(1.5), "1.5");
        assert_eq!(text(2.05), "2.05");
        assert_eq!(text(0.123456), "0.1235");
        assert_eq!(text(0.03125), "0.0312");
        assert_eq!(text(-0.00001), "-0");
        assert_eq!(text(1e20), "100000000000000000000");
        assert_eq!(pbs_input_text(0.5, true), "0.500000");
        assert_eq!(pbs_input_text(0.0, true), "0.000000");
        // Read back: 2.0004 is the int 2, and -0 is the int 0.
        assert_eq!(pbs_round_input(2.0004, false), 2.0);
        assert!(pbs_round_input(-0.00001, false).is_sign_positive());
        assert!(pbs_round_input(-0.0, true).is_sign_negative());
    }
}
