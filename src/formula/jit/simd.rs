//! SIMD code: both sides of every branch computed and merged with masks, for formulas whose
//! every operation is inline or has a vector form (`**`, `pow`, `exp`, `log`: glibc's FMA
//! builds ported in `pymath::vector`).
//!
//! A step is four jobs, two f64x2 halves (the upper half the next two jobs): every operation
//! below is done on each half the same way. (One half a step, as inline-only formulas had
//! before, was 30% slower on the six-column `weighted6` of `bench_report`.)
//!
//! Calls (Cranelift's vectors are 128 bits, glibc's kernels here 256): each call of the step's
//! code, in the order the generator reaches them, has a region of the stack with its lanes of
//! `x`, `y` and error codes, and goes to a block wrapper (`pymath::ffi::jobsort_*_block`) that
//! runs the AVX2 kernel over the region four lanes at a time.
//! - **Staged** (at most [`MAX_STAGED`] calls): jobs go in blocks of [`BLOCK`]. For call `k`
//!   a pass over the block's jobs computes the formula up to that call (earlier calls' values
//!   read from their regions) and stores its operands; then the wrapper runs once over the
//!   block; a last pass computes the formula with every call's values and codes read from the
//!   regions. The JIT's values are not live across a call, and each call is one loop over 32
//!   jobs (the CPU overlaps the kernels' dependency chains), instead of a call per four jobs
//!   with every vector register spilled around it (all are caller-saved).
//! - **Per step** (more calls; each pass recomputes what comes before its call): each call
//!   stores its operands, runs the wrapper on the step's four lanes and reads them back.
//!
//! Errors: each lane keeps the code of the first error Python would raise. A division by
//! zero only sets a pending mask (cheap, and the code is always the same); a call's codes
//! (masked by the lanes where Python evaluates it) are merged behind the codes already there,
//! after the pending divisions, so the first error in evaluation order wins.

use super::codegen::{
    Calls, DEG_PER_RAD, Gen, JitError, RAD_PER_DEG, V, flags_trusted, flags_unaligned, float_cc,
};
use super::ffi::{VectorCall, vector_callee};
use crate::formula::ir::{Expr, Func, Ir, NodeId};
use crate::formula::pymath::EvalError;
use crate::formula::syntax::{BinaryOp, Link, UnaryOp};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    Block, BlockArg, Endianness, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind, Value,
    types,
};
use cranelift_frontend::FunctionBuilder;

/// `$e` once per half, with each of the listed `V`s bound to that half's `Value`.
macro_rules! halves {
    ($g:ident, [$($v:ident),*], $e:expr) => {{
        let lo = { $(let $v = $v[0];)* $e };
        let hi = { $(let $v = $v[1];)* $e };
        [lo, hi]
    }};
}

/// Jobs per step: two f64x2 halves.
const STEP: i64 = 4;

/// Whether every operation of the formula is inline and SIMD-able or has a vector form.
pub(super) fn simd_eligible(ir: &Ir) -> bool {
    ir.nodes.iter().all(|n| match &n.expr {
        e if vector_callee(ir, e).is_some() => true,
        Expr::Binary(op, _, _) => matches!(
            op,
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div
        ),
        Expr::Call(f, _) => matches!(
            f,
            Func::Abs | Func::Fabs | Func::Min | Func::Max | Func::Degrees | Func::Radians
        ),
        _ => true,
    })
}

/// Jobs per block of the staged loop (a multiple of the step's four): the calls' regions take
/// `24 * BLOCK` bytes of stack each.
const BLOCK: usize = 32;

/// Most calls a staged loop has: each pass recomputes what comes before its call, so the
/// code grows with the square of the calls.
const MAX_STAGED: usize = 8;

/// How many calls the SIMD step's code makes (saturating): a subtree that can raise is emitted
/// again at each of its uses, so a call is counted once per path from the root.
pub(super) fn call_count(ir: &Ir) -> usize {
    let mut count = vec![0usize; ir.nodes.len()];
    for (i, node) in ir.nodes.iter().enumerate() {
        let own = usize::from(vector_callee(ir, &node.expr).is_some());
        count[i] = crate::formula::ir::expr_children(&node.expr)
            .iter()
            .fold(own, |a, c| a.saturating_add(count[c.index()]));
    }
    count.get(ir.root.index()).copied().unwrap_or(0)
}

