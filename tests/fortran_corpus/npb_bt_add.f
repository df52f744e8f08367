c     In the style of NAS BT's add (not a copy). Exercises: COMMON via
c     include, no arguments, the timer hook, trailing RETURN.
c corpus: modules/npb_timers.f -I inc --wrt fields_rhs --of fields_u --inputs inputs/npb_sp.npz --init fields_u=uniform(-1,1) --init fields_rhs=uniform(-1,1)
      subroutine add
      include 'sp_header.h'
      integer i, j, k, m

      if (timeron) call timer_start(t_rhs)
      do k = 1, grid_points(3)-2
         do j = 1, grid_points(2)-2
            do i = 1, grid_points(1)-2
               do m = 1, 5
                  u(m,i,j,k) = u(m,i,j,k) + rhs(m,i,j,k)
               enddo
            enddo
         enddo
      enddo
      if (timeron) call timer_stop(t_rhs)
      return
      end
