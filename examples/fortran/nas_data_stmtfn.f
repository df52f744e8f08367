c     Fixed-form declarations of the real codes: DATA statements give the
c     weights of a smoother their values (a local that is never assigned:
c     a constant), and statement functions as IFS's fcttre.func.h defines
c     them (FOEEW-style, before the first executable statement) are
c     inlined where they are used.
! adjc check: --sizes n=9 --init t=uniform(250,300) --wrt T,q --of es,Q
      SUBROUTINE SMOOTH_SAT(N, T, Q, ES)
      IMPLICIT NONE
      INTEGER N, I, K
      DOUBLE PRECISION T(N), Q(N), ES(N)
      DOUBLE PRECISION W(3), R2ES, R3LES, R4LES, RTT, EPS
      DOUBLE PRECISION FOEEW, FOQS, PTARE, PES
      DATA W /0.25D0, 2*0.375D0/
      DATA R2ES, R3LES /611.21D0, 17.502D0/, R4LES /32.19D0/
      DATA RTT /273.16D0/, EPS /0.622D0/
      FOEEW(PTARE) = R2ES*EXP(R3LES*(PTARE-RTT)/(PTARE-R4LES))
      FOQS(PES) = EPS*PES/(1.0D5 - (1.0D0-EPS)*PES)
      DO 10 I = 2, N - 1
         ES(I) = 0.0D0
         DO 20 K = 1, 3
            ES(I) = ES(I) + W(K)*FOEEW(T(I+K-2))
   20    CONTINUE
         Q(I) = FOQS(ES(I))
   10 CONTINUE
      RETURN
      END
