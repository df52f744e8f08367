! 2-D finite-difference time domain, PolyBench/Fortran style: a source row from an
! array indexed by the time step, three coupled stencil updates.
! adjc check: --sizes tmax=3,nx=6,ny=7
subroutine fdtd_2d(tmax, nx, ny, ex, ey, hz, fict)
  implicit none
  integer :: tmax, nx, ny
  real(8) :: ex(ny, nx), ey(ny, nx), hz(ny, nx), fict(tmax)
  integer :: t, i, j

  do t = 1, tmax
    do j = 1, ny
      ey(j, 1) = fict(t)
    end do
    do i = 2, nx
      do j = 1, ny
        ey(j, i) = ey(j, i) - 0.5d0 * (hz(j, i) - hz(j, i - 1))
      end do
    end do
    do i = 1, nx
      do j = 2, ny
        ex(j, i) = ex(j, i) - 0.5d0 * (hz(j, i) - hz(j - 1, i))
      end do
    end do
    do i = 1, nx - 1
      do j = 1, ny - 1
        hz(j, i) = hz(j, i) - 0.7d0 * (ex(j + 1, i) - ex(j, i) + ey(j, i + 1) - ey(j, i))
      end do
    end do
  end do
end subroutine fdtd_2d
