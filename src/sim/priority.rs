//! The priority adapter: what the simulator needs from a formula. A compiled
//! [`CompiledFormula`] is the real thing; [`IrPriority`] evaluates a hand-built
//! [`Ir`] with the reference interpreter (tests, embedding without the front end).

use crate::formula::catalog::{Catalog, Input, ResourceType};
use crate::formula::interp;
use crate::formula::ir::{Expr, Ir, NodeId, Span, Ty, UnaryOp};
use crate::formula::{CompiledFormula, Evaluation};
use std::fmt;

/// A job-priority function over named columns (higher value runs first).
pub trait Priority: Send + Sync + fmt::Debug {
    /// The formula text (recorded in the recording header).
    fn source(&self) -> &str;
    /// The inputs read, in the order [`Priority::evaluate_columns`] expects their columns.
    fn inputs(&self) -> &[Input];
    /// Evaluate `n` jobs: `columns[k][i]` is input `k` of job `i`.
    fn evaluate_columns(&self, columns: &[&[f64]], n: usize) -> Evaluation;
    /// [`Priority::evaluate_columns`] into caller buffers (`values.len()` jobs; an erred job's
    /// value is 0 and its error code non-zero), so a simulation allocates nothing per round.
    /// The formula's IR, when it has one (lets the simulator analyse the formula).
    fn ir(&self) -> Option<&Ir> {
        None
    }
    fn evaluate_into(&self, columns: &[&[f64]], values: &mut [f64], errors: &mut [u8]) {
        let ev = self.evaluate_columns(columns, values.len());
        values.copy_from_slice(&ev.values);
        errors.copy_from_slice(&ev.errors);
    }
}

impl Priority for CompiledFormula {
    fn source(&self) -> &str {
        CompiledFormula::source(self)
    }
    fn inputs(&self) -> &[Input] {
        CompiledFormula::inputs(self)
    }
    fn evaluate_columns(&self, columns: &[&[f64]], n: usize) -> Evaluation {
        CompiledFormula::evaluate_columns(self, columns, n)
    }
    fn ir(&self) -> Option<&Ir> {
        Some(CompiledFormula::ir(self))
    }
    fn evaluate_into(&self, columns: &[&[f64]], values: &mut [f64], errors: &mut [u8]) {
        if let Err(e) = CompiledFormula::evaluate_into(self, columns, values, errors) {
            panic!("evaluate_into: {e}");
        }
    }
}

/// A formula given as IR, evaluated by the reference interpreter.
#[derive(Debug, Clone)]
pub struct IrPriority {
    pub source: String,
    pub ir: Ir,
}

impl IrPriority {
    /// `name` (one column), e.g. `eligible_time` (first come, first served): a PBS keyword or
    /// built-in resource, else a custom float resource of that name.
    pub fn column(name: &str) -> IrPriority {
        let input = Catalog::pbs()
            .input(name)
            .unwrap_or_else(|| Input::Resource {
                name: name.to_string(),
                ty: ResourceType::Float,
            });
        let mut ir = Ir {
            nodes: vec![],
            root: NodeId(0),
            inputs: vec![],
        };
        let i = ir.input_index(input);
        ir.root = ir.push(Expr::Input(i), Ty::Num, Span::new(0, name.len()));
        IrPriority {
            source: name.to_string(),
            ir,
        }
    }
    /// `-name`, e.g. `-walltime` (shortest requested time first).
    pub fn negated_column(name: &str) -> IrPriority {
        let mut p = IrPriority::column(name);
        let inner = p.ir.root;
        p.ir.root = p.ir.push(
            Expr::Unary(UnaryOp::Neg, inner),
            Ty::Num,
            Span::new(0, name.len() + 1),
        );
        p.source = format!("-{name}");
        p
    }
}

impl Priority for IrPriority {
    fn source(&self) -> &str {
        &self.source
    }
    fn inputs(&self) -> &[Input] {
        &self.ir.inputs
    }
    fn ir(&self) -> Option<&Ir> {
        Some(&self.ir)
    }
    fn evaluate_columns(&self, columns: &[&[f64]], n: usize) -> Evaluation {
        let mut values = vec![0.0; n];
        let mut errors = vec![0u8; n];
        let mut row = vec![0.0; columns.len()];
        for i in 0..n {
            for (slot, col) in row.iter_mut().zip(columns) {
                *slot = col[i];
            }
            match interp::eval_job(&self.ir, &row) {
                Ok(v) => values[i] = v,
                Err(e) => errors[i] = e.code(),
            }
        }
        Evaluation { values, errors }
    }
}
