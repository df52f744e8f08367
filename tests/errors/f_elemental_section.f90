! expect: 12:16: `halve` is elemental: pass whole arrays to it
module m
  implicit none
contains
  elemental subroutine halve(x)
    real(8), intent(inout) :: x
    x = 0.5d0 * x
  end subroutine halve
  subroutine k(n, y)
    integer, intent(in) :: n
    real(8), intent(inout) :: y(n)
    call halve(y(2:n))
  end subroutine k
end module m
