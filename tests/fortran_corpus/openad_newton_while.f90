! In the style of the OpenAD regression suite's loop tests (not a copy):
! a Newton iteration for sqrt(a). Exercises: DO WHILE with a data-
! dependent exit condition, abs, an iteration cap with an integer counter.
! corpus: --init a=uniform(1,4)
subroutine newton_sqrt(a, x)
  implicit none
  double precision, intent(in) :: a
  double precision, intent(out) :: x
  double precision :: dx
  integer :: it
  x = a
  dx = 1.0d0
  it = 0
  do while (abs(dx) > 1.0d-12 .and. it < 50)
    dx = (x*x - a) / (2.0d0*x)
    x = x - dx
    it = it + 1
  end do
end subroutine newton_sqrt
