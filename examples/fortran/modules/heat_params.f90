! Physical constants of the heat step, in their own file as models keep them.
module heat_params
  use heat_kinds
  implicit none
  real(dp), parameter :: kappa = 0.1_dp
  real(dp), parameter :: dt = 0.5_dp
end module heat_params
