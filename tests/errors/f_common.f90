! expect: 4:3: `common` blocks are not supported
subroutine k(x)
  real(8) :: x, y
  common /blk/ y
  x = x * y
end subroutine
