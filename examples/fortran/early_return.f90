! Early exits as real codes write them: `if (...) return` on integers and on data, a
! `return` at the end of a branch, a trailing `return` before `end`, and a helper with
! its own early return, inlined twice (its return is taken at the second call only), and
! one whose `if` has two branches that do not return (the rest runs under a flag).
! adjc check: --sizes n=10 --function early_return
module damping
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains
  subroutine damp(n, y, cap)
    integer, intent(in) :: n
    real(dp), intent(inout) :: y(n)
    real(dp), intent(in) :: cap
    real(dp) :: t
    integer :: i
    t = 0.0_dp
    do i = 1, n
      t = t + y(i) * y(i)
    end do
    if (t > cap) return
    do i = 1, n
      y(i) = y(i) * (1.0_dp - 0.1_dp * t)
    end do
    return
  end subroutine damp

  subroutine clip(n, y, lo)
    integer, intent(in) :: n
    real(dp), intent(inout) :: y(n)
    real(dp), intent(in) :: lo
    if (y(1) < lo) then
      y(1) = lo
      return
    else if (y(1) > 10.0_dp) then
      y(n) = y(n) * 0.5_dp
    end if
    y(2) = y(2) * y(1)
  end subroutine clip

  subroutine early_return(n, x, y, e)
    integer, intent(in) :: n
    real(dp), intent(in) :: x(n)
    real(dp), intent(inout) :: y(n)
    real(dp), intent(out) :: e
    integer :: i
    e = 0.0_dp
    if (n < 1) return
    do i = 1, n
      y(i) = y(i) + sin(x(i))
    end do
    call damp(n, y, 1.0e3_dp)
    call damp(n, y, -1.0_dp)
    call clip(n, y, -100.0_dp)
    call clip(n, y, 100.0_dp)
    e = y(1) * y(n)
    if (e > 1.0e6_dp) then
      e = 1.0e6_dp
      return
    else if (e < -1.0e6_dp) then
      e = -1.0e6_dp
      return
    end if
    do i = 1, n
      e = e + x(i) * y(i)
    end do
    if (abs(e) > 1.0e5_dp) return
    e = e * e
    return
  end subroutine early_return
end module damping
