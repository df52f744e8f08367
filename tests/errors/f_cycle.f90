! expect: 6:23: `cycle`
subroutine k(n, x)
  integer :: n, i
  real(8) :: x(n)
  do i = 1, n
    if (x(i) > 1.0d0) cycle
    x(i) = 2.0d0 * x(i)
  end do
end subroutine
