//! The front end never panics and never overflows the stack, on any input; and the AST
//! printer round-trips (parse → Display → parse gives the same tree).

use jobsort::Catalog;
use jobsort::catalog::ResourceType;
use jobsort::formula::ast::{Expr, ExprKind, MAX_NESTING, MAX_PARENS};
use jobsort::formula::check::{CheckOptions, check};
use jobsort::formula::diag::{codes, render};
use jobsort::formula::parser::{MAX_LEN, parse};
use jobsort::formula::syntax::{BinaryOp, CmpOp, Span, UnaryOp};
use proptest::prelude::*;

fn catalog() -> Catalog {
    Catalog::pbs().with_resource("x", ResourceType::Float)
}

/// Check and render: neither may panic, every span must lie in the source.
fn check_all(src: &str) {
    for (compat_pbs, deny_warnings) in [(false, false), (true, true)] {
        let c = check(
            src,
            &catalog(),
            &CheckOptions {
                compat_pbs,
                deny_warnings,
            },
        );
        for d in &c.diagnostics {
            assert!(
                d.span.start <= d.span.end && d.span.end <= src.len(),
                "{src:?}: span {:?} out of range",
                d.span
            );
        }
        assert_eq!(c.is_valid(), c.ir.is_some(), "{src:?}");
        let _ = render(src, "<formula>", &c.diagnostics, compat_pbs);
    }
}

const SOUP: &[&str] = &[
    "ncpus",
    "walltime",
    "x",
    "fairshare_perc",
    "eligible_time",
    "bogus",
    "0",
    "1",
    "2.5",
    "1e308",
    ".5",
    "3e",
    "1..2",
    "(",
    ")",
    "(",
    ")",
    ",",
    "+",
    "-",
    "*",
    "/",
    "//",
    "%",
    "**",
    "<",
    "<=",
    ">",
    ">=",
    "==",
    "!=",
    "and",
    "or",
    "not",
    "if",
    "else",
    "True",
    "False",
    "sqrt",
    "log",
    "pow",
    "max",
    "round",
    "fmod",
    "inf",
    "pi",
    "[",
    "'",
    "\"",
    ".",
    ";",
    "=",
    "lambda",
    "None",
    "é",
    "＋",
    "#",
    "\n",
    " ",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let src = String::from_utf8_lossy(&bytes);
        check_all(&src);
    }

    #[test]
    fn random_token_soup_never_panics(toks in proptest::collection::vec(0..SOUP.len(), 0..60)) {
        let src: Vec<&str> = toks.iter().map(|&i| SOUP[i]).collect();
        check_all(&src.join(" "));
        check_all(&src.concat());
    }

    #[test]
    fn ast_round_trips_through_display(e in arb_expr()) {
        let text = e.to_string();
        let back = parse(&text).map_err(|d| TestCaseError::fail(format!("{text}: {d:?}")))?;
        prop_assert_eq!(back.sexpr(), e.sexpr(), "{}", text);
        // Printing is a fixed point after one round.
        prop_assert_eq!(back.to_string(), text);
    }

    #[test]
    fn generated_formulas_check_without_panicking(e in arb_expr()) {
        check_all(&e.to_string());
    }
}

fn leaf() -> impl Strategy<Value = Expr> {
    let s = Span::default();
    prop_oneof![
        (0u32..1000).prop_map(move |v| Expr::new(
            ExprKind::Num {
                value: v as f64,
                is_int: true
            },
            s
        )),
        (0u32..1000).prop_map(move |v| Expr::new(
            ExprKind::Num {
                value: v as f64 / 8.0,
                is_int: false
            },
            s
        )),
        any::<bool>().prop_map(move |b| Expr::new(ExprKind::Bool(b), s)),
        prop::sample::select(vec![
            "ncpus",
            "walltime",
            "x",
            "fairshare_perc",
            "pi",
            "bogus"
        ])
        .prop_map(move |n| Expr::new(ExprKind::Name(n.to_string()), s)),
    ]
}

