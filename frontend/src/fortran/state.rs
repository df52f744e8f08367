//! Synthesised parameters: C parameters that stand for Fortran storage which is not a
//! dummy argument of the routine — members of COMMON blocks and variables of modules.
//!
//! The rule: whatever state the routine (or a routine it calls, inlined) reads or writes
//! becomes a parameter of the C function, after the dummies, named `<block>_<member>`
//! (`blank_<member>` for blank COMMON) or `<module>_<variable>`, in lower case. Its intent
//! is inferred from use as for an undeclared dummy: read only → input, written → updated
//! in place (output when a scalar's first use assigns it). Such parameters may be active
//! (`--wrt fields_u`, `--of fields_rhs`) like any other.
//!
//! COMMON is storage association: every routine that declares `/fields/` sees the same
//! storage by position, whatever names it gives the members. So members are keyed by
//! (block, position); a second declaration of a block (in a callee) must give its members
//! the same types and shapes. The first declaration also gives the block's layout
//! ([`CommonLayout`]: every member, used or not) so that a Fortran program generated
//! around the routine (the gfortran reference of `adjc check`) can declare the block and
//! fill it. Module variables are keyed by (module, name) and reached by `use`.
//!
//! What is supported: scalars and explicit-shape arrays with constant bounds, of the
//! intrinsic types, and the components of scalar module variables of derived type (which
//! `derived` turned into module variables `<var>_<component>`; their origin names the
//! designator `yrecldp%rkconv`). Allocatable and pointer module variables of intrinsic
//! type stay errors where they are used. Integer state that the routine writes is an
//! error (integers are sizes, passed by value).
//!
//! The public part ([`FortranState`]) goes with the lowered module to the CLI, which uses
//! it to call the original routine from Fortran.

use super::ast::{CommonBlock, Entity, TypeSpec};
use super::decl::{self, Table};
use super::lower::{Binding, Lowerer, Spec, R};
use super::scan::Proc;
use adjc_ir::*;
use std::collections::BTreeMap;

/// Where a synthesised parameter lives in Fortran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Member `member` (lower case) of COMMON block `block` (lower case; `None`: blank).
    Common { block: Option<String>, member: String },
    /// Variable `var` of module `module` (both lower case).
    /// `var` may be a component designator (`yrecldp%ramid`) of a module variable of
    /// derived type; `pointer`: that variable is a pointer.
    Module { module: String, var: String, pointer: bool },
}

/// A parameter of the C function that is not a dummy argument of the routine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateParam {
    /// The parameter's variable name in the IR (and the C).
    pub name: String,
    pub origin: Origin,
}

/// One member of a COMMON block, as a Fortran program must declare it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommonMember {
    /// As spelled in the first declaration of the block.
    pub name: String,
    /// `real(kind(1.0d0))`, `real(kind(1.0))`, `integer`, `integer(8)`, `logical`.
    pub type_decl: String,
    /// `(5, 0:12)` for an array, empty for a scalar.
    pub bounds: String,
    /// The IR name of the parameter that stands for it, when the routine uses it.
    pub param: Option<String>,
}

/// The layout of a COMMON block: its members in storage order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommonLayout {
    /// Lower case; `None` for blank COMMON.
    pub block: Option<String>,
    pub members: Vec<CommonMember>,
}

/// The state of the lowered routine: its synthesised parameters, and the layout of the
/// COMMON blocks it (or a routine it calls) declares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FortranState {
    pub params: Vec<StateParam>,
    pub commons: Vec<CommonLayout>,
    /// Positions (0-based) of the routine's `character` dummies, which the C leaves out: a
    /// Fortran caller of the original passes text there.
    pub text_dummies: Vec<usize>,
}

impl FortranState {
    /// The origin of the parameter named `name`, if it is synthesised.
    pub fn origin(&self, name: &str) -> Option<&Origin> {
        self.params.iter().find(|p| p.name == name).map(|p| &p.origin)
    }
}

/// The COMMON blocks of one procedure's declarations.
#[derive(Clone, Debug)]
pub struct CommonDecl {
    /// Lower case, `""` for blank COMMON.
    pub key: String,
    /// The member names (lower case), in storage order.
    pub members: Vec<String>,
    pub span: Span,
}

