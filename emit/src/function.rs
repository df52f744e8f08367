//! One IR function as the pieces the templates lay out: index macros, signature,
//! declarations and allocations (the prologue), the body split at its top-level sections,
//! and the cleanup (the epilogue).

use crate::cexpr::{self, c_type, zero};
use crate::cstmt::{comment_text, Emitter, Quote};
use crate::ctx::FnCtx;
use crate::doc::{self, Failure};
use crate::names::{self, Rename};
use crate::{layout, nowait, omp, sizes};
use adjc_ir::validate::validate;
use adjc_ir::{walk_stmts, Diagnostic, Function, Intent, Span, Stmt, StmtKind, Type, VarId};
use std::collections::BTreeSet;

/// Everything the templates need to write one function.
pub(crate) struct FnView {
    pub signature: String,
    pub macro_defs: Vec<String>,
    pub macro_names: Vec<String>,
    pub prologue: Vec<String>,
    pub parts: Vec<Part>,
    pub epilogue: Vec<String>,
    pub doc: Vec<String>,
    pub renames: Vec<Rename>,
    pub prototype: crate::Prototype,
}

/// A run of top-level statements, under a banner when it is a section.
pub(crate) struct Part {
    pub title: Option<String>,
    pub blank_before: bool,
    pub lines: Vec<String>,
}

/// Widest signature line before parameters wrap onto continuation lines.
const LINE_WIDTH: usize = 100;

