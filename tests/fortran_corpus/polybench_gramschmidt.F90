! In the style of PolyBench/Fortran's gramschmidt kernel (not a copy).
! Exercises: sqrt of a sum, division by a norm, triangular loops, a
! scalar nrm local, three arrays of different shapes.
! corpus: -I inc --sizes m=6,n=4
subroutine kernel_gramschmidt(m, n, a, r, q)
#include "pb_fortran.h"
  implicit none
  integer :: m, n
  DATA_TYPE, dimension(n, m) :: a
  DATA_TYPE, dimension(n, n) :: r
  DATA_TYPE, dimension(n, m) :: q
  DATA_TYPE :: nrm
  integer :: i, j, k

!$pragma scop
  do k = 1, _PB_N
    nrm = 0.0d0
    do i = 1, _PB_M
      nrm = nrm + (a(k, i) * a(k, i))
    end do
    r(k, k) = sqrt(nrm)
    do i = 1, _PB_M
      q(k, i) = a(k, i) / r(k, k)
    end do
    do j = k + 1, _PB_N
      r(j, k) = 0.0d0
      do i = 1, _PB_M
        r(j, k) = r(j, k) + (q(k, i) * a(j, i))
      end do
      do i = 1, _PB_M
        a(j, i) = a(j, i) - (q(k, i) * r(j, k))
      end do
    end do
  end do
!$pragma endscop
end subroutine
