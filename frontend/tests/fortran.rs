//! The Fortran frontend: lowered IR, values computed by the reference interpreter
//! (column-major, declared lower bounds), and intent/signature rules.

#[path = "fortran_common/mod.rs"]
mod fortran_common;
use adjc_frontend::{lower_fortran, FortranOptions};
use adjc_ir::{Intent, Scalar, Type, VarRole};
use fortran_common::*;

fn ints(n: usize, f: impl Fn(usize) -> f64) -> Vec<f64> {
    (0..n).map(f).collect()
}

#[test]
fn loops_lower_bounds_and_column_major_in_the_ir() {
    let src = "\
subroutine k(n, a, b)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: a(0:n+1, n)
  real(8), intent(out) :: b(n)
  integer :: i
  do i = n, 1, -1
    b(i) = a(i - 1, i) + a(i + 1, 1)
  end do
end subroutine k
";
    assert_eq!(
        ir(src),
        "\
# module test.f90

fn k(n: i64 in, a: f64[n + 2, 1:n] colmajor in, b: f64[1:n] colmajor out)
  var i: i64 (index)
{
  L0: loop i in range(n, 0, -1) {  # 7
    b[i] = a[i - 1, i] + a[i + 1, 1]  # 8
  }
}
"
    );
}

#[test]
fn declarations_of_every_spelling() {
    let src = "\
module m
  integer, parameter :: dp = kind(1.0d0)
contains
subroutine k(n, a, b, c, d, e, f, s, flag)
  integer n
  real(8) :: a(n)
  real(kind=8) :: b(n)
  real*8 c(n)
  double precision d(n)
  real(kind=dp), dimension(n) :: e
  real :: f(n)
  real(4) :: s
  logical :: flag
  a(1) = b(1) + c(1) + d(1) + e(1) + f(1) * s
end subroutine
end module
";
    let m = lower(src);
    let f = &m.functions[0];
    let ty = |name: &str| f.vars.iter().find(|v| v.name == name).map(|v| v.ty.elem()).unwrap();
    for name in ["a", "b", "c", "d", "e"] {
        assert_eq!(ty(name), Scalar::F64, "{name}");
    }
    assert_eq!(ty("f"), Scalar::F32);
    assert_eq!(ty("s"), Scalar::F32);
    assert_eq!(ty("flag"), Scalar::Bool);
    assert_eq!(ty("n"), Scalar::I64);
    let intents: Vec<(String, Intent)> = f.params.iter().map(|p| (f.var(p.var).name.clone(), p.intent)).collect();
    assert_eq!(intents[0], ("n".to_string(), Intent::In));
    assert_eq!(intents[1], ("a".to_string(), Intent::InOut));
    assert_eq!(intents[2], ("b".to_string(), Intent::In));
    assert!(f.notes.iter().any(|n| n == "inferred intent(inout) for a (assigned in the body)"), "{:?}", f.notes);
}

#[test]
fn case_insensitive_names_keep_their_spelling() {
    let src = "SUBROUTINE Scale(N, X)\n  IMPLICIT NONE\n  INTEGER N\n  REAL(8) X(N)\n  INTEGER I\n  DO I = 1, N\n    x(i) = 2 * X(I)\n  END DO\nEND SUBROUTINE\n";
    let m = lower_with(src, &FortranOptions { keep_case: true, ..Default::default() });
    let f = &m.functions[0];
    assert_eq!(f.name, "Scale");
    let out = run(f, &[("N", Data::i(3)), ("X", Data::arr(&[3], vec![1.0, 2.0, 3.0]))]);
    assert_close(&out["X"].floats(), &[2.0, 4.0, 6.0]);
    // By default the names are lower case, as gfortran names symbols.
    let f = &lower(src).functions[0];
    assert_eq!(f.name, "scale");
    let names: Vec<&str> = f.vars.iter().map(|v| v.name.as_str()).collect();
    assert!(names.contains(&"n") && names.contains(&"x") && !names.contains(&"X"), "{names:?}");
}

#[test]
fn column_major_with_lower_bounds_runs() {
    // a(0:2, 3): element (i, j) at offset i + 3*(j-1).
    let src = "\
subroutine k(a, s)
  real(8) :: a(0:2, 3), s(3)
  integer :: j
  do j = 1, 3
    s(j) = a(0, j) + 10 * a(2, j)
  end do
end subroutine
";
    let f = &lower(src).functions[0];
    let a = ints(9, |k| k as f64);
    let out = run(f, &[("a", Data::arr(&[3, 3], a)), ("s", Data::arr(&[3], vec![0.0; 3]))]);
    assert_close(&out["s"].floats(), &[20.0, 53.0, 86.0]);
}

