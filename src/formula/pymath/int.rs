//! Python's numbers with `int` in them, as PBS's formula sees them under `--compat pbs`
//! (CPython 3.11): `int` with `int` follows `Objects/longobject.c` (exact arithmetic,
//! `long_true_divide`, `l_divmod`/`l_mod`, `long_pow`), `int` with `float` converts the int
//! first (`Objects/floatobject.c` `CONVERT_TO_DOUBLE`, which raises "int too large to convert
//! to float"), and the `math` functions take `float(x)` except `floor`/`ceil`/`trunc`
//! (an int is returned as is) and the logarithms (`loghelper`, which takes any int).
//!
//! Error texts are CPython 3.11's; 3.10 and earlier say "integer division or modulo by zero"
//! for `int % 0` as well (`fast_mod`).

use std::cmp::Ordering;

use super::bigint::{BigInt, TooLarge};
use super::{EvalError, truthy};
use crate::formula::syntax::{BinaryOp, CmpOp};

/// A Python number: an `int` (bools are ints) or a `float`.
#[derive(Debug, Clone, PartialEq)]
pub enum Num {
    Int(BigInt),
    Float(f64),
}

pub type NumResult = Result<Num, EvalError>;

fn too_large(_: TooLarge) -> EvalError {
    EvalError::IntTooLargeToModel
}

impl Num {
    pub fn int(v: i64) -> Num {
        Num::Int(BigInt::from_i64(v))
    }

    pub fn bool(b: bool) -> Num {
        Num::int(i64::from(b))
    }

    /// `float(self)` (`PyFloat_AsDouble`).
    pub fn to_float(&self) -> Result<f64, EvalError> {
        match self {
            Num::Float(x) => Ok(*x),
            Num::Int(i) => i.to_f64().ok_or(EvalError::IntTooLargeForFloat),
        }
    }

    pub fn truthy(&self) -> bool {
        match self {
            Num::Float(x) => truthy(*x),
            Num::Int(i) => !i.is_zero(),
        }
    }

    pub fn is_int(&self) -> bool {
        matches!(self, Num::Int(_))
    }
}

/// Both operands as floats, left first (`CONVERT_TO_DOUBLE`).
fn floats(a: &Num, b: &Num) -> Result<(f64, f64), EvalError> {
    Ok((a.to_float()?, b.to_float()?))
}

/// `a op b`.
pub fn binary(op: BinaryOp, a: &Num, b: &Num) -> NumResult {
    if let (Num::Int(x), Num::Int(y)) = (a, b) {
        return int_binary(op, x, y);
    }
    let (x, y) = floats(a, b)?;
    let v = match op {
        BinaryOp::Add => x + y,
        BinaryOp::Sub => x - y,
        BinaryOp::Mul => x * y,
        BinaryOp::Div => super::div(x, y)?,
        BinaryOp::FloorDiv => super::floor_div(x, y)?,
        BinaryOp::Mod => super::rem(x, y)?,
        BinaryOp::Pow => super::float_pow(x, y)?,
    };
    Ok(Num::Float(v))
}

fn int_binary(op: BinaryOp, x: &BigInt, y: &BigInt) -> NumResult {
    Ok(match op {
        BinaryOp::Add => Num::Int(x.add(y).map_err(too_large)?),
        BinaryOp::Sub => Num::Int(x.sub(y).map_err(too_large)?),
        BinaryOp::Mul => Num::Int(x.mul(y).map_err(too_large)?),
        // long_true_divide
        BinaryOp::Div => Num::Float(x.true_div(y).map_err(|zero| {
            if zero {
                EvalError::IntDivisionByZero
            } else {
                EvalError::IntDivisionTooLarge
            }
        })?),
        // l_divmod, l_mod
        BinaryOp::FloorDiv => Num::Int(x.divmod(y).ok_or(EvalError::IntFloorDivisionByZero)?.0),
        BinaryOp::Mod => Num::Int(x.divmod(y).ok_or(EvalError::IntModuloByZero)?.1),
        // long_pow: a negative exponent makes it float_pow of the converted operands.
        BinaryOp::Pow => {
            if y.is_negative() {
                let (a, b) = (
                    x.to_f64().ok_or(EvalError::IntTooLargeForFloat)?,
                    y.to_f64().ok_or(EvalError::IntTooLargeForFloat)?,
                );
                Num::Float(super::float_pow(a, b)?)
            } else {
                Num::Int(x.pow(y).map_err(too_large)?)
            }
        }
    })
}

