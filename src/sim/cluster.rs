//! The simulated machine: `nodes × cores`, free cores per node, first-fit placement.
//!
//! Placement is deterministic: [`Request::Procs`] takes free cores from the lowest-numbered
//! nodes first (a job may span nodes); [`Request::Nodes`] takes the lowest-numbered nodes
//! that each have the cores free.

use super::workload::Request;

/// Where a running job sits: `(node, cores)` pairs in node order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Allocation {
    pub parts: Vec<(u32, u32)>,
}

impl Allocation {
    /// Total cores held.
    pub fn cores(&self) -> u64 {
        self.parts.iter().map(|&(_, c)| c as u64).sum()
    }
    /// The node indices.
    pub fn nodes(&self) -> Vec<u32> {
        self.parts.iter().map(|&(n, _)| n).collect()
    }
}

/// Free cores per node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    pub nodes: u32,
    pub cores_per_node: u32,
    free: Vec<u32>,
    free_total: u64,
    /// Bit `n` set when node `n` has a free core: placement visits only those nodes.
    with_free: Vec<u64>,
}

impl Cluster {
    /// An idle cluster.
    pub fn new(nodes: u32, cores_per_node: u32) -> Cluster {
        Cluster {
            nodes,
            cores_per_node,
            free: vec![cores_per_node; nodes as usize],
            free_total: nodes as u64 * cores_per_node as u64,
            with_free: all_set(nodes, cores_per_node > 0),
        }
    }

    /// Total cores.
    pub fn capacity(&self) -> u64 {
        self.nodes as u64 * self.cores_per_node as u64
    }

    /// Free cores in all.
    pub fn free_total(&self) -> u64 {
        self.free_total
    }

    /// Free cores per node.
    pub fn free(&self) -> &[u32] {
        &self.free
    }

    /// Whether a request could ever run on an idle cluster of this shape.
    pub fn can_ever_fit(&self, r: Request) -> bool {
        match r {
            Request::Procs(p) => p as u64 <= self.capacity(),
            Request::Nodes { nodes, cores } => nodes <= self.nodes && cores <= self.cores_per_node,
        }
    }

    /// Whether `r` fits in the free cores now.
    pub fn fits(&self, r: Request) -> bool {
        fits_in(&self.free, self.free_total, r)
    }

    /// Place `r` (first fit, the same placement as [`place`]) and take its cores; `None` if
    /// it does not fit.
    pub fn allocate(&mut self, r: Request) -> Option<Allocation> {
        if !self.fits(r) {
            return None;
        }
        if let Request::Nodes { cores: 0, .. } = r {
            // Every node qualifies, full ones too: no shortcut.
            let a = place(&self.free, self.free_total, r)?;
            self.take(&a);
            return Some(a);
        }
        let mut parts = Vec::with_capacity(match r {
            Request::Procs(p) => (p as usize).min(self.free.len()),
            Request::Nodes { nodes, .. } => nodes as usize,
        });
        // Only nodes with a free core can take a part, in node order either way.
        let mut nodes = self.nodes_with_free();
        match r {
            Request::Procs(p) => {
                let mut left = p;
                while left > 0
                    && let Some(n) = nodes.next()
                {
                    let c = self.free[n].min(left);
                    parts.push((n as u32, c));
                    left -= c;
                }
            }
            Request::Nodes { nodes: k, cores } => {
                while parts.len() < k as usize
                    && let Some(n) = nodes.next()
                {
                    if self.free[n] >= cores {
                        parts.push((n as u32, cores));
                    }
                }
            }
        }
        drop(nodes);
        let a = Allocation { parts };
        self.take(&a);
        Some(a)
    }

