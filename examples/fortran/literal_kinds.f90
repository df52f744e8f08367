! Literal kinds and conversions as gfortran computes them: a default-real literal is single
! precision (0.1 is 0.100000001490116... also in double precision arithmetic), `1.0d0`,
! `1.0_8` and `1.0_dp` are double; `real(x)` rounds to single precision, `real(x, 8)`,
! `real(x, kind=dp)` and `dble(x)` do not.
! adjc check: --sizes n=9
subroutine literal_kinds(n, x, y)
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, intent(in) :: n
  real(dp), intent(in) :: x(n)
  real(dp), intent(out) :: y(n)
  real :: third
  integer :: i
  third = 1.0 / 3.0
  do i = 1, n
    y(i) = 0.1 * x(i) + 0.33333 * x(i)**2 + real(x(i), kind=8) * 1.0_dp + real(x(i), dp) * 1.0d-1 &
         + x(i) * real(i) * 0.2_8 + x(i) * dble(real(i) / 7) * 1.0e-1_dp + real(0.7d0) * x(i) &
         + third * x(i) + real(0.3d0, kind=4) * real(0.3d0, 8) * x(i)
  end do
end subroutine literal_kinds
