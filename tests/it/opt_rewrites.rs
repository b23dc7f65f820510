//! The shared optimiser: every rewrite is bit-exact against the reference evaluator, and the
//! IR text before/after is snapshotted for a few formulas.

use jobsort::formula::interp;
use jobsort::formula::ir::{Expr, Func, Ir, NodeId, Ty};
use jobsort::formula::opt::optimize;
use jobsort::formula::pymath::EvalError;
use jobsort::formula::syntax::{BinaryOp, CmpOp, Span, UnaryOp};
use jobsort::{Input, ResourceType};

/// A tiny IR builder for tests.
struct B {
    ir: Ir,
}

impl B {
    fn new(inputs: &[&str]) -> B {
        B {
            ir: Ir {
                nodes: vec![],
                root: NodeId(0),
                inputs: inputs
                    .iter()
                    .map(|s| Input::Resource {
                        name: s.to_string(),
                        ty: ResourceType::Float,
                    })
                    .collect(),
            },
        }
    }
    fn push(&mut self, e: Expr, ty: Ty) -> NodeId {
        self.ir.push(e, ty, Span::default())
    }
    fn c(&mut self, v: f64) -> NodeId {
        self.push(Expr::Const(v), Ty::Num)
    }
    fn t(&mut self) -> NodeId {
        self.push(Expr::Const(1.0), Ty::Bool)
    }
    fn x(&mut self, k: u32) -> NodeId {
        self.push(Expr::Input(k), Ty::Num)
    }
    fn bin(&mut self, op: BinaryOp, a: NodeId, b: NodeId) -> NodeId {
        self.push(Expr::Binary(op, a, b), Ty::Num)
    }
    fn un(&mut self, op: UnaryOp, a: NodeId) -> NodeId {
        let ty = if op == UnaryOp::Not {
            Ty::Bool
        } else {
            Ty::Num
        };
        self.push(Expr::Unary(op, a), ty)
    }
    fn cmp(&mut self, first: NodeId, rest: Vec<(CmpOp, NodeId)>) -> NodeId {
        self.push(Expr::Compare { first, rest }, Ty::Bool)
    }
    fn call(&mut self, f: Func, args: Vec<NodeId>) -> NodeId {
        self.push(Expr::Call(f, args), Ty::Num)
    }
    fn ife(&mut self, cond: NodeId, then: NodeId, otherwise: NodeId) -> NodeId {
        self.push(
            Expr::IfElse {
                cond,
                then,
                otherwise,
            },
            Ty::Num,
        )
    }
    fn done(mut self, root: NodeId) -> Ir {
        self.ir.root = root;
        self.ir
    }
}

/// Values that break inexact rewrites: signed zeros, infinities, NaN, subnormals, extremes.
const PROBES: [f64; 16] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.1,
    -2.5,
    1e308,
    -1e308,
    f64::MAX,
    5e-324,
    -5e-324,
    1e-310,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    3.0e15,
];

/// `optimize(ir)` evaluates to the same bits and errors as `ir` on every probe (sub-expression
/// values, so infinities and NaN are compared too, and the whole-formula rule as well).
fn assert_exact(ir: &Ir) -> Ir {
    let o = optimize(ir);
    let k = ir.inputs.len();
    let mut row = vec![0.0; k];
    let total = PROBES.len().pow(k as u32);
    for mut idx in 0..total {
        for slot in row.iter_mut() {
            *slot = PROBES[idx % PROBES.len()];
            idx /= PROBES.len();
        }
        let a = interp::eval_node(ir, ir.root, &row).map(f64::to_bits);
        let b = interp::eval_node(&o, o.root, &row).map(f64::to_bits);
        assert_eq!(a, b, "inputs {row:?}\nbefore:\n{ir}\nafter:\n{o}");
        assert_eq!(interp::eval_job(ir, &row), interp::eval_job(&o, &row));
    }
    o
}

fn is_single_input(ir: &Ir) -> bool {
    ir.nodes.len() == 1 && matches!(ir.node(ir.root).expr, Expr::Input(0))
}

#[test]
fn multiply_by_one_is_removed_and_exact() {
    for one_on_left in [false, true] {
        let mut b = B::new(&["x"]);
        let x = b.x(0);
        let one = b.c(1.0);
        let m = if one_on_left {
            b.bin(BinaryOp::Mul, one, x)
        } else {
            b.bin(BinaryOp::Mul, x, one)
        };
        let o = assert_exact(&b.done(m));
        assert!(is_single_input(&o), "{o}");
    }
}

