c     In the style of NAS SP's tzetar (not a copy). Exercises: COMMON
c     state only (no arguments), sqrt of a sum, many scalar temporaries,
c     a 3-D nest over interior points, timer hook, trailing RETURN.
c corpus: modules/npb_timers.f -I inc --sizes global_nx2=4,global_ny2=4,global_nz2=4 --init fields_u=uniform(1,2) --init fields_us=uniform(1,2) --init fields_vs=uniform(1,2) --init fields_ws=uniform(1,2) --init fields_qs=uniform(1,2) --init fields_rho_i=uniform(1,2) --init fields_square=uniform(1,2)
      subroutine tzetar
      include 'sp_header.h'
      integer i, j, k
      double precision t1, t2, t3, ac, xvel, yvel, zvel, r1, r2, r3,
     >                 r4, r5, btuz, ac2u, uzik1

      if (timeron) call timer_start(t_rhs)
      do k = 1, nz2
         do j = 1, ny2
            do i = 1, nx2
               xvel = us(i,j,k)
               yvel = vs(i,j,k)
               zvel = ws(i,j,k)
               ac   = sqrt(c1c2 * rho_i(i,j,k) *
     >                (u(5,i,j,k) - square(i,j,k)) + 4.0d0)
               r1 = rhs(1,i,j,k)
               r2 = rhs(2,i,j,k)
               r3 = rhs(3,i,j,k)
               r4 = rhs(4,i,j,k)
               r5 = rhs(5,i,j,k)
               uzik1 = u(1,i,j,k)
               btuz  = bt * uzik1
               t1 = btuz/ac * (r4 + r5)
               t2 = r3 + t1
               t3 = btuz * (r4 - r5)
               rhs(1,i,j,k) = t2
               rhs(2,i,j,k) = -uzik1*r2 + xvel*t2
               rhs(3,i,j,k) =  uzik1*r1 + yvel*t2
               rhs(4,i,j,k) =  zvel*t2  + t3
               rhs(5,i,j,k) =  uzik1*(-xvel*r2 + yvel*r1) +
     >                   qs(i,j,k)*t2 + c2iv*ac*ac*t1 + zvel*t3
            end do
         end do
      end do
      if (timeron) call timer_stop(t_rhs)
      return
      end