/// The state met while lowering one entry procedure.
#[derive(Default)]
pub struct StateVars {
    /// COMMON blocks (by key): the member variables in storage order.
    blocks: BTreeMap<String, Vec<VarId>>,
    /// Module variables by (module, name).
    module_vars: BTreeMap<(String, String), VarId>,
    /// Every synthesised variable with its origin, in order of creation.
    origins: Vec<(VarId, Origin)>,
    /// COMMON layouts, in order of first declaration: the block's key and its members.
    layouts: Vec<(String, Vec<LayoutMember>)>,
}

/// A member of a COMMON block as first declared: name as spelled, variable, Fortran type.
type LayoutMember = (String, VarId, String);

/// `common /b/ x, y(n)`: the members join the declarations (with their shape when the
/// statement gives one) and the block's member list.
pub fn collect_common<'t>(
    span: Span,
    blocks: &'t [CommonBlock],
    table: &mut Table<'t>,
    commons: &mut Vec<CommonDecl>,
) -> R<()> {
    for b in blocks {
        let key = b.name.as_deref().unwrap_or("").to_ascii_lowercase();
        let at = match commons.iter().position(|c| c.key == key) {
            Some(k) => k,
            None => {
                commons.push(CommonDecl { key: key.clone(), members: Vec::new(), span });
                commons.len() - 1
            }
        };
        for m in &b.members {
            add_member(m, &key, table, &mut commons[at])?;
        }
    }
    Ok(())
}

fn add_member<'t>(m: &'t Entity, key: &str, table: &mut Table<'t>, block: &mut CommonDecl) -> R<()> {
    let name = m.name.to_ascii_lowercase();
    let entry = table.entry(name.clone()).or_insert_with(|| decl::Sym::bare(m.name.clone(), m.span));
    if let Some((other, _)) = &entry.common {
        let other = if other.is_empty() { "blank COMMON".to_string() } else { format!("COMMON /{other}/") };
        return Err(Diagnostic::error(m.span, format!("`{}` is already a member of {other}", m.name))
            .with_help("a variable belongs to one COMMON block"));
    }
    if let Some(shape) = &m.shape {
        if entry.dims.is_some() {
            return Err(Diagnostic::error(m.span, format!("`{}` is given a shape twice", m.name))
                .with_help("give the bounds either in the declaration or in the `common` statement"));
        }
        entry.dims = Some(decl::dim_specs(shape)?);
    }
    entry.common = Some((key.to_string(), block.members.len()));
    block.members.push(name);
    Ok(())
}

/// The Fortran type of a member of a COMMON block, as a program declaring it writes it.
fn type_decl(elem: Scalar, declared: Option<&TypeSpec>, src: &str) -> String {
    match elem {
        Scalar::F64 => "real(kind(1.0d0))".into(),
        Scalar::F32 => "real(kind(1.0))".into(),
        Scalar::Bool => "logical".into(),
        Scalar::I64 => {
            let text = declared
                .map(|t| {
                    let s = t.span();
                    src.get(s.start as usize..s.end as usize).unwrap_or("").to_ascii_lowercase()
                })
                .unwrap_or_default();
            if text.contains('8') {
                "integer(8)".into()
            } else {
                "integer".into()
            }
        }
    }
}

fn block_label(key: &str) -> String {
    if key.is_empty() {
        "blank COMMON".into()
    } else {
        format!("COMMON /{key}/")
    }
}

impl<'s, 't> Lowerer<'s, 't> {
    /// A variable name for state, `<prefix>_<name>`, not taken by another variable.
    fn state_name(&self, prefix: &str, name: &str) -> String {
        self.free_name(&format!("{prefix}_{}", name.to_ascii_lowercase()))
    }

    /// `base`, or `base_2`, ... when another variable has that name.
    fn free_name(&self, base: &str) -> String {
        let base = base.to_string();
        let taken = |n: &str| self.f.vars.iter().any(|v| v.name.eq_ignore_ascii_case(n));
        if !taken(&base) {
            return base;
        }
        (2..).map(|k| format!("{base}_{k}")).find(|n| !taken(n)).unwrap_or(base)
    }

