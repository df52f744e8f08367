! In the style of ecRad's liquid cloud optics dispatch (not a copy).
! Exercises: a derived-type config dummy (config_type from a module, with
! allocatable components) read as config%i_liq_model, SELECT CASE on it,
! an enumerator from the module, a radiation_abort call with a character
! argument and WRITE(nulerr,...) in the default branch, lhook.
! corpus: modules/parkind1.f90 modules/yomhook.f90 modules/radiation_io.f90 modules/radiation_config.f90 --sizes ng=4,ncol=3,config_i_liq_model=1 --init re=uniform(5e-6,2e-5) --init lwp=uniform(0,0.2) --wrt lwp,re --of od,scat_od,g
module radiation_liquid_optics
contains
  subroutine calc_liquid_optics(ng, ncol, config, lwp, re, od, scat_od, g)
    use parkind1,         only : jprb
    use yomhook,          only : lhook, dr_hook, jphook
    use radiation_io,     only : nulerr, radiation_abort
    use radiation_config, only : config_type, ILiquidModelSOCRATES, ILiquidModelSlingo
    implicit none
    integer, intent(in) :: ng, ncol
    type(config_type), intent(in) :: config
    real(jprb), intent(in)  :: lwp(ncol), re(ncol)
    real(jprb), intent(out) :: od(ng, ncol), scat_od(ng, ncol), g(ng, ncol)
    integer :: jcol, jg
    real(jprb) :: re_um
    real(jphook) :: hook_handle

    if (lhook) call dr_hook('radiation_cloud_optics:calc_liquid_optics',0,hook_handle)

    select case (config%i_liq_model)
    case (ILiquidModelSOCRATES)
      do jcol = 1, ncol
        re_um = re(jcol) * 1.0e6_jprb
        do jg = 1, ng
          od(jg,jcol) = lwp(jcol) * (0.02_jprb*jg + 1.5_jprb/re_um)
          scat_od(jg,jcol) = od(jg,jcol) * (1.0_jprb - 1.0e-3_jprb*re_um)
          g(jg,jcol) = 0.85_jprb - 0.1_jprb*exp(-0.1_jprb*re_um)
        end do
      end do
    case (ILiquidModelSlingo)
      do jcol = 1, ncol
        re_um = re(jcol) * 1.0e6_jprb
        do jg = 1, ng
          od(jg,jcol) = lwp(jcol) * (0.03_jprb + 1.4_jprb/re_um)
          scat_od(jg,jcol) = od(jg,jcol) * 0.999_jprb
          g(jg,jcol) = 0.82_jprb + 1.0e-3_jprb*re_um
        end do
      end do
    case default
      write(nulerr,'(a,i0)') '*** Error: unknown liquid model ', config%i_liq_model
      call radiation_abort('Radiation configuration error')
    end select

    if (lhook) call dr_hook('radiation_cloud_optics:calc_liquid_optics',1,hook_handle)

  end subroutine calc_liquid_optics
end module radiation_liquid_optics
