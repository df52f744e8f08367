! A damped oscillation sampled at x (a Fortran kernel): y = exp(-a x) sin(x).
subroutine damping(n, a, x, y)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: a, x(n)
  real(8), intent(out) :: y(n)
  integer :: i

  do i = 1, n
    y(i) = exp(-a * x(i)) * sin(x(i))
  end do
end subroutine damping
