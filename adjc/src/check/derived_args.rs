//! Derived-type arguments in the gfortran check driver: the C function takes a derived-type
//! dummy as its components (see `adjc_frontend::fortran::derived`), the original routine
//! takes the derived-type value. The driver declares a variable of the type, fills its
//! components from the C driver's inputs (allocating allocatable ones with the lower bounds
//! given), calls the routine, and copies the components back for the output comparison.

use adjc_frontend::fortran::derived::{Bindings, DerivedDummy, DummyBinding, PartKind};

use crate::harness::Plan;

/// What the driver adds for derived-type dummies.
#[derive(Default)]
pub struct DerivedArgs {
    /// `use m, only: t` lines.
    pub uses: Vec<String>,
    /// Declarations of the derived-type variables.
    pub decls: Vec<String>,
    /// Statements before the call (allocate, fill).
    pub pre: Vec<String>,
    /// Statements after it (copy the components back).
    pub post: Vec<String>,
    /// The actual arguments, in the routine's order.
    pub args: Vec<String>,
}

/// `None` when the routine has no derived-type dummy; `Err(why)` when the driver cannot
/// build one (the check then skips the gfortran comparison, saying why).
pub fn derived_args(b: &Bindings, plan: &Plan) -> Option<Result<DerivedArgs, String>> {
    if !b.dummies.iter().any(|d| matches!(d, DummyBinding::Derived(_))) {
        return None;
    }
    Some(build(b, plan))
}

fn param(plan: &Plan, name: &str) -> Result<usize, String> {
    plan.params
        .iter()
        .position(|p| p.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| format!("the C parameter `{name}` is missing"))
}

fn build(b: &Bindings, plan: &Plan) -> Result<DerivedArgs, String> {
    let mut out = DerivedArgs::default();
    for (j, d) in b.dummies.iter().enumerate() {
        match d {
            DummyBinding::Plain(name) => out.args.push(format!("adjc_p{}", param(plan, name)?)),
            DummyBinding::Derived(dd) => {
                let var = format!("adjc_d{j}");
                one(dd, &var, plan, &mut out)?;
                out.args.push(var);
            }
        }
    }
    Ok(out)
}

fn one(d: &DerivedDummy, var: &str, plan: &Plan, out: &mut DerivedArgs) -> Result<(), String> {
    let Some(module) = &d.module else {
        return Err(format!("the type `{}` of `{}` is not defined in a module", d.type_name, d.name));
    };
    let use_line = format!("use {module}, only: {}", d.type_name);
    if !out.uses.contains(&use_line) {
        out.uses.push(use_line);
    }
    if d.rank > 1 {
        return Err(format!("`{}` is an array of derived types of rank {}", d.name, d.rank));
    }
    if d.rank == 0 {
        out.decls.push(format!("type({}) :: {var}", d.type_name));
    } else {
        out.decls.push(format!("type({}), allocatable :: {var}(:)", d.type_name));
        // The number of elements: the last axis of any component.
        let first = d.parts.iter().find(|p| p.kind == PartKind::Value).ok_or("no component")?;
        let k = param(plan, &first.param)?;
        out.pre.push(format!("allocate({var}(size(adjc_p{k}, {})))", first.rank + 1));
    }
    for p in &d.parts {
        if p.kind != PartKind::Value {
            continue;
        }
        if p.level_ranks.iter().skip(1).any(|r| *r > 0) {
            return Err(format!("`{}%{}` is inside an array of derived types", d.name, p.path.join("%")));
        }
        let k = param(plan, &p.param)?;
        let pp = &plan.params[k];
        let target = format!("{var}%{}", p.path.join("%"));
        let lbs: Vec<usize> = d
            .parts
            .iter()
            .filter_map(|q| match &q.kind {
                PartKind::LowerBound { of, axis } if *of == p.param => Some((*axis, q)),
                _ => None,
            })
            .map(|(_, q)| param(plan, &q.param))
            .collect::<Result<_, _>>()?;
        if d.rank == 0 {
            if !lbs.is_empty() {
                let bounds: Vec<String> = lbs
                    .iter()
                    .enumerate()
                    .map(|(a, l)| format!("adjc_p{l}:adjc_p{l} + size(adjc_p{k}, {}) - 1", a + 1))
                    .collect();
                out.pre.push(format!("allocate({target}({}))", bounds.join(", ")));
            }
            out.pre.push(format!("{target} = adjc_p{k}"));
            if pp.is_output() {
                out.post.push(format!("adjc_p{k} = {target}"));
            }
        } else if p.rank == 0 {
            out.pre.push(format!("{target} = adjc_p{k}"));
            if pp.is_output() {
                out.post.push(format!("adjc_p{k} = {target}"));
            }
        } else {
            let colons = vec![":"; p.rank].join(", ");
            let elem = format!("{var}(adjc_i)%{}", p.path.join("%"));
            out.pre.push(format!("do adjc_i = 1, size({var})"));
            out.pre.push(format!("  {elem} = adjc_p{k}({colons}, adjc_i)"));
            out.pre.push("end do".into());
            if pp.is_output() {
                out.post.push(format!("do adjc_i = 1, size({var})"));
                out.post.push(format!("  adjc_p{k}({colons}, adjc_i) = {elem}"));
                out.post.push("end do".into());
            }
        }
    }
    Ok(())
}
