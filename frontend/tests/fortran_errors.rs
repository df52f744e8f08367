//! Unsupported or wrong Fortran gives one diagnostic with the right message, position
//! and a help line.

#[path = "fortran_common/mod.rs"]
mod fortran_common;
use fortran_common::*;

/// Wraps `body` in a subroutine with a few declared variables; line 1 is the header,
/// so the first body line is line 6.
fn sub(body: &str) -> String {
    format!(
        "subroutine k(n, x, y)\n  implicit none\n  integer :: n, i\n  real(8) :: x(n), y\n  real(8) :: z\n{body}end subroutine\n"
    )
}

fn expect(src: &str, msg: &str, line: u32, col: u32) -> adjc_ir::Diagnostic {
    let d = lower_err(src);
    assert!(d.message.contains(msg), "message `{}` does not contain `{msg}`", d.message);
    assert_eq!((d.span.line, d.span.col), (line, col), "position of `{}`", d.message);
    let text = d.render("test.f90", src);
    assert!(text.starts_with(&format!("test.f90:{line}:{col}: error:")), "{text}");
    assert!(text.contains('^'), "{text}");
    d
}

fn expect_help(src: &str, msg: &str, line: u32, col: u32) {
    let d = expect(src, msg, line, col);
    assert!(d.help.is_some(), "no help for `{}`", d.message);
}

#[test]
fn control_flow_that_is_not_structured() {
    expect_help(&sub("  goto 10\n"), "this `goto 10` is not supported", 6, 3);
    // A backward goto closing a loop is a `do` (backward_goto.rs), unless a jump from
    // outside enters the loop; a goto out of a `do` loop is a data-dependent exit.
    expect_help(
        &sub("  if (y > 3) goto 10\n10 y = y * 2\n  if (y < 1) goto 10\n"),
        "a backward `goto 10` (a loop) is not supported",
        8,
        14,
    );
    expect_help(
        &sub("  do i = 1, n\n    if (x(i) > 0) goto 10\n  end do\n10 continue\n"),
        "this `goto 10` is not supported",
        7,
        19,
    );
    expect_help(
        &sub("  if (y > 0) goto 10\n  y = 1\n  if (y > 2) return\n10 continue\n"),
        "a `return` or `goto` between a `goto 10` and its label",
        8,
        3,
    );
    expect_help(
        // A computed `goto` is a jump table (computed_goto.rs), unless another `goto`
        // shares one of its labels.
        &sub("  goto (10, 20) n\n  goto 20\n10 continue\n20 continue\n"),
        "this computed `goto` is not supported",
        6,
        3,
    );
    // `exit`, `cycle`, `do while` and `return` in loops are supported; misuses are located.
    expect(&sub("  do i = 1, n\n    exit inner\n  end do\n"), "no enclosing `do` loop is named `inner`", 7, 5);
    expect(&sub("  cycle\n"), "`cycle` outside a `do` loop", 6, 3);
    expect_help(&sub("  do\n    y = y - 1\n  end do\n"), "never ends", 6, 3);
    expect_help(
        &sub("  do i = 1, n\n    do concurrent (j = 1:n)\n      if (x(j) > 0) exit\n    end do\n  end do\n"),
        "`exit` leaves a `do concurrent` construct",
        8,
        21,
    );
    // `stop` returns ADJC_ERR_STOP, except where no jump may leave (a map).
    expect_help(
        &sub("  do concurrent (i = 1:n)\n    if (x(i) < 0) error stop 1\n    x(i) = 2 * x(i)\n  end do\n"),
        "a `stop` inside `do concurrent` or an array statement is not supported",
        7,
        19,
    );
}

