! Early exits in loops: `cycle` skips entries, a named `exit` leaves two loops at once,
! `exit` ends a `do` loop without bounds, and `return` inside a loop ends the routine.
! adjc check: --sizes n=8,m=6 --max-trips L2=100
subroutine search_exit(n, m, a, w, s)
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, intent(in) :: n, m
  real(dp), intent(in) :: a(n, m), w(n)
  real(dp), intent(out) :: s
  real(dp) :: t, p
  integer :: i, j, k
  s = 0.0_dp
  outer: do j = 1, m
    do i = 1, n
      if (w(i) < 0.0_dp) cycle
      s = s + w(i) * a(i, j) * a(i, j)
      if (s > 2.0_dp) exit outer
    end do
  end do outer
  ! A `do` without bounds: halve until small.
  t = s
  k = 0
  do
    if (abs(t) < 1.0e-3_dp) exit
    t = 0.5_dp * t + 0.1_dp * sin(t)
    k = k + 1
    if (k >= 100) exit
  end do
  s = s + t
  do j = 1, m
    p = a(1, j) * s
    if (p > 1.0_dp) then
      s = 0.5_dp * s + p
      return
    end if
    s = s + 0.01_dp * p
  end do
  s = s * 2.0_dp
end subroutine search_exit
