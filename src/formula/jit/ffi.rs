//! The functions generated code calls: the `extern "C"` wrappers of [`ffi`], one table
//! in which each wrapper is named once (its linker name is the Rust function's name).

use crate::formula::ir::{Expr, Func, Ir, NodeId};
use crate::formula::pymath::ffi;
use crate::formula::pymath::vector::{self, pow_base_log};
use crate::formula::syntax::BinaryOp;

/// How a wrapper takes its operands (every scalar wrapper also takes `err: *mut u8` last and
/// returns an `f64`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Params {
    /// This many `f64` arguments.
    F64(usize),
    /// `(args: *const f64, n: usize)`: a buffer of `n` values (`hypot`).
    Buffer,
    /// `(x: *mut f64, y: *const f64, codes: *mut u64, n: usize, base: f64, log_hi: f64,
    /// log_lo: f64)` and nothing else, no result: `n` lanes of the SIMD loop in buffers on the
    /// stack (the values replace `x`), through
    /// [`block_fma`](crate::formula::pymath::vector::block_fma).
    Block,
}

macro_rules! symbols {
    ($($symbol:ident = $function:ident($params:expr)),* $(,)?) => {
        /// A wrapper of [`ffi`] generated code may call.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(super) enum Symbol {
            $($symbol),*
        }

        impl Symbol {
            pub(super) const ALL: &[Symbol] = &[$(Symbol::$symbol),*];

            /// The linker name the JIT module imports.
            pub(super) fn name(self) -> &'static str {
                match self {
                    $(Symbol::$symbol => stringify!($function)),*
                }
            }

            /// The wrapper's address, for the JIT's symbol table.
            pub(super) fn address(self) -> *const u8 {
                match self {
                    $(Symbol::$symbol => ffi::$function as *const u8),*
                }
            }

            pub(super) fn params(self) -> Params {
                use Params::*;
                match self {
                    $(Symbol::$symbol => $params),*
                }
            }
        }
    };
}

symbols! {
    Sqrt = jobsort_sqrt(F64(1)),
    Exp = jobsort_exp(F64(1)),
    Expm1 = jobsort_expm1(F64(1)),
    Log = jobsort_log(F64(1)),
    Log10 = jobsort_log10(F64(1)),
    Log2 = jobsort_log2(F64(1)),
    Log1p = jobsort_log1p(F64(1)),
    Sin = jobsort_sin(F64(1)),
    Cos = jobsort_cos(F64(1)),
    Tan = jobsort_tan(F64(1)),
    Asin = jobsort_asin(F64(1)),
    Acos = jobsort_acos(F64(1)),
    Atan = jobsort_atan(F64(1)),
    Sinh = jobsort_sinh(F64(1)),
    Cosh = jobsort_cosh(F64(1)),
    Tanh = jobsort_tanh(F64(1)),
    Floor = jobsort_floor(F64(1)),
    Ceil = jobsort_ceil(F64(1)),
    Trunc = jobsort_trunc(F64(1)),
    Round = jobsort_round(F64(1)),
    FloorDiv = jobsort_floor_div(F64(2)),
    Rem = jobsort_rem(F64(2)),
    FloatPow = jobsort_float_pow(F64(2)),
    MathPow = jobsort_math_pow(F64(2)),
    LogBase = jobsort_log_base(F64(2)),
    RoundNdigits = jobsort_round_ndigits(F64(2)),
    Fmod = jobsort_fmod(F64(2)),
    Atan2 = jobsort_atan2(F64(2)),
    Hypot = jobsort_hypot(Buffer),
    MathPowBlock = jobsort_math_pow_block(Block),
    FloatPowBlock = jobsort_float_pow_block(Block),
    MathPowConstBlock = jobsort_math_pow_const_block(Block),
    FloatPowConstBlock = jobsort_float_pow_const_block(Block),
    ExpBlock = jobsort_exp_block(Block),
    LogBlock = jobsort_log_block(Block),
}

/// A call of the SIMD loop: the block wrapper, and for a power of a constant base the base and
/// its logarithm ([`pow_base_log`], computed when compiling; the wrapper takes both).
#[derive(Debug, Clone, Copy)]
pub(super) struct VectorCall {
    pub(super) symbol: Symbol,
    pub(super) base: Option<(f64, [f64; 2])>,
}

