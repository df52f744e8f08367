! expect: 7:19: a `stop` inside `do concurrent` or an array statement is not supported
subroutine k(n, x)
  implicit none
  integer :: n, i
  real(8) :: x(n)
  do concurrent (i = 1:n)
    if (x(i) < 0) stop 'negative'
    x(i) = 2.0d0 * x(i)
  end do
end subroutine
