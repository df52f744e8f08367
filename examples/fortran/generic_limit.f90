! A generic procedure in the style of ecRad's and OpenAD's modules: `interface smooth_limit`
! with module procedures for a scalar, a column and a field, resolved at each call by the
! number of arguments and their ranks (as the Fortran compiler does).
! adjc check: --sizes nlev=5,ncol=3 --init col=uniform(-2,2) --init field=uniform(-2,2) --init s=uniform(-2,2)
module smooth_limits
  implicit none
  integer, parameter :: jprb = selected_real_kind(13, 300)
  interface smooth_limit
    module procedure smooth_limit_scalar, smooth_limit_column, smooth_limit_field
  end interface smooth_limit
contains
  subroutine smooth_limit_scalar(x, cap)
    real(jprb), intent(inout) :: x
    real(jprb), intent(in) :: cap
    x = cap * tanh(x / cap)
  end subroutine smooth_limit_scalar

  subroutine smooth_limit_column(nlev, x, cap)
    integer, intent(in) :: nlev
    real(jprb), intent(inout) :: x(nlev)
    real(jprb), intent(in) :: cap
    integer :: jk
    do jk = 1, nlev
      x(jk) = cap * tanh(x(jk) / cap)
    end do
  end subroutine smooth_limit_column

  subroutine smooth_limit_field(nlev, ncol, x, cap)
    integer, intent(in) :: nlev, ncol
    real(jprb), intent(inout) :: x(nlev, ncol)
    real(jprb), intent(in) :: cap
    integer :: jk, jcol
    do jcol = 1, ncol
      do jk = 1, nlev
        call smooth_limit(x(jk, jcol), cap)
      end do
    end do
  end subroutine smooth_limit_field

  subroutine generic_limit(nlev, ncol, col, field, s)
    integer, intent(in) :: nlev, ncol
    real(jprb), intent(inout) :: col(nlev), field(nlev, ncol), s
    call smooth_limit(s, 1.5_jprb)
    call smooth_limit(nlev, col, 1.0_jprb)
    call smooth_limit(nlev, ncol, field, 0.5_jprb)
    s = s + sum(col) + sum(field)
  end subroutine generic_limit
end module smooth_limits