#[test]
fn overlapping_sections_read_the_old_values() {
    let src = "\
subroutine k(n, x, y)
  integer :: n
  real(8) :: x(n), y(n)
  x(2:n) = x(1:n-1) * 2
  y(n:1:-1) = y
end subroutine
";
    let m = lower(src);
    let text = adjc_ir::print::print_module(&m);
    assert!(text.contains("x_tmp"), "{text}");
    let f = &m.functions[0];
    let out = run(
        f,
        &[
            ("n", Data::i(4)),
            ("x", Data::arr(&[4], vec![1.0, 2.0, 3.0, 4.0])),
            ("y", Data::arr(&[4], vec![5.0, 6.0, 7.0, 8.0])),
        ],
    );
    assert_close(&out["x"].floats(), &[1.0, 2.0, 4.0, 6.0]);
    assert_close(&out["y"].floats(), &[8.0, 7.0, 6.0, 5.0]);
}

#[test]
fn same_element_section_updates_need_no_temporary() {
    let src =
        "subroutine k(n, x, y)\n  integer n\n  real(8) x(n), y(n)\n  x(2:n-1) = x(2:n-1) + y(1:n-2)\nend subroutine\n";
    let text = ir(src);
    assert!(!text.contains("tmp"), "{text}");
    assert!(text.contains("map i in [2, n) {"), "{text}");
    assert!(text.contains("x[i] = x[i] + y[i - 1]"), "{text}");
}

#[test]
fn loops_with_steps_and_if_chains() {
    let src = "\
subroutine k(n, x)
  integer :: n
  real(8) :: x(n)
  integer :: i
  do i = 1, n, 3
    if (x(i) > 1.0d0) then
      x(i) = 1
    else if (x(i) < -1.0d0 .or. i == 4) then
      x(i) = -1
    else
      x(i) = 0
    end if
  end do
  do i = n, 2, -2
    if (i /= n) x(i) = x(i) + 100
  end do
end subroutine
";
    let f = &lower(src).functions[0];
    let out = run(f, &[("n", Data::i(8)), ("x", Data::arr(&[8], vec![2.0, 9.0, 9.0, 0.5, 9.0, 9.0, -3.0, 9.0]))]);
    assert_close(&out["x"].floats(), &[1.0, 109.0, 9.0, 99.0, 9.0, 109.0, -1.0, 9.0]);
}

#[test]
fn intrinsics_compute_fortran_values() {
    let src = "\
subroutine k(x, r, m)
  real(8) :: x, r(6)
  integer :: m
  r(1) = max(x, 2.0d0, -x)
  r(2) = min(x, 0.5d0)
  r(3) = sign(2.0d0, -x)
  r(4) = mod(-7, 3) + mod(m, 4)
  r(5) = sqrt(abs(x)) + exp(0.0d0) + tanh(0.0d0)
  r(6) = dble(m / 2) + x ** 2
end subroutine
";
    let f = &lower(src).functions[0];
    let out = run(f, &[("x", Data::f(-3.0)), ("r", Data::arr(&[6], vec![0.0; 6])), ("m", Data::i(7))]);
    assert_close(&out["r"].floats(), &[3.0, -3.0, 2.0, -1.0 + 3.0, 3f64.sqrt() + 1.0, 3.0 + 9.0]);
}

#[test]
fn reductions_and_matmul() {
    let src = "\
subroutine k(n, a, b, c, v, s)
  integer :: n
  real(8) :: a(n, n), b(n, n), c(n, n), v(n), s(3)
  s(1) = sum(a)
  s(2) = dot_product(a(:, 1), v)
  s(3) = maxval(v) + minval(a(2, :))
  c = matmul(a, b)
  v = matmul(transpose(a), v)
end subroutine
";
    let f = &lower(src).functions[0];
    // a = [[1, 3], [2, 4]] column-major: a(1,1)=1, a(2,1)=2, a(1,2)=3, a(2,2)=4.
    let out = run(
        f,
        &[
            ("n", Data::i(2)),
            ("a", Data::arr(&[2, 2], vec![1.0, 2.0, 3.0, 4.0])),
            ("b", Data::arr(&[2, 2], vec![1.0, 0.0, 1.0, 1.0])),
            ("c", Data::arr(&[2, 2], vec![0.0; 4])),
            ("v", Data::arr(&[2], vec![1.0, -1.0])),
            ("s", Data::arr(&[3], vec![0.0; 3])),
        ],
    );
    assert_close(&out["s"].floats(), &[10.0, -1.0, 1.0 + 2.0]);
    // c = a*b: columns (1,2) and (4,6).
    assert_close(&out["c"].floats(), &[1.0, 2.0, 4.0, 6.0]);
    // a^T v = (1-2, 3-4).
    assert_close(&out["v"].floats(), &[-1.0, -1.0]);
}

