! The IFS profiling switch as ecRad's routines see it (a stub of yomhook): adjc leaves
! `if (lhook) call dr_hook(...)` out whatever lhook's declaration.
module yomhook
  implicit none
  integer, parameter :: jphook = selected_real_kind(13, 300)
  logical :: lhook = .false.
contains
  subroutine dr_hook(name, kswitch, handle)
    character(len=*), intent(in) :: name
    integer, intent(in) :: kswitch
    real(jphook), intent(inout) :: handle
    if (kswitch < 0) print *, name, handle
  end subroutine dr_hook
end module yomhook
