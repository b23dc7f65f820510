use super::*;
use crate::sim::cluster::tests::next_random;
use crate::workload::SelectPart;

const GB: u64 = 1024 * 1024;

fn machine(text: &str) -> Machine {
    Machine::parse(text, "test").unwrap()
}

/// `Shape::on` of a select given as `(count, [(resource, amount)])` parts.
fn shape(m: &Machine, parts: &[(u32, Vec<(&str, u64)>)], place: Place) -> Shape {
    let parts = parts
        .iter()
        .map(|(count, res)| SelectPart {
            count: *count,
            resources: res.iter().map(|&(r, v)| (r.to_string(), v)).collect(),
        })
        .collect();
    Shape::on(m, &Select { parts, place })
}

fn place(arrangement: Arrangement, sharing: Sharing) -> Place {
    Place {
        arrangement,
        sharing,
    }
}

/// `(node, amounts)` of every node held.
fn parts(a: &NodesAllocation) -> Vec<(u32, Vec<u64>)> {
    a.parts().map(|(n, h)| (n, h.to_vec())).collect()
}

/// First fit chunk by chunk over every node: the definition the runs must equal. A node is
/// `(capacity, free)`, both with the open flag first.
fn first_fit(nodes: &[(Vec<u64>, Vec<u64>)], shape: &Shape) -> Option<Vec<(u32, Vec<u64>)>> {
    if shape.chunks.is_empty() {
        return Some(Vec::new());
    }
    let excl = shape.place.sharing != Sharing::Shared;
    let eligible = |n: usize| {
        let (cap, free) = &nodes[n];
        if excl { free == cap } else { free[0] == 1 }
    };
    let width = nodes.first().map_or(1, |n| n.0.len());
    let mut used: Vec<Option<Vec<u64>>> = vec![None; nodes.len()];
    let fits = |n: usize, used: &Option<Vec<u64>>, need: &[u64]| {
        let free = &nodes[n].1;
        (1..width).all(|i| free[i] >= used.as_ref().map_or(0, |u| u[i]) + need[i - 1])
    };
    if shape.place.arrangement == Arrangement::Pack {
        let mut sum = vec![0; width - 1];
        for c in &shape.chunks {
            for (s, a) in sum.iter_mut().zip(&c.amounts) {
                *s += a * u64::from(c.count);
            }
        }
        let n = (0..nodes.len()).find(|&n| eligible(n) && fits(n, &None, &sum))?;
        let mut u = vec![0; width];
        u[1..].copy_from_slice(&sum);
        used[n] = Some(u);
    } else {
        let scatter = shape.place.arrangement != Arrangement::Free;
        for c in &shape.chunks {
            for _ in 0..c.count {
                let n = (0..nodes.len()).find(|&n| {
                    eligible(n) && !(scatter && used[n].is_some()) && fits(n, &used[n], &c.amounts)
                })?;
                let u = used[n].get_or_insert_with(|| vec![0; width]);
                for (x, a) in u[1..].iter_mut().zip(&c.amounts) {
                    *x += a;
                }
            }
        }
    }
    Some(
        used.into_iter()
            .enumerate()
            .filter_map(|(n, u)| {
                let u = u?;
                let held = if excl { nodes[n].0.clone() } else { u };
                Some((n as u32, held[1..].to_vec()))
            })
            .collect(),
    )
}

/// `(capacity, free)` per node, expanded from the runs.
fn per_node(n: &Nodes) -> Vec<(Vec<u64>, Vec<u64>)> {
    n.runs
        .runs
        .iter()
        .flat_map(|(&s, r)| {
            let cap = n.capacity[r.free.ty as usize].to_vec();
            std::iter::repeat_n((cap, r.free.amounts.to_vec()), (r.end - s) as usize)
        })
        .collect()
}

/// Memory-bound: cores are free on node 0, memory is not, so the chunk goes to node 1.
#[test]
fn a_chunk_needs_every_resource_free() {
    let m = machine("count=2 ncpus=8 mem=16gb");
    let mut n = Nodes::idle(&m);
    let big = shape(
        &m,
        &[(1, vec![("ncpus", 2), ("mem", 12 * GB)])],
        Place::default(),
    );
    let a = n.allocate(&big).unwrap();
    assert_eq!(parts(&a), vec![(0, vec![2, 12 * GB])]);
    // Node 0 has 6 cores but 4 GB free: a 10 GB chunk takes node 1.
    let mid = shape(
        &m,
        &[(1, vec![("ncpus", 1), ("mem", 10 * GB)])],
        Place::default(),
    );
    let b = n.allocate(&mid).unwrap();
    assert_eq!(parts(&b), vec![(1, vec![1, 10 * GB])]);
    // Another 10 GB chunk has cores on both nodes (6 and 7) and memory on neither (4, 6 GB).
    assert!(!n.fits(&mid));
    // A request for a resource the machine does not name is not checked.
    let gpu = shape(
        &m,
        &[(1, vec![("ncpus", 1), ("ngpus", 4)])],
        Place::default(),
    );
    assert_eq!(parts(&n.place(&gpu).unwrap()), vec![(0, vec![1, 0])]);
    n.release(&a);
    assert!(n.fits(&mid));
    n.check([&b]).unwrap();
}

