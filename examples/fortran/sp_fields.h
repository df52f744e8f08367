c     Grid and fields of the NAS-style solver (included by nas_rhs.f):
c     the arrays live in COMMON, as in NAS SP's header.h.
      integer nx, ny
      parameter (nx = 12, ny = 10)
      double precision u(nx, ny), rhs(nx, ny), forcing(nx, ny)
      double precision dt, c1, c2
      common /fields/ u, rhs, forcing
      common /constants/ dt, c1, c2
