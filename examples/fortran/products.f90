! Matrix products as BLAS calls in both sweeps (the IR NumPy's `@` gives): an updating
! gemm, a gemv, a vector-matrix product with a transpose, and dot products, one of them
! on matrix rows inside a loop.
! adjc check: --sizes n=6,m=5
subroutine products(n, m, a, b, x, c, y, z, s, t)
  implicit none
  integer, intent(in) :: n, m
  real(8), intent(in) :: a(n, m), b(m, n), x(m)
  real(8), intent(inout) :: c(n, n)
  real(8), intent(out) :: y(n), z(n), t(n), s
  integer :: i

  c = c + 2.0d0 * matmul(a, b)
  y = matmul(a, x)
  z = matmul(x, transpose(a)) + y
  s = dot_product(x(1:m), x(1:m))
  do i = 1, n
    t(i) = dot_product(a(i, :), x) * y(i)
  end do
end subroutine products
