//! Semantic analysis: resolve names against the [`Catalog`], check calls and types, and
//! lower the syntax tree to the typed [`Ir`].
//!
//! Name resolution (SPEC §1.3): `True`/`False` and the math constants `pi e tau inf` are
//! folded to [`Expr::Const`]; PBS keywords and numeric resources become [`Input`]s, resolved
//! here once (the deprecated `fair_share_perc` is [`Keyword::FairsharePerc`](crate::catalog::Keyword::FairsharePerc), one input).
//! A custom resource named like a Python `math` name is still the resource in
//! jobsort, with a warning, because PBS looks math names up first and would not see it.
//!
//! Types (SPEC §1.4): comparisons and `not` are `Bool`; `and`/`or` are `Bool` only when both
//! sides are; a conditional is `Bool` only when both branches are; everything else is `Num`.

use super::ast::{self, ExprKind};
use super::diag::{Diagnostic, codes};
use super::ir::{self, Expr, Func, Ir, NodeId, Ty};
use super::syntax::{Link, Span, UnaryOp};
use crate::catalog::{Catalog, Input, NameRef};

/// Every public name of Python's `math` module (3.11+). PBS binds them all before the
/// resources, so a resource with one of these names is invisible to a PBS formula.
pub const PYTHON_MATH_NAMES: &[&str] = &[
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "cbrt",
    "ceil",
    "comb",
    "copysign",
    "cos",
    "cosh",
    "degrees",
    "dist",
    "e",
    "erf",
    "erfc",
    "exp",
    "exp2",
    "expm1",
    "fabs",
    "factorial",
    "floor",
    "fmod",
    "frexp",
    "fsum",
    "gamma",
    "gcd",
    "hypot",
    "inf",
    "isclose",
    "isfinite",
    "isinf",
    "isnan",
    "isqrt",
    "lcm",
    "ldexp",
    "lgamma",
    "log",
    "log10",
    "log1p",
    "log2",
    "modf",
    "nan",
    "nextafter",
    "perm",
    "pi",
    "pow",
    "prod",
    "radians",
    "remainder",
    "sin",
    "sinh",
    "sqrt",
    "sumprod",
    "tan",
    "tanh",
    "tau",
    "trunc",
    "ulp",
];

/// Lower a syntax tree. Returns the IR when there were no errors; every diagnostic found
/// (errors and warnings) is appended to `diags`.
pub fn lower(ast: &ast::Expr, catalog: &Catalog, diags: &mut Vec<Diagnostic>) -> Option<Ir> {
    let mut cx = Lower {
        catalog,
        ir: Ir {
            nodes: Vec::new(),
            root: NodeId(0),
            inputs: Vec::new(),
        },
        diags,
        errors: 0,
        warned: Vec::new(),
    };
    let root = cx.expr(ast);
    match root {
        Some(root) if cx.errors == 0 => {
            cx.ir.root = root;
            Some(cx.ir)
        }
        _ => None,
    }
}

struct Lower<'a> {
    catalog: &'a Catalog,
    ir: Ir,
    diags: &'a mut Vec<Diagnostic>,
    errors: usize,
    /// Names already warned about (one warning per name).
    warned: Vec<String>,
}

