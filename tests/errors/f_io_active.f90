! expect: 5:3: input/output statements are not supported
subroutine k(n, x)
  integer :: n
  real(8) :: x(n)
  print *, x(1)
  x = 2.0d0 * x
end subroutine
