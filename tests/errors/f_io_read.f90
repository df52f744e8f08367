! expect: 5:3: `read` statements are not supported
subroutine k(n, x)
  integer :: n
  real(8) :: x(n)
  read(5, *) x(1)
  print *, x(1)
  x = 2.0d0 * x
end subroutine
