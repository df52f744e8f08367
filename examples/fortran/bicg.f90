! BiCG sub-kernel: s = A^T r, q = A p, PolyBench/Fortran style.
! adjc check: --sizes m=6,n=7
subroutine bicg(m, n, a, s, q, p, r)
  implicit none
  integer :: m, n
  real(8) :: a(m, n), s(m), q(n), p(m), r(n)
  integer :: i, j

  do i = 1, m
    s(i) = 0.0d0
  end do
  do i = 1, n
    q(i) = 0.0d0
    do j = 1, m
      s(j) = s(j) + r(i) * a(j, i)
      q(i) = q(i) + a(j, i) * p(j)
    end do
  end do
end subroutine bicg
