! Two-stream coefficients in ecRad's style: an `elemental` subroutine written on scalars
! (intent(in) optical depth and albedo, intent(out) coefficients) is called on whole
! (g-point, level) arrays with a scalar cosine broadcast to every element; adjc loops over
! the arrays and inlines the subroutine on the elements.
! adjc check: --sizes ng=4,nlev=3 --init od=uniform(0.1,2) --init ssa=uniform(0.1,0.9) --init mu0=const(0.6)
module two_stream_gammas
  implicit none
  integer, parameter :: jprb = selected_real_kind(13, 300)
contains
  elemental subroutine calc_gammas(od, ssa, mu0, gamma1, gamma2)
    real(jprb), intent(in) :: od, ssa, mu0
    real(jprb), intent(out) :: gamma1, gamma2
    real(jprb) :: factor
    factor = 0.75_jprb * ssa / max(mu0, 0.01_jprb)
    gamma1 = 2.0_jprb - ssa * (1.25_jprb + factor) * exp(-od)
    gamma2 = ssa * (0.75_jprb - factor) * (1.0_jprb - exp(-od))
  end subroutine calc_gammas

  subroutine elemental_gammas(ng, nlev, mu0, od, ssa, gamma1, gamma2)
    integer, intent(in) :: ng, nlev
    real(jprb), intent(in) :: mu0
    real(jprb), intent(in) :: od(ng, nlev), ssa(ng, nlev)
    real(jprb), intent(out) :: gamma1(ng, nlev), gamma2(ng, nlev)
    call calc_gammas(od, ssa, mu0, gamma1, gamma2)
  end subroutine elemental_gammas
end module two_stream_gammas
