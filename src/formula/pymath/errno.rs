//! `errno`, which CPython consults after `pow`.

#[cfg(all(target_os = "linux", target_env = "gnu"))]
unsafe extern "C" {
    safe fn __errno_location() -> *mut i32;
}

pub const ERANGE: i32 = 34;

#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn clear() {
    // SAFETY: glibc returns a valid pointer to this thread's errno.
    unsafe { *__errno_location() = 0 }
}
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn get() -> i32 {
    // SAFETY: as above.
    unsafe { *__errno_location() }
}
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn clear() {}
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn get() -> i32 {
    0
}
