! y = A^T (A x), PolyBench/Fortran style (no intent, arrays indexed transposed).
! adjc check: --sizes m=6,n=7
subroutine atax(m, n, a, x, y, tmp)
  implicit none
  integer :: m, n
  real(8) :: a(n, m), x(n), y(n), tmp(m)
  integer :: i, j

  do i = 1, n
    y(i) = 0.0d0
  end do
  do i = 1, m
    tmp(i) = 0.0d0
    do j = 1, n
      tmp(i) = tmp(i) + a(j, i) * x(j)
    end do
    do j = 1, n
      y(j) = y(j) + a(j, i) * tmp(i)
    end do
  end do
end subroutine atax
