! A modern-F90 module: a pure function returning an array (a second-order upwind
! tendency written with section arithmetic x(3:im) - x(2:im-1)), called in a time loop.
! adjc check: --sizes im=20,nsteps=4
module upwind_mod
  implicit none
  integer, parameter :: dp = selected_real_kind(15)
contains
  pure function tendency(im, x, c) result(dx)
    integer, intent(in) :: im
    real(dp), intent(in) :: x(im), c
    real(dp) :: dx(im)
    dx(1:2) = 0.0_dp
    dx(3:im) = -c * (1.5_dp * x(3:im) - 2.0_dp * x(2:im - 1) + 0.5_dp * x(1:im - 2))
  end function tendency

  subroutine advect(im, nsteps, x, c, dt)
    integer, intent(in) :: im, nsteps
    real(dp), intent(inout) :: x(im)
    real(dp), intent(in) :: c, dt
    integer :: n
    do n = 1, nsteps
      x = x + dt * tendency(im, x, c)
    end do
  end subroutine advect
end module upwind_mod
