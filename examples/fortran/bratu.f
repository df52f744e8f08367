c     Residual of the 1-D Bratu problem -u'' = lambda * exp(u) on (0, 1) by central
c     differences (scaled by h**2), u(0) = u(n+1) = 0 stored as halo cells; fixed
c     form with a continuation line.
! adjc check: --sizes n=12
      subroutine bratu(n, lambda, u, r)
      implicit none
      integer n, i
      double precision lambda, u(0:n+1), r(n), h
      h = 1.0d0 / dble(n + 1)
      do 20 i = 1, n
         r(i) = 2.0d0*u(i) - u(i-1) - u(i+1)
     &        - h*h * lambda * exp(u(i))
   20 continue
      end
