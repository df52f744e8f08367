! A modern-Fortran kernel: intent declarations, arrays with lower bounds (halo cells at
! 0 and n+1), section arithmetic, a backward recurrence and max/min/abs/sign.
! adjc check: --sizes n=20
module smooth_mod
  implicit none
  integer, parameter :: wp = selected_real_kind(15, 307)
  real(wp), parameter :: half = 0.5_wp
contains
  subroutine smooth_bounds(n, u, w, alpha)
    integer, intent(in) :: n
    real(wp), intent(inout) :: u(0:n + 1)
    real(wp), intent(out) :: w(0:n + 1)
    real(wp), intent(in) :: alpha
    integer :: i

    w(0) = 0.0_wp
    w(n + 1) = 0.0_wp
    w(1:n) = u(0:n - 1) - 2.0_wp * u(1:n) + u(2:n + 1)
    do i = n, 1, -1
      u(i) = half * u(i) + alpha * u(i + 1) + sign(abs(w(i)), u(i)) * 0.1_wp
    end do
    do i = 1, n, 2
      if (w(i) > 0.5_wp) then
        w(i) = min(w(i), 1.0_wp, u(i) * u(i))
      else if (w(i) < -0.5_wp) then
        w(i) = max(w(i), -1.0_wp)
      else
        w(i) = tanh(w(i)) * exp(-u(i) ** 2)
      end if
    end do
  end subroutine smooth_bounds
end module smooth_mod
