! Locals given a value in their declaration and never assigned are constants (a scalar of
! each type, rank-1 arrays from `(/ ... /)` and `[ ... ]`, a default-real value in a double
! precision local). Were such a local assigned, Fortran would keep it between calls (implied
! `save`): adjc reports that. The helper's initialised locals are set where it is inlined.
! adjc check: --sizes n=8
module ramps
  implicit none
contains
  function ramp(a) result(r)
    real(8), intent(in) :: a
    real(8) :: r
    real(8) :: k = 0.3
    real(8) :: v(2) = [1.5d0, -0.5d0]
    r = k * a * a + v(1) * a + v(2)
  end function ramp
end module ramps

subroutine init_values(n, x, y)
  use ramps
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: x(n)
  real(8), intent(out) :: y(n)
  real(8) :: c = 2.0_8
  integer :: mode = 1
  real(8) :: w(3) = (/1d0, 2d0, 3d0/), z(0:1) = [0.5d0, 0.25d0]
  real(8) :: s = 0.1
  logical :: on = .true.
  integer :: i
  do i = 1, n
    if (mode == 1 .and. on) then
      y(i) = c * x(i) + w(mod(i, 3) + 1) * x(i)**2 + z(1) + s * x(i) + ramp(x(i))
    else
      y(i) = 0
    end if
  end do
end subroutine init_values
