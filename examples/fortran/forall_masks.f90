! Masked array assignments as the OpenAD array tests and older ocean codes write them:
! a `forall` with a mask over two indices, a `forall` construct of two assignments (each
! done for every index before the next), and `where` / `elsewhere (mask)` / `elsewhere`.
! adjc check: --sizes n=5,m=4 --init a=uniform(-1,1) --init b=uniform(0.5,1.5)
subroutine forall_masks(n, m, a, b, c, d)
  implicit none
  integer, intent(in) :: n, m
  real(8), intent(in) :: a(n, m), b(n)
  real(8), intent(out) :: c(n, m), d(n)
  integer :: i, j
  c = 0.0d0
  forall (i = 1:n, j = 1:m, a(i, j) > -0.5d0) c(i, j) = a(i, j) * b(i) * j
  forall (i = 1:n)
    d(i) = sum(c(i, :)) + b(i)
    c(i, 1) = c(i, 1) + d(i) * d(i)
  end forall
  where (b < 0.8d0)
    d = -d * b
  elsewhere (b > 1.2d0)
    d = sqrt(d * d + 1.0d0)
  elsewhere
    d = d * d
  end where
end subroutine forall_masks