#[test]
fn divide_by_one_is_removed_and_exact() {
    let mut b = B::new(&["x"]);
    let x = b.x(0);
    let one = b.c(1.0);
    let d = b.bin(BinaryOp::Div, x, one);
    let o = assert_exact(&b.done(d));
    assert!(is_single_input(&o), "{o}");
}

#[test]
fn subtract_zero_and_add_negative_zero_are_removed_and_exact() {
    for (op, z) in [(BinaryOp::Sub, 0.0), (BinaryOp::Add, -0.0)] {
        let mut b = B::new(&["x"]);
        let x = b.x(0);
        let z = b.c(z);
        let e = b.bin(op, x, z);
        let o = assert_exact(&b.done(e));
        assert!(is_single_input(&o), "{o}");
    }
}

#[test]
fn division_by_a_power_of_two_becomes_an_exact_multiplication() {
    for c in [
        2.0,
        0.5,
        -4.0,
        1048576.0,
        2f64.powi(1022),
        2f64.powi(-1021),
        -2f64.powi(-1000),
    ] {
        let mut b = B::new(&["x"]);
        let x = b.x(0);
        let k = b.c(c);
        let d = b.bin(BinaryOp::Div, x, k);
        let o = assert_exact(&b.done(d));
        assert!(
            o.nodes
                .iter()
                .any(|n| matches!(n.expr, Expr::Binary(BinaryOp::Mul, _, _))),
            "{c}: {o}"
        );
        // Also every subnormal-producing and rounding-sensitive input nearby.
        for bits in [
            1u64,
            3,
            0x000f_ffff_ffff_ffff,
            0x0010_0000_0000_0001,
            0x7fef_ffff_ffff_ffff,
        ] {
            for x in [f64::from_bits(bits), -f64::from_bits(bits)] {
                assert_eq!(
                    interp::eval_node(&o, o.root, &[x]).map(f64::to_bits),
                    Ok((x / c).to_bits())
                );
            }
        }
    }
    // Not a power of two, or a reciprocal that is not normal: unchanged.
    for c in [3.0, 3600.0, 2f64.powi(1023), f64::INFINITY, 0.0] {
        let mut b = B::new(&["x"]);
        let x = b.x(0);
        let k = b.c(c);
        let d = b.bin(BinaryOp::Div, x, k);
        let o = assert_exact(&b.done(d));
        assert!(
            o.nodes
                .iter()
                .any(|n| matches!(n.expr, Expr::Binary(BinaryOp::Div, _, _))),
            "{c}: {o}"
        );
    }
}

#[test]
fn add_positive_zero_is_not_rewritten() {
    // -0.0 + 0.0 == +0.0: `x + 0 -> x` would change the sign of a zero.
    let mut b = B::new(&["x"]);
    let x = b.x(0);
    let z = b.c(0.0);
    let e = b.bin(BinaryOp::Add, x, z);
    let o = assert_exact(&b.done(e));
    assert_eq!(o.nodes.len(), 3, "{o}");
}

#[test]
fn double_negation_and_unary_plus_are_removed_and_exact() {
    let mut b = B::new(&["x"]);
    let x = b.x(0);
    let n1 = b.un(UnaryOp::Neg, x);
    let n2 = b.un(UnaryOp::Neg, n1);
    let p = b.un(UnaryOp::Pos, n2);
    let o = assert_exact(&b.done(p));
    assert!(is_single_input(&o), "{o}");
}

#[test]
fn power_of_two_and_half_are_not_rewritten() {
    // pow(x, 0.5) is not sqrt(x) with glibc, and x ** 2 raises OverflowError where x * x is inf.
    for (func, e) in [(true, 0.5), (false, 2.0)] {
        let mut b = B::new(&["x"]);
        let x = b.x(0);
        let c = b.c(e);
        let r = if func {
            b.call(Func::Pow, vec![x, c])
        } else {
            b.bin(BinaryOp::Pow, x, c)
        };
        let o = assert_exact(&b.done(r));
        assert_eq!(o.nodes.len(), 3, "{o}");
    }
    let mut b = B::new(&["x"]);
    let x = b.x(0);
    let two = b.c(2.0);
    let r = b.bin(BinaryOp::Pow, x, two);
    let ir = b.done(r);
    assert_eq!(
        interp::eval_job(&optimize(&ir), &[1e200]),
        Err(EvalError::PowRange)
    );
}

