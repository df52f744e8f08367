c     In the style of NAS SP's compute_rhs (not a copy). Exercises: no
c     arguments, all state in COMMON through include files (header.h with
c     a nested include), an `if (timeron) call timer_start` hook, 4-D COMMON
c     arrays with 0 lower bounds, long continued expressions, trailing RETURN.
c corpus: modules/npb_timers.f -I inc --wrt fields_u --of fields_rhs --sizes global_nx2=4,global_ny2=4,global_nz2=4 --inputs inputs/npb_sp.npz --init fields_u=uniform(1,2) --init constants_tx2=uniform(-1,1) --init constants_dt=uniform(-1,1) --init constants_xxcon2=uniform(-1,1) --init constants_xxcon3=uniform(-1,1) --init constants_dx1tx1=uniform(-1,1) --init constants_dx2tx1=uniform(-1,1) --init constants_dx5tx1=uniform(-1,1) --init constants_c1c2=uniform(-1,1) --init constants_c1=uniform(-1,1) --init constants_c2=uniform(-1,1) --init constants_con43=uniform(-1,1) --init fields_us=uniform(-1,1) --init fields_vs=uniform(-1,1) --init fields_ws=uniform(-1,1) --init fields_qs=uniform(-1,1) --init fields_rho_i=uniform(-1,1) --init fields_square=uniform(-1,1) --init fields_rhs=uniform(-1,1) --init fields_forcing=uniform(-1,1)
      subroutine compute_rhs
      include 'sp_header.h'
      integer i, j, k, m
      double precision aux, rho_inv, uijk, up1, um1

      if (timeron) call timer_start(t_rhs)
      do k = 0, grid_points(3)-1
         do j = 0, grid_points(2)-1
            do i = 0, grid_points(1)-1
               rho_inv = 1.0d0/u(1,i,j,k)
               rho_i(i,j,k) = rho_inv
               us(i,j,k) = u(2,i,j,k) * rho_inv
               vs(i,j,k) = u(3,i,j,k) * rho_inv
               ws(i,j,k) = u(4,i,j,k) * rho_inv
               square(i,j,k) = 0.5d0* (
     >                 u(2,i,j,k)*u(2,i,j,k) +
     >                 u(3,i,j,k)*u(3,i,j,k) +
     >                 u(4,i,j,k)*u(4,i,j,k) ) * rho_inv
               qs(i,j,k) = square(i,j,k) * rho_inv
               aux = c1c2*rho_inv* (u(5,i,j,k) - square(i,j,k))
            end do
         end do
      end do

      do k = 0, grid_points(3)-1
         do j = 0, grid_points(2)-1
            do i = 0, grid_points(1)-1
               do m = 1, 5
                  rhs(m,i,j,k) = forcing(m,i,j,k)
               end do
            end do
         end do
      end do

      if (timeron) call timer_start(t_rhsx)
      do k = 1, nz2
         do j = 1, ny2
            do i = 1, nx2
               uijk = us(i,j,k)
               up1  = us(i+1,j,k)
               um1  = us(i-1,j,k)
               rhs(1,i,j,k) = rhs(1,i,j,k) + dx1tx1 *
     >                 (u(1,i+1,j,k) - 2.0d0*u(1,i,j,k) +
     >                 u(1,i-1,j,k)) -
     >                 tx2 * (u(2,i+1,j,k) - u(2,i-1,j,k))
               rhs(2,i,j,k) = rhs(2,i,j,k) + dx2tx1 *
     >                 (u(2,i+1,j,k) - 2.0d0*u(2,i,j,k) +
     >                 u(2,i-1,j,k)) +
     >                 xxcon2*con43 * (up1 - 2.0d0*uijk + um1) -
     >                 tx2 * (u(2,i+1,j,k)*up1 -
     >                 u(2,i-1,j,k)*um1 +
     >                 (u(5,i+1,j,k)- square(i+1,j,k)-
     >                 u(5,i-1,j,k)+ square(i-1,j,k))*
     >                 c2)
               rhs(5,i,j,k) = rhs(5,i,j,k) + dx5tx1 *
     >                 (u(5,i+1,j,k) - 2.0d0*u(5,i,j,k) +
     >                 u(5,i-1,j,k)) +
     >                 xxcon3 * (qs(i+1,j,k) - 2.0d0*qs(i,j,k) +
     >                 qs(i-1,j,k)) -
     >                 tx2 * ( (c1*u(5,i+1,j,k) -
     >                 c2*square(i+1,j,k))*up1 -
     >                 (c1*u(5,i-1,j,k) -
     >                 c2*square(i-1,j,k))*um1 )
            end do
         end do
      end do
      if (timeron) call timer_stop(t_rhsx)

      do k = 1, nz2
         do j = 1, ny2
            do i = 1, nx2
               do m = 1, 5
                  rhs(m,i,j,k) = rhs(m,i,j,k) * dt
               end do
            end do
         end do
      end do
      if (timeron) call timer_stop(t_rhs)

      return
      end
