! In the style of ecRad's calc_ice_optics_fu_sw (not a copy). Exercises:
! an assumed-shape coefficient table coeff(:,:), polynomial fits in 1/de,
! min/max clamps, an intent(in) scalar loop, `use ..., only:` with a
! rename (jprb => wp style), the lhook pattern.
! corpus: modules/parkind1.f90 modules/yomhook.f90 --sizes nb=4,coeff_n0=4,coeff_n1=10 --init coeff=uniform(0,1) --init ice_wp=const(0.05) --init re=const(4.0e-5)
module radiation_ice_optics_fu
contains
  subroutine calc_ice_optics_fu_sw(nb, coeff, ice_wp, re, od, scat_od, g)
    use parkind1, only : wp => jprb
    use yomhook,  only : lhook, dr_hook, jphook
    implicit none
    integer, intent(in) :: nb
    real(wp), intent(in) :: coeff(:,:)
    real(wp), intent(in) :: ice_wp
    real(wp), intent(in) :: re
    real(wp), intent(out) :: od(nb), scat_od(nb), g(nb)
    real(wp) :: de_um, inv_de_um, iwp_gm_2
    real(wp), parameter :: MaxAsymmetryFactor = 1.0_wp - 10.0_wp*epsilon(1.0_wp)
    real(wp), parameter :: MaxEffectiveRadius = 100.0e-6_wp
    integer :: jb
    real(jphook) :: hook_handle

    if (lhook) call dr_hook('radiation_ice_optics:calc_ice_optics_fu_sw',0,hook_handle)

    de_um = min(re, MaxEffectiveRadius) * (1.0e6_wp / 0.64952_wp)
    inv_de_um = 1.0_wp / de_um
    iwp_gm_2 = ice_wp * 1000.0_wp

    do jb = 1, nb
      od(jb) = iwp_gm_2 * (coeff(jb,1) + coeff(jb,2) * inv_de_um)
      scat_od(jb) = od(jb) * (1.0_wp - (coeff(jb,3) + de_um*(coeff(jb,4) &
           &  + de_um*(coeff(jb,5) + de_um*coeff(jb,6)))))
      g(jb) = min(coeff(jb,7) + de_um*(coeff(jb,8) &
           &  + de_um*(coeff(jb,9) + de_um*coeff(jb,10))), &
           &  MaxAsymmetryFactor)
    end do

    if (lhook) call dr_hook('radiation_ice_optics:calc_ice_optics_fu_sw',1,hook_handle)

  end subroutine calc_ice_optics_fu_sw
end module radiation_ice_optics_fu
