//! The dot-product test: for random inputs x, direction v and output weights w,
//! ⟨w, (f(x + hv) − f(x − hv)) / 2h⟩ must equal ⟨Jᵀw, v⟩ computed by the adjoint, and the
//! adjoint must leave every primal output as the forward function does.

#![allow(dead_code)]

use super::interp::{run, size_of, Args, Opts, Value};
use adjc_autodiff::{reverse, AdOptions, Adjoint};
use adjc_ir::{Function, Intent, VarRole};

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    }
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
    pub fn vec(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.uniform(lo, hi)).collect()
    }
}

fn value_like(f: &Function, name: &str, args: &Args, rng: &mut Rng, lo: f64, hi: f64) -> Value {
    let v = f.vars.iter().find(|v| v.name == name).unwrap();
    if v.ty.is_array() {
        Value::Array(rng.vec(size_of(f, name, args), lo, hi))
    } else {
        Value::Float(rng.uniform(lo, hi))
    }
}

fn axpy(x: &Value, a: f64, d: &Value) -> Value {
    match (x, d) {
        (Value::Float(x), Value::Float(d)) => Value::Float(x + a * d),
        (Value::Array(x), Value::Array(d)) => Value::Array(x.iter().zip(d).map(|(x, d)| x + a * d).collect()),
        _ => panic!("mismatched values"),
    }
}

fn abs(a: &Value) -> Value {
    match a {
        Value::Float(x) => Value::Float(x.abs()),
        Value::Array(v) => Value::Array(v.iter().map(|x| x.abs()).collect()),
        v => v.clone(),
    }
}

fn dot(a: &Value, b: &Value) -> f64 {
    a.floats().iter().zip(b.floats()).map(|(x, y)| x * y).sum()
}

pub struct Outcome {
    pub adjoint: Adjoint,
    pub fd: f64,
    pub ad: f64,
}

/// Runs the full check and returns the adjoint. `fixed` gives the integer (and any other
/// non-random) arguments; float inputs are drawn in `[lo, hi)`.
pub fn check_with(primal: &Function, opts: &AdOptions, fixed: &[(&str, Value)], lo: f64, hi: f64) -> Outcome {
    adjc_ir::validate::validate(primal).expect("primal must be valid");
    let adjoint = reverse(primal, opts).unwrap_or_else(|d| panic!("reverse failed: {d}"));
    check_adjoint(primal, adjoint, fixed, lo, hi)
}

