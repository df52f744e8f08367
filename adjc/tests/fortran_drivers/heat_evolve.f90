! Calls the original `evolve` (heat_core), and the generated forward function and adjoint
! through the wrappers of heat_evolve_adjc_wrap, which take the derived-type fields whole:
! the forward matches the original, the adjoint matches central differences.
program drive_heat_evolve
  use heat_kinds, only: dp
  use heat_fields, only: field
  use heat_core, only: evolve_original => evolve
  use heat_evolve_adjc_wrap, only: evolve, evolve_b
  implicit none
  integer, parameter :: nx = 6, ny = 5
  type(field) :: curr, prev, curr_b, prev_b, c1, ref
  real(dp) :: a, dt, a_b, dt_b, h, fd, ad, err
  real(dp) :: w(0:nx + 1, 0:ny + 1), v(0:nx + 1, 0:ny + 1)
  integer :: i, j

  call make(curr)
  call make(prev)
  call make(curr_b)
  call make(prev_b)
  do j = 0, ny + 1
    do i = 0, nx + 1
      prev%data(i, j) = 1.0_dp + 0.1_dp * sin(real(i + 2 * j, dp))
      curr%data(i, j) = 0.3_dp * cos(real(3 * i - j, dp))
      w(i, j) = cos(real(i * j + 1, dp))
      v(i, j) = sin(real(2 * i + j + 1, dp))
    end do
  end do
  a = 0.5_dp
  dt = 0.1_dp

  ! The forward function equals the original routine.
  c1 = curr
  call evolve(c1, prev, a, dt)
  ref = curr
  call evolve_original(ref, prev, a, dt)
  err = maxval(abs(c1%data - ref%data))
  if (err > 1e-13_dp) error stop "the forward function differs from the original"
  if (lbound(c1%data, 1) /= 0) error stop "bounds lost"

  ! The adjoint with seed w on curr%data.
  curr_b%data = w
  prev_b%data = 0
  curr_b%dx = 0
  curr_b%dy = 0
  a_b = 0
  dt_b = 0
  c1 = curr
  call evolve_b(c1, curr_b, prev, prev_b, a, a_b, dt, dt_b)
  if (maxval(abs(c1%data - ref%data)) > 1e-13_dp) error stop "evolve_b changed the forward values"

  ! d/da by central differences.
  h = 1e-6_dp
  fd = (objective(a + h, prev%data) - objective(a - h, prev%data)) / (2 * h)
  if (abs(fd - a_b) > 1e-6_dp * max(1.0_dp, abs(fd))) error stop "d/da differs from finite differences"
  ! d/dprev%data along v.
  fd = (objective(a, prev%data + h * v) - objective(a, prev%data - h * v)) / (2 * h)
  ad = sum(prev_b%data * v)
  if (abs(fd - ad) > 1e-6_dp * max(1.0_dp, abs(fd))) error stop "d/dprev differs from finite differences"
  print *, "fortran driver ok"

contains

  subroutine make(f)
    type(field), intent(out) :: f
    f%nx = nx
    f%ny = ny
    f%dx = 0.5_dp
    f%dy = 0.25_dp
    allocate(f%data(0:nx + 1, 0:ny + 1))
    f%data = 0
  end subroutine make

  real(dp) function objective(aa, pdata)
    real(dp), intent(in) :: aa, pdata(0:nx + 1, 0:ny + 1)
    type(field) :: c, p
    c = curr
    p = prev
    p%data = pdata
    call evolve(c, p, aa, dt)
    objective = sum(w * c%data)
  end function objective
end program drive_heat_evolve
