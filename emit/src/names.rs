//! C identifiers for IR variables and functions.
//!
//! Source names are kept whenever C allows it. A name that C (or a C++ caller reading the
//! header) would misread gets a predictable fix: a trailing `_` (`I` → `I_`, `y1` → `y1_`),
//! a `u_` prefix for names in reserved prefixes (`adjc_x` → `u_adjc_x`), transliteration
//! of Greek letters (`α` → `alpha`). Two variables that would share a C name get `_1`, `_2`,
//! ... in `VarId` order, except loop indices whose loops are never nested in each other:
//! those may share a name (every `map` over `i` is written with `i`).

use crate::reserved;
use adjc_ir::{Block, Function, StmtKind, VarId, VarRole};
use std::collections::{BTreeMap, BTreeSet};

/// One renamed identifier, listed in the generated header.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rename {
    pub from: String,
    pub to: String,
    pub why: String,
}

impl Rename {
    pub fn describe(&self) -> String {
        format!("{} → {} ({})", self.from, self.to, self.why)
    }
}

/// The C names of one function's variables.
#[derive(Clone, Debug)]
pub struct Names {
    /// Indexed by `VarId`.
    pub vars: Vec<String>,
    /// Why a variable's C name differs from its source name (`None` when it does not).
    pub why: Vec<Option<String>>,
}

impl Names {
    pub fn get(&self, v: VarId) -> &str {
        &self.vars[v.index()]
    }

    /// A C name for something the generated code declares itself (a tile's counter or
    /// partial sums): `base` unless a variable has it or it is reserved, else `adjc_base`
    /// (reserved for adjc: no source name takes it).
    pub fn fresh(&self, base: &str) -> String {
        if reserved::reason(base).is_none() && !self.vars.iter().any(|v| v == base) {
            base.to_string()
        } else {
            format!("adjc_{base}")
        }
    }

    /// The renames of the given variables, in `VarId` order.
    pub fn renames(&self, f: &Function, vars: &BTreeSet<VarId>) -> Vec<Rename> {
        vars.iter()
            .filter_map(|v| {
                let why = self.why.get(v.index())?.as_ref()?;
                Some(Rename { from: f.var(*v).name.clone(), to: self.vars[v.index()].clone(), why: why.clone() })
            })
            .collect()
    }
}

/// A valid, unreserved C identifier derived from `name`, and why it had to change.
pub fn c_identifier(name: &str) -> (String, Option<String>) {
    let first = reserved::reason(name);
    let mut s = name.to_string();
    // Each fix removes the reason it addresses; a few rounds reach a fixed point
    // (`γ` → `gamma` → `gamma_`).
    for _ in 0..4 {
        let Some(why) = reserved::reason(&s) else { break };
        s = fix(&s, &why);
    }
    if reserved::reason(&s).is_some() {
        s = format!("v_{}", s.len());
    }
    (s, first)
}

fn fix(s: &str, why: &str) -> String {
    if s.is_empty() {
        return "v".into();
    }
    if why == "is not a C identifier" {
        let mut out = String::new();
        for c in s.chars() {
            if c.is_ascii_alphanumeric() || c == '_' {
                out.push(c);
            } else if let Some(t) = greek(c) {
                out.push_str(t);
            } else {
                out.push_str(&format!("_u{:04x}", c as u32));
            }
        }
        if out.starts_with(|c: char| c.is_ascii_digit()) {
            out.insert(0, 'v');
        }
        return out;
    }
    if why.starts_with("is reserved") || s.starts_with("omp_") {
        return if s.starts_with('_') { format!("u{s}") } else { format!("u_{s}") };
    }
    format!("{s}_")
}

fn greek(c: char) -> Option<&'static str> {
    const LOWER: [&str; 25] = [
        "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu", "nu",
        "xi", "omicron", "pi", "rho", "sigma", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega",
    ];
    const UPPER: [&str; 25] = [
        "Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Eta", "Theta", "Iota", "Kappa", "Lambda", "Mu", "Nu",
        "Xi", "Omicron", "Pi", "Rho", "Sigma", "Sigma", "Tau", "Upsilon", "Phi", "Chi", "Psi", "Omega",
    ];
    let code = c as u32;
    match code {
        0x3b1..=0x3c9 => Some(LOWER[(code - 0x3b1) as usize]),
        0x391..=0x3a9 => Some(UPPER[(code - 0x391) as usize]),
        _ => None,
    }
}

