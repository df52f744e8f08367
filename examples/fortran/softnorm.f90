! A pure function of an assumed-shape array: its extent becomes the size parameter
! x_n0; reductions of elemental expressions (sum of squares, log-sum-exp).
! adjc check: --sizes x_n0=12
module norms
  implicit none
contains
  pure function softnorm(x) result(r)
    real(8), intent(in) :: x(:)
    real(8) :: r
    r = sqrt(sum(x ** 2) + 1.0d-3) + log(sum(exp(x))) / size(x)
  end function softnorm
end module norms
