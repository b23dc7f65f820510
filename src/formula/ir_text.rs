//! The IR's text form read back: the inverse of [`Ir`]'s `Display`, so optimiser and JIT tests
//! can be written as text.
//!
//! ```text
//! input 0 = ncpus
//! %0 = input 0 : num
//! %1 = const 2.0 : num
//! %2 = binary * %0, %1 : num  ; root
//! ```
//!
//! Input names are resolved against a [`Catalog`] (the text does not carry their types), and
//! spans, which the text does not show, are empty.

use super::ir::{Expr, Func, Ir, NodeId, Ty};
use super::syntax::{BinaryOp, CmpOp, Span, UnaryOp};
use crate::catalog::Catalog;

/// A line of IR text that does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("IR text line {line}: {message}")]
pub struct IrTextError {
    pub line: usize,
    pub message: String,
}

/// Read the text [`Ir`]'s `Display` writes. Every node must refer only to earlier nodes and
/// declared inputs; the node marked `; root` is the root (the last node when none is marked).
pub fn parse_ir(text: &str, catalog: &Catalog) -> Result<Ir, IrTextError> {
    let mut ir = Ir {
        nodes: Vec::new(),
        root: NodeId(0),
        inputs: Vec::new(),
    };
    let mut root = None;
    for (i, raw) in text.lines().enumerate() {
        let err = |message: String| IrTextError {
            line: i + 1,
            message,
        };
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix("input ") {
            let (index, name) = rest
                .split_once(" = ")
                .ok_or_else(|| err(format!("expected `input K = NAME`, found `{line}`")))?;
            if index.trim().parse::<usize>().ok() != Some(ir.inputs.len()) {
                return Err(err(format!(
                    "inputs must be numbered in order: expected input {}",
                    ir.inputs.len()
                )));
            }
            let name = name.trim();
            let input = catalog
                .input(name)
                .ok_or_else(|| err(format!("`{name}` is not a keyword or numeric resource")))?;
            ir.inputs.push(input);
            continue;
        }
        let (line, is_root) = match line.strip_suffix("; root") {
            Some(l) => (l.trim_end(), true),
            None => (line, false),
        };
        let (id, rest) = line
            .split_once(" = ")
            .ok_or_else(|| err(format!("expected `%N = OP ... : TYPE`, found `{line}`")))?;
        if node_ref(id) != Some(ir.nodes.len()) {
            return Err(err(format!(
                "nodes must be numbered in order: expected %{}",
                ir.nodes.len()
            )));
        }
        let (body, ty) = rest
            .rsplit_once(" : ")
            .ok_or_else(|| err("missing the type (`: num` or `: bool`)".to_string()))?;
        let ty = match ty.trim() {
            "num" => Ty::Num,
            "bool" => Ty::Bool,
            other => return Err(err(format!("unknown type `{other}`"))),
        };
        let expr = expr(body.trim(), ir.nodes.len(), ir.inputs.len()).map_err(err)?;
        ir.push(expr, ty, Span::default());
        if is_root {
            if root.is_some() {
                return Err(err("a second node is marked `; root`".to_string()));
            }
            root = Some(NodeId((ir.nodes.len() - 1) as u32));
        }
    }
    let Some(last) = ir.nodes.len().checked_sub(1) else {
        return Err(IrTextError {
            line: text.lines().count(),
            message: "no nodes".to_string(),
        });
    };
    ir.root = root.unwrap_or(NodeId(last as u32));
    Ok(ir)
}

/// `%N` as `N`.
fn node_ref(s: &str) -> Option<usize> {
    s.trim().strip_prefix('%')?.parse().ok()
}

