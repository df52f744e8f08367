! In the style of ecRad's radiation_gas (not a copy). Exercises: a derived
! type defined in the same module with an allocatable 3-D component and a
! logical array component, a type-bound-free "get" routine with an
! intent(in) type dummy, array sections of a component, an optional scale
! factor with present(), module integer parameters as gas indices.
! corpus: modules/parkind1.f90 --sizes ncol=3,nlev=4,igas=2,gas_mixing_ratio_n0=3,gas_mixing_ratio_n1=4,gas_mixing_ratio_n2=3,gas_mixing_ratio_lb0=1,gas_mixing_ratio_lb1=1,gas_mixing_ratio_lb2=1 --wrt gas_mixing_ratio --of mixing_ratio
module radiation_gas
  use parkind1, only : jprb
  implicit none
  integer, parameter :: IH2O = 1, ICO2 = 2, IO3 = 3, NMaxGases = 3
  type gas_type
    logical :: is_present(NMaxGases) = .false.
    real(jprb) :: scale_factor(NMaxGases) = 1.0_jprb
    real(jprb), allocatable :: mixing_ratio(:,:,:)
  end type gas_type
contains
  subroutine get_gas(ncol, nlev, gas, igas, mixing_ratio, scale_factor)
    integer, intent(in) :: ncol, nlev, igas
    type(gas_type), intent(in) :: gas
    real(jprb), intent(out) :: mixing_ratio(ncol, nlev)
    real(jprb), intent(in), optional :: scale_factor
    real(jprb) :: sf
    if (present(scale_factor)) then
      sf = scale_factor
    else
      sf = 1.0_jprb
    end if
    mixing_ratio = sf * gas%scale_factor(igas) * gas%mixing_ratio(1:ncol, 1:nlev, igas)
  end subroutine get_gas
end module radiation_gas
