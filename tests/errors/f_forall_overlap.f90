! expect: 6:31: this `forall` reads elements of `x` that it assigns
subroutine k(n, x)
  integer, intent(in) :: n
  real(8), intent(inout) :: x(n)
  integer :: i
  forall (i = 2:n) x(i) = 2 * x(i - 1)
end subroutine
