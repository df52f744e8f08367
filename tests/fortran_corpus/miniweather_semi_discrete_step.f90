! In the style of miniWeather's semi_discrete_step (not a copy).
! Exercises: an integer direction switch, calls of two routines of the
! same file (set_halo_values_x, compute_tend_z), whole-array and
! section assignments, module parameters, explicit halo bounds.
! corpus: modules/miniweather_const.f90 --sizes nx=4,nz=4,dir=1 --init state_init=uniform(1,2) --init state_forcing=uniform(1,2)
module semi_discrete
  use miniweather_const, only: rp, hs, NUM_VARS, DIR_X, DIR_Z
  implicit none
contains
  subroutine set_halo_values_x(nx, nz, state)
    integer, intent(in) :: nx, nz
    real(rp), intent(inout) :: state(1-hs:nx+hs, 1-hs:nz+hs, NUM_VARS)
    integer :: k, ll
    do ll = 1, NUM_VARS
      do k = 1, nz
        state(-1  ,k,ll) = state(nx-1,k,ll)
        state(0   ,k,ll) = state(nx  ,k,ll)
        state(nx+1,k,ll) = state(1   ,k,ll)
        state(nx+2,k,ll) = state(2   ,k,ll)
      enddo
    enddo
  end subroutine set_halo_values_x

  subroutine compute_tend_simple(nx, nz, dir, state, tend)
    integer, intent(in) :: nx, nz, dir
    real(rp), intent(in) :: state(1-hs:nx+hs, 1-hs:nz+hs, NUM_VARS)
    real(rp), intent(out) :: tend(nx, nz, NUM_VARS)
    integer :: i, k, ll
    do ll = 1, NUM_VARS
      do k = 1, nz
        do i = 1, nx
          if (dir == DIR_X) then
            tend(i,k,ll) = -(state(i+1,k,ll) - state(i-1,k,ll)) * 0.5_rp
          else
            tend(i,k,ll) = -(state(i,k+1,ll) - state(i,k-1,ll)) * 0.5_rp
          endif
        enddo
      enddo
    enddo
  end subroutine compute_tend_simple

  subroutine semi_discrete_step(nx, nz, state_init, state_forcing, state_out, dt, dir)
    integer, intent(in) :: nx, nz, dir
    real(rp), intent(in) :: state_init(1-hs:nx+hs, 1-hs:nz+hs, NUM_VARS)
    real(rp), intent(inout) :: state_forcing(1-hs:nx+hs, 1-hs:nz+hs, NUM_VARS)
    real(rp), intent(out) :: state_out(1-hs:nx+hs, 1-hs:nz+hs, NUM_VARS)
    real(rp), intent(in) :: dt
    real(rp) :: tend(nx, nz, NUM_VARS)
    integer :: i, k, ll
    if (dir == DIR_X) then
      call set_halo_values_x(nx, nz, state_forcing)
    endif
    call compute_tend_simple(nx, nz, dir, state_forcing, tend)
    state_out = state_init
    do ll = 1, NUM_VARS
      do k = 1, nz
        do i = 1, nx
          state_out(i,k,ll) = state_init(i,k,ll) + dt * tend(i,k,ll)
        enddo
      enddo
    enddo
  end subroutine semi_discrete_step
end module semi_discrete
