! In the style of the OpenAD regression suite's function tests (not a
! copy). Exercises: a pure function and an elemental function in a module,
! the elemental one applied to whole arrays and sections, a function
! result used in an expression.
! corpus: --sizes n=6 --init x=uniform(0.1,1)
module funcs
  implicit none
contains
  pure function sq(a) result(b)
    double precision, intent(in) :: a
    double precision :: b
    b = a*a
  end function sq
  elemental function soft(a) result(b)
    double precision, intent(in) :: a
    double precision :: b
    b = log(1.0d0 + exp(a))
  end function soft
  subroutine head(n, x, y, s)
    integer, intent(in) :: n
    double precision, intent(in) :: x(n)
    double precision, intent(out) :: y(n), s
    integer :: i
    y = soft(x)
    y(2:n) = y(2:n) + soft(x(1:n-1))
    s = 0.0d0
    do i = 1, n
      s = s + sq(y(i))
    end do
  end subroutine head
end module funcs
