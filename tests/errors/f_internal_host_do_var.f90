! expect: 6:14: `i` is read outside its `do` loop, where it has no value in adjc
subroutine host_loop(n, x)
  implicit none
  integer, intent(in) :: n
  real(8), intent(inout) :: x(n)
  integer :: i
  do i = 1, n
    call twice()
  end do
contains
  subroutine twice()
    x(i) = 2.0d0 * x(i)
  end subroutine twice
end subroutine host_loop
