//! The kernel runtime: a compiled formula's entry point, the code memory it lives in, and the
//! safe call that checks the columns before running it.

use cranelift_jit::JITModule;
use std::fmt;
use std::sync::Arc;

pub(super) type KernelFn = unsafe extern "C" fn(*const *const f64, i64, *mut f64, *mut u8);

/// Owns the JIT's code memory. Freed only when the last [`Kernel`] clone is dropped, so code
/// is never freed while it can still be called.
pub(super) struct CodeMemory(pub(super) Option<JITModule>);

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
    pub(super) func: KernelFn,
    pub(super) inputs: usize,
    pub(super) simd: bool,
    pub(super) _code: Arc<CodeMemory>,
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
