! A convergence loop per column: damped fixed-point iteration x = (b + sin(x)) / (2 + a)
! run with `do while` until the update is below a tolerance (or a cap on the sweeps).
! adjc check: --sizes n=12 --max-trips L1=200
subroutine converge(n, a, b, x)
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, intent(in) :: n
  real(dp), intent(in) :: a(n), b(n)
  real(dp), intent(out) :: x(n)
  real(dp) :: xi, xnew, delta
  integer :: i, sweeps
  do i = 1, n
    xi = b(i)
    delta = 1.0_dp
    sweeps = 0
    do while (abs(delta) > 1.0e-15_dp .and. sweeps < 200)
      xnew = (b(i) + sin(xi)) / (2.0_dp + a(i) * a(i))
      delta = xnew - xi
      xi = xnew
      sweeps = sweeps + 1
    end do
    x(i) = xi
  end do
end subroutine converge
