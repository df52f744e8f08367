! expect: 6:3: a backward `goto 10` (a loop) is not supported
subroutine k(x)
  include '../../examples/fortran/jacobi_weights.inc'
  real(8) :: x
10 x = w_side * x
  goto 10
end subroutine
