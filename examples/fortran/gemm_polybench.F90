! PolyBench gemm as PolyBench/Fortran writes it: the sizes and the element type are C
! preprocessor macros (`.F90`: adjc runs cpp as gfortran does; `-D NI=7` overrides a
! size), no intent. Arrays are indexed transposed (c(j, i) is row i, column j).
! adjc check: -D NI=7 -D NJ=6 -D NK=5
#ifndef NI
#define NI 20
#endif
#ifndef NJ
#define NJ 25
#endif
#ifndef NK
#define NK 30
#endif
#define DATA_TYPE double precision

subroutine kernel_gemm(alpha, beta, c, a, b)
  implicit none
  DATA_TYPE :: alpha, beta
  DATA_TYPE :: c(NJ, NI), a(NK, NI), b(NJ, NK)
  integer :: i, j, k

  do i = 1, NI
    do j = 1, NJ
      c(j, i) = c(j, i) * beta
    end do
    do k = 1, NK
      do j = 1, NJ
        c(j, i) = c(j, i) + alpha * a(k, i) * b(j, k)
      end do
    end do
  end do
end subroutine kernel_gemm