pub fn neg(a: &Num) -> Num {
    match a {
        Num::Int(i) => Num::Int(i.neg()),
        Num::Float(x) => Num::Float(-x),
    }
}

/// `abs(a)`: an int stays an int.
pub fn abs(a: &Num) -> Num {
    match a {
        Num::Int(i) => Num::Int(i.abs()),
        Num::Float(x) => Num::Float(x.abs()),
    }
}

/// The order of two numbers, exact across int and float (`float_richcompare`); `None` when a
/// NaN is involved.
pub fn order(a: &Num, b: &Num) -> Option<Ordering> {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => Some(x.cmp(y)),
        (Num::Int(x), Num::Float(y)) => x.cmp_f64(*y),
        (Num::Float(x), Num::Int(y)) => y.cmp_f64(*x).map(Ordering::reverse),
        (Num::Float(x), Num::Float(y)) => x.partial_cmp(y),
    }
}

/// One link of a comparison chain.
pub fn compare(op: CmpOp, a: &Num, b: &Num) -> bool {
    let o = order(a, b);
    match op {
        CmpOp::Lt => o == Some(Ordering::Less),
        CmpOp::Le => matches!(o, Some(Ordering::Less | Ordering::Equal)),
        CmpOp::Gt => o == Some(Ordering::Greater),
        CmpOp::Ge => matches!(o, Some(Ordering::Greater | Ordering::Equal)),
        CmpOp::Eq => o == Some(Ordering::Equal),
        CmpOp::Ne => o != Some(Ordering::Equal),
    }
}

/// Python's `max`/`min`: the first item, replaced by each later one strictly greater (less).
pub fn max_min(args: &[Num], max: bool) -> Num {
    let want = if max {
        Ordering::Greater
    } else {
        Ordering::Less
    };
    let mut best = &args[0];
    for x in &args[1..] {
        if order(x, best) == Some(want) {
            best = x;
        }
    }
    best.clone()
}

/// A float made an int (`floor`, `ceil`, `trunc`, `round` return ints): the rounding function
/// gives the whole value, or Python's error for an infinity or NaN.
pub fn float_to_int(rounded: Result<f64, EvalError>) -> NumResult {
    let v = rounded?;
    // Whole and finite here: the conversion is exact.
    Ok(Num::Int(BigInt::from_f64(v).unwrap_or_default()))
}

/// `round(x, ndigits)` with an int `ndigits` (`long_round` / `float___round___impl`).
pub fn round_ndigits(x: &Num, ndigits: &BigInt) -> NumResult {
    match x {
        Num::Int(i) => {
            if !ndigits.is_negative() {
                return Ok(x.clone());
            }
            let n = ndigits.to_i64().unwrap_or(i64::MIN);
            Ok(Num::Int(i.round_neg_digits(n).map_err(too_large)?))
        }
        Num::Float(f) => {
            // PyNumber_AsSsize_t clips; round_ndigits saturates beyond ±400 the same way.
            let n = ndigits
                .to_i64()
                .map_or(if ndigits.is_negative() { -400.0 } else { 400.0 }, |n| {
                    n.clamp(-400, 400) as f64
                });
            Ok(Num::Float(super::round_ndigits(*f, n)?))
        }
    }
}

