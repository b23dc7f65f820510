//! Two orders of the same jobs side by side (`rank --compare`): each job's place in both, how
//! many jobs move, and how alike the orders are as Kendall's τ (1: the same order, −1: the
//! reverse), from the number of pairs the two orders put the other way round — counted by a
//! merge sort, O(n log n).

/// Two orders of the same jobs, compared.
#[derive(Debug, Clone, PartialEq)]
pub struct Moves {
    /// By job index: its place (0 = first) in the first order.
    pub first: Vec<usize>,
    /// By job index: its place in the second order.
    pub second: Vec<usize>,
    /// How many jobs have another place in the second order.
    pub moved: usize,
    /// The pairs of jobs the orders put the other way round.
    pub swapped_pairs: u64,
    /// Kendall's τ: `1 − 2·swapped / (n(n−1)/2)`; 1 with fewer than two jobs.
    pub kendall_tau: f64,
}

impl Moves {
    /// `a` and `b` list job indices `0..n` in two orders. `None` when they are not orders of
    /// the same jobs (a length differs, an index is out of range or repeated).
    pub fn new(a: &[usize], b: &[usize]) -> Option<Moves> {
        let n = a.len();
        let places = |order: &[usize]| -> Option<Vec<usize>> {
            let mut place = vec![usize::MAX; n];
            for (k, &job) in order.iter().enumerate() {
                let slot = place.get_mut(job)?;
                if *slot != usize::MAX {
                    return None;
                }
                *slot = k;
            }
            Some(place)
        };
        if b.len() != n {
            return None;
        }
        let first = places(a)?;
        let second = places(b)?;
        let moved = (0..n).filter(|&j| first[j] != second[j]).count();
        // The second order's places, read in the first order: its inversions are the pairs
        // the orders disagree on.
        let mut seq: Vec<usize> = a.iter().map(|&job| second[job]).collect();
        let swapped_pairs = inversions(&mut seq);
        let pairs = n as f64 * (n as f64 - 1.0) / 2.0;
        let kendall_tau = if n < 2 {
            1.0
        } else {
            1.0 - 2.0 * swapped_pairs as f64 / pairs
        };
        Some(Moves {
            first,
            second,
            moved,
            swapped_pairs,
            kendall_tau,
        })
    }

    /// How far job `index` moves: places up (toward the front) in the second order, negative
    /// for down.
    pub fn shift(&self, index: usize) -> i64 {
        self.first[index] as i64 - self.second[index] as i64
    }
}

/// The pairs `i < j` with `xs[i] > xs[j]`; sorts `xs`.
fn inversions(xs: &mut [usize]) -> u64 {
    let mut scratch = xs.to_vec();
    count(xs, &mut scratch)
}

fn count(xs: &mut [usize], scratch: &mut [usize]) -> u64 {
    let n = xs.len();
    if n < 2 {
        return 0;
    }
    let mid = n / 2;
    let mut total = {
        let (lo, hi) = xs.split_at_mut(mid);
        let (slo, shi) = scratch.split_at_mut(mid);
        count(lo, slo) + count(hi, shi)
    };
    let (mut i, mut j, mut k) = (0, mid, 0);
    while i < mid && j < n {
        if xs[i] <= xs[j] {
            scratch[k] = xs[i];
            i += 1;
        } else {
            scratch[k] = xs[j];
            j += 1;
            // Every element left in the first half is larger than xs[j].
            total += (mid - i) as u64;
        }
        k += 1;
    }
    scratch[k..k + mid - i].copy_from_slice(&xs[i..mid]);
    k += mid - i;
    scratch[k..].copy_from_slice(&xs[j..n]);
    xs.copy_from_slice(&scratch[..n]);
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pairs in disagreement, by definition: every pair looked at.
    fn swapped_by_definition(a: &[usize], b: &[usize]) -> u64 {
        let place = |o: &[usize], j: usize| o.iter().position(|&x| x == j).unwrap();
        let n = a.len();
        let mut swapped = 0;
        for x in 0..n {
            for y in x + 1..n {
                let da = place(a, x) < place(a, y);
                let db = place(b, x) < place(b, y);
                swapped += u64::from(da != db);
            }
        }
        swapped
    }

    #[test]
    fn same_and_reversed_orders() {
        let a = [2, 0, 1, 3];
        let same = Moves::new(&a, &a).unwrap();
        assert_eq!(
            (same.moved, same.swapped_pairs, same.kendall_tau),
            (0, 0, 1.0)
        );
        let rev: Vec<usize> = a.iter().rev().copied().collect();
        let r = Moves::new(&a, &rev).unwrap();
        assert_eq!((r.moved, r.swapped_pairs, r.kendall_tau), (4, 6, -1.0));
        // Job 2 is first in `a`, last in the reverse: it moves down three places.
        assert_eq!(r.shift(2), -3);
        assert_eq!(r.shift(3), 3);
    }

    #[test]
    fn one_swap_of_neighbours() {
        // By hand: jobs 1 and 2 trade places, one pair of six disagrees: τ = 1 − 2/6 = 2/3.
        let m = Moves::new(&[0, 1, 2, 3], &[0, 2, 1, 3]).unwrap();
        assert_eq!(m.moved, 2);
        assert_eq!(m.swapped_pairs, 1);
        assert!((m.kendall_tau - 2.0 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn orders_of_other_jobs_are_refused() {
        assert!(Moves::new(&[0, 1], &[0]).is_none());
        assert!(Moves::new(&[0, 1], &[0, 0]).is_none());
        assert!(Moves::new(&[0, 2], &[0, 1]).is_none());
        assert_eq!(Moves::new(&[], &[]).unwrap().kendall_tau, 1.0);
    }

    #[test]
    fn merge_count_equals_the_definition_on_random_orders() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for n in [2usize, 3, 7, 16, 33] {
            for _ in 0..50 {
                let mut a: Vec<usize> = (0..n).collect();
                let mut b: Vec<usize> = (0..n).collect();
                for k in (1..n).rev() {
                    a.swap(k, (next() % (k as u64 + 1)) as usize);
                    b.swap(k, (next() % (k as u64 + 1)) as usize);
                }
                let m = Moves::new(&a, &b).unwrap();
                assert_eq!(
                    m.swapped_pairs,
                    swapped_by_definition(&a, &b),
                    "{a:?} {b:?}"
                );
            }
        }
    }
}
