! In the style of CloverLeaf's calc_dt_kernel (not a copy). Exercises: a
! MIN reduction into dt_min_val, MAXLOC-free location search, integer
! intent-out dtl_control, WRITE(*,*) diagnostics under IF, optional-free
! scalar outputs, KIND=8 literals and g_big/g_small from data_module.
! corpus: modules/clover_data.f90 --sizes x_min=1,x_max=4,y_min=1,y_max=4 --init density0=uniform(1,2) --init soundspeed=uniform(1,2) --init celldx=uniform(0.5,1) --init celldy=uniform(0.5,1) --init xarea=uniform(0.5,1) --init yarea=uniform(0.5,1) --init volume=uniform(0.5,1) --wrt density0,soundspeed,xvel0 --of dt_min_val
MODULE calc_dt_kernel_module

CONTAINS

SUBROUTINE calc_dt_kernel(x_min,x_max,y_min,y_max,             &
                          dtmin,                               &
                          dtc_safe,                            &
                          dtu_safe,                            &
                          dtv_safe,                            &
                          dtdiv_safe,                          &
                          xarea,                               &
                          yarea,                               &
                          celldx,                              &
                          celldy,                              &
                          volume,                              &
                          density0,                            &
                          soundspeed,                          &
                          xvel0,yvel0,                         &
                          dt_min,                              &
                          dt_min_val,                          &
                          dtl_control,                         &
                          xl_pos,                              &
                          yl_pos,                              &
                          jldt,                                &
                          kldt,                                &
                          small                                )

  USE data_module

  IMPLICIT NONE

  INTEGER :: x_min,x_max,y_min,y_max
  REAL(KIND=8)  :: dtmin,dtc_safe,dtu_safe,dtv_safe,dtdiv_safe
  REAL(KIND=8), DIMENSION(x_min-2:x_max+3,y_min-2:y_max+2) :: xarea
  REAL(KIND=8), DIMENSION(x_min-2:x_max+2,y_min-2:y_max+3) :: yarea
  REAL(KIND=8), DIMENSION(x_min-2:x_max+2) :: celldx
  REAL(KIND=8), DIMENSION(y_min-2:y_max+2) :: celldy
  REAL(KIND=8), DIMENSION(x_min-2:x_max+2,y_min-2:y_max+2) :: volume
  REAL(KIND=8), DIMENSION(x_min-2:x_max+2,y_min-2:y_max+2) :: density0
  REAL(KIND=8), DIMENSION(x_min-2:x_max+2,y_min-2:y_max+2) :: soundspeed
  REAL(KIND=8), DIMENSION(x_min-2:x_max+3,y_min-2:y_max+3) :: xvel0,yvel0
  REAL(KIND=8), DIMENSION(x_min-2:x_max+2,y_min-2:y_max+2) :: dt_min
  REAL(KIND=8)  :: dt_min_val
  INTEGER       :: dtl_control
  REAL(KIND=8)  :: xl_pos,yl_pos
  INTEGER       :: jldt,kldt
  INTEGER       :: small

  INTEGER       :: j,k

  REAL(KIND=8)  :: div,dsx,dsy,dtut,dtvt,dtct,dtdivt,cc,dv1,dv2,jk_control

  small=0
  dt_min_val = g_big
  jk_control=1.1

!$OMP PARALLEL
!$OMP DO PRIVATE(dsx,dsy,cc,dv1,dv2,div,dtct,dtut,dtvt,dtdivt)
  DO k=y_min,y_max
    DO j=x_min,x_max

      dsx=celldx(j)
      dsy=celldy(k)

      cc=soundspeed(j,k)*soundspeed(j,k)
      cc=cc+2.0_8*0.1_8/density0(j,k)
      cc=MAX(SQRT(cc),g_small)

      dtct=dtc_safe*MIN(dsx,dsy)/cc

      div=0.0

      dv1=(xvel0(j  ,k)+xvel0(j  ,k+1))*xarea(j  ,k)
      dv2=(xvel0(j+1,k)+xvel0(j+1,k+1))*xarea(j+1,k)

      div=div+dv2-dv1

      dtut=dtu_safe*2.0_8*volume(j,k)/MAX(ABS(dv1),ABS(dv2),g_small*volume(j,k))

      dv1=(yvel0(j,k  )+yvel0(j+1,k  ))*yarea(j,k  )
      dv2=(yvel0(j,k+1)+yvel0(j+1,k+1))*yarea(j,k+1)

      div=div+dv2-dv1

      dtvt=dtv_safe*2.0_8*volume(j,k)/MAX(ABS(dv1),ABS(dv2),g_small*volume(j,k))

      div=div/(2.0_8*volume(j,k))

      IF(div.LT.-g_small)THEN
        dtdivt=dtdiv_safe*(-1.0_8/div)
      ELSE
        dtdivt=g_big
      ENDIF

      dt_min(j,k)=MIN(dtct,dtut,dtvt,dtdivt)

    ENDDO
  ENDDO
!$OMP END DO

!$OMP DO REDUCTION(MIN : dt_min_val)
  DO k=y_min,y_max
    DO j=x_min,x_max
      IF(dt_min(j,k).LT.dt_min_val) dt_min_val=dt_min(j,k)
    ENDDO
  ENDDO
!$OMP END DO
!$OMP END PARALLEL

  dtl_control=INT(10.01*(jk_control-INT(jk_control)))
  jk_control=jk_control-(jk_control-INT(jk_control))
  jldt=MOD(INT(jk_control),x_max)
  kldt=1+(jk_control/x_max)
  xl_pos=celldx(jldt)
  yl_pos=celldy(kldt)

  IF(dt_min_val.LT.dtmin) small=1

  IF(small.NE.0)THEN
    WRITE(0,*) 'Timestep information:'
    WRITE(0,*) 'j, k                 : ',jldt,kldt
    WRITE(0,*) 'x, y                 : ',celldx(jldt),celldy(kldt)
    WRITE(0,*) 'timestep : ',dt_min_val
    WRITE(0,*) 'Cell velocities;'
    WRITE(0,*) xvel0(jldt  ,kldt  ),yvel0(jldt  ,kldt  )
    WRITE(0,*) 'density, energy, pressure, soundspeed '
    WRITE(0,*) density0(jldt,kldt),soundspeed(jldt,kldt)
  ENDIF

END SUBROUTINE calc_dt_kernel

END MODULE calc_dt_kernel_module
