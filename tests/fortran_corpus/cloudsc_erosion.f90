! In the style of CLOUDSC's cloud erosion term (not a copy). Exercises:
! an IF-guarded update with a small-value threshold, MAX/MIN, a PARAMETER
! from a module, an intent(out) tendency array zeroed with an array
! assignment, and a trailing RETURN before END.
! corpus: modules/parkind1.f90 --sizes klon=4,klev=3,kidia=1,kfdia=4 --init pa=uniform(0.1,0.9) --init pql=uniform(1e-5,1e-3) --init pqsat=uniform(0.005,0.01) --init pq=uniform(0.003,0.009)
SUBROUTINE CLOUDSC_EROSION(KIDIA, KFDIA, KLON, KLEV, PA, PQ, PQSAT, PQL, PTEND)
USE PARKIND1, ONLY : JPIM, JPRB
IMPLICIT NONE
INTEGER(KIND=JPIM), INTENT(IN) :: KIDIA, KFDIA, KLON, KLEV
REAL(KIND=JPRB), INTENT(IN) :: PA(KLON,KLEV), PQ(KLON,KLEV), PQSAT(KLON,KLEV)
REAL(KIND=JPRB), INTENT(IN) :: PQL(KLON,KLEV)
REAL(KIND=JPRB), INTENT(OUT) :: PTEND(KLON,KLEV)
REAL(KIND=JPRB), PARAMETER :: RCLDIFF = 3.E-6_JPRB, RLMIN = 1.E-8_JPRB
INTEGER(KIND=JPIM) :: JK, JL
REAL(KIND=JPRB) :: ZE, ZLEROS, ZQSAT_DEF

PTEND(:,:) = 0.0_JPRB
DO JK = 1, KLEV
  DO JL = KIDIA, KFDIA
    IF (PQL(JL,JK) > RLMIN .AND. PA(JL,JK) > 0.01_JPRB) THEN
      ZQSAT_DEF = MAX(0.0_JPRB, PQSAT(JL,JK) - PQ(JL,JK))
      ZE = RCLDIFF*ZQSAT_DEF
      ZLEROS = PA(JL,JK)*900.0_JPRB*ZE
      ZLEROS = MIN(ZLEROS, PQL(JL,JK))
      PTEND(JL,JK) = -ZLEROS
    ENDIF
  ENDDO
ENDDO
RETURN
END SUBROUTINE CLOUDSC_EROSION
