! expect: 6:3: this computed `goto` is not supported
subroutine k(m, x)
  implicit none
  integer :: m
  real(8) :: x
  goto (10, 20) m
  x = 1.0d0
  goto 20
10 x = 2.0d0 * x
20 continue
end subroutine