pub(crate) fn build(
    quote: &Quote,
    f: &Function,
    cname: &str,
    guard: Option<&crate::SizeGuard>,
) -> Result<FnView, Diagnostic> {
    validate(f).map_err(|e| {
        Diagnostic::internal(e.span, format!("invalid IR in `{}`: {}", e.function, e.message))
            .with_help("this is a bug in the stage that produced the function")
    })?;
    let names = names::assign(f);
    let cx = FnCtx::new(f, &names);
    let stacks = layout::stack_tapes(f);
    check_stacks(f, &stacks)?;
    let placed = placed_arrays(f);
    let mut plan = omp::analyse(f, &stacks, &placed);
    nowait::plan_nowait(f, &mut plan);

    let arena = sizes::Arena::new(f, &placed);
    let mut em = Emitter::new(&cx, &plan, quote, &placed, &arena);
    let mut parts = Vec::new();
    let body: &[Stmt] = &f.body;
    let mut i = 0;
    while i < body.len() {
        let (title, end) = match &body[i].kind {
            StmtKind::Section { title, body: inner } => {
                if let Some(note) = &body[i].note {
                    em.out.push(format!("    /* {} */", comment_text(&note.to_string())));
                }
                em.block(inner, 0, true)?;
                (Some(comment_text(title)), i + 1)
            }
            _ => {
                let end =
                    (i..body.len()).find(|&j| matches!(body[j].kind, StmtKind::Section { .. })).unwrap_or(body.len());
                em.block(&body[i..end], 0, true)?;
                (None, end)
            }
        };
        let mut lines = std::mem::take(&mut em.out);
        if quote.directives() && lines.iter().any(|l| l.starts_with("#line ")) {
            lines.push(crate::cstmt::LINE_RESET.to_string());
        }
        if title.is_some() || !lines.is_empty() {
            parts.push(Part { title, blank_before: true, lines });
        }
        i = end;
    }
    let uses_goto = em.uses_goto;
    let fails = em.fails.clone();

    // Index macros of the arrays the body touches.
    let touched = cx.used();
    check_declared(f, &stacks, &plan, &touched)?;
    let mut macro_defs = Vec::new();
    let mut macro_names = Vec::new();
    for v in &touched {
        if let Some((name, def)) = cexpr::macro_definition(&cx, *v) {
            macro_names.push(name);
            macro_defs.push(def);
        }
    }

    // Declarations.
    let mut decls = Vec::new();
    for v in &plan.top {
        let ty = f.var(*v).ty.elem();
        let name = cx.name(*v);
        decls.push(format!("    {} {name} = {};", c_type(ty), zero(ty)));
        if plan.unread.contains(&(None, *v)) {
            decls.push(format!("    (void){name};"));
        }
    }
    let tapes: Vec<VarId> = stacks.iter().copied().filter(|v| touched.contains(v)).collect();
    for v in &tapes {
        decls.push(format!("    adjc_tape {} = ADJC_TAPE_INIT;", cx.name(*v)));
    }
    let all_arrays: Vec<VarId> =
        touched.iter().copied().filter(|v| f.var(*v).ty.is_array() && !f.is_param(*v)).collect();
    let arrays: Vec<VarId> = all_arrays.iter().copied().filter(|v| !placed.contains(v)).collect();
    for v in all_arrays.iter().filter(|v| placed.contains(v)) {
        decls.push(format!("    {} *{} = NULL;", c_type(f.var(*v).ty.elem()), cx.name(*v)));
    }
    // Products inside extents are checked before any size is computed; then every array is
    // allocated (a memory plan's arrays as one block) before anything is written.
    let mut allocs = Vec::new();
    let products = sizes::product_checks(&cx, &all_arrays);
    if !products.is_empty() {
        allocs.push("    /* sizes whose products overflow int64_t cannot be allocated */".into());
        let tests: Vec<String> = products.iter().map(|p| format!("!{p}")).collect();
        allocs.push(format!("    if ({}) {{", tests.join(" || ")));
        allocs.push("        return ADJC_ERR_ALLOC;".into());
        allocs.push("    }".into());
    }
    if !arrays.is_empty() {
        allocs.push("    /* work arrays: allocated before anything is written, freed before returning */".into());
        for v in &arrays {
            let ty = c_type(f.var(*v).ty.elem());
            allocs.push(format!(
                "    {ty} *{} = {}({});",
                cx.name(*v),
                sizes::allocator(f, *v),
                sizes::size_args(&cx, *v)
            ));
        }
    }
    if !arena.blocks.is_empty() {
        allocs.extend(arena.reserve(&cx));
    }
    let mut held: Vec<String> = arrays.iter().map(|v| cx.name(*v).to_string()).collect();
    if !arena.blocks.is_empty() {
        held.push("adjc_arena".into());
    }
    if !held.is_empty() {
        let test: Vec<String> = held.iter().map(|v| format!("{v} == NULL")).collect();
        allocs.push(format!("    if ({}) {{", test.join(" || ")));
        if held.len() > 1 {
            for v in held.iter().rev() {
                allocs.push(format!("        adjc_free({v});"));
            }
        }
        allocs.push("        return ADJC_ERR_ALLOC;".into());
        allocs.push("    }".into());
    }

    // Sizes that break the source's shape rules are refused before anything is allocated
    // or written.
    let mut checks = Vec::new();
    for a in &f.assumptions {
        let (l, r) = (cexpr::expr(&cx, &a.lhs), cexpr::expr(&cx, &a.rhs));
        if let Some(arr) = a.each {
            // A scan of an index array: every element inside [l, r].
            let name = cx.name(arr);
            let count: Vec<String> = f.var(arr).ty.dims().iter().map(|d| cexpr::expr(&cx, &d.extent)).collect();
            let count = if count.is_empty() { "1".to_string() } else { count.join(" * ") };
            let scan = format!(
                "for (int64_t adjc_k = 0; adjc_k < {count}; adjc_k++) if ({name}[adjc_k] < {l} || {name}[adjc_k] > {r}) return ADJC_ERR_SHAPE;"
            );
            let line = match &a.guard {
                Some(g) => format!("    if ({}) {scan} {}", cexpr::expr(&cx, g), quote.line(a.span.line)),
                None => format!("    {scan} {}", quote.line(a.span.line)),
            };
            checks.push(line);
            continue;
        }
        let fails = format!("{l} {} {r}", a.rel.negated_symbol());
        let test = match &a.guard {
            Some(g) => format!("({}) && {fails}", cexpr::expr(&cx, g)),
            None => fails,
        };
        checks.push(format!("    if ({test}) return ADJC_ERR_SHAPE; {}", quote.line(a.span.line)));
    }

    // Parameters the code never mentions would trip -Wunused-parameter.
    let mut prologue: Vec<String> =
        f.params.iter().filter(|p| !cx.is_used(p.var)).map(|p| format!("    (void){};", names.get(p.var))).collect();
    prologue.extend(checks);
    if let Some(g) = guard {
        let tests: Vec<String> = g
            .max
            .iter()
            .filter_map(|(name, max)| {
                let p = f.params.iter().find(|p| &f.var(p.var).name == name)?;
                let deref = if f.var(p.var).ty.is_array() || p.intent != Intent::In { "*" } else { "" };
                Some(format!("{deref}{} > {max}", cx.name(p.var)))
            })
            .collect();
        if !tests.is_empty() {
            let sizes: Vec<String> = g.max.iter().map(|(n, v)| format!("{n} <= {v}")).collect();
            prologue.push(format!(
                "    /* memory plan made for {} ({}): larger sizes could exceed the memory limit */",
                sizes.join(", "),
                comment_text(&g.plan)
            ));
            prologue.push(format!("    if ({}) {{", tests.join(" || ")));
            prologue.push("        return ADJC_ERR_PLAN;".into());
            prologue.push("    }".into());
        }
    }
    prologue.extend(decls);
    prologue.extend(allocs);
    if prologue.is_empty() {
        if let Some(first) = parts.first_mut() {
            first.blank_before = false;
        }
    }

    let mut cleanup = Vec::new();
    for v in &tapes {
        cleanup.push(format!("    adjc_tape_free(&{});", names.get(*v)));
    }
    // Arrays a memory plan placed live in its arena, freed as one block.
    for v in arrays.iter().rev() {
        cleanup.push(format!("    adjc_free({});", names.get(*v)));
    }
    if !arena.blocks.is_empty() {
        cleanup.push("    adjc_free(adjc_arena);".into());
    }
    let mut epilogue = Vec::new();
    if !parts.is_empty() || !prologue.is_empty() {
        epilogue.push(String::new());
    }
    epilogue.extend(cleanup.iter().cloned());
    epilogue.push("    return ADJC_OK;".into());
    if uses_goto {
        epilogue.push(String::new());
        epilogue.push("out_of_memory:".into());
        epilogue.extend(cleanup.iter().cloned());
        epilogue.push("    return ADJC_ERR_ALLOC;".into());
    }
    for why in fails.iter().copied() {
        epilogue.push(String::new());
        epilogue.push(format!("{}:", crate::cstmt::fail_label(why)));
        epilogue.extend(cleanup.iter().cloned());
        epilogue.push(format!("    return {};", why.code()));
    }

    let param_types: Vec<String> = f.params.iter().map(|p| param_type(f, p.var, p.intent)).collect();
    let decls: Vec<String> =
        f.params
            .iter()
            .zip(&param_types)
            .map(|(p, ty)| {
                if ty.ends_with('*') {
                    format!("{ty}{}", names.get(p.var))
                } else {
                    format!("{ty} {}", names.get(p.var))
                }
            })
            .collect();
    let signature = wrap_signature(cname, &decls);
    let fail = Failure {
        allocates: !all_arrays.is_empty(),
        stack: !tapes.is_empty(),
        written_before_push: written_before_push(f).into_iter().map(|v| names.get(v).to_string()).collect(),
        plan: guard.is_some(),
        converge: fails.contains(&adjc_ir::Failure::NotConverged),
        stop: fails.contains(&adjc_ir::Failure::Stopped),
    };
    let doc = doc::function_doc(f, &names, cname, &param_types, &fail);
    let mut mentioned: BTreeSet<VarId> = cx.used();
    mentioned.extend(f.params.iter().map(|p| p.var));
    let renames = names.renames(f, &mentioned);
    let prototype = crate::Prototype {
        name: cname.to_string(),
        params: f
            .params
            .iter()
            .zip(&param_types)
            .map(|(p, ty)| crate::PrototypeParam { name: names.get(p.var).to_string(), c_type: ty.trim().to_string() })
            .collect(),
        doc: doc
            .iter()
            .map(|l| l.strip_prefix(" *").unwrap_or(l).strip_prefix(' ').unwrap_or("").to_string())
            .collect(),
    };
    Ok(FnView { signature, macro_defs, macro_names, prologue, parts, epilogue, doc, renames, prototype })
}

