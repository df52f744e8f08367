c     In the style of NAS BT's matvec_sub from solve_subs.f (not a copy).
c     Exercises: a small fully unrolled 5x5 block helper with
c     continuation lines, assumed-size-like explicit 5x5 dummies,
c     trailing RETURN.
c corpus:
      subroutine matvec_sub(ablock,avec,bvec)
      implicit none
      double precision ablock,avec,bvec
      dimension ablock(5,5),avec(5),bvec(5)
      integer i

      do i = 1, 5
         bvec(i) = bvec(i) - ablock(i,1)*avec(1)
     >                     - ablock(i,2)*avec(2)
     >                     - ablock(i,3)*avec(3)
     >                     - ablock(i,4)*avec(4)
     >                     - ablock(i,5)*avec(5)
      enddo

      return
      end