#[test]
fn functions_return_through_ret() {
    let src = "\
real(8) function norm2sq(n, x) result(r)
  integer, intent(in) :: n
  real(8), intent(in) :: x(n)
  integer :: i
  r = 0
  do i = 1, n
    r = r + x(i) ** 2
  end do
end function
";
    let f = &lower(src).functions[0];
    let last = f.params.last().unwrap();
    assert_eq!(f.var(last.var).name, "ret");
    assert_eq!(f.var(last.var).role, VarRole::Return);
    assert_eq!(last.intent, Intent::Out);
    let out = run(f, &[("n", Data::i(3)), ("x", Data::arr(&[3], vec![1.0, 2.0, 3.0]))]);
    assert_close(&out["ret"].floats(), &[14.0]);
}

#[test]
fn parameters_and_local_arrays() {
    let src = "\
module consts
  integer, parameter :: nh = 1
  real(8), parameter :: w = 0.25d0
end module
subroutine k(n, x)
  use consts
  implicit none
  integer :: n
  real(8) :: x(n)
  real(8) :: t(1 - nh:n + nh)
  t(0) = 0
  t(n + 1) = 0
  t(1:n) = x
  x = w * t(0:n - 1) + 2 * w * t(1:n) + w * t(2:n + 1)
end subroutine
";
    let m = lower(src);
    let f = &m.functions[0];
    assert!(matches!(&f.vars.iter().find(|v| v.name == "t").unwrap().ty, Type::Array { .. }));
    let out = run(f, &[("n", Data::i(3)), ("x", Data::arr(&[3], vec![4.0, 8.0, 4.0]))]);
    assert_close(&out["x"].floats(), &[4.0, 6.0, 4.0]);
}

#[test]
fn entry_selection() {
    let src = "subroutine a(x)\n  real(8) x\n  x = 1\nend subroutine\nsubroutine b(y)\n  real(8) y\n  y = 2\nend subroutine\n";
    assert_eq!(lower(src).functions[0].name, "b");
    let m = lower_with(src, &FortranOptions { entry: Some("A".into()), ..Default::default() });
    assert_eq!(m.functions[0].name, "a");
    let d = lower_fortran("t.f90", src, &FortranOptions { entry: Some("c".into()), ..Default::default() }).unwrap_err();
    assert!(d.message.contains("procedure `c` not found"), "{}", d.message);
    assert!(d.help.unwrap().contains("`a`, `b`"));
}

#[test]
fn helpers_are_inlined_with_reference_semantics() {
    let src = "\
subroutine bump(m, v, s)
  integer, intent(in) :: m
  real(8), intent(inout) :: v(m), s
  integer :: i
  do i = 1, m
    v(i) = v(i) + s
  end do
  s = s * 2
end subroutine
real(8) function twice(x)
  real(8), intent(in) :: x
  twice = 2 * x
end function
subroutine k(n, x, s)
  integer :: n
  real(8) :: x(n), s
  call bump(n, x, s)
  s = twice(s + 1) + twice(x(1))
end subroutine
";
    let m = lower(src);
    let f = &m.functions[0];
    assert_eq!(f.name, "k");
    let out = run(f, &[("n", Data::i(2)), ("x", Data::arr(&[2], vec![1.0, 2.0])), ("s", Data::f(0.5))]);
    // bump: x = (1.5, 2.5), s = 1; then s = 2*(1+1) + 2*1.5.
    assert_close(&out["x"].floats(), &[1.5, 2.5]);
    assert_close(&out["s"].floats(), &[7.0]);
    let text = adjc_ir::print::print_module(&m);
    assert!(text.contains("v(i) = v(i) + s") || text.contains("x[i] = x[i] + s  # 6"), "{text}");
}

#[test]
fn select_case_and_do_concurrent() {
    let src = "\
subroutine k(n, x, r)
  integer :: n
  real(8) :: x(n), r(n)
  integer :: i
  do concurrent (i = 1:n)
    r(i) = 0
  end do
  do i = 1, n
    select case (i)
    case (1)
      r(i) = x(i)
    case (2:3, 6)
      r(i) = 10 * x(i)
    case default
      r(i) = -x(i)
    case (:-1)
      r(i) = 99
    end select
  end do
end subroutine
";
    let f = &lower(src).functions[0];
    let out = run(f, &[("n", Data::i(6)), ("x", Data::arr(&[6], vec![1.0; 6])), ("r", Data::arr(&[6], vec![5.0; 6]))]);
    assert_close(&out["r"].floats(), &[1.0, 10.0, 10.0, -1.0, -1.0, 10.0]);
}