#[test]
fn storage_association_and_pointers() {
    let common = "subroutine k(x)\n  real(8) :: x\n  common /blk/ x\n  x = 1\nend subroutine\n";
    expect_help(common, "the argument `x` is also a COMMON member", 1, 14);
    // Storage association by position: a callee's declaration of the block must match.
    let other = "subroutine c()\n  real(8) :: a(3)\n  common /blk/ a\n  a(1) = 1\nend subroutine\nsubroutine k()\n  real(8) :: b(4)\n  common /blk/ b\n  call c()\n  b(2) = b(1)\nend subroutine\n";
    expect_help(other, "`a` has another type or shape than the member of COMMON /blk/", 2, 14);
    let written_int =
        "subroutine k(x)\n  real(8) :: x\n  integer :: n\n  common /sz/ n\n  n = 2\n  x = n * x\nend subroutine\n";
    expect_help(written_int, "the integer `sz_n` (COMMON /sz/ n) is assigned", 5, 3);
    let variable_bounds =
        "subroutine k(n)\n  integer :: n\n  real(8) :: w(n)\n  common /b/ w\n  w(1) = 2 * w(1)\nend subroutine\n";
    expect_help(variable_bounds, "the COMMON array `w` has bounds that are not constants", 3, 14);
    let eq = "subroutine k(x)\n  real(8) :: x, y\n  equivalence (x, y)\n  x = 1\nend subroutine\n";
    expect_help(eq, "`equivalence` is not supported", 3, 3);
    let ptr = "subroutine k(x)\n  real(8), pointer :: x(:)\n  x = 1\nend subroutine\n";
    expect_help(ptr, "pointers are not supported", 2, 12);
    let alloc = "subroutine k(x)\n  real(8), allocatable :: x(:)\n  x = 1\nend subroutine\n";
    expect_help(alloc, "the allocatable argument `x` is not supported yet", 2, 27);
}

#[test]
fn io_derived_types_and_calls() {
    // Output statements are left out (they change no value); input and status are errors.
    expect_help(&sub("  read(5,*) y\n"), "`read` statements are not supported", 6, 3);
    expect_help(&sub("  write(*,*,iostat=i) y\n  y = i\n"), "this input/output statement is not supported", 6, 3);
    expect_help(&sub("  inquire(unit=6, opened=z)\n"), "this input/output statement is not supported", 6, 3);
    let text = "subroutine k(n, s, x)\n  integer :: n\n  character(len=*) :: s\n  real(8) :: x(n)\n  x(1) = len(s)\nend subroutine\n";
    expect_help(text, "`s` is a character variable, used here in the computation", 5, 14);
    let ty = "subroutine k(p)\n  type(point) :: p\nend subroutine\n";
    expect_help(ty, "the type `point` is not defined in the files given", 2, 18);
    expect_help(&sub("  call helper(y)\n"), "`call helper` is not supported", 6, 3);
    expect_help(&sub("  y = foo(y)\n"), "unknown function or array `foo`", 6, 7);
}

#[test]
fn declarations_and_types() {
    let undeclared = "subroutine k(x)\n  implicit none\n  real(8) :: x\n  x = w\nend subroutine\n";
    expect_help(undeclared, "`w` has no type declaration", 4, 7);
    let undeclared_arg = "subroutine k(x, q)\n  implicit none\n  real(8) :: x\n  x = 1\nend subroutine\n";
    expect_help(undeclared_arg, "`q` has no type declaration", 1, 17);
    let assumed = "subroutine k(x)\n  real(8) :: x\n  real(8) :: w(:)\n  x = 1\nend subroutine\n";
    expect_help(assumed, "the local array `w` has no shape", 3, 14);
    // Assumed size is read in the routine differentiated (its extent becomes a size
    // parameter), not in a called one, where sequence association may reshape the array.
    let star = "subroutine h(y)\n  real(8) :: y(*)\n  y(1) = 1\nend subroutine\n\
                subroutine k(n, x)\n  integer n\n  real(8) :: x(n)\n  call h(x)\nend subroutine\n";
    expect_help(star, "assumed-size array `y` (`*`) in a called routine", 2, 14);
    let cplx = "subroutine k(x)\n  complex :: x\n  x = 1\nend subroutine\n";
    expect_help(cplx, "the type `complex` is not supported", 2, 3);
    let bounds = "subroutine k(x)\n  real(8) :: y\n  real(8) :: x(y)\n  x(1) = 1\nend subroutine\n";
    expect(bounds, "an integer is expected here", 3, 16);
    let local_bound = "subroutine k(x)\n  integer :: m\n  real(8) :: x(m)\n  x(1) = 1\nend subroutine\n";
    expect_help(local_bound, "the bounds of `x` depend on `m`", 3, 14);
    let use_other = "subroutine k(x)\n  use elsewhere\n  real(8) :: x\n  x = 1\nend subroutine\n";
    expect_help(use_other, "module `elsewhere` is not defined in the files given", 2, 3);
}

