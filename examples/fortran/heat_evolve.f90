! One explicit time step of the 2-D heat equation on derived-type fields, as the CSC
! heat-equation code writes it: the type lives in a module of another file, its data is
! an allocatable component with a halo (allocated 0:nx+1, 0:ny+1 by the caller).
! adjc check: examples/fortran/modules/heat_fields.f90 -I examples/fortran/modules --sizes curr_nx=6,curr_ny=5,prev_nx=6,prev_ny=5,curr_data_lb0=0,curr_data_lb1=0,prev_data_lb0=0,prev_data_lb1=0,curr_data_n0=8,curr_data_n1=7,prev_data_n0=8,prev_data_n1=7
module heat_core
  use heat_kinds, only: dp
  use heat_fields, only: field
  implicit none
contains
  subroutine evolve(curr, prev, a, dt)
    type(field), intent(inout) :: curr, prev
    real(dp) :: a, dt
    integer :: i, j

    do j = 1, curr%ny
      do i = 1, curr%nx
        curr%data(i, j) = prev%data(i, j) + a * dt * &
             & ((prev%data(i - 1, j) - 2.0_dp * prev%data(i, j) + prev%data(i + 1, j)) / curr%dx**2 + &
             &  (prev%data(i, j - 1) - 2.0_dp * prev%data(i, j) + prev%data(i, j + 1)) / curr%dy**2) &
             & * prev%data(i, j)
      end do
    end do
  end subroutine evolve
end module heat_core
