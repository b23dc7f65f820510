//! The Cranelift backend: one native loop kernel per formula over columnar job data.
//!
//! ```text
//! kernel(columns: *const *const f64, n: i64, out_values: *mut f64, out_errors: *mut u8)
//! ```
//!
//! For job `i` the kernel reads `columns[k][i]` for every input `k`, writes the formula value
//! to `out_values[i]` and the [`EvalError`] code (0 for none) to
//! `out_errors[i]`; an erring job gets the value `+0.0`.
//!
//! Two code shapes, chosen per formula:
//! - **scalar, branching** (every formula): the IR is emitted in the reference evaluator's
//!   order with real control flow for `and`/`or`/`if`/comparison chains, so only what Python
//!   would evaluate is evaluated; the first error jumps straight to the job's error exit, so
//!   the error code is the first one Python raises. `+ - *`, negation, comparisons, `abs`,
//!   `min`/`max`, `copysign`, `degrees`/`radians` are inline, `/` is inline with a zero check,
//!   everything else calls the `extern "C"` wrappers of [`super::pymath::ffi`] — the very
//!   functions the interpreter runs — so results are bit-identical by construction.
//! - **f64x2 SIMD main loop + the scalar tail** when every operation of the formula is inline
//!   or has a vector form (`**`, `pow`, `exp`, `log(x)` on an FMA+AVX2 CPU: glibc's FMA builds
//!   ported in [`super::pymath::vector`]): both sides of every branch are computed and merged
//!   with masks, and each division's zero check and each call's errors are masked by the
//!   condition under which Python evaluates them; each lane keeps the first error code in
//!   evaluation order. A step is four jobs, and each call runs glibc's kernels
//!   (AVX2, four lanes at a time) over a block of jobs at once (see [`simd`]).
//!
//! Files: this entry point (compilation, the job loop, the code generator's state); `kernel`
//! the runtime (entry point, code ownership, the checked call); `memory` the recycled code
//! pages; `ffi` the one table of wrapper symbols; `scalar` and `simd` the two code shapes.
//!
//! Architecture invariant: this is the only module that depends on Cranelift, and it agrees
//! with [`super::interp`] bit for bit on every value and error code (property-tested in
//! `tests/it/jit_proptest.rs`).

use std::collections::HashMap;
use std::sync::Arc;

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    AbiParam, BlockArg, FuncRef, InstBuilder, StackSlotData, StackSlotKind, UserFuncName, Value,
    types,
};
use cranelift_codegen::isa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module, default_libcall_names};

use super::ir::{Expr, Func, Ir, NodeId};
use super::pymath::EvalError;
use ffi::{Params, Symbol};
use kernel::{CodeMemory, KernelFn};
use simd::simd_eligible;

mod codegen;
mod ffi;
mod kernel;
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
mod memory;
mod scalar;
mod simd;

pub use codegen::JitError;
use codegen::{Gen, flags_trusted};
pub use kernel::Kernel;

/// Whether the host can run the JIT at all.
pub fn host_isa() -> Result<Arc<dyn isa::TargetIsa>, JitError> {
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| {
        f.set(k, v)
            .map_err(|e| JitError::Codegen(format!("setting {k}={v}: {e}")))
    };
    set(&mut flags, "use_colocated_libcalls", "false")?;
    set(&mut flags, "is_pic", "false")?;
    set(&mut flags, "opt_level", "speed")?;
    // The SIMD loop's call regions can take more than a page of stack (`simd::call_regions`):
    // such frames touch each page on entry, so a deep stack hits its guard page, not beyond.
    set(&mut flags, "enable_probestack", "true")?;
    set(&mut flags, "probestack_strategy", "inline")?;
    let builder = cranelift_native::builder().map_err(|e| JitError::UnsupportedHost(e.into()))?;
    builder
        .finish(settings::Flags::new(flags))
        .map_err(|e| JitError::UnsupportedHost(e.to_string()))
}

/// Compile `ir` (normally already optimised) into a kernel.
pub fn compile(ir: &Ir) -> Result<Kernel, JitError> {
    compile_with(ir, true)
}

