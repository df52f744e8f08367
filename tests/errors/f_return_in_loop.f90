! expect: 7:7: `return` inside a `do` loop
subroutine k(n, x)
  integer :: n, i
  real(8) :: x(n)
  do i = 1, n
    if (x(i) > 1.0d0) then
      return
    end if
    x(i) = 2.0d0 * x(i)
  end do
end subroutine
