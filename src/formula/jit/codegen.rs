//! What the scalar and SIMD code generators share: the generator state ([`Gen`]), the
//! memory flags of column loads, comparison codes, angle constants, and [`JitError`].

use std::collections::HashMap;

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{Block, FuncRef, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;
use cranelift_jit::JITModule;
use cranelift_module::FuncId;

use super::ffi::Symbol;
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

/// A value in the SIMD loop: one f64x2 (or i64x2 mask) per half; with one half the second
/// entry repeats the first and is never used.
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
    /// The [`Step`](crate::formula::pymath::vector::Step) of the SIMD loop's calls.
    pub(super) step_slot: Option<cranelift_codegen::ir::StackSlot>,
    /// f64x2 vectors per SIMD step: 1 (two jobs), or 2 (four jobs) with vector calls.
    pub(super) halves: usize,
    /// Values computed in the current SIMD step (straight-line code).
    pub(super) vmemo: HashMap<NodeId, V>,
    /// Per node, whether its subtree can raise (SIMD code only; empty for scalar code).
    pub(super) can_err: Vec<bool>,
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
