! Integer arguments of non-default kinds (`integer(ik)`, `integer(int64)`, `integer*8`).
! The gfortran comparison passes them with the declared kinds.
! adjc check: --sizes n=7,m=3,k=2
module int_kinds_mod
  use iso_fortran_env, only: int64
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer, parameter :: ik = selected_int_kind(12)
contains
  subroutine int_kinds(n, m, k, x, y)
    integer(ik), intent(in) :: n
    integer(int64), intent(in) :: m
    integer*8, intent(in) :: k
    real(dp), intent(in) :: x(n)
    real(dp), intent(inout) :: y(n)
    integer :: i
    do i = 1, n
      y(i) = y(i) + m * x(i) ** 2 + k * x(i)
    end do
  end subroutine int_kinds
end module int_kinds_mod
