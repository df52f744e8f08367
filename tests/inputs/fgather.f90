! A Fortran gather: the 1-based indices idx come from adjc check --inputs (npz_inputs.rs).
subroutine fgather(n, m, x, idx, y)
  integer, intent(in) :: n, m
  real(8), intent(in) :: x(m)
  integer, intent(in) :: idx(n)
  real(8), intent(out) :: y(n)
  integer :: i
  do i = 1, n
    y(i) = x(idx(i))**2
  end do
end subroutine