#[test]
fn wrong_assignments() {
    expect(&sub("  y = x\n"), "an array value is assigned to a scalar", 6, 7);
    expect(&sub("  y = x(2:n)\n"), "an array value is assigned to a scalar", 6, 7);
    expect(&sub("  x(1:3) = x(1:4)\n"), "do not conform", 6, 12);
    expect(&sub("  do i = 1, n\n    i = 2\n  end do\n"), "the `do` variable `i` is assigned inside its loop", 7, 5);
    expect(&sub("  do i = 1, n, n\n  end do\n"), "the loop step must be an integer constant", 6, 16);
    expect(&sub("  n = 3\n"), "the integer argument `n` is assigned", 6, 3);
    expect(&sub("  y = z(1)\n"), "`z` is not an array", 6, 7);
    expect(&sub("  y = x(1, 2)\n"), "`x` has rank 1 but is used with 2 subscript(s)", 6, 7);
    let intent_in = "subroutine k(x)\n  real(8), intent(in) :: x\n  x = 1\nend subroutine\n";
    expect_help(intent_in, "`x` is `intent(in)` but is assigned", 3, 3);
}

#[test]
fn syntax_errors_and_empty_files() {
    let d = lower_err("subroutine k(x)\n  real(8) :: x\n  x = (1 +\nend subroutine\n");
    assert!(d.message.contains("syntax error"), "{}", d.message);
    assert_eq!(d.span.line, 3);
    let d = lower_err("! only a comment\n");
    assert!(d.message.contains("no subroutine or function"), "{}", d.message);
}

fn fixed_err(src: &str) -> adjc_ir::Diagnostic {
    let opts = adjc_frontend::FortranOptions { fixed_form: true, ..Default::default() };
    match adjc_frontend::lower_fortran("test.f", src, &opts) {
        Ok(_) => panic!("expected an error for:\n{src}"),
        Err(d) => d,
    }
}

#[test]
fn fixed_form_column_rules() {
    let long = format!("      subroutine k(x)\n      real*8 x\n      x = {}\n      end\n", "x + ".repeat(20));
    let d = fixed_err(&long);
    assert!(d.message.contains("past column 72"), "{}", d.message);
    assert_eq!((d.span.line, d.span.col), (3, 73));
    assert!(d.help.is_some());
    let d = fixed_err("     + subroutine k(x)\n      end\n");
    assert!(d.message.contains("continuation line without a statement"), "{}", d.message);
    assert_eq!((d.span.line, d.span.col), (1, 6));
    // Diagnostics after the conversion point at the original line and column.
    let d = fixed_err(
        "c comment\n      subroutine k(x)\n      real*8 x\n      x = 1\n     &    + y\n      goto 10\n      end\n",
    );
    assert!(d.message.contains("`goto 10` is not supported"), "{}", d.message);
    assert_eq!((d.span.line, d.span.col), (6, 7));
    let d = lower_err("#define N 10\nsubroutine k(x)\nend subroutine\n");
    assert!(d.message.contains("preprocessor"), "{}", d.message);
    assert_eq!(d.span.line, 1);
}

#[test]
fn fixed_form_lowers_with_labels_and_continuations() {
    let src = "c     scale\n      subroutine k(n, x)\n      integer n, i\n      real*8 x(n)\n      do 10 i = 1, n\n         x(i) = 2.0d0 *\n     &          x(i)\n   10 continue\n      end\n";
    let opts = adjc_frontend::FortranOptions { fixed_form: true, ..Default::default() };
    let m =
        adjc_frontend::lower_fortran("test.f", src, &opts).unwrap_or_else(|d| panic!("{}", d.render("test.f", src)));
    assert_eq!(m.source, src, "the module keeps the original text for source comments");
    let f = &m.functions[0];
    let out = run(f, &[("n", Data::i(2)), ("x", Data::arr(&[2], vec![1.5, -1.0]))]);
    assert_close(&out["x"].floats(), &[3.0, -2.0]);
}

