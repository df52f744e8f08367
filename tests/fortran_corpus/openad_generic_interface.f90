! In the style of the OpenAD regression suite's interface tests (not a
! copy). Exercises: a generic INTERFACE with MODULE PROCEDUREs for a
! scalar and a vector version, both called from the kernel.
! corpus: --sizes n=5 --init x=uniform(0.1,1)
module scalers
  implicit none
  interface scale
    module procedure scale_s, scale_v
  end interface scale
contains
  subroutine scale_s(a, f)
    double precision, intent(inout) :: a
    double precision, intent(in) :: f
    a = a * f
  end subroutine scale_s
  subroutine scale_v(n, a, f)
    integer, intent(in) :: n
    double precision, intent(inout) :: a(n)
    double precision, intent(in) :: f
    integer :: i
    do i = 1, n
      a(i) = a(i) * f
    end do
  end subroutine scale_v
  subroutine head(n, x, s, f)
    integer, intent(in) :: n
    double precision, intent(inout) :: x(n), s
    double precision, intent(in) :: f
    call scale(n, x, f)
    call scale(s, f)
    s = s + sum(x)
  end subroutine head
end module scalers
