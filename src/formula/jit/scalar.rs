//! Scalar code: the IR emitted in the reference evaluator's order, with real branches for
//! `and`/`or`/`if`/comparison chains and a jump to the job's error exit on the first error.

use super::codegen::{DEG_PER_RAD, Gen, JitError, RAD_PER_DEG, flags_trusted, float_cc};
use super::ffi::{Params, Symbol, callee};
use crate::formula::ir::{Expr, Func, NodeId};
use crate::formula::pymath::EvalError;
use crate::formula::syntax::{BinaryOp, Link, UnaryOp};
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{BlockArg, InstBuilder, Value, types};

impl Gen<'_, '_> {
    /// Jump to the error exit with `code` when `cond` is nonzero; continue in a new block.
    pub(super) fn fail_if(&mut self, cond: Value, code: Value) {
        let cont = self.b.create_block();
        let err = self.err_block.expect("scalar code has an error exit");
        self.b
            .ins()
            .brif(cond, err, &[BlockArg::Value(code)], cont, &[]);
        self.b.switch_to_block(cont);
    }

    /// Call an ffi wrapper and leave through the error exit if it reported an error.
    pub(super) fn call_checked(
        &mut self,
        symbol: Symbol,
        args: &[Value],
    ) -> Result<Value, JitError> {
        let f = self.func_ref(symbol)?;
        let errp = self.err_ptr.expect("scalar code has an error pointer");
        let mut all = args.to_vec();
        all.push(errp);
        let call = self.b.ins().call(f, &all);
        let r = self.b.inst_results(call)[0];
        let code = self.b.ins().load(types::I8, flags_trusted(), errp, 0);
        self.fail_if(code, code);
        Ok(r)
    }

    pub(super) fn truthy(&mut self, v: Value) -> Value {
        let z = self.b.ins().f64const(0.0);
        self.b.ins().fcmp(FloatCC::NotEqual, v, z)
    }

    pub(super) fn bool_to_f64(&mut self, c: Value) -> Value {
        let one = self.b.ins().f64const(1.0);
        let z = self.b.ins().f64const(0.0);
        self.b.ins().select(c, one, z)
    }