/// `loghelper`: the logarithm (`func`: `log`, `log2` or `log10`) of any positive int, through
/// `_PyLong_Frexp` when it is too large for a double; a float goes to `func` itself.
pub fn log_any(x: &Num, func: fn(f64) -> Result<f64, EvalError>) -> Result<f64, EvalError> {
    match x {
        Num::Float(f) => func(*f),
        Num::Int(i) => {
            if i.is_negative() || i.is_zero() {
                return Err(EvalError::MathDomain);
            }
            match i.to_f64() {
                Some(f) => func(f),
                None => {
                    let (m, e) = i.frexp().unwrap_or((0.5, 1));
                    Ok(func(m)? + func(2.0)? * e as f64)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(v: i64) -> Num {
        Num::int(v)
    }

    /// Python 3.11 (CPython `Objects/longobject.c`: `long_true_divide` "division by zero",
    /// `fast_floor_div`/`l_divmod` "integer division or modulo by zero", `fast_mod`/`l_mod`
    /// "integer modulo by zero").
    #[test]
    fn int_operators_raise_python_int_errors() {
        assert_eq!(
            binary(BinaryOp::Div, &i(1), &i(0)),
            Err(EvalError::IntDivisionByZero)
        );
        assert_eq!(
            binary(BinaryOp::FloorDiv, &i(1), &i(0)),
            Err(EvalError::IntFloorDivisionByZero)
        );
        assert_eq!(
            binary(BinaryOp::Mod, &i(1), &i(0)),
            Err(EvalError::IntModuloByZero)
        );
        // A float on either side: float's errors.
        assert_eq!(
            binary(BinaryOp::Div, &Num::Float(1.0), &i(0)),
            Err(EvalError::FloatDivisionByZero)
        );
        assert_eq!(
            binary(BinaryOp::Mod, &i(1), &Num::Float(0.0)),
            Err(EvalError::FloatModulo)
        );
        // 0 ** -1 goes to float_pow.
        assert_eq!(
            binary(BinaryOp::Pow, &i(0), &i(-1)),
            Err(EvalError::ZeroToNegativePower)
        );
        assert_eq!(binary(BinaryOp::Pow, &i(2), &i(-2)), Ok(Num::Float(0.25)));
        assert_eq!(binary(BinaryOp::FloorDiv, &i(-7), &i(2)), Ok(i(-4)));
        assert_eq!(binary(BinaryOp::Mod, &i(-7), &i(2)), Ok(i(1)));
        assert_eq!(binary(BinaryOp::Mod, &i(7), &i(-2)), Ok(i(-1)));
    }

    /// Python 3.11 (`long_true_divide`, `CONVERT_TO_DOUBLE` in `Objects/floatobject.c`,
    /// `loghelper` in `Modules/mathmodule.c`): `2**10000 / 3` "integer division result too
    /// large for a float", `10**400 * 1.0` "int too large to convert to float",
    /// `10**400 // 10**399 == 10`, `math.log(10**400) == 921.0340371976182`.
    #[test]
    fn huge_ints_are_exact_until_they_meet_a_float() {
        let big = binary(BinaryOp::Pow, &i(2), &i(10000)).unwrap();
        assert_eq!(
            binary(BinaryOp::Div, &big, &i(3)),
            Err(EvalError::IntDivisionTooLarge)
        );
        let t400 = binary(BinaryOp::Pow, &i(10), &i(400)).unwrap();
        let t399 = binary(BinaryOp::Pow, &i(10), &i(399)).unwrap();
        assert_eq!(
            binary(BinaryOp::Mul, &t400, &Num::Float(1.0)),
            Err(EvalError::IntTooLargeForFloat)
        );
        assert_eq!(binary(BinaryOp::FloorDiv, &t400, &t399), Ok(i(10)));
        assert!(compare(CmpOp::Gt, &t400, &Num::Float(f64::MAX)));
        // math.log(10**400) == 921.0340371976183
        assert_eq!(log_any(&t400, super::super::log), Ok(921.0340371976182));
        assert_eq!(
            log_any(&i(0), super::super::log),
            Err(EvalError::MathDomain)
        );
    }

    /// `min_max` (`Python/bltinmodule.c`): the first of equal items is kept, compared with
    /// `float_richcompare` across int and float.
    #[test]
    fn max_and_min_keep_the_first_of_equals() {
        // max(1, 1.0) is the int 1; max(1.0, 1) is the float.
        assert_eq!(max_min(&[i(1), Num::Float(1.0)], true), i(1));
        assert_eq!(max_min(&[Num::Float(1.0), i(1)], true), Num::Float(1.0));
        assert_eq!(max_min(&[i(3), Num::Float(2.5)], false), Num::Float(2.5));
    }
}
