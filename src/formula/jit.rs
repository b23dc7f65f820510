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
//! - **f64x2 SIMD main loop + the scalar tail** when the formula only uses inline operations
//!   (no calls into Rust): both sides of every branch are computed and merged with masks, and
//!   each division's zero check is masked by the condition under which Python evaluates it.
//!   Division by zero is then the only possible error before the final finiteness check, so
//!   the first-error rule holds trivially.
//!
//! Architecture invariant: this is the only module that depends on Cranelift, and it agrees
//! with [`super::interp`] bit for bit on every value and error code (property-tested in
//! `tests/jit_proptest.rs`).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    AbiParam, Block, BlockArg, Endianness, FuncRef, InstBuilder, MemFlagsData, StackSlotData,
    StackSlotKind, Type, UserFuncName, Value, types,
};
use cranelift_codegen::isa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{FuncId, Linkage, Module, default_libcall_names};

use super::ir::{BinaryOp, CmpOp, Expr, Func, Ir, NodeId, UnaryOp};
use super::pymath::{EvalError, ffi};

/// Why a formula could not be compiled to native code (the caller falls back to the
/// interpreter).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JitError {
    /// Cranelift does not support this machine.
    #[error("Cranelift does not support this host: {0}")]
    UnsupportedHost(String),
    /// Code generation failed (a bug; reported rather than panicking).
    #[error("Cranelift code generation failed: {0}")]
    Codegen(String),
}

type KernelFn = unsafe extern "C" fn(*const *const f64, i64, *mut f64, *mut u8);

/// Owns the JIT's code memory. Freed only when the last [`Kernel`] clone is dropped, so code
/// is never freed while it can still be called.
struct CodeMemory(Option<JITModule>);

// SAFETY: after `finalize_definitions` the module is never touched again except to free it in
// `Drop`, which runs once, when no kernel can call into it any more; the generated code only
// reads its arguments and calls thread-safe functions (`pymath::ffi`, libm).
unsafe impl Send for CodeMemory {}
// SAFETY: as above; `&CodeMemory` gives no access to the module.
unsafe impl Sync for CodeMemory {}

impl Drop for CodeMemory {
    fn drop(&mut self) {
        if let Some(module) = self.0.take() {
            // SAFETY: the last owner is going away, so no kernel pointer into this memory can
            // be called any more.
            unsafe { module.free_memory() };
        }
    }
}

/// A compiled formula kernel. Cheap to clone; `Send + Sync`.
#[derive(Clone)]
pub struct Kernel {
    func: KernelFn,
    inputs: usize,
    simd: bool,
    _code: Arc<CodeMemory>,
}

impl fmt::Debug for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Kernel")
            .field("inputs", &self.inputs)
            .field("simd", &self.simd)
            .finish()
    }
}

impl Kernel {
    /// Whether the kernel has the f64x2 SIMD main loop.
    pub fn is_simd(&self) -> bool {
        self.simd
    }

    /// Number of input columns the kernel reads.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Run over `n` jobs. Returns `false` (and does nothing) when the slices are too short or
    /// the column count is wrong.
    pub fn run(&self, columns: &[&[f64]], n: usize, values: &mut [f64], errors: &mut [u8]) -> bool {
        if columns.len() != self.inputs
            || columns.iter().any(|c| c.len() < n)
            || values.len() < n
            || errors.len() < n
            || i64::try_from(n).is_err()
        {
            return false;
        }
        if n == 0 {
            return true;
        }
        // The column pointers, on the stack for the usual few inputs. A trailing null keeps
        // the array non-empty even with no input columns (the kernel never reads past
        // `ptrs[inputs - 1]`).
        let mut few = [std::ptr::null::<f64>(); 9];
        let many: Vec<*const f64>;
        let ptrs: &[*const f64] = if columns.len() < few.len() {
            for (p, c) in few.iter_mut().zip(columns) {
                *p = c.as_ptr();
            }
            &few[..=columns.len()]
        } else {
            many = columns
                .iter()
                .map(|c| c.as_ptr())
                .chain([std::ptr::null()])
                .collect();
            &many
        };
        // SAFETY: every column holds at least `n` values and both outputs have room for `n`;
        // the kernel reads `ptrs[k][0..n]` and writes `values[0..n]`, `errors[0..n]` only.
        unsafe {
            (self.func)(
                ptrs.as_ptr(),
                n as i64,
                values.as_mut_ptr(),
                errors.as_mut_ptr(),
            )
        };
        true
    }
}

