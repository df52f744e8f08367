! In the style of ecRad's calc_two_stream_gammas_sw (not a copy).
! Exercises: parkind1 kinds, the lhook/dr_hook pattern with a module
! logical, `use ..., only:`, intent(out) arrays, a spectral loop.
! corpus: modules/parkind1.f90 modules/yomhook.f90 --sizes ng=6,ssa_n0=6,g_n0=6,gamma1_n0=6,gamma2_n0=6,gamma3_n0=6 --init ssa=uniform(0.1,0.9) --init g=uniform(0,0.8) --init mu0=const(0.5)
module radiation_two_stream_sw
contains
  subroutine calc_two_stream_gammas_sw(ng, mu0, ssa, g, &
       &                               gamma1, gamma2, gamma3)

    use parkind1, only : jprb
    use yomhook,  only : lhook, dr_hook, jphook

    implicit none

    integer, intent(in) :: ng
    real(jprb), intent(in)  :: mu0
    real(jprb), intent(in),  dimension(:) :: ssa, g
    real(jprb), intent(out), dimension(:) :: gamma1, gamma2, gamma3

    real(jprb) :: factor
    integer    :: jg
    real(jphook) :: hook_handle

    if (lhook) call dr_hook('radiation_two_stream:calc_two_stream_gammas_sw',0,hook_handle)

    do jg = 1, ng
      factor = 0.75_jprb*g(jg)
      gamma1(jg) = 2.0_jprb  - ssa(jg) * (1.25_jprb + factor)
      gamma2(jg) = ssa(jg) * (0.75_jprb - factor)
      gamma3(jg) = 0.5_jprb  - mu0*factor
    end do

    if (lhook) call dr_hook('radiation_two_stream:calc_two_stream_gammas_sw',1,hook_handle)

  end subroutine calc_two_stream_gammas_sw
end module radiation_two_stream_sw
