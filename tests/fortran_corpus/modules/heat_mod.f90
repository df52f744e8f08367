! In the style of the CSC heat-equation exercise's heat module (not a
! copy): a field type with an allocatable halo array and grid spacings.
module heat
  use iso_fortran_env, only : REAL64
  implicit none
  integer, parameter :: dp = REAL64
  type :: field
     integer :: nx
     integer :: ny
     real(dp) :: dx
     real(dp) :: dy
     real(dp), dimension(:,:), allocatable :: data
  end type field
end module heat
