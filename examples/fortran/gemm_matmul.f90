! gemm with the matmul intrinsic and whole-array arithmetic, in a module with a kind
! parameter.
! adjc check: --sizes ni=7,nj=6,nk=5
module gemm_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains
  subroutine gemm_matmul(ni, nj, nk, alpha, beta, c, a, b)
    integer, intent(in) :: ni, nj, nk
    real(kind=dp), intent(in) :: alpha, beta
    real(kind=dp), intent(inout) :: c(ni, nj)
    real(kind=dp), intent(in) :: a(ni, nk), b(nk, nj)

    c = beta * c + alpha * matmul(a, b)
  end subroutine gemm_matmul
end module gemm_mod
