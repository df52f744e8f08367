! Types of a column model in the style of ecRad's and CLOUDSC's: a gas state nested in a
! column, a fixed number of levels from a module constant, a default-initialised flag.
module column_types
  use heat_kinds, only: dp
  implicit none
  integer, parameter :: nlev = 4
  type :: gas_state
    real(dp) :: rho
    real(dp) :: t(nlev)
  end type gas_state
  type :: column
    type(gas_state) :: gas
    real(dp) :: albedo
    integer :: id = 0
  end type column
end module column_types
