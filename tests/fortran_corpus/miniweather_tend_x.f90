! In the style of miniWeather's compute_tendencies_x (not a copy).
! Exercises: module parameters (NUM_VARS, hs, sten_size, gamm, c0) and
! module VARIABLES (nx, nz, dx, and the allocatable hydrostatic profiles
! hy_dens_cell, hy_dens_theta_cell), an allocatable local, assumed-shape
! dummies with halo lower bounds, small fixed-size local arrays
! (stencil(4), vals(NUM_VARS)), a fourth-order reconstruction in loops.
! corpus: modules/miniweather_const.f90 --sizes state_n0=8,state_n1=8,state_n2=4,flux_n0=5,flux_n1=4,flux_n2=4,tend_n0=4,tend_n1=4,tend_n2=4,miniweather_const_nx=4,miniweather_const_nz=4 --init state=uniform(1,2)
subroutine compute_tendencies_x(state, flux, tend, dt)
  use miniweather_const, only: rp, NUM_VARS, hs, sten_size, ID_DENS, ID_UMOM, &
       ID_WMOM, ID_RHOT, c0, gamm, hv_beta, nx, nz, dx, hy_dens_cell, hy_dens_theta_cell
  implicit none
  real(rp), intent(in   ) :: state(1-hs:,1-hs:,:)
  real(rp), intent(  out) :: flux (:,:,:)
  real(rp), intent(  out) :: tend (:,:,:)
  real(rp), intent(in   ) :: dt
  integer :: i, k, ll, s
  real(rp) :: r, u, w, t, p, stencil(4), d3_vals(NUM_VARS), vals(NUM_VARS), hv_coef

  hv_coef = -hv_beta * dx / (16*dt)
  do k = 1, nz
    do i = 1, nx+1
      do ll = 1, NUM_VARS
        do s = 1, sten_size
          stencil(s) = state(i-hs-1+s,k,ll)
        enddo
        vals(ll) = -stencil(1)/12 + 7*stencil(2)/12 + 7*stencil(3)/12 - stencil(4)/12
        d3_vals(ll) = -stencil(1) + 3*stencil(2) - 3*stencil(3) + stencil(4)
      enddo
      r = vals(ID_DENS) + hy_dens_cell(k)
      u = vals(ID_UMOM) / r
      w = vals(ID_WMOM) / r
      t = ( vals(ID_RHOT) + hy_dens_theta_cell(k) ) / r
      p = c0*(r*t)**gamm
      flux(i,k,ID_DENS) = r*u     - hv_coef*d3_vals(ID_DENS)
      flux(i,k,ID_UMOM) = r*u*u+p - hv_coef*d3_vals(ID_UMOM)
      flux(i,k,ID_WMOM) = r*u*w   - hv_coef*d3_vals(ID_WMOM)
      flux(i,k,ID_RHOT) = r*u*t   - hv_coef*d3_vals(ID_RHOT)
    enddo
  enddo

  do ll = 1, NUM_VARS
    do k = 1, nz
      do i = 1, nx
        tend(i,k,ll) = -( flux(i+1,k,ll) - flux(i,k,ll) ) / dx
      enddo
    enddo
  enddo
end subroutine compute_tendencies_x