/// The calls' regions for a step whose code makes `count` calls (`None` for none): staged
/// when there are at most [`MAX_STAGED`].
pub(super) fn call_regions(b: &mut FunctionBuilder, count: usize) -> Option<Calls> {
    if count == 0 {
        return None;
    }
    let staged = count <= MAX_STAGED;
    let lanes = if staged { BLOCK } else { 4 };
    let regions = if staged { count } else { 1 };
    let slot = b.create_sized_stack_slot(StackSlotData::new(
        StackSlotKind::ExplicitSlot,
        (24 * lanes * regions) as u32,
        4,
    ));
    Some(Calls {
        slot,
        lanes,
        staged,
        count,
        next: 0,
        stop_at: None,
        stopped: None,
        lane_off: None,
    })
}

/// For each node, whether its subtree can raise (a division by something that may be zero, a
/// call with a vector form), in one forward pass over the arena (children come first).
pub(super) fn can_err_table(ir: &Ir) -> Vec<bool> {
    let mut can_err = vec![false; ir.nodes.len()];
    for (i, node) in ir.nodes.iter().enumerate() {
        let raises = match &node.expr {
            Expr::Binary(BinaryOp::Div, _, d) => {
                !matches!(ir.node(*d).expr, Expr::Const(c) if c != 0.0 && !c.is_nan())
            }
            e => vector_callee(ir, e).is_some(),
        };
        can_err[i] = raises
            || crate::formula::ir::expr_children(&node.expr)
                .iter()
                .any(|c| can_err[c.index()]);
    }
    can_err
}

/// The lanes' errors so far (see the module docs). `None`: no lane can have failed.
#[derive(Default)]
pub(super) struct Errs {
    /// Each lane's first error code (i64x2 halves, 0 for none), from calls and earlier
    /// divisions.
    codes: Option<V>,
    /// Lanes with a division by zero since `codes` was last updated (i64x2 masks).
    div: Option<V>,
}

impl Gen<'_, '_> {
    fn splat(&mut self, c: f64) -> V {
        let s = self.b.ins().f64const(c);
        let v = self.b.ins().splat(types::F64X2, s);
        [v, v]
    }

    fn isplat(&mut self, c: i64) -> V {
        let s = self.b.ins().iconst(types::I64, c);
        let v = self.b.ins().splat(types::I64X2, s);
        [v, v]
    }

    /// `m ? a : b` lane-wise (`m` i64x2 masks).
    fn vselect(&mut self, m: V, a: V, b: V) -> V {
        halves!(self, [m, a, b], {
            let mf = self.b.ins().bitcast(
                types::F64X2,
                MemFlagsData::new().with_endianness(Endianness::Little),
                m,
            );
            self.b.ins().bitselect(mf, a, b)
        })
    }

    fn and_mask(&mut self, ctx: Option<V>, m: V) -> V {
        match ctx {
            Some(c) => halves!(self, [c, m], self.b.ins().band(c, m)),
            None => m,
        }
    }

    fn fcmp(&mut self, cc: FloatCC, a: V, b: V) -> V {
        halves!(self, [a, b], self.b.ins().fcmp(cc, a, b))
    }

