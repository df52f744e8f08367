//! Command-line definitions: the flags of every subcommand and their value parsers (clap).
//! Self-contained (clap and std only): `fuzz/` compiles this file by path.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Parser, Debug)]
#[command(
    name = "adjc",
    version,
    about = "Reverse-mode automatic differentiation of NumPy kernels to readable C/OpenMP"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Write the forward function and its adjoint as C (`<stem>.c`, `<stem>.h`).
    Transpile(TranspileCommand),
    /// Transpile, compile a check driver and compare the adjoint with finite differences.
    Check(CheckArgs),
    /// Transpile, compile a timing driver with -O3 and time the forward function and the
    /// adjoint; report the adjoint's tape and work-array memory.
    Bench(BenchArgs),
    /// Print the memory plan of the adjoint: every candidate (forwarded array, tape, time
    /// loop) with its bytes, decision and recompute cost, the predicted peak and the solver.
    Plan(PlanArgs),
    /// Write the runtime headers (`adjc_runtime.h`, `adjc_blas.h`) and `adjc.pc` into a
    /// directory.
    Runtime(RuntimeArgs),
    /// Print the flags that compile (`--cflags`) or link (`--libs`) generated C.
    Config(ConfigArgs),
    /// Print `adjc.mk`, a GNU make fragment with rules from `.py`/`.f90` sources to C.
    Makefile,
    /// Transpile and compile the C into a shared library `lib<stem>_adjc.so`; with
    /// `--python`, also write `<stem>_adjc.py`, a NumPy module that calls it.
    Build(BuildArgs),
    /// Write a self-contained HTML review page: the source, the forward C and the adjoint C
    /// side by side with each C line linked to its source line, what the adjoint stores, the
    /// memory over the two sweeps and (with `--check`) the check's evidence. `-o PAGE.html`,
    /// or `-o DIR` for `DIR/<stem>.review.html`.
    Review(ReviewArgs),
    /// List the generated files of DIR whose inputs (source, modules, includes) changed
    /// since they were generated (the hashes in their header); exit 1 when there is one.
    CheckStale(CheckStaleArgs),
}

#[derive(Args, Debug, Clone)]
pub struct CheckStaleArgs {
    /// The directory of generated files.
    pub dir: PathBuf,
}

