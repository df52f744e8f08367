! expect: 11:13: cannot prove that this index of `x` stays inside the array: it depends on `k`, which changes during the call
subroutine k_counter(n, x, y)
  implicit none
  integer, intent(in) :: n
  real(8), intent(in) :: x(n)
  real(8), intent(out) :: y
  integer :: i, k
  k = 0
  do i = 1, n
    k = k + 1
    y = y + x(k)
  end do
end subroutine
