! In the style of ecRad's calc_fluxes_no_scattering_lw (not a copy).
! Exercises: a downward then upward sweep over levels (a first-order
! recurrence), explicit-shape arrays (ng, nlev+1), an intent(in) logical
! array, exp of optical depth, module parameter LwDiffusivity, lhook.
! corpus: modules/parkind1.f90 modules/yomhook.f90 --sizes ng=3,nlev=4 --init od=uniform(0.1,1) --init planck_hl=uniform(100,200) --init emission_surf=uniform(300,400) --init albedo_surf=uniform(0.1,0.3)
module radiation_lw_noscat
  use parkind1, only : jprb
  implicit none
  real(jprb), parameter :: LwDiffusivity = 1.66_jprb
contains
  subroutine calc_fluxes_no_scattering_lw(ng, nlev, od, planck_hl, &
       &  emission_surf, albedo_surf, flux_up, flux_dn)
    use yomhook, only : lhook, dr_hook, jphook
    integer, intent(in) :: ng, nlev
    real(jprb), intent(in), dimension(ng, nlev) :: od
    real(jprb), intent(in), dimension(ng, nlev+1) :: planck_hl
    real(jprb), intent(in), dimension(ng) :: emission_surf, albedo_surf
    real(jprb), intent(out), dimension(ng, nlev+1) :: flux_up, flux_dn
    real(jprb), dimension(ng, nlev) :: trans, source_up, source_dn
    real(jprb) :: coeff
    integer :: jlev, jg
    real(jphook) :: hook_handle

    if (lhook) call dr_hook('radiation_adding_ica_lw:calc_fluxes_no_scattering_lw',0,hook_handle)

    do jlev = 1, nlev
      do jg = 1, ng
        trans(jg,jlev) = exp(-LwDiffusivity*od(jg,jlev))
        coeff = (planck_hl(jg,jlev+1) - planck_hl(jg,jlev)) / max(od(jg,jlev), 1.0e-6_jprb)
        source_up(jg,jlev) = planck_hl(jg,jlev+1) - coeff/LwDiffusivity &
             &  - trans(jg,jlev)*(planck_hl(jg,jlev) - coeff/LwDiffusivity)
        source_dn(jg,jlev) = planck_hl(jg,jlev) + coeff/LwDiffusivity &
             &  - trans(jg,jlev)*(planck_hl(jg,jlev+1) + coeff/LwDiffusivity)
      end do
    end do

    flux_dn(:,1) = 0.0_jprb
    do jlev = 1, nlev
      flux_dn(:,jlev+1) = trans(:,jlev)*flux_dn(:,jlev) + source_dn(:,jlev)
    end do

    flux_up(:,nlev+1) = emission_surf + albedo_surf * flux_dn(:,nlev+1)
    do jlev = nlev, 1, -1
      flux_up(:,jlev) = trans(:,jlev)*flux_up(:,jlev+1) + source_up(:,jlev)
    end do

    if (lhook) call dr_hook('radiation_adding_ica_lw:calc_fluxes_no_scattering_lw',1,hook_handle)

  end subroutine calc_fluxes_no_scattering_lw
end module radiation_lw_noscat