#[derive(Args, Debug, Clone)]
pub struct ReviewArgs {
    #[command(flatten)]
    pub transpile: TranspileArgs,
    /// Also run `adjc check` with these flags (needs `--sizes`) and put its output on the page.
    #[arg(long)]
    pub check: bool,
    /// Compare with the reviewed C in this directory (`<stem>.c`): mark the source lines
    /// whose generated C (forward or adjoint) changed, so a re-review covers only them.
    #[arg(long, value_name = "OLD_DIR")]
    pub diff: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct BuildArgs {
    #[command(flatten)]
    pub transpile: TranspileArgs,
    /// Also write `<stem>_adjc.py` (ctypes and NumPy only): the functions with array
    /// checks, `value_and_grad` and `grad`.
    #[arg(long)]
    pub python: bool,
    /// Which BLAS the matrix products call.
    #[arg(long, value_enum, default_value_t = BlasArg::None)]
    pub blas: BlasArg,
    /// Build without OpenMP (default: with `-fopenmp`).
    #[arg(long)]
    pub no_openmp: bool,
    /// Optimisation flags of the C compiler (the library is built for this machine).
    #[arg(long, value_name = "FLAGS", default_value = "-O3 -march=native", allow_hyphen_values = true)]
    pub opt: String,
}

#[derive(Args, Debug, Clone)]
pub struct TranspileCommand {
    #[command(flatten)]
    pub transpile: TranspileArgs,
    /// Also write a make dependency file: the files written depend on every file read
    /// (sources, modules found for `use`, `include` and `#include` files).
    #[arg(long, value_name = "FILE")]
    pub depfile: Option<PathBuf>,
    /// `-MD`: write the dependency file `<out-dir>/<stem>.d` (or the `-MF` file).
    #[arg(long = "MD")]
    pub md: bool,
    /// `-MF FILE`: the dependency file's name (same as --depfile).
    #[arg(long = "MF", value_name = "FILE", conflicts_with = "depfile")]
    pub mf: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct RuntimeArgs {
    /// The directory to write into (created if needed).
    #[arg(short = 'o', long = "out-dir", default_value = ".")]
    pub out_dir: PathBuf,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum BlasArg {
    /// adjc's own loops (no library).
    None,
    /// A CBLAS: OpenBLAS (`-lopenblas`).
    Cblas,
    /// Intel MKL (`mkl_rt`; `$MKLROOT` gives its directories).
    Mkl,
}

#[derive(Args, Debug, Clone)]
#[command(group(clap::ArgGroup::new("what").required(true).multiple(true).args(["cflags", "libs", "notes"])))]
pub struct ConfigArgs {
    /// The compile flags.
    #[arg(long)]
    pub cflags: bool,
    /// The link flags.
    #[arg(long)]
    pub libs: bool,
    /// Describe how the build runs BLAS and OpenMP threads: what to link, which environment
    /// variables and calls set BLAS's threads, what to do inside your own parallel regions.
    #[arg(long)]
    pub notes: bool,
    /// Which BLAS the matrix products call.
    #[arg(long, value_enum, default_value_t = BlasArg::None)]
    pub blas: BlasArg,
    /// Build with OpenMP.
    #[arg(long)]
    pub openmp: bool,
    /// Where the runtime headers are (the transpile output directory, or `adjc runtime -o`'s):
    /// adds `-IDIR`.
    #[arg(long, value_name = "DIR")]
    pub runtime_dir: Option<PathBuf>,
}

/// The command line with gcc's spellings `-MD` and `-MF FILE` (`-MFFILE`) turned into the
/// long flags clap knows (`--MD`, `--MF`); arguments after `--` are left alone.
pub fn normalize_args(args: impl IntoIterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut out = Vec::new();
    let mut rest = false;
    for a in args {
        if !rest {
            match a.to_str() {
                Some("--") => rest = true,
                Some("-MD") => {
                    out.push("--MD".into());
                    continue;
                }
                Some("-MF") => {
                    out.push("--MF".into());
                    continue;
                }
                Some(s) if s.starts_with("-MF") => {
                    out.push(format!("--MF={}", &s[3..]).into());
                    continue;
                }
                _ => {}
            }
        }
        out.push(a);
    }
    out
}

/// How a memory plan decides between storing and recomputing.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum StrategyArg {
    /// Store every forwarded value (the default without --memory-limit).
    StoreAll,
    /// Recompute every forwarded array that can be recomputed.
    RecomputeAll,
    /// The ILP: least recomputation that keeps the peak under --memory-limit (the default
    /// with a limit).
    Ilp,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Text,
    Json,
}

#[derive(Args, Debug, Clone)]
pub struct PlanArgs {
    #[command(flatten)]
    pub transpile: TranspileArgs,
    /// Format of the plan report.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub report_format: ReportFormat,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum EmitKind {
    /// C source and header (default).
    C,
    /// The IR of the forward function and of its adjoint, as text on standard output.
    Ir,
}

#[derive(Args, Debug, Clone)]
pub struct TranspileArgs {
    /// The source file (`.py`, `.f90`, `.F90`, `.f`, ...).
    pub file: PathBuf,
    /// More Fortran files (modules the first one uses).
    #[arg(value_name = "MORE")]
    pub more: Vec<PathBuf>,
    /// Fortran: a preprocessor macro, `NAME` or `NAME=VALUE` (repeatable).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub defines: Vec<String>,
    /// Fortran: a directory searched for `#include` and `include` files and for modules (repeatable).
    #[arg(short = 'I', value_name = "DIR")]
    pub include_dirs: Vec<PathBuf>,
    /// The entry function (default: the only function, else the last one).
    #[arg(long)]
    pub function: Option<String>,
    /// Inputs to differentiate with respect to, comma-separated (default: every float input).
    #[arg(long, value_delimiter = ',')]
    pub wrt: Option<Vec<String>>,
    /// Outputs whose weighted sum is the loss, comma-separated (default: every output).
    #[arg(long, value_delimiter = ',')]
    pub of: Option<Vec<String>>,
    /// A parameter type, e.g. 'A: float64[N, M]' (repeatable; overrides annotations).
    #[arg(long = "arg", value_name = "SPEC")]
    pub args: Vec<String>,
    /// Output directory.
    #[arg(short = 'o', long = "out-dir", default_value = ".")]
    pub out_dir: PathBuf,
    /// Base name of the written files (default: the source file's stem): letters, digits,
    /// `_` and `-`, not starting with `-`; names the check/bench harness uses for its own
    /// files (`adjc_*`, `check_driver`, ...) are refused.
    #[arg(long)]
    pub name: Option<String>,
    /// What to produce.
    #[arg(long, value_enum, default_value_t = EmitKind::C)]
    pub emit: EmitKind,
    /// Also print the tape report: what the adjoint saves, why, and how much memory each
    /// tape takes as a formula of the sizes.
    #[arg(long)]
    pub report: bool,
    /// Checkpoint a time loop instead of taping all its iterations (repeatable):
    /// `LOOP=every:K` snapshots its state every K iterations, `LOOP=binomial:C` follows
    /// Revolve's schedule with at most C snapshots. LOOP is the source line of the `for`
    /// (e.g. `8`) or a loop id `L<k>` (the k-th loop, pre-order, as `--report` lists them).
    #[arg(long = "checkpoint", value_name = "LOOP=every:K|binomial:C")]
    pub checkpoints: Vec<String>,
    /// A bound on the trips of one run of a `while` loop (repeatable): LOOP is its source
    /// line or loop id `L<k>`. Sizes its per-trip stacks in the report and lets
    /// --memory-limit plan; a run past the bound stays correct (the stacks grow).
    #[arg(long = "max-trips", value_name = "LOOP=K")]
    pub max_trips: Vec<String>,
    /// Reverse a convergence loop `while err > tol: x = g(x, p)` as a fixed point
    /// (repeatable): the adjoint iterates w = x_b + (dg/dx)^T w at the converged state
    /// instead of taping every trip. LOOP is its source line or loop id `L<k>`; `tol` is the
    /// relative tolerance of that iteration (default 1e-12), `max` its most passes (default
    /// 10000). Valid when the loop converged and g is a contraction (README)
    #[arg(long = "fixed-point", value_name = "LOOP[:tol=T][:max=K]")]
    pub fixed_points: Vec<String>,
    /// Also write `<stem>_adjc.f90`, a Fortran module with `bind(C)` interfaces to the
    /// forward function and its adjoint.
    #[arg(long)]
    pub fortran_interface: bool,
    /// Values of the size and integer parameters, e.g. N=40,TSTEPS=4: the run of `check`
    /// and `bench`, and the sizes a memory plan is made for.
    #[arg(long, value_delimiter = ',', value_name = "NAME=VALUE", value_parser = size_entry)]
    pub sizes: Vec<String>,
    /// Most memory the adjoint may hold at once (bytes, or with a unit: 512KiB, 64MiB,
    /// 2GB); plans the adjoint for --sizes.
    #[arg(long, value_name = "BYTES", value_parser = memory_limit)]
    pub memory_limit: Option<u64>,
    /// How to plan memory (default: ilp with --memory-limit, else store-all).
    #[arg(long, value_enum)]
    pub strategy: Option<StrategyArg>,
    /// Experimental: run element-wise forward maps inside the reverse map over the same
    /// elements (one pass; `autodiff/src/fuse.rs`). Off by default: no gain measured yet.
    #[arg(long)]
    pub fuse_sweeps: bool,
    /// Fortran: keep the source's spelling of names in the C (`RELAX_b`) instead of lower
    /// case (`relax_b`, as gfortran names symbols).
    #[arg(long)]
    pub keep_case: bool,
    /// Put PREFIX before the C symbols (`--prefix ad_`: `ad_heat`, `ad_heat_b`); the
    /// Fortran wrappers of --fortran-interface keep the source's names (`heat_b`).
    #[arg(long, value_name = "PREFIX")]
    pub prefix: Option<String>,
    /// Write `#line N "file.py"` before each block of generated statements: compiler
    /// diagnostics and debuggers (gdb's `list`, `break file.py:N`) then point at the source.
    #[arg(long)]
    pub line_directives: bool,
}

/// The values a generated driver runs the kernel on (`check` and `bench`).
#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    /// How to initialise an input: NAME=uniform(lo,hi) | normal | spd | diagdom | const(c),
    /// integer arrays NAME=randint(lo,hi) | permutation(n) (arguments: integers or --sizes
    /// names) (repeatable; default uniform(-1,1), for an index array randint over the axis it
    /// indexes).
    #[arg(long = "init", value_name = "NAME=DIST")]
    pub inits: Vec<String>,
    /// Take input values from a NumPy .npz file (arrays named after the parameters).
    #[arg(long)]
    pub inputs: Option<PathBuf>,
    /// Seed of the random inputs, directions and weights.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(Args, Debug, Clone)]
pub struct CheckArgs {
    #[command(flatten)]
    pub transpile: TranspileArgs,
    #[command(flatten)]
    pub values: InputArgs,
    /// Tolerance of the dot-product test, relative to the larger of |FD|, |adjoint| and
    /// sum |v_k (J^T w)_k| (default 1e-6 for float64, 1e-2 for float32).
    #[arg(long, value_parser = tolerance)]
    pub tol: Option<f64>,
    /// One finite-difference step instead of the default sweep (float64: 1e-2 to 1e-8,
    /// float32: 1e-1 to 1e-4, each with Richardson extrapolation).
    #[arg(long, value_parser = fd_step)]
    pub step: Option<f64>,
    /// Compile the driver with -fopenmp.
    #[arg(long)]
    pub openmp: bool,
    /// Fortran: routines without arguments that fill the COMMON blocks and module variables
    /// of the kernel (NAS `set_constants`, `initialize`), run first (with gfortran): the
    /// state they leave is the check's input for those parameters (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "ROUTINE,...")]
    pub setup: Vec<String>,
    /// Keep the build directory here instead of a temporary one.
    #[arg(long)]
    pub keep: Option<PathBuf>,
    /// Do not compare the forward function with the Python original.
    #[arg(long)]
    pub no_python: bool,
    /// Build the check driver with AddressSanitizer and UndefinedBehaviorSanitizer (and the
    /// gfortran reference with -fcheck=all); any finding fails the check.
    #[arg(long)]
    pub sanitize: bool,
}

fn number(s: &str) -> Result<f64, String> {
    s.trim().parse::<f64>().map_err(|_| format!("`{s}` is not a number"))
}

/// `--step`: a positive finite number.
fn fd_step(s: &str) -> Result<f64, String> {
    match number(s)? {
        v if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("the step must be a positive finite number such as 1e-6, not `{s}`")),
    }
}

/// `--tol`: a finite number, zero or more (0 demands exact agreement).
fn tolerance(s: &str) -> Result<f64, String> {
    match number(s)? {
        v if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("the tolerance must be a finite number, zero or more, such as 1e-6, not `{s}`")),
    }
}