/// GPU-bound on a heterogeneous machine: the CPU nodes come first in node order, but only
/// the GPU nodes hold a chunk with a GPU; chunks stack on a node while its GPUs last.
#[test]
fn gpu_chunks_go_to_gpu_nodes() {
    let m =
        machine("count=2 ncpus=32 mem=64gb name=cpu\ncount=2 ncpus=16 mem=64gb ngpus=2 name=gpu");
    let mut n = Nodes::idle(&m);
    let three = shape(
        &m,
        &[(3, vec![("ncpus", 4), ("mem", 8 * GB), ("ngpus", 1)])],
        Place::default(),
    );
    let a = n.allocate(&three).unwrap();
    // Node 2 holds two (its 2 GPUs), node 3 the third.
    assert_eq!(
        parts(&a),
        vec![(2, vec![8, 16 * GB, 2]), (3, vec![4, 8 * GB, 1])]
    );
    // One GPU is left, on node 3: two more GPU chunks do not fit, one does.
    let two = shape(
        &m,
        &[(2, vec![("ncpus", 1), ("ngpus", 1)])],
        Place::default(),
    );
    assert!(!n.fits(&two));
    let one = shape(
        &m,
        &[(1, vec![("ncpus", 1), ("ngpus", 1)])],
        Place::default(),
    );
    assert_eq!(parts(&n.place(&one).unwrap()), vec![(3, vec![1, 0, 1])]);
    // A CPU chunk takes node 0, the first node with the cores.
    let cpu = shape(&m, &[(1, vec![("ncpus", 32)])], Place::default());
    assert_eq!(parts(&n.place(&cpu).unwrap()), vec![(0, vec![32, 0, 0])]);
    // 20 cores and a GPU fit no node type: never.
    assert!(!Nodes::idle(&m).can_ever_fit(
        &m,
        &shape(
            &m,
            &[(1, vec![("ncpus", 20), ("ngpus", 1)])],
            Place::default()
        )
    ));
    n.check([&a]).unwrap();
}

/// Each `place` mode on 3 nodes of 4 cores, node 0 already running a 1-core job:
/// `select=2:ncpus=2`.
#[test]
fn each_place_mode_first_fit() {
    let m = machine("count=3 ncpus=4");
    let mut n = Nodes::idle(&m);
    let small = n
        .allocate(&shape(&m, &[(1, vec![("ncpus", 1)])], Place::default()))
        .unwrap();
    let two =
        |arrangement, sharing| shape(&m, &[(2, vec![("ncpus", 2)])], place(arrangement, sharing));
    let got = |n: &Nodes, s: &Shape| n.place(s).map(|a| parts(&a));
    // free: node 0's 3 free cores hold one chunk, node 1 the other.
    assert_eq!(
        got(&n, &two(Arrangement::Free, Sharing::Shared)),
        Some(vec![(0, vec![2]), (1, vec![2])])
    );
    // pack: both on one node; node 0 has 3 free, so node 1.
    assert_eq!(
        got(&n, &two(Arrangement::Pack, Sharing::Shared)),
        Some(vec![(1, vec![4])])
    );
    // scatter / vscatter: one per node, nodes 0 and 1.
    for a in [Arrangement::Scatter, Arrangement::VScatter] {
        assert_eq!(
            got(&n, &two(a, Sharing::Shared)),
            Some(vec![(0, vec![2]), (1, vec![2])])
        );
    }
    // excl: node 0 is busy; both chunks stack on node 1, held whole.
    assert_eq!(
        got(&n, &two(Arrangement::Free, Sharing::Excl)),
        Some(vec![(1, vec![4])])
    );
    // scatter:excl: nodes 1 and 2, each held whole.
    let se = two(Arrangement::Scatter, Sharing::ExclHost);
    assert_eq!(got(&n, &se), Some(vec![(1, vec![4]), (2, vec![4])]));
    let held = n.allocate(&se).unwrap();
    // Nothing shares an exclusive node, not even a chunk that needs nothing.
    let nothing = shape(&m, &[(1, vec![])], Place::default());
    assert_eq!(got(&n, &nothing), Some(vec![(0, vec![0])]));
    let two_nothing = shape(
        &m,
        &[(2, vec![])],
        place(Arrangement::Scatter, Sharing::Shared),
    );
    assert_eq!(got(&n, &two_nothing), None);
    // Another exclusive job finds no idle node.
    assert_eq!(got(&n, &two(Arrangement::Pack, Sharing::Excl)), None);
    n.check([&small, &held]).unwrap();
    n.release(&held);
    n.release(&small);
    assert_eq!(n, Nodes::idle(&m));
}

