! Layer weights in the style of ecRad/IFS routines: kinds from parkind1 (JPIA = JPIM,
! `kind=` everywhere), array constructors `(/ ... /)` and `[ ... ]`, implied-do items.
! adjc check: -I examples/fortran/modules --sizes KLEV=6
SUBROUTINE LAYER_WEIGHTS(KLEV, PT, PW, PFLUX)
  USE PARKIND1, ONLY: JPIM, JPIA, JPRB, RG
  IMPLICIT NONE
  INTEGER(KIND=JPIM), INTENT(IN) :: KLEV
  REAL(KIND=JPRB), INTENT(IN) :: PT(KLEV)
  REAL(KIND=JPRB), INTENT(OUT) :: PW(KLEV + 3)
  REAL(KIND=JPRB), INTENT(OUT) :: PFLUX(3)
  REAL(KIND=JPRB) :: ZCOEF(3)
  INTEGER(KIND=JPIA) :: JK

  ZCOEF = (/ 0.25_JPRB, 0.5_JPRB, 0.25_JPRB /)
  PW = [ (PT(JK) * REAL(JK, JPRB) / RG, JK = 1, KLEV), 1.0_JPRB, 2.0_JPRB, PT(1) ]
  PFLUX = ZCOEF * [ PT(1), PT(KLEV / 2), PT(KLEV) ] ** 2
END SUBROUTINE LAYER_WEIGHTS
