! ecRad-style diagnostics around the math: a `character` dummy (the caller's label),
! a character constant, `write`/`print` of values under a verbosity switch, and a
! helper taking text. adjc leaves the text and the output statements out (with notes):
! no value of the kernel flows through them. The C has no `label` parameter.
! adjc check: --sizes ncol=5,iverbose=2
subroutine print_summary(label, n, x)
  implicit none
  character(len=*), intent(in) :: label
  integer, intent(in) :: n
  real(8), intent(inout) :: x(n)
  write(*, '(a,a,es12.4)') trim(label), ': mean ', sum(x) / n
  x(1) = 0.5d0 * x(1)
end subroutine print_summary

subroutine radiation_diag(ncol, label, iverbose, od, flux)
  implicit none
  integer, intent(in) :: ncol, iverbose
  character(len=*), intent(in) :: label
  real(8), intent(in) :: od(ncol)
  real(8), intent(out) :: flux(ncol)
  character(len=*), parameter :: thisroutine = 'radiation_diag'
  integer :: jcol

  if (iverbose >= 3) write(*, '(a,a,a)') thisroutine, ': ', label
  do jcol = 1, ncol
    flux(jcol) = exp(-od(jcol)) * (1.0d0 + od(jcol)**2)
  end do
  if (iverbose >= 4) then
    print *, 'flux range ', minval(flux), maxval(flux)
  end if
  if (iverbose >= 2) call print_summary(label, ncol, flux)
end subroutine radiation_diag