/// `select=1:ncpus=3+2:ncpus=1` with `scatter`: three nodes, none twice; `free` lets the
/// 1-core chunks stack beside the 3-core one; `pack` needs 5 cores on one 4-core node.
#[test]
fn parts_of_a_select_are_placed_in_order() {
    let m = machine("count=4 ncpus=4");
    let n = Nodes::idle(&m);
    let parts_of = |a| {
        shape(
            &m,
            &[(1, vec![("ncpus", 3)]), (2, vec![("ncpus", 1)])],
            place(a, Sharing::Shared),
        )
    };
    assert_eq!(
        parts(&n.place(&parts_of(Arrangement::Free)).unwrap()),
        vec![(0, vec![4]), (1, vec![1])]
    );
    assert_eq!(
        parts(&n.place(&parts_of(Arrangement::Scatter)).unwrap()),
        vec![(0, vec![3]), (1, vec![1]), (2, vec![1])]
    );
    assert_eq!(n.place(&parts_of(Arrangement::Pack)), None);
}

/// The invariant check finds a node over-allocated, a lost allocation and groups out of
/// step with the nodes.
#[test]
fn the_check_finds_over_allocation() {
    let m = machine("count=2 ncpus=4 ngpus=1");
    let mut n = Nodes::idle(&m);
    let a = n
        .allocate(&shape(
            &m,
            &[(1, vec![("ncpus", 2), ("ngpus", 1)])],
            Place::default(),
        ))
        .unwrap();
    n.check([&a]).unwrap();
    assert_eq!(n.check([&a, &a]), Err("node 0 over-allocated".into()));
    assert_eq!(
        n.check([]),
        Err("free amounts disagree with the running jobs' allocations from node 0".into())
    );
    let mut broken = n.clone();
    broken.runs.groups.clear();
    assert_eq!(
        broken.check([&a]),
        Err("the groups disagree with a recount of the nodes".into())
    );
    let far = NodesAllocation {
        ranges: vec![Held {
            first: 1,
            count: 2,
            held: vec![0, 1, 0].into(),
        }],
    };
    assert_eq!(n.check([&far]), Err("node 2 does not exist".into()));
}

/// Taking more than is free trips the debug check.
#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "over-allocated")]
fn taking_what_is_not_free_panics_in_debug_builds() {
    let m = machine("count=1 ncpus=4");
    let mut n = Nodes::idle(&m);
    let a = n
        .allocate(&shape(&m, &[(1, vec![("ncpus", 3)])], Place::default()))
        .unwrap();
    n.take(&a);
}

/// Placement on runs equals first fit chunk by chunk over every node, for every place
/// mode, on heterogeneous machines; after every step the check passes and runs and groups
/// equal those of a machine rebuilt from the running allocations.
#[test]
fn runs_place_as_first_fit_over_every_node() {
    let mut x: u64 = 7;
    let machines = [
        "count=5 ncpus=4 mem=8",
        "count=3 ncpus=2 mem=4 ngpus=1\ncount=4 ncpus=4 mem=4\ncount=2 ncpus=4 mem=4 ngpus=2",
        "count=1 ncpus=8 lic=3\ncount=6 ncpus=1",
        "count=9 ncpus=3 ngpus=1",
    ];
    let arrangements = [
        Arrangement::Free,
        Arrangement::Pack,
        Arrangement::Scatter,
        Arrangement::VScatter,
    ];
    let sharings = [Sharing::Shared, Sharing::Excl, Sharing::ExclHost];
    for text in machines {
        let m = machine(text);
        let width = m.names().len();
        let most: Vec<u64> = (0..width)
            .map(|i| m.types().iter().map(|t| t.amounts[i]).max().unwrap_or(0))
            .collect();
        let mut n = Nodes::idle(&m);
        let mut held: Vec<NodesAllocation> = Vec::new();
        for _ in 0..1500 {
            if !held.is_empty() && next_random(&mut x, 3) == 0 {
                let a = held.swap_remove(next_random(&mut x, held.len() as u64) as usize);
                n.release(&a);
            } else {
                let chunks = (0..1 + next_random(&mut x, 3))
                    .map(|_| Chunk {
                        count: next_random(&mut x, 4) as u32,
                        amounts: most
                            .iter()
                            .map(|&k| next_random(&mut x, k / 2 + 2))
                            .collect(),
                    })
                    .collect();
                let shape = Shape {
                    chunks,
                    place: place(
                        arrangements[next_random(&mut x, 4) as usize],
                        sharings[(next_random(&mut x, 6) as usize).saturating_sub(3)],
                    ),
                };
                let expected = first_fit(&per_node(&n), &shape);
                // `fits` (a sum over the groups for one part) answers as first fit does.
                assert_eq!(n.fits(&shape), expected.is_some(), "{text}: {shape:?}");
                let got = n.allocate(&shape);
                assert_eq!(got.as_ref().map(parts), expected, "{text}: {shape:?}");
                if let Some(a) = got {
                    held.push(a);
                }
            }
            n.check(&held).unwrap();
            let mut rebuilt = Nodes::idle(&m);
            for a in &held {
                rebuilt.take(a);
            }
            assert_eq!(rebuilt, n);
        }
    }
}
