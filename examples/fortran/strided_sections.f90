! Sections and loops with non-unit steps, reversed too. Their trip count is
! max(0, (hi - lo + st) / st) with floor division: at n = 0 the section y(n:1:-2) is
! empty (C's truncating `(1 - 0) / -2 == 0` would make it one element: y(0)).
! adjc check: --sizes n=7
subroutine strided_sections(n, alpha, x, y, z, res)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: alpha
  real(8), intent(inout) :: x(n), y(n), z(n)
  real(8), intent(out) :: res
  integer :: i

  y(n:1:-2) = 0.25d0 * alpha
  y(1:n:2) = y(1:n:2) + x(n:1:-2) * alpha
  y(n:1:-2) = exp(0.5d0 * y(n:1:-2))
  z(2:n:3) = z(n - 1:1:-3) * y(2:n:3)
  res = sum(y(n:1:-3)) + sum(z(1:n:2))
  do i = n, 1, -2
    res = res + x(i) * y(i)
  end do
  do i = 2, n - 1, 3
    res = res + z(i) * alpha
  end do
end subroutine strided_sections
