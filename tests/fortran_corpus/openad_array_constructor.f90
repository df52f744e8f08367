! In the style of the OpenAD regression suite's array tests (not a copy).
! Exercises: array constructors (/ ... /) and [ ... ] with active items,
! an implied-do constructor, whole-array arithmetic, sum() of a product.
! corpus: --init x=uniform(0.5,1.5)
subroutine head(x, y)
  implicit none
  double precision, intent(in) :: x(3)
  double precision, intent(out) :: y(4)
  double precision :: w(3), v(4)
  integer :: i
  w = (/ x(1)*x(2), sin(x(3)), x(1) + x(3) /)
  v = [ (x(mod(i,3)+1) * i, i = 1, 4) ]
  y = v * sum(w * x)
end subroutine head
