! Symmetric rank-2k update on the lower triangle, PolyBench/Fortran style:
! triangular loops (j <= i).
! adjc check: --sizes n=7,m=5
subroutine syr2k(n, m, alpha, beta, c, a, b)
  implicit none
  integer :: n, m
  real(8) :: alpha, beta
  real(8) :: c(n, n), a(m, n), b(m, n)
  integer :: i, j, k

  do i = 1, n
    do j = 1, i
      c(j, i) = c(j, i) * beta
    end do
    do k = 1, m
      do j = 1, i
        c(j, i) = c(j, i) + a(k, j) * alpha * b(k, i) + b(k, j) * alpha * a(k, i)
      end do
    end do
  end do
end subroutine syr2k
