! In the style of PolyBench/Fortran's gemver kernel (not a copy).
! Exercises: cpp macros, four loop nests updating a matrix and vectors,
! transposed access a(j, i), scalar alpha/beta dummies.
! corpus: -I inc --sizes n=6
subroutine kernel_gemver(n, alpha, beta, a, u1, v1, u2, v2, w, x, y, z)
#include "pb_fortran.h"
  implicit none
  integer :: n
  DATA_TYPE :: alpha, beta
  DATA_TYPE, dimension(n, n) :: a
  DATA_TYPE, dimension(n) :: u1, u2, v1, v2, w, x, y, z
  integer :: i, j

!$pragma scop
  do i = 1, _PB_N
    do j = 1, _PB_N
      a(j, i) = a(j, i) + (u1(i) * v1(j)) + (u2(i) * v2(j))
    end do
  end do
  do i = 1, _PB_N
    do j = 1, _PB_N
      x(i) = x(i) + (beta * a(i, j) * y(j))
    end do
  end do
  do i = 1, _PB_N
    x(i) = x(i) + z(i)
  end do
  do i = 1, _PB_N
    do j = 1, _PB_N
      w(i) = w(i) + (alpha * a(j, i) * x(j))
    end do
  end do
!$pragma endscop
end subroutine
