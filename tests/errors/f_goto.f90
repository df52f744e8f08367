! expect: 9:21: a backward `goto 10` (a loop) is not supported
subroutine k(n, x)
  integer :: n
  real(8) :: x(n)
  if (x(2) > 0.0d0) goto 10
  x(2) = 1.0d0
10 continue
  x(1) = 2.0d0 * x(1)
  if (x(1) < 1.0d0) goto 10
end subroutine
