! A column-physics routine on an array of derived types (ecRad/CLOUDSC style): the types
! come from a module of another file, `cols(i)%gas%t(k)` is a component of a nested type
! in an array of types, a local of derived type is passed to a helper that takes one.
! adjc check: examples/fortran/modules/column_types.f90 -I examples/fortran/modules --sizes ncol=5
module column_physics
  use heat_kinds, only: dp
  use column_types, only: column, gas_state, nlev
  implicit none
contains
  subroutine heat_capacity(gas, cp)
    type(gas_state), intent(in) :: gas
    real(dp), intent(out) :: cp
    cp = 1004.0_dp + 0.1_dp * gas%rho * sum(gas%t)
  end subroutine heat_capacity

  subroutine column_flux(ncol, cols, flux)
    integer, intent(in) :: ncol
    type(column), intent(inout) :: cols(ncol)
    real(dp), intent(out) :: flux(ncol)
    type(gas_state) :: mean
    integer :: i, k
    real(dp) :: cp

    mean%rho = 0.0_dp
    mean%t = 0.0_dp
    do i = 1, ncol
      mean%rho = mean%rho + cols(i)%gas%rho / ncol
      do k = 1, nlev
        mean%t(k) = mean%t(k) + cols(i)%gas%t(k) / ncol
      end do
    end do
    call heat_capacity(mean, cp)
    do i = 1, ncol
      flux(i) = (1.0_dp - cols(i)%albedo) * cp * (cols(i)%gas%t(nlev) - mean%t(1)) * 1.0e-3_dp
      cols(i)%gas%rho = cols(i)%gas%rho * exp(-0.1_dp * flux(i) / cp)
    end do
  end subroutine column_flux
end module column_physics