#[test]
fn calls_that_cannot_be_inlined() {
    let rec = "subroutine k(x)\n  real(8) :: x\n  call k(x)\nend subroutine\n";
    expect(rec, "recursion is not supported", 3, 3);
    let count = "subroutine h(a, b)\n  real(8) :: a, b\n  a = b\nend subroutine\nsubroutine k(x)\n  real(8) :: x\n  call h(x)\nend subroutine\n";
    expect(count, "`h` takes 2 argument(s), but `b` is not given", 7, 3);
    let shape = "subroutine h(m, a)\n  integer :: m\n  real(8) :: a(0:m)\n  a(0) = 1\nend subroutine\nsubroutine k(n, x)\n  integer :: n\n  real(8) :: x(n)\n  call h(n, x)\nend subroutine\n";
    expect_help(shape, "the array `x` has a different shape or lower bounds in `h`", 9, 13);
    let section = "subroutine h(m, a)\n  integer :: m\n  real(8) :: a(m)\n  a(1) = 1\nend subroutine\nsubroutine k(n, x)\n  integer :: n\n  real(8) :: x(n)\n  call h(n - 1, x(2:n))\nend subroutine\n";
    expect_help(section, "array sections and array expressions as arguments are not supported yet", 9, 17);
    let inner_map = "real(8) function g(a)\n  real(8) :: a, t(2)\n  t = a\n  g = t(1)\nend function\nsubroutine k(n, x)\n  integer :: n\n  real(8) :: x(n)\n  x = g(x)\nend subroutine\n";
    expect_help(inner_map, "an array assignment inside a function applied element by element", 3, 3);
}

#[test]
fn where_restrictions() {
    let src = "subroutine k(n, a, b)\n  integer :: n\n  real(8) :: a(n), b(n)\n  where (a > 0)\n    a = 1\n    b = a\n  end where\nend subroutine\n";
    expect_help(src, "`a` is assigned inside a `where` whose mask reads it", 5, 5);
    let scalar = "subroutine k(n, a, s)\n  integer :: n\n  real(8) :: a(n), s\n  where (a > 0) s = 1\nend subroutine\n";
    expect_help(scalar, "a scalar is assigned inside `where`", 4, 10);
}

#[test]
fn module_variables_are_reported() {
    // Allocatable module variables are not passed (plain ones are: see the examples).
    let src = "module m\n  real(8), allocatable :: g(:)\ncontains\n  subroutine k(x)\n    real(8) :: x\n    x = g(1) * x\n  end subroutine\nend module\n";
    expect_help(src, "the module variable `g` is not supported", 6, 9);
}

#[test]
fn array_valued_entry_functions() {
    let src = "function f(n, x) result(y)\n  integer :: n\n  real(8) :: x(n), y(n)\n  y = 2 * x\nend function\n";
    expect_help(src, "functions returning arrays are not supported as the entry", 1, 10);
}

#[test]
fn do_variables_have_no_value_after_the_loop() {
    let src = "subroutine k(n, x)\n  integer :: n, i\n  real(8) :: x(n)\n  do i = 1, n\n    x(i) = 1\n  end do\n  x(1) = i\nend subroutine\n";
    expect_help(src, "`i` is read outside its `do` loop", 2, 17);
}

#[test]
fn allocate_restrictions() {
    let loop_bound = "subroutine k(n, x)\n  integer :: n\n  real(8) :: x(n)\n  real(8), allocatable :: w(:)\n  integer :: m\n  m = n\n  allocate(w(m))\n  w = x\n  x = w\nend subroutine\n";
    expect_help(loop_bound, "the bounds of `w` depend on `m`", 7, 12);
    let not_alloc = "subroutine k(n, x)\n  integer :: n\n  real(8) :: x(n)\n  allocate(x(n))\nend subroutine\n";
    expect_help(not_alloc, "`x` is not an allocatable local array", 4, 12);
}

#[test]
fn left_out_calls_must_not_feed_the_math() {
    let src = "subroutine k(x)\n  real(8) :: x, t0\n  call cpu_time(t0)\n  x = x * t0\nend subroutine\n";
    expect_help(src, "`t0` is set by `call cpu_time`, which adjc leaves out", 3, 3);
    let out_arg = "subroutine k(x, t)\n  real(8) :: x, t\n  call cpu_time(t)\n  x = 2 * x\nend subroutine\n";
    expect_help(out_arg, "`t` is set by `call cpu_time`", 3, 3);
    // Output is left out, with a note: it changes no value.
    let m = fortran_common::lower(&sub("  print *, 'y =', y\n  y = 2 * y\n"));
    assert!(
        m.functions[0].notes.iter().any(|n| n.contains("left out (output: it changes no value)")),
        "{:?}",
        m.functions[0].notes
    );
}

