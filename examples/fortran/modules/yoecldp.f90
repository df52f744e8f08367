! Cloud-scheme parameters as IFS's YOECLDP declares them (in its style, not a copy): a
! derived type TECLDP and a module POINTER variable YRECLDP of that type, set up by the
! model before the physics runs; and a diagnostics type whose module variable YRDIAG
! the scheme accumulates into.
MODULE YOECLDP
USE PARKIND1, ONLY : JPIM, JPRB
IMPLICIT NONE
SAVE
INTEGER(KIND=JPIM), PARAMETER :: NCLV = 3
TYPE :: TECLDP
  REAL(KIND=JPRB) :: RAMID
  REAL(KIND=JPRB) :: RKCONV
  REAL(KIND=JPRB) :: RLCRIT
  REAL(KIND=JPRB) :: RFALL(NCLV)
  INTEGER(KIND=JPIM) :: NCLDDIAG
END TYPE TECLDP
TYPE :: TECLDDIAG
  REAL(KIND=JPRB) :: PRECIP_SUM
  REAL(KIND=JPRB) :: CALLS
END TYPE TECLDDIAG
TYPE(TECLDP), POINTER :: YRECLDP => NULL()
TYPE(TECLDDIAG) :: YRDIAG
END MODULE YOECLDP
