! In the style of miniWeather's reductions (not a copy). Exercises:
! double-precision accumulation over an interior with halo lower bounds
! (1-hs:nx+hs), module parameters, intent(out) scalars, dx*dz module
! variables, a local real(8) accumulator.
! corpus: modules/miniweather_const.f90 --sizes nx=4,nz=3 --init state=uniform(1,2) --init hy_dens_cell=uniform(1,2) --init hy_dens_theta_cell=uniform(300,310)
subroutine reductions(nx, nz, state, hy_dens_cell, hy_dens_theta_cell, mass, te)
  use miniweather_const, only: rp, hs, NUM_VARS, ID_DENS, ID_UMOM, ID_WMOM, ID_RHOT, &
       cv, c0, gamm
  implicit none
  integer, intent(in) :: nx, nz
  real(rp), intent(in) :: state(1-hs:nx+hs, 1-hs:nz+hs, NUM_VARS)
  real(rp), intent(in) :: hy_dens_cell(1-hs:nz+hs), hy_dens_theta_cell(1-hs:nz+hs)
  real(rp), intent(out) :: mass, te
  integer :: i, k
  real(rp) :: r, u, w, th, p, t, ke, ie
  mass = 0
  te   = 0
  do k = 1, nz
    do i = 1, nx
      r  =   state(i,k,ID_DENS) + hy_dens_cell(k)
      u  =   state(i,k,ID_UMOM) / r
      w  =   state(i,k,ID_WMOM) / r
      th = ( state(i,k,ID_RHOT) + hy_dens_theta_cell(k) ) / r
      p  = c0*(r*th)**gamm
      t  = th / (1.e5_rp/p)**(287._rp/1004._rp)
      ke = r*(u*u+w*w)
      ie = r*cv*t
      mass = mass + r            * 20._rp * 20._rp
      te   = te   + (ke + r*cv*t) * 20._rp * 20._rp
    enddo
  enddo
end subroutine reductions
