c     In the style of NAS CG's conj_grad (not a copy). Exercises: sparse
c     matrix-vector products through integer index arrays (colidx, rowstr),
c     a fixed iteration count from a PARAMETER, reductions into scalars,
c     sqrt, a 100-line routine with several loops, trailing RETURN.
c corpus: --sizes naa=6,nzz=12,firstcol=1,lastcol=6,firstrow=1,lastrow=6 --wrt a,x --of rnorm,z
      subroutine conj_grad ( colidx, rowstr, x, z, a, p, q, r,
     >                       rnorm, naa, nzz, firstcol, lastcol,
     >                       firstrow, lastrow )
      implicit none
      integer naa, nzz, firstcol, lastcol, firstrow, lastrow
      double precision x(naa+2), z(naa+2), p(naa+2), q(naa+2),
     >                 r(naa+2), a(nzz)
      integer colidx(nzz), rowstr(naa+1)
      double precision rnorm
      integer j, k, cgit, cgitmax
      parameter (cgitmax = 5)
      double precision d, sum, rho, rho0, alpha, beta

      rho = 0.0d0
      do j=1,naa+1
         q(j) = 0.0d0
         z(j) = 0.0d0
         r(j) = x(j)
         p(j) = r(j)
      enddo

      do j=1, lastcol-firstcol+1
         rho = rho + r(j)*r(j)
      enddo

      do cgit = 1,cgitmax
         do j=1,lastrow-firstrow+1
            sum = 0.d0
            do k=rowstr(j),rowstr(j+1)-1
               sum = sum + a(k)*p(colidx(k))
            enddo
            q(j) = sum
         enddo

         d = 0.0d0
         do j=1, lastcol-firstcol+1
            d = d + p(j)*q(j)
         enddo

         alpha = rho / d
         rho0 = rho

         do j=1, lastcol-firstcol+1
            z(j) = z(j) + alpha*p(j)
            r(j) = r(j) - alpha*q(j)
         enddo

         rho = 0.0d0
         do j=1, lastcol-firstcol+1
            rho = rho + r(j)*r(j)
         enddo

         beta = rho / rho0

         do j=1, lastcol-firstcol+1
            p(j) = r(j) + beta*p(j)
         enddo
      enddo

      do j=1,lastrow-firstrow+1
         sum = 0.d0
         do k=rowstr(j),rowstr(j+1)-1
            sum = sum + a(k)*z(colidx(k))
         enddo
         r(j) = sum
      enddo

      sum = 0.0d0
      do j=1, lastcol-firstcol+1
         d   = x(j) - r(j)
         sum = sum + d*d
      enddo

      rnorm = sqrt( sum )

      return
      end