    /// The SIMD main loop over jobs `0 .. n & -step`, then a jump to `tail` with the first job
    /// left (see the module docs for the staged loop).
    pub(super) fn simd_loop(
        &mut self,
        n: Value,
        outv: Value,
        oute: Value,
        tail: Block,
    ) -> Result<(), JitError> {
        let ptr = self.ptr;
        let step = STEP;
        let nvec = self.b.ins().band_imm_s(n, -step);
        let zero = self.b.ins().iconst(ptr, 0);
        let Some((count, lanes)) = self
            .calls
            .as_ref()
            .filter(|c| c.staged)
            .map(|c| (c.count, c.lanes))
        else {
            let end = self.job_loop(zero, nvec, step, |g, off, i| {
                g.vector_job(off, i, outv, oute)
            });
            self.b.ins().jump(tail, &[BlockArg::Value(end)]);
            return Ok(());
        };
        let head = self.b.create_block();
        self.b.append_block_param(head, ptr);
        let body = self.b.create_block();
        self.b.ins().jump(head, &[BlockArg::Value(zero)]);
        self.b.switch_to_block(head);
        let start = self.b.block_params(head)[0];
        let more = self.b.ins().icmp(IntCC::SignedLessThan, start, nvec);
        self.b
            .ins()
            .brif(more, body, &[], tail, &[BlockArg::Value(start)]);
        self.b.switch_to_block(body);
        let rest = self.b.ins().isub(nvec, start);
        let full = self.b.ins().iconst(ptr, lanes as i64);
        let short = self.b.ins().icmp(IntCC::SignedLessThan, rest, full);
        let jobs = self.b.ins().select(short, rest, full);
        let end = self.b.ins().iadd(start, jobs);
        let root = self.ir.root;
        for k in 0..count {
            self.set_pass(Some(k));
            self.job_loop(start, end, step, |g, _, _| {
                g.vector(root, None, &mut Errs::default());
            });
            let calls = self.calls.as_mut().expect("staged calls");
            let Some(call) = calls.stopped.take() else {
                return Err(JitError::Codegen(format!(
                    "staged pass {k} of {count} reached no call"
                )));
            };
            let region = calls.region(k);
            self.emit_block_call(call, region, jobs);
        }
        self.set_pass(None);
        self.job_loop(start, end, step, |g, off, i| {
            g.vector_job(off, i, outv, oute)
        });
        let made = self.calls.as_ref().map_or(0, |c| c.next);
        if made != count {
            return Err(JitError::Codegen(format!(
                "the step made {made} calls, {count} were staged"
            )));
        }
        self.b.ins().jump(head, &[BlockArg::Value(end)]);
        Ok(())
    }

    fn set_pass(&mut self, stop_at: Option<usize>) {
        if let Some(c) = self.calls.as_mut() {
            c.stop_at = stop_at;
            c.stopped = None;
        }
    }

    /// A loop over jobs `from .. to` (a multiple of `step` apart), `body` emitted once for a
    /// step at job `i` (`off` is `i * 8`); the code continues after the loop, with its end.
    fn job_loop(
        &mut self,
        from: Value,
        to: Value,
        step: i64,
        mut body: impl FnMut(&mut Self, Value, Value),
    ) -> Value {
        let ptr = self.ptr;
        let head = self.b.create_block();
        self.b.append_block_param(head, ptr);
        let inside = self.b.create_block();
        let exit = self.b.create_block();
        self.b.ins().jump(head, &[BlockArg::Value(from)]);
        self.b.switch_to_block(head);
        let i = self.b.block_params(head)[0];
        let more = self.b.ins().icmp(IntCC::SignedLessThan, i, to);
        self.b.ins().brif(more, inside, &[], exit, &[]);
        self.b.switch_to_block(inside);
        let off = self.b.ins().ishl_imm_u(i, 3);
        self.off = Some(off);
        self.vmemo.clear();
        if let Some(c) = self.calls.as_mut() {
            c.next = 0;
            c.lane_off = None;
        }
        if self.calls.as_ref().is_some_and(|c| c.staged) {
            let d = self.b.ins().isub(i, from);
            let lane_off = self.b.ins().ishl_imm_u(d, 3);
            if let Some(c) = self.calls.as_mut() {
                c.lane_off = Some(lane_off);
            }
        }
        body(self, off, i);
        let next = self.b.ins().iadd_imm_s(i, step);
        self.b.ins().jump(head, &[BlockArg::Value(next)]);
        self.b.switch_to_block(exit);
        to
    }

