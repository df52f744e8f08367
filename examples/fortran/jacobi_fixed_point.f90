! Jacobi iteration for the diagonally dominant system (a + n I) x = b, run with `do while`
! until the update is below a tolerance. The iteration map is a contraction, so
! `--fixed-point` applies: the adjoint solves the adjoint fixed point at the converged x.
! adjc check: --sizes n=24 --fixed-point 16
subroutine jacobi_fixed_point(n, a, b, x)
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, intent(in) :: n
  real(dp), intent(in) :: a(n, n), b(n)
  real(dp), intent(out) :: x(n)
  real(dp) :: xn(n), err, s
  integer :: i, j, sweeps
  x = 0.0_dp
  err = 1.0_dp
  sweeps = 0
  do while (err > 1.0e-14_dp .and. sweeps < 500)
    do i = 1, n
      s = b(i)
      do j = 1, n
        s = s - a(i, j) * x(j)
      end do
      xn(i) = (s + a(i, i) * x(i)) / (n + a(i, i))
    end do
    err = maxval(abs(xn - x))
    x = xn
    sweeps = sweeps + 1
  end do
end subroutine jacobi_fixed_point