#[test]
fn index_past_the_declared_bounds() {
    // x(i + 1) with i up to n reads x(n + 1): invalid whenever the loop runs.
    expect_help(&sub("  do i = 1, n\n    y = y + x(i + 1)\n  end do\n"), "index out of bounds", 7, 13);
    // Below the lower bound.
    expect_help(&sub("  do i = 1, n\n    y = y + x(i - 1)\n  end do\n"), "index out of bounds", 7, 13);
}

/// What gfortran rejects and tree-sitter-fortran accepts (found by the gfortran differential
/// test): each would otherwise be read some other way than gfortran reads it, or not at all.
#[test]
fn what_gfortran_rejects_and_tree_sitter_accepts() {
    // The declaration on line 5 is cut short; tree-sitter would read line 6 as its initialiser.
    expect_help(
        "subroutine k(n, x, y)\n  implicit none\n  integer :: n\n  real(8) :: x(n), y\n  real(8) :: \n  y = 2\n  x = y\nend subroutine\n",
        "the statement is incomplete at the end of the line",
        5,
        14,
    );
    expect_help(&sub("  do i = 1, n\n    x(i) = 1\n  end\n"), "`end` alone cannot close a `do` construct", 8, 3);
    expect_help(&sub("  do i = 1, n\n    x(i) = 1\n  end do do\n"), "the construct has no name", 8, 10);
    expect_help(
        &sub("  outer: do i = 1, n\n    x(i) = 1\n  end do inner\n"),
        "this `end` names `inner`, but the construct is `outer`",
        8,
        10,
    );
    expect_help(
        &sub("  x = 1\n").replace("end subroutine", "end subroutine j"),
        "the `end subroutine` names `j`, not `k`",
        7,
        16,
    );
    expect_help(&sub("  x = 1\n1 y = 2\n2y = 3\n"), "a statement label must be followed by a blank", 8, 1);
    expect_help(
        &sub("  do 1i = 1, n\n    x(i) = 1\n  end do\n"),
        "a statement label must be followed by a blank",
        6,
        6,
    );
    expect_help(
        "subroutine k(n, x, n)\n  integer :: n\n  real(8) :: x(n)\n  x = 1\nend subroutine\n",
        "the argument `n` appears twice in the argument list",
        1,
        20,
    );
    expect_help(
        &sub("").replace("  real(8) :: z\n", "  real(8) :: z\n  real(8) :: x(n)\n"),
        "`x` is given a type twice",
        6,
        14,
    );
    expect_help(
        &sub("").replace("  real(8) :: z\n", "  real(8) :: z\n  implicit none\n"),
        "`implicit` after a declaration",
        6,
        3,
    );
    expect_help(
        "module m\n  implicit none\n  real(8), parameter :: c = 1d0\n  real(8), parameter :: c = 2d0\ncontains\n  subroutine k(x)\n    real(8) :: x\n    x = c\n  end subroutine\nend module\n",
        "`c` is given a type twice",
        4,
        25,
    );
    // The module's `implicit none` holds in its procedures.
    expect_help(
        "module m\n  implicit none\ncontains\n  subroutine k(x)\n    real(8) :: x\n    x = y\n  end subroutine\nend module\n",
        "`y` has no type declaration",
        6,
        9,
    );
    expect_help(
        &sub("  select case (n)\n  case default\n    y = 1\n  case default\n    y = 2\n  end select\n"),
        "a second `case default`",
        9,
        3,
    );
    expect_help(
        "function f(x) result(x)\n  real(8) :: x\nend function\n",
        "`x` is both an argument and the function result",
        1,
        12,
    );
    // Was an internal error (a map without dimensions).
    expect_help(
        "subroutine k(x, r)\n  real(8), intent(in) :: x()\n  real(8), intent(out) :: r\n  r = sum(x)\nend subroutine\n",
        "an array needs at least one dimension",
        2,
        27,
    );
    // A left-out timer call still needs its variables declared under `implicit none`.
    expect_help(&sub("  call cpu_time(t0)\n"), "`t0` has no type declaration", 6, 17);
    // Named constructs with matching ends, continued statements and labels stay accepted.
    lower(&sub(
        "  do i = 1, n\n    x(i) = 1 + &\n      2 ! a comment & not a continuation\n  end do\n10 y = 1\n  chk: if (n > 1) then\n    y = 2\n  end if chk\n",
    ));
}

