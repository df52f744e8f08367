c     An equation of state picked by a computed GO TO, in the style of
c     F77 codes (OpenAD's regression suite, old NAS routines): the jump
c     table enters at the IEOS-th label, a case may fall through into
c     the next one (20 into 30), GO TO 50 ends the iteration, and an
c     IEOS out of range runs the statements after the GO TO.
! adjc check: --sizes n=5,ieos=2 --init rho=uniform(0.5,1.5) --init t=uniform(1,2)
      subroutine eos_select(n, ieos, rho, t, p)
      implicit none
      integer n, ieos, i
      double precision rho(n), t(n), p(n), gam
      gam = 1.4d0
      do 50 i = 1, n
         go to (10, 20, 30) ieos
         p(i) = rho(i) * t(i)
         go to 50
   10    p(i) = (gam - 1.0d0) * rho(i) * t(i)
         go to 50
   20    t(i) = t(i) + 0.01d0 * t(i) * t(i)
   30    p(i) = (gam - 1.0d0) * rho(i) * t(i) - gam * 0.1d0
   50 continue
      end
