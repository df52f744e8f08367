! Explicit heat steps: a Fortran kernel that uses a module of another file (params.f90)
! and an include file (stencil.inc).
subroutine heat(n, nsteps, u, flux)
  use params, only: kappa
  implicit none
  include 'stencil.inc'
  integer :: n, nsteps
  real(8) :: u(0:n + 1), flux(n)
  integer :: i, s

  do s = 1, nsteps
    do i = 1, n
      flux(i) = kappa * (u(i - 1) + centre * u(i) + u(i + 1))
    end do
    do i = 1, n
      u(i) = u(i) + flux(i) * u(i)
    end do
  end do
end subroutine heat