    /// The nodes with a free core, in node order.
    fn nodes_with_free(&self) -> impl Iterator<Item = usize> + '_ {
        let words = self.with_free.iter().copied().enumerate();
        words.flat_map(|(w, mut bits)| {
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let b = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    w * 64 + b
                })
            })
        })
    }

    /// Take the cores of an allocation (must be free).
    pub fn take(&mut self, a: &Allocation) {
        for &(n, c) in &a.parts {
            let slot = &mut self.free[n as usize];
            debug_assert!(*slot >= c, "node {n} over-allocated");
            *slot = slot.saturating_sub(c);
            self.free_total -= c as u64;
            if *slot == 0 {
                self.with_free[n as usize / 64] &= !(1 << (n % 64));
            }
        }
    }

    /// Give back the cores of an allocation.
    pub fn release(&mut self, a: &Allocation) {
        for &(n, c) in &a.parts {
            let slot = &mut self.free[n as usize];
            *slot += c;
            debug_assert!(
                *slot <= self.cores_per_node,
                "node {n} released beyond its size"
            );
            self.free_total += c as u64;
            if c > 0 {
                self.with_free[n as usize / 64] |= 1 << (n % 64);
            }
        }
    }

    /// Reset to idle and re-sum from the given allocations (the "account resources" step);
    /// returns an error naming the first over-allocated node.
    pub fn reset_and_resum<'a>(
        &mut self,
        running: impl IntoIterator<Item = &'a Allocation>,
    ) -> Result<(), String> {
        self.free.iter_mut().for_each(|f| *f = self.cores_per_node);
        self.free_total = self.capacity();
        for a in running {
            for &(n, c) in &a.parts {
                let slot = self
                    .free
                    .get_mut(n as usize)
                    .ok_or_else(|| format!("node {n} does not exist"))?;
                if *slot < c {
                    return Err(format!("node {n} over-allocated"));
                }
                *slot -= c;
                self.free_total -= c as u64;
            }
        }
        self.with_free = all_set(self.nodes, false);
        for (n, &f) in self.free.iter().enumerate() {
            if f > 0 {
                self.with_free[n / 64] |= 1 << (n % 64);
            }
        }
        Ok(())
    }
}

/// A bitset of `n` bits, all set (`on`) or all clear.
fn all_set(n: u32, on: bool) -> Vec<u64> {
    let mut bits = vec![0u64; (n as usize).div_ceil(64)];
    if on {
        for i in 0..n as usize {
            bits[i / 64] |= 1 << (i % 64);
        }
    }
    bits
}

/// Whether `r` fits in `free` (with `free_total` = Σ free).
pub fn fits_in(free: &[u32], free_total: u64, r: Request) -> bool {
    match r {
        Request::Procs(p) => p as u64 <= free_total,
        Request::Nodes { nodes, cores } => {
            if (nodes as u64) * (cores as u64) > free_total {
                return false;
            }
            let mut got = 0;
            for &f in free {
                if f >= cores {
                    got += 1;
                    if got >= nodes {
                        return true;
                    }
                }
            }
            nodes == 0
        }
    }
}

/// First-fit placement of `r` in `free`, without taking it.
pub fn place(free: &[u32], free_total: u64, r: Request) -> Option<Allocation> {
    if !fits_in(free, free_total, r) {
        return None;
    }
    // One allocation of the right size (a job may take a part on every node).
    let mut parts = Vec::with_capacity(match r {
        Request::Procs(p) => (p as usize).min(free.len()),
        Request::Nodes { nodes, .. } => nodes as usize,
    });
    match r {
        Request::Procs(p) => {
            let mut left = p;
            for (n, &f) in free.iter().enumerate() {
                if left == 0 {
                    break;
                }
                let c = f.min(left);
                if c > 0 {
                    parts.push((n as u32, c));
                    left -= c;
                }
            }
        }
        Request::Nodes { nodes, cores } => {
            for (n, &f) in free.iter().enumerate() {
                if parts.len() as u32 == nodes {
                    break;
                }
                if f >= cores {
                    parts.push((n as u32, cores));
                }
            }
        }
    }
    Some(Allocation { parts })
}

/// A multiset of job sizes (cores) up to a bound, with the smallest at hand: counts per size
/// and a bitset of the sizes present (the smallest is found by a word scan). Sizes above the
/// bound are counted at the bound.
#[derive(Debug, Clone, Default)]
pub struct SizeSet {
    counts: Vec<u32>,
    present: Vec<u64>,
    len: usize,
}

impl SizeSet {
    /// An empty set for sizes `0 ..= max`.
    pub fn new(max: u64) -> SizeSet {
        let n = max as usize + 1;
        SizeSet {
            counts: vec![0; n],
            present: vec![0; n.div_ceil(64)],
            len: 0,
        }
    }

