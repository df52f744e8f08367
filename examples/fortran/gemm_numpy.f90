! gemm written as NumPy writes it (examples/python/gemm.py: C[:] = alpha * A @ B + beta * C):
! the same IR up to layout (a work array for alpha * a, one gemm, one map), the same
! gradients on the same (transposed) data; adjc/tests/fortran_vs_numpy.rs compares them.
! adjc check: --sizes ni=7,nj=6,nk=5
subroutine gemm_numpy(ni, nj, nk, alpha, beta, c, a, b)
  implicit none
  integer :: ni, nj, nk
  real(8) :: alpha, beta
  real(8) :: c(ni, nj), a(ni, nk), b(nk, nj)

  c = matmul(alpha * a, b) + beta * c
end subroutine gemm_numpy
