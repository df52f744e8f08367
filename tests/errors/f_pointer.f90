! expect: 4:12: pointers are not supported
subroutine k(n, x)
  integer :: n
  real(8), pointer :: p(:)
  real(8) :: x(n)
  x = 2.0d0 * x
end subroutine
