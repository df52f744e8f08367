c     The right-hand side of a NAS SP style solver: no arguments, the
c     fields and constants in COMMON blocks of an include file. adjc
c     passes the COMMON members the routine uses as parameters named
c     <block>_<member>.
! adjc check: --wrt fields_u,constants_dt --of fields_rhs
      subroutine compute_rhs
      implicit none
      include 'sp_fields.h'
      integer i, j
      double precision du
      do j = 2, ny - 1
         do i = 2, nx - 1
            du = u(i+1,j) - 2.0d0*u(i,j) + u(i-1,j)
            rhs(i,j) = forcing(i,j) - dt * (c1 * du
     >               + c2 * u(i,j) * (u(i,j+1) - u(i,j-1)))
         end do
      end do
      return
      end
