c     In the style of NAS MG's norm2u3 (not a copy). Exercises: dmax1,
c     abs, sqrt, a double precision count from integers, intent-less
c     outputs rnm2 and rnmu, trailing RETURN.
c corpus: --sizes n1=5,n2=5,n3=5,nx=5,ny=5,nz=5
      subroutine norm2u3(r,n1,n2,n3,rnm2,rnmu,nx,ny,nz)
      implicit none
      integer n1, n2, n3, nx, ny, nz
      double precision rnm2, rnmu, r(n1,n2,n3)
      double precision s, a, ss, dn
      integer i3, i2, i1

      dn = 1.0d0*nx*ny*nz

      s=0.0D0
      rnmu = 0.0
      do i3=2,n3-1
         do i2=2,n2-1
            do i1=2,n1-1
               s=s+r(i1,i2,i3)**2
               a=abs(r(i1,i2,i3))
               rnmu=dmax1(rnmu,a)
            enddo
         enddo
      enddo

      ss = s
      rnm2=sqrt( ss / dn )

      return
      end
