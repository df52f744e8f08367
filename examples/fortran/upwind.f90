! Upwind advection in modern Fortran: a module with a kind parameter, halo cells via
! lower bounds, an allocatable work array, `select case` on the scheme, section
! arithmetic, `do concurrent` and a `where` on the sign of the velocity.
! adjc check: --sizes im=24,nsteps=3,order=2 --init q=uniform(0.5,1.5)
module advection
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine upwind(im, nsteps, order, q, vel, dt)
    integer, intent(in) :: im, nsteps, order
    real(wp), intent(inout) :: q(-1:im + 2)
    real(wp), intent(in) :: vel(im)
    real(wp), intent(in) :: dt
    real(wp), allocatable :: flux(:)
    integer :: n, i

    allocate(flux(0:im))
    do n = 1, nsteps
      ! periodic halo
      q(-1:0) = q(im - 1:im)
      q(im + 1:im + 2) = q(1:2)
      select case (order)
      case (1)
        flux = q(0:im)
      case default
        flux = q(0:im) + 0.25_wp * (q(1:im + 1) - q(-1:im - 1))
      end select
      where (vel > 0.0_wp)
        q(1:im) = q(1:im) - 0.1_wp * dt * vel * (flux(1:im) - flux(0:im - 1))
      elsewhere
        q(1:im) = q(1:im) - 0.1_wp * dt * vel * (q(2:im + 1) - q(1:im))
      end where
      do concurrent (i = 1:im)
        q(i) = q(i) * (1.0_wp - 0.01_wp * tanh(q(i)))
      end do
    end do
    deallocate(flux)
  end subroutine upwind
end module advection
