! Calls the original `column_flux` and the generated functions through the wrappers of
! column_flux_adjc_wrap, which take the array of derived types `cols` whole (its
! components are copied into the C's one-array-per-component layout and back).
program drive_column_flux
  use heat_kinds, only: dp
  use column_types, only: column, nlev
  use column_physics, only: column_flux_original => column_flux
  use column_flux_adjc_wrap, only: column_flux, column_flux_b
  implicit none
  integer, parameter :: ncol = 5
  type(column) :: cols(ncol), cols_b(ncol), c1(ncol), ref(ncol)
  real(dp) :: flux(ncol), flux_b(ncol), fref(ncol), w(ncol), v(ncol), h, fd, ad
  integer :: i, k

  do i = 1, ncol
    cols(i)%gas%rho = 1.0_dp + 0.1_dp * i
    do k = 1, nlev
      cols(i)%gas%t(k) = 250.0_dp + 5.0_dp * k + i
    end do
    cols(i)%albedo = 0.1_dp * i
    w(i) = cos(real(i, dp))
    v(i) = sin(real(2 * i + 1, dp))
  end do

  ! The forward function equals the original routine.
  c1 = cols
  call column_flux(ncol, c1, flux)
  ref = cols
  call column_flux_original(ncol, ref, fref)
  if (maxval(abs(flux - fref)) > 1e-12_dp * maxval(abs(fref))) error stop "flux differs from the original"
  do i = 1, ncol
    if (abs(c1(i)%gas%rho - ref(i)%gas%rho) > 1e-13_dp) error stop "rho differs from the original"
  end do

  ! The adjoint with seed w on flux (cols_b zero): d<w, flux>/d albedo along v.
  do i = 1, ncol
    cols_b(i)%gas%rho = 0
    cols_b(i)%gas%t = 0
    cols_b(i)%albedo = 0
  end do
  flux_b = w
  c1 = cols
  call column_flux_b(ncol, c1, cols_b, flux, flux_b)
  ad = sum(cols_b%albedo * v)
  h = 1e-6_dp
  fd = (objective(h) - objective(-h)) / (2 * h)
  if (abs(fd - ad) > 1e-6_dp * max(1.0_dp, abs(fd))) error stop "d/dalbedo differs from finite differences"
  print *, "fortran driver ok"

contains

  real(dp) function objective(step)
    real(dp), intent(in) :: step
    type(column) :: c(ncol)
    real(dp) :: f(ncol)
    c = cols
    c%albedo = c%albedo + step * v
    call column_flux(ncol, c, f)
    objective = sum(w * f)
  end function objective
end program drive_column_flux
