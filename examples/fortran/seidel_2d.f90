! 2-D Gauss-Seidel sweep, PolyBench/Fortran style: in-place 9-point update.
! adjc check: --sizes n=10,tsteps=2
subroutine seidel_2d(tsteps, n, a)
  implicit none
  integer :: tsteps, n
  real(8) :: a(n, n)
  integer :: t, i, j

  do t = 1, tsteps
    do i = 2, n - 1
      do j = 2, n - 1
        a(j, i) = (a(j - 1, i - 1) + a(j, i - 1) + a(j + 1, i - 1) &
                 + a(j - 1, i) + a(j, i) + a(j + 1, i) &
                 + a(j - 1, i + 1) + a(j, i + 1) + a(j + 1, i + 1)) / 9.0d0
      end do
    end do
  end do
end subroutine seidel_2d