#[test]
fn where_constructs_assign_under_the_mask() {
    let src = "\
subroutine k(n, a, b, c)
  integer :: n
  real(8) :: a(n), b(n), c(n)
  where (a > 0)
    b = sqrt(a)
  elsewhere
    b = -a
  end where
  where (c < 0) c = 0
  where (b(1:n-1) > 1) c(2:n) = c(1:n-1) + 1
end subroutine
";
    let f = &lower(src).functions[0];
    let out = run(
        f,
        &[
            ("n", Data::i(4)),
            ("a", Data::arr(&[4], vec![4.0, -2.0, 9.0, 0.0])),
            ("b", Data::arr(&[4], vec![0.0; 4])),
            ("c", Data::arr(&[4], vec![-1.0, 5.0, -3.0, 7.0])),
        ],
    );
    assert_close(&out["b"].floats(), &[2.0, 2.0, 3.0, 0.0]);
    // c = (0, 5, 0, 7) after the second `where`; the third reads the old c (0, 5, 0).
    assert_close(&out["c"].floats(), &[0.0, 1.0, 6.0, 1.0]);
}

#[test]
fn assumed_shape_dummies_get_size_parameters() {
    let src = "\
module m
contains
  subroutine scale(v, s)
    real(8), intent(inout) :: v(:)
    real(8), intent(in) :: s
    v = v * s
  end subroutine
  subroutine k(a, b, s)
    real(8), intent(inout) :: a(:, 0:)
    real(8), intent(inout) :: b(:)
    real(8), intent(out) :: s
    s = sum(a) + size(a, 2)
    call scale(b, s)
  end subroutine
end module
";
    let m = lower(src);
    let f = &m.functions[0];
    let params: Vec<(String, VarRole)> =
        f.params.iter().map(|p| (f.var(p.var).name.clone(), f.var(p.var).role.clone())).collect();
    assert_eq!(
        params,
        vec![
            ("a_n0".to_string(), VarRole::Size),
            ("a_n1".to_string(), VarRole::Size),
            ("b_n0".to_string(), VarRole::Size),
            ("a".to_string(), VarRole::Param),
            ("b".to_string(), VarRole::Param),
            ("s".to_string(), VarRole::Param),
        ]
    );
    let out = run(
        f,
        &[
            ("a_n0", Data::i(2)),
            ("a_n1", Data::i(2)),
            ("b_n0", Data::i(2)),
            ("a", Data::arr(&[2, 2], vec![1.0, 2.0, 3.0, 4.0])),
            ("b", Data::arr(&[2], vec![1.0, -1.0])),
        ],
    );
    assert_close(&out["s"].floats(), &[12.0]);
    assert_close(&out["b"].floats(), &[12.0, -12.0]);
}

#[test]
fn scalar_functions_apply_element_by_element() {
    let src = "\
module m
contains
  pure real(8) function softplus(x, k)
    real(8), intent(in) :: x
    integer, intent(in) :: k
    softplus = log(1.0d0 + exp(k * x)) + sum([1.0d0])
  end function
end module
";
    // An array constructor inside a scalar function: a work array filled before the statement.
    assert!(lower_fortran("t.f90", src, &FortranOptions::default()).is_ok());
    let src = "\
module m
contains
  pure real(8) function sq(x, k)
    real(8), intent(in) :: x
    integer, intent(in) :: k
    integer :: j
    sq = 0
    do j = 1, k
      sq = sq + x * x
    end do
  end function
  subroutine k(n, a, b)
    integer, intent(in) :: n
    real(8), intent(inout) :: a(n), b(n)
    b(2:n) = sq(a(1:n - 1), 2) + sum(a)
  end subroutine
end module
";
    let f = &lower(src).functions[0];
    let out =
        run(f, &[("n", Data::i(3)), ("a", Data::arr(&[3], vec![1.0, 2.0, 3.0])), ("b", Data::arr(&[3], vec![0.0; 3]))]);
    assert_close(&out["b"].floats(), &[0.0, 2.0 + 6.0, 8.0 + 6.0]);
}

#[test]
fn merge_and_numeric_inquiries() {
    let src = "\
subroutine k(n, a, b)
  integer :: n
  real(8) :: a(n), b(n)
  b = merge(a, -a, a > 0) + epsilon(1.0d0) * 0
  b(1) = min(b(1), huge(1.0d0))
end subroutine
";
    let f = &lower(src).functions[0];
    let out = run(
        f,
        &[("n", Data::i(3)), ("a", Data::arr(&[3], vec![1.0, -2.0, 3.0])), ("b", Data::arr(&[3], vec![0.0; 3]))],
    );
    assert_close(&out["b"].floats(), &[1.0, 2.0, 3.0]);
}