    /// A scalar or an explicit-shape array with constant bounds for `sym` (state).
    fn state_var(&mut self, sym: &decl::Sym<'t>, name: String, what: &str) -> R<VarId> {
        let elem = self.scalar_type(sym)?;
        let id = self.f.add_var(name, Type::Scalar(elem), VarRole::Param, sym.span);
        if sym.dims.is_some() {
            let mut dims = self.array_dims(sym, None)?;
            // Bounds that are constant expressions (`u(0:IMAXP)` with `IMAXP = IMAX/2*2`, as
            // NAS's header.h declares its COMMON fields) are folded to their values.
            for d in &mut dims {
                for e in [&mut d.lower, &mut d.extent] {
                    if let (None, Some(v)) = (e.as_int(), eval::eval_int(e, &|_| None)) {
                        *e = Expr::int(v);
                    }
                }
            }
            if dims.iter().any(|d| d.lower.as_int().is_none() || d.extent.as_int().is_none()) {
                return Err(Diagnostic::error(
                    sym.span,
                    format!("the {what} array `{}` has bounds that are not constants", sym.name),
                )
                .with_help("declare its bounds with `parameter` constants"));
            }
            self.f.var_mut(id).ty = Type::Array { elem, dims, layout: Layout::ColMajor };
        }
        Ok(id)
    }

    /// Binds the members of the procedure's COMMON blocks to the state variables of their
    /// block (created at the block's first declaration).
    pub fn bind_commons(&mut self, spec: &Spec<'t>) -> R<()> {
        for c in &spec.commons {
            let syms: Vec<decl::Sym<'t>> = c.members.iter().filter_map(|m| spec.local.get(m).cloned()).collect();
            if let Some(sym) = syms.iter().find(|s| s.parameter || s.intent.is_some() || s.allocatable) {
                return Err(Diagnostic::error(
                    sym.span,
                    format!(
                        "`{}` is a member of {} and a constant, an argument or allocatable",
                        sym.name,
                        block_label(&c.key)
                    ),
                )
                .with_help("a COMMON member is an ordinary variable"));
            }
            if spec.dummies.iter().any(|(d, _)| c.members.contains(d)) {
                let (d, span) = spec.dummies.iter().find(|(d, _)| c.members.contains(d)).cloned().unwrap_or_default();
                return Err(Diagnostic::error(span, format!("the argument `{d}` is also a COMMON member"))
                    .with_help("a dummy argument cannot be in COMMON; rename one of them"));
            }
            match self.state.blocks.get(&c.key).cloned() {
                Some(vars) => {
                    if vars.len() != syms.len() {
                        return Err(Diagnostic::error(
                            c.span,
                            format!(
                                "{} has {} members here but {} where it was first declared",
                                block_label(&c.key),
                                syms.len(),
                                vars.len()
                            ),
                        )
                        .with_help("declare the block the same way everywhere (an `include` file helps)"));
                    }
                    for (sym, v) in syms.iter().zip(vars) {
                        self.same_member(sym, v, &c.key)?;
                        self.names.insert(sym.name.to_ascii_lowercase(), Binding::Var(v));
                    }
                }
                None => {
                    let prefix = if c.key.is_empty() { "blank".to_string() } else { c.key.clone() };
                    let mut vars = Vec::new();
                    let mut layout = Vec::new();
                    for sym in &syms {
                        let name = self.state_name(&prefix, &sym.name);
                        let v = self.state_var(sym, name, "COMMON")?;
                        let ty = type_decl(self.f.var(v).ty.elem(), sym.ty, self.src);
                        self.state.origins.push((
                            v,
                            Origin::Common {
                                block: (!c.key.is_empty()).then(|| c.key.clone()),
                                member: sym.name.to_ascii_lowercase(),
                            },
                        ));
                        self.names.insert(sym.name.to_ascii_lowercase(), Binding::Var(v));
                        layout.push((sym.name.clone(), v, ty));
                        vars.push(v);
                    }
                    self.state.blocks.insert(c.key.clone(), vars);
                    self.state.layouts.push((c.key.clone(), layout));
                }
            }
        }
        Ok(())
    }