    /// One step: jobs `i .. i + 4` (`off` is `i * 8`).
    pub(super) fn vector_job(&mut self, off: Value, i: Value, outv: Value, oute: Value) {
        let mut err = Errs::default();
        let v = self.vector(self.ir.root, None, &mut err);
        let a = halves!(self, [v], self.b.ins().fabs(v));
        let inf = self.splat(f64::INFINITY);
        let finite = self.fcmp(FloatCC::LessThan, a, inf);
        let called = err.codes.map(|c| {
            let z = self.isplat(0);
            halves!(self, [c, z], self.b.ins().icmp(IntCC::NotEqual, c, z))
        });
        let failed = match (called, err.div) {
            (Some(c), Some(d)) => Some(halves!(self, [c, d], self.b.ins().bor(c, d))),
            (c, d) => c.or(d),
        };
        let ok = match failed {
            Some(e) => halves!(self, [finite, e], self.b.ins().band_not(finite, e)),
            None => finite,
        };
        let zero = self.splat(0.0);
        let out = self.vselect(ok, v, zero);
        let vp = self.b.ins().iadd(outv, off);
        for (h, v) in out.into_iter().enumerate() {
            self.b.ins().store(flags_unaligned(), v, vp, 16 * h as i32);
        }
        // Codes: a call's (or an earlier division's) where one failed, else 1 where a later
        // division did, else 11 where not finite, else 0.
        let nf = self.isplat(i64::from(EvalError::NotFinite.code()));
        let zv = self.isplat(0);
        let mut code = halves!(
            self,
            [finite, zv, nf],
            self.b.ins().bitselect(finite, zv, nf)
        );
        if let Some(e) = err.div {
            let dz = self.isplat(i64::from(EvalError::FloatDivisionByZero.code()));
            code = halves!(self, [e, dz, code], self.b.ins().bitselect(e, dz, code));
        }
        if let (Some(c), Some(m)) = (err.codes, called) {
            code = halves!(self, [m, c, code], self.b.ins().bitselect(m, c, code));
        }
        // Errors are rare: store the step's zero bytes at once unless a lane failed.
        let ep = self.b.ins().iadd(oute, i);
        let bad = halves!(self, [ok], self.b.ins().bnot(ok));
        let bad = self.b.ins().bor(bad[0], bad[1]);
        let any = self.b.ins().vany_true(bad);
        let slow = self.b.create_block();
        let fast = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(any, slow, &[], fast, &[]);
        self.b.switch_to_block(fast);
        let z = self.b.ins().iconst(types::I32, 0);
        self.b.ins().store(flags_unaligned(), z, ep, 0);
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(slow);
        for (h, half) in code.into_iter().enumerate() {
            for lane in 0..2u8 {
                let c = self.b.ins().extractlane(half, lane);
                let at = 2 * h as i32 + i32::from(lane);
                self.b.ins().istore8(flags_trusted(), c, ep, at);
            }
        }
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
    }

    /// Whether a node's subtree can raise (a division, a call): such nodes are not shared
    /// between mask contexts.
    pub(super) fn can_err(&self, id: NodeId) -> bool {
        self.can_err[id.index()]
    }

    /// The vector form of node `id` on `x` (and `y`), in this step's lanes of its region (see
    /// the module docs); its codes, masked by `ctx`, go behind the errors already in `err`.
    fn vector_call(&mut self, id: NodeId, x: V, y: Option<V>, ctx: Option<V>, err: &mut Errs) -> V {
        let call =
            vector_callee(self.ir, &self.ir.node(id).expr).expect("a node with a vector form");
        let calls = self
            .calls
            .as_mut()
            .expect("a kernel with calls has their regions");
        let j = calls.next;
        calls.next += 1;
        let staged = calls.staged;
        let [rx, ry, rc] = calls.region(if staged { j } else { 0 });
        let (slot, lane_off) = (calls.slot, calls.lane_off);
        let stop_here = calls.stop_at == Some(j);
        let final_pass = calls.stop_at.is_none();
        let ptr = self.ptr;
        let addr = |g: &mut Self, at: i32| {
            let a = g.b.ins().stack_addr(ptr, slot, at);
            match lane_off {
                Some(o) => g.b.ins().iadd(a, o),
                None => a,
            }
        };
        if !staged || stop_here {
            if call.base.is_none() {
                let p = addr(self, rx);
                for (h, v) in x.into_iter().enumerate() {
                    self.b.ins().store(flags_trusted(), v, p, 16 * h as i32);
                }
            }
            if let Some(y) = y {
                let p = addr(self, ry);
                for (h, v) in y.into_iter().enumerate() {
                    self.b.ins().store(flags_trusted(), v, p, 16 * h as i32);
                }
            }
        }
        if stop_here {
            // This pass ends here: the block's call follows it.
            if let Some(c) = self.calls.as_mut() {
                c.stopped = Some(call);
            }
            return x;
        }
        if !staged {
            let four = self.b.ins().iconst(ptr, 4);
            self.emit_block_call(call, [rx, ry, rc], four);
        }
        let p = addr(self, rx);
        let v = [0, 16].map(|at| self.b.ins().load(types::F64X2, flags_trusted(), p, at));
        if !final_pass {
            return v; // an earlier call of a staged pass: its values only
        }
        let p = addr(self, rc);
        let mut codes = [0, 16].map(|at| self.b.ins().load(types::I64X2, flags_trusted(), p, at));
        if let Some(c) = ctx {
            codes = halves!(self, [codes, c], self.b.ins().band(codes, c));
        }
        // Earlier divisions come first, then the codes already there.
        let mut before = err.codes.take();
        if let Some(d) = err.div.take() {
            let dz = self.isplat(i64::from(EvalError::FloatDivisionByZero.code()));
            let dz = halves!(self, [d, dz], self.b.ins().band(d, dz));
            before = Some(self.first_error(before, dz));
        }
        err.codes = Some(self.first_error(before, codes));
        v
    }