/// [`check_with`] for an adjoint built (and perhaps rewritten, e.g. by a memory plan) already.
pub fn check_adjoint(primal: &Function, adjoint: Adjoint, fixed: &[(&str, Value)], lo: f64, hi: f64) -> Outcome {
    let fb = &adjoint.function;
    if let Err(e) = adjc_ir::validate::validate(fb) {
        panic!("adjoint invalid: {e}\n{}", adjc_ir::print::print_function(fb));
    }
    let show = || adjc_ir::print::print_function(fb);
    let mut rng = Rng::new(0x5eed ^ primal.name.len() as u64);
    let mut x0: Args = fixed.iter().map(|(n, v)| (n.to_string(), v.clone())).collect();
    for p in &primal.params {
        let var = primal.var(p.var);
        if p.intent == Intent::Out || x0.contains_key(&var.name) {
            continue;
        }
        assert!(var.ty.elem().is_float(), "give a value for integer parameter {}", var.name);
        let v = value_like(primal, &var.name, &x0, &mut rng, lo, hi);
        x0.insert(var.name.clone(), v);
    }
    let name = |v: adjc_ir::VarId| primal.var(v).name.clone();
    let dirs: Vec<(String, Value)> =
        adjoint.wrt.iter().map(|v| (name(*v), value_like(primal, &name(*v), &x0, &mut rng, -1.0, 1.0))).collect();
    let weights: Vec<(String, Value)> =
        adjoint.of.iter().map(|v| (name(*v), value_like(primal, &name(*v), &x0, &mut rng, -1.0, 1.0))).collect();

    // Primal and finite differences.
    let eval = |args: &Args| -> Args {
        let mut a = args.clone();
        run(primal, &mut a, Opts::default()).unwrap_or_else(|e| panic!("primal run failed: {e}"));
        a
    };
    let y0 = eval(&x0);
    let shifted = |step: f64| {
        let mut a = x0.clone();
        for (n, d) in &dirs {
            let x = a[n].clone();
            a.insert(n.clone(), axpy(&x, step, d));
        }
        eval(&a)
    };
    let loss = |y: &Args| -> f64 { weights.iter().map(|(n, w)| dot(w, &y[n])).sum() };
    let central = |h: f64| (loss(&shifted(h)) - loss(&shifted(-h))) / (2.0 * h);
    // Plain central differences first; when round-off or truncation spoils them (tiny
    // gradients, large values), Richardson-extrapolated ones with larger steps.
    if std::env::var("ADJC_FD_DEBUG").is_ok() {
        for e in 2..10 {
            let h = 10f64.powi(-e);
            eprintln!(
                "h=1e-{e}: central {:.12e}  richardson {:.12e}",
                central(h),
                (4.0 * central(h / 2.0) - central(h)) / 3.0
            );
        }
    }
    // Near a kink (max, min, abs) only small steps see one smooth piece; elsewhere
    // larger extrapolated steps beat round-off.
    let richardson = |h: f64| (4.0 * central(h / 2.0) - central(h)) / 3.0;
    let estimate = |k: usize| match k {
        0 => central(1e-6),
        1 => richardson(1e-6),
        2 => central(1e-7),
        3 => richardson(1e-4),
        _ => richardson(1e-3),
    };
    // Adjoint, with map iterations in both orders.
    let mut results = Vec::new();
    for reverse_maps in [false, true] {
        let mut args = x0.clone();
        for q in &fb.params {
            let var = fb.var(q.var);
            let VarRole::Adjoint(of_var) = var.role else { continue };
            let pname = name(of_var);
            let seeded = weights.iter().find(|(n, _)| *n == pname).map(|(_, w)| w.clone());
            let v = match seeded {
                Some(w) => w,
                // In-out adjoints that are not seeded must be ignored on entry: pass junk.
                None if primal.param(of_var).map(|p| p.intent) == Some(Intent::InOut) => {
                    value_like(primal, &pname, &x0, &mut rng, 100.0, 200.0)
                }
                None => match value_like(primal, &pname, &x0, &mut rng, 0.0, 0.0) {
                    Value::Float(_) => Value::Float(0.0),
                    v => v,
                },
            };
            args.insert(var.name.clone(), v);
        }
        run(fb, &mut args, Opts { reverse_maps, ..Opts::default() })
            .unwrap_or_else(|e| panic!("adjoint run failed: {e}\n{}", show()));
        // Primal outputs as the forward function leaves them.
        for q in &primal.params {
            if q.intent == Intent::In {
                continue;
            }
            let n = name(q.var);
            let (a, b) = (y0[&n].floats(), args[&n].floats());
            for (k, (x, y)) in a.iter().zip(&b).enumerate() {
                assert!(
                    (x - y).abs() <= 1e-12 * x.abs().max(1.0),
                    "output {n}[{k}] after the adjoint is {y}, forward gives {x}\n{}",
                    show()
                );
            }
        }
        // Output-only adjoints are zero on exit.
        for q in &fb.params {
            let var = fb.var(q.var);
            let VarRole::Adjoint(of_var) = var.role else { continue };
            if primal.param(of_var).map(|p| p.intent) == Some(Intent::Out) && q.intent != Intent::In {
                assert!(
                    args[&var.name].floats().iter().all(|x| *x == 0.0),
                    "{} is not zero on exit\n{}",
                    var.name,
                    show()
                );
            }
        }
        let ad: f64 = dirs
            .iter()
            .map(|(n, d)| {
                let bname = fb.params.iter().map(|q| fb.var(q.var)).find(|v| {
                    v.role
                        == VarRole::Adjoint(
                            primal.vars.iter().position(|x| &x.name == n).map(|i| adjc_ir::VarId(i as u32)).unwrap(),
                        )
                });
                dot(&args[&bname.unwrap().name], d)
            })
            .sum();
        results.push(ad);
    }
    let ad = results[0];
    // Gradients far below the loss itself are lost in round-off: the floor scales with it.
    let magnitude: f64 = weights.iter().map(|(n, w)| dot(&abs(w), &abs(&y0[n]))).sum();
    let rel_of = |fd: f64| (fd - ad).abs() / fd.abs().max(ad.abs()).max(1e-6 * magnitude).max(1e-12);
    let mut fd = f64::NAN;
    let mut rel = f64::INFINITY;
    for k in 0..5 {
        let e = estimate(k);
        if rel_of(e) < rel || fd.is_nan() {
            (fd, rel) = (e, rel_of(e));
        }
        if rel < 1e-6 {
            break;
        }
    }
    assert!(rel < 1e-6, "dot-product test failed: finite differences {fd}, adjoint {ad}, rel {rel}\n{}", show());
    let order = (results[0] - results[1]).abs() / results[0].abs().max(1e-10);
    assert!(order < 1e-12, "gradient depends on the map iteration order: {results:?}\n{}", show());
    Outcome { adjoint, fd, ad }
}

