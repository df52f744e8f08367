! In the style of the CSC heat-equation exercise's core.F90 evolve (not a
! copy). Exercises: type(field) dummies from a module in another file
! with an allocatable 2-D component indexed from 0 (halo), scalar
! components nx, ny, dx, dy used as bounds and in the stencil.
! corpus: modules/heat_mod.f90 --sizes curr_nx=4,curr_ny=4,prev_nx=4,prev_ny=4,curr_data_n0=6,curr_data_n1=6,curr_data_lb0=0,curr_data_lb1=0,prev_data_n0=6,prev_data_n1=6,prev_data_lb0=0,prev_data_lb1=0 --init prev_dx=const(0.5) --init prev_dy=const(0.5) --wrt prev_data,a --of curr_data
module core
contains
  subroutine evolve(curr, prev, a, dt)
    use heat
    implicit none
    type(field), intent(inout) :: curr, prev
    real(dp) :: a, dt
    integer :: i, j, nx, ny

    nx = curr%nx
    ny = curr%ny

    do j = 1, ny
       do i = 1, nx
          curr%data(i, j) = prev%data(i, j) + a * dt * &
               & ((prev%data(i-1, j) - 2.0 * prev%data(i, j) + &
               &   prev%data(i+1, j)) / prev%dx**2 + &
               &  (prev%data(i, j-1) - 2.0 * prev%data(i, j) + &
               &   prev%data(i, j+1)) / prev%dy**2)
       end do
    end do
  end subroutine evolve
end module core