impl Lower<'_> {
    fn error(&mut self, d: Diagnostic) -> Option<NodeId> {
        self.errors += 1;
        self.diags.push(d);
        None
    }

    fn expr(&mut self, e: &ast::Expr) -> Option<NodeId> {
        let span = e.span;
        match &e.kind {
            ExprKind::Num { value, .. } => Some(self.ir.push(Expr::Const(*value), Ty::Num, span)),
            ExprKind::Bool(b) => Some(self.ir.push(
                Expr::Const(if *b { 1.0 } else { 0.0 }),
                Ty::Bool,
                span,
            )),
            ExprKind::Name(name) => self.name(name, span),
            ExprKind::Unary(op, a) => {
                let a = self.expr(a)?;
                let ty = if *op == UnaryOp::Not {
                    Ty::Bool
                } else {
                    Ty::Num
                };
                Some(self.ir.push(Expr::Unary(*op, a), ty, span))
            }
            ExprKind::Binary(..) | ExprKind::And(..) | ExprKind::Or(..) => {
                // A chain (`a + b + c`) in a loop, not one call per link; the arena order is
                // the recursive one (each link after both its operands).
                let (first, links) = e.chain();
                let mut acc = self.expr(first);
                for link in links {
                    let Some((link_op, _, right)) = link.kind.link() else {
                        continue;
                    };
                    let b = self.expr(right);
                    acc = match (acc, b) {
                        (Some(a), Some(b)) => Some(self.link(link_op, a, b, link.span)),
                        _ => None,
                    };
                }
                acc
            }
            ExprKind::Compare(first, rest) => {
                let first = self.expr(first);
                let mut out = Vec::with_capacity(rest.len());
                let mut ok = true;
                for (op, x) in rest {
                    match self.expr(x) {
                        Some(n) => out.push((*op, n)),
                        None => ok = false,
                    }
                }
                let first = first?;
                if !ok {
                    return None;
                }
                Some(
                    self.ir
                        .push(Expr::Compare { first, rest: out }, Ty::Bool, span),
                )
            }
            ExprKind::IfElse {
                then,
                cond,
                otherwise,
            } => {
                // Evaluation order is cond, then the branch; lower cond first so the arena
                // order follows it.
                let cond = self.expr(cond);
                let then = self.expr(then);
                let otherwise = self.expr(otherwise);
                let (cond, then, otherwise) = (cond?, then?, otherwise?);
                let ty = both_bool(&self.ir, then, otherwise);
                Some(self.ir.push(
                    Expr::IfElse {
                        cond,
                        then,
                        otherwise,
                    },
                    ty,
                    span,
                ))
            }
            ExprKind::Call {
                name,
                name_span,
                args,
            } => self.call(name, *name_span, args, span),
        }
    }

    /// The IR node of one chain link over lowered operands.
    fn link(&mut self, link: Link, a: NodeId, b: NodeId, span: Span) -> NodeId {
        let (expr, ty) = match link {
            Link::Binary(op) => (Expr::Binary(op, a, b), Ty::Num),
            Link::And => (Expr::And(a, b), both_bool(&self.ir, a, b)),
            Link::Or => (Expr::Or(a, b), both_bool(&self.ir, a, b)),
        };
        self.ir.push(expr, ty, span)
    }

    fn name(&mut self, name: &str, span: Span) -> Option<NodeId> {
        let resolved = self.catalog.lookup(name);
        if let (Some(NameRef::Resource(_)), Some(r)) = (resolved, self.catalog.resource(name))
            && !r.builtin
            && PYTHON_MATH_NAMES.contains(&name)
        {
            self.warn_once(
                name,
                Diagnostic::warning(
                    codes::SHADOWED,
                    format!("in PBS, `{name}` is the math module's `{name}`, not this custom resource"),
                    span,
                )
                .with_note(format!(
                    "PBS looks math names up before resources, so there this formula would use `math.{name}`; jobsort uses the resource. Rename the resource to keep the two in agreement"
                )),
            );
        }
        match resolved {
            Some(NameRef::Keyword(k)) => {
                if name != k.name() {
                    self.warn_once(
                        name,
                        Diagnostic::warning(
                            codes::DEPRECATED,
                            format!("`{name}` is deprecated: write `{k}`"),
                            span,
                        ),
                    );
                }
                let col = self.ir.input_index(Input::Keyword(k));
                Some(self.ir.push(Expr::Input(col), Ty::Num, span))
            }
            Some(NameRef::Resource(ty)) => {
                if ty.is_numeric() {
                    let col = self.ir.input_index(Input::Resource {
                        name: name.to_string(),
                        ty,
                    });
                    Some(self.ir.push(Expr::Input(col), Ty::Num, span))
                } else {
                    self.error(
                        Diagnostic::error(
                            codes::INVALID_TYPE,
                            format!("`{name}` is a resource of an invalid type ({ty}): only numeric resources (long, float, size, time) can be used in a formula"),
                            span,
                        )
                        .with_note("PBS rejects this formula too (error 15125, \"Formula contains a resource of an invalid type\")"),
                    )
                }
            }
            None => {
                if let Some(&(_, v)) = ir::CONSTANTS.iter().find(|(n, _)| *n == name) {
                    return Some(self.ir.push(Expr::Const(v), Ty::Num, span));
                }
                if let Some(f) = Func::from_name(name) {
                    let arity = f.arity();
                    let hint = if arity.min == 1 && arity.max == Some(1) {
                        format!("`{name}(x)`")
                    } else {
                        format!("`{name}(x, y)`")
                    };
                    return self.error(Diagnostic::error(
                        codes::FUNCTION_AS_VALUE,
                        format!("`{name}` is a function, not a value: call it, as in {hint}"),
                        span,
                    ));
                }
                let d = self.unknown_name(name, span);
                self.error(d)
            }
        }
    }

    fn warn_once(&mut self, key: &str, d: Diagnostic) {
        if !self.warned.iter().any(|w| w == key) {
            self.warned.push(key.to_string());
            self.diags.push(d);
        }
    }

    fn unknown_name(&self, name: &str, span: Span) -> Diagnostic {
        let special = match name {
            "fair_share_factor" => Some(
                "`fair_share_factor` is not a PBS keyword (PBS rejects it too): did you mean `fairshare_factor`?".to_string(),
            ),
            "math" => Some(
                "the module `math` is not a value: its functions and constants are used directly (`sqrt(x)`, `pi`)".to_string(),
            ),
            "nan" => Some(
                "`nan` is not supported: a formula whose value is NaN gives every job an error".to_string(),
            ),
            "true" | "false" | "TRUE" | "FALSE" => Some(format!(
                "unknown name `{name}`: the boolean constants are `True` and `False`"
            )),
            _ if PYTHON_MATH_NAMES.contains(&name) => Some(format!(
                "`{name}` from Python's math module is not supported by jobsort"
            )),
            _ => None,
        };
        if let Some(msg) = special {
            return Diagnostic::error(codes::UNKNOWN_NAME, msg, span);
        }
        let mut d = Diagnostic::error(codes::UNKNOWN_NAME, format!("unknown name `{name}`"), span);
        let candidates = self
            .catalog
            .names()
            .filter(|n| self.catalog.resource_type(n).is_none_or(|t| t.is_numeric()))
            .chain(ir::CONSTANTS.iter().map(|(n, _)| *n));
        if let Some(s) = suggest(name, candidates) {
            d = d.with_note(format!("did you mean `{s}`?"));
            // A near keyword may be chance: the name may be the site's own resource.
            d = d.with_note(format!(
                "if `{name}` is a custom resource, declare it: `--resource {name}:long` (or \
                 `float`), or `--resourcedef FILE`"
            ));
        } else {
            d = d.with_note(
                "a formula may use PBS keywords, numeric resources, math functions and constants; declare custom resources with `--resource NAME:TYPE` or `--resourcedef FILE`",
            );
        }
        d.with_note(
            "PBS rejects unknown names too (error 15124, \"Formula contains invalid keyword\")",
        )
    }

    fn call(
        &mut self,
        name: &str,
        name_span: Span,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<NodeId> {
        let Some(func) = Func::from_name(name) else {
            // Still check the arguments, to report every error at once.
            for a in args {
                self.expr(a);
            }
            let d = match name {
                "int" => Diagnostic::error(
                    codes::UNKNOWN_FUNCTION,
                    "`int(x)` is not supported: write `trunc(x)` (or `floor(x)`)",
                    name_span,
                ),
                "float" => Diagnostic::error(
                    codes::UNKNOWN_FUNCTION,
                    "`float(x)` is not needed: every value is already a float; write `x`",
                    name_span,
                ),
                "bool" => Diagnostic::error(
                    codes::UNKNOWN_FUNCTION,
                    "`bool(x)` is not supported: write `x != 0`",
                    name_span,
                ),
                _ if self.catalog.lookup(name).is_some()
                    || ir::CONSTANTS.iter().any(|(n, _)| *n == name) =>
                {
                    Diagnostic::error(
                        codes::NOT_A_FUNCTION,
                        format!("`{name}` is a value, not a function: it cannot be called"),
                        name_span,
                    )
                    .with_note("to multiply, write `*` between the value and the parenthesis")
                }
                _ if PYTHON_MATH_NAMES.contains(&name) => Diagnostic::error(
                    codes::UNKNOWN_FUNCTION,
                    format!("`{name}` from Python's math module is not supported by jobsort"),
                    name_span,
                )
                .with_note(format!("supported functions: {}", func_list())),
                _ => {
                    let mut d = Diagnostic::error(
                        codes::UNKNOWN_FUNCTION,
                        format!("unknown function `{name}`"),
                        name_span,
                    );
                    match suggest(name, Func::ALL.iter().map(|f| f.name())) {
                        Some(s) => d = d.with_note(format!("did you mean `{s}`?")),
                        None => d = d.with_note(format!("supported functions: {}", func_list())),
                    }
                    d
                }
            };
            return self.error(d);
        };
        let arity = func.arity();
        let mut ok = true;
        if !arity.accepts(args.len()) {
            let want = match arity.max {
                Some(m) if m == arity.min => {
                    format!("{} argument{}", m, if m == 1 { "" } else { "s" })
                }
                Some(m) => format!("{} to {} arguments", arity.min, m),
                None => format!("at least {} arguments", arity.min),
            };
            ok = false;
            self.errors += 1;
            self.diags.push(Diagnostic::error(
                codes::ARITY,
                format!(
                    "`{name}` takes {want}, but {} {} given",
                    args.len(),
                    if args.len() == 1 { "was" } else { "were" }
                ),
                span,
            ));
        }
        if func == Func::Round && args.len() == 2 && !is_int_literal(&args[1]) {
            ok = false;
            self.errors += 1;
            self.diags.push(
                Diagnostic::error(
                    codes::ROUND_DIGITS,
                    "the number of digits in `round(x, n)` must be an integer literal such as `2`",
                    args[1].span,
                )
                .with_note(
                    "Python raises a TypeError for a float `n`, so jobsort requires a literal",
                ),
            );
        }
        let mut ids = Vec::with_capacity(args.len());
        for a in args {
            match self.expr(a) {
                Some(id) => ids.push(id),
                None => ok = false,
            }
        }
        if !ok {
            return None;
        }
        Some(self.ir.push(Expr::Call(func, ids), Ty::Num, span))
    }
}