    /// Add one job of `size` cores (sizes above the bound are counted at the bound).
    pub fn insert(&mut self, size: u64) {
        let s = (size as usize).min(self.counts.len() - 1);
        self.counts[s] += 1;
        self.present[s / 64] |= 1 << (s % 64);
        self.len += 1;
    }

    /// Remove one job of `size` cores (a no-op when there is none).
    pub fn remove(&mut self, size: u64) {
        let s = (size as usize).min(self.counts.len() - 1);
        if self.counts[s] == 0 {
            return;
        }
        self.counts[s] -= 1;
        self.len -= 1;
        if self.counts[s] == 0 {
            self.present[s / 64] &= !(1 << (s % 64));
        }
    }

    /// The smallest size present (sizes above the bound read as the bound, so this is then a
    /// lower bound of the true smallest size).
    pub fn min(&self) -> Option<u64> {
        if self.len == 0 {
            return None;
        }
        let (w, bits) = self.present.iter().enumerate().find(|(_, b)| **b != 0)?;
        Some((w * 64) as u64 + u64::from(bits.trailing_zeros()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_set_keeps_the_smallest() {
        let mut s = SizeSet::new(200);
        assert_eq!(s.min(), None);
        for x in [130, 7, 64, 7, 200] {
            s.insert(x);
        }
        assert_eq!(s.min(), Some(7));
        s.remove(7);
        assert_eq!(s.min(), Some(7));
        s.remove(7);
        assert_eq!(s.min(), Some(64));
        s.remove(64);
        s.remove(64); // not present: no-op
        assert_eq!(s.min(), Some(130));
        s.remove(130);
        s.remove(200);
        assert_eq!(s.min(), None);
        // Above the bound: counted at the bound.
        s.insert(5_000);
        assert_eq!(s.min(), Some(200));
        s.remove(5_000);
        assert_eq!(s.min(), None);
    }

    /// `allocate` (which visits only nodes with a free core) places exactly as `place` (which
    /// scans every node), and the set of nodes with a free core stays right.
    #[test]
    fn allocate_places_as_the_full_scan_does() {
        let mut x: u64 = 11;
        let mut next = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        for (nodes, cores) in [(1, 1), (100, 1), (70, 3), (130, 4), (64, 2)] {
            let mut c = Cluster::new(nodes, cores);
            let mut held: Vec<Allocation> = Vec::new();
            for _ in 0..3000 {
                if !held.is_empty() && next(3) == 0 {
                    let a = held.swap_remove(next(held.len() as u64) as usize);
                    c.release(&a);
                } else {
                    let r = if next(2) == 0 {
                        Request::Procs(next(u64::from(nodes * cores) / 3 + 1) as u32)
                    } else {
                        Request::Nodes {
                            nodes: next(u64::from(nodes) / 4 + 1) as u32,
                            cores: next(u64::from(cores) + 1) as u32,
                        }
                    };
                    let expected = place(c.free(), c.free_total(), r);
                    let got = c.allocate(r);
                    assert_eq!(got, expected, "{nodes}x{cores} {r:?}");
                    held.extend(got);
                }
                let mut resummed = Cluster::new(nodes, cores);
                resummed.reset_and_resum(&held).unwrap();
                assert_eq!(resummed, c);
            }
        }
    }

    #[test]
    fn first_fit_spans_nodes_and_node_requests_need_whole_slots() {
        let mut c = Cluster::new(3, 4);
        let a = c.allocate(Request::Procs(6)).unwrap();
        assert_eq!(a.parts, vec![(0, 4), (1, 2)]);
        assert!(!c.fits(Request::Nodes { nodes: 2, cores: 3 }));
        let b = c.allocate(Request::Nodes { nodes: 1, cores: 2 }).unwrap();
        assert_eq!(b.parts, vec![(1, 2)]);
        assert_eq!(c.free_total(), 4);
        c.release(&a);
        assert_eq!(c.free(), &[4, 2, 4]);
        c.reset_and_resum([&b]).unwrap();
        assert_eq!(c.free(), &[4, 2, 4]);
        assert!(c.reset_and_resum([&b, &b]).is_ok());
        assert!(c.reset_and_resum([&b, &b, &b]).is_err());
    }
}