/// The C names of all variables of `f` (index = `VarId`).
pub fn assign(f: &Function) -> Names {
    let n = f.vars.len();
    // For each index variable, the indices of loops nested with it (lookups only).
    let mut nested_with: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (a, b) in index_nesting(f) {
        nested_with.entry(a).or_default().push(b);
    }
    let mut vars: Vec<String> = Vec::with_capacity(n);
    let mut why: Vec<Option<String>> = Vec::with_capacity(n);
    let mut all_names: BTreeSet<String> = BTreeSet::new();
    let mut plain_names: BTreeSet<String> = BTreeSet::new();
    // Next suffix to try per base name, so that many equal names stay linear.
    let mut next_suffix: BTreeMap<String, usize> = BTreeMap::new();
    for (k, var) in f.vars.iter().enumerate() {
        let (base, reason) = c_identifier(&var.name);
        let is_index = var.role == VarRole::Index;
        let no_nest = Vec::new();
        let nest = nested_with.get(&k).unwrap_or(&no_nest);
        // Indices of loops that never enclose one another may share a name; everything
        // else needs a name of its own.
        let taken = |cand: &str| {
            if is_index {
                plain_names.contains(cand) || nest.iter().any(|&j| vars.get(j).is_some_and(|v| v == cand))
            } else {
                all_names.contains(cand)
            }
        };
        let mut name = base.clone();
        let mut reason = reason;
        if taken(&name) {
            let first = if is_index { 1 } else { next_suffix.get(&base).copied().unwrap_or(1) };
            let pick = (first..)
                .find(|i| {
                    let c = format!("{base}_{i}");
                    !taken(&c) && reserved::reason(&c).is_none()
                })
                .unwrap_or(first);
            if !is_index {
                next_suffix.insert(base.clone(), pick + 1);
            }
            name = format!("{base}_{pick}");
            if reason.is_none() {
                reason = Some("another variable has this name".into());
            }
        }
        all_names.insert(name.clone());
        if !is_index {
            plain_names.insert(name.clone());
        }
        vars.push(name);
        why.push(reason);
    }
    Names { vars, why }
}

/// Pairs of loop/map indices (as `VarId` indices) whose loops are nested in each other or
/// bound by the same map, stored both ways round.
fn index_nesting(f: &Function) -> BTreeSet<(usize, usize)> {
    fn walk(b: &Block, bound: &mut Vec<VarId>, out: &mut BTreeSet<(usize, usize)>) {
        for s in b {
            let binds: Vec<VarId> = match &s.kind {
                StmtKind::Loop(l) => vec![l.var],
                StmtKind::Map(m) => m.dims.iter().map(|d| d.var).collect(),
                _ => Vec::new(),
            };
            for (k, v) in binds.iter().enumerate() {
                for u in bound.iter().chain(&binds[..k]) {
                    out.insert((u.index(), v.index()));
                    out.insert((v.index(), u.index()));
                }
            }
            let depth = bound.len();
            bound.extend(binds);
            for inner in s.blocks() {
                walk(inner, bound, out);
            }
            bound.truncate(depth);
        }
    }
    let mut out = BTreeSet::new();
    walk(&f.body, &mut Vec::new(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixes_collisions_predictably() {
        assert_eq!(c_identifier("I"), ("I_".to_string(), Some("collides with complex.h".to_string())));
        assert_eq!(c_identifier("y1").0, "y1_");
        assert_eq!(c_identifier("int").0, "int_");
        assert_eq!(c_identifier("adjc_tmp").0, "u_adjc_tmp");
        assert_eq!(c_identifier("__x").0, "u__x");
        assert_eq!(c_identifier("α").0, "alpha");
        assert_eq!(c_identifier("γ").0, "gamma_");
        assert_eq!(c_identifier("A").0, "A");
        assert_eq!(c_identifier("A").1, None);
    }
}