    /// Call `call`'s wrapper on `n` lanes of the region at `region` (offsets of `x`, `y` and
    /// the codes in the calls' slot).
    fn emit_block_call(&mut self, call: VectorCall, region: [i32; 3], n: Value) {
        let slot = self.calls.as_ref().expect("a kernel with calls").slot;
        let ptr = self.ptr;
        let [x, y, codes] = region.map(|at| self.b.ins().stack_addr(ptr, slot, at));
        let (base, [hi, lo]) = call.base.unwrap_or((0.0, [0.0; 2]));
        let [base, hi, lo] = [base, hi, lo].map(|c| self.b.ins().f64const(c));
        let f = self
            .func_ref(call.symbol)
            .expect("the block wrappers are declared like the other wrappers");
        self.b.ins().call(f, &[x, y, codes, n, base, hi, lo]);
    }

    /// Per lane, `old` where it holds an error, else `new`.
    fn first_error(&mut self, old: Option<V>, new: V) -> V {
        match old {
            None => new,
            Some(old) => {
                let z = self.isplat(0);
                halves!(self, [old, new, z], {
                    let free = self.b.ins().icmp(IntCC::Equal, old, z);
                    self.b.ins().bitselect(free, new, old)
                })
            }
        }
    }

    /// Emit SIMD code for `id` evaluated under lane mask `ctx` (`None`: all lanes), adding the
    /// lanes' errors (where Python evaluates the operation) to `err`.
    pub(super) fn vector(&mut self, id: NodeId, ctx: Option<V>, err: &mut Errs) -> V {
        if let Some(v) = self.vmemo.get(&id) {
            return *v;
        }
        if self.calls.as_ref().is_some_and(|c| c.stopped.is_some()) {
            return self.splat(0.0); // after a staged pass's call: never used
        }
        let ir = self.ir;
        let v = match &ir.node(id).expr {
            Expr::Const(c) => self.splat(*c),
            Expr::Input(k) => {
                let off = self.off.expect("inside the loop");
                let p = self.b.ins().iadd(self.cols[*k as usize], off);
                let at = [0, 16];
                halves!(
                    self,
                    [at],
                    self.b.ins().load(types::F64X2, flags_unaligned(), p, at)
                )
            }
            Expr::Unary(op, a) => {
                let a = self.vector(*a, ctx, err);
                match op {
                    UnaryOp::Neg => halves!(self, [a], self.b.ins().fneg(a)),
                    UnaryOp::Pos => a,
                    UnaryOp::Not => {
                        let z = self.splat(0.0);
                        let c = self.fcmp(FloatCC::Equal, a, z);
                        let one = self.splat(1.0);
                        self.vselect(c, one, z)
                    }
                }
            }
            Expr::Binary(..) | Expr::And(..) | Expr::Or(..) => {
                // A chain (`a + b + c`) in a loop, not one call per link; a link already
                // computed ends the walk like a memo hit.
                let chain = ir.chain(id, |n| self.vmemo.contains_key(&n));
                let mut v = self.vector(chain.first, ctx, err);
                for (n, link, right) in chain.outward() {
                    v = match link {
                        Link::Binary(op) => self.vector_binary(n, op, v, right, ctx, err),
                        Link::And => self.vector_and_or(true, v, right, ctx, err),
                        Link::Or => self.vector_and_or(false, v, right, ctx, err),
                    };
                    if n != id && !self.can_err(n) {
                        self.vmemo.insert(n, v);
                    }
                }
                v
            }
            Expr::Compare { first, rest } => {
                let mut lhs = self.vector(*first, ctx, err);
                let mut all: Option<V> = None;
                for (op, n) in rest {
                    let inner = match all {
                        Some(m) => Some(self.and_mask(ctx, m)),
                        None => ctx,
                    };
                    let rhs = self.vector(*n, inner, err);
                    let c = self.fcmp(float_cc(*op), lhs, rhs);
                    all = Some(match all {
                        Some(m) => halves!(self, [m, c], self.b.ins().band(m, c)),
                        None => c,
                    });
                    lhs = rhs;
                }
                let one = self.splat(1.0);
                let z = self.splat(0.0);
                match all {
                    Some(m) => self.vselect(m, one, z),
                    None => one,
                }
            }
            Expr::IfElse {
                cond,
                then,
                otherwise,
            } => {
                let vc = self.vector(*cond, ctx, err);
                let z = self.splat(0.0);
                let t = self.fcmp(FloatCC::NotEqual, vc, z);
                let f = halves!(self, [t], self.b.ins().bnot(t));
                let ct = self.and_mask(ctx, t);
                let cf = self.and_mask(ctx, f);
                let vt = self.vector(*then, Some(ct), err);
                let vf = self.vector(*otherwise, Some(cf), err);
                self.vselect(t, vt, vf)
            }
            Expr::Call(func, args) => {
                let vals: Vec<V> = args.iter().map(|a| self.vector(*a, ctx, err)).collect();
                let x = vals[0];
                if vector_callee(ir, &ir.node(id).expr).is_some() {
                    let v = self.vector_call(id, x, vals.get(1).copied(), ctx, err);
                    return v; // can raise: not remembered
                }
                match func {
                    Func::Degrees => {
                        let k = self.splat(DEG_PER_RAD);
                        halves!(self, [x, k], self.b.ins().fmul(x, k))
                    }
                    Func::Radians => {
                        let k = self.splat(RAD_PER_DEG);
                        halves!(self, [x, k], self.b.ins().fmul(x, k))
                    }
                    Func::Min | Func::Max => {
                        let cc = if *func == Func::Min {
                            FloatCC::LessThan
                        } else {
                            FloatCC::GreaterThan
                        };
                        let mut best = x;
                        for &v in &vals[1..] {
                            let c = self.fcmp(cc, v, best);
                            best = self.vselect(c, v, best);
                        }
                        best
                    }
                    // Abs | Fabs (simd_eligible admits nothing else)
                    _ => halves!(self, [x], self.b.ins().fabs(x)),
                }
            }
        };
        if !self.can_err(id) {
            self.vmemo.insert(id, v);
        }
        v
    }

