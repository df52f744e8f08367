! An ecRad-style routine: the dr_hook pattern, kinds from a module, and module
! variables as state. adjc passes `od_scale` (read: an input) and `total_scaled`
! (updated) as parameters radiation_state_od_scale and radiation_state_total_scaled.
! adjc check: examples/fortran/modules/yomhook.f90 examples/fortran/modules/radiation_state.f90 --sizes ncol=4,nlev=6
subroutine scale_optical_depth(ncol, nlev, od, flux)
  use yomhook, only: lhook, dr_hook, jphook
  use radiation_state, only: od_scale, total_scaled, jprb
  implicit none
  integer, intent(in) :: ncol, nlev
  real(jprb), intent(inout) :: od(ncol, nlev)
  real(jprb), intent(out) :: flux(ncol)
  real(jphook) :: hook_handle
  integer :: jcol, jlev

  if (lhook) call dr_hook('radiation_scale:scale_optical_depth', 0, hook_handle)

  do jcol = 1, ncol
    flux(jcol) = 0.0_jprb
  end do
  do jlev = 1, nlev
    do jcol = 1, ncol
      od(jcol, jlev) = od_scale(jlev) * od(jcol, jlev)
      flux(jcol) = flux(jcol) + exp(-od(jcol, jlev))
    end do
  end do
  do jcol = 1, ncol
    total_scaled = total_scaled + flux(jcol)
  end do

  if (lhook) call dr_hook('radiation_scale:scale_optical_depth', 1, hook_handle)
end subroutine scale_optical_depth
