c     In the style of NAS MG's globals.h (not a copy): a timer switch in
c     COMMON and the timer indices as parameters.
      integer T_resid, T_psinv, T_last
      parameter (T_resid=5, T_psinv=6, T_last=10)
      logical timeron
      common /timers/ timeron
