! 2-D Jacobi stencil whose weights come from an include file (`include 'jacobi_weights.inc'`,
! found next to this file): adjc expands the line as gfortran does, and diagnostics
! still point at the lines of this file.
! adjc check: --sizes n=10,tsteps=3
subroutine jacobi_2d_include(tsteps, n, a, b)
  implicit none
  include 'jacobi_weights.inc'
  integer :: tsteps, n
  real(8) :: a(n, n), b(n, n)
  integer :: t, i, j

  do t = 1, tsteps
    do i = 2, n - 1
      do j = 2, n - 1
        b(j, i) = w_center * a(j, i) + w_side * (a(j - 1, i) + a(j + 1, i) + a(j, i + 1) + a(j, i - 1))
      end do
    end do
    do i = 2, n - 1
      do j = 2, n - 1
        a(j, i) = w_center * b(j, i) + w_side * (b(j - 1, i) + b(j + 1, i) + b(j, i + 1) + b(j, i - 1))
      end do
    end do
  end do
end subroutine jacobi_2d_include
