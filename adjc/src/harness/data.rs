//! Input values of the generated drivers: distributions given with `--init`, values from a
//! `.npz` file, and the seeded generator behind the random ones.

use std::path::Path;

use crate::cli_error::{CliError, CliResult};

/// splitmix64: tiny, seedable and stable across versions, so a seed means the same inputs
/// on every machine and every adjc release.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    /// Standard normal (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let u1 = self.unit().max(f64::MIN_POSITIVE);
        let u2 = self.unit();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

/// How to fill one input.
#[derive(Clone, Debug, PartialEq)]
pub enum Dist {
    Uniform(f64, f64),
    Normal,
    /// Symmetric positive definite: B Bᵀ + n I for a uniform B (square 2-D arrays).
    Spd,
    /// Diagonally dominant: uniform(-1, 1) plus n on the diagonal (square 2-D arrays).
    DiagDom,
    Const(f64),
    /// Integer arrays: uniform integers in `[lo, hi)` (NumPy's `randint(lo, hi)`), with
    /// repeats: the indices of a gather or scatter.
    RandInt(i64, i64),
    /// Integer arrays: the first elements (in C order) of a random permutation of
    /// `0..n` (NumPy's `permutation(n)`): distinct indices. For an index array, shifted to
    /// the first valid index of the axis it indexes (1 for a Fortran `x(n)`).
    Permutation(i64),
}

pub const DEFAULT_DIST: Dist = Dist::Uniform(-1.0, 1.0);

/// Parses `NAME=uniform(lo,hi)` and friends. The integer arguments of `randint(lo,hi)` and
/// `permutation(n)` are integers or names of integer parameters, whose values `size` gives
/// (from `--sizes`).
pub fn parse_init(spec: &str, size: &dyn Fn(&str) -> Option<i64>) -> CliResult<(String, Dist)> {
    let bad = || {
        CliError::Usage(format!(
            "bad --init `{spec}`: expected NAME=uniform(lo,hi), NAME=normal, NAME=spd, NAME=diagdom, NAME=const(c), \
             NAME=randint(lo,hi) or NAME=permutation(n) (integer arguments: numbers or names given in --sizes)"
        ))
    };
    let ints = |s: &str| -> CliResult<Vec<i64>> {
        let inner = s.strip_suffix(')').ok_or_else(bad)?;
        inner
            .split(',')
            .map(|x| {
                let x = x.trim();
                x.parse::<i64>().ok().or_else(|| size(x)).ok_or_else(bad)
            })
            .collect()
    };
    let (name, dist) = spec.split_once('=').ok_or_else(bad)?;
    let name = adjc::component_param(name.trim());
    let name = name.as_str();
    let dist = dist.trim().replace(' ', "");
    let args = |s: &str| -> CliResult<Vec<f64>> {
        let inner = s.strip_suffix(')').ok_or_else(bad)?;
        inner.split(',').map(|x| x.parse::<f64>().map_err(|_| bad())).collect()
    };
    let d = if let Some(rest) = dist.strip_prefix("uniform(") {
        match args(rest)?.as_slice() {
            [lo, hi] if lo <= hi => Dist::Uniform(*lo, *hi),
            _ => return Err(bad()),
        }
    } else if let Some(rest) = dist.strip_prefix("randint(") {
        match ints(rest)?.as_slice() {
            [lo, hi] if lo < hi => Dist::RandInt(*lo, *hi),
            _ => return Err(bad()),
        }
    } else if let Some(rest) = dist.strip_prefix("permutation(") {
        match ints(rest)?.as_slice() {
            [n] if *n >= 0 => Dist::Permutation(*n),
            _ => return Err(bad()),
        }
    } else if let Some(rest) = dist.strip_prefix("const(") {
        match args(rest)?.as_slice() {
            [c] => Dist::Const(*c),
            _ => return Err(bad()),
        }
    } else {
        match dist.as_str() {
            "normal" => Dist::Normal,
            "spd" => Dist::Spd,
            "diagdom" => Dist::DiagDom,
            _ => return Err(bad()),
        }
    };
    Ok((name.trim().to_string(), d))
}

