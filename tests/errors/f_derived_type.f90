! expect: 5:3: derived type
subroutine k(n, x)
  integer :: n
  real(8) :: x(n)
  type(state) :: s
  x = 2.0d0 * x
end subroutine
