! expect: 5:3: `equivalence`
subroutine k(x)
  real(8) :: x
  real(8) :: y, z
  equivalence (y, z)
  x = x * 2.0d0
end subroutine