#[test]
fn allocatable_locals_take_their_shape_from_allocate() {
    let src = "\
subroutine k(n, x)
  integer, intent(in) :: n
  real(8), intent(inout) :: x(n)
  real(8), allocatable :: w(:)
  allocate(w(0:n + 1))
  w(0) = 0
  w(n + 1) = 0
  w(1:n) = x
  x = w(0:n - 1) + w(2:n + 1)
  deallocate(w)
end subroutine
";
    let m = lower(src);
    let text = adjc_ir::print::print_module(&m);
    assert!(text.contains("alloc w: f64[n + 2] colmajor"), "{text}");
    let out = run(&m.functions[0], &[("n", Data::i(3)), ("x", Data::arr(&[3], vec![1.0, 2.0, 3.0]))]);
    assert_close(&out["x"].floats(), &[2.0, 4.0, 2.0]);
}

#[test]
fn timers_hooks_and_text_output_are_left_out() {
    let src = "\
subroutine k(n, x)
  integer :: n
  real(8) :: x(n)
  real(8) :: t0, t1, zhook
  call dr_hook('k', 0, zhook)
  call cpu_time(t0)
  print *, 'scaling'
  x = 2 * x
  call cpu_time(t1)
  call dr_hook('k', 1, zhook)
end subroutine
";
    let m = lower(src);
    let f = &m.functions[0];
    assert!(f.notes.iter().any(|n| n.contains("line 6: `call cpu_time(t0)` left out")), "{:?}", f.notes);
    assert!(f.notes.iter().any(|n| n.contains("line 7: `print *, 'scaling'` left out")), "{:?}", f.notes);
    let out = run(f, &[("n", Data::i(2)), ("x", Data::arr(&[2], vec![1.0, 2.0]))]);
    assert_close(&out["x"].floats(), &[2.0, 4.0]);
}

/// Modules in other files, `use m, only: local => remote` renames, the default entry taken
/// from the first file, and spans pointing at the entry's own file.
#[test]
fn several_files_with_modules_and_renames() {
    use adjc_frontend::{lower_fortran_sources, FortranSource};
    let src = |name: &str, text: &str| FortranSource {
        name: name.into(),
        text: text.into(),
        preprocessed: false,
        fixed_form: false,
        original: None,
    };
    let kernel = src(
        "kernel.f90",
        "subroutine step(n, x)\n  use consts, only: wp => dp, c => scale\n  implicit none\n  integer :: n\n  real(wp) :: x(n)\n  x = c * x\nend subroutine\n",
    );
    let consts = src(
        "consts.f90",
        "module consts\n  integer, parameter :: dp = kind(1.0d0)\n  real(dp), parameter :: scale = 2.5d0\ncontains\n  subroutine unused(y)\n    real(dp) :: y\n    y = 0\n  end subroutine\nend module\n",
    );
    let no_include = |_: &str, _: &str| Err("none".to_string());
    let m = lower_fortran_sources(&[kernel.clone(), consts.clone()], &FortranOptions::default(), &no_include)
        .unwrap_or_else(|e| panic!("{}", e.render()));
    assert_eq!((m.file.as_str(), m.functions[0].name.as_str()), ("kernel.f90", "step"));
    assert_eq!(m.functions[0].span.line, 1);
    let out = run(&m.functions[0], &[("n", Data::i(2)), ("x", Data::arr(&[2], vec![1.0, -2.0]))]);
    assert_close(&out["x"].floats(), &[2.5, -5.0]);
    // An error in the module file is reported in that file.
    let bad = src("consts.f90", "module consts\n  integer, parameter :: dp = kind(1.0d0)\n  real(dp), parameter :: scale = (2.5d0\nend module\n");
    let e = lower_fortran_sources(&[kernel.clone(), bad], &FortranOptions::default(), &no_include).unwrap_err();
    assert_eq!((e.file.as_str(), e.diag.span.line), ("consts.f90", 3), "{}", e.render());
    // Renaming something that is not a constant of the module.
    let wrong = src(
        "kernel.f90",
        "subroutine step(x)\n  use consts, only: s => nothing\n  real(8) :: x\n  x = 2 * x\nend subroutine\n",
    );
    let e = lower_fortran_sources(&[wrong, consts], &FortranOptions::default(), &no_include).unwrap_err();
    assert!(e.diag.message.contains("`nothing` is not a `parameter` constant"), "{}", e.render());
    assert_eq!((e.file.as_str(), e.diag.span.line), ("kernel.f90", 2));
}

fn lib_ops(f: &adjc_ir::Function) -> Vec<&'static str> {
    let mut out = Vec::new();
    adjc_ir::walk_stmts(&f.body, &mut |s| {
        if let adjc_ir::StmtKind::Call(c) = &s.kind {
            out.push(c.op.name());
        }
    });
    out
}

