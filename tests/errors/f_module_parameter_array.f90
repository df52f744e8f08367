! expect: 9:9: the `parameter` array `w` of a module is not supported yet
module coeffs
  implicit none
  real(8), parameter :: w(3) = (/ 0.25d0, 0.5d0, 0.25d0 /)
contains
  subroutine smooth3(x, y)
    real(8), intent(in) :: x(3)
    real(8), intent(out) :: y
    y = w(1) * x(1) + w(2) * x(2) + w(3) * x(3)
  end subroutine smooth3
end module coeffs
