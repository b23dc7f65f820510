//! The C library's math functions, called by symbol so that the interpreter and the JIT use
//! the very same code (Rust's `f64` methods may be lowered or folded differently by LLVM).

unsafe extern "C" {
    pub safe fn pow(x: f64, y: f64) -> f64;
    pub safe fn exp(x: f64) -> f64;
    pub safe fn expm1(x: f64) -> f64;
    pub safe fn log(x: f64) -> f64;
    pub safe fn log10(x: f64) -> f64;
    pub safe fn log2(x: f64) -> f64;
    pub safe fn log1p(x: f64) -> f64;
    pub safe fn sqrt(x: f64) -> f64;
    pub safe fn fmod(x: f64, y: f64) -> f64;
    pub safe fn floor(x: f64) -> f64;
    pub safe fn ceil(x: f64) -> f64;
    pub safe fn trunc(x: f64) -> f64;
    pub safe fn round(x: f64) -> f64;
    pub safe fn sin(x: f64) -> f64;
    pub safe fn cos(x: f64) -> f64;
    pub safe fn tan(x: f64) -> f64;
    pub safe fn asin(x: f64) -> f64;
    pub safe fn acos(x: f64) -> f64;
    pub safe fn atan(x: f64) -> f64;
    pub safe fn atan2(y: f64, x: f64) -> f64;
    pub safe fn sinh(x: f64) -> f64;
    pub safe fn cosh(x: f64) -> f64;
    pub safe fn tanh(x: f64) -> f64;
    pub safe fn frexp(x: f64, exp: *mut i32) -> f64;
    pub safe fn ldexp(x: f64, exp: i32) -> f64;
}
