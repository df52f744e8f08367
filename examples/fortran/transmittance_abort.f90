! ecRad-style input checks that stop the program: `radiation_abort` (a module routine of
! another file that writes a message and executes `error stop`) called when an optical
! property is out of its physical range, inside the column and level loops, and a plain
! `stop` on a bad size. adjc turns each stop into a return of ADJC_ERR_STOP (5) by the C
! function and by its adjoint, at the point where the original stops the program; the
! drop-in wrapper passes that on as `stat` or stops with a message. On good input nothing
! changes. The loops holding a stop stay sequential.
! adjc check: examples/fortran/modules/radiation_io.f90 --sizes ncol=5,nlev=4 --init od=uniform(0.1,1) --init ssa=uniform(0.1,0.9)
subroutine transmittance(ncol, nlev, od, ssa, trans)
  use radiation_io, only: nulerr, radiation_abort
  implicit none
  integer, intent(in) :: ncol, nlev
  real(8), intent(in) :: od(ncol, nlev), ssa(ncol, nlev)
  real(8), intent(out) :: trans(ncol)
  integer :: jcol, jlev
  real(8) :: tau

  if (nlev < 1) stop 'transmittance: no levels'
  do jcol = 1, ncol
    tau = 0.0d0
    do jlev = 1, nlev
      if (od(jcol, jlev) < 0.0d0 .or. ssa(jcol, jlev) > 1.0d0) then
        write(nulerr, '(a,i0,a,i0)') '*** Error: bad optics in column ', jcol, &
             &                       ', level ', jlev
        call radiation_abort('transmittance: optical property out of range')
      end if
      tau = tau + od(jcol, jlev) * (1.0d0 - ssa(jcol, jlev))
    end do
    trans(jcol) = exp(-tau)
  end do
end subroutine transmittance
