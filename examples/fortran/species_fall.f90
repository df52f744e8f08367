! Sedimentation of several species in CLOUDSC's style: the fall speed of each species is
! an element of a `parameter` array built with an array constructor (`ZVQX(NCLV) =
! (/ ... /)`), read by index inside the loops; a species with no fall speed is skipped.
! adjc check: --sizes klon=3,klev=4 --init pq=uniform(1e-5,1e-4) --init prho=uniform(0.5,1.2) --init pdp=uniform(500,1000)
subroutine species_fall(klon, klev, ptsphy, pdp, prho, pq, pflux)
  implicit none
  integer, parameter :: nclv = 3
  integer, intent(in) :: klon, klev
  real(kind=8), intent(in) :: ptsphy
  real(kind=8), intent(in) :: pdp(klon, klev), prho(klon, klev)
  real(kind=8), intent(inout) :: pq(klon, klev, nclv)
  real(kind=8), intent(out) :: pflux(klon, klev + 1, nclv)
  real(kind=8), parameter :: rg = 9.80665_8
  real(kind=8), parameter :: zvqx(nclv) = (/ 0.0_8, 0.15_8, 4.0_8 /)
  integer :: jk, jl, jm
  real(kind=8) :: zdtgdp, zfall, zqnew

  pflux(:, :, :) = 0.0_8
  do jm = 1, nclv
    if (zvqx(jm) > 0.0_8) then
      do jk = 1, klev
        do jl = 1, klon
          zdtgdp = ptsphy * rg / pdp(jl, jk)
          zfall = zvqx(jm) * sqrt(prho(jl, jk))
          zqnew = (pq(jl, jk, jm) + zdtgdp * pflux(jl, jk, jm)) / (1.0_8 + zdtgdp * zfall)
          pflux(jl, jk + 1, jm) = zfall * zqnew
          pq(jl, jk, jm) = zqnew
        end do
      end do
    end if
  end do
end subroutine species_fall