/// `matmul`/`dot_product` become library calls where they can, loops elsewhere, with the
/// same values either way.
#[test]
fn products_are_library_calls_with_loops_as_fallback() {
    // An aliased output goes through a work array; a product in a loop stays loops; a
    // helper with a dot product inlined twice gets one call per inlining.
    let src = "\
module h
contains
  real(8) function energy(n, v)
    integer :: n
    real(8) :: v(n)
    energy = dot_product(v, v) + 1.0d0
  end function
end module
subroutine k(n, a, b, x, s)
  use h
  integer :: n, i
  real(8) :: a(n, n), b(n, n), x(n), s
  a = matmul(a, b)
  do i = 1, 2
    x = matmul(b, x)
  end do
  s = energy(n, x) * (energy(n, x) + 1.0d0)
end subroutine
";
    let m = lower(src);
    let f = &m.functions[0];
    assert_eq!(lib_ops(f), ["gemm", "dot", "dot"], "{}", adjc_ir::print::print_function(f));
    let (a, b, x) = (vec![1.0, 2.0, 3.0, 4.0], vec![0.5, -1.0, 2.0, 1.5], vec![1.0, -2.0]);
    let out = run(
        f,
        &[
            ("n", Data::i(2)),
            ("a", Data::arr(&[2, 2], a)),
            ("b", Data::arr(&[2, 2], b)),
            ("x", Data::arr(&[2], x)),
            ("s", Data::f(0.0)),
        ],
    );
    // Column-major: a = [[1, 3], [2, 4]], b = [[0.5, 2], [-1, 1.5]].
    let a2 = [0.5 * 1.0 - 3.0, 0.5 * 2.0 - 4.0, 2.0 + 3.0 * 1.5, 4.0 + 4.0 * 1.5];
    assert_close(&out["a"].floats(), &a2);
    let mut xv = [1.0, -2.0];
    for _ in 0..2 {
        xv = [0.5 * xv[0] + 2.0 * xv[1], -xv[0] + 1.5 * xv[1]];
    }
    assert_close(&out["x"].floats(), &xv);
    let e1 = xv[0] * xv[0] + xv[1] * xv[1] + 1.0;
    let e2 = e1 + 1.0;
    assert_close(&out["s"].floats(), &[e1 * e2]);
}

#[test]
fn default_real_literals_are_single_precision_values() {
    // gfortran: 0.1 is the float nearest 0.1 also in double precision arithmetic; 1.0d-1,
    // 0.1_8 and 0.1_dp are double; real(x) rounds to single, real(x, 8) and dble do not.
    let src = "\
subroutine k(x, y)
  integer, parameter :: dp = kind(1.0d0)
  real(8), intent(in) :: x
  real(8), intent(out) :: y
  y = 0.1 * x + 1.0d-1 * x + 0.1_8 * x + 0.1_dp * x + real(x) + real(x, 8) + real(x, kind=dp) + dble(x) &
      + real(0.1d0) + real(0.1d0, kind=8)
end subroutine k
";
    let text = ir(src);
    assert!(text.contains("0.10000000149011612 * x"), "{text}");
    assert_eq!(text.matches("0.1 * x").count(), 3, "{text}");
    let m = lower(src);
    let f = &m.functions[0];
    let out = run(f, &[("x", Data::f(3.0))]);
    let x = 3.0f64;
    let want = (0.1f32 as f64) * x + 3.0 * 0.1 * x + (x as f32 as f64) + 3.0 * x + (0.1f32 as f64) + 0.1;
    let got = out["y"].floats()[0];
    assert!((got - want).abs() <= 1e-15 * want.abs(), "{got} vs {want}");
}

#[test]
fn literal_and_conversion_kinds_fortran_does_not_have_are_errors() {
    let d = lower_err("subroutine k(x)\n  real(8) :: x\n  x = 1.0_16\nend subroutine\n");
    assert!(d.message.contains("real kind 16 is not supported"), "{}", d.message);
    assert_eq!((d.span.line, d.span.col), (3, 7));
    let d = lower_err("subroutine k(x)\n  real(8) :: x\n  x = real(x, kind=10)\nend subroutine\n");
    assert!(d.message.contains("real kind 10 is not supported"), "{}", d.message);
    let d = lower_err("subroutine k(x)\n  real(8) :: x\n  x = real(x, knd=8)\nend subroutine\n");
    assert!(d.message.contains("takes `kind=`"), "{}", d.message);
}

#[test]
fn declaration_initialisers_give_locals_their_value() {
    let src = "\
subroutine k(x, y)
  real(8), intent(in) :: x
  real(8), intent(out) :: y(3)
  real(8) :: c = 2.0_8, s = 0.1
  integer :: mode = 1
  real(8) :: w(3) = (/1d0, 2d0, 3d0/), z(0:1) = [0.5d0, 0.25d0]
  if (mode == 1) then
    y = c * x * w + z(1) + s
  end if
end subroutine k
";
    let m = lower(src);
    let out = run(&m.functions[0], &[("x", Data::f(3.0))]);
    let s = 0.1f32 as f64;
    assert_eq!(out["y"].floats(), vec![6.0 + 0.25 + s, 12.0 + 0.25 + s, 18.0 + 0.25 + s]);
}

