c     In the style of NAS LU's pintgr (not a copy). Exercises: local
c     work arrays phi1/phi2 with PARAMETER bounds from an include,
c     integration over faces, a DATA-free F77 routine with many loops and
c     COMMON-free dummies, scalar result frc.
c corpus: -I inc --sizes ibeg=1,ifin=4,jbeg=1,jfin=4,ki1=1,ki2=4,nx=4,ny=4,nz=4 --wrt u --of frc
      subroutine pintgr(u, ibeg, ifin, jbeg, jfin, ki1, ki2,
     >                  nx, ny, nz, dxi, deta, dzeta, frc)
      implicit none
      include 'npbparams.h'
      integer ibeg, ifin, jbeg, jfin, ki1, ki2, nx, ny, nz
      double precision u(5,nx,ny,nz), dxi, deta, dzeta, frc
      integer i, j, k
      double precision phi1(0:problem_size+1,0:problem_size+1),
     >                 phi2(0:problem_size+1,0:problem_size+1)
      double precision frc1, frc2, c2

      c2 = 0.4d0
      do j = jbeg, jfin
         do i = ibeg, ifin
            k = ki1
            phi1(i,j) = c2*( u(5,i,j,k)
     >           - 0.50d0 * ( u(2,i,j,k) ** 2
     >           + u(3,i,j,k) ** 2
     >           + u(4,i,j,k) ** 2 )
     >           / u(1,i,j,k) )
            k = ki2
            phi2(i,j) = c2*( u(5,i,j,k)
     >           - 0.50d0 * ( u(2,i,j,k) ** 2
     >           + u(3,i,j,k) ** 2
     >           + u(4,i,j,k) ** 2 )
     >           / u(1,i,j,k) )
         end do
      end do

      frc1 = 0.0d+00
      do j = jbeg, jfin-1
         do i = ibeg, ifin-1
            frc1 = frc1 + (  phi1(i,j)
     >                     + phi1(i+1,j)
     >                     + phi1(i,j+1)
     >                     + phi1(i+1,j+1)
     >                     + phi2(i,j)
     >                     + phi2(i+1,j)
     >                     + phi2(i,j+1)
     >                     + phi2(i+1,j+1) )
         end do
      end do
      frc1 = dxi * deta * frc1

      frc2 = 0.0d+00
      do j = jbeg, jfin-1
         do i = ibeg, ifin-1
            frc2 = frc2 + abs(phi1(i,j) - phi2(i,j))
         end do
      end do
      frc2 = dzeta * frc2

      frc = 0.25d+00 * ( frc1 + frc2 )

      return
      end
