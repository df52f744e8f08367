c     In the style of NAS EP's vranlc (not a copy). Exercises: PARAMETER
c     statements with expressions (0.5d0**23), aint/dble of reals, a long
c     sequential recurrence, an intent-less scalar x updated in place,
c     trailing RETURN. (A linear congruential generator: its derivative is
c     discontinuous; the corpus keeps it because EP is made of this.)
c corpus: --sizes n=4,y_n0=4 --init x=const(314159265.0) --init a=const(1220703125.0)
      subroutine vranlc (n, x, a, y)
      implicit none
      integer n, i
      double precision x, a, y(*)
      double precision r23, r46, t23, t46
      parameter (r23 = 0.5d0 ** 23, r46 = r23 ** 2, t23 = 2.d0 ** 23,
     >           t46 = t23 ** 2)
      double precision t1, t2, t3, t4, a1, a2, x1, x2, z

      t1 = r23 * a
      a1 = int (t1)
      a2 = a - t23 * a1

      do i = 1, n
         t1 = r23 * x
         x1 = int (t1)
         x2 = x - t23 * x1
         t1 = a1 * x2 + a2 * x1
         t2 = int (r23 * t1)
         z = t1 - t23 * t2
         t3 = t23 * z + a2 * x2
         t4 = int (r46 * t3)
         x = t3 - t46 * t4
         y(i) = r46 * x
      enddo

      return
      end