#[test]
fn an_initialised_local_that_is_assigned_is_implied_save_and_an_error() {
    for (body, line, col) in [("  mode = mode + 1\n", 5, 3), ("  do mode = 1, 2\n  end do\n", 5, 6)] {
        let src = format!(
            "subroutine k(x, y)\n  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n  integer :: mode = 1\n{body}  y = x * mode\nend subroutine\n"
        );
        let d = lower_err(&src);
        assert!(
            d.message.contains("`mode` is assigned here but has an initial value in its declaration (line 4)"),
            "{}",
            d.message
        );
        assert!(d.message.contains("implied `save`"), "{}", d.message);
        assert!(d.help.unwrap_or_default().contains("`parameter`"));
        assert_eq!((d.span.line, d.span.col), (line, col));
    }
    // Declared `save` and assigned: state too.
    let d = lower_err(
        "subroutine k(x, y)\n  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n  real(8), save :: total\n  total = total + x\n  y = total\nend subroutine\n",
    );
    assert!(d.message.contains("`total` is assigned here but is declared `save` (line 4)"), "{}", d.message);
    assert_eq!((d.span.line, d.span.col), (5, 3));
    // Assigned by an inlined callee: still state kept between calls.
    let d = lower_err(
        "subroutine bump(k)\n  integer, intent(inout) :: k\n  k = k + 1\nend subroutine\n\
         subroutine k2(x, y)\n  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n  integer :: calls = 0\n  call bump(calls)\n  y = x * calls\nend subroutine\n",
    );
    assert!(d.message.contains("`calls` is assigned here"), "{}", d.message);
    let bad = [
        ("  real(8) :: w(2) = (/1d0, 2d0, 3d0/)\n", "`w` has 2 elements but its initialiser gives 3"),
        ("  real(8) :: w(2, 2) = (/1d0, 2d0, 3d0, 4d0/)\n", "rank-1 arrays"),
        ("  real(8) :: w(100) = 0d0\n", "initialising all 100 elements"),
        ("  real(8) :: w = x\n", "not a constant"),
    ];
    let d = lower_err(
        "subroutine k(x, y)\n  real(8), intent(in) :: x\n  real(8), intent(out) :: y = 1d0\n  y = x\nend subroutine\n",
    );
    assert!(d.message.contains("the argument or function result `y` cannot have an initial value"), "{}", d.message);
    assert_eq!((d.span.line, d.span.col), (3, 31));
    let d = lower_err("pure subroutine k(x, y)\n  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n  real(8) :: c = 2d0\n  y = c * x\nend subroutine\n");
    assert!(d.message.contains("`c` has an initial value in a pure procedure"), "{}", d.message);
    assert_eq!((d.span.line, d.span.col), (4, 18));
    for (decl, msg) in bad {
        let src = format!("subroutine k(x, y)\n  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n{decl}  y = x\nend subroutine\n");
        let d = lower_err(&src);
        assert!(d.message.contains(msg), "{decl}: {}", d.message);
        assert_eq!(d.span.line, 4, "{decl}");
    }
}

/// The parameter names of the lowered entry, in order.
fn param_names(src: &str) -> Vec<String> {
    let m = lower(src);
    let f = &m.functions[0];
    f.params.iter().map(|p| f.var(p.var).name.clone()).collect()
}

const FIELD_TYPES: &str = "module t\n  type :: inner\n    real(8) :: a, unused_a\n    real(8) :: b(2)\n  end type\n  \
     type :: field\n    integer :: n\n    real(8), allocatable :: v(:)\n    type(inner) :: sub\n    \
     character(len=8) :: label\n  end type\nend module\n";

/// A derived-type dummy becomes its components in use, in the type's order: nested ones
/// `f_sub_a`, allocatable ones assumed-shape with their lower bounds `f_v_lb0`.
#[test]
fn derived_type_dummies_become_their_components() {
    let src = format!(
        "{FIELD_TYPES}subroutine k(f, y)\n  use t\n  type(field), intent(in) :: f\n  real(8) :: y\n  integer :: i\n  \
         y = 0\n  do i = 1, f%n\n    y = y + f%v(i) * f%sub%a + f%sub%b(2)\n  end do\nend subroutine\n"
    );
    assert_eq!(param_names(&src), ["f_v_n0", "f_n", "f_v_lb0", "f_v", "f_sub_a", "f_sub_b", "y"]);
}

