c     Speelpenning's product y = x(1) * x(2) * ... * x(n), the classic AD test,
c     in fixed-form Fortran 77 with a labelled DO loop.
! adjc check: --sizes N=10 --init X=uniform(0.5,1.5)
      SUBROUTINE SPEELPENNING(N, X, Y)
      IMPLICIT NONE
      INTEGER N, I
      DOUBLE PRECISION X(N), Y
      Y = 1.0D0
      DO 10 I = 1, N
         Y = Y * X(I)
   10 CONTINUE
      END
