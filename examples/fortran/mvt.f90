! x1 = x1 + A y1, x2 = x2 + A^T y2, PolyBench/Fortran style.
! adjc check: --sizes n=8
subroutine mvt(n, x1, x2, y1, y2, a)
  implicit none
  integer :: n
  real(8) :: x1(n), x2(n), y1(n), y2(n), a(n, n)
  integer :: i, j

  do i = 1, n
    do j = 1, n
      x1(i) = x1(i) + a(j, i) * y1(j)
    end do
  end do
  do i = 1, n
    do j = 1, n
      x2(i) = x2(i) + a(i, j) * y2(j)
    end do
  end do
end subroutine mvt
