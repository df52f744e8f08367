! Donor-cell advection in CloverLeaf's style: the upwind and donor cells of each face are
! integer locals chosen by the sign of the volume flux (`donor = j - 1` or `donor = j`),
! then used as indices. adjc bounds such an index by every value the routine stores in
! it (here `x_min - 2 .. x_max + 1`), where it is assigned on every path before the read.
! adjc check: --sizes x_min=1,x_max=6 --init vol_flux=uniform(-0.5,0.5) --init density=uniform(1,2) --init volume=uniform(4,5)
subroutine donor_cell(x_min, x_max, vol_flux, volume, density, mass_flux)
  implicit none
  integer, intent(in) :: x_min, x_max
  real(kind=8), intent(in) :: vol_flux(x_min:x_max + 1)
  real(kind=8), intent(in) :: volume(x_min - 2:x_max + 2)
  real(kind=8), intent(inout) :: density(x_min - 2:x_max + 2)
  real(kind=8), intent(out) :: mass_flux(x_min:x_max + 1)
  integer :: j, upwind, donor, downwind
  real(kind=8) :: sigma, diffuw, diffdw, limiter

  do j = x_min, x_max + 1
    if (vol_flux(j) > 0.0_8) then
      upwind = j - 2
      donor = j - 1
      downwind = j
    else
      upwind = min(j + 1, x_max + 2)
      donor = j
      downwind = j - 1
    end if
    sigma = abs(vol_flux(j)) / volume(donor)
    diffuw = density(donor) - density(upwind)
    diffdw = density(downwind) - density(donor)
    if (diffuw * diffdw > 0.0_8) then
      limiter = (1.0_8 - sigma) * sign(1.0_8, diffdw) * min(abs(diffuw), abs(diffdw))
    else
      limiter = 0.0_8
    end if
    mass_flux(j) = vol_flux(j) * (density(donor) + limiter)
  end do
  do j = x_min, x_max
    density(j) = density(j) + (mass_flux(j) - mass_flux(j + 1)) / volume(j)
  end do
end subroutine donor_cell
