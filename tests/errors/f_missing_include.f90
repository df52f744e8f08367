! expect: 3:11: include file `no_such_file.inc` not found
subroutine k(x)
  include 'no_such_file.inc'
  real(8) :: x
  x = 2.0d0 * x
end subroutine
