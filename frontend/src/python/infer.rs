//! Type inference for unannotated parameters, by how the source uses them:
//! a parameter used as a `range` bound, an index or an extent is an `int`; a subscripted
//! parameter (or one whose `.shape` is read) is a `float64` array whose rank comes from
//! its subscripts or from `N, M = A.shape`; anything else is a `float64` scalar.
//! Helper functions are followed, with their parameters mapped to the caller's arrays.

use super::ast::*;
use super::names::{self, NpName};
use adjc_ir::Diagnostic;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug, PartialEq)]
pub enum InfKind {
    Int,
    Float,
    Array { rank: usize, names: Vec<Option<String>> },
}

#[derive(Clone, Debug)]
pub struct Inferred {
    pub kind: InfKind,
    pub reason: String,
}

#[derive(Default, Debug)]
struct Facts {
    int_reason: Option<&'static str>,
    float_use: bool,
    sub_rank: Option<usize>,
    exact_rank: Option<usize>,
    min_rank: usize,
    min_reason: Option<String>,
    array_reason: Option<String>,
    names: BTreeMap<usize, String>,
    names_from: Vec<String>,
    peers: BTreeSet<String>,
}

#[derive(Clone, Copy)]
enum Ctx {
    Int(&'static str),
    Value,
}

struct Walker<'a> {
    m: &'a ModuleAst,
    facts: BTreeMap<String, Facts>,
    stack: Vec<String>,
}

type Aliases = BTreeMap<String, Option<String>>;

pub fn infer(
    m: &ModuleAst,
    body: &[St],
    wanted: &[String],
    arrays: &BTreeSet<String>,
) -> Result<BTreeMap<String, Inferred>, Diagnostic> {
    let mut w = Walker { m, facts: BTreeMap::new(), stack: Vec::new() };
    let mut al: Aliases = BTreeMap::new();
    for p in wanted {
        al.insert(p.clone(), Some(p.clone()));
        w.facts.insert(p.clone(), Facts::default());
    }
    w.block(body, &mut al);
    // Assignments `P[...] = value` give `P` at least the rank of the value; repeat while
    // ranks keep growing (each pass can only raise them, up to a small bound).
    for _ in 0..4 {
        let before: Vec<usize> = w.facts.values().map(|f| f.min_rank).collect();
        let mut al: Aliases = wanted.iter().map(|p| (p.clone(), Some(p.clone()))).collect();
        let mut locals = BTreeMap::new();
        w.refine_block(body, &mut al, &mut locals);
        let after: Vec<usize> = w.facts.values().map(|f| f.min_rank).collect();
        if before == after {
            break;
        }
    }
    let mut out = BTreeMap::new();
    // Ranks known directly, used to give arrays of unknown rank the rank of their peers.
    let mut known_rank: BTreeMap<String, usize> = BTreeMap::new();
    for (p, f) in &w.facts {
        let r = f.exact_rank.unwrap_or(f.sub_rank.unwrap_or(0).max(f.min_rank));
        if r > 0 {
            known_rank.insert(p.clone(), r);
        }
    }
    for p in wanted {
        let Some(f) = w.facts.get(p) else { continue };
        let is_array = arrays.contains(p)
            || f.sub_rank.is_some()
            || f.exact_rank.is_some()
            || f.min_rank > 0
            || f.array_reason.is_some();
        if is_array {
            let mut reasons = Vec::new();
            let rank = if let Some(r) = f.exact_rank {
                reasons.push(format!("`.shape` unpacked into {r} names"));
                r
            } else if let Some(&r) = known_rank.get(p) {
                if let Some(s) = f.sub_rank.filter(|s| *s == r) {
                    reasons.push(format!("subscripted with {s} ind{}", if s == 1 { "ex" } else { "ices" }));
                } else if let Some(why) = &f.min_reason {
                    reasons.push(why.clone());
                } else {
                    reasons.push(format!("`.shape[{}]` is read", r - 1));
                }
                r
            } else if let Some((peer, r)) = f.peers.iter().find_map(|q| known_rank.get(q).map(|r| (q, *r))) {
                reasons.push(format!("used element-wise with `{peer}`"));
                r
            } else {
                return Err(Diagnostic::error(
                    adjc_ir::Span::NONE,
                    format!("cannot infer the number of dimensions of `{p}`"),
                )
                .with_help(format!(
                    "annotate it in the source (`{p}: float64[N, M]`) or pass `--arg '{p}: float64[N, M]'`"
                )));
            };
            if let Some(why) = &f.array_reason {
                if reasons.is_empty() {
                    reasons.push(why.clone());
                }
            }
            let names: Vec<Option<String>> = (0..rank).map(|k| f.names.get(&k).cloned()).collect();
            if names.iter().any(Option::is_some) {
                let from: Vec<String> = f.names_from.iter().map(|s| format!("`{s}`")).collect();
                reasons.push(format!("extents from {}", from.join(", ")));
            }
            out.insert(p.clone(), Inferred { kind: InfKind::Array { rank, names }, reason: reasons.join("; ") });
        } else if let Some(why) = f.int_reason {
            out.insert(p.clone(), Inferred { kind: InfKind::Int, reason: why.to_string() });
        } else {
            let why = if f.float_use { "used in arithmetic" } else { "not used as an array or an integer" };
            out.insert(p.clone(), Inferred { kind: InfKind::Float, reason: why.to_string() });
        }
    }
    Ok(out)
}

