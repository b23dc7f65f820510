//! Kendall's rank correlation of two orders of the same jobs.

use std::collections::HashMap;

/// Kendall tau-a between two orderings of the same items (`None` with fewer than 2).
/// O(n log n) by counting inversions.
pub fn kendall_tau(a: &[usize], b: &[usize]) -> Option<f64> {
    let n = a.len();
    if n < 2 || b.len() != n {
        return None;
    }
    let pos: HashMap<usize, usize> = b.iter().enumerate().map(|(k, &x)| (x, k)).collect();
    let mut seq: Vec<usize> = a.iter().filter_map(|x| pos.get(x).copied()).collect();
    if seq.len() != n {
        return None;
    }
    let inv = inversions(&mut seq);
    let pairs = (n * (n - 1) / 2) as f64;
    Some(1.0 - 2.0 * inv as f64 / pairs)
}

fn inversions(v: &mut [usize]) -> u64 {
    let n = v.len();
    if n < 2 {
        return 0;
    }
    let mid = n / 2;
    let mut inv = inversions(&mut v[..mid]) + inversions(&mut v[mid..]);
    let mut merged = Vec::with_capacity(n);
    let (mut i, mut j) = (0, mid);
    while i < mid && j < n {
        if v[i] <= v[j] {
            merged.push(v[i]);
            i += 1;
        } else {
            merged.push(v[j]);
            inv += (mid - i) as u64;
            j += 1;
        }
    }
    merged.extend_from_slice(&v[i..mid]);
    merged.extend_from_slice(&v[j..n]);
    v.copy_from_slice(&merged);
    inv
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kendall_tau_counts_discordant_pairs() {
        assert_eq!(kendall_tau(&[1, 2, 3], &[1, 2, 3]), Some(1.0));
        assert_eq!(kendall_tau(&[3, 2, 1], &[1, 2, 3]), Some(-1.0));
        // One discordant pair of three.
        assert!((kendall_tau(&[2, 1, 3], &[1, 2, 3]).unwrap() - (1.0 / 3.0)).abs() < 1e-12);
        assert_eq!(kendall_tau(&[1], &[1]), None);
    }
}
