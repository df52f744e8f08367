! The field type of a heat-equation model (as in the CSC heat-equation exercise): the
! grid's size and spacing, and its values with a halo of one cell (allocated 0:nx+1).
module heat_fields
  use heat_kinds, only: dp
  implicit none
  type :: field
    integer :: nx, ny
    real(dp) :: dx, dy
    real(dp), dimension(:, :), allocatable :: data
  end type field
end module heat_fields
