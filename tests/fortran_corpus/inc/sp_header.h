c     In the style of NAS SP/BT's header.h (not a copy): grid sizes from
c     npbparams.h, solution, rhs and forcing in COMMON, constants in COMMON.
      include 'npbparams.h'
      integer IMAX, JMAX, KMAX, IMAXP, JMAXP
      parameter (IMAX=problem_size, JMAX=problem_size,
     >           KMAX=problem_size)
      parameter (IMAXP=IMAX/2*2, JMAXP=JMAX/2*2)
      integer grid_points(3), nx2, ny2, nz2
      logical timeron
      common /global/ grid_points, nx2, ny2, nz2, timeron
      double precision tx1, tx2, tx3, ty1, ty2, ty3, tz1, tz2, tz3,
     >                 dx1, dx2, dx3, dx4, dx5, dy1, dy2, dy3, dy4,
     >                 dy5, dz1, dz2, dz3, dz4, dz5, dssp, dt,
     >                 ce(5,13), dxmax, dymax, dzmax, xxcon1, xxcon2,
     >                 xxcon3, xxcon4, xxcon5, dx1tx1, dx2tx1, dx3tx1,
     >                 dx4tx1, dx5tx1, yycon1, yycon2, yycon3, yycon4,
     >                 yycon5, dy1ty1, dy2ty1, dy3ty1, dy4ty1, dy5ty1,
     >                 zzcon1, zzcon2, zzcon3, zzcon4, zzcon5, dz1tz1,
     >                 dz2tz1, dz3tz1, dz4tz1, dz5tz1, dnxm1, dnym1,
     >                 dnzm1, c1c2, c1c5, c3c4, c1345, conz1, c1, c2,
     >                 c3, c4, c5, c4dssp, c5dssp, dtdssp, dttx1, bt,
     >                 dttx2, dtty1, dtty2, dttz1, dttz2, c2dttx1,
     >                 c2dtty1, c2dttz1, comz1, comz4, comz5, comz6,
     >                 c3c4tx3, c3c4ty3, c3c4tz3, c2iv, con43, con16
      common /constants/ tx1, tx2, tx3, ty1, ty2, ty3, tz1, tz2, tz3,
     >                 dx1, dx2, dx3, dx4, dx5, dy1, dy2, dy3, dy4,
     >                 dy5, dz1, dz2, dz3, dz4, dz5, dssp, dt,
     >                 ce, dxmax, dymax, dzmax, xxcon1, xxcon2,
     >                 xxcon3, xxcon4, xxcon5, dx1tx1, dx2tx1, dx3tx1,
     >                 dx4tx1, dx5tx1, yycon1, yycon2, yycon3, yycon4,
     >                 yycon5, dy1ty1, dy2ty1, dy3ty1, dy4ty1, dy5ty1,
     >                 zzcon1, zzcon2, zzcon3, zzcon4, zzcon5, dz1tz1,
     >                 dz2tz1, dz3tz1, dz4tz1, dz5tz1, dnxm1, dnym1,
     >                 dnzm1, c1c2, c1c5, c3c4, c1345, conz1, c1, c2,
     >                 c3, c4, c5, c4dssp, c5dssp, dtdssp, dttx1, bt,
     >                 dttx2, dtty1, dtty2, dttz1, dttz2, c2dttx1,
     >                 c2dtty1, c2dttz1, comz1, comz4, comz5, comz6,
     >                 c3c4tx3, c3c4ty3, c3c4tz3, c2iv, con43, con16
      double precision u(5,0:IMAXP,0:JMAXP,0:KMAX-1),
     >                 us(0:IMAXP,0:JMAXP,0:KMAX-1),
     >                 vs(0:IMAXP,0:JMAXP,0:KMAX-1),
     >                 ws(0:IMAXP,0:JMAXP,0:KMAX-1),
     >                 qs(0:IMAXP,0:JMAXP,0:KMAX-1),
     >                 rho_i(0:IMAXP,0:JMAXP,0:KMAX-1),
     >                 square(0:IMAXP,0:JMAXP,0:KMAX-1),
     >                 rhs(5,0:IMAXP,0:JMAXP,0:KMAX-1),
     >                 forcing(5,0:IMAXP,0:JMAXP,0:KMAX-1)
      common /fields/ u, us, vs, ws, qs, rho_i, square, rhs, forcing
      integer t_rhsx, t_rhs, t_last
      parameter (t_rhs=4, t_rhsx=5, t_last=15)
