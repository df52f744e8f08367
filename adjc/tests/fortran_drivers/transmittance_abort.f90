! Calls the original `transmittance` (examples/fortran/transmittance_abort.f90, compiled by
! gfortran) and its adjoint through the drop-in wrapper: on good input the wrapper's
! forward outputs equal the original's and the adjoint is d trans(j) / d od(j, k) =
! -(1 - ssa(j, k)) trans(j); on an optical depth out of range, where the original would
! `error stop`, the adjoint returns stat = 5 (ADJC_ERR_STOP).
program drive_transmittance
  use transmittance_abort_adjc_wrap, only: transmittance_b
  implicit none
  integer, parameter :: ncol = 3, nlev = 2
  real(8) :: od(ncol, nlev), ssa(ncol, nlev), trans(ncol), ref(ncol)
  real(8) :: od_b(ncol, nlev), ssa_b(ncol, nlev), trans_b(ncol)
  integer :: ierr, j, k

  do k = 1, nlev
    do j = 1, ncol
      od(j, k) = 0.1d0 * j + 0.2d0 * k
      ssa(j, k) = 0.05d0 * j + 0.1d0 * k
    end do
  end do
  call transmittance(ncol, nlev, od, ssa, ref)

  od_b = 0.0d0
  ssa_b = 0.0d0
  trans_b = 1.0d0
  call transmittance_b(ncol, nlev, od, od_b, ssa, ssa_b, trans, trans_b, stat=ierr)
  if (ierr /= 0) error stop 'good input: stat is not 0'
  if (maxval(abs(trans - ref)) > 1.0d-15) error stop 'forward outputs differ from the original'
  do k = 1, nlev
    do j = 1, ncol
      if (abs(od_b(j, k) + (1.0d0 - ssa(j, k)) * ref(j)) > 1.0d-14) error stop 'adjoint of od'
      if (abs(ssa_b(j, k) - od(j, k) * ref(j)) > 1.0d-14) error stop 'adjoint of ssa'
    end do
  end do

  od(2, 2) = -1.0d0
  call transmittance_b(ncol, nlev, od, od_b, ssa, ssa_b, trans, trans_b, stat=ierr)
  if (ierr /= 5) error stop 'an optical depth out of range: stat is not 5 (ADJC_ERR_STOP)'
  print '(a)', 'fortran driver ok'
end program drive_transmittance
