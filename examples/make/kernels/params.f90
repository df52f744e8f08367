! Constants of the heat kernel, in a module of their own file: adjc finds it by its name
! (`use params` -> params.f90 next to heat.f90) and lists it in heat's dependency file.
module params
  implicit none
  real(8), parameter :: kappa = 0.1d0
end module params
