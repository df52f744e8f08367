! In the style of miniWeather's hydro_const_theta (not a copy). Exercises:
! scalar intent(in)/intent(out) dummies, module parameters with
! non-integer powers (**), exp-free Exner function, a function of the
! same file called on scalars.
! corpus: modules/miniweather_const.f90 --init z=uniform(100,9000)
subroutine hydro_const_theta(z, r, t)
  use miniweather_const, only: rp, grav, cp, rd, p0, c0, gamm
  implicit none
  real(rp), intent(in   ) :: z
  real(rp), intent(  out) :: r, t
  real(rp), parameter :: theta0 = 300._rp
  real(rp), parameter :: exner0 = 1._rp
  real(rp) :: p, exner, rt
  t = theta0
  exner = exner0 - grav * z / (cp * theta0)
  p = p0 * exner**(cp/rd)
  rt = (p / c0)**(1._rp / gamm)
  r = rt / t
end subroutine hydro_const_theta