/// Compile, optionally without the SIMD main loop (tests compare both shapes).
pub fn compile_with(ir: &Ir, allow_simd: bool) -> Result<Kernel, JitError> {
    let isa = host_isa()?;
    let mut jb = JITBuilder::with_isa(isa, default_libcall_names());
    for &symbol in Symbol::ALL {
        jb.symbol(symbol.name(), symbol.address());
    }
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    jb.memory_provider(Box::<memory::PooledMemory>::default());
    let mut module = JITModule::new(jb);
    let ptr = module.target_config().pointer_type();
    let cg = |e: cranelift_module::ModuleError| JitError::Codegen(e.to_string());

    let mut sig = module.make_signature();
    for _ in 0..4 {
        sig.params.push(AbiParam::new(ptr));
    }
    let kernel_id = module
        .declare_function("jobsort_kernel", Linkage::Local, &sig)
        .map_err(cg)?;

    let simd = allow_simd && simd_eligible(ir);
    let mut ctx = module.make_context();
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(0, kernel_id.as_u32());
    let mut fctx = FunctionBuilderContext::new();
    let target = module.target_config();
    {
        let b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let mut g = Gen {
            b,
            ir,
            module: &mut module,
            declared: HashMap::new(),
            refs: HashMap::new(),
            ptr,
            cols: Vec::new(),
            off: None,
            err_ptr: None,
            err_block: None,
            memo: HashMap::new(),
            log: Vec::new(),
            hypot_slot: None,
            calls: None,
            vmemo: HashMap::new(),
            can_err: if simd {
                simd::can_err_table(ir)
            } else {
                Vec::new()
            },
        };
        g.kernel(simd)?;
        let Gen { b, .. } = g;
        b.finalize(target);
    }
    module
        .define_function(kernel_id, &mut ctx)
        .map_err(|e| JitError::Codegen(format!("{e:?}")))?;
    module.clear_context(&mut ctx);
    module.finalize_definitions().map_err(cg)?;
    let code = module.get_finalized_function(kernel_id);
    // SAFETY: the function was defined with exactly this signature (four pointer-sized args).
    let func: KernelFn = unsafe { std::mem::transmute::<*const u8, KernelFn>(code) };
    Ok(Kernel {
        func,
        inputs: ir.inputs.len(),
        simd,
        _code: Arc::new(CodeMemory(Some(module))),
    })
}