fn root(al: &Aliases, n: &str) -> Option<String> {
    al.get(n).cloned().flatten()
}

impl Walker<'_> {
    fn facts(&mut self, r: &str) -> &mut Facts {
        self.facts.entry(r.to_string()).or_default()
    }

    fn block(&mut self, body: &[St], al: &mut Aliases) {
        for s in body {
            self.stmt(s, al);
        }
    }

    fn stmt(&mut self, s: &St, al: &mut Aliases) {
        match &s.kind {
            StKind::Assign { targets, value } => {
                self.shape_names(targets, value, al);
                self.ex(value, Ctx::Value, al);
                for t in targets {
                    self.target(t, al);
                }
                // `B = A` makes B another name for the parameter.
                let alias = value.as_name().and_then(|n| root(al, n));
                for t in targets {
                    if let Some(n) = t.as_name() {
                        al.insert(n.to_string(), alias.clone());
                    }
                }
            }
            StKind::AugAssign { target, value, .. } => {
                self.ex(value, Ctx::Value, al);
                self.target(target, al);
                if let Some(r) = target.as_name().and_then(|n| root(al, n)) {
                    // In-place update of a parameter: it is a number or an array; the value decides.
                    if let Some(v) = value.as_name().and_then(|n| root(al, n)) {
                        self.facts(&r).peers.insert(v.clone());
                        self.facts(&v).peers.insert(r);
                    }
                }
            }
            StKind::Expr(e) => self.ex(e, Ctx::Value, al),
            StKind::For { var, iter, body, .. } => {
                self.ex(iter, Ctx::Value, al);
                al.insert(var.clone(), None);
                self.block(body, al);
            }
            StKind::If { cond, then_body, else_body } => {
                self.ex(cond, Ctx::Value, al);
                self.block(then_body, al);
                self.block(else_body, al);
            }
            StKind::While { cond, body } => {
                self.ex(cond, Ctx::Value, al);
                self.block(body, al);
            }
            StKind::Return(Some(e)) => self.ex(e, Ctx::Value, al),
            StKind::Return(None) | StKind::Pass | StKind::Break | StKind::Continue => {}
        }
    }

    /// `N, M = A.shape`, `n = A.shape[0]`, `n = len(A)` name the extents of `A`.
    fn shape_names(&mut self, targets: &[Ex], value: &Ex, al: &Aliases) {
        let Some(t) = targets.first() else { return };
        let stmt = format!("{} = {}", t.text, value.text);
        match (&t.kind, &value.kind) {
            (ExKind::Tuple(items), ExKind::Attr(obj, a)) if a == "shape" => {
                if let Some(r) = obj.as_name().and_then(|n| root(al, n)) {
                    let f = self.facts(&r);
                    f.exact_rank = Some(items.len());
                    for (k, it) in items.iter().enumerate() {
                        if let Some(n) = it.as_name() {
                            f.names.entry(k).or_insert_with(|| n.to_string());
                        }
                    }
                    f.names_from.push(stmt);
                }
            }
            (ExKind::Name(n), ExKind::Subscript(..)) => self.shape_item_name(n, value, &stmt, al),
            // `I, J, K = A.shape[0], A.shape[1], A.shape[2]`
            (ExKind::Tuple(items), ExKind::Tuple(vals)) if items.len() == vals.len() => {
                for (it, v) in items.iter().zip(vals) {
                    if let Some(n) = it.as_name() {
                        self.shape_item_name(n, v, &stmt, al);
                    }
                }
            }
            (ExKind::Name(n), ExKind::Call { func, args, .. }) if func.as_name() == Some("len") && args.len() == 1 => {
                if let Some(r) = args[0].as_name().and_then(|x| root(al, x)) {
                    let f = self.facts(&r);
                    f.names.entry(0).or_insert_with(|| n.clone());
                    f.names_from.push(stmt);
                }
            }
            _ => {}
        }
    }

    /// `n = A.shape[k]` names extent `k` of `A`.
    fn shape_item_name(&mut self, n: &str, value: &Ex, stmt: &str, al: &Aliases) {
        let ExKind::Subscript(base, idx) = &value.kind else { return };
        if idx.len() != 1 {
            return;
        }
        if let (ExKind::Attr(obj, a), ExKind::Int(k)) = (&base.kind, &idx[0].kind) {
            if a == "shape" && *k >= 0 {
                if let Some(r) = obj.as_name().and_then(|x| root(al, x)) {
                    let f = self.facts(&r);
                    f.names.entry(*k as usize).or_insert_with(|| n.to_string());
                    if !f.names_from.iter().any(|s| s == stmt) {
                        f.names_from.push(stmt.to_string());
                    }
                }
            }
        }
    }

    fn target(&mut self, t: &Ex, al: &mut Aliases) {
        match &t.kind {
            ExKind::Subscript(..) => self.ex(t, Ctx::Value, al),
            ExKind::Tuple(items) => {
                for i in items {
                    self.target(i, al);
                }
                for i in items {
                    if let Some(n) = i.as_name() {
                        al.insert(n.to_string(), None);
                    }
                }
            }
            _ => {}
        }
    }

    fn array_use(&mut self, e: &Ex, why: String, al: &Aliases) -> bool {
        if let Some(r) = e.as_name().and_then(|n| root(al, n)) {
            let f = self.facts(&r);
            if f.array_reason.is_none() {
                f.array_reason = Some(why);
            }
            true
        } else {
            false
        }
    }

    fn ex(&mut self, e: &Ex, ctx: Ctx, al: &mut Aliases) {
        match &e.kind {
            ExKind::Name(n) => {
                if let Some(r) = root(al, n) {
                    let f = self.facts(&r);
                    match ctx {
                        Ctx::Int(why) => {
                            if f.int_reason.is_none() {
                                f.int_reason = Some(why);
                            }
                        }
                        Ctx::Value => f.float_use = true,
                    }
                }
            }
            ExKind::Subscript(base, items) => {
                let count = items
                    .iter()
                    .filter(|i| !matches!(i.kind, ExKind::NoneLit | ExKind::Ellipsis) && !is_newaxis(i))
                    .count();
                let ellipsis = items.iter().any(|i| matches!(i.kind, ExKind::Ellipsis));
                if let Some(r) = base.as_name().and_then(|n| root(al, n)) {
                    let f = self.facts(&r);
                    if ellipsis {
                        f.min_rank = f.min_rank.max(count);
                    } else {
                        f.sub_rank = Some(f.sub_rank.unwrap_or(0).max(count));
                    }
                } else if let ExKind::Attr(obj, a) = &base.kind {
                    if a == "shape" {
                        if let (Some(r), Some(ExKind::Int(k))) =
                            (obj.as_name().and_then(|n| root(al, n)), items.first().map(|i| &i.kind))
                        {
                            let f = self.facts(&r);
                            if *k >= 0 {
                                f.min_rank = f.min_rank.max(*k as usize + 1);
                            } else {
                                f.min_rank = f.min_rank.max(k.unsigned_abs() as usize);
                            }
                        }
                    } else {
                        self.ex(base, Ctx::Value, al);
                    }
                } else {
                    self.ex(base, Ctx::Value, al);
                }
                for it in items {
                    match &it.kind {
                        ExKind::Slice(a, b, c) => {
                            for x in [a, b, c].into_iter().flatten() {
                                self.ex(x, Ctx::Int("used in a slice bound"), al);
                            }
                        }
                        _ => self.ex(it, Ctx::Int("used as an array index"), al),
                    }
                }
            }
            ExKind::Attr(obj, a) => {
                if !self.array_use(obj, format!("`.{a}` is used"), al) {
                    self.ex(obj, Ctx::Value, al);
                }
            }
            ExKind::Call { func, args, kwargs } => self.call(func, args, kwargs, ctx, al),
            ExKind::Bin(op, l, r) => {
                if *op == BinOpAst::MatMul {
                    for x in [l, r] {
                        if !self.array_use(x, "used in `@`".into(), al) {
                            self.ex(x, Ctx::Value, al);
                        }
                    }
                    return;
                }
                self.ex(l, ctx, al);
                self.ex(r, ctx, al);
                if let (Some(a), Some(b)) =
                    (l.as_name().and_then(|n| root(al, n)), r.as_name().and_then(|n| root(al, n)))
                {
                    self.facts(&a).peers.insert(b.clone());
                    self.facts(&b).peers.insert(a);
                }
            }
            ExKind::Unary(_, a) => self.ex(a, ctx, al),
            ExKind::Compare(a, rest) => {
                self.ex(a, Ctx::Value, al);
                for (_, x) in rest {
                    self.ex(x, Ctx::Value, al);
                }
            }
            ExKind::BoolOp(_, a, b) => {
                self.ex(a, Ctx::Value, al);
                self.ex(b, Ctx::Value, al);
            }
            ExKind::IfExp(c, a, b) => {
                self.ex(c, Ctx::Value, al);
                self.ex(a, ctx, al);
                self.ex(b, ctx, al);
            }
            ExKind::Tuple(items) | ExKind::List(items) => {
                for i in items {
                    self.ex(i, ctx, al);
                }
            }
            ExKind::Slice(a, b, c) => {
                for x in [a, b, c].into_iter().flatten() {
                    self.ex(x, Ctx::Int("used in a slice bound"), al);
                }
            }
            ExKind::Int(_)
            | ExKind::Float(_)
            | ExKind::Bool(_)
            | ExKind::NoneLit
            | ExKind::Str(_)
            | ExKind::Ellipsis => {}
        }
    }

    fn call(&mut self, func: &Ex, args: &[Ex], kwargs: &[(String, Ex)], ctx: Ctx, al: &mut Aliases) {
        let value_kwargs = |w: &mut Walker, al: &mut Aliases| {
            for (k, v) in kwargs {
                if k != "dtype" && k != "axis" && k != "keepdims" {
                    w.ex(v, Ctx::Value, al);
                }
            }
        };
        if let Some(name) = func.as_name() {
            if name == "range" {
                for a in args {
                    self.ex(a, Ctx::Int("used as a range bound"), al);
                }
                return;
            }
            if name == "len" {
                for a in args {
                    if !self.array_use(a, "`len` is taken".into(), al) {
                        self.ex(a, Ctx::Value, al);
                    } else if let Some(r) = a.as_name().and_then(|n| root(al, n)) {
                        let f = self.facts(&r);
                        f.min_rank = f.min_rank.max(1);
                    }
                }
                return;
            }
            if al.get(name).is_none() {
                if let Some(h) = self.m.func(name) {
                    self.helper(h, args, kwargs, al);
                    return;
                }
            }
        }
        // Method calls on a parameter: `A.copy()`, `A.sum(axis=0)`.
        if let ExKind::Attr(obj, meth) = &func.kind {
            if names::resolve(self.m, func).is_none() {
                if !self.array_use(obj, format!("`.{meth}()` is called"), al) {
                    self.ex(obj, Ctx::Value, al);
                }
                let ctx = if meth == "reshape" { Ctx::Int("used as an array extent") } else { Ctx::Value };
                for a in args {
                    self.ex(a, ctx, al);
                }
                value_kwargs(self, al);
                return;
            }
        }
        match names::resolve(self.m, func).map(|q| names::classify(&q)) {
            Some(NpName::Creation(c)) if c == "eye" || c == "identity" => {
                // `np.eye(N, M, k, dtype)`: the first three are integers.
                for (k, a) in args.iter().enumerate() {
                    let ctx = if k < 3 { Ctx::Int("used as an array extent") } else { Ctx::Value };
                    self.ex(a, ctx, al);
                }
                for (k, v) in kwargs {
                    if k != "dtype" && k != "order" {
                        self.ex(v, Ctx::Int("used as an array extent"), al);
                    }
                }
            }
            Some(NpName::Reshape) | Some(NpName::Ravel) => {
                for (k, a) in args.iter().enumerate() {
                    if k == 0 {
                        if !self.array_use(a, "reshaped".into(), al) {
                            self.ex(a, Ctx::Value, al);
                        }
                    } else {
                        self.ex(a, Ctx::Int("used as an array extent"), al);
                    }
                }
                for (k, v) in kwargs {
                    if k == "newshape" || k == "shape" {
                        self.ex(v, Ctx::Int("used as an array extent"), al);
                    }
                }
            }
            Some(NpName::Creation(c)) => {
                for (k, a) in args.iter().enumerate() {
                    if k == 0 && !c.ends_with("_like") && c != "copy" {
                        self.ex(a, Ctx::Int("used as an array extent"), al);
                    } else if k == 0 {
                        if !self.array_use(a, format!("passed to `{c}`"), al) {
                            self.ex(a, Ctx::Value, al);
                        }
                    } else {
                        self.ex(a, Ctx::Value, al);
                    }
                }
                for (k, v) in kwargs {
                    if k == "shape" {
                        self.ex(v, Ctx::Int("used as an array extent"), al);
                    }
                }
            }
            Some(NpName::Reduction(_))
            | Some(NpName::Moment(_))
            | Some(NpName::Scan(_))
            | Some(NpName::Diff)
            | Some(NpName::Roll)
            | Some(NpName::Tri(_))
            | Some(NpName::Linalg(_))
            | Some(NpName::Norm) => {
                let r = names::resolve(self.m, func).unwrap_or_default();
                let r = r.trim_start_matches("numpy.");
                for (k, a) in args.iter().enumerate() {
                    if k > 0 || !self.array_use(a, format!("passed to `np.{r}`"), al) {
                        self.ex(a, Ctx::Value, al);
                    }
                }
                value_kwargs(self, al);
            }
            Some(NpName::Einsum) => {
                for a in args.iter().skip(1) {
                    if !self.array_use(a, "passed to `np.einsum`".to_string(), al) {
                        self.ex(a, Ctx::Value, al);
                    }
                }
            }
            Some(NpName::Product(r)) => {
                for a in args {
                    if !self.array_use(a, format!("passed to `np.{r}`"), al) {
                        self.ex(a, Ctx::Value, al);
                    }
                }
            }
            _ => {
                let _ = ctx;
                self.ex(func, Ctx::Value, al);
                for a in args {
                    self.ex(a, Ctx::Value, al);
                }
                value_kwargs(self, al);
            }
        }
    }

    fn helper(&mut self, h: &FuncDef, args: &[Ex], kwargs: &[(String, Ex)], al: &mut Aliases) {
        for a in args {
            self.ex(a, Ctx::Value, al);
        }
        for (_, v) in kwargs {
            self.ex(v, Ctx::Value, al);
        }
        if self.stack.contains(&h.name) || self.stack.len() > 16 {
            return;
        }
        let (Ok(params), Ok(body)) = (&h.params, &h.body) else { return };
        let mut inner: Aliases = BTreeMap::new();
        for (k, p) in params.iter().enumerate() {
            let arg = args.get(k).or_else(|| kwargs.iter().find(|(n, _)| *n == p.name).map(|(_, v)| v));
            let r = arg.and_then(|a| a.as_name()).and_then(|n| root(al, n));
            inner.insert(p.name.clone(), r);
        }
        self.stack.push(h.name.clone());
        self.block(body, &mut inner);
        self.stack.pop();
    }
}