/// One node's operation; `nodes` nodes and `inputs` inputs come before it.
fn expr(body: &str, nodes: usize, inputs: usize) -> Result<Expr, String> {
    let child = |s: &str| -> Result<NodeId, String> {
        match node_ref(s) {
            Some(k) if k < nodes => Ok(NodeId(k as u32)),
            Some(k) => Err(format!("%{k} is not an earlier node")),
            None => Err(format!("expected a node `%N`, found `{}`", s.trim())),
        }
    };
    let pair = |s: &str| -> Result<(NodeId, NodeId), String> {
        let (a, b) = s
            .split_once(',')
            .ok_or_else(|| format!("expected `%A, %B`, found `{s}`"))?;
        Ok((child(a)?, child(b)?))
    };
    let (op, rest) = body.split_once(' ').unwrap_or((body, ""));
    Ok(match op {
        "const" => Expr::Const(
            rest.trim()
                .parse()
                .map_err(|_| format!("`{rest}` is not a number"))?,
        ),
        "input" => match rest.trim().parse::<u32>() {
            Ok(k) if (k as usize) < inputs => Expr::Input(k),
            _ => return Err(format!("`{rest}` is not a declared input")),
        },
        "unary" => {
            let (op, a) = rest
                .split_once(' ')
                .ok_or_else(|| format!("expected `unary OP %A`, found `{body}`"))?;
            let op = match op {
                "-" => UnaryOp::Neg,
                "+" => UnaryOp::Pos,
                "not" => UnaryOp::Not,
                _ => return Err(format!("unknown unary operator `{op}`")),
            };
            Expr::Unary(op, child(a)?)
        }
        "binary" => {
            let (op, operands) = rest
                .split_once(' ')
                .ok_or_else(|| format!("expected `binary OP %A, %B`, found `{body}`"))?;
            let op = BinaryOp::ALL
                .into_iter()
                .find(|o| o.to_string() == op)
                .ok_or_else(|| format!("unknown binary operator `{op}`"))?;
            let (a, b) = pair(operands)?;
            Expr::Binary(op, a, b)
        }
        "compare" => {
            let mut words = rest.split_whitespace();
            let first = child(words.next().unwrap_or(""))?;
            let mut links = Vec::new();
            while let Some(op) = words.next() {
                let op = [
                    CmpOp::Lt,
                    CmpOp::Le,
                    CmpOp::Gt,
                    CmpOp::Ge,
                    CmpOp::Eq,
                    CmpOp::Ne,
                ]
                .into_iter()
                .find(|o| o.to_string() == op)
                .ok_or_else(|| format!("unknown comparison `{op}`"))?;
                links.push((op, child(words.next().unwrap_or(""))?));
            }
            if links.is_empty() {
                return Err("a comparison needs at least one operator".to_string());
            }
            Expr::Compare { first, rest: links }
        }
        "and" => {
            let (a, b) = pair(rest)?;
            Expr::And(a, b)
        }
        "or" => {
            let (a, b) = pair(rest)?;
            Expr::Or(a, b)
        }
        "if" => {
            let bad = || format!("expected `if %C then %A else %B`, found `{body}`");
            let (cond, branches) = rest.split_once(" then ").ok_or_else(bad)?;
            let (then, otherwise) = branches.split_once(" else ").ok_or_else(bad)?;
            Expr::IfElse {
                cond: child(cond)?,
                then: child(then)?,
                otherwise: child(otherwise)?,
            }
        }
        "call" => {
            let bad = || format!("expected `call NAME(%A, ...)`, found `{body}`");
            let (name, args) = rest.split_once('(').ok_or_else(bad)?;
            let args = args.strip_suffix(')').ok_or_else(bad)?;
            let func = Func::from_name(name).ok_or_else(|| format!("unknown function `{name}`"))?;
            let args = if args.trim().is_empty() {
                Vec::new()
            } else {
                args.split(',').map(child).collect::<Result<_, _>>()?
            };
            Expr::Call(func, args)
        }
        _ => return Err(format!("unknown operation `{op}`")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::ResourceType;
    use crate::formula::check::{CheckOptions, check};
    use crate::formula::opt::optimize;

    /// The IR without its spans (the text form does not carry them).
    fn without_spans(mut ir: Ir) -> Ir {
        for node in &mut ir.nodes {
            node.span = Span::default();
        }
        ir
    }

    #[test]
    fn display_and_parse_round_trip() {
        let catalog = Catalog::pbs().with_resource("gpus", ResourceType::Float);
        for src in [
            "ncpus*2 + eligible_time/3600",
            "-walltime",
            "not ncpus",
            "1 < ncpus <= 4 != mem",
            "ncpus and mem or gpus",
            "ncpus // 2 % 3 ** -gpus",
            "gpus if fair_share_perc > 0.5 else hypot()",
            "min(ncpus, mem, 3) + round(walltime, -2) + log(mem, 2)",
            "ncpus * 1e300 - 2.5e-3",
            "True",
        ] {
            let ir = check(src, &catalog, &CheckOptions::default()).ir.unwrap();
            for ir in [ir.clone(), optimize(&ir)] {
                let text = ir.to_string();
                let back = parse_ir(&text, &catalog).unwrap_or_else(|e| panic!("{e}\n{text}"));
                assert_eq!(back.to_string(), text, "{src}");
                assert_eq!(back, without_spans(ir), "{src}");
            }
        }
    }

    #[test]
    fn tests_can_be_written_as_text() {
        let ir = parse_ir(
            "input 0 = ncpus\n%0 = input 0 : num\n%1 = const 2.0 : num\n%2 = binary * %0, %1 : num\n",
            &Catalog::pbs(),
        )
        .unwrap();
        assert_eq!(ir.root, NodeId(2));
        assert_eq!(crate::formula::interp::eval_job(&ir, &[3.0]), Ok(6.0));
    }

    #[test]
    fn errors_name_the_line() {
        let cat = Catalog::pbs();
        let e = |t: &str| parse_ir(t, &cat).unwrap_err().to_string();
        assert_eq!(
            e("%0 = const 1.0 : num\n%1 = binary + %0, %2 : num"),
            "IR text line 2: %2 is not an earlier node"
        );
        assert_eq!(
            e("%0 = input 0 : num"),
            "IR text line 1: `0` is not a declared input"
        );
        assert_eq!(
            e("input 0 = select"),
            "IR text line 1: `select` is not a keyword or numeric resource"
        );
        assert_eq!(
            e("%1 = const 1.0 : num"),
            "IR text line 1: nodes must be numbered in order: expected %0"
        );
        assert_eq!(
            e("%0 = const 1.0 : text"),
            "IR text line 1: unknown type `text`"
        );
        assert_eq!(e(""), "IR text line 0: no nodes");
    }
}
