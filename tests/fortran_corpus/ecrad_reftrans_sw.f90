! In the style of ecRad's calc_reflectance_transmittance_sw (not a copy).
! Exercises: intrinsic-heavy physics (exp, sqrt, max, min), a 70-line
! routine with many temporaries, explicit-shape dummies sized by ng,
! kind literals, the lhook pattern, intent(out) arrays.
! corpus: modules/parkind1.f90 modules/yomhook.f90 --sizes ng=5 --init od=uniform(0.1,2) --init gamma1=uniform(1.2,1.8) --init gamma2=uniform(0.05,0.3) --init gamma3=uniform(0.2,0.5) --init mu0=const(0.6)
module radiation_reftrans
contains
  subroutine calc_reflectance_transmittance_sw(ng, mu0, od, ssa, &
       &      gamma1, gamma2, gamma3, ref_diff, trans_diff, &
       &      ref_dir, trans_dir_diff, trans_dir_dir)

    use parkind1, only : jprb, jprd
    use yomhook,  only : lhook, dr_hook, jphook

    implicit none

    integer, intent(in) :: ng
    real(jprb), intent(in) :: mu0
    real(jprb), intent(in), dimension(ng) :: od, ssa
    real(jprb), intent(in), dimension(ng) :: gamma1, gamma2, gamma3
    real(jprb), intent(out), dimension(ng) :: ref_dir, trans_dir_diff
    real(jprb), intent(out), dimension(ng) :: ref_diff, trans_diff
    real(jprb), intent(out), dimension(ng) :: trans_dir_dir

    real(jprd) :: gamma4, alpha1, alpha2, k_exponent
    real(jprd) :: reftrans_factor, factor
    real(jprd) :: exponential
    real(jprd) :: exponential2
    real(jprd) :: k_mu0, k_gamma3, k_gamma4
    real(jprd) :: k_2_exponential, one_minus_kmu0_sqr
    integer    :: jg
    real(jphook) :: hook_handle

    if (lhook) call dr_hook('radiation_two_stream:calc_reflectance_transmittance_sw',0,hook_handle)

    do jg = 1, ng
      trans_dir_dir(jg) = max(-max(od(jg) * (1.0_jprb/mu0),0.0_jprb),-1000.0_jprb)
      trans_dir_dir(jg) = exp(trans_dir_dir(jg))

      gamma4 = 1.0_jprd - gamma3(jg)
      alpha1 = gamma1(jg)*gamma4     + gamma2(jg)*gamma3(jg)
      alpha2 = gamma1(jg)*gamma3(jg) + gamma2(jg)*gamma4

      k_exponent = sqrt(max((gamma1(jg) - gamma2(jg)) * (gamma1(jg) + gamma2(jg)), &
           1.0e-12_jprd))

      exponential = exp(-k_exponent*od(jg))

      k_mu0 = k_exponent*mu0
      one_minus_kmu0_sqr = 1.0_jprd - k_mu0*k_mu0
      k_gamma3 = k_exponent*gamma3(jg)
      k_gamma4 = k_exponent*gamma4
      exponential2 = exponential*exponential
      k_2_exponential = 2.0_jprd * k_exponent * exponential
      reftrans_factor = 1.0_jprd / (k_exponent + gamma1(jg) + (k_exponent - gamma1(jg))*exponential2)

      ref_diff(jg) = gamma2(jg) * (1.0_jprd - exponential2) * reftrans_factor
      trans_diff(jg) = max(0.0_jprd, min(k_2_exponential * reftrans_factor, 1.0_jprd-ref_diff(jg)))

      factor = ssa(jg) / (one_minus_kmu0_sqr + sign(1.0e-3_jprd, one_minus_kmu0_sqr))

      ref_dir(jg) = factor * reftrans_factor &
           &  * ((1.0_jprd - k_mu0) * (alpha2 + k_gamma3) &
           &    - (1.0_jprd + k_mu0) * (alpha2 - k_gamma3) * exponential2 &
           &    - k_2_exponential * (gamma3(jg) - alpha2*mu0) * trans_dir_dir(jg))

      trans_dir_diff(jg) = factor * reftrans_factor * (k_2_exponential * (gamma4 + alpha1*mu0) &
           &  - trans_dir_dir(jg) &
           &  * ((1.0_jprd + k_mu0) * (alpha1 + k_gamma4) &
           &    - (1.0_jprd - k_mu0) * (alpha1 - k_gamma4) * exponential2))

      ref_dir(jg) = max(0.0_jprd, min(ref_dir(jg), mu0*(1.0_jprd-trans_dir_dir(jg))))
      trans_dir_diff(jg) = max(0.0_jprd, min(trans_dir_diff(jg), &
           &  mu0*(1.0_jprd-trans_dir_dir(jg))-ref_dir(jg)))
    end do

    if (lhook) call dr_hook('radiation_two_stream:calc_reflectance_transmittance_sw',1,hook_handle)

  end subroutine calc_reflectance_transmittance_sw
end module radiation_reftrans