/// One `--sizes` entry: `NAME=INTEGER` (an empty entry, as in `N=4,`, is ignored).
fn size_entry(s: &str) -> Result<String, String> {
    if s.trim().is_empty() {
        return Ok(String::new());
    }
    let (k, v) = s.split_once('=').ok_or_else(|| format!("`{s}` is not NAME=INTEGER"))?;
    let k = k.trim();
    if k.is_empty() || !k.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '%') {
        return Err(format!("`{s}`: `{k}` is not a parameter name"));
    }
    v.trim().parse::<i64>().map_err(|_| format!("`{s}`: `{}` is not an integer between -2^63 and 2^63-1", v.trim()))?;
    Ok(format!("{}={}", adjc::component_param(k), v.trim()))
}

/// `--memory-limit`: parsed here so a bad value is a flag error.
fn memory_limit(s: &str) -> Result<u64, String> {
    match parse_bytes(s)? {
        // `as u64` saturates: 2^64 bytes and more land on u64::MAX.
        u64::MAX => Err(format!("`{s}` is more than the largest limit, 2^64 - 1 bytes (16 EiB)")),
        bytes => Ok(bytes),
    }
}

#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    #[command(flatten)]
    pub transpile: TranspileArgs,
    #[command(flatten)]
    pub values: InputArgs,
    /// Timed calls of the forward function and of the adjoint, each.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Compile with -fopenmp.
    #[arg(long)]
    pub openmp: bool,
    /// OpenMP threads (OMP_NUM_THREADS of the run; needs --openmp).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,
    /// Keep the build directory here instead of a temporary one.
    #[arg(long)]
    pub keep: Option<PathBuf>,
    /// Also write an .npz archive of the run's values: every input (`NAME`), the weights of
    /// the loss (`weight.NAME`), the outputs of one forward call (`forward.NAME`) and the
    /// adjoints one adjoint call computed (`adjoint.NAME`), for comparisons with other tools.
    #[arg(long, value_name = "FILE.npz")]
    pub dump: Option<PathBuf>,
}