/// `const double *`, `double *`, `double`, `int64_t`.
fn param_type(f: &Function, v: VarId, intent: Intent) -> String {
    match &f.var(v).ty {
        Type::Array { elem, .. } if intent == Intent::In => format!("const {} *", c_type(*elem)),
        Type::Array { elem, .. } => format!("{} *", c_type(*elem)),
        Type::Scalar(s) if intent == Intent::In => c_type(*s).to_string(),
        Type::Scalar(s) => format!("{} *", c_type(*s)),
    }
}

/// `int name(a, b, c)`, continued under the opening parenthesis when too wide.
fn wrap_signature(cname: &str, params: &[String]) -> String {
    let head = format!("int {cname}(");
    if params.is_empty() {
        return format!("{head}void)");
    }
    let one = format!("{head}{})", params.join(", "));
    if one.chars().count() <= LINE_WIDTH {
        return one;
    }
    let pad = " ".repeat(head.chars().count());
    let mut lines: Vec<String> = Vec::new();
    let mut cur = head.clone();
    for (k, p) in params.iter().enumerate() {
        let piece = if k + 1 == params.len() { format!("{p})") } else { format!("{p},") };
        let fresh = cur == head || cur == pad;
        if !fresh && cur.chars().count() + 1 + piece.chars().count() > LINE_WIDTH {
            lines.push(cur);
            cur = pad.clone();
        }
        if cur != head && cur != pad {
            cur.push(' ');
        }
        cur.push_str(&piece);
    }
    lines.push(cur);
    lines.join("\n")
}

