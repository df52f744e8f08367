! An explicit heat-equation step whose constants live in modules of other files:
! heat_params is given on the command line, heat_kinds (which it uses) is found by its
! name in the -I directory; `use ..., only: wp => dp` renames.
! adjc check: examples/fortran/modules/heat_params.f90 -I examples/fortran/modules --sizes n=12,nsteps=3
subroutine heat_step(n, nsteps, u, flux)
  use heat_kinds, only: wp => dp
  use heat_params, only: kappa, step => dt
  implicit none
  integer :: n, nsteps
  real(wp) :: u(0:n + 1), flux(n)
  integer :: i, s

  do s = 1, nsteps
    do i = 1, n
      flux(i) = kappa * (u(i - 1) - 2.0_wp * u(i) + u(i + 1))
    end do
    do i = 1, n
      u(i) = u(i) + step * flux(i) * u(i)
    end do
  end do
end subroutine heat_step