/// Fills `shape` (C order) from `dist`.
pub fn fill(dist: &Dist, shape: &[usize], rng: &mut Rng, name: &str) -> CliResult<Vec<f64>> {
    let count: usize = shape.iter().product();
    let square = |what: &str| -> CliResult<usize> {
        match shape {
            [n, m] if n == m => Ok(*n),
            _ => Err(CliError::Usage(format!(
                "--init {name}={what} needs a square 2-D array, `{name}` has shape {shape:?}"
            ))),
        }
    };
    Ok(match dist {
        Dist::Uniform(lo, hi) => (0..count).map(|_| rng.uniform(*lo, *hi)).collect(),
        Dist::Normal => (0..count).map(|_| rng.normal()).collect(),
        Dist::Const(c) => vec![*c; count],
        Dist::RandInt(lo, hi) => {
            let span = hi.saturating_sub(*lo) as u64;
            (0..count).map(|_| (lo + (rng.next_u64() % span) as i64) as f64).collect()
        }
        Dist::Permutation(n) => {
            if count as i64 > *n {
                return Err(CliError::Usage(format!(
                    "--init {name}=permutation({n}): `{name}` has {count} elements, more than {n} distinct indices"
                )));
            }
            // Fisher–Yates on 0..n, of which the first `count` are taken.
            let mut p: Vec<i64> = (0..*n).collect();
            for k in (1..p.len()).rev() {
                let j = (rng.next_u64() % (k as u64 + 1)) as usize;
                p.swap(k, j);
            }
            p.into_iter().take(count).map(|v| v as f64).collect()
        }
        Dist::DiagDom => {
            let n = square("diagdom")?;
            let mut a: Vec<f64> = (0..count).map(|_| rng.uniform(-1.0, 1.0)).collect();
            for i in 0..n {
                a[i * n + i] += n as f64;
            }
            a
        }
        Dist::Spd => {
            let n = square("spd")?;
            let b: Vec<f64> = (0..count).map(|_| rng.uniform(-1.0, 1.0)).collect();
            let mut a = vec![0.0; count];
            for i in 0..n {
                for j in 0..n {
                    a[i * n + j] = (0..n).map(|k| b[i * n + k] * b[j * n + k]).sum::<f64>();
                }
                a[i * n + i] += n as f64;
            }
            a
        }
    })
}

/// An array read from a file: name, shape, values as float64 in C order.
pub type NamedArray = (String, Vec<usize>, Vec<f64>);