/// `512MiB`, `64 KiB`, `2GB`, `1000`: bytes (binary units with `i`, decimal without).
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = (t[..split].trim(), t[split..].trim());
    let scale: f64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kb" | "k" => 1e3,
        "mb" | "m" => 1e6,
        "gb" | "g" => 1e9,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(format!("--memory-limit {text}: unknown unit `{unit}` (use B, KB, MB, GB, KiB, MiB or GiB)")),
    };
    match num.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok((v * scale).round() as u64),
        _ => Err(format!("--memory-limit {text}: expected a number of bytes such as 512MiB")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gcc_dependency_spellings_are_long_flags() {
        let args = ["adjc", "transpile", "k.py", "-MD", "-MFout/k.d", "-D", "X", "--", "-MD"];
        let got = normalize_args(args.iter().map(std::ffi::OsString::from));
        let want = ["adjc", "transpile", "k.py", "--MD", "--MF=out/k.d", "-D", "X", "--", "-MD"];
        assert_eq!(got, want.iter().map(std::ffi::OsString::from).collect::<Vec<_>>());
    }

    #[test]
    fn parses_limits_with_units() {
        assert_eq!(parse_bytes("512MiB").unwrap(), 512 << 20);
        assert_eq!(parse_bytes("2GB").unwrap(), 2_000_000_000);
        assert_eq!(parse_bytes("1.5 KiB").unwrap(), 1536);
        assert_eq!(parse_bytes("4096").unwrap(), 4096);
        assert!(parse_bytes("12 parsecs").is_err());
        assert!(parse_bytes("MiB").is_err());
    }
}
