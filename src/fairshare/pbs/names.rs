//! Entity names a PBS usage file can keep.

/// Size of the name field of a usage-file record (`USAGE_NAME_MAX`); a name must fit with its
/// terminating NUL, so at most 49 bytes.
pub const USAGE_NAME_MAX: usize = 50;

/// `is_valid_pbs_name` with `USAGE_NAME_MAX`: letters, digits, `.-_ :`, at most 49 bytes.
pub fn is_valid_pbs_name(name: &str) -> bool {
    name.len() < USAGE_NAME_MAX
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b' ' | b':'))
}

/// Why an entity name cannot be stored in a PBS usage file, if it cannot, and what PBS does
/// with it instead.
pub fn check_entity_name(name: &str) -> Result<(), String> {
    if name.len() >= USAGE_NAME_MAX {
        return Err(format!(
            "entity name `{name}` is {} bytes; PBS usage files hold names of at most {} bytes \
             (pbsfs writes the first {} bytes, and the scheduler reads that usage back as a \
             different entity under `unknown`)",
            name.len(),
            USAGE_NAME_MAX - 1,
            USAGE_NAME_MAX - 1
        ));
    }
    if !is_valid_pbs_name(name) {
        return Err(format!(
            "entity name `{}` has characters PBS does not accept in a usage file (letters, \
             digits, `.`, `-`, `_`, ` `, `:`): PBS loads it from resource_group, but skips its \
             usage record on every read (\"Invalid entity\"), so its usage is lost (--lenient \
             keeps it, as PBS does)",
            name.escape_debug()
        ));
    }
    Ok(())
}