/// Reads the arrays of an `.npz` archive as float64, in C order, with their shapes.
pub fn read_npz(path: &Path) -> CliResult<Vec<NamedArray>> {
    let io = |e: std::io::Error| CliError::Io(format!("cannot read {}: {e}", path.display()));
    let mut archive = npyz::npz::NpzArchive::open(path).map_err(io)?;
    let names: Vec<String> = archive.array_names().map(|s| s.to_string()).collect();
    let mut out = Vec::new();
    for name in names {
        let Some(npy) = archive.by_name(&name).map_err(io)? else { continue };
        let shape: Vec<usize> = npy.shape().iter().map(|&d| d as usize).collect();
        if npy.order() != npyz::Order::C {
            return Err(CliError::Usage(format!(
                "{}: array `{name}` is Fortran-ordered; save it in C order",
                path.display()
            )));
        }
        // `descr()` is the Python literal (`'<f8'`, quotes included): take the plain type string.
        let descr = match npy.dtype() {
            npyz::DType::Plain(ty) => ty.to_string(),
            other => other.descr(),
        };
        let values: Vec<f64> = match descr.trim_start_matches(['<', '>', '|', '=']) {
            "f8" => npy.into_vec::<f64>().map_err(io)?,
            "f4" => npy.into_vec::<f32>().map_err(io)?.into_iter().map(f64::from).collect(),
            "i8" => npy.into_vec::<i64>().map_err(io)?.into_iter().map(|v| v as f64).collect(),
            "i4" => npy.into_vec::<i32>().map_err(io)?.into_iter().map(f64::from).collect(),
            other => {
                return Err(CliError::Usage(format!(
                    "{}: array `{name}` has dtype `{other}`; use float64, float32, int64 or int32",
                    path.display()
                )))
            }
        };
        out.push((name, shape, values));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_distributions() {
        let none = |_: &str| None;
        assert_eq!(parse_init("A=uniform(0.5, 2)", &none).unwrap(), ("A".into(), Dist::Uniform(0.5, 2.0)));
        assert_eq!(parse_init("L=spd", &none).unwrap().1, Dist::Spd);
        assert_eq!(parse_init("x=const(3)", &none).unwrap().1, Dist::Const(3.0));
        assert!(parse_init("x=uniform(2,1)", &none).is_err());
        assert!(parse_init("x=gamma", &none).is_err());
        let n = |s: &str| (s == "N").then_some(7);
        assert_eq!(parse_init("idx=randint(0, N)", &n).unwrap().1, Dist::RandInt(0, 7));
        assert_eq!(parse_init("idx=permutation(N)", &n).unwrap().1, Dist::Permutation(7));
        assert!(parse_init("idx=randint(3,3)", &n).is_err());
        assert!(parse_init("idx=randint(0,M)", &n).is_err());
    }

    #[test]
    fn integer_distributions_stay_in_range() {
        let mut rng = Rng::new(3);
        let r = fill(&Dist::RandInt(-2, 5), &[40], &mut rng, "idx").unwrap();
        assert!(r.iter().all(|v| (-2.0..5.0).contains(v) && v.fract() == 0.0));
        let mut p = fill(&Dist::Permutation(9), &[9], &mut rng, "idx").unwrap();
        p.sort_by(|a, b| a.total_cmp(b));
        assert_eq!(p, (0..9).map(|v| v as f64).collect::<Vec<_>>());
        assert!(fill(&Dist::Permutation(3), &[4], &mut rng, "idx").is_err());
    }

    #[test]
    fn spd_is_symmetric_with_dominant_diagonal() {
        let mut rng = Rng::new(7);
        let a = fill(&Dist::Spd, &[4, 4], &mut rng, "A").unwrap();
        for i in 0..4 {
            for j in 0..4 {
                assert!((a[i * 4 + j] - a[j * 4 + i]).abs() < 1e-15);
            }
            assert!(a[i * 4 + i] > 4.0 - 1e-12);
        }
        assert!(fill(&Dist::Spd, &[3, 4], &mut rng, "A").is_err());
    }

    fn put<T: npyz::Serialize + npyz::AutoSerialize + Copy, W: std::io::Write + std::io::Seek>(
        npz: &mut npyz::npz::NpzWriter<W>,
        name: &str,
        shape: &[u64],
        values: &[T],
    ) {
        use npyz::WriterBuilder;
        let mut w = npz.array::<T>(name, Default::default()).unwrap().default_dtype().shape(shape).begin_nd().unwrap();
        w.extend(values.iter().copied()).unwrap();
        w.finish().unwrap();
    }

    #[test]
    fn reads_npz_arrays_of_every_supported_dtype() {
        let path = std::env::temp_dir().join(format!("adjc-data-{}.npz", std::process::id()));
        let write = |unsupported: bool| {
            let mut npz = npyz::npz::NpzWriter::create(&path).unwrap();
            put(&mut npz, "a", &[2], &[0.5f32, -2.0]);
            put(&mut npz, "b", &[1, 2], &[3i64, -4]);
            put(&mut npz, "c", &[], &[7i32]);
            if unsupported {
                put(&mut npz, "d", &[1], &[1u8]);
            }
        };
        write(true);
        let err = read_npz(&path).err().map(|e| e.render()).unwrap_or_default();
        assert!(err.contains("array `d` has dtype `u1`"), "{err}");
        write(false);
        let mut arrays = read_npz(&path).unwrap();
        arrays.sort_by(|x, y| x.0.cmp(&y.0));
        let _ = std::fs::remove_file(&path);
        assert_eq!(
            arrays,
            vec![
                ("a".to_string(), vec![2], vec![0.5, -2.0]),
                ("b".to_string(), vec![1, 2], vec![3.0, -4.0]),
                ("c".to_string(), vec![], vec![7.0]),
            ]
        );
    }

    #[test]
    fn generator_is_reproducible() {
        let a: Vec<f64> = (0..3).map(|_| Rng::new(5).uniform(0.0, 1.0)).collect();
        assert_eq!(a[0], a[1]);
        let mut r = Rng::new(5);
        let x = r.unit();
        assert!((0.0..1.0).contains(&x));
        assert_ne!(x, r.unit());
    }
}
