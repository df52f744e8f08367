! expect: 6:3: `goto` is not supported
subroutine k(n, x)
  integer :: n
  real(8) :: x(n)
  x(1) = 2.0d0 * x(1)
  goto 10
10 continue
end subroutine
