! In the style of dwarf-cloudsc's state_type tendencies (not a copy).
! Exercises: TYPE(STATE_TYPE) dummies with allocatable 2-D and 3-D
! components (TENDENCY_LOC%T(JL,JK), TENDENCY_LOC%CLD(JL,JK,NCLDQL)),
! a module parameter species index, upper-case IFS names, KIND=JPRB.
! corpus: modules/parkind1.f90 --sizes klon=3,klev=2,kidia=1,kfdia=3,tendency_loc_t_n0=3,tendency_loc_t_n1=2,tendency_loc_t_lb0=1,tendency_loc_t_lb1=1,tendency_loc_q_n0=3,tendency_loc_q_n1=2,tendency_loc_q_lb0=1,tendency_loc_q_lb1=1,tendency_loc_cld_n0=3,tendency_loc_cld_n1=2,tendency_loc_cld_n2=5,tendency_loc_cld_lb0=1,tendency_loc_cld_lb1=1,tendency_loc_cld_lb2=1 --wrt zsolqa,zqxn --of tendency_loc_t,tendency_loc_q,tendency_loc_cld
MODULE CLOUDSC_TENDENCIES
USE PARKIND1, ONLY : JPIM, JPRB
IMPLICIT NONE
INTEGER(KIND=JPIM), PARAMETER :: NCLV = 5, NCLDQL = 1, NCLDQI = 2, NCLDQV = 5
TYPE STATE_TYPE
  REAL(KIND=JPRB), ALLOCATABLE :: T(:,:), Q(:,:)
  REAL(KIND=JPRB), ALLOCATABLE :: CLD(:,:,:)
END TYPE STATE_TYPE
CONTAINS
SUBROUTINE CLOUDSC_UPDATE_TENDENCIES(KIDIA, KFDIA, KLON, KLEV, PTSPHY, ZQX0, ZQXN, ZSOLQA, &
 & TENDENCY_LOC)
INTEGER(KIND=JPIM), INTENT(IN) :: KIDIA, KFDIA, KLON, KLEV
REAL(KIND=JPRB), INTENT(IN) :: PTSPHY
REAL(KIND=JPRB), INTENT(IN) :: ZQX0(KLON,KLEV,NCLV), ZQXN(KLON,KLEV,NCLV)
REAL(KIND=JPRB), INTENT(IN) :: ZSOLQA(KLON,KLEV)
TYPE(STATE_TYPE), INTENT(INOUT) :: TENDENCY_LOC
REAL(KIND=JPRB), PARAMETER :: RALVDCP = 2491.0_JPRB, RALSDCP = 2834.0_JPRB
INTEGER(KIND=JPIM) :: JK, JL, JM
REAL(KIND=JPRB) :: ZQTMST

ZQTMST = 1.0_JPRB/PTSPHY
DO JK = 1, KLEV
  DO JL = KIDIA, KFDIA
    TENDENCY_LOC%T(JL,JK) = RALVDCP*(ZQXN(JL,JK,NCLDQL) - ZQX0(JL,JK,NCLDQL))*ZQTMST &
     & + RALSDCP*(ZQXN(JL,JK,NCLDQI) - ZQX0(JL,JK,NCLDQI))*ZQTMST + ZSOLQA(JL,JK)
    TENDENCY_LOC%Q(JL,JK) = (ZQXN(JL,JK,NCLDQV) - ZQX0(JL,JK,NCLDQV))*ZQTMST
  ENDDO
ENDDO
DO JM = 1, NCLV - 1
  DO JK = 1, KLEV
    DO JL = KIDIA, KFDIA
      TENDENCY_LOC%CLD(JL,JK,JM) = (ZQXN(JL,JK,JM) - ZQX0(JL,JK,JM))*ZQTMST
    ENDDO
  ENDDO
ENDDO
END SUBROUTINE CLOUDSC_UPDATE_TENDENCIES
END MODULE CLOUDSC_TENDENCIES
