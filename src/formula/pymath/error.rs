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
    /// `negative ** fractional`: Python makes a complex number (PBS then uses -1.0); jobsort
    /// treats it as an error (a deliberate difference, see ARCHITECTURE.md).
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
}

impl EvalError {
    /// All errors, in code order.
    pub const ALL: [EvalError; 11] = [
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
        }
    }

    /// The Python exception class this error stands for.
    pub fn python_exception(self) -> &'static str {
        match self {
            EvalError::FloatDivisionByZero
            | EvalError::FloatFloorDivisionByZero
            | EvalError::FloatModulo
            | EvalError::ZeroToNegativePower => "ZeroDivisionError",
            EvalError::PowRange | EvalError::MathRange | EvalError::InfinityToInteger => {
                "OverflowError"
            }
            EvalError::MathDomain | EvalError::NanToInteger => "ValueError",
            EvalError::NegativeToFractionalPower | EvalError::NotFinite => "jobsort",
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
