! y = y + a * x**2 (a Fortran kernel of the make example).
subroutine damp(n, a, x, y)
  implicit none
  integer :: n
  real(8) :: a, x(n), y(n)
  integer :: i

  do i = 1, n
    y(i) = y(i) + a * x(i)**2
  end do
end subroutine damp
