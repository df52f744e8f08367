c     In the style of NAS SP's ninvr (not a copy). Exercises: COMMON
c     state through include with `implicit none` before it, no arguments,
c     block-diagonal inversion constants bt from COMMON, timer hook, RETURN.
c corpus: modules/npb_timers.f -I inc --sizes global_nx2=4,global_ny2=4,global_nz2=4 --wrt fields_rhs,constants_bt --of fields_rhs
      subroutine ninvr
      implicit none
      include 'sp_header.h'
      integer i, j, k
      double precision r1, r2, r3, r4, r5, t1, t2

      if (timeron) call timer_start(t_rhs)
      do k = 1, nz2
         do j = 1, ny2
            do i = 1, nx2
               r1 = rhs(1,i,j,k)
               r2 = rhs(2,i,j,k)
               r3 = rhs(3,i,j,k)
               r4 = rhs(4,i,j,k)
               r5 = rhs(5,i,j,k)

               t1 = bt * r3
               t2 = 0.5d0 * ( r4 + r5 )

               rhs(1,i,j,k) = -r2
               rhs(2,i,j,k) =  r1
               rhs(3,i,j,k) = bt * ( r4 - r5 )
               rhs(4,i,j,k) = -t1 + t2
               rhs(5,i,j,k) =  t1 + t2
            end do
         end do
      end do
      if (timeron) call timer_stop(t_rhs)

      return
      end
