c     In the style of NAS BT/SP's exact_solution (not a copy). Exercises:
c     implicit typing (no IMPLICIT NONE; NPB says `implicit none` only in
c     some files), COMMON coefficients ce(5,13) through include, a small
c     polynomial in three coordinates, trailing RETURN.
c corpus: -I inc --wrt xi,eta,zeta,constants_ce --of dtemp
      subroutine exact_solution(xi,eta,zeta,dtemp)
      include 'sp_header.h'
      double precision  xi, eta, zeta, dtemp(5)
      integer m

      do m = 1, 5
         dtemp(m) =  ce(m,1) +
     >     xi*(ce(m,2) + xi*(ce(m,5) + xi*(ce(m,8) + xi*ce(m,11)))) +
     >     eta*(ce(m,3) + eta*(ce(m,6) + eta*(ce(m,9) + eta*ce(m,12))))+
     >     zeta*(ce(m,4) + zeta*(ce(m,7) + zeta*(ce(m,10) +
     >     zeta*ce(m,13))))
      enddo

      return
      end