    /// Emit scalar code for `id` at the current point (may create blocks).
    pub(super) fn scalar(&mut self, id: NodeId) -> Result<Value, JitError> {
        if let Some(v) = self.memo.get(&id) {
            return Ok(*v);
        }
        let ir = self.ir;
        let v = match &ir.node(id).expr {
            Expr::Const(c) => self.b.ins().f64const(*c),
            Expr::Input(k) => {
                let off = self.off.expect("inside the loop");
                let p = self.b.ins().iadd(self.cols[*k as usize], off);
                self.b.ins().load(types::F64, flags_trusted(), p, 0)
            }
            Expr::Unary(op, a) => {
                let a = self.scalar(*a)?;
                match op {
                    UnaryOp::Neg => self.b.ins().fneg(a),
                    UnaryOp::Pos => a,
                    UnaryOp::Not => {
                        let z = self.b.ins().f64const(0.0);
                        let c = self.b.ins().fcmp(FloatCC::Equal, a, z);
                        self.bool_to_f64(c)
                    }
                }
            }
            Expr::Binary(..) | Expr::And(..) | Expr::Or(..) => {
                // A chain (`a + b + c`) in a loop, not one call per link; a link already
                // computed ends the walk like a memo hit.
                let chain = ir.chain(id, |n| self.memo.contains_key(&n));
                let mut v = self.scalar(chain.first)?;
                for (n, link, right) in chain.outward() {
                    v = match link {
                        Link::Binary(op) => self.scalar_binary(op, v, right)?,
                        Link::And => self.scalar_and_or(true, v, right)?,
                        Link::Or => self.scalar_and_or(false, v, right)?,
                    };
                    if n != id {
                        self.remember(n, v);
                    }
                }
                v
            }
            Expr::Compare { first, rest } => {
                let merge = self.b.create_block();
                self.b.append_block_param(merge, types::F64);
                let mut lhs = self.scalar(*first)?;
                let mark = self.scope();
                let zero = self.b.ins().f64const(0.0);
                for (k, (op, n)) in rest.iter().enumerate() {
                    let rhs = self.scalar(*n)?;
                    let c = self.b.ins().fcmp(float_cc(*op), lhs, rhs);
                    if k + 1 == rest.len() {
                        let r = self.bool_to_f64(c);
                        self.b.ins().jump(merge, &[BlockArg::Value(r)]);
                    } else {
                        let next = self.b.create_block();
                        self.b
                            .ins()
                            .brif(c, next, &[], merge, &[BlockArg::Value(zero)]);
                        self.b.switch_to_block(next);
                    }
                    lhs = rhs;
                }
                self.leave(mark);
                self.b.switch_to_block(merge);
                self.b.block_params(merge)[0]
            }
            Expr::IfElse {
                cond,
                then,
                otherwise,
            } => {
                let vc = self.scalar(*cond)?;
                let t = self.truthy(vc);
                let merge = self.b.create_block();
                self.b.append_block_param(merge, types::F64);
                let tb = self.b.create_block();
                let eb = self.b.create_block();
                self.b.ins().brif(t, tb, &[], eb, &[]);
                for (blk, n) in [(tb, *then), (eb, *otherwise)] {
                    self.b.switch_to_block(blk);
                    let mark = self.scope();
                    let v = self.scalar(n)?;
                    self.leave(mark);
                    self.b.ins().jump(merge, &[BlockArg::Value(v)]);
                }
                self.b.switch_to_block(merge);
                self.b.block_params(merge)[0]
            }
            Expr::Call(func, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.scalar(*a)?);
                }
                self.scalar_call(*func, &vals)?
            }
        };
        self.remember(id, v);
        Ok(v)
    }

    /// `x op right` (the left operand already computed).
    fn scalar_binary(&mut self, op: BinaryOp, x: Value, right: NodeId) -> Result<Value, JitError> {
        let ir = self.ir;
        let y = self.scalar(right)?;
        Ok(match op {
            BinaryOp::Add => self.b.ins().fadd(x, y),
            BinaryOp::Sub => self.b.ins().fsub(x, y),
            BinaryOp::Mul => self.b.ins().fmul(x, y),
            BinaryOp::Div => {
                let nonzero_const =
                    matches!(ir.node(right).expr, Expr::Const(c) if c != 0.0 && !c.is_nan());
                if !nonzero_const {
                    let z = self.b.ins().f64const(0.0);
                    let is_zero = self.b.ins().fcmp(FloatCC::Equal, y, z);
                    let code = self
                        .b
                        .ins()
                        .iconst(types::I8, i64::from(EvalError::FloatDivisionByZero.code()));
                    self.fail_if(is_zero, code);
                }
                self.b.ins().fdiv(x, y)
            }
            BinaryOp::FloorDiv => self.call_checked(Symbol::FloorDiv, &[x, y])?,
            BinaryOp::Mod => self.call_checked(Symbol::Rem, &[x, y])?,
            BinaryOp::Pow => self.call_checked(Symbol::FloatPow, &[x, y])?,
        })
    }

    /// `va and right` / `va or right`: `right` only in the block where `va` does not decide.
    fn scalar_and_or(&mut self, is_and: bool, va: Value, right: NodeId) -> Result<Value, JitError> {
        let t = self.truthy(va);
        let merge = self.b.create_block();
        self.b.append_block_param(merge, types::F64);
        let rhs = self.b.create_block();
        if is_and {
            self.b
                .ins()
                .brif(t, rhs, &[], merge, &[BlockArg::Value(va)]);
        } else {
            self.b
                .ins()
                .brif(t, merge, &[BlockArg::Value(va)], rhs, &[]);
        }
        self.b.switch_to_block(rhs);
        let mark = self.scope();
        let vb = self.scalar(right)?;
        self.leave(mark);
        self.b.ins().jump(merge, &[BlockArg::Value(vb)]);
        self.b.switch_to_block(merge);
        Ok(self.b.block_params(merge)[0])
    }

    pub(super) fn scalar_call(&mut self, func: Func, vals: &[Value]) -> Result<Value, JitError> {
        let bad_arity =
            || JitError::Codegen(format!("{} with {} arguments", func.name(), vals.len()));
        match callee(func, vals.len()) {
            None => {
                let x = *vals.first().ok_or_else(bad_arity)?;
                Ok(match func {
                    Func::Abs | Func::Fabs => self.b.ins().fabs(x),
                    Func::Copysign => {
                        let y = *vals.get(1).ok_or_else(bad_arity)?;
                        self.b.ins().fcopysign(x, y)
                    }
                    Func::Degrees => {
                        let k = self.b.ins().f64const(DEG_PER_RAD);
                        self.b.ins().fmul(x, k)
                    }
                    Func::Radians => {
                        let k = self.b.ins().f64const(RAD_PER_DEG);
                        self.b.ins().fmul(x, k)
                    }
                    Func::Min | Func::Max => {
                        let cc = if func == Func::Min {
                            FloatCC::LessThan
                        } else {
                            FloatCC::GreaterThan
                        };
                        let mut best = x;
                        for &v in &vals[1..] {
                            let c = self.b.ins().fcmp(cc, v, best);
                            best = self.b.ins().select(c, v, best);
                        }
                        best
                    }
                    _ => return Err(bad_arity()),
                })
            }
            Some(Symbol::Hypot) => {
                let (slot, _) = self.hypot_slot.ok_or_else(bad_arity)?;
                for (k, v) in vals.iter().enumerate() {
                    self.b.ins().stack_store(self.ptr, *v, slot, (k * 8) as i32);
                }
                let addr = self.b.ins().stack_addr(self.ptr, slot, 0);
                let n = self.b.ins().iconst(self.ptr, vals.len() as i64);
                self.call_checked(Symbol::Hypot, &[addr, n])
            }
            Some(symbol) => {
                if symbol.params() != Params::F64(vals.len()) {
                    return Err(bad_arity());
                }
                self.call_checked(symbol, vals)
            }
        }
    }
}
