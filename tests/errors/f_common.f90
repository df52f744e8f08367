! expect: 6:3: the integer `blk_n` (COMMON /blk/ n) is assigned
subroutine k(x)
  real(8) :: x
  integer :: n
  common /blk/ n
  n = 2
  x = x * n
end subroutine
