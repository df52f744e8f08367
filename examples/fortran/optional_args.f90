! Optional arguments as ecRad and IFS routines use them: a helper with `optional` dummies
! tested by `present()`, called with and without them, by position and by keyword. Each
! call is specialised to the arguments it passes (`present(offset)` is known there).
! adjc check: --sizes n=7
module profile_tools
  implicit none
  integer, parameter :: jprb = selected_real_kind(13, 300)
contains
  subroutine scale_profile(n, x, y, factor, offset)
    integer, intent(in) :: n
    real(jprb), intent(in) :: x(n)
    real(jprb), intent(out) :: y(n)
    real(jprb), intent(in), optional :: factor
    real(jprb), intent(in), optional :: offset(n)
    real(jprb) :: f
    integer :: i

    if (present(factor)) then
      f = factor
    else
      f = 1.0_jprb
    end if
    do i = 1, n
      y(i) = f * x(i) * x(i)
    end do
    if (present(offset)) y = y + offset
  end subroutine scale_profile

  subroutine profiles(n, x, w, y1, y2, y3)
    integer, intent(in) :: n
    real(jprb), intent(in) :: x(n), w(n)
    real(jprb), intent(out) :: y1(n), y2(n), y3(n)

    call scale_profile(n, x, y1)
    call scale_profile(n, x, y2, factor=w(1))
    call scale_profile(n, x, y3, 2.0_jprb, offset=w)
  end subroutine profiles
end module profile_tools
