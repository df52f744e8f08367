! In the style of the OpenAD regression suite's array tests (not a copy).
! Exercises: FORALL with a mask, WHERE/ELSEWHERE on an active array,
! merge(), maxval.
! corpus: --sizes n=7 --init x=uniform(-1,1)
subroutine head(n, x, y, z)
  implicit none
  integer, intent(in) :: n
  double precision, intent(in) :: x(n)
  double precision, intent(out) :: y(n), z
  integer :: i
  forall (i = 1:n, x(i) > -0.5d0) y(i) = x(i) * x(i) * i
  where (x <= -0.5d0)
    y = 2.0d0 * x
  elsewhere (x > 0.8d0)
    y = y + sqrt(x)
  end where
  z = sum(merge(y, 0.0d0, y > 0.0d0)) + maxval(x)
end subroutine head
