! Vector subscripts: a gather through an index array, whole (x(idx)) and element by
! element (x(idx(i)) in a loop), a scatter y(perm) = ... and an edge loop that scatters
! fluxes into cells (cell(e, 1), cell(e, 2)). The index arrays are inputs; adjc check draws
! them over the axes they index (1..n), and checks them on entry.
! adjc check: --sizes n=9,k=12,ne=16 --init perm=permutation(9)
subroutine vector_subscripts(n, k, ne, x, w, idx, perm, cell, g, y, r)
  implicit none
  integer, intent(in) :: n, k, ne
  real(8), intent(in) :: x(n), w(k)
  integer, intent(in) :: idx(k), perm(n), cell(ne, 2)
  real(8), intent(out) :: g(k), y(n), r(n)
  integer :: i, e
  real(8) :: f
  g = x(idx) * w
  do i = 1, k
    g(i) = g(i) + sin(x(idx(i))) * w(i)
  end do
  y = 0.0d0
  y(perm) = x * x + x(perm)
  r = 0.0d0
  do e = 1, ne
    f = x(cell(e, 1)) * x(cell(e, 2))
    r(cell(e, 1)) = r(cell(e, 1)) - f
    r(cell(e, 2)) = r(cell(e, 2)) + f
  end do
end subroutine