/// The block wrapper the SIMD loop calls for `expr` (`None`: no vector form, or a CPU without
/// FMA and AVX2, where the C library runs other builds).
pub(super) fn vector_callee(ir: &Ir, expr: &Expr) -> Option<VectorCall> {
    if !vector::usable() {
        return None;
    }
    let const_base = |base: NodeId| match ir.node(base).expr {
        Expr::Const(c) => pow_base_log(c).map(|log| (c, log)),
        _ => None,
    };
    let (symbol, base) = match expr {
        Expr::Binary(BinaryOp::Pow, base, _) => match const_base(*base) {
            Some(b) => (Symbol::FloatPowConstBlock, Some(b)),
            None => (Symbol::FloatPowBlock, None),
        },
        Expr::Call(Func::Pow, args) if args.len() == 2 => match const_base(args[0]) {
            Some(b) => (Symbol::MathPowConstBlock, Some(b)),
            None => (Symbol::MathPowBlock, None),
        },
        Expr::Call(Func::Exp, args) if args.len() == 1 => (Symbol::ExpBlock, None),
        Expr::Call(Func::Log, args) if args.len() == 1 => (Symbol::LogBlock, None),
        _ => return None,
    };
    Some(VectorCall { symbol, base })
}

/// The wrapper a call with `nargs` arguments goes to (`None`: the call is inline).
pub(super) fn callee(func: Func, nargs: usize) -> Option<Symbol> {
    Some(match func {
        Func::Abs
        | Func::Fabs
        | Func::Min
        | Func::Max
        | Func::Copysign
        | Func::Degrees
        | Func::Radians => return None,
        Func::Hypot => Symbol::Hypot,
        Func::Pow => Symbol::MathPow,
        Func::Sqrt => Symbol::Sqrt,
        Func::Exp => Symbol::Exp,
        Func::Expm1 => Symbol::Expm1,
        Func::Log if nargs == 2 => Symbol::LogBase,
        Func::Log => Symbol::Log,
        Func::Log10 => Symbol::Log10,
        Func::Log2 => Symbol::Log2,
        Func::Log1p => Symbol::Log1p,
        Func::Ceil => Symbol::Ceil,
        Func::Floor => Symbol::Floor,
        Func::Trunc => Symbol::Trunc,
        Func::Round if nargs == 2 => Symbol::RoundNdigits,
        Func::Round => Symbol::Round,
        Func::Fmod => Symbol::Fmod,
        Func::Sin => Symbol::Sin,
        Func::Cos => Symbol::Cos,
        Func::Tan => Symbol::Tan,
        Func::Asin => Symbol::Asin,
        Func::Acos => Symbol::Acos,
        Func::Atan => Symbol::Atan,
        Func::Atan2 => Symbol::Atan2,
        Func::Sinh => Symbol::Sinh,
        Func::Cosh => Symbol::Cosh,
        Func::Tanh => Symbol::Tanh,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Input, ResourceType};
    use crate::formula::ir::Ty;
    use crate::formula::syntax::Span;

    /// `pow(2, y)` and `2 ** y` (the fairshare factor) skip `pow`'s logarithm: the wrapper
    /// gets `log_inline(2)` (what `fairshare::pow2` uses), computed when compiling.
    #[test]
    fn a_literal_base_is_a_constant_base_call() {
        if !vector::usable() {
            return; // no vector forms: every call is scalar libm
        }
        let s = Span::default();
        let mut ir = Ir {
            nodes: vec![],
            root: NodeId(0),
            inputs: vec![Input::Resource {
                name: "y".to_string(),
                ty: ResourceType::Float,
            }],
        };
        let y = ir.push(Expr::Input(0), Ty::Num, s);
        let two = ir.push(Expr::Const(2.0), Ty::Num, s);
        let log2 = pow_base_log(2.0).map(|l| (2.0, l));
        assert!(log2.is_some());
        let cases = [
            (
                Expr::Call(Func::Pow, vec![two, y]),
                Symbol::MathPowConstBlock,
                log2,
            ),
            (
                Expr::Binary(BinaryOp::Pow, two, y),
                Symbol::FloatPowConstBlock,
                log2,
            ),
            (
                Expr::Call(Func::Pow, vec![y, two]),
                Symbol::MathPowBlock,
                None,
            ),
            (
                Expr::Binary(BinaryOp::Pow, y, y),
                Symbol::FloatPowBlock,
                None,
            ),
        ];
        for (e, symbol, base) in cases {
            let c = vector_callee(&ir, &e).expect("a vector form");
            assert_eq!(c.symbol, symbol);
            assert_eq!(c.base, base);
        }
        // A base off glibc's main path (zero, negative) goes through the general wrapper.
        let zero = ir.push(Expr::Const(0.0), Ty::Num, s);
        let e = Expr::Call(Func::Pow, vec![zero, y]);
        assert_eq!(
            vector_callee(&ir, &e).map(|c| c.symbol),
            Some(Symbol::MathPowBlock)
        );
    }

    #[test]
    fn every_symbol_has_its_own_name_and_address() {
        let mut names: Vec<&str> = Symbol::ALL.iter().map(|s| s.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Symbol::ALL.len());
        let mut addresses: Vec<usize> = Symbol::ALL.iter().map(|s| s.address() as usize).collect();
        addresses.sort_unstable();
        addresses.dedup();
        assert_eq!(addresses.len(), Symbol::ALL.len());
    }
}