#[test]
fn f77_declaration_statements() {
    expect_help(&sub("  dimension w(n)\n  y = x(1)\n"), "`w` has no type declaration", 6, 13);
    expect_help(&sub("  parameter (c = 2.0d0)\n  y = x(1)\n"), "`c` has no type declaration", 6, 14);
    expect_help(
        &sub("  real(8), parameter :: c = 1.0d0\n  parameter (c = 2.0d0)\n  y = x(1)\n"),
        "`c` is given a value twice",
        7,
        14,
    );
    expect_help(&sub("  dimension z\n  y = x(1)\n"), "`dimension z` without bounds", 6, 13);
    expect_help(&sub("  dimension x(n)\n  y = x(1)\n"), "`x` is given a shape twice", 6, 13);
    expect_help(&sub("  y = x(1)\n  parameter (z = 2.0d0)\n"), "a `parameter` statement after an executable", 7, 3);
    expect_help(&sub("  y = x(1)\n  dimension z(3)\n"), "a declaration after an executable statement", 7, 3);
}

/// A module defining `field` (lines 1-6), then `body` as the routine `k` (line 7 on).
fn with_field(body: &str) -> String {
    format!(
        "module fields\n  type :: field\n    integer :: n\n    real(8), allocatable :: v(:)\n    real(8) :: w(3)\n  end type\nend module\n{body}"
    )
}

#[test]
fn derived_types_that_stay_refused() {
    let class = with_field("subroutine k(f)\n  use fields\n  class(field) :: f\n  f%w(1) = 1\nend subroutine\n");
    expect_help(&class, "polymorphic `class(...)` declarations are not supported", 10, 3);
    let alloc = with_field(
        "subroutine k(f)\n  use fields\n  type(field), allocatable :: f(:)\n  f(1)%w(1) = 1\nend subroutine\n",
    );
    expect_help(&alloc, "allocatable or pointer variables of derived type are not supported", 10, 16);
    let no_comp = with_field("subroutine k(f)\n  use fields\n  type(field) :: f\n  f%q = 1\nend subroutine\n");
    expect_help(&no_comp, "the type `field` has no component `q`", 11, 3);
    let value =
        with_field("subroutine k(f, y)\n  use fields\n  type(field) :: f\n  real(8) :: y\n  y = f\nend subroutine\n");
    expect_help(&value, "the derived-type value `f` is not supported here", 12, 7);
    let mixed = with_field(
        "subroutine k(f, y)\n  use fields\n  type(field) :: f\n  real(8) :: y\n  y = 2 * f%w\nend subroutine\n",
    );
    expect_help(&mixed, "an array value is assigned to a scalar", 12, 7);
    let array_alloc =
        with_field("subroutine k(f)\n  use fields\n  type(field) :: f(4)\n  f(1)%v(1) = 1\nend subroutine\n");
    expect_help(&array_alloc, "the allocatable component `v` of an array of derived types is not supported", 4, 29);
    let clash = with_field(
        "subroutine k(f, f_w)\n  use fields\n  type(field) :: f\n  real(8) :: f_w(3)\n  f%w = f_w\nend subroutine\n",
    );
    expect_help(&clash, "the component variable `f_w` of `f` clashes with another name", 10, 18);
}

#[test]
fn module_variables_of_derived_type_that_stay_refused() {
    // Scalars of derived type in a module are passed component by component (the example
    // cloudsc_module_type.f90); arrays of types and allocatable ones are not yet.
    let array = with_field(
        "module state
  use fields
  type(field) :: cells(4)
end module
subroutine k(y)
  use state
  real(8) :: y
  y = cells(1)%w(1)
end subroutine
",
    );
    expect_help(&array, "the module variable `cells` is an array of derived type: not supported yet", 10, 18);
    let alloc = with_field(
        "module state
  use fields
  type(field), allocatable :: chunks(:)
end module
subroutine k(y)
  use state
  real(8) :: y
  y = chunks(1)%w(1)
end subroutine
",
    );
    expect_help(&alloc, "the module variable `chunks` is an array or allocatable of derived type", 10, 16);
    let alloc_comp = with_field(
        "module state
  use fields
  type(field) :: cfg
end module
subroutine k(y)
  use state
  real(8) :: y
  y = cfg%v(1)
end subroutine
",
    );
    expect_help(&alloc_comp, "the module variable `cfg_v` is not supported", 15, 7);
}

