//! What the scalar and SIMD code generators share: the generator state ([`Gen`]), the
//! memory flags of column loads, comparison codes, angle constants, and [`JitError`].

use std::collections::HashMap;

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{Block, FuncRef, MemFlagsData, StackSlot, Type, Value};
use cranelift_frontend::FunctionBuilder;
use cranelift_jit::JITModule;
use cranelift_module::FuncId;

use super::ffi::{Symbol, VectorCall};
use crate::formula::ir::{Ir, NodeId};
use crate::formula::syntax::CmpOp;
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

pub(super) const DEG_PER_RAD: f64 = 180.0 / std::f64::consts::PI;
pub(super) const RAD_PER_DEG: f64 = std::f64::consts::PI / 180.0;

/// A value in the SIMD loop: one f64x2 (or i64x2 mask) per half of the step's four jobs.
pub(super) type V = [Value; 2];

pub(super) struct Gen<'a, 'm> {
    pub(super) b: FunctionBuilder<'a>,
    pub(super) ir: &'a Ir,
    pub(super) module: &'m mut JITModule,
    pub(super) declared: HashMap<Symbol, FuncId>,
    pub(super) refs: HashMap<Symbol, FuncRef>,
    pub(super) ptr: Type,
    /// Base pointer of each input column.
    pub(super) cols: Vec<Value>,
    /// Byte offset of the current job (`i * 8`).
    pub(super) off: Option<Value>,
    /// `out_errors + i` for the current job (scalar code).
    pub(super) err_ptr: Option<Value>,
    /// The current job's error exit (scalar code), taking the error code.
    pub(super) err_block: Option<Block>,
    /// Values computed in blocks that dominate the current point (scalar) or anywhere in the
    /// straight-line vector body.
    pub(super) memo: HashMap<NodeId, Value>,
    /// Undo log of `memo` insertions, for leaving conditional regions.
    pub(super) log: Vec<NodeId>,
    pub(super) hypot_slot: Option<(cranelift_codegen::ir::StackSlot, usize)>,
    /// The SIMD loop's calls, when it has some.
    pub(super) calls: Option<Calls>,
    /// Values computed in the current SIMD step (straight-line code).
    pub(super) vmemo: HashMap<NodeId, V>,
    /// Per node, whether its subtree can raise (SIMD code only; empty for scalar code).
    pub(super) can_err: Vec<bool>,
}

/// Where the SIMD loop's calls keep their lanes: one region per call in the step's code (in
/// the order the code generator reaches them), each `lanes` values of `x`, then of `y`, then
/// `lanes` error codes. See the `simd` module.
pub(super) struct Calls {
    pub(super) slot: StackSlot,
    /// Lanes per region: a block's jobs when staged, else the step's four.
    pub(super) lanes: usize,
    /// Staged: each call runs once per block, after a pass over the block's jobs that stores
    /// its operands; else each call runs at once on the step's four lanes.
    pub(super) staged: bool,
    /// The number of calls in the step's code.
    pub(super) count: usize,
    /// Calls reached so far in the current pass.
    pub(super) next: usize,
    /// The call at which the current pass stops once its operands are stored (`None`: the
    /// pass that computes the formula).
    pub(super) stop_at: Option<usize>,
    /// The current pass has stored `stop_at`'s operands, and that call: nothing more of the
    /// pass is emitted.
    pub(super) stopped: Option<VectorCall>,
    /// Byte offset of the step's first job in each region (`(i - block start) * 8`); `None`
    /// when not staged.
    pub(super) lane_off: Option<Value>,
}

impl Calls {
    /// Byte offsets of call `j`'s operands `x`, `y` and codes in the slot.
    pub(super) fn region(&self, j: usize) -> [i32; 3] {
        let l = 8 * self.lanes as i32;
        let at = 3 * l * j as i32;
        [at, at + l, at + 2 * l]
    }
}

pub(super) fn flags_trusted() -> MemFlagsData {
    MemFlagsData::trusted()
}
pub(super) fn flags_unaligned() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

pub(super) fn float_cc(op: CmpOp) -> FloatCC {
    match op {
        CmpOp::Lt => FloatCC::LessThan,
        CmpOp::Le => FloatCC::LessThanOrEqual,
        CmpOp::Gt => FloatCC::GreaterThan,
        CmpOp::Ge => FloatCC::GreaterThanOrEqual,
        CmpOp::Eq => FloatCC::Equal,
        CmpOp::Ne => FloatCC::NotEqual,
    }
}
