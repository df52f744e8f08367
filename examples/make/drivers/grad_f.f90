! The Fortran driver of the make example: the gradients of two Fortran kernels (heat, damp)
! through the drop-in wrappers adjc writes (`--fortran-interface`: modules heat_adjc_wrap and
! damp_adjc_wrap, whose heat_b and damp_b take the routines' own arguments), each compared in
! one entry with a central finite difference of the ORIGINAL routines (compiled from
! kernels/ next to the generated code: the wrappers' names do not clash with theirs).
! Loss: L = sum(w * outputs), so the seeds are the weights (Tapenade's convention).
program grad_f
  use heat_adjc_wrap, only: heat_b
  use damp_adjc_wrap, only: damp_b
  implicit none
  integer, parameter :: n = 12, nsteps = 3
  integer, parameter :: k = 4
  real(8), parameter :: h = 1d-6
  real(8) :: u0(0:n + 1), u(0:n + 1), u_b(0:n + 1), flux(n), flux_b(n), wu(0:n + 1), wf(n)
  real(8) :: x(n), x_b(n), y0(n), y(n), y_b(n), a, a_b, fd
  integer :: i, failures, stat
  external :: heat, damp

  failures = 0
  do i = 0, int(n) + 1
    u0(i) = 1.0d0 + 0.1d0 * sin(0.5d0 * i)
    wu(i) = cos(0.3d0 * i)
  end do
  do i = 1, int(n)
    wf(i) = 0.5d0 + 0.01d0 * i
    x(i) = 0.2d0 * i
    y0(i) = cos(0.4d0 * i)
  end do

  ! heat: d L / d u(k) of the initial u
  u = u0
  flux = 0
  u_b = wu
  flux_b = wf
  call heat_b(n, nsteps, u, u_b, flux, flux_b)
  fd = (heat_loss(k, h) - heat_loss(k, -h)) / (2 * h)
  call compare('heat u(4)', u_b(k), fd)

  ! damp: d L / d a and d L / d x(k)
  a = 0.7d0
  a_b = 0
  x_b = 0
  y = y0
  y_b = wf
  call damp_b(n, a, a_b, x, x_b, y, y_b, stat=stat)
  if (stat /= 0) stop 2
  call compare('damp a', a_b, (damp_loss(a + h, 0, 0d0) - damp_loss(a - h, 0, 0d0)) / (2 * h))
  call compare('damp x(4)', x_b(k), (damp_loss(a, k, h) - damp_loss(a, k, -h)) / (2 * h))

  if (failures > 0) then
    print '(a)', 'grad_f: FAILED'
    stop 1
  end if
  print '(a)', 'grad_f: ok'

contains

  real(8) function heat_loss(j, dh)
    integer, intent(in) :: j
    real(8), intent(in) :: dh
    real(8) :: uu(0:n + 1), ff(n)
    uu = u0
    uu(j) = uu(j) + dh
    ff = 0
    call heat(n, nsteps, uu, ff)
    heat_loss = sum(wu * uu) + sum(wf * ff)
  end function heat_loss

  real(8) function damp_loss(aa, j, dh)
    real(8), intent(in) :: aa, dh
    integer, intent(in) :: j
    real(8) :: xx(n), yy(n)
    xx = x
    if (j > 0) xx(j) = xx(j) + dh
    yy = y0
    call damp(n, aa, xx, yy)
    damp_loss = sum(wf * yy)
  end function damp_loss

  subroutine compare(what, adjoint, fdiff)
    character(*), intent(in) :: what
    real(8), intent(in) :: adjoint, fdiff
    real(8) :: err
    err = abs(adjoint - fdiff) / max(1d-12, abs(adjoint), abs(fdiff))
    print '(a12, a, f18.12, a, f18.12, a, es8.1)', what, ' adjoint', adjoint, '  finite difference', fdiff, &
      '  relative error', err
    if (err > 1d-6) failures = failures + 1
  end subroutine compare
end program grad_f
