! Condensation in a column, IFS style: the physics of one level is an internal procedure
! (`contains` inside the subroutine) that reads and updates the host's arrays and scalars
! by host association (`q`, `t`, `heat`, `zlv_cp`), and calls a second internal function.
! adjc check: --sizes n=6 --init t=uniform(260,290) --init q=uniform(0.002,0.008)
subroutine column_condense(n, t, q, heat)
  implicit none
  integer, intent(in) :: n
  real(kind=8), intent(inout) :: t(n), q(n)
  real(kind=8), intent(out) :: heat
  real(kind=8), parameter :: rlvtt = 2.5008d6, rcpd = 1004.7d0
  real(kind=8) :: zlv_cp
  integer :: jk

  zlv_cp = rlvtt / rcpd
  heat = 0.0d0
  do jk = 1, n
    call condense(jk)
  end do

contains

  subroutine condense(k)
    integer, intent(in) :: k
    real(kind=8) :: zdq
    zdq = 0.1d0 * q(k) * zfrac(t(k))
    q(k) = q(k) - zdq
    t(k) = t(k) + zlv_cp * zdq
    heat = heat + zdq
  end subroutine condense

  pure function zfrac(ptemp) result(zf)
    real(kind=8), intent(in) :: ptemp
    real(kind=8) :: zf
    zf = 1.0d0 / (1.0d0 + exp(-(ptemp - 273.15d0) / 10.0d0))
  end function zfrac

end subroutine column_condense
