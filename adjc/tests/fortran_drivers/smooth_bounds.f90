! Calls smooth_bounds and smooth_bounds_b (arrays with lower bound 0, an intent(out) array)
! through the generated interface module and compares the adjoint's directional derivative
! with a central finite difference of L = sum(wu * u) + sum(ww * w).
program drive
  use iso_c_binding, only: c_int, c_int64_t, c_double
  use smooth_bounds_adjc
  implicit none
  integer(c_int64_t), parameter :: n = 20
  real(c_double) :: alpha, u0(0:n + 1), wu(0:n + 1), ww(0:n + 1), dal, du(0:n + 1)
  real(c_double) :: u(0:n + 1), w(0:n + 1), uf(0:n + 1), wf(0:n + 1), u_b(0:n + 1), w_b(0:n + 1)
  real(c_double) :: alpha_b, h, fd, ad
  integer(c_int) :: status

  alpha = 0.3d0
  u0 = vals(size(u0), 0.1d0)
  wu = vals(size(wu), 0.2d0)
  ww = vals(size(ww), 0.3d0)
  du = vals(size(du), 0.4d0)
  dal = 0.7d0

  h = 1.0d-6
  fd = (loss(alpha + h*dal, u0 + h*du) - loss(alpha - h*dal, u0 - h*du)) / (2*h)

  uf = u0
  status = smooth_bounds(n, uf, wf, alpha)
  u = u0
  u_b = wu
  w_b = ww
  alpha_b = 0
  status = smooth_bounds_b(n, u, u_b, w, w_b, alpha, alpha_b)
  if (status /= 0) stop 2
  ad = alpha_b*dal + sum(u_b*du)
  print '(a, es12.4)', 'outputs of smooth_bounds_b vs smooth_bounds: max abs. error', &
      max(maxval(abs(u - uf)), maxval(abs(w - wf)))
  print '(a, 2es24.15)', 'adjoint vs finite difference:', ad, fd
  if (max(maxval(abs(u - uf)), maxval(abs(w - wf))) > 1d-12) stop 3
  if (abs(ad - fd) > 1d-6*max(1d0, abs(ad))) stop 4
  print '(a)', 'fortran driver ok'

contains

  function vals(m, s) result(v)
    integer, intent(in) :: m
    real(c_double), intent(in) :: s
    real(c_double) :: v(m)
    integer :: k
    v = [(sin(1.3d0*k + s), k = 1, m)]
  end function vals

  real(c_double) function loss(al, uin)
    real(c_double), intent(in) :: al, uin(0:n + 1)
    real(c_double) :: uu(0:n + 1), ws(0:n + 1)
    uu = uin
    if (smooth_bounds(n, uu, ws, al) /= 0) stop 2
    loss = sum(wu*uu) + sum(ww*ws)
  end function loss
end program drive