/// Code memory that is recycled, never unmapped (x86-64 Linux).
///
/// Cranelift's default provider `munmap`s a module's pages in `free_memory`, so the next
/// kernel is usually mapped at the very same virtual address on a *new* physical page. A
/// stale instruction translation for that address (the CPU or, under nested virtualisation,
/// the hypervisor missing a TLB shootdown) then runs the previous kernel's bytes — which, for
/// two formulas of the same shape, computes the other formula's value (the once-seen flake:
/// `(1 % 1.5) or 0` giving 0, the value of `(1 // 1.5) or 0` or `(0 % 1.5) or 0`, both
/// compiled just before it while proptest shrank). Recycling keeps every code address bound
/// to the same physical page for the life of the process: a page is only rewritten (after
/// `mprotect` RW, then RX again, which x86 keeps coherent for the same address space) once
/// the kernel that used it is gone. Memory stays bounded by the peak of live kernels; it also
/// saves the `mmap`/`munmap` and page faults of every compile.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
mod code_pool {
    use cranelift_jit::{BranchProtection, JITMemoryKind, JITMemoryProvider};
    use cranelift_module::{ModuleError, ModuleResult};
    use std::io;
    use std::sync::Mutex;

    const PAGE: usize = 4096;
    const PROT_READ: i32 = 1;
    const PROT_WRITE: i32 = 2;
    const PROT_EXEC: i32 = 4;
    const MAP_PRIVATE: i32 = 2;
    const MAP_ANONYMOUS: i32 = 0x20;

    unsafe extern "C" {
        fn mmap(addr: *mut u8, len: usize, prot: i32, flags: i32, fd: i32, off: i64) -> *mut u8;
        fn mprotect(addr: *mut u8, len: usize, prot: i32) -> i32;
    }

    /// A page-aligned run of pages: `(address, length)`.
    #[derive(Clone, Copy)]
    struct Chunk(usize, usize);

    /// Chunks whose kernels are gone, ready for reuse (never returned to the OS).
    static FREE: Mutex<Vec<Chunk>> = Mutex::new(Vec::new());

