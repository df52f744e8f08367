//! Names of the variables the Python frontend makes: what a reviewer reads in the C.
//!
//! A variable is named where its meaning is known, and the names are made unique in one
//! place, [`Lowerer::settle_names`], once the whole function is lowered (so that a name can
//! depend on how many times a helper is called). The rules, in order:
//!
//! * Source names are kept: a source variable of one value is `x`; the entry function's
//!   parameters are never renamed.
//! * A helper's variables (its parameters bound to computed arguments, its locals, the
//!   temporaries made while it runs) keep their own name when nothing else in the function
//!   wants it; otherwise they are qualified by the call they belong to: `relu1_x` is the
//!   `x` of the first call of `relu`, `conv2d2_output` the `output` of the second call of
//!   `conv2d` (`layer2_1` when the helper's name ends in a digit; no ordinal for a helper
//!   called once: `softmax_x`).
//! * A source variable reassigned values that need variables of their own (new shapes:
//!   `x = relu(x @ w2 + b2)` layer after layer of a network) has one variable per value;
//!   those computed by a call of a helper are named after the call (`relu1`, `relu2`,
//!   `softmax`), or after the calls when later helper calls store into the same array
//!   (`x = batchnorm2d(x); x = relu(x)` in place: `batchnorm2d2_relu2`, at most three
//!   calls), the others `x`, then `x_1`, `x_2`, ...
//! * Temporaries are named after what they hold, from the operation and the source
//!   expression's variables: `sum_A_x` for `np.sum(A[i, :] * x)`, `dot_A` for
//!   `np.dot(A[i, :j], A[j, :j])`, `xw2` for `x @ w2` (see [`expr_vars`]). A temporary never
//!   takes the name of a source identifier.
//! * What is still taken gets the smallest free `_k` (`k >= 1`), in variable order, so the
//!   names are deterministic and stable across runs. Adjoints and tapes follow the names
//!   chosen here (`relu2_b`, `relu2_tape`); C's reserved words are the C backend's business
//!   (`emit/src/names.rs`).

use super::lower::Lowerer;
use adjc_ir::VarId;
use std::collections::{BTreeMap, BTreeSet};

/// What the lowering knows about a variable's name when it makes the variable.
#[derive(Clone, Debug)]
pub(super) struct Wanted {
    /// The name it should have if nothing else wants it (`x`, `output`, `sum_A_x`).
    pub base: String,
    /// The scope (call) that made it: 0 is the entry function.
    pub scope: u32,
    /// For a later value of a reassigned source variable: the scope of the helper call whose
    /// result it holds.
    pub result_of: Option<u32>,
    /// A temporary (never named like a source identifier).
    pub temp: bool,
    /// Assigned again by a later statement (`x = relu(x)` into the array of `x`): it holds
    /// more than the value of one call, so it is not named after one.
    pub rebound: bool,
    /// The helper calls whose results later statements store into it, in order
    /// (`x = batchnorm2d(x); x = relu(x)`: the `relu` call); `None` once a statement that is
    /// not a helper call stores into it.
    pub rebound_by: Option<Vec<u32>>,
}

impl Wanted {
    /// Records that a later statement stores into this variable the result of the helper
    /// call `call` (`None`: not a helper call).
    pub fn rebind(&mut self, call: Option<u32>) {
        self.rebound = true;
        self.rebound_by = match (self.rebound_by.take(), call) {
            (Some(mut calls), Some(c)) => {
                calls.push(c);
                Some(calls)
            }
            _ => None,
        };
    }
}

/// Python keywords and the module names that prefix NumPy calls: not variables.
const NOT_VARS: &[&str] = &[
    "np", "numpy", "math", "and", "or", "not", "in", "is", "if", "else", "for", "None", "True", "False", "lambda",
    "dtype",
];

/// The variables of a source expression, in order of appearance, each once, leaving out what
/// is inside brackets (indices and slices), attribute names (`x.T`, `x.shape`), called
/// names (`np.exp`) and keywords: `A[i, :] * x` gives `A, x`. At most four.
pub(super) fn expr_vars(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let tuples = tuple_ranges(&chars);
    let in_tuple = |k: usize| tuples.iter().any(|(a, b)| *a < k && k < *b);
    let mut depth = 0usize;
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        if c == '[' {
            depth += 1;
            k += 1;
            continue;
        }
        if c == ']' {
            depth = depth.saturating_sub(1);
            k += 1;
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let start = k;
            while k < chars.len() && (chars[k].is_alphanumeric() || chars[k] == '_') {
                k += 1;
            }
            let word: String = chars[start..k].iter().collect();
            let after_dot = start > 0 && chars[start - 1] == '.';
            let rest = chars[k..].iter().find(|c| !c.is_whitespace());
            let called = rest == Some(&'(');
            // `axis=0`: a keyword argument's name (not `==`).
            let keyword = rest == Some(&'=') && chars[k..].iter().filter(|c| !c.is_whitespace()).nth(1) != Some(&'=');
            let dotted = rest == Some(&'.');
            let digit_before = start > 0 && chars[start - 1].is_ascii_digit();
            if depth == 0
                && !in_tuple(start)
                && !after_dot
                && !called
                && !keyword
                && !digit_before
                && !NOT_VARS.contains(&word.as_str())
                && !(dotted && NOT_VARS.contains(&word.as_str()))
                && !out.contains(&word)
            {
                out.push(word);
            }
            continue;
        }
        k += 1;
    }
    out.truncate(4);
    out
}

