c     In the style of NAS MG's resid and comm3 (not a copy). Exercises:
c     implicit typing (IMPLICIT NONE absent), assumed-size a(0:3), work
c     arrays u1/u2 sized by a PARAMETER, timer hook with COMMON logical, a
c     call of comm3 (periodic halo exchange) in the same file, RETURN.
c corpus: modules/npb_timers.f --function resid -I inc --sizes n1=6,n2=6,n3=6,k=1 --wrt u,v --of r
      subroutine resid( u,v,r,n1,n2,n3,a,k )
      implicit none
      include 'mg_globals.h'
      integer n1,n2,n3,k
      double precision u(n1,n2,n3),v(n1,n2,n3),r(n1,n2,n3),a(0:3)
      integer i3, i2, i1
      integer nm
      parameter (nm = 34)
      double precision u1(nm), u2(nm)

      if (timeron) call timer_start(T_resid)
      do i3=2,n3-1
         do i2=2,n2-1
            do i1=1,n1
               u1(i1) = u(i1,i2-1,i3) + u(i1,i2+1,i3)
     >                + u(i1,i2,i3-1) + u(i1,i2,i3+1)
               u2(i1) = u(i1,i2-1,i3-1) + u(i1,i2+1,i3-1)
     >                + u(i1,i2-1,i3+1) + u(i1,i2+1,i3+1)
            enddo
            do i1=2,n1-1
               r(i1,i2,i3) = v(i1,i2,i3)
     >                     - a(0) * u(i1,i2,i3)
     >                     - a(2) * ( u2(i1) + u1(i1-1) + u1(i1+1) )
     >                     - a(3) * ( u2(i1-1) + u2(i1+1) )
            enddo
         enddo
      enddo

      call comm3(r,n1,n2,n3,k)
      if (timeron) call timer_stop(T_resid)

      return
      end

      subroutine comm3(u,n1,n2,n3,kk)
      implicit none
      integer n1, n2, n3, kk
      double precision u(n1,n2,n3)
      integer i1, i2, i3

      do i3=2,n3-1
         do i2=2,n2-1
            u( 1,i2,i3) = u(n1-1,i2,i3)
            u(n1,i2,i3) = u(   2,i2,i3)
         enddo
      enddo
      do i3=2,n3-1
         do i1=1,n1
            u(i1, 1,i3) = u(i1,n2-1,i3)
            u(i1,n2,i3) = u(i1,   2,i3)
         enddo
      enddo
      do i2=1,n2
         do i1=1,n1
            u(i1,i2, 1) = u(i1,i2,n3-1)
            u(i1,i2,n3) = u(i1,i2,   2)
         enddo
      enddo

      return
      end