    fn protect(c: Chunk, prot: i32) -> io::Result<()> {
        // SAFETY: `c` is a whole-page range this pool mapped and owns exclusively.
        if unsafe { mprotect(c.0 as *mut u8, c.1, prot) } == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    /// The memory of one `JITModule`: chunks taken from the pool (or freshly mapped).
    #[derive(Default)]
    pub(super) struct PooledMemory {
        chunks: Vec<Chunk>,
        /// Bytes used in the last chunk.
        used: usize,
        /// Chunks `..finalized` are read+execute already.
        finalized: usize,
    }

    impl PooledMemory {
        fn take_chunk(&mut self, size: usize) -> io::Result<Chunk> {
            let len = size.div_ceil(PAGE).max(1) * PAGE;
            let reused = {
                let mut free = FREE.lock().unwrap_or_else(|p| p.into_inner());
                free.iter()
                    .position(|c| c.1 >= len)
                    .map(|k| free.swap_remove(k))
            };
            let chunk = match reused {
                Some(c) => {
                    if let Err(e) = protect(c, PROT_READ | PROT_WRITE) {
                        FREE.lock().unwrap_or_else(|p| p.into_inner()).push(c);
                        return Err(e);
                    }
                    c
                }
                None => {
                    // SAFETY: a fresh private anonymous mapping; no existing memory is touched.
                    let p = unsafe {
                        mmap(
                            std::ptr::null_mut(),
                            len,
                            PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS,
                            -1,
                            0,
                        )
                    };
                    if p as isize == -1 || p.is_null() {
                        return Err(io::Error::last_os_error());
                    }
                    Chunk(p as usize, len)
                }
            };
            self.chunks.push(chunk);
            self.used = 0;
            Ok(chunk)
        }

        fn release(&mut self) {
            let mut free = FREE.lock().unwrap_or_else(|p| p.into_inner());
            free.append(&mut self.chunks);
            self.used = 0;
            self.finalized = 0;
        }
    }

    impl JITMemoryProvider for PooledMemory {
        fn allocate(
            &mut self,
            size: usize,
            align: u64,
            kind: JITMemoryKind,
        ) -> io::Result<*mut u8> {
            if matches!(kind, JITMemoryKind::Writable) {
                // Kernels define no data objects; writable memory would become read-only.
                return Err(io::Error::other("the formula JIT has no writable data"));
            }
            let align = usize::try_from(align).unwrap_or(usize::MAX);
            if align == 0 || !align.is_power_of_two() || align > PAGE {
                return Err(io::Error::other("unsupported alignment"));
            }
            let open = self.chunks.len() > self.finalized;
            if let (true, Some(&c)) = (open, self.chunks.last()) {
                let at = self.used.div_ceil(align) * align;
                if at + size <= c.1 {
                    self.used = at + size;
                    return Ok((c.0 + at) as *mut u8);
                }
            }
            let c = self.take_chunk(size)?;
            self.used = size;
            Ok(c.0 as *mut u8)
        }

        unsafe fn free_memory(&mut self) {
            self.release();
        }

        fn finalize(&mut self, _: BranchProtection) -> ModuleResult<()> {
            for &c in &self.chunks[self.finalized..] {
                protect(c, PROT_READ | PROT_EXEC).map_err(|err| ModuleError::Allocation { err })?;
            }
            self.finalized = self.chunks.len();
            Ok(())
        }
    }

    impl Drop for PooledMemory {
        /// Only reached without `free_memory` when compilation failed, before any code could
        /// run; the chunks are then safe to recycle.
        fn drop(&mut self) {
            self.release();
        }
    }
}

/// The `extern "C"` functions the generated code may call, by symbol name.
fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![
        ("jobsort_sqrt", ffi::jobsort_sqrt as *const u8),
        ("jobsort_exp", ffi::jobsort_exp as *const u8),
        ("jobsort_expm1", ffi::jobsort_expm1 as *const u8),
        ("jobsort_log", ffi::jobsort_log as *const u8),
        ("jobsort_log10", ffi::jobsort_log10 as *const u8),
        ("jobsort_log2", ffi::jobsort_log2 as *const u8),
        ("jobsort_log1p", ffi::jobsort_log1p as *const u8),
        ("jobsort_sin", ffi::jobsort_sin as *const u8),
        ("jobsort_cos", ffi::jobsort_cos as *const u8),
        ("jobsort_tan", ffi::jobsort_tan as *const u8),
        ("jobsort_asin", ffi::jobsort_asin as *const u8),
        ("jobsort_acos", ffi::jobsort_acos as *const u8),
        ("jobsort_atan", ffi::jobsort_atan as *const u8),
        ("jobsort_sinh", ffi::jobsort_sinh as *const u8),
        ("jobsort_cosh", ffi::jobsort_cosh as *const u8),
        ("jobsort_tanh", ffi::jobsort_tanh as *const u8),
        ("jobsort_floor", ffi::jobsort_floor as *const u8),
        ("jobsort_ceil", ffi::jobsort_ceil as *const u8),
        ("jobsort_trunc", ffi::jobsort_trunc as *const u8),
        ("jobsort_round", ffi::jobsort_round as *const u8),
        ("jobsort_floor_div", ffi::jobsort_floor_div as *const u8),
        ("jobsort_rem", ffi::jobsort_rem as *const u8),
        ("jobsort_float_pow", ffi::jobsort_float_pow as *const u8),
        ("jobsort_math_pow", ffi::jobsort_math_pow as *const u8),
        ("jobsort_log_base", ffi::jobsort_log_base as *const u8),
        (
            "jobsort_round_ndigits",
            ffi::jobsort_round_ndigits as *const u8,
        ),
        ("jobsort_fmod", ffi::jobsort_fmod as *const u8),
        ("jobsort_atan2", ffi::jobsort_atan2 as *const u8),
        ("jobsort_hypot", ffi::jobsort_hypot as *const u8),
    ]
}

