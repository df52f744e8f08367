! Rounding intrinsics of physics codes (NAS EP's aint, a real `mod` for a periodic
! coordinate, `dim` for a threshold, `hypot` for a wind speed): each is piecewise smooth, and
! its derivative is the one of its smooth piece (aint and anint have derivative 0).
! adjc check: --sizes n=6 --init x=uniform(-2.9,2.9) --init p=const(0.7) --init u=uniform(-1,1)
subroutine rounding(n, x, u, p, y)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: x(n), u(n), p
  real(8), intent(out) :: y(n)
  integer :: i

  do i = 1, n
    y(i) = mod(x(i), p) + 0.5d0 * modulo(x(i), p) + aint(x(i)) * x(i) &
         + anint(x(i)) * x(i)**2 + dim(x(i), 0.3d0) + hypot(u(i), x(i))
  end do
end subroutine rounding
