! In the style of PolyBench/Fortran's lu kernel (not a copy). Exercises:
! cpp macros (DATA_TYPE, _PB_N) from an #include'd header, !$pragma scop
! comments, in-place LU of an active matrix with triangular loops.
! corpus: -I inc --sizes n=6 --init a=diagdom
subroutine kernel_lu(n, a)
#include "pb_fortran.h"
  implicit none
  integer :: n
  DATA_TYPE, dimension(n, n) :: a
  integer :: i, j, k

!$pragma scop
  do k = 1, _PB_N
    do j = k + 1, _PB_N
      a(k, j) = a(k, j) / a(k, k)
    end do
    do i = k + 1, _PB_N
      do j = k + 1, _PB_N
        a(i, j) = a(i, j) - (a(i, k) * a(k, j))
      end do
    end do
  end do
!$pragma endscop
end subroutine