#[test]
fn array_constructors_that_stay_refused() {
    let arrays = sub("  y = sum([x, x])\n");
    expect_help(&arrays, "array-valued items in an array constructor are not supported yet", 6, 12);
    let step = sub("  y = sum([(x(i), i = 1, n, 2)])\n");
    expect_help(&step, "implied do loops with a step other than 1 are not supported", 6, 29);
    let local_bound = "subroutine k(x, y)\n  real(8) :: x(4), y\n  integer :: i, m\n  m = 2\n  y = sum([(x(i), i = 1, m)])\nend subroutine\n";
    expect_help(local_bound, "is not known on entry", 5, 11);
    let in_cond = sub("  if (sum([y, 1d0]) > 0) y = 1\n");
    expect_help(&in_cond, "array constructors are supported in the right-hand side of assignments", 6, 11);
}

/// `helper` with an optional `w` (lines 1-8), then `body` as the entry (line 9 on).
fn with_optional(body: &str) -> String {
    format!(
        "module h\ncontains\n  subroutine helper(x, w)\n    real(8) :: x\n    real(8), optional :: w\n    \
         x = x * w\n  end subroutine\nend module\n{body}"
    )
}

#[test]
fn optional_arguments_that_stay_refused() {
    let absent = with_optional("subroutine k(x)\n  use h\n  real(8) :: x\n  call helper(x)\nend subroutine\n");
    expect_help(&absent, "the optional argument `w` is absent in this call", 6, 13);
    let missing = "module h\ncontains\n  subroutine helper(x, w)\n    real(8) :: x, w\n    x = x * w\n  \
                   end subroutine\nend module\nsubroutine k(x)\n  use h\n  real(8) :: x\n  call helper(x)\nend subroutine\n";
    expect_help(missing, "`helper` takes 2 argument(s), but `w` is not given", 11, 3);
    let unknown = with_optional("subroutine k(x)\n  use h\n  real(8) :: x\n  call helper(x, v=x)\nend subroutine\n");
    expect(&unknown, "`helper` has no argument `v`", 12, 18);
}

#[test]
fn data_statements_give_locals_constant_values() {
    let assigned = "subroutine k(n, x)\n  integer :: n\n  real(8) :: x(n), c\n  data c /2d0/\n  c = 3d0\n  x = c * x\nend subroutine\n";
    expect_help(assigned, "`c` is assigned here but has an initial value", 5, 3);
    let dummy = "subroutine k(n, x)\n  integer :: n\n  real(8) :: x(n)\n  data x /1d0/\nend subroutine\n";
    expect_help(dummy, "`x` in a `data` statement is not a local variable", 4, 8);
    let subscript = "subroutine k(n, x)\n  integer :: n, i\n  real(8) :: x(n), w(3)\n  data w(i) /1d0/\n  x = w(1) * x\nend subroutine\n";
    expect_help(subscript, "a subscript in a `data` statement must be a constant", 4, 10);
    let count = "subroutine k(n, x)\n  integer :: n\n  real(8) :: x(n), w(3)\n  data w /1d0, 2d0/\n  x = w(1) * x\nend subroutine\n";
    expect(count, "this `data` group has 3 object element(s) but 2 value(s)", 4, 8);
}

#[test]
fn statement_functions_are_inlined_or_reported() {
    let recursive = "subroutine k(n, x)\n  integer :: n\n  real(8) :: x(n), f, a\n  f(a) = f(a) + 1d0\n  x(1) = f(x(1))\nend subroutine\n";
    expect(recursive, "the statement function `f` calls itself", 4, 10);
    let args = "subroutine k(n, x)\n  integer :: n\n  real(8) :: x(n), f, a\n  f(a) = 2d0 * a\n  x(1) = f(x(1), x(2))\nend subroutine\n";
    expect(args, "this statement function takes 1 argument(s), 2 are given", 5, 10);
}
