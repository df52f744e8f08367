! expect: 5:5: syntax error
subroutine k(x)
  real(8) :: x
  x = 2.0d0 * &
end subroutine
