! expect: 3:3: module `no_such_module` is not defined
subroutine k(x)
  use no_such_module
  real(8) :: x
  x = 2.0d0 * x
end subroutine
