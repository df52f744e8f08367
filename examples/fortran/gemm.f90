! C = alpha*A*B + beta*C, PolyBench/Fortran style: real(8), no intent, indices written
! transposed as PolyBench does (c(j, i) is row i, column j).
! adjc check: --sizes ni=7,nj=6,nk=5
subroutine gemm(ni, nj, nk, alpha, beta, c, a, b)
  implicit none
  integer :: ni, nj, nk
  real(8) :: alpha, beta
  real(8) :: c(nj, ni), a(nk, ni), b(nj, nk)
  integer :: i, j, k

  do i = 1, ni
    do j = 1, nj
      c(j, i) = c(j, i) * beta
    end do
    do k = 1, nk
      do j = 1, nj
        c(j, i) = c(j, i) + alpha * a(k, i) * b(j, k)
      end do
    end do
  end do
end subroutine gemm
