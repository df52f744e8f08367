! In the style of ecRad's single_level_type use (not a copy). Exercises:
! an intent(in) derived-type dummy from a module of the same file with
! allocatable 1-D and 2-D components (single_level%cos_sza(jcol),
! single_level%sw_albedo(jcol,jband)), an integer band map from a config
! array argument, merge(), the lhook pattern.
! corpus: modules/parkind1.f90 modules/yomhook.f90 --sizes ncol=3,nband=2,ng=4,single_level_cos_sza_n0=3,single_level_cos_sza_lb0=1,single_level_sw_albedo_n0=3,single_level_sw_albedo_n1=2,single_level_sw_albedo_lb0=1,single_level_sw_albedo_lb1=1 --init single_level_cos_sza=uniform(0.1,1) --init single_level_sw_albedo=uniform(0.05,0.5) --wrt single_level_sw_albedo,single_level_cos_sza --of albedo_direct,albedo_diffuse --inputs inputs/ecrad_surface_albedo.npz
module radiation_single_level
  use parkind1, only : jprb
  implicit none
  type single_level_type
    real(jprb), allocatable :: cos_sza(:)
    real(jprb), allocatable :: sw_albedo(:,:)
    real(jprb) :: solar_irradiance = 1366.0_jprb
  end type single_level_type
contains
  subroutine get_albedos(ncol, nband, ng, single_level, i_band_from_g, &
       &                 albedo_direct, albedo_diffuse)
    use yomhook, only : lhook, dr_hook, jphook
    integer, intent(in) :: ncol, nband, ng
    type(single_level_type), intent(in) :: single_level
    integer, intent(in) :: i_band_from_g(ng)
    real(jprb), intent(out) :: albedo_direct(ng, ncol), albedo_diffuse(ng, ncol)
    integer :: jcol, jg
    real(jphook) :: hook_handle
    if (lhook) call dr_hook('radiation_single_level:get_albedos',0,hook_handle)
    do jcol = 1, ncol
      do jg = 1, ng
        albedo_diffuse(jg,jcol) = single_level%sw_albedo(jcol, i_band_from_g(jg))
        albedo_direct(jg,jcol) = albedo_diffuse(jg,jcol) &
             &  * (1.0_jprb + 0.2_jprb*(1.0_jprb - single_level%cos_sza(jcol)))
        albedo_direct(jg,jcol) = merge(albedo_direct(jg,jcol), 1.0_jprb, &
             &  albedo_direct(jg,jcol) < 1.0_jprb)
      end do
    end do
    if (lhook) call dr_hook('radiation_single_level:get_albedos',1,hook_handle)
  end subroutine get_albedos
end module radiation_single_level
