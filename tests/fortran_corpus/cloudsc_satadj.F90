! In the style of CLOUDSC's saturation adjustment block (not a copy).
! Exercises: IFS statement functions from an #include'd fcttre.func.h
! (FOEEWM, FOEDEM, FOELDCPM), YOMCST/YOETHF constants that are module
! VARIABLES (set by setup routines), KIDIA/KFDIA/KLON/KLEV dummies,
! INTEGER(KIND=JPIM), LHOOK, upper-case IFS naming, MIN/MAX clamps.
! corpus: modules/parkind1.f90 modules/yomhook.f90 modules/yomcst.f90 modules/yoethf.f90 modules/setup_sucst.f90 modules/setup_su_yoethf.f90 -I inc --setup sucst,su_yoethf --sizes klon=4,klev=3,kidia=1,kfdia=4 --init pt=uniform(250,290) --init pq=uniform(0.001,0.01) --init pap=uniform(50000,100000) --wrt pt,pq --of pt,pq
SUBROUTINE CLOUDSC_SATADJ(KIDIA, KFDIA, KLON, KLEV, PAP, PT, PQ)
USE PARKIND1, ONLY : JPIM, JPRB
USE YOMHOOK,  ONLY : LHOOK, DR_HOOK, JPHOOK
USE YOMCST,   ONLY : RETV, RLVTT, RLSTT, RTT, RCPD
USE YOETHF,   ONLY : R2ES, R3LES, R3IES, R4LES, R4IES, R5LES, R5IES, &
 & RTICE, RTWAT, RTWAT_RTICE_R
IMPLICIT NONE
INTEGER(KIND=JPIM), INTENT(IN) :: KIDIA, KFDIA, KLON, KLEV
REAL(KIND=JPRB), INTENT(IN) :: PAP(KLON,KLEV)
REAL(KIND=JPRB), INTENT(INOUT) :: PT(KLON,KLEV)
REAL(KIND=JPRB), INTENT(INOUT) :: PQ(KLON,KLEV)
INTEGER(KIND=JPIM) :: JK, JL
REAL(KIND=JPRB) :: ZQSAT, ZCOR, ZCOND, ZQP, ZL
REAL(KIND=JPHOOK) :: ZHOOK_HANDLE
#include "fcttre.func.h"

IF (LHOOK) CALL DR_HOOK('CLOUDSC_SATADJ',0,ZHOOK_HANDLE)

DO JK = 1, KLEV
  DO JL = KIDIA, KFDIA
    ZQP = 1.0_JPRB/PAP(JL,JK)
    ZQSAT = FOEEWM(PT(JL,JK))*ZQP
    ZQSAT = MIN(0.5_JPRB, ZQSAT)
    ZCOR = 1.0_JPRB/(1.0_JPRB - RETV*ZQSAT)
    ZQSAT = ZQSAT*ZCOR
    ZL = FOELDCPM(PT(JL,JK))
    ZCOND = (PQ(JL,JK) - ZQSAT)/(1.0_JPRB + ZQSAT*ZCOR*FOEDEM(PT(JL,JK)))
    ZCOND = MAX(ZCOND, 0.0_JPRB)
    PT(JL,JK) = PT(JL,JK) + ZL*ZCOND
    PQ(JL,JK) = PQ(JL,JK) - ZCOND
  ENDDO
ENDDO

IF (LHOOK) CALL DR_HOOK('CLOUDSC_SATADJ',1,ZHOOK_HANDLE)
END SUBROUTINE CLOUDSC_SATADJ