fn arb_expr() -> impl Strategy<Value = Expr> {
    let s = Span::default();
    leaf().prop_recursive(6, 64, 4, move |inner| {
        let bin = prop::sample::select(BinaryOp::ALL.to_vec());
        let un = prop::sample::select(vec![UnaryOp::Neg, UnaryOp::Pos, UnaryOp::Not]);
        let cmp = prop::sample::select(vec![
            CmpOp::Lt,
            CmpOp::Le,
            CmpOp::Gt,
            CmpOp::Ge,
            CmpOp::Eq,
            CmpOp::Ne,
        ]);
        prop_oneof![
            (un, inner.clone())
                .prop_map(move |(op, a)| Expr::new(ExprKind::Unary(op, Box::new(a)), s)),
            (bin, inner.clone(), inner.clone()).prop_map(move |(op, a, b)| Expr::new(
                ExprKind::Binary(op, Box::new(a), Box::new(b)),
                s
            )),
            (
                inner.clone(),
                proptest::collection::vec((cmp, inner.clone()), 1..3)
            )
                .prop_map(move |(a, rest)| Expr::new(ExprKind::Compare(Box::new(a), rest), s)),
            (inner.clone(), inner.clone())
                .prop_map(move |(a, b)| Expr::new(ExprKind::And(Box::new(a), Box::new(b)), s)),
            (inner.clone(), inner.clone())
                .prop_map(move |(a, b)| Expr::new(ExprKind::Or(Box::new(a), Box::new(b)), s)),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(move |(t, c, o)| Expr::new(
                ExprKind::IfElse {
                    then: Box::new(t),
                    cond: Box::new(c),
                    otherwise: Box::new(o)
                },
                s
            )),
            (
                prop::sample::select(vec!["max", "min", "sqrt", "pow", "log", "hypot", "nosuch"]),
                proptest::collection::vec(inner, 0..4)
            )
                .prop_map(move |(f, args)| Expr::new(
                    ExprKind::Call {
                        name: f.to_string(),
                        name_span: s,
                        args
                    },
                    s
                )),
        ]
    })
}

#[test]
fn hundred_thousand_open_parens() {
    check_all(&"(".repeat(100_000));
    check_all(&"(".repeat(MAX_LEN));
    let c = check(&"(".repeat(60_000), &catalog(), &CheckOptions::default());
    assert_eq!(c.diagnostics[0].code, codes::TOO_DEEP);
}

#[test]
fn long_inputs_are_refused_not_crashed() {
    let src = "ncpus + ".repeat(MAX_LEN / 8) + "1";
    assert!(src.len() > MAX_LEN);
    let c = check(&src, &catalog(), &CheckOptions::default());
    assert_eq!(c.diagnostics[0].code, codes::TOO_LONG);
    check_all(&"1".repeat(MAX_LEN + 10));
    check_all(&"é".repeat(MAX_LEN));
}

/// Every shape of deep nesting, at and just beyond the limit, in debug builds and on the
/// test harness's small thread stacks. (Operator chains of any length are not nesting:
/// `tests/it/formula_nesting.rs`.)
#[test]
fn deep_nesting_of_every_kind() {
    let d = MAX_NESTING as usize;
    let p = MAX_PARENS;
    let shapes: Vec<(String, String)> = vec![
        ("-".repeat(d - 1) + "ncpus", "-".repeat(d + 5) + "ncpus"),
        (
            "not ".repeat(d - 1) + "ncpus",
            "not ".repeat(d + 5) + "ncpus",
        ),
        (
            vec!["ncpus"; d].join(" ** "),
            vec!["ncpus"; d + 5].join(" ** "),
        ),
        (
            "ncpus if ncpus > 0 else ".repeat(d - 2) + "0",
            "ncpus if ncpus > 0 else ".repeat(d + 5) + "0",
        ),
        (
            "sqrt(".repeat(p) + "ncpus" + &")".repeat(p),
            "sqrt(".repeat(p + 5) + "ncpus" + &")".repeat(p + 5),
        ),
        (
            "(ncpus + ".repeat(p) + "1" + &")".repeat(p),
            "(ncpus + ".repeat(p + 5) + "1" + &")".repeat(p + 5),
        ),
    ];
    for (ok, too_deep) in shapes {
        let c = check(&ok, &catalog(), &CheckOptions::default());
        assert!(
            c.diagnostics.iter().all(|d| d.code != codes::TOO_DEEP),
            "{}...: {:?}",
            &ok[..40],
            c.diagnostics.first()
        );
        let c = check(&too_deep, &catalog(), &CheckOptions::default());
        assert_eq!(
            c.diagnostics[0].code,
            codes::TOO_DEEP,
            "{}...",
            &too_deep[..40]
        );
        check_all(&ok);
        check_all(&too_deep);
    }
}