pub fn check(primal: &Function, fixed: &[(&str, Value)]) -> Adjoint {
    check_with(primal, &AdOptions::default(), fixed, 0.5, 1.5).adjoint
}

/// Every output of `original` has the same value after the transformed function ran as
/// after the original did, up to the round-off of a reordered sum (reductions).
pub fn assert_same_outputs(
    original: &adjc_ir::Function,
    transformed: &adjc_ir::Function,
    want: &super::interp::Args,
    got: &super::interp::Args,
    what: &str,
    reverse_maps: bool,
) {
    for p in original.params.iter().filter(|p| p.intent != adjc_ir::Intent::In) {
        let name = &original.var(p.var).name;
        let (a, b) = (want[name].floats(), got[name].floats());
        assert_eq!(a.len(), b.len());
        for (k, (x, y)) in a.iter().zip(&b).enumerate() {
            assert!(
                (x - y).abs() <= 1e-12 * x.abs().max(1.0),
                "{name}[{k}]: original {x}, {what} {y} (reverse_maps {reverse_maps})\n{}",
                adjc_ir::print::print_function(transformed)
            );
        }
    }
}

/// Random values in `[lo, hi)` for every parameter of `f` that is not output-only and not in
/// `fixed`; integer arrays (gather indices) get indices in bounds of themselves, with repeats.
pub fn random_inputs(f: &Function, fixed: &[(&str, i64)], seed: u64, lo: f64, hi: f64) -> Args {
    let mut rng = Rng::new(seed);
    let mut args: Args = fixed.iter().map(|(n, v)| (n.to_string(), Value::Int(*v))).collect();
    for p in &f.params {
        let v = f.var(p.var);
        if p.intent == Intent::Out || args.contains_key(&v.name) {
            continue;
        }
        let value = if v.ty.elem() == adjc_ir::Scalar::I64 && v.ty.is_array() {
            let n = size_of(f, &v.name, &args);
            Value::IntArray((0..n).map(|_| (rng.uniform(0.0, n as f64) as i64).min(n as i64 - 1)).collect())
        } else if v.ty.is_array() {
            Value::Array(rng.vec(size_of(f, &v.name, &args), lo, hi))
        } else {
            Value::Float(rng.uniform(lo, hi))
        };
        args.insert(v.name.clone(), value);
    }
    args
}

/// `rewritten` (the output of the pass named `pass`) computes what `original` computes, on
/// two random inputs in `[lo, hi)`, in both orders of map iterations, with no race (the
/// interpreter reports races and unset reads); sums may only differ by round-off.
pub fn assert_rewrite_keeps_results(
    original: &Function,
    rewritten: &Function,
    fixed: &[(&str, i64)],
    pass: &str,
    (lo, hi): (f64, f64),
) {
    for seed in [1, 2] {
        let args = random_inputs(original, fixed, seed, lo, hi);
        for reverse_maps in [false, true] {
            let mut want = args.clone();
            run(original, &mut want, Opts { reverse_maps, ..Opts::default() })
                .unwrap_or_else(|e| panic!("original failed: {e}"));
            let mut got = args.clone();
            run(rewritten, &mut got, Opts { reverse_maps, ..Opts::default() }).unwrap_or_else(|e| {
                panic!(
                    "{pass}: rewritten run failed (reverse_maps {reverse_maps}): {e}\n{}",
                    adjc_ir::print::print_function(rewritten)
                )
            });
            assert_same_outputs(original, rewritten, &want, &got, pass, reverse_maps);
        }
    }
}
