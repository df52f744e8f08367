! A CLOUDSC-style routine reading its parameters through the module variable YRECLDP of
! derived type (YRECLDP%RKCONV, YRECLDP%RLCRIT, the array component YRECLDP%RFALL) and
! accumulating into a component of the module variable YRDIAG. adjc passes each
! component in use as a C parameter named <var>_<component> (yrecldp_rkconv, ...,
! yrdiag_precip_sum): the read ones are inputs (yrecldp_rkconv active here), the
! accumulated one is updated in place and active; the drop-in wrapper passes
! yrecldp%rkconv and yrdiag%precip_sum from the module.
! adjc check: examples/fortran/modules/parkind1.f90 examples/fortran/modules/yomhook.f90 examples/fortran/modules/yoecldp.f90 --sizes klon=4,klev=3,kidia=1,kfdia=4 --init pa=uniform(0.1,0.9) --init pql=uniform(0.2,0.9) --init yrecldp_rlcrit=uniform(0.3,0.5) --wrt pql,yrecldp_rkconv,yrecldp_rfall --of pql,yrdiag_precip_sum
SUBROUTINE CLOUDSC_MODULE_TYPE(KIDIA, KFDIA, KLON, KLEV, PTSPHY, PA, PQL)
USE PARKIND1, ONLY : JPIM, JPRB
USE YOMHOOK,  ONLY : LHOOK, DR_HOOK, JPHOOK
USE YOECLDP,  ONLY : YRECLDP, YRDIAG, NCLV
IMPLICIT NONE
INTEGER(KIND=JPIM), INTENT(IN) :: KIDIA, KFDIA, KLON, KLEV
REAL(KIND=JPRB), INTENT(IN) :: PTSPHY
REAL(KIND=JPRB), INTENT(IN) :: PA(KLON,KLEV)
REAL(KIND=JPRB), INTENT(INOUT) :: PQL(KLON,KLEV)
INTEGER(KIND=JPIM) :: JK, JL, JM
REAL(KIND=JPRB) :: ZCONV, ZFALL, ZPRECIP
REAL(KIND=JPHOOK) :: ZHOOK_HANDLE

IF (LHOOK) CALL DR_HOOK('CLOUDSC_MODULE_TYPE',0,ZHOOK_HANDLE)
ZFALL = 0.0_JPRB
DO JM = 1, NCLV
  ZFALL = ZFALL + YRECLDP%RFALL(JM)**2
ENDDO
DO JK = 1, KLEV
  DO JL = KIDIA, KFDIA
    ZCONV = YRECLDP%RKCONV*PTSPHY*(1.0_JPRB - EXP(-(PQL(JL,JK)/(PA(JL,JK)*YRECLDP%RLCRIT))**2))
    ZPRECIP = PQL(JL,JK)*ZCONV*(1.0_JPRB + ZFALL)
    PQL(JL,JK) = PQL(JL,JK) - ZPRECIP
    YRDIAG%PRECIP_SUM = YRDIAG%PRECIP_SUM + ZPRECIP
  ENDDO
ENDDO
IF (LHOOK) CALL DR_HOOK('CLOUDSC_MODULE_TYPE',1,ZHOOK_HANDLE)
END SUBROUTINE CLOUDSC_MODULE_TYPE
