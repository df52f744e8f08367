#line 2000000000
subroutine k(x)
  real(8) :: x
  x = 2d0 * x
end subroutine k
