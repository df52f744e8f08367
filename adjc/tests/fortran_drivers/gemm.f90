! Calls gemm and gemm_b through the generated interface module and compares the adjoint's
! directional derivative with a central finite difference of L = sum(w * c).
! Used for examples/fortran/gemm.f90 and examples/python/gemm.py (same signature; the NumPy
! arrays appear transposed).
program drive
  use iso_c_binding, only: c_int, c_int64_t, c_double
  use gemm_adjc
  implicit none
  integer(c_int64_t), parameter :: ni = 7, nj = 6, nk = 5
  real(c_double) :: alpha, beta, c0(nj, ni), a(nk, ni), b(nj, nk), w(nj, ni)
  real(c_double) :: dal, dbe, dc(nj, ni), da(nk, ni), db(nj, nk)
  real(c_double) :: c(nj, ni), cf(nj, ni), c_b(nj, ni), a_b(nk, ni), b_b(nj, nk), alpha_b, beta_b
  real(c_double) :: h, fd, ad
  integer(c_int) :: status

  alpha = 1.5d0
  beta = -0.7d0
  c0 = reshape(vals(size(c0), 0.1d0), shape(c0))
  a = reshape(vals(size(a), 0.2d0), shape(a))
  b = reshape(vals(size(b), 0.3d0), shape(b))
  w = reshape(vals(size(w), 0.4d0), shape(w))
  dal = 0.3d0
  dbe = -0.2d0
  dc = reshape(vals(size(dc), 0.5d0), shape(dc))
  da = reshape(vals(size(da), 0.6d0), shape(da))
  db = reshape(vals(size(db), 0.7d0), shape(db))

  h = 1.0d-6
  fd = (loss(alpha + h*dal, beta + h*dbe, c0 + h*dc, a + h*da, b + h*db) &
      - loss(alpha - h*dal, beta - h*dbe, c0 - h*dc, a - h*da, b - h*db)) / (2*h)

  cf = c0
  status = gemm(ni, nj, nk, alpha, beta, cf, a, b)
  c = c0
  c_b = w
  a_b = 0
  b_b = 0
  alpha_b = 0
  beta_b = 0
  status = gemm_b(ni, nj, nk, alpha, alpha_b, beta, beta_b, c, c_b, a, a_b, b, b_b)
  if (status /= 0) stop 2
  ad = alpha_b*dal + beta_b*dbe + sum(c_b*dc) + sum(a_b*da) + sum(b_b*db)
  print '(a, es12.4)', 'outputs of gemm_b vs gemm: max abs. error', maxval(abs(c - cf))
  print '(a, 2es24.15)', 'adjoint vs finite difference:', ad, fd
  if (maxval(abs(c - cf)) > 1d-12) stop 3
  if (abs(ad - fd) > 1d-6*max(1d0, abs(ad))) stop 4
  print '(a)', 'fortran driver ok'

contains

  function vals(n, s) result(v)
    integer, intent(in) :: n
    real(c_double), intent(in) :: s
    real(c_double) :: v(n)
    integer :: k
    v = [(sin(1.3d0*k + s), k = 1, n)]
  end function vals

  real(c_double) function loss(al, be, cin, ain, bin)
    real(c_double), intent(in) :: al, be, cin(nj, ni), ain(nk, ni), bin(nj, nk)
    real(c_double) :: cc(nj, ni)
    cc = cin
    if (gemm(ni, nj, nk, al, be, cc, ain, bin) /= 0) stop 2
    loss = sum(w*cc)
  end function loss
end program drive
