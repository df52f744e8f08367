c     Forward GOTOs as F77 codes write them: a jump to the terminal
c     CONTINUE of a DO loop skips the rest of the iteration, a jump out of
c     an IF block skips what follows, and a jump to the end of the
c     routine is an early exit. adjc lowers them to structured IFs.
! adjc check: --sizes n=9
      SUBROUTINE CLIP_FLUX(N, U, F, FMAX, S)
      IMPLICIT NONE
      INTEGER N, I
      DOUBLE PRECISION U(N), F(N), FMAX, S
      S = 0.0D0
      IF (N .LT. 2) GOTO 900
      DO 10 I = 2, N
         F(I) = 0.0D0
         IF (U(I) .LE. U(I-1)) GOTO 10
         F(I) = U(I) - U(I-1)
         IF (F(I) .GT. FMAX) THEN
            F(I) = FMAX
            GOTO 10
         END IF
         F(I) = F(I) * (1.0D0 + 0.5D0 * U(I))
   10 CONTINUE
      DO 20 I = 2, N
         S = S + F(I)**2
   20 CONTINUE
  900 CONTINUE
      RETURN
      END
