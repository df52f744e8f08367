! In the style of ecRad's radiation_flux (not a copy): a flux_type with
! allocatable 2-D components, and a routine that computes heating rates
! from it. Exercises: an intent(in) derived-type dummy with several
! allocatable components, whole-row sections flux%sw_up(jcol,:), an
! intent(out) work-array dummy, a module parameter, lhook.
! corpus: modules/parkind1.f90 modules/yomhook.f90 --sizes ncol=3,nlev=4,flux_sw_up_n0=3,flux_sw_up_n1=5,flux_sw_up_lb0=1,flux_sw_up_lb1=1,flux_sw_dn_n0=3,flux_sw_dn_n1=5,flux_sw_dn_lb0=1,flux_sw_dn_lb1=1 --init pressure_hl=uniform(1000,100000) --wrt flux_sw_up,flux_sw_dn --of hr_sw
module radiation_flux_hr
  use parkind1, only : jprb
  implicit none
  real(jprb), parameter :: AccelDueToGravity = 9.80665_jprb
  real(jprb), parameter :: SpecificHeatDryAir = 1004.0_jprb
  type flux_type
    real(jprb), allocatable, dimension(:,:) :: sw_up, sw_dn
    real(jprb), allocatable, dimension(:,:) :: lw_up, lw_dn
  end type flux_type
contains
  subroutine calc_heating_rate_sw(ncol, nlev, flux, pressure_hl, net, hr_sw)
    use yomhook, only : lhook, dr_hook, jphook
    integer, intent(in) :: ncol, nlev
    type(flux_type), intent(in) :: flux
    real(jprb), intent(in) :: pressure_hl(ncol, nlev+1)
    real(jprb), intent(out) :: net(nlev+1)
    real(jprb), intent(out) :: hr_sw(ncol, nlev)
    integer :: jcol, jlev
    real(jphook) :: hook_handle
    if (lhook) call dr_hook('radiation_flux:calc_heating_rate_sw',0,hook_handle)
    do jcol = 1, ncol
      net = flux%sw_dn(jcol,:) - flux%sw_up(jcol,:)
      do jlev = 1, nlev
        hr_sw(jcol,jlev) = -(AccelDueToGravity / SpecificHeatDryAir) &
             &  * (net(jlev+1) - net(jlev)) &
             &  / (abs(pressure_hl(jcol,jlev+1) - pressure_hl(jcol,jlev)) + 1.0_jprb)
      end do
    end do
    if (lhook) call dr_hook('radiation_flux:calc_heating_rate_sw',1,hook_handle)
  end subroutine calc_heating_rate_sw
end module radiation_flux_hr
