c     Newton's method per point as F77 codes write it: a labelled
c     statement starts the iteration and a backward GOTO repeats it
c     while the step is large. adjc rewrites the GOTO loop into a DO
c     loop left by EXIT: its trip count is recorded per point.
! adjc check: --sizes n=16 --max-trips L1=60
      SUBROUTINE CUBE_ROOTS(N, C, Y, X)
      IMPLICIT NONE
      INTEGER N, I, K
      DOUBLE PRECISION C(N), Y(N), X(N), A, XI, F, DX
      DO 20 I = 1, N
         A = 1.0D0 + C(I) * C(I)
         XI = Y(I)
         K = 0
   10    F = XI * XI * XI + A * XI - Y(I)
         DX = F / (3.0D0 * XI * XI + A)
         XI = XI - DX
         K = K + 1
         IF (ABS(DX) .GT. 1.0D-13 .AND. K .LT. 60) GOTO 10
         X(I) = XI
   20 CONTINUE
      RETURN
      END
