! D = alpha A B C + beta D, PolyBench/Fortran style (2mm), tmp an argument.
! adjc check: --sizes ni=5,nj=6,nk=4,nl=3
subroutine k2mm(ni, nj, nk, nl, alpha, beta, tmp, a, b, c, d)
  implicit none
  integer :: ni, nj, nk, nl
  real(8) :: alpha, beta
  real(8) :: tmp(nj, ni), a(nk, ni), b(nj, nk), c(nl, nj), d(nl, ni)
  integer :: i, j, k

  do i = 1, ni
    do j = 1, nj
      tmp(j, i) = 0.0d0
      do k = 1, nk
        tmp(j, i) = tmp(j, i) + alpha * a(k, i) * b(j, k)
      end do
    end do
  end do
  do i = 1, ni
    do j = 1, nl
      d(j, i) = d(j, i) * beta
      do k = 1, nj
        d(j, i) = d(j, i) + tmp(k, i) * c(j, k)
      end do
    end do
  end do
end subroutine k2mm