#[test]
fn constant_folding_equals_run_time_and_keeps_errors() {
    // pow(2, 0.5) + log(10) * 3 // 2 folds to exactly what the evaluator computes.
    let mut b = B::new(&[]);
    let two = b.c(2.0);
    let half = b.c(0.5);
    let p = b.call(Func::Pow, vec![two, half]);
    let ten = b.c(10.0);
    let l = b.call(Func::Log, vec![ten]);
    let three = b.c(3.0);
    let m = b.bin(BinaryOp::Mul, l, three);
    let fd = b.bin(BinaryOp::FloorDiv, m, two);
    let s = b.bin(BinaryOp::Add, p, fd);
    let ir = b.done(s);
    let o = assert_exact(&ir);
    assert_eq!(o.nodes.len(), 1);
    assert_eq!(
        interp::eval_job(&o, &[]).map(f64::to_bits),
        interp::eval_job(&ir, &[]).map(f64::to_bits)
    );

    // 1/0 is kept: it must still fail for every job.
    let mut b = B::new(&["x"]);
    let one = b.c(1.0);
    let zero = b.c(0.0);
    let d = b.bin(BinaryOp::Div, one, zero);
    let x = b.x(0);
    let s = b.bin(BinaryOp::Add, x, d);
    let o = assert_exact(&b.done(s));
    assert!(
        o.nodes
            .iter()
            .any(|n| matches!(n.expr, Expr::Binary(BinaryOp::Div, _, _)))
    );
    assert_eq!(
        interp::eval_job(&o, &[1.0]),
        Err(EvalError::FloatDivisionByZero)
    );

    // log(0) is kept too.
    let mut b = B::new(&[]);
    let zero = b.c(0.0);
    let l = b.call(Func::Log, vec![zero]);
    let o = assert_exact(&b.done(l));
    assert_eq!(interp::eval_job(&o, &[]), Err(EvalError::MathDomain));
}

#[test]
fn dead_branches_of_constant_conditions_go_and_live_errors_stay() {
    // x if 1 else 1/0  ->  x
    let mut b = B::new(&["x"]);
    let x = b.x(0);
    let one = b.c(1.0);
    let zero = b.c(0.0);
    let d = b.bin(BinaryOp::Div, one, zero);
    let i = b.ife(one, x, d);
    let o = assert_exact(&b.done(i));
    assert!(is_single_input(&o), "{o}");

    // 0 and 1/0  ->  0 ; 0 or x -> x ; 2 or 1/0 -> 2
    let mut b = B::new(&["x"]);
    let zero = b.c(0.0);
    let one = b.c(1.0);
    let d = b.bin(BinaryOp::Div, one, zero);
    let a = b.push(Expr::And(zero, d), Ty::Num);
    let o = assert_exact(&b.done(a));
    assert!(matches!(o.node(o.root).expr, Expr::Const(c) if c == 0.0));

    let mut b = B::new(&["x"]);
    let zero = b.c(0.0);
    let x = b.x(0);
    let a = b.push(Expr::Or(zero, x), Ty::Num);
    let o = assert_exact(&b.done(a));
    assert!(is_single_input(&o), "{o}");

    // `True and (x > 1)` keeps its operand; a type change is never introduced.
    let mut b = B::new(&["x"]);
    let t = b.t();
    let x = b.x(0);
    let one = b.c(1.0);
    let c = b.cmp(x, vec![(CmpOp::Gt, one)]);
    let a = b.push(Expr::And(t, c), Ty::Bool);
    let o = assert_exact(&b.done(a));
    assert_eq!(o.node(o.root).ty, Ty::Bool);
}

