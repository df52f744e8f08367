c     The right-hand side of a NAS SP style solver: no arguments, the
c     fields and constants in COMMON blocks of an include file. adjc
c     passes the COMMON members the routine uses as parameters named
c     <block>_<member>. `adjc check --setup set_constants` runs the
c     setup routine first: the check starts from the constants and forcing
c     it leaves in COMMON (u stays random).
! adjc check: --wrt fields_u,constants_dt --of fields_rhs --setup set_constants
      subroutine set_constants
      implicit none
      include 'sp_fields.h'
      integer i, j
      dt = 0.015d0
      c1 = 1.4d0
      c2 = 0.4d0
      do j = 1, ny
         do i = 1, nx
            forcing(i,j) = 0.01d0 * dble(i) - 0.02d0 * dble(j)
         end do
      end do
      return
      end

c     A helper declaring /constants/ itself, with names of its own: COMMON
c     is storage association, so tstep, k1, k2 are dt, c1, c2.
      double precision function damp(a)
      implicit none
      double precision a, tstep, k1, k2
      common /constants/ tstep, k1, k2
      damp = a / (1.0d0 + tstep * k2 * a * a)
      return
      end

      subroutine compute_rhs
      implicit none
      include 'sp_fields.h'
      integer i, j
      double precision du, damp
      do j = 2, ny - 1
         do i = 2, nx - 1
            du = u(i+1,j) - 2.0d0*u(i,j) + u(i-1,j)
            rhs(i,j) = forcing(i,j) - dt * (c1 * du
     >               + c2 * damp(u(i,j)) * (u(i,j+1) - u(i,j-1)))
         end do
      end do
      return
      end