/// The ffi symbol a call goes to, with its number of f64 arguments (`None`: inline).
fn callee(func: Func, nargs: usize) -> Option<(&'static str, usize)> {
    Some(match func {
        Func::Abs
        | Func::Fabs
        | Func::Min
        | Func::Max
        | Func::Copysign
        | Func::Degrees
        | Func::Radians => return None,
        Func::Hypot => ("jobsort_hypot", usize::MAX),
        Func::Pow => ("jobsort_math_pow", 2),
        Func::Sqrt => ("jobsort_sqrt", 1),
        Func::Exp => ("jobsort_exp", 1),
        Func::Expm1 => ("jobsort_expm1", 1),
        Func::Log if nargs == 2 => ("jobsort_log_base", 2),
        Func::Log => ("jobsort_log", 1),
        Func::Log10 => ("jobsort_log10", 1),
        Func::Log2 => ("jobsort_log2", 1),
        Func::Log1p => ("jobsort_log1p", 1),
        Func::Ceil => ("jobsort_ceil", 1),
        Func::Floor => ("jobsort_floor", 1),
        Func::Trunc => ("jobsort_trunc", 1),
        Func::Round if nargs == 2 => ("jobsort_round_ndigits", 2),
        Func::Round => ("jobsort_round", 1),
        Func::Fmod => ("jobsort_fmod", 2),
        Func::Sin => ("jobsort_sin", 1),
        Func::Cos => ("jobsort_cos", 1),
        Func::Tan => ("jobsort_tan", 1),
        Func::Asin => ("jobsort_asin", 1),
        Func::Acos => ("jobsort_acos", 1),
        Func::Atan => ("jobsort_atan", 1),
        Func::Atan2 => ("jobsort_atan2", 2),
        Func::Sinh => ("jobsort_sinh", 1),
        Func::Cosh => ("jobsort_cosh", 1),
        Func::Tanh => ("jobsort_tanh", 1),
    })
}

const DEG_PER_RAD: f64 = 180.0 / std::f64::consts::PI;
const RAD_PER_DEG: f64 = std::f64::consts::PI / 180.0;

/// Whether every operation of the formula is inline and SIMD-able.
fn simd_eligible(ir: &Ir) -> bool {
    ir.nodes.iter().all(|n| match &n.expr {
        Expr::Binary(op, _, _) => matches!(
            op,
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div
        ),
        Expr::Call(f, _) => matches!(
            f,
            Func::Abs | Func::Fabs | Func::Min | Func::Max | Func::Degrees | Func::Radians
        ),
        _ => true,
    })
}

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
    for (name, ptr) in symbols() {
        jb.symbol(name, ptr);
    }
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    jb.memory_provider(Box::<code_pool::PooledMemory>::default());
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

struct Gen<'a, 'm> {
    b: FunctionBuilder<'a>,
    ir: &'a Ir,
    module: &'m mut JITModule,
    declared: HashMap<&'static str, FuncId>,
    refs: HashMap<&'static str, FuncRef>,
    ptr: Type,
    /// Base pointer of each input column.
    cols: Vec<Value>,
    /// Byte offset of the current job (`i * 8`).
    off: Option<Value>,
    /// `out_errors + i` for the current job (scalar code).
    err_ptr: Option<Value>,
    /// The current job's error exit (scalar code), taking the error code.
    err_block: Option<Block>,
    /// Values computed in blocks that dominate the current point (scalar) or anywhere in the
    /// straight-line vector body.
    memo: HashMap<NodeId, Value>,
    /// Undo log of `memo` insertions, for leaving conditional regions.
    log: Vec<NodeId>,
    hypot_slot: Option<(cranelift_codegen::ir::StackSlot, usize)>,
}