#[test]
fn chained_comparisons_with_constant_links_are_shortened() {
    // 1 < 2 < x  ->  2 < x
    let mut b = B::new(&["x"]);
    let one = b.c(1.0);
    let two = b.c(2.0);
    let x = b.x(0);
    let c = b.cmp(one, vec![(CmpOp::Lt, two), (CmpOp::Lt, x)]);
    let o = assert_exact(&b.done(c));
    match &o.node(o.root).expr {
        Expr::Compare { rest, .. } => assert_eq!(rest.len(), 1),
        e => panic!("{e:?}"),
    }
    // 3 < 2 < 1/0  ->  False, without the division
    let mut b = B::new(&[]);
    let three = b.c(3.0);
    let two = b.c(2.0);
    let one = b.c(1.0);
    let zero = b.c(0.0);
    let d = b.bin(BinaryOp::Div, one, zero);
    let c = b.cmp(three, vec![(CmpOp::Lt, two), (CmpOp::Lt, d)]);
    let o = assert_exact(&b.done(c));
    assert_eq!(o.nodes.len(), 1, "{o}");
}

#[test]
fn common_subexpressions_are_shared() {
    // (x*y) + (x*y): one multiplication
    let mut b = B::new(&["x", "y"]);
    let x = b.x(0);
    let y = b.x(1);
    let m1 = b.bin(BinaryOp::Mul, x, y);
    let x2 = b.x(0);
    let y2 = b.x(1);
    let m2 = b.bin(BinaryOp::Mul, x2, y2);
    let s = b.bin(BinaryOp::Add, m1, m2);
    let o = assert_exact(&b.done(s));
    let muls = o
        .nodes
        .iter()
        .filter(|n| matches!(n.expr, Expr::Binary(BinaryOp::Mul, _, _)))
        .count();
    assert_eq!(muls, 1, "{o}");
    assert_eq!(o.nodes.len(), 4, "{o}");
}

fn snapshot(name: &str, ir: &Ir) {
    let o = assert_exact(ir);
    insta::assert_snapshot!(name, format!("before:\n{ir}\nafter:\n{o}"));
}

#[test]
fn ir_dumps_before_and_after() {
    // pow(2, -(fairshare_tree_usage / fairshare_perc)) * 100 * 1 + 0 * 5
    let mut b = B::new(&["fairshare_tree_usage", "fairshare_perc"]);
    let two = b.c(2.0);
    let u = b.x(0);
    let p = b.x(1);
    let d = b.bin(BinaryOp::Div, u, p);
    let n = b.un(UnaryOp::Neg, d);
    let pw = b.call(Func::Pow, vec![two, n]);
    let h = b.c(100.0);
    let m = b.bin(BinaryOp::Mul, pw, h);
    let one = b.c(1.0);
    let m1 = b.bin(BinaryOp::Mul, m, one);
    let z = b.c(0.0);
    let five = b.c(5.0);
    let zf = b.bin(BinaryOp::Mul, z, five);
    let s = b.bin(BinaryOp::Add, m1, zf);
    snapshot("seed_formula", &b.done(s));

    // walltime/ncpus if ncpus > 0 else 0, with (60*60) folded and walltime/ncpus shared
    let mut b = B::new(&["walltime", "ncpus"]);
    let w = b.x(0);
    let c = b.x(1);
    let zero = b.c(0.0);
    let gt = b.cmp(c, vec![(CmpOp::Gt, zero)]);
    let d1 = b.bin(BinaryOp::Div, w, c);
    let sixty = b.c(60.0);
    let hour = b.bin(BinaryOp::Mul, sixty, sixty);
    let d2 = b.bin(BinaryOp::Div, w, c);
    let dd = b.bin(BinaryOp::Div, d2, hour);
    let s = b.bin(BinaryOp::Add, d1, dd);
    let i = b.ife(gt, s, zero);
    snapshot("guarded_division", &b.done(i));

    // (ncpus if 1 < 2 else 1/0) + min(3, 4) * queue_priority
    let mut b = B::new(&["ncpus", "queue_priority"]);
    let one = b.c(1.0);
    let two = b.c(2.0);
    let lt = b.cmp(one, vec![(CmpOp::Lt, two)]);
    let n = b.x(0);
    let zero = b.c(0.0);
    let d = b.bin(BinaryOp::Div, one, zero);
    let i = b.ife(lt, n, d);
    let three = b.c(3.0);
    let four = b.c(4.0);
    let mn = b.call(Func::Min, vec![three, four]);
    let q = b.x(1);
    let m = b.bin(BinaryOp::Mul, mn, q);
    let s = b.bin(BinaryOp::Add, i, m);
    snapshot("dead_branch_and_fold", &b.done(s));
}
