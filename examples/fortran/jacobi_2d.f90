! 2-D Jacobi stencil, PolyBench/Fortran style (no intent, real(8)).
! adjc check: --sizes n=12,tsteps=3
subroutine jacobi_2d(tsteps, n, a, b)
  implicit none
  integer :: tsteps, n
  real(8) :: a(n, n), b(n, n)
  integer :: t, i, j

  do t = 1, tsteps
    do i = 2, n - 1
      do j = 2, n - 1
        b(j, i) = 0.2d0 * (a(j, i) + a(j - 1, i) + a(j + 1, i) + a(j, i + 1) + a(j, i - 1))
      end do
    end do
    do i = 2, n - 1
      do j = 2, n - 1
        a(j, i) = 0.2d0 * (b(j, i) + b(j - 1, i) + b(j + 1, i) + b(j, i + 1) + b(j, i - 1))
      end do
    end do
  end do
end subroutine jacobi_2d