fn flags_trusted() -> MemFlagsData {
    MemFlagsData::trusted()
}
fn flags_unaligned() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

fn float_cc(op: CmpOp) -> FloatCC {
    match op {
        CmpOp::Lt => FloatCC::LessThan,
        CmpOp::Le => FloatCC::LessThanOrEqual,
        CmpOp::Gt => FloatCC::GreaterThan,
        CmpOp::Ge => FloatCC::GreaterThanOrEqual,
        CmpOp::Eq => FloatCC::Equal,
        CmpOp::Ne => FloatCC::NotEqual,
    }
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
            let vec_head = self.b.create_block();
            self.b.append_block_param(vec_head, ptr);
            let vec_body = self.b.create_block();
            let nvec = self.b.ins().band_imm_s(n, -2);
            self.b.ins().jump(vec_head, &[BlockArg::Value(zero)]);

            self.b.switch_to_block(vec_head);
            let i = self.b.block_params(vec_head)[0];
            let more = self.b.ins().icmp(IntCC::SignedLessThan, i, nvec);
            self.b
                .ins()
                .brif(more, vec_body, &[], scalar_head, &[BlockArg::Value(i)]);

            self.b.switch_to_block(vec_body);
            let off = self.b.ins().ishl_imm_u(i, 3);
            self.off = Some(off);
            self.memo.clear();
            self.log.clear();
            self.vector_job(off, i, outv, oute);
            let next = self.b.ins().iadd_imm_s(i, 2);
            self.b.ins().jump(vec_head, &[BlockArg::Value(next)]);
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

    fn func_ref(&mut self, name: &'static str, nargs: usize) -> Result<FuncRef, JitError> {
        if let Some(r) = self.refs.get(name) {
            return Ok(*r);
        }
        let id = match self.declared.get(name) {
            Some(id) => *id,
            None => {
                let mut sig = self.module.make_signature();
                if nargs == usize::MAX {
                    // hypot(args: *const f64, n: usize, err: *mut u8)
                    sig.params.push(AbiParam::new(self.ptr));
                    sig.params.push(AbiParam::new(self.ptr));
                } else {
                    for _ in 0..nargs {
                        sig.params.push(AbiParam::new(types::F64));
                    }
                }
                sig.params.push(AbiParam::new(self.ptr));
                sig.returns.push(AbiParam::new(types::F64));
                let id = self
                    .module
                    .declare_function(name, Linkage::Import, &sig)
                    .map_err(|e| JitError::Codegen(e.to_string()))?;
                self.declared.insert(name, id);
                id
            }
        };
        let r = self.module.declare_func_in_func(id, self.b.func);
        self.refs.insert(name, r);
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

    /// Jump to the error exit with `code` when `cond` is nonzero; continue in a new block.
    fn fail_if(&mut self, cond: Value, code: Value) {
        let cont = self.b.create_block();
        let err = self.err_block.expect("scalar code has an error exit");
        self.b
            .ins()
            .brif(cond, err, &[BlockArg::Value(code)], cont, &[]);
        self.b.switch_to_block(cont);
    }

    /// Call an ffi wrapper and leave through the error exit if it reported an error.
    fn call_checked(&mut self, name: &'static str, args: &[Value]) -> Result<Value, JitError> {
        let nargs = if name == "jobsort_hypot" {
            usize::MAX
        } else {
            args.len()
        };
        let f = self.func_ref(name, nargs)?;
        let errp = self.err_ptr.expect("scalar code has an error pointer");
        let mut all = args.to_vec();
        all.push(errp);
        let call = self.b.ins().call(f, &all);
        let r = self.b.inst_results(call)[0];
        let code = self.b.ins().load(types::I8, flags_trusted(), errp, 0);
        self.fail_if(code, code);
        Ok(r)
    }

    fn truthy(&mut self, v: Value) -> Value {
        let z = self.b.ins().f64const(0.0);
        self.b.ins().fcmp(FloatCC::NotEqual, v, z)
    }

    fn bool_to_f64(&mut self, c: Value) -> Value {
        let one = self.b.ins().f64const(1.0);
        let z = self.b.ins().f64const(0.0);
        self.b.ins().select(c, one, z)
    }

    /// Emit scalar code for `id` at the current point (may create blocks).
    fn scalar(&mut self, id: NodeId) -> Result<Value, JitError> {
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
            Expr::Binary(op, a, bn) => {
                let x = self.scalar(*a)?;
                let y = self.scalar(*bn)?;
                match op {
                    BinaryOp::Add => self.b.ins().fadd(x, y),
                    BinaryOp::Sub => self.b.ins().fsub(x, y),
                    BinaryOp::Mul => self.b.ins().fmul(x, y),
                    BinaryOp::Div => {
                        let nonzero_const =
                            matches!(ir.node(*bn).expr, Expr::Const(c) if c != 0.0 && !c.is_nan());
                        if !nonzero_const {
                            let z = self.b.ins().f64const(0.0);
                            let is_zero = self.b.ins().fcmp(FloatCC::Equal, y, z);
                            let code = self.b.ins().iconst(
                                types::I8,
                                i64::from(EvalError::FloatDivisionByZero.code()),
                            );
                            self.fail_if(is_zero, code);
                        }
                        self.b.ins().fdiv(x, y)
                    }
                    BinaryOp::FloorDiv => self.call_checked("jobsort_floor_div", &[x, y])?,
                    BinaryOp::Mod => self.call_checked("jobsort_rem", &[x, y])?,
                    BinaryOp::Pow => self.call_checked("jobsort_float_pow", &[x, y])?,
                }
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
            Expr::And(a, bn) | Expr::Or(a, bn) => {
                let is_and = matches!(ir.node(id).expr, Expr::And(..));
                let va = self.scalar(*a)?;
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
                let vb = self.scalar(*bn)?;
                self.leave(mark);
                self.b.ins().jump(merge, &[BlockArg::Value(vb)]);
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

    fn scalar_call(&mut self, func: Func, vals: &[Value]) -> Result<Value, JitError> {
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
            Some(("jobsort_hypot", _)) => {
                let (slot, _) = self.hypot_slot.ok_or_else(bad_arity)?;
                for (k, v) in vals.iter().enumerate() {
                    self.b.ins().stack_store(self.ptr, *v, slot, (k * 8) as i32);
                }
                let addr = self.b.ins().stack_addr(self.ptr, slot, 0);
                let n = self.b.ins().iconst(self.ptr, vals.len() as i64);
                self.call_checked("jobsort_hypot", &[addr, n])
            }
            Some((name, n)) => {
                if n != vals.len() {
                    return Err(bad_arity());
                }
                self.call_checked(name, vals)
            }
        }
    }

    // ---- f64x2 code: straight line, masks instead of branches ----

    fn splat(&mut self, c: f64) -> Value {
        let s = self.b.ins().f64const(c);
        self.b.ins().splat(types::F64X2, s)
    }

    fn mask_to_f64(&mut self, m: Value) -> Value {
        self.b.ins().bitcast(
            types::F64X2,
            MemFlagsData::new().with_endianness(Endianness::Little),
            m,
        )
    }

    /// `m ? a : b` lane-wise (`m` an i64x2 mask).
    fn vselect(&mut self, m: Value, a: Value, b: Value) -> Value {
        let mf = self.mask_to_f64(m);
        self.b.ins().bitselect(mf, a, b)
    }

    fn and_mask(&mut self, ctx: Option<Value>, m: Value) -> Value {
        match ctx {
            Some(c) => self.b.ins().band(c, m),
            None => m,
        }
    }

    fn vector_job(&mut self, off: Value, i: Value, outv: Value, oute: Value) {
        let mut err: Option<Value> = None;
        let v = self.vector(self.ir.root, None, &mut err);
        let a = self.b.ins().fabs(v);
        let inf = self.splat(f64::INFINITY);
        let finite = self.b.ins().fcmp(FloatCC::LessThan, a, inf);
        let ok = match err {
            Some(e) => self.b.ins().band_not(finite, e),
            None => finite,
        };
        let zero = self.splat(0.0);
        let out = self.vselect(ok, v, zero);
        let vp = self.b.ins().iadd(outv, off);
        self.b.ins().store(flags_unaligned(), out, vp, 0);
        // Codes: 1 where a division erred, else 11 where not finite, else 0.
        let nf = self
            .b
            .ins()
            .iconst(types::I64, i64::from(EvalError::NotFinite.code()));
        let nf = self.b.ins().splat(types::I64X2, nf);
        let z = self.b.ins().iconst(types::I64, 0);
        let zv = self.b.ins().splat(types::I64X2, z);
        let mut code = self.b.ins().bitselect(finite, zv, nf);
        if let Some(e) = err {
            let dz = self
                .b
                .ins()
                .iconst(types::I64, i64::from(EvalError::FloatDivisionByZero.code()));
            let dz = self.b.ins().splat(types::I64X2, dz);
            code = self.b.ins().bitselect(e, dz, code);
        }
        // Errors are rare: store two zero bytes at once unless a lane failed.
        let ep = self.b.ins().iadd(oute, i);
        let bad = self.b.ins().bnot(ok);
        let any = self.b.ins().vany_true(bad);
        let slow = self.b.create_block();
        let fast = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(any, slow, &[], fast, &[]);
        self.b.switch_to_block(fast);
        let z16 = self.b.ins().iconst(types::I16, 0);
        self.b.ins().store(flags_unaligned(), z16, ep, 0);
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(slow);
        for lane in 0..2u8 {
            let c = self.b.ins().extractlane(code, lane);
            self.b
                .ins()
                .istore8(flags_trusted(), c, ep, i32::from(lane));
        }
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
    }

    /// Whether a node's subtree can raise (a division): such nodes are not shared between
    /// mask contexts.
    fn can_err(&self, id: NodeId) -> bool {
        let mut stack = vec![id];
        while let Some(n) = stack.pop() {
            match &self.ir.node(n).expr {
                Expr::Binary(BinaryOp::Div, _, d) => {
                    let safe =
                        matches!(self.ir.node(*d).expr, Expr::Const(c) if c != 0.0 && !c.is_nan());
                    if !safe {
                        return true;
                    }
                    stack.extend(super::ir::expr_children(&self.ir.node(n).expr));
                }
                e => stack.extend(super::ir::expr_children(e)),
            }
        }
        false
    }

    /// Emit f64x2 code for `id` evaluated under lane mask `ctx` (`None`: all lanes), OR-ing
    /// masked division-by-zero lanes into `err`.
    fn vector(&mut self, id: NodeId, ctx: Option<Value>, err: &mut Option<Value>) -> Value {
        if let Some(v) = self.memo.get(&id) {
            return *v;
        }
        let ir = self.ir;
        let v = match &ir.node(id).expr {
            Expr::Const(c) => self.splat(*c),
            Expr::Input(k) => {
                let off = self.off.expect("inside the loop");
                let p = self.b.ins().iadd(self.cols[*k as usize], off);
                self.b.ins().load(types::F64X2, flags_unaligned(), p, 0)
            }
            Expr::Unary(op, a) => {
                let a = self.vector(*a, ctx, err);
                match op {
                    UnaryOp::Neg => self.b.ins().fneg(a),
                    UnaryOp::Pos => a,
                    UnaryOp::Not => {
                        let z = self.splat(0.0);
                        let c = self.b.ins().fcmp(FloatCC::Equal, a, z);
                        let one = self.splat(1.0);
                        self.vselect(c, one, z)
                    }
                }
            }
            Expr::Binary(op, a, d) => {
                let x = self.vector(*a, ctx, err);
                let y = self.vector(*d, ctx, err);
                match op {
                    BinaryOp::Add => self.b.ins().fadd(x, y),
                    BinaryOp::Sub => self.b.ins().fsub(x, y),
                    BinaryOp::Mul => self.b.ins().fmul(x, y),
                    _ => {
                        let nonzero_const =
                            matches!(ir.node(*d).expr, Expr::Const(c) if c != 0.0 && !c.is_nan());
                        if !nonzero_const {
                            let z = self.splat(0.0);
                            let is_zero = self.b.ins().fcmp(FloatCC::Equal, y, z);
                            let e = self.and_mask(ctx, is_zero);
                            *err = Some(match *err {
                                Some(old) => self.b.ins().bor(old, e),
                                None => e,
                            });
                        }
                        self.b.ins().fdiv(x, y)
                    }
                }
            }
            Expr::Compare { first, rest } => {
                let mut lhs = self.vector(*first, ctx, err);
                let mut all: Option<Value> = None;
                for (op, n) in rest {
                    let inner = match all {
                        Some(m) => Some(self.and_mask(ctx, m)),
                        None => ctx,
                    };
                    let rhs = self.vector(*n, inner, err);
                    let c = self.b.ins().fcmp(float_cc(*op), lhs, rhs);
                    all = Some(match all {
                        Some(m) => self.b.ins().band(m, c),
                        None => c,
                    });
                    lhs = rhs;
                }
                let one = self.splat(1.0);
                let z = self.splat(0.0);
                match all {
                    Some(m) => self.vselect(m, one, z),
                    None => one,
                }
            }
            Expr::And(a, d) | Expr::Or(a, d) => {
                let is_and = matches!(ir.node(id).expr, Expr::And(..));
                let va = self.vector(*a, ctx, err);
                let z = self.splat(0.0);
                let t = self.b.ins().fcmp(FloatCC::NotEqual, va, z);
                let taken = if is_and { t } else { self.b.ins().bnot(t) };
                let inner = self.and_mask(ctx, taken);
                let vb = self.vector(*d, Some(inner), err);
                if is_and {
                    self.vselect(t, vb, va)
                } else {
                    self.vselect(t, va, vb)
                }
            }
            Expr::IfElse {
                cond,
                then,
                otherwise,
            } => {
                let vc = self.vector(*cond, ctx, err);
                let z = self.splat(0.0);
                let t = self.b.ins().fcmp(FloatCC::NotEqual, vc, z);
                let f = self.b.ins().bnot(t);
                let ct = self.and_mask(ctx, t);
                let cf = self.and_mask(ctx, f);
                let vt = self.vector(*then, Some(ct), err);
                let vf = self.vector(*otherwise, Some(cf), err);
                self.vselect(t, vt, vf)
            }
            Expr::Call(func, args) => {
                let vals: Vec<Value> = args.iter().map(|a| self.vector(*a, ctx, err)).collect();
                let x = vals[0];
                match func {
                    Func::Degrees => {
                        let k = self.splat(DEG_PER_RAD);
                        self.b.ins().fmul(x, k)
                    }
                    Func::Radians => {
                        let k = self.splat(RAD_PER_DEG);
                        self.b.ins().fmul(x, k)
                    }
                    Func::Min | Func::Max => {
                        let cc = if *func == Func::Min {
                            FloatCC::LessThan
                        } else {
                            FloatCC::GreaterThan
                        };
                        let mut best = x;
                        for &v in &vals[1..] {
                            let c = self.b.ins().fcmp(cc, v, best);
                            best = self.vselect(c, v, best);
                        }
                        best
                    }
                    // Abs | Fabs (simd_eligible admits nothing else)
                    _ => self.b.ins().fabs(x),
                }
            }
        };
        if !self.can_err(id) {
            self.remember(id, v);
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::catalog::{Input, ResourceType};
    use crate::formula::interp;
    use crate::formula::ir::{CmpOp, Span, Ty};

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
        let mut ir = Ir {
            nodes: vec![],
            root: NodeId(0),
            inputs: ["x", "y"]
                .map(|name| Input::Resource {
                    name: name.to_string(),
                    ty: ResourceType::Float,
                })
                .to_vec(),
        };
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
        let mut ir = Ir {
            nodes: vec![],
            root: NodeId(0),
            inputs: ["x", "y"]
                .map(|name| Input::Resource {
                    name: name.to_string(),
                    ty: ResourceType::Float,
                })
                .to_vec(),
        };
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
