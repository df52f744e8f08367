! In the style of ecRad's radiation_delta_eddington (not a copy).
! Exercises: elemental subroutines with scalar intent(inout) dummies,
! called on whole arrays from another routine of the module, kind from
! parkind1.
! corpus: modules/parkind1.f90 --sizes ng=6,nlev=3 --init od=uniform(0.1,2) --init ssa=uniform(0.1,0.9) --init g=uniform(0,0.8)
module radiation_delta_eddington
  use parkind1, only : jprb
  implicit none
  public
contains

  elemental subroutine delta_eddington(od, ssa, g)
    real(jprb), intent(inout) :: od, ssa, g
    real(jprb) :: f
    f   = g*g
    od  = od * (1.0_jprb - ssa*f)
    ssa = ssa * (1.0_jprb - f) / (1.0_jprb - ssa*f)
    g   = g / (1.0_jprb + g)
  end subroutine delta_eddington

  subroutine delta_eddington_layers(ng, nlev, od, ssa, g)
    integer, intent(in) :: ng, nlev
    real(jprb), intent(inout), dimension(ng, nlev) :: od, ssa, g
    call delta_eddington(od, ssa, g)
  end subroutine delta_eddington_layers

end module radiation_delta_eddington
