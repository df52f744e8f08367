! In the style of ecRad's add_aerosol_optics (not a copy). Exercises: a
! config derived type with allocatable array components read inside
! loops (config%aerosol_mass_ext(jg,jtype)), optional istartcol/iendcol
! with present() and defaults, a logical switch in the type, lhook.
! corpus: modules/parkind1.f90 modules/yomhook.f90 modules/radiation_config.f90 --sizes ng=4,ntype=2,nlev=3,ncol=3,config_aerosol_mass_ext_n0=4,config_aerosol_mass_ext_n1=2,config_aerosol_mass_ext_lb0=1,config_aerosol_mass_ext_lb1=1,config_use_aerosols=1 --init mixing_ratio=uniform(0,1e-3) --wrt mixing_ratio,od --of od
module radiation_aerosol_optics
contains
  subroutine add_aerosol_optics(ng, ntype, nlev, ncol, config, mixing_ratio, &
       &                        layer_mass, od, istartcol, iendcol)
    use parkind1,         only : jprb
    use yomhook,          only : lhook, dr_hook, jphook
    use radiation_config, only : config_type
    implicit none
    integer, intent(in) :: ng, ntype, nlev, ncol
    type(config_type), intent(in) :: config
    real(jprb), intent(in) :: mixing_ratio(ncol, nlev, ntype)
    real(jprb), intent(in) :: layer_mass(ncol, nlev)
    real(jprb), intent(inout) :: od(ng, nlev, ncol)
    integer, intent(in), optional :: istartcol, iendcol
    integer :: jcol, jlev, jg, jtype, istart, iend
    real(jprb) :: factor
    real(jphook) :: hook_handle

    if (lhook) call dr_hook('radiation_aerosol_optics:add_aerosol_optics',0,hook_handle)

    if (present(istartcol)) then
      istart = istartcol
    else
      istart = 1
    end if
    if (present(iendcol)) then
      iend = iendcol
    else
      iend = ncol
    end if

    if (config%use_aerosols) then
      do jcol = istart, iend
        do jlev = 1, nlev
          do jtype = 1, ntype
            factor = layer_mass(jcol, jlev) * mixing_ratio(jcol, jlev, jtype)
            do jg = 1, ng
              od(jg, jlev, jcol) = od(jg, jlev, jcol) &
                   &  + factor * config%aerosol_mass_ext(jg, jtype)
            end do
          end do
        end do
      end do
    end if

    if (lhook) call dr_hook('radiation_aerosol_optics:add_aerosol_optics',1,hook_handle)

  end subroutine add_aerosol_optics
end module radiation_aerosol_optics
