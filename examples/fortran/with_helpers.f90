! A kernel calling helpers from the same file: a subroutine that updates an array in
! place and an elemental (pure) function of scalars, also applied element by element to arrays.
! Both are inlined and differentiated with the kernel; the timer calls are left out.
! adjc check: --sizes n=10,nsteps=3 --function with_helpers
module physics
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains
  elemental function flux(a, b, c) result(f)
    real(dp), intent(in) :: a, b, c
    real(dp) :: f
    f = c * (b - a) + 0.1_dp * a * b
  end function flux

  subroutine relax(n, u, w, c)
    integer, intent(in) :: n
    real(dp), intent(inout) :: u(n)
    real(dp), intent(in) :: w(n)
    real(dp), intent(in) :: c
    integer :: i
    do i = 2, n - 1
      u(i) = u(i) + flux(u(i - 1), u(i + 1), c) * w(i)
    end do
  end subroutine relax

  subroutine with_helpers(n, nsteps, u, w, c)
    integer, intent(in) :: n, nsteps
    real(dp), intent(inout) :: u(n)
    real(dp), intent(in) :: w(n)
    real(dp), intent(in) :: c
    integer :: t
    real(dp) :: t_start, t_end
    call cpu_time(t_start)
    do t = 1, nsteps
      call relax(n, u, w, c * 0.5_dp)
      u = u - 0.01_dp * flux(u, w, c)
    end do
    call cpu_time(t_end)
  end subroutine with_helpers
end module physics