/// Assigning a whole derived-type variable keeps every component (the copy must not
/// lose one), arrays of types are one array per component with the element axis last.
#[test]
fn whole_assignments_and_arrays_of_types() {
    let src = "module t\n  type :: cell\n    real(8) :: rho, u(3)\n  end type\nend module\n\
               subroutine k(n, cs, out)\n  use t\n  integer :: n\n  type(cell) :: cs(n), out\n  \
               out = cs(n)\n  out%u(1) = out%u(1) * cs(1)%u(3)\nend subroutine\n";
    assert_eq!(param_names(src), ["n", "cs_rho", "cs_u", "out_rho", "out_u"]);
    let m = lower(src);
    let f = &m.functions[0];
    let cs_u = f.params.iter().map(|p| f.var(p.var)).find(|v| v.name == "cs_u").unwrap();
    assert_eq!(cs_u.ty.rank(), 2, "u(3) of cs(n): (3, n)");
}

/// `kind=` and the other keywords of intrinsics are put in their positions.
#[test]
fn keyword_arguments_of_intrinsics() {
    let src = "module kk\n  integer, parameter :: wp = selected_real_kind(p=13, r=300)\n  \
               integer, parameter :: ip = selected_int_kind(r=9)\n  integer(kind=ip), parameter :: nb = int(3, kind=ip)\n\
               end module\nsubroutine k(n, x, y)\n  use kk\n  integer(kind=ip) :: n\n  real(kind=wp) :: x(n), y\n  \
               y = real(nb, kind=kind(1.0d0)) * sum(array=x) + size(x, dim=1)\nend subroutine\n";
    let m = lower(src);
    let f = &m.functions[0];
    assert_eq!(f.var(f.params[1].var).ty.elem(), Scalar::F64);
    // A keyword that leaves a position empty stays an error of the intrinsic.
    let gap = "subroutine k(n, x, y)\n  integer :: n\n  real(8) :: x(n), y\n  y = sum(x, mask=x > 0)\nend subroutine\n";
    assert!(lower_err(gap).message.contains("keyword arguments of `sum` are not supported"));
}

#[test]
fn f77_constants_without_implicit_none_and_common_bounds_that_are_constant_expressions() {
    // NAS's header.h: `PARAMETER (IMAX = PROBLEM_SIZE)` after npbparams.h's PROBLEM_SIZE, in
    // routines without `implicit none` (the name must not read as an implicit variable), and
    // COMMON fields declared `u(0:IMAXP)` with `IMAXP = IMAX/2*2` (folded to 5 elements).
    let src = "\
subroutine k(x)
  integer n, m, mp
  parameter (n = 5)
  parameter (m = n, mp = m/2*2)
  real(8) u(0:mp), x(m)
  common /f/ u
  integer i
  do i = 1, m
    x(i) = x(i) * u(i - 1)
  end do
end subroutine k
";
    let text = ir(src);
    assert!(text.contains("x: f64[1:5]"), "{text}");
    assert!(text.contains("f_u: f64[5]"), "{text}");
}

/// A statement continued over several lines (free-form `&`, fixed-form column 6, with a
/// comment line in between) is listed whole in `Module::continued`, in the lines of the
/// file as written, so the C quotes all of it (issue 13); lines of an include file are not.
#[test]
fn continued_statements_are_listed_in_the_lines_of_the_file() {
    use adjc_frontend::FortranSource;
    let free = "subroutine s(n, x, y)\n  integer, intent(in) :: n\n  real(8), intent(in) :: x(n)\n  \
                real(8), intent(out) :: y(n)\n  integer :: i\n  do i = 1, n\n    y(i) = 2.0d0 * x(i) &\n\
                ! a comment inside the statement\n         + x(i) * x(i) &\n         - 1.0d0\n  end do\nend subroutine\n";
    assert_eq!(lower(free).continued, vec![(7, 10)]);
    let fixed = "      SUBROUTINE S(N, X, Y)\n      INTEGER N, I\n      DOUBLE PRECISION X(N), Y(N)\n      \
                 INCLUDE 'w.inc'\n      DO 10 I = 1, N\n         Y(I) = W * X(I)\n     &        + X(I) * X(I)\n\
                 \x20 10   CONTINUE\n      END\n";
    let source =
        FortranSource { name: "s.f".into(), text: fixed.into(), preprocessed: false, fixed_form: true, original: None };
    // The include file's own continued statement (lines 1-2 of w.inc) is not a line of s.f.
    let include = |_: &str, _: &str| {
        Ok(("w.inc".to_string(), "      DOUBLE PRECISION W\n      PARAMETER (W =\n     &  2.0D0)\n".to_string()))
    };
    let m = match adjc_frontend::lower_fortran_sources(&[source], &FortranOptions::default(), &include) {
        Ok(m) => m,
        Err(e) => panic!("{}", e.render()),
    };
    assert_eq!(m.continued, vec![(6, 7)]);
}