    /// A later declaration of a COMMON member must match the first (type and shape).
    fn same_member(&mut self, sym: &decl::Sym<'t>, v: VarId, key: &str) -> R<()> {
        let elem = self.scalar_type(sym)?;
        let dims = match &sym.dims {
            Some(_) => self.array_dims(sym, None)?,
            None => Vec::new(),
        };
        let have = self.f.var(v).ty.clone();
        let same = have.elem() == elem
            && have.dims().len() == dims.len()
            && have.dims().iter().zip(&dims).all(|(a, b)| {
                a.lower.as_int().is_some()
                    && a.lower.as_int() == b.lower.as_int()
                    && a.extent.as_int() == b.extent.as_int()
            });
        if !same {
            return Err(Diagnostic::error(
                sym.span,
                format!(
                    "`{}` has another type or shape than the member of {} it shares storage with (`{}`)",
                    sym.name,
                    block_label(key),
                    self.f.var(v).name
                ),
            )
            .with_help("declare the block the same way everywhere (an `include` file helps)"));
        }
        Ok(())
    }

    /// Binds the variables of the modules the procedure uses (and of its host module)
    /// that it does not declare itself. Those adjc cannot pass (allocatable, pointer,
    /// derived types, ...) stay unbound: `lookup` reports them where they are used.
    pub fn bind_module_vars(&mut self, proc: &Proc<'t>, spec: &Spec<'t>) -> R<()> {
        let mut modules: Vec<String> = spec.uses.clone();
        modules.extend(proc.host_module.clone());
        modules.dedup();
        for module in modules {
            let Some(decls) = self.unit.module_decls_of.get(&module) else { continue };
            let mut table = Table::new();
            for d in decls {
                // Declarations adjc cannot read stay errors where their names are used.
                if decl::collect(d, &mut table, false).is_err() {
                    continue;
                }
            }
            for (key, sym) in table {
                let local = spec.local.contains_key(&key) || spec.dummies.iter().any(|(d, _)| *d == key);
                if sym.parameter || sym.allocatable || local || matches!(self.names.get(&key), Some(Binding::Const(_)))
                {
                    continue;
                }
                let id = (module.clone(), key.clone());
                let v = match self.state.module_vars.get(&id) {
                    Some(v) => *v,
                    None => {
                        // A component of a derived-type variable keeps its name (`yrecldp_ramid`).
                        let comp = self.unit.module_components.get(&id).cloned();
                        let name = match &comp {
                            Some(_) => self.free_name(&sym.name.to_ascii_lowercase()),
                            None => self.state_name(&module, &sym.name),
                        };
                        let Ok(v) = self.state_var(&sym, name, "module") else { continue };
                        self.state.module_vars.insert(id, v);
                        let (var, pointer) = match comp {
                            Some(c) => (c.designator, c.pointer),
                            None => (key.clone(), false),
                        };
                        self.state.origins.push((v, Origin::Module { module: module.clone(), var, pointer }));
                        v
                    }
                };
                self.names.insert(key, Binding::Var(v));
            }
        }
        Ok(())
    }

    /// The synthesised variables, in order of creation, with their origin.
    pub fn state_origins(&self) -> Vec<(VarId, Origin)> {
        self.state.origins.clone()
    }

    /// The public description, once the parameters are known (`used`: the variables that
    /// became parameters; `name`: a variable's final name).
    pub fn state_description(&self, used: &dyn Fn(VarId) -> bool, name: &dyn Fn(VarId) -> String) -> FortranState {
        let params = self
            .state
            .origins
            .iter()
            .filter(|(v, _)| used(*v))
            .map(|(v, o)| StateParam { name: name(*v), origin: o.clone() })
            .collect();
        let commons = self
            .state
            .layouts
            .iter()
            .map(|(key, members)| CommonLayout {
                block: (!key.is_empty()).then(|| key.clone()),
                members: members
                    .iter()
                    .map(|(n, v, ty)| CommonMember {
                        name: n.clone(),
                        type_decl: ty.clone(),
                        bounds: bounds(&self.f.var(*v).ty),
                        param: used(*v).then(|| name(*v)),
                    })
                    .collect(),
            })
            .collect();
        FortranState { params, commons, text_dummies: self.text_dummies.clone() }
    }
}

/// `(5, 0:12)` for constant dims, empty for a scalar.
fn bounds(ty: &Type) -> String {
    let dims = ty.dims();
    if dims.is_empty() {
        return String::new();
    }
    let each: Vec<String> = dims
        .iter()
        .map(|d| {
            let lo = d.lower.as_int().unwrap_or(1);
            let hi = lo.saturating_add(d.extent.as_int().unwrap_or(1)).saturating_sub(1);
            if lo == 1 {
                hi.to_string()
            } else {
                format!("{lo}:{hi}")
            }
        })
        .collect();
    format!("({})", each.join(", "))
}
