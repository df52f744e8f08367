! A function returning a scalar: sum and dot_product on sections, a sum of squares,
! real*8 declarations and a parameter constant.
! adjc check: --sizes n=9,m=5
real*8 function energy(n, m, q, p)
  implicit none
  integer n, m
  real*8 q(m, n), p(n)
  real*8, parameter :: c = 0.25d0
  real*8 e
  integer j

  e = 0.0d0
  do j = 1, n
    e = e + c * sum(q(:, j) ** 2) + p(j) * dot_product(q(2:m, j), q(1:m - 1, j))
  end do
  energy = e + maxval(p) * 1.0d-1
end function energy
