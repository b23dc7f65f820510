//! The PBS fairshare tree (`src/scheduler/fairshare.cpp`), bit for bit.
//!
//! Widths follow PBS's `group_info`: `tree_percentage`, `group_percentage` and `usage_factor`
//! are `f32`; `usage` and `temp_usage` are `f64`; shares and group ids are `i32`. Children are
//! kept in insertion order and walked in reverse, which is PBS's order (it prepends children),
//! so `unknown` — the first child of the root — is always last.
//!
//! - `tree`: the node arena (`group_info`, `fairshare_head`), lookups and PBS's walk order.
//! - `resource_group`: reading a `resource_group` file as `parse_group` does.
//! - `shares`: tree percentages, usage factors, `fairshare_factor` and `compare_path`.
//! - `usage`: accrual, the per-cycle `temp_usage`, and the records a usage file holds.
//! - `decay`: `decay_fairshare_tree`, the scheduler's decay loop and the `f32` factor.
//! - `names`: which entity names a PBS usage file can keep.

mod decay;
mod names;
mod resource_group;
mod shares;
mod tree;
mod usage;

pub use super::c_text::{
    PBS_LINE_MAX, c_strtod, c_strtol, parse_set_value, pbsfs_set_value, skip_line,
};
pub use decay::{is_valid_decay_factor, pbs_decay_factor};
pub use names::{USAGE_NAME_MAX, check_entity_name, is_valid_pbs_name};
pub use resource_group::ParseOptions;
pub use shares::{EntityValues, factor_exponent, fairshare_factor, usage_factor};
pub use tree::{PbsNode, PbsTree};

/// The root's name in PBS (`FAIRSHARE_ROOT_NAME`).
pub const ROOT_NAME: &str = "TREEROOT";
/// The group that holds entities not in `resource_group` (`UNKNOWN_GROUP_NAME`).
pub const UNKNOWN_NAME: &str = "unknown";
/// Every node's usage starts at (and decays down to) this (`FAIRSHARE_MIN_USAGE`).
pub const MIN_USAGE: f64 = 1.0;
/// PBS's `UNSPECIFIED` (-1).
pub const UNSPECIFIED: i32 = -1;

/// The example tree of the `pbsfs` man page, with some usage: a fixture for the tests here.
#[cfg(test)]
fn man_tree() -> PbsTree {
    const MAN: &str = "group1 10 root 40\ngroup2 20 root 60\npbsuser 11 group1 50\npbsuser1 12 group1 50\npbsuser2 21 group2 60\npbsuser3 22 group2 40\n";
    let (mut t, w) = PbsTree::parse_resource_group(MAN, "rg", &ParseOptions::default()).unwrap();
    assert!(w.is_empty());
    for (n, u) in [
        ("pbsuser", 100.0),
        ("pbsuser1", 100.0),
        ("pbsuser3", 1000.0),
    ] {
        assert!(t.apply_usage_record(n, u, false));
    }
    t.recompute();
    t
}
