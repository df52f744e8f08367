! expect: 3:1: line marker sets line 2000000000
! (a huge #line made the frontend allocate a string per line up to it and abort)
#line 2000000000
subroutine k(x)
  real(8) :: x
  x = 2d0 * x
end subroutine k