impl Gen<'_, '_> {
    fn kernel(&mut self, simd: bool) -> Result<(), JitError> {
        let ptr = self.ptr;
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.b.switch_to_block(entry);
        let params = self.b.block_params(entry).to_vec();
        let (cols_arg, n, outv, oute) = (params[0], params[1], params[2], params[3]);
        for k in 0..self.ir.inputs.len() {
            let c = self
                .b
                .ins()
                .load(ptr, flags_trusted(), cols_arg, (k * 8) as i32);
            self.cols.push(c);
        }
        // Largest hypot call, for one shared argument buffer.
        let hypot_max = self
            .ir
            .nodes
            .iter()
            .filter_map(|n| match &n.expr {
                Expr::Call(Func::Hypot, args) => Some(args.len()),
                _ => None,
            })
            .max();
        if simd {
            self.calls = simd::call_regions(&mut self.b, simd::call_count(self.ir));
        }
        if let Some(m) = hypot_max {
            let size = (m.max(1) * 8) as u32;
            let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                size,
                3,
            ));
            self.hypot_slot = Some((slot, m));
        }

        let scalar_head = self.b.create_block();
        self.b.append_block_param(scalar_head, ptr);
        let exit = self.b.create_block();
        let zero = self.b.ins().iconst(ptr, 0);

        if simd {
            self.simd_loop(n, outv, oute, scalar_head)?;
        } else {
            self.b.ins().jump(scalar_head, &[BlockArg::Value(zero)]);
        }

        // Scalar loop (whole table, or the SIMD tail).
        self.b.switch_to_block(scalar_head);
        let i = self.b.block_params(scalar_head)[0];
        let more = self.b.ins().icmp(IntCC::SignedLessThan, i, n);
        let body = self.b.create_block();
        self.b.ins().brif(more, body, &[], exit, &[]);

        self.b.switch_to_block(body);
        let off = self.b.ins().ishl_imm_u(i, 3);
        let errp = self.b.ins().iadd(oute, i);
        let vptr = self.b.ins().iadd(outv, off);
        let zero8 = self.b.ins().iconst(types::I8, 0);
        self.b.ins().store(flags_trusted(), zero8, errp, 0);
        let next_i = self.b.ins().iadd_imm_s(i, 1);
        let err_block = self.b.create_block();
        self.b.append_block_param(err_block, types::I8);
        self.off = Some(off);
        self.err_ptr = Some(errp);
        self.err_block = Some(err_block);
        self.memo.clear();
        self.log.clear();

        let v = self.scalar(self.ir.root)?;
        // Final value: finite, or NotFinite.
        let ok = self.b.create_block();
        let a = self.b.ins().fabs(v);
        let inf = self.b.ins().f64const(f64::INFINITY);
        let finite = self.b.ins().fcmp(FloatCC::LessThan, a, inf);
        let nf = self
            .b
            .ins()
            .iconst(types::I8, i64::from(EvalError::NotFinite.code()));
        self.b
            .ins()
            .brif(finite, ok, &[], err_block, &[BlockArg::Value(nf)]);
        self.b.switch_to_block(ok);
        self.b.ins().store(flags_trusted(), v, vptr, 0);
        self.b.ins().jump(scalar_head, &[BlockArg::Value(next_i)]);

        self.b.switch_to_block(err_block);
        let code = self.b.block_params(err_block)[0];
        self.b.ins().store(flags_trusted(), code, errp, 0);
        let pz = self.b.ins().f64const(0.0);
        self.b.ins().store(flags_trusted(), pz, vptr, 0);
        self.b.ins().jump(scalar_head, &[BlockArg::Value(next_i)]);

        self.b.switch_to_block(exit);
        self.b.ins().return_(&[]);
        self.b.seal_all_blocks();
        Ok(())
    }

    fn func_ref(&mut self, symbol: Symbol) -> Result<FuncRef, JitError> {
        if let Some(r) = self.refs.get(&symbol) {
            return Ok(*r);
        }
        let id = match self.declared.get(&symbol) {
            Some(id) => *id,
            None => {
                let mut sig = self.module.make_signature();
                match symbol.params() {
                    Params::Buffer => {
                        sig.params.push(AbiParam::new(self.ptr));
                        sig.params.push(AbiParam::new(self.ptr));
                    }
                    Params::F64(n) => {
                        for _ in 0..n {
                            sig.params.push(AbiParam::new(types::F64));
                        }
                    }
                    Params::Block => {
                        for _ in 0..4 {
                            sig.params.push(AbiParam::new(self.ptr));
                        }
                        for _ in 0..3 {
                            sig.params.push(AbiParam::new(types::F64));
                        }
                    }
                }
                if symbol.params() != Params::Block {
                    sig.params.push(AbiParam::new(self.ptr)); // err
                    sig.returns.push(AbiParam::new(types::F64));
                }
                let id = self
                    .module
                    .declare_function(symbol.name(), Linkage::Import, &sig)
                    .map_err(|e| JitError::Codegen(e.to_string()))?;
                self.declared.insert(symbol, id);
                id
            }
        };
        let r = self.module.declare_func_in_func(id, self.b.func);
        self.refs.insert(symbol, r);
        Ok(r)
    }

    fn remember(&mut self, id: NodeId, v: Value) {
        if self.memo.insert(id, v).is_none() {
            self.log.push(id);
        }
    }

    fn scope(&self) -> usize {
        self.log.len()
    }

    fn leave(&mut self, mark: usize) {
        for id in self.log.drain(mark..) {
            self.memo.remove(&id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Input, ResourceType};
    use crate::formula::interp;
    use crate::formula::ir::Ty;
    use crate::formula::syntax::{BinaryOp, CmpOp, Span};

    /// An empty arena reading two custom float columns `x` and `y`.
    fn empty_ir_over_x_and_y() -> Ir {
        Ir {
            nodes: vec![],
            root: NodeId(0),
            inputs: ["x", "y"]
                .map(|name| Input::Resource {
                    name: name.to_string(),
                    ty: ResourceType::Float,
                })
                .to_vec(),
        }
    }

    fn run(ir: &Ir, simd: bool, cols: &[Vec<f64>]) -> (Vec<f64>, Vec<u8>) {
        let k = compile_with(ir, simd).expect("compiles");
        let n = cols.first().map_or(3, Vec::len);
        let refs: Vec<&[f64]> = cols.iter().map(Vec::as_slice).collect();
        let mut v = vec![f64::NAN; n];
        let mut e = vec![99u8; n];
        assert!(k.run(&refs, n, &mut v, &mut e));
        (v, e)
    }

    fn oracle(ir: &Ir, cols: &[Vec<f64>]) -> (Vec<f64>, Vec<u8>) {
        let n = cols.first().map_or(3, Vec::len);
        (0..n)
            .map(|i| {
                let row: Vec<f64> = cols.iter().map(|c| c[i]).collect();
                match interp::eval_job(ir, &row) {
                    Ok(v) => (v, 0),
                    Err(e) => (0.0, e.code()),
                }
            })
            .unzip()
    }

    /// Division errors in the SIMD loop count only where Python evaluates the division.
    #[test]
    fn simd_masks_follow_short_circuit_and_branches() {
        let s = Span::default();
        let mut ir = empty_ir_over_x_and_y();
        let x = ir.push(Expr::Input(0), Ty::Num, s);
        let y = ir.push(Expr::Input(1), Ty::Num, s);
        let one = ir.push(Expr::Const(1.0), Ty::Num, s);
        let d = ir.push(Expr::Binary(BinaryOp::Div, one, y), Ty::Num, s);
        let roots = [
            Expr::Or(x, d),
            Expr::And(x, d),
            Expr::IfElse {
                cond: x,
                then: d,
                otherwise: one,
            },
            Expr::IfElse {
                cond: x,
                then: one,
                otherwise: d,
            },
            Expr::Compare {
                first: x,
                rest: vec![(CmpOp::Lt, one), (CmpOp::Lt, d)],
            },
            Expr::Compare {
                first: x,
                rest: vec![(CmpOp::Ge, one), (CmpOp::Lt, d)],
            },
        ];
        let cols = vec![
            vec![0.0, 1.0, 0.0, 1.0, -0.0, 2.0, 0.5],
            vec![0.0, 0.0, 2.0, 2.0, -0.0, -0.0, 0.0],
        ];
        for e in roots {
            ir.root = ir.push(e, Ty::Num, s);
            let want = oracle(&ir, &cols);
            let got = run(&ir, true, &cols);
            assert!(compile_with(&ir, true).unwrap().is_simd());
            assert_eq!(got.1, want.1, "{ir}");
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got.0), bits(&want.0), "{ir}");
        }
    }

    #[test]
    fn division_by_input_with_zero_errs_only_where_evaluated() {
        // x / y if y else 7
        let s = Span::default();
        let mut ir = empty_ir_over_x_and_y();
        let x = ir.push(Expr::Input(0), Ty::Num, s);
        let y = ir.push(Expr::Input(1), Ty::Num, s);
        let d = ir.push(Expr::Binary(BinaryOp::Div, x, y), Ty::Num, s);
        let seven = ir.push(Expr::Const(7.0), Ty::Num, s);
        let plain = ir.push(Expr::Binary(BinaryOp::Div, x, y), Ty::Num, s);
        let ife = ir.push(
            Expr::IfElse {
                cond: y,
                then: d,
                otherwise: seven,
            },
            Ty::Num,
            s,
        );
        let cols = vec![
            vec![1.0, 2.0, -0.0, 5.0, 1.0],
            vec![2.0, 0.0, 0.0, -0.0, 1e-310],
        ];
        for root in [ife, plain] {
            ir.root = root;
            for simd in [false, true] {
                let got = run(&ir, simd, &cols);
                let want = oracle(&ir, &cols);
                assert_eq!(got.1, want.1);
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got.0), bits(&want.0));
            }
        }
    }
}
