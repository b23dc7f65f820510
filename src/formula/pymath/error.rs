//! Why an operation failed: Python's exception, in Python's words, with a stable code.

use std::fmt;

/// Why a job's evaluation failed. The job gets the value 0 (PBS policy) and this message.
///
/// The discriminants are stable: they are the per-job error codes of the JIT's error column
/// and of the C ABI (0 means no error).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum EvalError {
    /// `x / 0`
    FloatDivisionByZero = 1,
    /// `x // 0`
    FloatFloorDivisionByZero = 2,
    /// `x % 0`
    FloatModulo = 3,
    /// `x ** y` overflowed (Python's `OverflowError` from errno `ERANGE`).
    PowRange = 4,
    /// `0.0 ** negative`
    ZeroToNegativePower = 5,
    /// `negative ** fractional`: Python makes a complex number (as the formula's value it
    /// crashes pbs_sched); jobsort treats it as an error (a deliberate difference, see
    /// ARCHITECTURE.md).
    NegativeToFractionalPower = 6,
    /// `ValueError: math domain error`
    MathDomain = 7,
    /// `OverflowError: math range error`
    MathRange = 8,
    /// `floor`/`ceil`/`trunc`/`round` of an infinity.
    InfinityToInteger = 9,
    /// `floor`/`ceil`/`trunc`/`round` of a NaN.
    NanToInteger = 10,
    /// The formula's final value is an infinity or NaN (jobsort's rule; PBS would sort it
    /// unpredictably).
    NotFinite = 11,
    /// `int / 0` (`long_true_divide`; `--compat pbs`, where whole numbers are Python ints).
    IntDivisionByZero = 12,
    /// `int // 0` (`l_divmod`).
    IntFloorDivisionByZero = 13,
    /// `int % 0` (`l_mod`; CPython 3.10 and earlier say "integer division or modulo by zero").
    IntModuloByZero = 14,
    /// An int beyond a double's range meets a float or a `math` function.
    IntTooLargeForFloat = 15,
    /// `int / int` beyond a double's range.
    IntDivisionTooLarge = 16,
    /// The formula's value is an int beyond a double's range: `PyFloat_AsDouble` fails
    /// outside the scheduler's `try`, and pbs_sched (OpenPBS 23.06) logs -1 and crashes.
    IntResultTooLarge = 17,
    /// An int of more than 2^16 bits: jobsort does not compute it (Python would).
    IntTooLargeToModel = 18,
}

impl EvalError {
    /// All errors, in code order.
    pub const ALL: [EvalError; 18] = [
        EvalError::FloatDivisionByZero,
        EvalError::FloatFloorDivisionByZero,
        EvalError::FloatModulo,
        EvalError::PowRange,
        EvalError::ZeroToNegativePower,
        EvalError::NegativeToFractionalPower,
        EvalError::MathDomain,
        EvalError::MathRange,
        EvalError::InfinityToInteger,
        EvalError::NanToInteger,
        EvalError::NotFinite,
        EvalError::IntDivisionByZero,
        EvalError::IntFloorDivisionByZero,
        EvalError::IntModuloByZero,
        EvalError::IntTooLargeForFloat,
        EvalError::IntDivisionTooLarge,
        EvalError::IntResultTooLarge,
        EvalError::IntTooLargeToModel,
    ];

    /// The message, in Python's words where Python raises.
    pub fn message(self) -> &'static str {
        match self {
            EvalError::FloatDivisionByZero => "float division by zero",
            EvalError::FloatFloorDivisionByZero => "float floor division by zero",
            EvalError::FloatModulo => "float modulo",
            EvalError::PowRange => "(34, 'Numerical result out of range')",
            EvalError::ZeroToNegativePower => "0.0 cannot be raised to a negative power",
            EvalError::NegativeToFractionalPower => {
                "negative number cannot be raised to a fractional power"
            }
            EvalError::MathDomain => "math domain error",
            EvalError::MathRange => "math range error",
            EvalError::InfinityToInteger => "cannot convert float infinity to integer",
            EvalError::NanToInteger => "cannot convert float NaN to integer",
            EvalError::NotFinite => "formula value is not finite",
            EvalError::IntDivisionByZero => "division by zero",
            EvalError::IntFloorDivisionByZero => "integer division or modulo by zero",
            EvalError::IntModuloByZero => "integer modulo by zero",
            EvalError::IntTooLargeForFloat => "int too large to convert to float",
            EvalError::IntDivisionTooLarge => "integer division result too large for a float",
            EvalError::IntResultTooLarge => {
                "the value is an int too large for a float: pbs_sched logs -1 and crashes"
            }
            EvalError::IntTooLargeToModel => {
                "an int of more than 65536 bits: jobsort does not compute it"
            }
        }
    }

    /// The Python exception class this error stands for.
    pub fn python_exception(self) -> &'static str {
        match self {
            EvalError::FloatDivisionByZero
            | EvalError::FloatFloorDivisionByZero
            | EvalError::FloatModulo
            | EvalError::ZeroToNegativePower
            | EvalError::IntDivisionByZero
            | EvalError::IntFloorDivisionByZero
            | EvalError::IntModuloByZero => "ZeroDivisionError",
            EvalError::PowRange
            | EvalError::MathRange
            | EvalError::InfinityToInteger
            | EvalError::IntTooLargeForFloat
            | EvalError::IntDivisionTooLarge
            | EvalError::IntResultTooLarge => "OverflowError",
            EvalError::MathDomain | EvalError::NanToInteger => "ValueError",
            EvalError::NegativeToFractionalPower
            | EvalError::NotFinite
            | EvalError::IntTooLargeToModel => "jobsort",
        }
    }

    /// The stable numeric code (never 0).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The error for a code, `None` for 0 or an unknown code.
    pub fn from_code(code: u8) -> Option<EvalError> {
        EvalError::ALL.iter().copied().find(|e| e.code() == code)
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for EvalError {}

pub type PyResult = Result<f64, EvalError>;
