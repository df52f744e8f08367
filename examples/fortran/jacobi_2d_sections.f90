! 2-D Jacobi written as NumPy writes it (examples/python/jacobi_2d.py), with array
! sections: the same IR up to layout (a time loop around two 2-D maps), the same gradients
! on the same data; adjc/tests/fortran_vs_numpy.rs compares them.
! adjc check: --sizes n=12,tsteps=3
subroutine jacobi_2d_sections(tsteps, n, a, b)
  implicit none
  integer :: tsteps, n
  real(8) :: a(n, n), b(n, n)
  integer :: t

  do t = 1, tsteps
    b(2:n-1, 2:n-1) = 0.2d0 * (a(2:n-1, 2:n-1) + a(1:n-2, 2:n-1) + a(3:n, 2:n-1) + a(2:n-1, 3:n) + a(2:n-1, 1:n-2))
    a(2:n-1, 2:n-1) = 0.2d0 * (b(2:n-1, 2:n-1) + b(1:n-2, 2:n-1) + b(3:n, 2:n-1) + b(2:n-1, 3:n) + b(2:n-1, 1:n-2))
  end do
end subroutine jacobi_2d_sections
