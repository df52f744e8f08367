! expect: 8:3: `calls` is assigned here but has an initial value in its declaration (line 7)
subroutine counter(n, x, y)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: x(n)
  real(8), intent(out) :: y(n)
  integer :: calls = 0
  calls = calls + 1
  y = x * calls
end subroutine counter
