! expect: 9:3: `end` alone cannot close a `do` construct
subroutine smooth(n, x)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: x(n)
  integer :: i
  do i = 2, n
    x(i) = 0.5d0 * (x(i) + x(i - 1))
  end
end subroutine smooth
