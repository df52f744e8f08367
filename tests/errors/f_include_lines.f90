! expect: 5:3: `goto` is not supported
subroutine k(x)
  include '../../examples/fortran/jacobi_weights.inc'
  real(8) :: x
  goto 10
10 x = w_side * x
end subroutine
