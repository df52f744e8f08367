! In the style of CloverLeaf's ideal_gas driver (not a copy). Exercises:
! the module array of chunks of nested types with allocatable components
! (chunks(c)%field%density0), a LOGICAL predict dummy, loops over chunks,
! a call of a kernel of the same file with component arguments.
! corpus: modules/clover_definitions.f90
MODULE ideal_gas_module
CONTAINS
SUBROUTINE ideal_gas_kernel_small(x_min,x_max,y_min,y_max,density,energy,pressure)
  IMPLICIT NONE
  INTEGER :: x_min,x_max,y_min,y_max
  REAL(KIND=8), DIMENSION(x_min-2:x_max+2,y_min-2:y_max+2) :: density,energy,pressure
  INTEGER :: j,k
  DO k=y_min,y_max
    DO j=x_min,x_max
      pressure(j,k)=(1.4_8-1.0_8)*density(j,k)*energy(j,k)
    ENDDO
  ENDDO
END SUBROUTINE ideal_gas_kernel_small

SUBROUTINE ideal_gas(chunk)
  USE definitions_module
  IMPLICIT NONE
  INTEGER :: chunk
  IF(chunks(chunk)%task.NE.0) RETURN
  CALL ideal_gas_kernel_small(chunks(chunk)%field%x_min,     &
                              chunks(chunk)%field%x_max,     &
                              chunks(chunk)%field%y_min,     &
                              chunks(chunk)%field%y_max,     &
                              chunks(chunk)%field%density0,  &
                              chunks(chunk)%field%energy0,   &
                              chunks(chunk)%field%pressure   )
END SUBROUTINE ideal_gas
END MODULE ideal_gas_module
