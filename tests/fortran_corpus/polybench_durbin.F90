! In the style of PolyBench/Fortran's durbin kernel (not a copy) as in
! PolyBench/Fortran 1.0: a 2-D y work array and scalar recurrences.
! Exercises: cpp macros, loop bounds k-1, a scalar sum reset each step,
! division by a recurrence-updated beta.
! corpus: -I inc --sizes n=6 --init r=uniform(-0.3,0.3)
subroutine kernel_durbin(n, y, sumarray, alpha, beta, r, out)
#include "pb_fortran.h"
  implicit none
  integer :: n
  DATA_TYPE, dimension(n, n) :: y, sumarray
  DATA_TYPE, dimension(n) :: alpha, beta, r, out
  integer :: i, k

!$pragma scop
  y(1, 1) = r(1)
  beta(1) = 1.0d0
  alpha(1) = r(1)
  do k = 2, _PB_N
    beta(k) = beta(k - 1) - (alpha(k - 1) * alpha(k - 1) * beta(k - 1))
    sumarray(1, k) = r(k)
    do i = 1, k - 1
      sumarray(i + 1, k) = sumarray(i, k) + (r(k - i) * y(i, k - 1))
    end do
    alpha(k) = -1.0d0 * sumarray(k, k) * beta(k)
    do i = 1, k - 1
      y(i, k) = y(i, k - 1) + (alpha(k) * y(k - i, k - 1))
    end do
    y(k, k) = alpha(k)
  end do
  do i = 1, _PB_N
    out(i) = y(i, _PB_N)
  end do
!$pragma endscop
end subroutine
