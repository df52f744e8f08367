! Module state of the ecRad-style example: a kind, a scaling profile read by the
! routine and a running total it updates (module variables, not parameters).
module radiation_state
  implicit none
  integer, parameter :: jprb = selected_real_kind(13, 300)
  integer, parameter :: nlev_max = 6
  real(jprb) :: od_scale(nlev_max)
  real(jprb) :: total_scaled
end module radiation_state