/// The parenthesised tuples of `chars` (a group with a comma of its own that is not a call's
/// argument list, as the shape in `np.reshape(A, (NR, NQ, 1, NP))`): sizes, not operands.
fn tuple_ranges(chars: &[char]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut open: Vec<(usize, bool, bool)> = Vec::new(); // (position, is a call, has a comma)
    for (k, &c) in chars.iter().enumerate() {
        match c {
            '(' | '[' => {
                let before = chars[..k].iter().rev().find(|c| !c.is_whitespace());
                let call = c == '[' || before.is_some_and(|b| b.is_alphanumeric() || *b == '_' || *b == ')');
                open.push((k, call, false));
            }
            ',' => {
                if let Some(top) = open.last_mut() {
                    top.2 = true;
                }
            }
            ')' | ']' => {
                if let Some((a, call, comma)) = open.pop() {
                    if !call && comma {
                        out.push((a, k));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// `op` followed by the variables of `text` (`sum_A_x`), or `op` alone when it has none.
pub(super) fn op_name(op: &str, text: &str) -> String {
    let vars = expr_vars(text);
    if vars.is_empty() {
        op.to_string()
    } else {
        format!("{op}_{}", vars.join("_"))
    }
}

/// The name of an array computed for a library call from the value of `text`: `x_copy` for a
/// copy of `x`, `exp_neg_z` for `np.exp(-z)`, the expression's variables otherwise, `copy`
/// when it has none.
pub(super) fn copy_name(text: &str) -> String {
    let t = text.trim();
    if is_ident(t) {
        return format!("{t}_copy");
    }
    match value_name(t) {
        Some(n) if !n.is_empty() => n,
        _ => "copy".to_string(),
    }
}

fn is_ident(t: &str) -> bool {
    !t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_') && !t.starts_with(|c: char| c.is_numeric())
}

/// `exp_neg_z` for `np.exp(-z)`, `neg_x` for `-x`, `x` for `x`; for anything else the
/// expression's variables joined (`A_x`), `None` when it has none.
fn value_name(t: &str) -> Option<String> {
    let t = t.trim();
    if is_ident(t) {
        return Some(t.to_string());
    }
    if let Some(rest) = t.strip_prefix('-') {
        return value_name(rest).map(|n| format!("neg_{n}"));
    }
    // `np.f(arg)` / `f(arg)` with one argument and nothing after the closing parenthesis.
    if let (Some(open), true) = (t.find('('), t.ends_with(')')) {
        let func = &t[..open];
        let inner = &t[open + 1..t.len() - 1];
        let balanced = inner.chars().try_fold(0i32, |d, c| match c {
            '(' => Some(d + 1),
            ')' if d == 0 => None,
            ')' => Some(d - 1),
            _ => Some(d),
        }) == Some(0);
        let name = func.rsplit('.').next().unwrap_or(func);
        if balanced && is_ident(name) && !inner.contains(',') {
            return value_name(inner).map(|n| format!("{name}_{n}"));
        }
    }
    let vars = expr_vars(t);
    (!vars.is_empty()).then(|| vars.join("_"))
}

/// The label of a call in names: the helper's name, followed by its ordinal among the calls
/// of that helper when there are several (`relu2`; `conv2d_2` after a digit).
fn call_label(fname: &str, ordinal: usize, calls: usize) -> String {
    if calls <= 1 {
        fname.to_string()
    } else if fname.ends_with(|c: char| c.is_ascii_digit()) {
        format!("{fname}_{ordinal}")
    } else {
        format!("{fname}{ordinal}")
    }
}

impl Lowerer<'_> {
    /// Records the scope that made each variable created since the last call.
    pub(super) fn note_owners(&mut self) {
        let scope = self.scopes.last().map_or(0, |s| s.id);
        while self.owner.len() < self.f.vars.len() {
            self.owner.push(scope);
        }
    }

    /// Records the name `v` should have (see the module documentation).
    pub(super) fn want_name(&mut self, v: VarId, base: &str, temp: bool) {
        self.note_owners();
        let scope = self.owner.get(v.index()).copied().unwrap_or(0);
        let result_of = if temp { None } else { self.result_of.take() };
        let wanted =
            Wanted { base: base.to_string(), scope, result_of, temp, rebound: false, rebound_by: Some(Vec::new()) };
        self.wanted.insert(v, wanted);
    }

    /// Gives every variable recorded by [`Lowerer::want_name`] its final name (the rules of
    /// the module documentation).
    pub(super) fn settle_names(&mut self) {
        self.note_owners();
        // Ordinals of the calls of each helper, in call order.
        let mut by_fn: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
        for (id, fname) in &self.call_names {
            by_fn.entry(fname.as_str()).or_default().push(*id);
        }
        let mut labels: BTreeMap<u32, String> = BTreeMap::new();
        for (fname, ids) in &by_fn {
            for (k, id) in ids.iter().enumerate() {
                labels.insert(*id, call_label(fname, k + 1, ids.len()));
            }
        }
        // How many variables want each name; the names nobody renames are fixed.
        let mut demand: BTreeMap<&str, usize> = BTreeMap::new();
        for w in self.wanted.values() {
            *demand.entry(w.base.as_str()).or_default() += 1;
        }
        let mut taken: BTreeSet<String> = BTreeSet::new();
        for (k, var) in self.f.vars.iter().enumerate() {
            if !self.wanted.contains_key(&VarId(k as u32)) {
                taken.insert(var.name.clone());
            }
        }
        // How many variables the entry function makes for each source name.
        let mut versions: BTreeMap<&str, usize> = BTreeMap::new();
        for w in self.wanted.values().filter(|w| w.scope == 0 && !w.temp) {
            *versions.entry(w.base.as_str()).or_default() += 1;
        }
        let mut names: Vec<(VarId, String)> = Vec::new();
        for (v, w) in &self.wanted {
            let base = w.base.as_str();
            let source_id = self.reserved.contains(base);
            let contested = demand.get(base).copied().unwrap_or(0) > 1 || taken.contains(base);
            let label = labels.get(&w.scope);
            let cand = if w.scope == 0 {
                // The calls whose values the variable holds, in order: `relu2`, or
                // `batchnorm2d2_relu2` for `x = batchnorm2d(x); x = relu(x)` in place.
                let chain: Option<Vec<&String>> = w.result_of.and_then(|s| {
                    let later = w.rebound_by.as_ref()?;
                    std::iter::once(&s).chain(later).map(|c| labels.get(c)).collect()
                });
                match chain {
                    Some(ls) if versions.get(base).copied().unwrap_or(0) > 1 && ls.len() <= 3 => {
                        ls.iter().map(|l| l.as_str()).collect::<Vec<_>>().join("_")
                    }
                    _ => base.to_string(),
                }
            } else if let Some(l) = label.filter(|_| contested || (w.temp && source_id)) {
                format!("{l}_{base}")
            } else {
                base.to_string()
            };
            names.push((*v, cand));
        }
        // Source names first: a source variable that happens to be called `relu2` keeps its
        // name, and the value named after the call becomes `relu2_1`.
        names.sort_by_key(|(v, cand)| {
            let w = &self.wanted[v];
            (w.temp || *cand != w.base, *v)
        });
        for (v, cand) in names {
            let temp = self.wanted.get(&v).is_some_and(|w| w.temp);
            let free = |n: &str, taken: &BTreeSet<String>| !(taken.contains(n) || (temp && self.reserved.contains(n)));
            let name = if free(&cand, &taken) {
                cand
            } else {
                (1..).map(|k| format!("{cand}_{k}")).find(|n| free(n, &taken)).unwrap_or(cand)
            };
            taken.insert(name.clone());
            self.f.var_mut(v).name = name;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_of_an_expression() {
        assert_eq!(expr_vars("A[i, :] * x"), vec!["A", "x"]);
        assert_eq!(expr_vars("np.exp(-z)"), vec!["z"]);
        assert_eq!(expr_vars("A[i, :j], A[j, :j]"), vec!["A"]);
        assert_eq!(expr_vars("x.T @ w2 + 1e-5"), vec!["x", "w2"]);
        assert_eq!(expr_vars("2.0"), Vec::<String>::new());
        assert_eq!(op_name("sum", "(a - b) ** 2"), "sum_a_b");
        assert_eq!(op_name("sum", "x, axis=0, keepdims=True"), "sum_x");
        assert_eq!(expr_vars("a == b"), vec!["a", "b"]);
        assert_eq!(expr_vars("np.reshape(A, (NR, NQ, 1, NP))"), vec!["A"]);
        assert_eq!(copy_name("np.exp(-z)"), "exp_neg_z");
        assert_eq!(copy_name("x"), "x_copy");
        assert_eq!(copy_name("A[i, :] * x"), "A_x");
        assert_eq!(copy_name("2.0"), "copy");
    }

    #[test]
    fn call_labels() {
        assert_eq!(call_label("relu", 2, 3), "relu2");
        assert_eq!(call_label("conv2d", 1, 2), "conv2d1");
        assert_eq!(call_label("layer2", 1, 2), "layer2_1");
        assert_eq!(call_label("softmax", 1, 1), "softmax");
    }
}