/// Every scalar local the body names has a declaration in the plan (at the function's top
/// or in a map's body): a statement kind the plan overlooks would otherwise give C that uses
/// an undeclared name.
fn check_declared(
    f: &Function,
    stacks: &BTreeSet<VarId>,
    plan: &omp::Plan,
    touched: &BTreeSet<VarId>,
) -> Result<(), Diagnostic> {
    let declared = |v: &VarId| plan.top.contains(v) || plan.maps.values().any(|m| m.private.contains(v));
    let Some(v) = touched.iter().find(|v| omp::is_scalar_local(f, stacks, **v) && !declared(v)) else {
        return Ok(());
    };
    let mut span = f.span;
    let mut found = false;
    walk_stmts(&f.body, &mut |s| {
        if !found && names_var(s, *v) {
            span = s.span;
            found = true;
        }
    });
    Err(Diagnostic::internal(span, format!("local `{}` is used but never declared", f.var(*v).name))
        .with_help("this is a bug in adjc's C emitter; please report it"))
}

/// Whether statement `s` itself (not the blocks under it) names `v`.
fn names_var(s: &Stmt, v: VarId) -> bool {
    let mut found = false;
    s.exprs(&mut |e| found |= e.mentions(v));
    found
        || match &s.kind {
            StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, .. } | StmtKind::Pop { target, .. } => {
                target.var == v
            }
            StmtKind::Call(c) => c.out == v || c.args.contains(&v),
            _ => false,
        }
}

/// Stack tapes are only pushed and popped: anything else is a bug upstream.
fn check_stacks(f: &Function, stacks: &BTreeSet<VarId>) -> Result<(), Diagnostic> {
    let mut bad: Option<(VarId, Span)> = None;
    walk_stmts(&f.body, &mut |s| {
        let mut vars = Vec::new();
        s.exprs(&mut |e| vars.extend(e.vars()));
        if let StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, .. } | StmtKind::Pop { target, .. } =
            &s.kind
        {
            vars.push(target.var);
        }
        if let Some(v) = vars.into_iter().find(|v| stacks.contains(v)) {
            bad.get_or_insert((v, s.span));
        }
    });
    match bad {
        Some((v, span)) => Err(Diagnostic::internal(
            span,
            format!("stack tape `{}` is used as a value, not only pushed and popped", f.var(v).name),
        )),
        None => Ok(()),
    }
}

/// Arrays whose `Alloc` sits inside a section: a memory plan allocates them where they are
/// first used and frees them after their last use.
fn placed_arrays(f: &Function) -> BTreeSet<VarId> {
    let mut out = BTreeSet::new();
    for s in &f.body {
        if let StmtKind::Section { body, .. } = &s.kind {
            walk_stmts(body, &mut |t: &Stmt| {
                if let StmtKind::Alloc(v) = t.kind {
                    out.insert(v);
                }
            });
        }
    }
    out
}

/// Parameters written up to the last top-level statement (inside sections) that pushes on a
/// stack tape: what a push that fails may leave partially updated. A loop counts as a whole,
/// so a write early in its body, before the push of a later iteration, counts too.
fn written_before_push(f: &Function) -> Vec<VarId> {
    fn units<'a>(block: &'a [Stmt], out: &mut Vec<&'a Stmt>) {
        for s in block {
            match &s.kind {
                StmtKind::Section { body, .. } => units(body, out),
                _ => out.push(s),
            }
        }
    }
    let mut all = Vec::new();
    units(&f.body, &mut all);
    let pushes = |s: &Stmt| {
        let mut any = false;
        walk_stmts(&vec![s.clone()], &mut |t| any |= matches!(t.kind, StmtKind::Push { .. }));
        any
    };
    let Some(last) = all.iter().rposition(|s| pushes(s)) else { return Vec::new() };
    let mut written = BTreeSet::new();
    for s in &all[..=last] {
        walk_stmts(&vec![(*s).clone()], &mut |t| {
            if let Some(v) = t.written_var() {
                written.insert(v);
            }
        });
    }
    f.params.iter().map(|p| p.var).filter(|v| written.contains(v)).collect()
}
