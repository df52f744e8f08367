! In the style of miniWeather's Fortran version (not a copy): constants are
! module parameters, the grid sizes and hydrostatic profiles are module
! variables (the profiles allocatable), set by init().
module miniweather_const
  implicit none
  integer, parameter :: rp = selected_real_kind(15)
  real(rp), parameter :: pi = 3.14159265358979323846264338327_rp
  real(rp), parameter :: grav = 9.8_rp
  real(rp), parameter :: cp = 1004._rp
  real(rp), parameter :: cv = 717._rp
  real(rp), parameter :: rd = 287._rp
  real(rp), parameter :: p0 = 1.e5_rp
  real(rp), parameter :: c0 = 27.5629410929725921310572974482_rp
  real(rp), parameter :: gamm = 1.40027894002789400278940027894_rp
  real(rp), parameter :: xlen = 2.e4_rp
  real(rp), parameter :: zlen = 1.e4_rp
  real(rp), parameter :: hv_beta = 0.25_rp
  integer, parameter :: NUM_VARS = 4
  integer, parameter :: ID_DENS = 1, ID_UMOM = 2, ID_WMOM = 3, ID_RHOT = 4
  integer, parameter :: DIR_X = 1, DIR_Z = 2
  integer, parameter :: hs = 2
  integer, parameter :: sten_size = 4
  real(rp) :: dx, dz
  integer :: nx, nz
  real(rp), allocatable :: hy_dens_cell(:), hy_dens_theta_cell(:)
end module miniweather_const
