! Overlapping section assignment: Fortran evaluates the right-hand side before storing,
! so x(2:n) = x(1:n-1) shifts the old values (adjc computes into a temporary).
! adjc check: --sizes n=16,nsteps=3
subroutine shift_sections(n, nsteps, x, y)
  implicit none
  integer, intent(in) :: n, nsteps
  real(8), intent(inout) :: x(n)
  real(8), intent(inout) :: y(n)
  integer :: s

  do s = 1, nsteps
    x(2:n) = x(1:n - 1) * 0.9d0 + 0.1d0 * y(2:n)
    y(2:n - 1) = 0.5d0 * (y(1:n - 2) + y(3:n)) + x(2:n - 1) ** 2
    y(1:n:2) = y(1:n:2) * x(1)
  end do
end subroutine shift_sections