impl Walker<'_> {
    /// The rank known so far for parameter `r` (0 for parameters that are not arrays).
    fn rank_of_param(&self, r: &str) -> Option<usize> {
        let f = self.facts.get(r)?;
        if let Some(x) = f.exact_rank {
            return Some(x);
        }
        let k = f.sub_rank.unwrap_or(0).max(f.min_rank);
        if k > 0 {
            Some(k)
        } else if f.array_reason.is_some() {
            None
        } else {
            Some(0)
        }
    }

    /// The rank of an expression's value, where it follows from what is known.
    fn rank_of(&self, e: &Ex, al: &Aliases, locals: &BTreeMap<String, usize>) -> Option<usize> {
        let max2 = |a: Option<usize>, b: Option<usize>| Some(a?.max(b?));
        match &e.kind {
            ExKind::Int(_) | ExKind::Float(_) | ExKind::Bool(_) => Some(0),
            ExKind::Name(n) => match al.get(n) {
                Some(Some(r)) => self.rank_of_param(r),
                Some(None) => locals.get(n).copied(),
                None => locals.get(n).copied().or_else(|| self.m.constant(n).map(|_| 0)),
            },
            ExKind::Subscript(base, items) => {
                let rb = self.rank_of(base, al, locals)?;
                let ints = items
                    .iter()
                    .filter(|i| {
                        !matches!(i.kind, ExKind::Slice(..) | ExKind::NoneLit | ExKind::Ellipsis) && !is_newaxis(i)
                    })
                    .count();
                let new = items.iter().filter(|i| matches!(i.kind, ExKind::NoneLit) || is_newaxis(i)).count();
                (rb + new).checked_sub(ints)
            }
            ExKind::Attr(obj, a) if a == "T" => self.rank_of(obj, al, locals),
            ExKind::Bin(BinOpAst::MatMul, a, b) => {
                Some(matmul_rank(self.rank_of(a, al, locals)?, self.rank_of(b, al, locals)?))
            }
            ExKind::Bin(_, a, b) => max2(self.rank_of(a, al, locals), self.rank_of(b, al, locals)),
            ExKind::Unary(_, a) => self.rank_of(a, al, locals),
            ExKind::Compare(a, rest) => {
                let mut r = self.rank_of(a, al, locals);
                for (_, x) in rest {
                    r = max2(r, self.rank_of(x, al, locals));
                }
                r
            }
            ExKind::IfExp(_, a, b) => max2(self.rank_of(a, al, locals), self.rank_of(b, al, locals)),
            ExKind::Call { func, args, kwargs } => {
                let kw = |k: &str| kwargs.iter().find(|(n, _)| n == k).map(|(_, v)| v);
                let reduce = |w: &Walker, arr: &Ex, axis: Option<&Ex>| -> Option<usize> {
                    let r = w.rank_of(arr, al, locals)?;
                    let keep = matches!(kw("keepdims").map(|k| &k.kind), Some(ExKind::Bool(true)));
                    match axis.map(|a| &a.kind) {
                        None => Some(if keep { r } else { 0 }),
                        Some(ExKind::Tuple(t)) => Some(if keep { r } else { r.saturating_sub(t.len()) }),
                        Some(_) => Some(if keep { r } else { r.saturating_sub(1) }),
                    }
                };
                if let ExKind::Attr(obj, meth) = &func.kind {
                    if names::resolve(self.m, func).is_none() {
                        return match meth.as_str() {
                            "copy" | "astype" => self.rank_of(obj, al, locals),
                            "sum" | "mean" | "max" | "min" | "prod" | "std" | "var" => {
                                reduce(self, obj, args.first().or(kw("axis")))
                            }
                            "ravel" | "flatten" => Some(1),
                            "reshape" => match args.as_slice() {
                                [one] => Some(shape_len(one)),
                                _ => Some(args.len()),
                            },
                            _ => None,
                        };
                    }
                }
                match names::resolve(self.m, func).map(|q| names::classify(&q)) {
                    Some(NpName::Ufunc1(_)) | Some(NpName::Ufunc2(_)) | Some(NpName::Where) | Some(NpName::Clip) => {
                        let mut r = Some(0);
                        for a in args {
                            r = max2(r, self.rank_of(a, al, locals));
                        }
                        r
                    }
                    Some(NpName::Reduction(_)) | Some(NpName::Moment(_)) => {
                        reduce(self, args.first()?, args.get(1).or(kw("axis")))
                    }
                    Some(NpName::Reshape) => Some(shape_len(args.get(1).or(kw("newshape")).or(kw("shape"))?)),
                    Some(NpName::Ravel) => Some(1),
                    Some(NpName::Creation("eye" | "identity")) => Some(2),
                    Some(NpName::Creation(c)) if c.ends_with("_like") || c == "copy" => {
                        self.rank_of(args.first()?, al, locals)
                    }
                    Some(NpName::Creation(_)) => match &args.first().or(kw("shape"))?.kind {
                        ExKind::Tuple(t) | ExKind::List(t) => Some(t.len()),
                        _ => Some(1),
                    },
                    Some(NpName::Cast(_)) => self.rank_of(args.first()?, al, locals),
                    Some(NpName::Einsum) => match &args.first()?.kind {
                        ExKind::Str(s) => {
                            Some(s.split_once("->")?.1.chars().filter(|c| c.is_ascii_alphabetic()).count())
                        }
                        _ => None,
                    },
                    Some(NpName::Scan(_)) => match args.get(1).or(kw("axis")).map(|a| &a.kind) {
                        None | Some(ExKind::NoneLit) => Some(1),
                        Some(_) => self.rank_of(args.first()?, al, locals),
                    },
                    Some(NpName::Diff) | Some(NpName::Roll) | Some(NpName::Tri(_)) => {
                        self.rank_of(args.first()?, al, locals)
                    }
                    Some(NpName::Arange) | Some(NpName::Linspace) => Some(1),
                    Some(NpName::Linalg("cholesky")) => Some(2),
                    Some(NpName::Linalg("solve")) => self.rank_of(args.get(1)?, al, locals),
                    Some(NpName::Join(kind)) => {
                        let first = match &args.first()?.kind {
                            ExKind::Tuple(t) | ExKind::List(t) => t.first()?,
                            _ => return None,
                        };
                        let r = self.rank_of(first, al, locals)?;
                        Some(match kind {
                            "stack" => r + 1,
                            "vstack" => r.max(2),
                            _ => r,
                        })
                    }
                    Some(NpName::Norm) => match args.get(2).or(kw("axis")).map(|a| &a.kind) {
                        None | Some(ExKind::NoneLit) => Some(0),
                        Some(ExKind::Tuple(t)) => {
                            Some(self.rank_of(args.first()?, al, locals)?.saturating_sub(t.len()))
                        }
                        Some(_) => Some(self.rank_of(args.first()?, al, locals)?.saturating_sub(1)),
                    },
                    Some(NpName::Product(p)) => {
                        let (ra, rb) =
                            (self.rank_of(args.first()?, al, locals)?, self.rank_of(args.get(1)?, al, locals)?);
                        Some(match p {
                            "outer" => 2,
                            "matmul" => matmul_rank(ra, rb),
                            _ => (ra.min(2) + rb.min(2)).saturating_sub(2),
                        })
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn raise_rank(&mut self, target: &Ex, value_rank: Option<usize>, al: &Aliases) {
        let (ExKind::Subscript(base, items), Some(vr)) = (&target.kind, value_rank) else { return };
        let Some(r) = base.as_name().and_then(|n| root(al, n)) else { return };
        let ints = items
            .iter()
            .filter(|i| !matches!(i.kind, ExKind::Slice(..) | ExKind::NoneLit | ExKind::Ellipsis) && !is_newaxis(i))
            .count();
        let need = ints + vr;
        let f = self.facts(&r);
        if need > f.min_rank.max(f.sub_rank.unwrap_or(0)) && f.exact_rank.is_none() {
            f.min_rank = need;
            f.min_reason = Some(format!("assigned a {vr}-dimensional value in `{} = ...`", target.text));
        }
    }

    /// A parameter of unknown rank multiplied (`@`, `np.matmul`) with a stack of matrices
    /// (rank 3 or more) is taken to be a matrix: `np.reshape(A, (NR, NQ, 1, NP)) @ C4`.
    fn batched_operands(&mut self, e: &Ex, al: &Aliases, locals: &BTreeMap<String, usize>) {
        let pair = match &e.kind {
            ExKind::Bin(BinOpAst::MatMul, a, b) => Some((&**a, &**b)),
            ExKind::Call { func, args, .. } if args.len() == 2 => {
                match names::resolve(self.m, func).map(|q| names::classify(&q)) {
                    Some(NpName::Product("matmul")) => Some((&args[0], &args[1])),
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some((a, b)) = pair {
            for (x, other) in [(a, b), (b, a)] {
                let Some(p) = x.as_name().and_then(|n| root(al, n)) else { continue };
                if self.rank_of_param(&p).is_some() || self.rank_of(other, al, locals).is_none_or(|r| r < 3) {
                    continue;
                }
                let f = self.facts(&p);
                f.min_rank = 2;
                f.min_reason = Some(format!("a matrix multiplied with a stack of matrices in `{}`", e.text));
            }
        }
        for c in e.children() {
            self.batched_operands(c, al, locals);
        }
    }

    fn refine_block(&mut self, body: &[St], al: &mut Aliases, locals: &mut BTreeMap<String, usize>) {
        for s in body {
            match &s.kind {
                StKind::Assign { value: e, .. } | StKind::AugAssign { value: e, .. } | StKind::Expr(e) => {
                    self.batched_operands(e, al, locals)
                }
                StKind::Return(Some(e)) => self.batched_operands(e, al, locals),
                _ => {}
            }
            match &s.kind {
                StKind::Assign { targets, value } => {
                    self.refine_call(value, al);
                    let r = self.rank_of(value, al, locals);
                    for t in targets {
                        self.raise_rank(t, r, al);
                    }
                    let alias = value.as_name().and_then(|n| root(al, n));
                    for t in targets {
                        if let Some(n) = t.as_name() {
                            al.insert(n.to_string(), alias.clone());
                            match r {
                                Some(r) => locals.insert(n.to_string(), r),
                                None => locals.remove(n),
                            };
                        }
                    }
                }
                StKind::AugAssign { target, value, .. } => {
                    let r = self.rank_of(value, al, locals);
                    self.raise_rank(target, r, al);
                    // `A += value` updates the array in place: it has the value's rank.
                    if let (Some(p), Some(vr)) = (target.as_name().and_then(|n| root(al, n)), r) {
                        let f = self.facts(&p);
                        if vr > f.min_rank.max(f.sub_rank.unwrap_or(0))
                            && f.exact_rank.is_none()
                            && f.array_reason.is_some()
                        {
                            f.min_rank = vr;
                            f.min_reason =
                                Some(format!("updated with a {vr}-dimensional value in `{} ...= ...`", target.text));
                        }
                    }
                }
                StKind::Expr(e) => self.refine_call(e, al),
                StKind::For { var, body, .. } => {
                    al.insert(var.clone(), None);
                    locals.insert(var.clone(), 0);
                    self.refine_block(body, al, locals);
                }
                StKind::If { then_body, else_body, .. } => {
                    self.refine_block(then_body, al, locals);
                    self.refine_block(else_body, al, locals);
                }
                StKind::While { body, .. } => self.refine_block(body, al, locals),
                _ => {}
            }
        }
    }

    /// Follows a call of a helper function with the caller's parameters mapped in.
    fn refine_call(&mut self, e: &Ex, al: &Aliases) {
        let ExKind::Call { func, args, kwargs } = &e.kind else { return };
        let Some(name) = func.as_name() else { return };
        if al.contains_key(name) || self.stack.contains(&name.to_string()) || self.stack.len() > 16 {
            return;
        }
        let Some(h) = self.m.func(name) else { return };
        let (Ok(params), Ok(body)) = (&h.params, &h.body) else { return };
        let mut inner: Aliases = BTreeMap::new();
        for (k, p) in params.iter().enumerate() {
            let arg = args.get(k).or_else(|| kwargs.iter().find(|(n, _)| *n == p.name).map(|(_, v)| v));
            inner.insert(p.name.clone(), arg.and_then(|a| a.as_name()).and_then(|n| root(al, n)));
        }
        self.stack.push(h.name.clone());
        let mut locals = BTreeMap::new();
        self.refine_block(body, &mut inner, &mut locals);
        self.stack.pop();
    }
}

/// The rank of `a @ b` (NumPy's `matmul`: vectors are promoted, then dropped).
fn matmul_rank(ra: usize, rb: usize) -> usize {
    match (ra, rb) {
        (0, _) | (_, 0) => ra.max(rb),
        (1, 1) => 0,
        (1, r) | (r, 1) => r - 1,
        (a, b) => a.max(b),
    }
}

/// The number of extents in a shape argument: a tuple or list, else one integer.
fn shape_len(e: &Ex) -> usize {
    match &e.kind {
        ExKind::Tuple(t) | ExKind::List(t) => t.len(),
        _ => 1,
    }
}

fn is_newaxis(e: &Ex) -> bool {
    matches!(&e.kind, ExKind::Attr(_, a) if a == "newaxis")
}
