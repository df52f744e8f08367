//! The frontend tests' view of the reference interpreter (`adjc_ir::testing::interp`,
//! shared by every crate): inputs and outputs as [`Data`] with their shapes, `f32` computed
//! in single precision as NumPy and gfortran do.

use adjc_ir::testing::interp::{run as run_ir, Args, Opts, Value};
use adjc_ir::*;
use std::collections::BTreeMap;

// ---------------------------------------------------------------------------------------
// Interpreter

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum V {
    F(f64),
    I(i64),
    B(bool),
}

impl V {
    fn f(self) -> f64 {
        match self {
            V::F(x) => x,
            V::I(i) => i as f64,
            V::B(b) => b as i64 as f64,
        }
    }
    fn i(self) -> i64 {
        match self {
            V::F(x) => x as i64,
            V::I(i) => i,
            V::B(b) => b as i64,
        }
    }
    fn b(self) -> bool {
        match self {
            V::B(b) => b,
            V::I(i) => i != 0,
            V::F(x) => x != 0.0,
        }
    }
}

#[derive(Clone, Debug)]
pub enum Data {
    Scalar(V),
    Array { dims: Vec<usize>, data: Vec<V> },
}

impl Data {
    pub fn arr(dims: &[usize], data: Vec<f64>) -> Data {
        assert_eq!(dims.iter().product::<usize>(), data.len());
        Data::Array { dims: dims.to_vec(), data: data.into_iter().map(V::F).collect() }
    }
    pub fn f(x: f64) -> Data {
        Data::Scalar(V::F(x))
    }
    pub fn i(x: i64) -> Data {
        Data::Scalar(V::I(x))
    }
    pub fn floats(&self) -> Vec<f64> {
        match self {
            Data::Scalar(v) => vec![v.f()],
            Data::Array { data, .. } => data.iter().map(|v| v.f()).collect(),
        }
    }
    pub fn dims(&self) -> Vec<usize> {
        match self {
            Data::Scalar(_) => vec![],
            Data::Array { dims, .. } => dims.clone(),
        }
    }
}

/// The scalar arguments by variable, for evaluating extents.
fn int_env<'a>(f: &'a Function, args: &'a Args) -> impl Fn(VarId) -> Option<i64> + 'a {
    move |v| match args.get(&f.var(v).name) {
        Some(Value::Int(x)) => Some(*x),
        _ => None,
    }
}

fn to_value(d: &Data) -> Value {
    match d {
        Data::Scalar(V::F(x)) => Value::Float(*x),
        Data::Scalar(V::I(x)) => Value::Int(*x),
        Data::Scalar(V::B(x)) => Value::Bool(*x),
        Data::Array { data, .. } if data.iter().all(|v| matches!(v, V::I(_))) && !data.is_empty() => {
            Value::IntArray(data.iter().map(|v| v.i()).collect())
        }
        Data::Array { data, .. } => Value::Array(data.iter().map(|v| v.f()).collect()),
    }
}

fn to_data(f: &Function, var: VarId, v: &Value, args: &Args) -> Data {
    let dims = || -> Vec<usize> {
        let env = int_env(f, args);
        f.var(var)
            .ty
            .dims()
            .iter()
            .map(|d| adjc_ir::eval::eval_int(&d.extent, &env).expect("extent of the parameters") as usize)
            .collect()
    };
    match v {
        Value::Float(x) => Data::Scalar(V::F(*x)),
        Value::Int(x) => Data::Scalar(V::I(*x)),
        Value::Bool(x) => Data::Scalar(V::B(*x)),
        Value::Array(xs) => Data::Array { dims: dims(), data: xs.iter().map(|x| V::F(*x)).collect() },
        Value::IntArray(xs) => Data::Array { dims: dims(), data: xs.iter().map(|x| V::I(*x)).collect() },
    }
}

/// Runs `f` with named inputs (parameters and size parameters) through the reference
/// interpreter (`adjc_ir::testing::interp`, in single precision for `f32`); returns every
/// parameter by name after the call. Maps run in the given iteration order.
pub fn run_order(f: &Function, inputs: &[(&str, Data)], reverse_maps: bool) -> BTreeMap<String, Data> {
    let mut args: Args = inputs.iter().map(|(n, d)| (n.to_string(), to_value(d))).collect();
    for p in &f.params {
        let var = f.var(p.var);
        if let Some(Data::Array { dims, .. }) = inputs.iter().find(|(n, _)| *n == var.name).map(|(_, d)| d) {
            let Data::Array { dims: want, .. } = to_data(f, p.var, &Value::Array(vec![]), &args) else {
                unreachable!()
            };
            assert_eq!(dims, &want, "shape of `{}`", var.name);
        }
    }
    run_ir(f, &mut args, Opts { reverse_maps, single_precision: true })
        .unwrap_or_else(|e| panic!("interpreter: {e}\n{}", adjc_ir::print::print_function(f)));
    f.params
        .iter()
        .map(|p| {
            let name = f.var(p.var).name.clone();
            let d = args.get(&name).map_or(Data::Scalar(V::F(f64::NAN)), |v| to_data(f, p.var, v, &args));
            (name, d)
        })
        .collect()
}

/// Runs `f` twice (maps in forward and in reverse order: iterations of a map must be
/// independent) and checks both runs agree.
pub fn run(f: &Function, inputs: &[(&str, Data)]) -> BTreeMap<String, Data> {
    let a = run_order(f, inputs, false);
    let b = run_order(f, inputs, true);
    for (k, x) in &a {
        let (xs, ys) = (x.floats(), b[k].floats());
        for (p, q) in xs.iter().zip(&ys) {
            assert!(close(*p, *q), "map iteration order changes `{k}`: {xs:?} vs {ys:?}");
        }
    }
    a
}

pub fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

pub fn assert_close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "lengths differ: {got:?} vs {want:?}");
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(close(*a, *b), "element {k}: got {a}, want {b}\n got: {got:?}\nwant: {want:?}");
    }
}

/// Deterministic pseudo-random test data.
pub fn data(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 33) % 1000) as f64 / 250.0 - 2.0
        })
        .collect()
}
