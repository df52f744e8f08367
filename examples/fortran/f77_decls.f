c     Fortran 77 declarations as the NAS benchmarks write them: PARAMETER
c     statements between the type declarations (one before the type of its
c     name), DIMENSION statements for arguments and locals, and early RETURNs.
! adjc check: --sizes N=8
      SUBROUTINE SMOOTH77(N, U, V, S)
      IMPLICIT NONE
      INTEGER M
      PARAMETER (M = 3)
      INTEGER N, I
      DOUBLE PRECISION U, V, S, W, C1, C2
      PARAMETER (C1 = 0.25D0, C2 = 2.0D0 * C1)
      DIMENSION U(N), V(N)
      DIMENSION W(M)
      W(1) = C1
      W(2) = C2
      W(M) = C1
      S = 0.0D0
      IF (N .LT. 3) RETURN
      DO 10 I = 2, N - 1
         V(I) = W(1)*U(I-1) + W(2)*U(I) + W(3)*U(I+1)
         S = S + V(I)*V(I)
   10 CONTINUE
      RETURN
      END
