! expect: 5:18: the type `state` is not defined in the files given
subroutine k(n, x)
  integer :: n
  real(8) :: x(n)
  type(state) :: s
  x = 2.0d0 * x
end subroutine
