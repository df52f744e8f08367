! expect: 6:13: `w` has no type declaration
subroutine k(n, x)
  implicit none
  integer :: n
  real(8) :: x(n)
  dimension w(n)
  x(1) = 2.0d0 * x(1)
end subroutine