    /// Node `id`, `x op right` (the left operand already computed), adding the lanes where a
    /// division or a power fails to `err`.
    fn vector_binary(
        &mut self,
        id: NodeId,
        op: BinaryOp,
        x: V,
        right: NodeId,
        ctx: Option<V>,
        err: &mut Errs,
    ) -> V {
        let y = self.vector(right, ctx, err);
        match op {
            BinaryOp::Add => halves!(self, [x, y], self.b.ins().fadd(x, y)),
            BinaryOp::Sub => halves!(self, [x, y], self.b.ins().fsub(x, y)),
            BinaryOp::Mul => halves!(self, [x, y], self.b.ins().fmul(x, y)),
            BinaryOp::Pow => self.vector_call(id, x, Some(y), ctx, err),
            _ => {
                let nonzero_const =
                    matches!(self.ir.node(right).expr, Expr::Const(c) if c != 0.0 && !c.is_nan());
                if !nonzero_const {
                    let z = self.splat(0.0);
                    let is_zero = self.fcmp(FloatCC::Equal, y, z);
                    let e = self.and_mask(ctx, is_zero);
                    err.div = Some(match err.div {
                        Some(old) => halves!(self, [old, e], self.b.ins().bor(old, e)),
                        None => e,
                    });
                }
                halves!(self, [x, y], self.b.ins().fdiv(x, y))
            }
        }
    }

    /// `va and right` / `va or right`: `right` under the mask of the lanes it decides.
    fn vector_and_or(
        &mut self,
        is_and: bool,
        va: V,
        right: NodeId,
        ctx: Option<V>,
        err: &mut Errs,
    ) -> V {
        let z = self.splat(0.0);
        let t = self.fcmp(FloatCC::NotEqual, va, z);
        let taken = if is_and {
            t
        } else {
            halves!(self, [t], self.b.ins().bnot(t))
        };
        let inner = self.and_mask(ctx, taken);
        let vb = self.vector(right, Some(inner), err);
        if is_and {
            self.vselect(t, vb, va)
        } else {
            self.vselect(t, va, vb)
        }
    }
}
