//! Python's float semantics, operation by operation, as CPython 3.11 implements them
//! (`Objects/floatobject.c`, `Modules/mathmodule.c`, `Python/bltinmodule.c`).
//!
//! Every function here is the single definition of its operation: the reference evaluator
//! calls them directly and the JIT calls the `extern "C"` wrappers in [`ffi`], so both
//! backends share one implementation of every non-trivial operation and every libm call goes
//! to the same symbol ([`libm`]).
//!
//! The error an operation raises is an [`EvalError`]; its message is Python's own words.
//!
//! Files follow CPython's: `error` (the errors and their codes), [`libm`] and `errno` (the C
//! library), `operators` (`float`'s operators, `Objects/floatobject.c`), `math` (the `math`
//! module's functions, `Modules/mathmodule.c`), `rounding` (floats to integers: `floor`,
//! `ceil`, `trunc`, `round`), `builtins` (`max`, `min`), `hypot` (`math.hypot`'s accurate
//! norm), `bigint` and `int` (Python's `int` and its mixing with `float`, for `--compat pbs`,
//! `Objects/longobject.c`), [`ffi`] (the JIT's entry points) and [`vector`] (`pow`, `exp`, `log` on several lanes
//! with libm's bits, glibc's FMA builds ported).

pub mod bigint;
mod builtins;
mod errno;
mod error;
pub mod ffi;
mod hypot;
pub mod int;
pub mod libm;
mod math;
mod operators;
mod repr;
mod rounding;
pub mod vector;

pub use builtins::{max, min};
pub use error::{EvalError, PyResult};
pub use hypot::hypot;
pub use math::{
    acos, asin, atan, atan2, copysign, cos, cosh, degrees, exp, expm1, fabs, fmod, log, log_base,
    log1p, log2, log10, math_pow, radians, sin, sinh, sqrt, tan, tanh,
};
pub use operators::{div, float_pow, floor_div, rem, truthy};
pub use repr::repr;
pub use rounding::{ceil, floor, round, round_ndigits, trunc};
