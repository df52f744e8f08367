c     In the style of the OpenAD regression suite's ocean box model (a
c     Stommel/Tziperman three-box model; not a copy). Exercises: fixed
c     form with COMMON blocks declared in each routine, PARAMETER
c     statements, DATA for constants, several routines calling each other
c     (box_forward -> box_density, box_transport, box_timestep), a time
c     loop, an IF on the sign of the transport, intent-less dummies.
c corpus: --function box_model --sizes nsteps=4 --init tnow=uniform(0,10) --init snow=uniform(34,36) --init fw=uniform(-0.1,0.1) --wrt tnow,snow,fw --of metric
      subroutine box_density(tloc, sloc, rholoc)
      implicit none
      double precision tloc(3), sloc(3), rholoc(3)
      double precision alpha, beta
      integer i
      parameter (alpha = 1.668d-4, beta = 0.7811d-3)
      do i = 1, 3
         rholoc(i) = -alpha*tloc(i) + beta*sloc(i)
      end do
      return
      end

      subroutine box_transport(rholoc, uvel)
      implicit none
      double precision rholoc(3), uvel
      double precision u0, delta
      parameter (u0 = 16.d0*1.d6*1.d3, delta = 0.4d0)
      uvel = u0*(rholoc(2) - (delta*rholoc(1) + (1.d0-delta)*rholoc(3)))
      return
      end

      subroutine box_timestep(gamma, fld, uvel, dfld, vol, fnew)
      implicit none
      double precision gamma, fld(3), uvel, dfld(3), vol(3), fnew(3)
      if (uvel .ge. 0.d0) then
         fnew(1) = fld(1) + gamma*(uvel*(fld(3)-fld(1))/vol(1)
     &             + dfld(1))
         fnew(2) = fld(2) + gamma*(uvel*(fld(1)-fld(2))/vol(2)
     &             + dfld(2))
         fnew(3) = fld(3) + gamma*(uvel*(fld(2)-fld(3))/vol(3)
     &             + dfld(3))
      else
         fnew(1) = fld(1) + gamma*(-uvel*(fld(2)-fld(1))/vol(1)
     &             + dfld(1))
         fnew(2) = fld(2) + gamma*(-uvel*(fld(3)-fld(2))/vol(2)
     &             + dfld(2))
         fnew(3) = fld(3) + gamma*(-uvel*(fld(1)-fld(3))/vol(3)
     &             + dfld(3))
      end if
      return
      end

      subroutine box_model(nsteps, tnow, snow, fw, metric)
      implicit none
      integer nsteps
      double precision tnow(3), snow(3), fw(2), metric
      double precision vol(3), tstar(3), sstar(3), dt, rho(3), uvel
      double precision dtfld(3), dsfld(3), tnew(3), snew(3), gam
      double precision ytime
      integer i, l
      common /box_pars/ vol, tstar
      data sstar /36.d0, 34.d0, 34.5d0/
      data dt /0.1d0/
      ytime = 3.15d7
      gam = dt*ytime/1.d10
      do l = 1, nsteps
         call box_density(tnow, snow, rho)
         call box_transport(rho, uvel)
         do i = 1, 3
            dtfld(i) = (tstar(i) - tnow(i))*0.3d0
         end do
         dsfld(1) = fw(1)*sstar(1)
         dsfld(2) = -(fw(1)+fw(2))*sstar(2)
         dsfld(3) = fw(2)*sstar(3)
         call box_timestep(gam, tnow, uvel*1.d-9, dtfld, vol, tnew)
         call box_timestep(gam, snow, uvel*1.d-9, dsfld, vol, snew)
         do i = 1, 3
            tnow(i) = tnew(i)
            snow(i) = snew(i)
         end do
      end do
      metric = (snow(1) - snow(2))**2 + tnow(3)
      return
      end
