//! Strings for C (below the statuses, which carry messages, and the argument checks).

use std::ffi::CString;

/// A string for C: interior NUL bytes (which cannot occur in a formula that got this far,
/// but a message may quote anything) become U+FFFD.
pub(super) fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', "\u{fffd}")).unwrap_or_default()
}
