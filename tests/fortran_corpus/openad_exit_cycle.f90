! In the style of the OpenAD regression suite's loop tests (not a copy).
! Exercises: EXIT out of a DO loop on a data condition, CYCLE to skip
! elements, a named loop, accumulations.
! corpus: --sizes n=8 --init x=uniform(-1,1)
subroutine partial_sums(n, x, s, t)
  implicit none
  integer, intent(in) :: n
  double precision, intent(in) :: x(n)
  double precision, intent(out) :: s, t
  integer :: i
  s = 0.0d0
  t = 0.0d0
  outer: do i = 1, n
    if (x(i) < -0.9d0) exit outer
    if (x(i) < 0.0d0) cycle outer
    s = s + x(i)*x(i)
    t = t + sin(x(i))
  end do outer
end subroutine partial_sums
