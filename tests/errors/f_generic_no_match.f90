! expect: 23:5: no specific procedure of the generic `scale` takes these arguments
module scalers
  implicit none
  interface scale
    module procedure scale_s, scale_v
  end interface scale
contains
  subroutine scale_s(a, f)
    real(8), intent(inout) :: a
    real(8), intent(in) :: f
    a = a * f
  end subroutine scale_s
  subroutine scale_v(n, a, f)
    integer, intent(in) :: n
    real(8), intent(inout) :: a(n)
    real(8), intent(in) :: f
    a = a * f
  end subroutine scale_v
  subroutine head(n, x, f)
    integer, intent(in) :: n
    real(8), intent(inout) :: x(n, n)
    real(8), intent(in) :: f
    call scale(n, x, f)
  end subroutine head
end module scalers
