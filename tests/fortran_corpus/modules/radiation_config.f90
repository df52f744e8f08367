! In the style of ecRad's radiation_config (not a copy): a configuration
! derived type with integer switches, logicals and allocatable components.
module radiation_config
  use parkind1, only : jprb
  implicit none
  enum, bind(c)
    enumerator ILiquidModelMonochromatic, ILiquidModelSOCRATES, ILiquidModelSlingo
  end enum
  integer, parameter :: IIceModelMonochromatic = 0
  integer, parameter :: IIceModelFu = 1
  integer, parameter :: IIceModelBaran = 2
  type config_type
    integer :: i_liq_model = ILiquidModelSOCRATES
    integer :: i_ice_model = IIceModelFu
    integer :: n_g_sw = 0, n_g_lw = 0
    logical :: do_sw_delta_scaling_with_gases = .false.
    logical :: use_aerosols = .true.
    real(jprb) :: min_cloud_effective_size = 1.0e-6_jprb
    real(jprb), allocatable :: liq_coeff_sw(:,:)
    real(jprb), allocatable :: aerosol_mass_ext(:,:)
  end type config_type
end module radiation_config