fn both_bool(ir: &Ir, a: NodeId, b: NodeId) -> Ty {
    if ir.node(a).ty == Ty::Bool && ir.node(b).ty == Ty::Bool {
        Ty::Bool
    } else {
        Ty::Num
    }
}

fn is_int_literal(e: &ast::Expr) -> bool {
    match &e.kind {
        ExprKind::Num { is_int, .. } => *is_int,
        ExprKind::Unary(UnaryOp::Neg | UnaryOp::Pos, a) => is_int_literal(a),
        _ => false,
    }
}

fn func_list() -> String {
    Func::ALL
        .iter()
        .map(|f| f.name())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The closest candidate by edit distance, if close enough to be a plausible typo.
pub fn suggest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let len = name.chars().count();
    if len <= 2 {
        return None;
    }
    let limit = (len / 3).clamp(1, 3);
    let lower = name.to_ascii_lowercase();
    candidates
        .map(|c| (levenshtein(&lower, &c.to_ascii_lowercase()), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, c)| (d, c.len()))
        .map(|(_, c)| c)
}

/// Edit distance (insertions, deletions, substitutions; an adjacent swap counts as one).
pub fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Keyword, ResourceType};
    use crate::formula::parser::parse;

    fn run(src: &str, cat: &Catalog) -> (Option<Ir>, Vec<Diagnostic>) {
        let mut d = vec![];
        let ast = parse(src).unwrap();
        (lower(&ast, cat, &mut d), d)
    }

    #[test]
    fn names_resolve_and_types_follow_spec() {
        let (ir, d) = run("fair_share_perc + ncpus", &Catalog::pbs());
        let ir = ir.unwrap();
        assert_eq!(
            ir.inputs,
            vec![
                Input::Keyword(Keyword::FairsharePerc),
                Input::Resource {
                    name: "ncpus".to_string(),
                    ty: ResourceType::Long
                }
            ]
        );
        assert_eq!(d[0].code, codes::DEPRECATED);
        let (ir, _) = run("ncpus > 1 and mem < 2", &Catalog::pbs());
        let ir = ir.unwrap();
        assert_eq!(ir.node(ir.root).ty, Ty::Bool);
        let (ir, _) = run("ncpus > 1 and mem", &Catalog::pbs());
        let ir = ir.unwrap();
        assert_eq!(ir.node(ir.root).ty, Ty::Num);
        let (ir, _) = run("True if ncpus else False", &Catalog::pbs());
        let ir = ir.unwrap();
        assert_eq!(ir.node(ir.root).ty, Ty::Bool);
    }

    #[test]
    fn name_errors() {
        let (ir, d) = run("ncpu", &Catalog::pbs());
        assert!(ir.is_none());
        assert!(d[0].notes[0].contains("`ncpus`"), "{d:?}");
        let (_, d) = run("fair_share_factor", &Catalog::pbs());
        assert!(d[0].message.contains("`fairshare_factor`"));
        let (_, d) = run("accelerator", &Catalog::pbs());
        assert_eq!(d[0].code, codes::INVALID_TYPE);
        let (_, d) = run("sqrt", &Catalog::pbs());
        assert_eq!(d[0].code, codes::FUNCTION_AS_VALUE);
        let (_, d) = run("ncpus(2)", &Catalog::pbs());
        assert_eq!(d[0].code, codes::NOT_A_FUNCTION);
        let (_, d) = run("sqrt(1, 2)", &Catalog::pbs());
        assert_eq!(d[0].code, codes::ARITY);
        let (_, d) = run("round(ncpus, ncpus)", &Catalog::pbs());
        assert_eq!(d[0].code, codes::ROUND_DIGITS);
        let (ir, _) = run("round(ncpus, -2)", &Catalog::pbs());
        assert!(ir.is_some());
        let cat = Catalog::pbs().with_resource("gamma", ResourceType::Float);
        let (ir, d) = run("gamma + gamma", &cat);
        assert!(ir.is_some());
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].code, codes::SHADOWED);
    }

    #[test]
    fn edit_distance() {
        assert_eq!(levenshtein("ncpu", "ncpus"), 1);
        assert_eq!(levenshtein("wallitme", "walltime"), 1);
        assert_eq!(suggest("sqr", ["sqrt", "exp"].into_iter()), Some("sqrt"));
        assert_eq!(suggest("zzzzzz", ["sqrt", "exp"].into_iter()), None);
    }
}
